//! A table's round (`spec/GAMES.md`, *Rounds*): one shuffle or one shake, and every player's place
//! settled on it. [`Round::step`] refuses a [`RoundCommand`] (changing nothing) or applies it and
//! returns the [`RoundEvent`]s it caused; [`Round::replay`] runs the commands a log's events record
//! through `step` again and refuses the log at the first event that does not come out the same.
//!
//! A round owns what the table shares: the seed and its one shuffle (or its one stream of dice),
//! betting, the seats and who holds them, the decision window, the cards the table has seen, the
//! round-wide void and the seed's reveal. Each place (a seat, or one player of a shared hand or a
//! shake) is played by today's one-player [`Hand`] of the game over the place's projection of the
//! round's deck (`table.rs`), so every game rule — wagers, decisions, forfeits, the incomplete-game
//! rule, settlement, caps — is the hand's, unchanged; a one-seat round deals and settles exactly as a
//! one-player hand from the same seed. The round holds each hand's cards back from the table until
//! every place in play has come to them, and settles every place at one showdown.
//!
//! Under a configuration whose deal seed is mixed (`docs/rng.md` §1a), the round names its beacon
//! round when it opens, takes each player's seed by its digest with the bet, and deals only once
//! the sources are fixed — at betting's close, or when the beacon round arrives (or its wait is
//! over and the late rule applies): each place's hand is then opened again over the mixed seed's
//! cards.
//!
//! Pure: no I/O, no clock (times come in commands), no randomness of its own (the seed is handed
//! in; the beacon's signature is verified by whoever fetched it). Bounded: a round takes at most [`PLAYERS_MAX`] players; work per decision does not grow
//! with the number of players (a card turned for the table, a shake, the window's close and the
//! showdown visit every place once).

mod command;
mod error;
mod event;
mod table;
mod view;

use std::collections::BTreeMap;
use std::sync::Arc;

pub use command::{BeaconArrival, ChangeDealer, Decide, OpenRound, PlaceBet, RoundCommand, Shape};
pub use error::{Phase, RoundError};
pub use event::{
    BeaconArrived, BeaconMissed, BetPlaced, DealerChanged, NamedBeacon, RoundEvent, RoundOpened,
    RoundVoided, SeatDealt, Shake, WindowClosed,
};
pub use view::{PlaceView, RoundView, PAGE_MAX};

use crate::card::Card;
use crate::config::{self, LateBeacon, RulesVersion};
use crate::field::FieldPath;
use crate::game::{GameId, Seat};
use crate::games::{
    dealer_way, Action, Command, Event, Hand, OpenHand, RuleError, Shaker, Status, Timestamp,
    VoidKind, VoidOrder, Window, DAY_MS,
};
use crate::mix::{self, BeaconValue, Sources};
use crate::rng::{Seed, WordStream};
use crate::settlement::{BetId, Settlement, Wager};
use table::{projected, Layout, Sight};

/// The most players one round takes (a configuration's bound may be lower): a live studio's
/// thousands on one hand.
pub const PLAYERS_MAX: u32 = 25_000;

/// The shortest decision window, in milliseconds.
pub const WINDOW_MIN_MS: u64 = 1_000;

/// The longest decision window, in milliseconds: a day.
pub const WINDOW_MAX_MS: u64 = DAY_MS;

/// The latest time a command may carry: the last millisecond of the year 9999 (so a deal's time
/// plus its window always fits).
pub const TIME_MAX_MS: u64 = 253_402_300_799_999;

/// The most dealers one round has: the opening's and up to fifteen who take over.
pub const DEALERS_MAX: usize = 16;

/// The most wagers one bet carries: one per bet of any game.
pub const WAGERS_MAX: usize = BetId::ALL.len();

/// One player's place in a round: a seat, or their play of a shared hand or a shake.
#[derive(Clone, Debug)]
pub struct Place {
    player: String,
    seat: Option<u8>,
    /// The place's one-player deck position → the round's.
    map: Arc<[u8]>,
    hand: Hand,
    /// Table positions the place's hand has turned that the table has not seen yet.
    waiting: Vec<u8>,
    /// The bet's wagers and time: the hand opened again over the deal seed's cards when sources
    /// mix it.
    wagers: Vec<Wager>,
    bet_at: Timestamp,
    /// The digest of the player's seed, when they sent one.
    seed_digest: Option<[u8; 32]>,
}

impl Place {
    /// The player's reference.
    pub fn player(&self) -> &str {
        &self.player
    }

    /// The seat, in a round of seats.
    pub fn seat(&self) -> Option<u8> {
        self.seat
    }

    /// The place's one-player hand: its stakes, settlement or void. Not for any player's eyes
    /// before the showdown, not even this place's: it may hold cards the table has not been shown
    /// yet (a street's community card, the dealer's hand) and a settlement not yet announced.
    pub fn hand(&self) -> &Hand {
        &self.hand
    }

    /// The round's deck position of the place's own deck position `position`.
    pub fn round_position(&self, position: u8) -> Option<u8> {
        self.map.get(usize::from(position)).copied()
    }

    /// The digest of the seed its player sent with the bet.
    pub fn seed_digest(&self) -> Option<[u8; 32]> {
        self.seed_digest
    }

    /// Whether the place is still in play: opened, not yet settled or voided.
    pub fn in_play(&self) -> bool {
        self.hand.status() == Status::InProgress
    }

    /// The table positions the place's hand has turned that the table has not seen yet: while
    /// there are any, its player waits for the other places to decide.
    pub fn waiting(&self) -> &[u8] {
        &self.waiting
    }
}

/// One round: its secret seed, its configuration, its places and everything that has happened to
/// it.
#[derive(Clone, Debug)]
pub struct Round {
    seed: Seed,
    config: config::Identified,
    /// The one shuffle (empty for dice).
    deck: Vec<Card>,
    /// The seed's stream after the shuffle: every place's dice.
    stream: WordStream,
    phase: Phase,
    opened: Option<RoundOpened>,
    /// Every dealer who dealt it, in order (the opening's first): at most [`DEALERS_MAX`], each
    /// once; the last is the dealer now.
    dealers: Vec<String>,
    layout: Layout,
    sight: Sight,
    places: Vec<Place>,
    /// Each player's places, by place number.
    players: BTreeMap<String, Vec<u32>>,
    /// Each seat's place (index `seat − 1`), in a round of seats.
    seats: Vec<Option<u32>>,
    /// The bettor offered the cup (Nutz), once betting closed.
    shaker: Option<String>,
    /// When the round dealt.
    dealt_at: Option<Timestamp>,
    /// The beacon round that mixed the deal seed, once arrived (with its signature).
    beacon: Option<BeaconArrived>,
    /// The late-beacon rule, once applied.
    beacon_late: Option<BeaconMissed>,
    last_at: Timestamp,
    seed_revealed: bool,
    /// The showdown has announced the settlements.
    showdown_done: bool,
    version: u64,
}

impl Round {
    /// A round not yet opened, with its seed (the service's CSPRNG's, or the revealed one on
    /// replay) and its configuration.
    pub fn new(seed: Seed, config: impl Into<config::Identified>) -> Round {
        let config = config.into();
        let mut stream = seed.stream();
        let deck = match config.config().game.material() {
            crate::game::Material::Cards(deck) => stream.shuffle(deck),
            crate::game::Material::Dice { .. } => Vec::new(),
        };
        Round {
            seed,
            config,
            deck,
            stream,
            phase: Phase::Pending,
            opened: None,
            dealers: Vec::new(),
            layout: Layout::default(),
            sight: Sight::default(),
            places: Vec::new(),
            players: BTreeMap::new(),
            seats: Vec::new(),
            shaker: None,
            dealt_at: None,
            beacon: None,
            beacon_late: None,
            last_at: Timestamp(0),
            seed_revealed: false,
            showdown_done: false,
            version: 0,
        }
    }

    /// Replays a round from its seed, its configuration and its recorded events: each command the
    /// events record is applied again, and each event it causes must be the recorded one.
    pub fn replay(
        seed: Seed,
        config: impl Into<config::Identified>,
        events: &[RoundEvent],
    ) -> Result<Round, RoundError> {
        let mut round = Round::new(seed, config);
        let mut index = 0;
        while let Some(event) = events.get(index) {
            let command = round.command_of(event).ok_or_else(|| RoundError::Replay {
                index,
                why: format!("a {} event does not begin a command here", event.kind()),
            })?;
            let produced = round.step(&command).map_err(|error| RoundError::Replay {
                index,
                why: format!("the round refuses it: {error}"),
            })?;
            for (k, event) in produced.iter().enumerate() {
                match events.get(index + k) {
                    Some(recorded) if recorded == event => {}
                    Some(recorded) => {
                        return Err(RoundError::Replay {
                            index: index + k,
                            why: format!(
                                "the recorded {} is not the {} the round gives",
                                recorded.kind(),
                                event.kind()
                            ),
                        })
                    }
                    None => {
                        return Err(RoundError::Replay {
                            index: index + k,
                            why: format!("the log ends before the round's {}", event.kind()),
                        })
                    }
                }
            }
            index += produced.len();
        }
        Ok(round)
    }

    /// The game.
    pub fn game(&self) -> GameId {
        self.config.config().game
    }

    /// The configuration every place is played under.
    pub fn config(&self) -> &config::GameConfig {
        self.config.config()
    }

    /// Where the round stands.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The opening record, once open.
    pub fn opened(&self) -> Option<&RoundOpened> {
        self.opened.as_ref()
    }

    /// The dealer now: the opening's, or the last one to take over (empty before the opening).
    pub fn dealer(&self) -> &str {
        self.dealers.last().map_or("", String::as_str)
    }

    /// Every dealer who dealt the round, in order: the opening's, then each who took over.
    pub fn dealers(&self) -> &[String] {
        &self.dealers
    }

    /// Every place, by place number.
    pub fn places(&self) -> &[Place] {
        &self.places
    }

    /// The latest time recorded on the round: no later command may be dated before it.
    pub fn last_at(&self) -> Timestamp {
        self.last_at
    }

    /// How many events the round has caused.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The beacon round that mixed the deal seed, once it arrived.
    pub fn beacon(&self) -> Option<&BeaconValue> {
        self.beacon.as_ref().map(|b| &b.value)
    }

    /// The beacon round's arrival as recorded (its signature too), once it arrived.
    pub fn beacon_arrived(&self) -> Option<&BeaconArrived> {
        self.beacon.as_ref()
    }

    /// The late-beacon rule as applied, if it was.
    pub fn beacon_late(&self) -> Option<&BeaconMissed> {
        self.beacon_late.as_ref()
    }

    /// What the deal seed is mixed from besides the server's seed, as recorded so far: the
    /// players' seeds' digests by place (when the round takes them) and the beacon round (once it
    /// arrived).
    pub fn sources(&self) -> Sources {
        let players = self.opened.as_ref().filter(|o| o.player_seeds).map(|_| {
            self.places
                .iter()
                .enumerate()
                .filter_map(|(n, p)| p.seed_digest.map(|d| (n as u32, d)))
                .collect()
        });
        Sources {
            players,
            beacon: self.beacon.as_ref().map(|b| b.value),
        }
    }

    /// The seed, only once the round has ended and it has been revealed.
    pub fn revealed_seed(&self) -> Option<Seed> {
        self.seed_revealed.then_some(self.seed)
    }

    /// The card at round position `position` if the table has seen it.
    pub fn table_card(&self, position: u8) -> Option<Card> {
        if self.sight.revealed(position) {
            self.deck.get(usize::from(position)).copied()
        } else {
            None
        }
    }

    /// The cards seat `seat` was dealt (round positions and cards), once dealt. Not for another
    /// player's eyes before the showdown.
    pub fn seat_cards(&self, seat: u8) -> Vec<(u8, Card)> {
        let occupied = seat
            .checked_sub(1)
            .and_then(|s| self.seats.get(usize::from(s)))
            .is_some_and(Option::is_some);
        if self.dealt_at.is_none() || !occupied {
            return Vec::new();
        }
        self.layout
            .seat_positions(seat)
            .filter_map(|p| self.deck.get(p).map(|&c| (p as u8, c)))
            .collect()
    }

    /// When the decision window closes, once dealt.
    pub fn window_closes(&self) -> Option<Timestamp> {
        self.window().and_then(|w| w.closes())
    }

    /// Refuses an illegal command (the round unchanged), or applies it and returns the events it
    /// caused.
    pub fn step(&mut self, command: &RoundCommand) -> Result<Vec<RoundEvent>, RoundError> {
        let at = command.at();
        if at.0 > TIME_MAX_MS {
            let field = match command {
                RoundCommand::CloseWindow(_)
                | RoundCommand::VoidRound(_)
                | RoundCommand::Forfeit { .. } => "order.at",
                _ => "at",
            };
            within(field, at.0, 0, TIME_MAX_MS)?;
        }
        if !matches!(command, RoundCommand::Open(_)) {
            if self.phase == Phase::Pending {
                return Err(RoundError::NotOpened);
            }
            let at = command.at();
            if at < self.last_at {
                return Err(RoundError::BeforeLastEvent {
                    at: at.0,
                    last: self.last_at.0,
                });
            }
        }
        let mut out = Vec::new();
        match command {
            RoundCommand::Open(open) => self.open(open, &mut out)?,
            RoundCommand::Bet(bet) => self.bet(bet, &mut out)?,
            RoundCommand::CloseBetting { at, shaker } => {
                self.close_betting(*at, shaker.as_deref(), &mut out)?
            }
            RoundCommand::Decide(decide) => self.decide(decide, &mut out)?,
            RoundCommand::Beacon(arrival) => self.take_beacon(arrival, &mut out)?,
            RoundCommand::BeaconLate { at, why } => self.late_rule(*at, why, &mut out)?,
            RoundCommand::CloseWindow(order) => self.close_window(order, &mut out)?,
            RoundCommand::ChangeDealer(change) => self.change_dealer(change, &mut out)?,
            RoundCommand::VoidRound(order) => self.void_round(order, &mut out)?,
            RoundCommand::Forfeit {
                player,
                seat,
                order,
            } => self.forfeit(player, *seat, order, &mut out)?,
        }
        self.last_at = self.last_at.max(command.at());
        self.version += out.len() as u64;
        Ok(out)
    }

    fn open(&mut self, open: &OpenRound, out: &mut Vec<RoundEvent>) -> Result<(), RoundError> {
        if self.phase != Phase::Pending {
            return Err(RoundError::AlreadyOpened);
        }
        let config = self.config.config();
        if config.rules_version < RulesVersion(2) {
            return Err(RoundError::RulesVersion(config.rules_version));
        }
        required(&open.table, "table")?;
        required(&open.dealer, "dealer")?;
        if let Some(shoe) = &open.shoe {
            required(shoe, "shoe")?;
        }
        let game = self.game();
        let layout = Layout::new(game, open.shape)?;
        within(
            "max_players",
            u64::from(open.max_players),
            1,
            u64::from(PLAYERS_MAX),
        )?;
        let most_seats = match open.shape {
            Shape::Seats { seats } => game.facts().seats_per_player.min(seats),
            Shape::SharedHand | Shape::OneShake => 1,
        };
        within(
            "seats_per_player",
            u64::from(open.seats_per_player),
            1,
            u64::from(most_seats),
        )?;
        within(
            "decision_window_ms",
            open.decision_window_ms,
            WINDOW_MIN_MS,
            WINDOW_MAX_MS,
        )?;
        let seats = match open.shape {
            Shape::Seats { seats } => usize::from(seats),
            _ => 0,
        };
        let sources = &self.config.config().seed_sources;
        let beacon = match &sources.beacon {
            Some(rule) => Some(named_beacon(rule, open.at)?),
            None => None,
        };
        let player_seeds = sources.players;
        self.sight = Sight::new(layout.deck_len());
        self.layout = layout;
        self.seats = vec![None; seats];
        let opened = RoundOpened {
            game,
            config_id: self.config.id(),
            table: open.table.clone(),
            dealer: open.dealer.clone(),
            shoe: open.shoe.clone(),
            shape: open.shape,
            max_players: open.max_players,
            seats_per_player: open.seats_per_player,
            decision_window_ms: open.decision_window_ms,
            commitment: self.seed.commitment(),
            player_seeds,
            beacon,
            at: open.at,
        };
        self.opened = Some(opened.clone());
        self.dealers = vec![open.dealer.clone()];
        self.phase = Phase::Betting;
        out.push(RoundEvent::Opened(opened));
        Ok(())
    }

    fn bet(&mut self, bet: &PlaceBet, out: &mut Vec<RoundEvent>) -> Result<(), RoundError> {
        self.betting()?;
        let opened = self.opened.as_ref().ok_or(RoundError::NotOpened)?;
        if let Some(beacon) = &opened.beacon {
            if bet.at >= beacon.betting_closes {
                return Err(RoundError::BettingDeadline {
                    closes: beacon.betting_closes.0,
                    at: bet.at.0,
                });
            }
        }
        if bet.seed_digest.is_some() && !opened.player_seeds {
            return Err(RoundError::PlayerSeedNotTaken {
                sources: self.config.config().seed_sources.name(),
            });
        }
        required(&bet.player, "player")?;
        if self.dealers.contains(&bet.player) {
            return Err(RoundError::DealerBets);
        }
        if bet.wagers.len() > WAGERS_MAX {
            return Err(RoundError::TooManyWagers { max: WAGERS_MAX });
        }
        let held = self.players.get(&bet.player).map_or(0, Vec::len);
        match (opened.shape, bet.seat) {
            (Shape::Seats { seats }, Some(seat)) => {
                if seat == 0 || seat > seats {
                    return Err(RoundError::NoSuchSeat { seat, seats });
                }
                if self.seats[usize::from(seat - 1)].is_some() {
                    return Err(RoundError::SeatTaken { seat });
                }
                if held >= usize::from(opened.seats_per_player) {
                    return Err(RoundError::SeatsPerPlayer {
                        limit: opened.seats_per_player,
                    });
                }
            }
            (Shape::Seats { .. }, None) => return Err(RoundError::Seat { needed: true }),
            (_, Some(_)) => return Err(RoundError::Seat { needed: false }),
            (_, None) if held > 0 => {
                return Err(RoundError::AlreadyBet {
                    player: bet.player.clone(),
                })
            }
            (_, None) => {}
        }
        if held == 0 && self.players.len() >= opened.max_players as usize {
            return Err(RoundError::Full {
                max: opened.max_players,
            });
        }
        let map = self.layout.map(bet.seat);
        let hand = Hand::with_deck(
            self.seed,
            self.config.clone(),
            projected(&self.deck, &map),
            self.stream.clone(),
        );
        let hand = fold(
            &hand,
            hand.decide(&Command::Open(OpenHand {
                table: opened.table.clone(),
                player: bet.player.clone(),
                wagers: bet.wagers.clone(),
                at: bet.at,
                rebet_of: None,
            }))?,
        )?;
        let number = self.places.len() as u32;
        self.places.push(Place {
            player: bet.player.clone(),
            seat: bet.seat,
            map,
            hand: hand.clone(),
            waiting: Vec::new(),
            wagers: bet.wagers.clone(),
            bet_at: bet.at,
            seed_digest: bet.seed_digest,
        });
        self.settle_sight(number as usize, hand, false);
        self.players
            .entry(bet.player.clone())
            .or_default()
            .push(number);
        if let Some(seat) = bet.seat {
            self.seats[usize::from(seat - 1)] = Some(number);
        }
        out.push(RoundEvent::BetPlaced(BetPlaced {
            place: number,
            player: bet.player.clone(),
            seat: bet.seat,
            wagers: bet.wagers.clone(),
            seed_digest: bet.seed_digest,
            at: bet.at,
        }));
        Ok(())
    }

    fn close_betting(
        &mut self,
        at: Timestamp,
        shaker: Option<&str>,
        out: &mut Vec<RoundEvent>,
    ) -> Result<(), RoundError> {
        self.betting()?;
        let cup = self.shape() == Some(Shape::OneShake);
        if let Some(shaker) = shaker {
            if !cup || !self.players.contains_key(shaker) {
                return Err(RoundError::Shaker { cup });
            }
        }
        if self.places.is_empty() {
            return Err(RoundError::NoBets);
        }
        self.shaker = shaker.map(str::to_string);
        out.push(RoundEvent::BettingClosed {
            at,
            shaker: self.shaker.clone(),
        });
        if self.opened.as_ref().is_some_and(|o| o.beacon.is_some()) {
            self.phase = Phase::AwaitingBeacon;
            return Ok(());
        }
        self.deal(at, None, out)
    }

    /// The beacon round named has arrived (its signature verified by whoever fetched it): it
    /// must be that round of that chain, its randomness its signature's digest.
    fn take_beacon(
        &mut self,
        arrival: &BeaconArrival,
        out: &mut Vec<RoundEvent>,
    ) -> Result<(), RoundError> {
        let named = self.awaited_beacon()?;
        let wrong = |field: &'static str, why: String| RoundError::WrongBeacon {
            field: FieldPath::dotted(field),
            why,
        };
        let value = arrival.value;
        if value.chain != named.chain {
            return Err(wrong(
                "beacon.chain",
                format!(
                    "the round names chain {}, not {}",
                    hex::encode(named.chain),
                    hex::encode(value.chain)
                ),
            ));
        }
        if value.round != named.round {
            return Err(wrong(
                "beacon.round",
                format!(
                    "the round names beacon round {}, not {}",
                    named.round, value.round
                ),
            ));
        }
        if value.randomness
            != <[u8; 32]>::from(<sha2::Sha256 as sha2::Digest>::digest(&arrival.signature))
        {
            return Err(wrong(
                "beacon.randomness",
                "is not SHA-256 of the round's signature".into(),
            ));
        }
        if arrival.at > named.awaited_until {
            return Err(RoundError::BeaconTooLate {
                until: named.awaited_until.0,
                at: arrival.at.0,
            });
        }
        let arrived = BeaconArrived {
            value,
            signature: arrival.signature.clone(),
            at: arrival.at,
        };
        let mut caused = vec![RoundEvent::BeaconArrived(arrived.clone())];
        self.deal(arrival.at, Some(value), &mut caused)?;
        self.beacon = Some(arrived);
        out.extend(caused);
        Ok(())
    }

    /// The beacon round is late: the configuration's rule — deal without it, or void every
    /// place and refund.
    fn late_rule(
        &mut self,
        at: Timestamp,
        why: &str,
        out: &mut Vec<RoundEvent>,
    ) -> Result<(), RoundError> {
        let named = self.awaited_beacon()?;
        required(why, "why")?;
        if at < named.awaited_until {
            return Err(RoundError::BeaconNotLate {
                until: named.awaited_until.0,
                at: at.0,
            });
        }
        let missed = BeaconMissed {
            at,
            why: why.to_string(),
            rule: named.late,
        };
        out.push(RoundEvent::BeaconLate(missed.clone()));
        match named.late {
            LateBeacon::DealWithout => {
                self.deal(at, None, out)?;
                self.beacon_late = Some(missed);
                Ok(())
            }
            LateBeacon::Void => {
                let order = VoidOrder {
                    kind: VoidKind::Malfunction,
                    reason: format!(
                        "beacon round {} was not received, verified, by {}: {why}",
                        named.round, named.awaited_until.0
                    ),
                    recorded_by: BEACON_RULE_ACTOR.to_string(),
                    approved_by: None,
                    at,
                };
                let hands = self.each_live(|hand| hand.decide_void_unannounced(&order))?;
                let voided = self.replace_all(hands);
                out.extend(voided);
                self.beacon_late = Some(missed);
                self.phase = Phase::Voided;
                self.seed_revealed = true;
                out.push(RoundEvent::SeedRevealed { seed: self.seed });
                Ok(())
            }
        }
    }

    /// The beacon round the round awaits.
    fn awaited_beacon(&self) -> Result<NamedBeacon, RoundError> {
        match (self.phase, self.opened.as_ref().and_then(|o| o.beacon)) {
            (Phase::AwaitingBeacon, Some(named)) => Ok(named),
            (Phase::Ended | Phase::Voided, _) => Err(RoundError::Ended(self.phase)),
            _ => Err(RoundError::NoBeaconAwaited),
        }
    }

    /// Deals: the deal seed mixed from the server's seed and the sources (`docs/rng.md` §1a),
    /// each place's hand opened again over its cards when it is not the server's seed; then each
    /// seat's cards and what the table sees first.
    fn deal(
        &mut self,
        at: Timestamp,
        beacon: Option<BeaconValue>,
        out: &mut Vec<RoundEvent>,
    ) -> Result<(), RoundError> {
        let sources = Sources {
            beacon,
            ..self.sources()
        };
        let deal_seed = mix::deal_seed(&self.seed, &sources);
        if deal_seed != self.seed {
            let mut stream = deal_seed.stream();
            let deck = match self.game().material() {
                crate::game::Material::Cards(deck) => stream.shuffle(deck),
                crate::game::Material::Dice { .. } => Vec::new(),
            };
            let table = self
                .opened
                .as_ref()
                .map_or(String::new(), |o| o.table.clone());
            let mut hands = Vec::with_capacity(self.places.len());
            for place in &self.places {
                let hand = Hand::with_deck(
                    self.seed,
                    self.config.clone(),
                    projected(&deck, &place.map),
                    stream.clone(),
                );
                let events = hand.decide(&Command::Open(OpenHand {
                    table: table.clone(),
                    player: place.player.clone(),
                    wagers: place.wagers.clone(),
                    at: place.bet_at,
                    rebet_of: None,
                }))?;
                hands.push(fold(&hand, events)?);
            }
            self.deck = deck;
            self.stream = stream;
            for (number, hand) in hands.into_iter().enumerate() {
                self.settle_sight(number, hand, true);
            }
        }
        self.phase = Phase::Playing;
        self.dealt_at = Some(at);
        if let Some(Shape::Seats { seats }) = self.shape() {
            let dealt = (1..=seats)
                .filter(|&seat| self.seats[usize::from(seat - 1)].is_some())
                .map(|seat| {
                    let (positions, cards) = self.seat_cards(seat).into_iter().unzip();
                    SeatDealt {
                        seat,
                        positions,
                        cards,
                    }
                })
                .collect();
            out.push(RoundEvent::Dealt { seats: dealt });
        }
        self.advance(out);
        Ok(())
    }

    /// Refuses a bet or betting's close once betting has closed.
    fn betting(&self) -> Result<(), RoundError> {
        match self.phase {
            Phase::Betting => Ok(()),
            Phase::Playing | Phase::AwaitingBeacon => Err(RoundError::BettingClosed),
            Phase::Pending => Err(RoundError::NotOpened),
            phase => Err(RoundError::Ended(phase)),
        }
    }

    fn decide(&mut self, decide: &Decide, out: &mut Vec<RoundEvent>) -> Result<(), RoundError> {
        self.playing()?;
        if let Some(closes) = self.window_closes() {
            if decide.at >= closes {
                return Err(RoundError::WindowClosed {
                    closes: closes.0,
                    at: decide.at.0,
                });
            }
        }
        let command = Command::Act {
            action: decide.action,
            at: decide.at,
        };
        if self.shape() == Some(Shape::OneShake) {
            let Action::Shake { by } = decide.action else {
                return Err(RoundError::Shake { shake: true });
            };
            // The bettor offered the cup decides: to shake, or to let the dealer shake; offered
            // to nobody, the dealer shakes.
            let allowed = match (self.shaker.as_deref(), by) {
                (Some(shaker), _) => shaker == decide.player,
                (None, Shaker::Dealer) => self.dealer() == decide.player,
                (None, Shaker::Player) => false,
            };
            if decide.seat.is_some() {
                return Err(RoundError::Seat { needed: false });
            }
            if !allowed {
                return Err(RoundError::NotTheShaker);
            }
            let hands = self.each_live(|hand| hand.decide(&command))?;
            let shakes = shakes_of(&hands, &decide.player)?;
            self.replace_all(hands);
            out.extend(shakes.into_iter().map(RoundEvent::Shaken));
            self.advance(out);
            return Ok(());
        }
        if matches!(decide.action, Action::Shake { .. }) {
            return Err(RoundError::Shake { shake: false });
        }
        let number = self.place_of(&decide.player, decide.seat)?;
        let place = &self.places[number];
        if !place.in_play() {
            return Err(RoundError::PlaceEnded);
        }
        if !place.waiting.is_empty() {
            return Err(RoundError::Waiting {
                positions: place.waiting.clone(),
            });
        }
        let events = place.hand.decide(&command)?;
        let stakes = events
            .iter()
            .find_map(|e| match e {
                Event::Acted { stakes, .. } => Some(stakes.clone()),
                _ => None,
            })
            .unwrap_or_default();
        let hand = fold(&place.hand, events)?;
        self.settle_sight(number, hand, true);
        out.push(RoundEvent::Decided {
            place: number as u32,
            action: decide.action,
            at: decide.at,
            stakes,
        });
        self.advance(out);
        Ok(())
    }

    fn close_window(
        &mut self,
        order: &VoidOrder,
        out: &mut Vec<RoundEvent>,
    ) -> Result<(), RoundError> {
        self.playing()?;
        if order.kind != VoidKind::Incomplete {
            return Err(RoundError::VoidKind {
                kind: order.kind,
                what: "the decision window is closed by the incomplete-game rule (incomplete)",
            });
        }
        let window = self.window().ok_or(RoundError::BettingOpen)?;
        let closes = window
            .closes()
            .ok_or(RoundError::Hand(RuleError::Overflow))?;
        if order.at < closes {
            return Err(RoundError::WindowOpen {
                closes: closes.0,
                at: order.at.0,
            });
        }
        let hands = self.each_live(|hand| hand.decide_window_closed(order, window))?;
        let shakes = shakes_of(&hands, self.dealer())?;
        let ended = hands.len() as u32;
        out.push(RoundEvent::WindowClosed(WindowClosed {
            order: order.clone(),
            allowed_because: format!(
                "the decision window of {} ms from the deal at {} closed at {}: {} undecided place(s) ended by the game's incomplete-game rule",
                window.ms,
                window.from.0,
                closes.0,
                ended
            ),
            ended,
        }));
        out.extend(shakes.into_iter().map(RoundEvent::Shaken));
        let voided = self.replace_all(hands);
        out.extend(voided);
        self.advance(out);
        Ok(())
    }

    fn change_dealer(
        &mut self,
        change: &ChangeDealer,
        out: &mut Vec<RoundEvent>,
    ) -> Result<(), RoundError> {
        if matches!(self.phase, Phase::Ended | Phase::Voided) {
            return Err(RoundError::Ended(self.phase));
        }
        required(&change.dealer, "dealer")?;
        required(&change.reason, "reason")?;
        // Each dealer once: a round listed under a dealer once, and nobody who dealt it bets on it.
        if self.dealers.contains(&change.dealer) {
            return Err(RoundError::DealtBefore {
                dealer: change.dealer.clone(),
            });
        }
        if self.players.contains_key(&change.dealer) {
            return Err(RoundError::DealerPlays {
                dealer: change.dealer.clone(),
            });
        }
        if self.dealers.len() >= DEALERS_MAX {
            return Err(RoundError::TooManyDealers { max: DEALERS_MAX });
        }
        out.push(RoundEvent::DealerChanged(DealerChanged {
            from: self.dealer().to_string(),
            to: change.dealer.clone(),
            reason: change.reason.clone(),
            at: change.at,
        }));
        self.dealers.push(change.dealer.clone());
        Ok(())
    }

    fn void_round(
        &mut self,
        order: &VoidOrder,
        out: &mut Vec<RoundEvent>,
    ) -> Result<(), RoundError> {
        let phase = self.phase;
        if phase == Phase::Voided {
            return Err(RoundError::Ended(phase));
        }
        if order.kind != VoidKind::Malfunction {
            return Err(RoundError::VoidKind {
                kind: order.kind,
                what: "a round is void by the malfunction rule (malfunction); a conduct forfeit is one place's",
            });
        }
        required(&order.reason, "order.reason")?;
        required(&order.recorded_by, "order.recorded_by")?;
        let second = order
            .approved_by
            .as_deref()
            .map(str::trim)
            .filter(|a| !a.is_empty());
        if second == Some(order.recorded_by.trim()) || (phase == Phase::Ended && second.is_none()) {
            return Err(RoundError::SecondPerson);
        }
        // Before the showdown no settlement has been announced: every stake is refunded and
        // nothing is taken back; after it, each settlement is reversed.
        let announced = phase == Phase::Ended;
        let command = Command::Void(order.clone());
        let hands = self.each(
            |place| matches!(place.hand.status(), Status::InProgress | Status::Settled),
            |hand| {
                if announced {
                    hand.decide(&command)
                } else {
                    hand.decide_void_unannounced(order)
                }
            },
        )?;
        let allowed_because = match phase {
            Phase::Betting => "malfunction voids all pays and plays: betting was open; every bet is refunded",
            Phase::AwaitingBeacon => "malfunction voids all pays and plays: nothing was dealt (the beacon round was awaited); every bet is refunded",
            Phase::Playing => "malfunction voids all pays and plays: every place's stakes are refunded",
            _ => "malfunction voids all pays and plays: every place's settlement is reversed and every stake refunded",
        };
        out.push(RoundEvent::RoundVoided(RoundVoided {
            order: order.clone(),
            allowed_because: allowed_because.to_string(),
        }));
        let voided = self.replace_all(hands);
        out.extend(voided);
        self.phase = Phase::Voided;
        if !self.seed_revealed {
            self.seed_revealed = true;
            out.push(RoundEvent::SeedRevealed { seed: self.seed });
        }
        Ok(())
    }

    fn forfeit(
        &mut self,
        player: &str,
        seat: Option<u8>,
        order: &VoidOrder,
        out: &mut Vec<RoundEvent>,
    ) -> Result<(), RoundError> {
        self.playing()?;
        if order.kind != VoidKind::ConductForfeit {
            return Err(RoundError::VoidKind {
                kind: order.kind,
                what: "one place is forfeited for conduct (conduct_forfeit); a malfunction voids the whole round",
            });
        }
        let number = self.place_of(player, seat)?;
        let place = &self.places[number];
        if !place.in_play() {
            return Err(RoundError::PlaceEnded);
        }
        let events = place.hand.decide(&Command::Void(order.clone()))?;
        let hand = fold(&place.hand, events)?;
        let void = hand.void().cloned();
        self.settle_sight(number, hand, true);
        if let Some(void) = void {
            out.push(RoundEvent::PlaceVoided {
                place: number as u32,
                void,
            });
        }
        self.advance(out);
        Ok(())
    }

    /// After a command in play: turns what every place in play has come to; when no place is in
    /// play any more, the showdown — every dealt card turned, the Pai Gow dealer's setting, each
    /// settled place's settlement, the seed.
    fn advance(&mut self, out: &mut Vec<RoundEvent>) {
        if self.phase != Phase::Playing {
            return;
        }
        if self.sight.live() > 0 {
            let ready = self.sight.ready(&self.layout);
            self.turn(ready, out);
            return;
        }
        let mut rest: Vec<u8> = self
            .layout
            .table_positions()
            .filter(|&p| !self.sight.revealed(p))
            .collect();
        for seat in self.occupied_seats() {
            rest.extend(self.layout.seat_positions(seat).map(|p| p as u8));
        }
        rest.sort_unstable();
        self.turn(rest, out);
        let settled: Vec<(u32, Settlement)> = self
            .places
            .iter()
            .enumerate()
            .filter_map(|(n, p)| p.hand.settlement().map(|s| (n as u32, s.clone())))
            .filter(|(n, _)| self.places[*n as usize].hand.void().is_none())
            .collect();
        if let Some(set) = self.dealer_setting().filter(|_| !settled.is_empty()) {
            out.push(set);
        }
        out.extend(
            settled
                .into_iter()
                .map(|(place, settlement)| RoundEvent::Settled { place, settlement }),
        );
        self.phase = Phase::Ended;
        self.showdown_done = true;
        self.seed_revealed = true;
        out.push(RoundEvent::SeedRevealed { seed: self.seed });
    }

    /// Fortune Pai Gow's dealer hand, set once by the house way (the setting every place's hand
    /// played against: the same seven cards, the same rule).
    fn dealer_setting(&self) -> Option<RoundEvent> {
        if self.game() != GameId::FortunePaiGow {
            return None;
        }
        let place = self.places.first()?;
        let seven: [Card; 7] = place.hand.seat_cards(Seat::Dealer).try_into().ok()?;
        let way = dealer_way(self.config.config(), &seven).ok()?;
        Some(RoundEvent::DealerSet {
            setting: way.setting,
            rule: way.rule,
        })
    }

    /// Turns `positions` for the table and records it.
    fn turn(&mut self, positions: Vec<u8>, out: &mut Vec<RoundEvent>) {
        if positions.is_empty() {
            return;
        }
        self.sight.turn(&positions);
        for place in &mut self.places {
            place.waiting.retain(|p| !positions.contains(p));
        }
        let cards = positions
            .iter()
            .filter_map(|&p| self.deck.get(usize::from(p)).copied())
            .collect();
        out.push(RoundEvent::Revealed { positions, cards });
    }

    /// Puts place `number`'s new hand in, keeping the table's count of who waits for what.
    fn settle_sight(&mut self, number: usize, hand: Hand, present: bool) {
        let place = &mut self.places[number];
        if present {
            self.sight.leave(place.in_play(), &place.waiting);
        }
        place.hand = hand;
        let map = place.map.clone();
        let (layout, sight) = (&self.layout, &self.sight);
        place.waiting = if place.in_play() {
            place
                .hand
                .shown_positions()
                .filter_map(|p| map.get(usize::from(p)).copied())
                .filter(|&p| layout.is_table(p) && !sight.revealed(p))
                .collect()
        } else {
            Vec::new()
        };
        self.sight.enter(place.in_play(), &place.waiting);
    }

    /// Puts every new hand in; returns the `PlaceVoided` events of the places they voided.
    fn replace_all(&mut self, hands: Vec<(usize, Hand, Vec<Event>)>) -> Vec<RoundEvent> {
        let mut voided = Vec::new();
        for (number, hand, events) in hands {
            if events.iter().any(|e| matches!(e, Event::Voided(_))) {
                if let Some(void) = hand.void() {
                    voided.push(RoundEvent::PlaceVoided {
                        place: number as u32,
                        void: void.clone(),
                    });
                }
            }
            self.settle_sight(number, hand, true);
        }
        voided
    }

    /// Every place in play's new hand under `decide`, or the first refusal (nothing changed).
    fn each_live(
        &self,
        decide: impl Fn(&Hand) -> Result<Vec<Event>, RuleError>,
    ) -> Result<Vec<(usize, Hand, Vec<Event>)>, RoundError> {
        self.each(Place::in_play, decide)
    }

    /// Every place `which` picks, its new hand under `decide` with the events it caused, or the
    /// first refusal (nothing changed).
    fn each(
        &self,
        which: impl Fn(&Place) -> bool,
        decide: impl Fn(&Hand) -> Result<Vec<Event>, RuleError>,
    ) -> Result<Vec<(usize, Hand, Vec<Event>)>, RoundError> {
        let mut hands = Vec::new();
        for (number, place) in self.places.iter().enumerate() {
            if which(place) {
                let events = decide(&place.hand)?;
                hands.push((number, fold(&place.hand, events.clone())?, events));
            }
        }
        Ok(hands)
    }

    /// The place `player` decides on: their seat's, or their play of the shared hand.
    fn place_of(&self, player: &str, seat: Option<u8>) -> Result<usize, RoundError> {
        let not_yours = || RoundError::NotYourPlace {
            player: player.to_string(),
        };
        let number = match (self.shape(), seat) {
            (Some(Shape::Seats { seats }), Some(seat)) => {
                if seat == 0 || seat > seats {
                    return Err(RoundError::NoSuchSeat { seat, seats });
                }
                self.seats[usize::from(seat - 1)].ok_or_else(not_yours)?
            }
            (Some(Shape::Seats { .. }), None) => return Err(RoundError::Seat { needed: true }),
            (_, Some(_)) => return Err(RoundError::Seat { needed: false }),
            (_, None) => *self
                .players
                .get(player)
                .and_then(|places| places.first())
                .ok_or_else(not_yours)?,
        } as usize;
        if self.places[number].player != player {
            return Err(not_yours());
        }
        Ok(number)
    }

    fn playing(&self) -> Result<(), RoundError> {
        match self.phase {
            Phase::Playing => Ok(()),
            Phase::Betting => Err(RoundError::BettingOpen),
            Phase::AwaitingBeacon => Err(RoundError::AwaitingBeacon),
            Phase::Pending => Err(RoundError::NotOpened),
            phase => Err(RoundError::Ended(phase)),
        }
    }

    fn shape(&self) -> Option<Shape> {
        self.opened.as_ref().map(|o| o.shape)
    }

    fn window(&self) -> Option<Window> {
        Some(Window {
            from: self.dealt_at?,
            ms: self.opened.as_ref()?.decision_window_ms,
        })
    }

    fn occupied_seats(&self) -> Vec<u8> {
        (1..=self.seats.len() as u8)
            .filter(|&s| self.seats[usize::from(s - 1)].is_some())
            .collect()
    }

    /// The command a recorded event begins, if it begins one.
    fn command_of(&self, event: &RoundEvent) -> Option<RoundCommand> {
        let place = |n: u32| self.places.get(n as usize);
        Some(match event {
            RoundEvent::Opened(o) => RoundCommand::Open(OpenRound {
                table: o.table.clone(),
                dealer: o.dealer.clone(),
                shoe: o.shoe.clone(),
                shape: o.shape,
                max_players: o.max_players,
                seats_per_player: o.seats_per_player,
                decision_window_ms: o.decision_window_ms,
                at: o.at,
            }),
            RoundEvent::BetPlaced(b) => RoundCommand::Bet(PlaceBet {
                player: b.player.clone(),
                seat: b.seat,
                wagers: b.wagers.clone(),
                seed_digest: b.seed_digest,
                at: b.at,
            }),
            RoundEvent::BettingClosed { at, shaker } => RoundCommand::CloseBetting {
                at: *at,
                shaker: shaker.clone(),
            },
            RoundEvent::Decided {
                place: n,
                action,
                at,
                ..
            } => {
                let place = place(*n)?;
                RoundCommand::Decide(Decide {
                    player: place.player.clone(),
                    seat: place.seat,
                    action: *action,
                    at: *at,
                })
            }
            RoundEvent::Shaken(shake) => RoundCommand::Decide(Decide {
                player: shake.who.clone(),
                seat: None,
                action: Action::Shake { by: shake.by },
                at: shake.at,
            }),
            RoundEvent::BeaconArrived(arrived) => RoundCommand::Beacon(BeaconArrival {
                value: arrived.value,
                signature: arrived.signature.clone(),
                at: arrived.at,
            }),
            RoundEvent::BeaconLate(missed) => RoundCommand::BeaconLate {
                at: missed.at,
                why: missed.why.clone(),
            },
            RoundEvent::WindowClosed(closed) => RoundCommand::CloseWindow(closed.order.clone()),
            RoundEvent::DealerChanged(changed) => RoundCommand::ChangeDealer(ChangeDealer {
                dealer: changed.to.clone(),
                reason: changed.reason.clone(),
                at: changed.at,
            }),
            RoundEvent::RoundVoided(voided) => RoundCommand::VoidRound(voided.order.clone()),
            RoundEvent::PlaceVoided { place: n, void }
                if void.order.kind == VoidKind::ConductForfeit =>
            {
                let place = place(*n)?;
                RoundCommand::Forfeit {
                    player: place.player.clone(),
                    seat: place.seat,
                    order: void.order.clone(),
                }
            }
            _ => return None,
        })
    }
}

/// A hand with `events` folded in.
fn fold(hand: &Hand, events: Vec<Event>) -> Result<Hand, RoundError> {
    let mut hand = hand.clone();
    for event in &events {
        hand = hand.evolve(event)?;
    }
    Ok(hand)
}

/// The shakes the places' new hands record (one stream of dice: every place's are the same, which
/// is checked), as the round's.
fn shakes_of(hands: &[(usize, Hand, Vec<Event>)], who: &str) -> Result<Vec<Shake>, RoundError> {
    let shakes = |events: &[Event]| -> Vec<Shake> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::DiceShaken {
                    shake,
                    by,
                    at,
                    rolled,
                    faces,
                    held,
                    last,
                } => Some(Shake {
                    who: who.to_string(),
                    shake: *shake,
                    by: *by,
                    at: *at,
                    rolled: rolled.clone(),
                    faces: *faces,
                    held: held.clone(),
                    last: *last,
                }),
                _ => None,
            })
            .collect()
    };
    let Some((_, _, first)) = hands.first() else {
        return Ok(Vec::new());
    };
    let first = shakes(first);
    if hands.iter().any(|(_, _, events)| shakes(events) != first) {
        return Err(RoundError::Hand(RuleError::Inconsistent(
            "the places' dice differ on one shake".into(),
        )));
    }
    Ok(first)
}

/// A player's seed as sent with a bet (field `player_seed`): refused outside 1 to
/// [`mix::PLAYER_SEED_MAX`] bytes, else its digest ([`mix::player_seed_digest`]), the only thing
/// of it the round records.
pub fn player_seed(bytes: &[u8]) -> Result<[u8; 32], RoundError> {
    within(
        "player_seed",
        bytes.len() as u64,
        1,
        mix::PLAYER_SEED_MAX as u64,
    )?;
    Ok(mix::player_seed_digest(bytes))
}

/// Who records the void of a round whose beacon was late under the rule `void`: the
/// configuration's rule, applied by the service.
pub const BEACON_RULE_ACTOR: &str = "pitboss:late-beacon-rule";

/// The beacon round a round opened at `at` names under `rule`: the first published at least one
/// period after betting closes (a guard against a server clock running behind the chain's).
fn named_beacon(rule: &config::BeaconRule, at: Timestamp) -> Result<NamedBeacon, RoundError> {
    let betting_closes = at.0.saturating_add(rule.betting_ms);
    let guard = u64::from(rule.period.max(1)) * 1000;
    let round = rule.first_round_after(betting_closes.saturating_add(guard - 1));
    let round_at = rule.time_of_ms(round);
    let awaited_until = round_at.and_then(|t| t.checked_add(rule.wait_ms));
    let (Some(round_at), Some(awaited_until)) = (round_at, awaited_until) else {
        return Err(RoundError::Outside {
            field: FieldPath::new("at"),
            value: at.0,
            min: 0,
            max: TIME_MAX_MS,
        });
    };
    Ok(NamedBeacon {
        chain: rule.chain(),
        round,
        round_at: Timestamp(round_at),
        betting_closes: Timestamp(betting_closes),
        awaited_until: Timestamp(awaited_until),
        late: rule.late,
    })
}

/// Refuses an empty required field.
fn required(value: &str, field: &'static str) -> Result<(), RoundError> {
    if value.trim().is_empty() {
        Err(RoundError::Missing(FieldPath::dotted(field)))
    } else {
        Ok(())
    }
}

/// Refuses a number outside its bounds.
fn within(field: &'static str, value: u64, min: u64, max: u64) -> Result<(), RoundError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(RoundError::Outside {
            field: FieldPath::dotted(field),
            value,
            min,
            max,
        })
    }
}
