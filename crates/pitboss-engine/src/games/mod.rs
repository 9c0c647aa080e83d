//! The four games as one pure state machine per hand: [`Hand::decide`] refuses an illegal
//! [`Command`] or returns the [`Event`]s it causes; [`Hand::evolve`] folds one event in.
//!
//! The live path and replay run the same two functions: live, a command is decided and its events
//! stored; replay folds the stored events and, at each recorded decision, decides again and checks
//! that the same events come out. `decide` builds its events by folding each into a scratch copy of
//! the hand as it goes, so what it returns is always exactly what `evolve` accepts.
//!
//! Everything random comes from the hand's seed through the `spec/RNG.md` stream held in the state;
//! times arrive in commands and are recorded in events. No I/O, no clock, no async.
//!
//! The game rules are in one module each, declared from the roster (`roster.rs`), each
//! implementing what `game` says a game provides; the void rules, common to all, in `void`; what the
//! player may see in `view`; why a command is refused in `error`.

mod error;
mod game;
mod play;
pub mod view;
mod void;

/// Declares each game's module of the roster (`games/<module>.rs`).
macro_rules! game_modules {
    ($($variant:ident $id:literal $module:ident $rules:ident;)*) => {
        $(mod $module;)*
    };
}

crate::roster::roster!(game_modules);

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::card::Card;
use super::config::{self, ConfigId, GameConfig, RulesVersion};
use super::game::{GameId, Material, Seat};
use super::house_way::{Rule, Setting};
use super::money::{Money, MoneyOverflow, SignedMinor};
use super::rng::{Commitment, Seed, WordStream};
use super::settlement::{BetId, Settlement, Wager};

pub use caribbean::{dealer_qualifies, player_higher_category, player_higher_rule};
pub use error::{ConfigMisfit, RefusalKind, RuleError};
pub use mississippi::mississippi_hand;
pub use nutz::{held_positions, nutz_hand, paying_row, round_over, NutzHand};
pub(crate) use pai_gow::dealer_way;
pub use pai_gow::{main_bet, SettingRefused};
pub use void::{Completion, Void, VoidKind, VoidLine, VoidOrder, VoidRefusal, Window};

use game::Dealt;
use play::Play;

/// A hand's rules for game `R`, or an internal error if its configuration holds another game's.
fn rules_of<R: super::config::GameRules>(hand: &Hand) -> Result<&R, RuleError> {
    Ok(hand.config().rules_of()?)
}

/// Milliseconds since the Unix epoch, UTC. Times come from commands, never from a clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Timestamp(pub u64);

/// One day in milliseconds.
pub const DAY_MS: u64 = 86_400_000;

/// Who shook the Nutz dice: the player, or the dealer for a player who does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shaker {
    Player,
    Dealer,
}

/// A player decision. Which are legal depends on the game and the point of the hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Mississippi Stud: bet this multiple of the ante on the current street.
    Bet { multiple: u32 },
    /// Mississippi Stud, 3rd or 4th street: bet the largest multiple on this and every remaining
    /// street.
    MaxBetAll,
    /// Mississippi Stud or Caribbean Stud: give up the hand.
    Fold,
    /// Caribbean Stud: raise (the raise is a fixed multiple of the ante).
    Raise,
    /// Fortune Pai Gow: put these two cards in the low hand, the other five in the high hand.
    SetHand { low: [Card; 2] },
    /// Fortune Pai Gow: set by the house way.
    AutoSet,
    /// Nutz: shake the cup.
    Shake { by: Shaker },
}

impl Action {
    /// A stable snake_case name.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Bet { .. } => "bet",
            Action::MaxBetAll => "max_bet_all",
            Action::Fold => "fold",
            Action::Raise => "raise",
            Action::SetHand { .. } => "set_hand",
            Action::AutoSet => "auto_set",
            Action::Shake { .. } => "shake",
        }
    }
}

/// Opening a hand: where, for whom, the wagers placed before the deal, and when.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenHand {
    /// The table's reference.
    pub table: String,
    /// The player's reference.
    pub player: String,
    /// Wagers placed before the deal.
    pub wagers: Vec<Wager>,
    /// When.
    pub at: Timestamp,
    /// The earlier hand whose wagers these repeat (*Miser de nouveau*), if any.
    pub rebet_of: Option<String>,
}

/// What can be asked of a hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Open the hand and deal.
    Open(OpenHand),
    /// A player decision.
    Act { action: Action, at: Timestamp },
    /// A void or forfeit, recorded by an operator or the system; for an incomplete hand, the
    /// incomplete-game rule (which completes a Nutz or Caribbean Stud hand under rules version 2).
    Void(VoidOrder),
}

impl Command {
    /// When the command is dated.
    pub fn at(&self) -> Timestamp {
        match self {
            Command::Open(open) => open.at,
            Command::Act { at, .. } => *at,
            Command::Void(order) => order.at,
        }
    }
}

/// The hand's opening record. The seed stays secret: only its commitment is here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opened {
    /// The game.
    pub game: GameId,
    /// The configuration the hand is played under.
    pub config_id: ConfigId,
    /// Table reference.
    pub table: String,
    /// Player reference.
    pub player: String,
    /// Wagers placed before the deal.
    pub wagers: Vec<Wager>,
    /// `SHA-256(seed)`.
    pub commitment: Commitment,
    /// When.
    pub at: Timestamp,
    /// Rebet of an earlier hand.
    pub rebet_of: Option<String>,
}

/// Something that happened to a hand. The log records these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The hand opened.
    Opened(Opened),
    /// Cards turned face up (or given to the player), with their deck positions.
    CardsShown {
        seat: Seat,
        positions: Vec<u8>,
        cards: Vec<Card>,
    },
    /// A player decision, with the stakes it placed.
    Acted {
        action: Action,
        at: Timestamp,
        stakes: Vec<Wager>,
    },
    /// A shake of the Nutz cup: which dice were rolled, the five faces after it, which dice are held
    /// after it, and whether the round is over.
    DiceShaken {
        shake: u8,
        by: Shaker,
        at: Timestamp,
        rolled: Vec<u8>,
        faces: [u8; 5],
        held: Vec<u8>,
        last: bool,
    },
    /// A Pai Gow hand set: the player's (by the player, or by the house way on auto-set) or the
    /// dealer's (always by the house way, with the rule that fired).
    HandSet {
        seat: Seat,
        setting: Setting,
        house_way_rule: Option<Rule>,
    },
    /// The hand settled.
    Settled(Settlement),
    /// The hand was voided or forfeited.
    Voided(Void),
    /// The incomplete-game rule completes the hand (rules version 2: Nutz by dealer shakes,
    /// Caribbean Stud by a fold); the events completing and settling it follow.
    Completed(Completion),
    /// The seed, now that the hand has ended.
    SeedRevealed { seed: Seed },
}

impl Event {
    /// A stable snake_case name of the event's kind.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Opened(_) => "opened",
            Event::CardsShown { .. } => "cards_shown",
            Event::Acted { .. } => "acted",
            Event::DiceShaken { .. } => "dice_shaken",
            Event::HandSet { .. } => "hand_set",
            Event::Settled(_) => "settled",
            Event::Voided(_) => "voided",
            Event::Completed(_) => "completed",
            Event::SeedRevealed { .. } => "seed_revealed",
        }
    }
}

/// Where a hand stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Not opened yet.
    Pending,
    /// Open, decisions awaited.
    InProgress,
    /// Settled.
    Settled,
    /// Voided (with refunds) or forfeited.
    Voided,
}

/// Where a hand's dice come from: its seed's word stream (live play and replay), or the faces
/// another system rolled, in the order rolled (a vendor transcript checked against our rules).
// The stream is the live case and stays inline: boxing it would cost every hand an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub(crate) enum DiceSource {
    Stream(WordStream),
    Given { faces: Arc<[u8]>, used: usize },
}

impl DiceSource {
    /// The next die.
    pub(crate) fn die(&mut self) -> Result<u8, RuleError> {
        match self {
            DiceSource::Stream(stream) => Ok(stream.die().value()),
            DiceSource::Given { faces, used } => {
                let face = faces
                    .get(*used)
                    .copied()
                    .ok_or(RuleError::DiceUsedUp { given: faces.len() })?;
                *used += 1;
                Ok(face)
            }
        }
    }
}

/// One hand: its secret seed, its configuration and everything that has happened to it.
#[derive(Clone, Debug)]
pub struct Hand {
    seed: Seed,
    config: Arc<GameConfig>,
    config_id: ConfigId,
    status: Status,
    opened: Option<Opened>,
    /// Every stake placed, in order; one per bet id.
    stakes: Vec<Wager>,
    /// The shuffled deck (empty for dice games).
    deck: Vec<Card>,
    /// The hand's dice: its word stream after the shuffle (or given faces).
    dice: DiceSource,
    /// Face-up cards: seat, deck position, card.
    shown: Vec<(Seat, u8, Card)>,
    play: Play,
    settlement: Option<Settlement>,
    void: Option<Void>,
    /// The incomplete-game rule's completion, once recorded: no player decision follows it.
    completion: Option<Completion>,
    /// The latest time recorded on the hand (its opening, decisions, shakes, voids).
    last_at: Timestamp,
    seed_revealed: bool,
    version: u64,
}

impl Hand {
    /// A hand not yet opened, with its seed and configuration. The seed comes from the service's
    /// CSPRNG (live) or from the hand's `SeedRevealed` event (replay).
    /// `config` is an `Arc<GameConfig>` (its id computed here) or a [`config::Identified`] that
    /// carries it.
    pub fn new(seed: Seed, config: impl Into<config::Identified>) -> Hand {
        let identified = config.into();
        let mut stream = seed.stream();
        let deck = match identified.config().game.material() {
            Material::Cards(deck) => stream.shuffle(deck),
            Material::Dice { .. } => Vec::new(),
        };
        Hand::with_deck(seed, identified, deck, stream)
    }

    /// A hand of `seed` over a deck already shuffled from it, its dice from `stream` (the seed's
    /// stream after the shuffle): a round's hand, whose deck is its seat's cards and the table's
    /// taken from the round's one shuffle (`round`).
    pub(crate) fn with_deck(
        seed: Seed,
        identified: config::Identified,
        deck: Vec<Card>,
        stream: WordStream,
    ) -> Hand {
        let (config, config_id) = (identified.config().clone(), identified.id());
        let play = Play::new(config.game);
        Hand {
            seed,
            config_id,
            config,
            status: Status::Pending,
            opened: None,
            stakes: Vec::new(),
            deck,
            dice: DiceSource::Stream(stream),
            shown: Vec::new(),
            play,
            settlement: None,
            void: None,
            completion: None,
            last_at: Timestamp(0),
            seed_revealed: false,
            version: 0,
        }
    }

    /// A hand dealt from material another system produced, for checking a vendor transcript
    /// against our rules: the deck in position order (card games; see `GameId::layout`), or the
    /// dice faces in the order rolled (Nutz). It has no seed of ours: its commitment is that of 32
    /// zero bytes, and it is never recorded.
    pub fn with_material(config: Arc<GameConfig>, deck: Vec<Card>, dice: Vec<u8>) -> Hand {
        let mut hand = Hand::new(Seed::from_bytes([0; 32]), config);
        hand.deck = deck;
        hand.dice = DiceSource::Given {
            faces: dice.into(),
            used: 0,
        };
        hand
    }

    /// How many given dice the hand has used (0 for a hand dealt from a seed).
    pub fn given_dice_used(&self) -> usize {
        match &self.dice {
            DiceSource::Given { used, .. } => *used,
            DiceSource::Stream(_) => 0,
        }
    }

    /// The configuration's id (computed once, when the hand was made).
    pub fn config_id(&self) -> ConfigId {
        self.config_id
    }

    /// The game.
    pub fn game(&self) -> GameId {
        self.config.game
    }

    /// The configuration.
    pub fn config(&self) -> &GameConfig {
        &self.config
    }

    /// Where the hand stands.
    pub fn status(&self) -> Status {
        self.status
    }

    /// How many events have been folded in.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The opening record, once open.
    pub fn opened(&self) -> Option<&Opened> {
        self.opened.as_ref()
    }

    /// Every stake placed so far.
    pub fn stakes(&self) -> &[Wager] {
        &self.stakes
    }

    /// The settlement, once settled.
    pub fn settlement(&self) -> Option<&Settlement> {
        self.settlement.as_ref()
    }

    /// The void, once voided.
    pub fn void(&self) -> Option<&Void> {
        self.void.as_ref()
    }

    /// The incomplete-game rule's completion, once recorded.
    pub fn completion(&self) -> Option<&Completion> {
        self.completion.as_ref()
    }

    /// The rules version the hand is played under (its configuration's).
    pub fn rules_version(&self) -> RulesVersion {
        self.config.rules_version
    }

    /// The latest time recorded on the hand: no later command may be dated before it (rules
    /// version 2).
    pub fn last_at(&self) -> Timestamp {
        self.last_at
    }

    /// The end of the hand's incomplete-game period: its opening plus the configured days. `None`
    /// before it opens (or if the sum does not fit, which a validated configuration excludes).
    pub fn incomplete_deadline(&self) -> Option<Timestamp> {
        let opened = self.opened.as_ref()?;
        let period = u64::from(self.config.incomplete_void_days).checked_mul(DAY_MS)?;
        opened.at.0.checked_add(period).map(Timestamp)
    }

    /// Whether a hand still in progress at `at` is incomplete by the rule: more than the period
    /// after it opened (rules version 1: from the period's last millisecond on).
    pub fn is_incomplete_at(&self, at: Timestamp) -> bool {
        self.status == Status::InProgress
            && self.incomplete_deadline().is_some_and(|deadline| {
                if self.rules_version() >= RulesVersion(2) {
                    at > deadline
                } else {
                    at >= deadline
                }
            })
    }

    /// Every stake placed so far, summed (an overflow is impossible under a validated
    /// configuration, whose limits bound every total).
    pub fn total_staked(&self) -> Result<Money, MoneyOverflow> {
        Money::sum(self.stakes.iter().map(|w| w.amount))
    }

    /// What the hand pays in all now: the settlement's total, or what a void pays.
    pub fn paid(&self) -> Money {
        match (&self.void, &self.settlement) {
            (Some(void), _) => void.paid_now,
            (None, Some(settlement)) => settlement.total_paid,
            (None, None) => Money::ZERO,
        }
    }

    /// The player's net result so far: what was paid (settlement, adjusted by any void) minus what
    /// was staked.
    pub fn net(&self) -> SignedMinor {
        let staked: u128 = self.stakes.iter().map(|w| u128::from(w.amount.0)).sum();
        i128::from(self.paid().0) - staked as i128
    }

    /// The seed, only once the hand has ended and it has been revealed.
    pub fn revealed_seed(&self) -> Option<Seed> {
        self.seed_revealed.then_some(self.seed)
    }

    /// Refuses an illegal command, or returns the events it causes. The hand itself is unchanged.
    pub fn decide(&self, command: &Command) -> Result<Vec<Event>, RuleError> {
        if self.rules_version() >= RulesVersion(2) && !matches!(command, Command::Open(_)) {
            let at = command.at();
            if at < self.last_at {
                return Err(RuleError::BeforeLastEvent {
                    at: at.0,
                    last: self.last_at.0,
                });
            }
            if matches!(command, Command::Act { .. }) && self.is_incomplete_at(at) {
                return Err(RuleError::Expired {
                    opened: self.opened.as_ref().map_or(0, |o| o.at.0),
                    deadline: self.incomplete_deadline().map_or(0, |d| d.0),
                    at: at.0,
                });
            }
        }
        let mut out = Emitter {
            hand: self.clone(),
            events: Vec::new(),
        };
        match command {
            Command::Open(open) => out.open(open)?,
            Command::Act { action, at } => out.act(*action, *at)?,
            Command::Void(order) => void::decide(&mut out, order)?,
        }
        Ok(out.events)
    }

    /// Folds one event in. An event that does not follow from the hand (a card that is not the
    /// dealt card, a decision at the wrong time) is refused, so replay of a tampered log stops there.
    pub fn evolve(mut self, event: &Event) -> Result<Hand, RuleError> {
        self.apply(event)?;
        Ok(self)
    }

    fn apply(&mut self, event: &Event) -> Result<(), RuleError> {
        let wrong = |what: &str| Err(RuleError::Inconsistent(what.to_string()));
        match event {
            Event::Opened(opened) => {
                if self.status != Status::Pending {
                    return wrong("opened twice");
                }
                if opened.game != self.game() || opened.config_id != self.config_id {
                    return wrong("opened under another game or configuration");
                }
                if opened.commitment != self.seed.commitment() {
                    return wrong("commitment is not the seed's");
                }
                self.stakes = opened.wagers.clone();
                self.opened = Some(opened.clone());
                self.status = Status::InProgress;
                self.last_at = opened.at;
            }
            Event::CardsShown {
                seat,
                positions,
                cards,
            } => {
                if positions.len() != cards.len() {
                    return wrong("positions and cards differ in number");
                }
                for (&p, &card) in positions.iter().zip(cards) {
                    if self.deck.get(usize::from(p)) != Some(&card) {
                        return wrong(&format!("{card} is not the card at deck position {p}"));
                    }
                    if self.shown.iter().any(|&(_, q, _)| q == p) {
                        return wrong(&format!("deck position {p} shown twice"));
                    }
                    self.shown.push((*seat, p, card));
                }
            }
            Event::Acted { stakes, at, .. } => {
                if self.status != Status::InProgress {
                    return wrong("a decision on a hand not in progress");
                }
                if self.completion.is_some() {
                    return wrong("a decision after the incomplete-game rule completed the hand");
                }
                self.stakes.extend(stakes.iter().copied());
                self.last_at = self.last_at.max(*at);
            }
            Event::DiceShaken { by, at, .. } => {
                if self.completion.is_some() && *by != Shaker::Dealer {
                    return wrong(
                        "a player's shake after the incomplete-game rule completed the hand",
                    );
                }
                self.last_at = self.last_at.max(*at);
            }
            Event::Completed(completion) => {
                let completes = matches!(
                    self.play.game().incomplete_rule(),
                    game::IncompleteRule::Complete { .. }
                ) && self.rules_version() >= RulesVersion(2);
                if !completes {
                    return wrong("the incomplete-game rule completes only Nutz and Caribbean Stud hands (rules version 2)");
                }
                if self.status != Status::InProgress || self.completion.is_some() {
                    return wrong("the incomplete-game rule completing a hand not in progress");
                }
                self.last_at = self.last_at.max(completion.order.at);
                self.completion = Some(completion.clone());
            }
            Event::Settled(settlement) => {
                if self.status != Status::InProgress {
                    return wrong("settled a hand not in progress");
                }
                self.settlement = Some(settlement.clone());
                self.status = Status::Settled;
            }
            Event::Voided(v) => {
                if !matches!(self.status, Status::InProgress | Status::Settled) {
                    return wrong("voided a hand neither in progress nor settled");
                }
                self.last_at = self.last_at.max(v.order.at);
                self.void = Some(v.clone());
                self.status = Status::Voided;
            }
            Event::SeedRevealed { seed } => {
                if !matches!(self.status, Status::Settled | Status::Voided) {
                    return wrong("seed revealed before the hand ended");
                }
                if *seed != self.seed {
                    return wrong("revealed seed is not the hand's seed");
                }
                self.seed_revealed = true;
            }
            Event::HandSet { .. } => {}
        }
        self.play.game_mut().apply(
            event,
            Dealt {
                deck: &self.deck,
                config: &self.config,
                dice: &mut self.dice,
            },
        )?;
        self.version += 1;
        Ok(())
    }

    /// The stake on `bet`, if placed.
    fn stake(&self, bet: BetId) -> Option<Money> {
        self.stakes.iter().find(|w| w.bet == bet).map(|w| w.amount)
    }

    /// The cards dealt to a seat (face up or not), from the deck by the game's layout. Not for a
    /// player's eyes while the hand is in progress: use `view::player_view`.
    pub fn seat_cards(&self, seat: Seat) -> &[Card] {
        self.game()
            .layout()
            .iter()
            .find(|l| l.seat == seat)
            .map_or(&[][..], |l| &self.deck[l.positions.clone()])
    }

    /// The deck positions shown so far, in the order shown.
    pub(crate) fn shown_positions(&self) -> impl Iterator<Item = u8> + '_ {
        self.shown.iter().map(|&(_, position, _)| position)
    }

    /// Refuses the incomplete-game rule for a hand still in progress when a round's decision
    /// `window` closes, or returns its events: the game's rule (rules version 2) applied as it
    /// would be after the incomplete-game period. The hand itself is unchanged.
    pub(crate) fn decide_window_closed(
        &self,
        order: &VoidOrder,
        window: Window,
    ) -> Result<Vec<Event>, RuleError> {
        let mut out = Emitter {
            hand: self.clone(),
            events: Vec::new(),
        };
        void::decide_closed(&mut out, order, window)?;
        Ok(out.events)
    }

    /// Refuses a void order, or returns its events, as if a settlement the hand holds had never
    /// been made: a round's place settles in the hand when its player's last decision comes, but
    /// the round announces it only at the showdown, so a round void before then refunds the stakes
    /// and takes back nothing. The hand itself is unchanged.
    pub(crate) fn decide_void_unannounced(
        &self,
        order: &VoidOrder,
    ) -> Result<Vec<Event>, RuleError> {
        let mut scratch = self.clone();
        if scratch.status == Status::Settled {
            scratch.status = Status::InProgress;
            scratch.settlement = None;
        }
        scratch.decide(&Command::Void(order.clone()))
    }

    /// Positions of a seat's cards not yet shown.
    fn hidden_positions(&self, seat: Seat) -> Vec<u8> {
        self.game()
            .layout()
            .iter()
            .filter(|l| l.seat == seat)
            .flat_map(|l| l.positions.clone())
            .map(|p| p as u8)
            .filter(|p| !self.shown.iter().any(|&(_, q, _)| q == *p))
            .collect()
    }

    /// The legal decisions now (empty when the hand is not in progress).
    pub fn legal_actions(&self) -> Vec<Action> {
        if self.status != Status::InProgress {
            return Vec::new();
        }
        self.play.game().legal(self)
    }
}

/// Builds a command's events by folding each into a scratch copy of the hand.
struct Emitter {
    hand: Hand,
    events: Vec<Event>,
}

impl Emitter {
    fn emit(&mut self, event: Event) -> Result<(), RuleError> {
        self.hand.apply(&event)?;
        self.events.push(event);
        Ok(())
    }

    fn open(&mut self, open: &OpenHand) -> Result<(), RuleError> {
        if self.hand.status != Status::Pending {
            return Err(RuleError::AlreadyOpened);
        }
        let game = self.hand.game();
        let mut seen: Vec<BetId> = Vec::new();
        for wager in &open.wagers {
            if seen.contains(&wager.bet) {
                return Err(RuleError::DuplicateWager { bet: wager.bet });
            }
            seen.push(wager.bet);
        }
        self.hand
            .play
            .game()
            .check_wagers(&self.hand, &open.wagers)?;
        self.emit(Event::Opened(Opened {
            game,
            config_id: self.hand.config_id,
            table: open.table.clone(),
            player: open.player.clone(),
            wagers: open.wagers.clone(),
            commitment: self.hand.seed.commitment(),
            at: open.at,
            rebet_of: open.rebet_of.clone(),
        }))?;
        self.hand.play.clone().game().deal(self)
    }

    fn act(&mut self, action: Action, at: Timestamp) -> Result<(), RuleError> {
        match self.hand.status {
            Status::InProgress => {}
            Status::Pending => return Err(RuleError::NotOpened),
            ended => return Err(RuleError::Ended(ended)),
        }
        // The game decides on its state as the command found it; the emitter's copy moves on with
        // each event emitted.
        self.hand.play.clone().game().act(self, action, at)
    }

    /// After the `Completed` event, the game's completion of the hand (rules version 2).
    fn complete(&mut self, at: Timestamp) -> Result<(), RuleError> {
        self.hand.play.clone().game().complete(self, at)
    }

    /// Shows every hidden card of a seat.
    fn show(&mut self, seat: Seat) -> Result<(), RuleError> {
        let positions = self.hand.hidden_positions(seat);
        if positions.is_empty() {
            return Ok(());
        }
        let cards = positions
            .iter()
            .map(|&p| self.hand.deck[usize::from(p)])
            .collect();
        self.emit(Event::CardsShown {
            seat,
            positions,
            cards,
        })
    }

    /// Shows the card at one deck position.
    fn show_one(&mut self, seat: Seat, position: u8) -> Result<(), RuleError> {
        let card = self.hand.deck[usize::from(position)];
        self.emit(Event::CardsShown {
            seat,
            positions: vec![position],
            cards: vec![card],
        })
    }

    /// Settles the hand by its game's rules and reveals the seed.
    fn finish(&mut self) -> Result<(), RuleError> {
        let settlement = self.hand.play.game().settle(&self.hand)?;
        self.emit(Event::Settled(settlement))?;
        self.emit(Event::SeedRevealed {
            seed: self.hand.seed,
        })
    }
}

/// Checks one wager against a limit.
fn within(
    hand: &Hand,
    bet: BetId,
    amount: Money,
    limit: super::config::Limit,
) -> Result<(), RuleError> {
    if limit.admits(amount) {
        Ok(())
    } else {
        Err(RuleError::OutsideLimit {
            bet,
            amount,
            min: limit.min,
            max: limit.max,
            minor_digits: hand.config.currency.minor_digits,
        })
    }
}

/// Refuses wagers on bets outside `allowed`.
fn only_bets(game: GameId, wagers: &[Wager], allowed: &[BetId]) -> Result<(), RuleError> {
    match wagers.iter().find(|w| !allowed.contains(&w.bet)) {
        Some(w) => Err(RuleError::NotThisGame { game, bet: w.bet }),
        None => Ok(()),
    }
}

/// The wager on `bet`, if placed.
fn wager_on(wagers: &[Wager], bet: BetId) -> Option<Money> {
    wagers.iter().find(|w| w.bet == bet).map(|w| w.amount)
}

/// "category: cards", how a line says what it was judged on.
fn judged(category: impl std::fmt::Display, cards: &[Card]) -> String {
    format!("{category}: {}", super::card::format_cards(cards))
}
