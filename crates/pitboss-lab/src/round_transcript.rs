//! Vendor transcripts of whole rounds: one shuffle (or one shake) and every place another system
//! settled on it — the seats of a table, the players of a live studio's shared hand, the bettors of
//! one Nutz shake — each place's wagers, decisions and claimed payouts, checked against the
//! engine's rules. The result is every place's settlement and its differences from the claim, or a
//! typed [`RoundRefusal`] naming the field at fault (`places[3].decisions[0]`, `cards.seat3`).
//!
//! Owns: the round format (`docs/transcripts.md`, *Whole rounds*), its bounds, the checks that
//! belong to a round and not to a hand (one deal: no card dealt to two seats; one place per seat
//! and per player; the seats of the game's table; one cup), and the route from a text to a hand's
//! or a round's check ([`parse_any`]). A round dealt from a seed is played by the engine's own
//! [`Round`] (betting, the deal, every place's decisions in the order the table lets them come,
//! the showdown); a round of given cards or dice is each place's one-player [`Hand`] over its
//! seat's cards and the table's, played by the hand transcript's own code (`transcript.rs`) —
//! exactly the projection the engine's round deals each place.
//!
//! Must not: decide a rule (the engine does), keep or print anything (pure: no I/O; the caller
//! reads the text and shows the result), or hold money in anything but integer minor units.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Value};

use pitboss_engine::card::{Card, CardParseError};
use pitboss_engine::config::{ConfigId, GameConfig};
use pitboss_engine::game::{GameId, Material, Seat};
use pitboss_engine::games::{Command, Event, Hand, RuleError, Status, Timestamp};
use pitboss_engine::rng::Seed;
use pitboss_engine::round::{
    Decide, OpenRound, PlaceBet, Round, RoundCommand, RoundError, RoundEvent, Shake, Shape,
    PLAYERS_MAX, WAGERS_MAX, WINDOW_MAX_MS,
};
use pitboss_engine::settlement::{BetId, Settlement};

use crate::transcript::{
    self, cards_json, configured, decision, differences, differences_json, fill_deck, play,
    read_card, settlement_json, source, unfinished, wagers_of, BadCard, Checked, Claimed,
    Difference, Played, Refusal, Source, Transcript,
};

/// The most places one round transcript holds: the engine's most players of one round.
pub const PLACES_MAX: usize = PLAYERS_MAX as usize;

/// The most decisions one place gives (a hand takes at most three; a Nutz cup at most ten shakes).
pub const DECISIONS_MAX: usize = 16;

/// The most shakes given as dice.
pub const SHAKES_MAX: usize = 16;

/// The most claimed payouts of one place: one per bet of any game.
pub const PAYOUTS_MAX: usize = BetId::ALL.len();

/// The longest player reference, in bytes.
pub const PLAYER_MAX_BYTES: usize = 200;

/// A round as written by the other system.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundTranscript {
    /// The other system's reference for the round (echoed in the report).
    #[serde(default)]
    pub id: Option<String>,
    /// The game.
    pub game: GameId,
    /// The configuration as JSON (`docs/games.md`); the game's default when absent. Rounds are
    /// played under rules version 2 or later.
    #[serde(default)]
    pub config: Option<Value>,
    /// How the round deals.
    pub shape: RoundShape,
    /// A round of seats: how many seats the table has (the game's full table when absent). The
    /// dealer's or community cards follow the last seat's block in a deal from a seed.
    #[serde(default)]
    pub seats: Option<u8>,
    /// A 64-hex-digit seed: the round dealt by our derivation (`docs/rng.md` §6a).
    #[serde(default)]
    pub seed: Option<String>,
    /// The cards as the other system dealt them: `seat1` … `seatN` (a round of seats) or `player`
    /// (a shared hand), and `dealer` or `community` as the game has them, each in deal order.
    #[serde(default)]
    pub cards: Option<BTreeMap<String, Vec<String>>>,
    /// Nutz: the dice each shake of the cup rolled, as in a hand's transcript.
    #[serde(default)]
    pub dice: Option<Vec<Vec<u8>>>,
    /// Every place of the round, in the order bet.
    pub places: Vec<PlaceTranscript>,
}

/// How a round deals (`docs/rounds.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoundShape {
    /// A card game's table: each seat its own cards, the dealer's or community cards shared.
    Seats,
    /// A card game's live studio: one player hand, played by every place.
    SharedHand,
    /// Nutz: one shake of the cup, every bettor's boxes settled on it.
    OneShake,
}

impl RoundShape {
    /// The stable snake_case name.
    pub fn name(self) -> &'static str {
        match self {
            RoundShape::Seats => "seats",
            RoundShape::SharedHand => "shared_hand",
            RoundShape::OneShake => "one_shake",
        }
    }
}

/// One place of a round transcript: a seat, or one player's play of the shared hand or the shake.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaceTranscript {
    /// The seat (a round of seats only), from 1.
    #[serde(default)]
    pub seat: Option<u8>,
    /// The player's reference (one place per player).
    pub player: String,
    /// Stakes by bet id, in minor units.
    pub wagers: BTreeMap<String, u64>,
    /// The place's decisions in order, in the hand transcript's grammar. In a round of one shake
    /// only the bettor offered the cup gives decisions: the shakes every bettor plays.
    #[serde(default)]
    pub decisions: Vec<String>,
    /// What the other system paid this place.
    #[serde(default)]
    pub claimed: Option<Claimed>,
}

/// Why a round transcript cannot be checked. Places and decisions are numbered from 0, as the
/// transcript's JSON paths are.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RoundRefusal {
    /// The text is not a round transcript (JSON, or its fields), in the parser's words.
    #[error("not a round transcript: {0}")]
    Format(String),
    /// A list longer than its bound.
    #[error("{field}: {given} given, at most {max}")]
    TooMany {
        /// The list, as the transcript names it (`places`, `places[3].decisions`, `dice`).
        field: String,
        given: usize,
        max: usize,
    },
    /// A round without a place.
    #[error("places: a round has at least one place")]
    NoPlaces,
    /// A place without a player.
    #[error("places[{index}].player: required")]
    NoPlayer { index: usize },
    /// A player reference longer than its bound.
    #[error("places[{index}].player: {bytes} bytes, at most {max}")]
    PlayerTooLong {
        index: usize,
        bytes: usize,
        max: usize,
    },
    /// What the round as a whole gives is refused as a hand's would be: its configuration, its
    /// seed, neither or both of seed and material, a die that is not a face, a dice count.
    #[error(transparent)]
    Transcript(Refusal),
    /// The engine refuses to open the round: a rules version older than rounds, a shape the game
    /// does not deal, a number of seats its table does not have.
    #[error("{}", opening_message(.0))]
    Opening(RoundError),
    /// `seats` in a round that deals no seats.
    #[error("seats: a {shape} round has no seats")]
    SeatsNotThisShape { shape: &'static str },
    /// A place of a round of seats without its seat.
    #[error("places[{index}].seat: required in a round of seats")]
    SeatMissing { index: usize },
    /// A seat given in a round that deals no seats.
    #[error("places[{index}].seat: a {shape} round has no seats")]
    SeatNotThisShape { index: usize, shape: &'static str },
    /// A seat beyond the round's table.
    #[error("places[{index}].seat: {seat} is not a seat of this round (1..={seats})")]
    NoSuchSeat { index: usize, seat: u8, seats: u8 },
    /// Two places on one seat.
    #[error("places[{index}].seat: seat {seat} is also places[{first}]'s")]
    SeatTwice {
        index: usize,
        seat: u8,
        first: usize,
    },
    /// Two places of one player.
    #[error("places[{index}].player: {player} also holds places[{first}] (one place per player)")]
    PlayerTwice {
        index: usize,
        player: String,
        first: usize,
    },
    /// A second place giving the cup's shakes.
    #[error("places[{index}].decisions: the cup's shakes are given once, by the bettor offered the cup (places[{first}] gives them)")]
    SecondCup { index: usize, first: usize },
    /// Cards for a seat the round does not have.
    #[error("cards.{key}: no such seat in this {game} round (its seats: {})", known.join(", "))]
    NoSuchCardSeat {
        key: String,
        game: GameId,
        known: Vec<String>,
    },
    /// Cards for a seat no place is on (an empty seat is not dealt).
    #[error("cards.{key}: no place is on seat {seat}")]
    EmptySeat { key: String, seat: u8 },
    /// A seat given more or fewer cards than the game deals it.
    #[error("cards.{seat}: {given} cards given, {game} deals {deals} there")]
    CardCount {
        seat: String,
        given: usize,
        game: GameId,
        deals: usize,
    },
    /// A card that does not read.
    #[error("cards.{seat}: {problem}")]
    Card {
        seat: String,
        problem: CardParseError,
    },
    /// The joker in a game played without it.
    #[error("cards.{seat}: {game} is played without the joker")]
    Joker { seat: String, game: GameId },
    /// One card given twice to one seat.
    #[error("cards.{seat}: {card} is dealt twice")]
    DealtTwice { seat: String, card: Card },
    /// One card given to two seats (or to a seat and the dealer or community) of one shuffle.
    #[error("cards.{seat}: {card} is also dealt to cards.{also}")]
    SharedCard {
        seat: String,
        card: Card,
        /// The seat named earlier in deal order.
        also: String,
    },
    /// A place refused as a hand's transcript would be: its wagers, its opening, a decision, its
    /// decisions ending before its hand does.
    #[error("{}", place_message(*.index, .source))]
    Place { index: usize, source: Refusal },
    /// The engine's round refuses a place's command for a reason of the round's (`index`), or a
    /// command of the round as a whole (`None`).
    #[error("{}", round_message(*.index, .error))]
    Round {
        index: Option<usize>,
        error: RoundError,
    },
}

impl RoundRefusal {
    /// The place the refusal is about, if one.
    pub fn place(&self) -> Option<usize> {
        use RoundRefusal as R;
        match self {
            R::NoPlayer { index }
            | R::PlayerTooLong { index, .. }
            | R::SeatMissing { index }
            | R::SeatNotThisShape { index, .. }
            | R::NoSuchSeat { index, .. }
            | R::SeatTwice { index, .. }
            | R::PlayerTwice { index, .. }
            | R::SecondCup { index, .. }
            | R::Place { index, .. } => Some(*index),
            R::Round { index, .. } => *index,
            _ => None,
        }
    }
}

fn opening_message(error: &RoundError) -> String {
    match error {
        RoundError::Seats(refused) => format!("seats: {refused}"),
        RoundError::RulesVersion(_) => format!("config: {error}"),
        other => other.to_string(),
    }
}

fn place_message(index: usize, source: &Refusal) -> String {
    match source {
        Refusal::Decision {
            index: k,
            text,
            why,
        } => format!(
            "places[{index}].decisions[{}] ({text:?}): {why}",
            k.saturating_sub(1)
        ),
        Refusal::Unfinished { .. } | Refusal::NoSettlement => {
            format!("places[{index}].decisions: {source}")
        }
        Refusal::Wagers(unknown) => format!("places[{index}].wagers: {unknown}"),
        Refusal::Open(rule) if rule.field().is_some() => format!("places[{index}].{rule}"),
        other => format!("places[{index}]: {other}"),
    }
}

fn round_message(index: Option<usize>, error: &RoundError) -> String {
    match (index, error.field()) {
        (Some(i), Some(_)) => format!("places[{i}].{error}"),
        (Some(i), None) => format!("places[{i}]: {error}"),
        (None, _) => format!("the round: {error}"),
    }
}

/// One place as the engine settled it.
#[derive(Clone, Debug)]
pub struct CheckedPlace {
    /// The seat, in a round of seats.
    pub seat: Option<u8>,
    /// The player's reference.
    pub player: String,
    /// Our settlement of the place.
    pub settlement: Settlement,
    /// Differences from the place's claimed payouts (empty: none, or nothing claimed).
    pub differences: Vec<Difference>,
    /// Whether payouts were claimed for the place at all.
    pub claimed: bool,
}

/// What the round dealt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RoundDeal {
    /// Card games: the cards by seat (`seat1` …, or `player` for a shared hand; `dealer`,
    /// `community`), in deal order, seats first.
    Cards(Vec<(String, Vec<Card>)>),
    /// Nutz: each shake of the cup.
    Dice(Vec<Shake>),
}

/// The result of checking one round transcript.
#[derive(Clone, Debug)]
pub struct CheckedRound {
    /// The transcript's id.
    pub id: Option<String>,
    /// The game.
    pub game: GameId,
    /// The configuration's id.
    pub config_id: ConfigId,
    /// How the round dealt.
    pub shape: RoundShape,
    /// The table's seats, in a round of seats.
    pub seats: Option<u8>,
    /// What was dealt.
    pub deal: RoundDeal,
    /// Every place, in the transcript's order.
    pub places: Vec<CheckedPlace>,
}

impl CheckedRound {
    /// Whether every place's claim (if any) agrees with our settlement.
    pub fn agrees(&self) -> bool {
        self.places.iter().all(|p| p.differences.is_empty())
    }

    /// The places whose claim differs, by index.
    pub fn differing(&self) -> Vec<usize> {
        (0..self.places.len())
            .filter(|&i| !self.places[i].differences.is_empty())
            .collect()
    }

    /// The deal, every place's settlement line by line with its differences, the round's totals,
    /// and the places that differ, as JSON. Money in integer minor units.
    pub fn json(&self) -> Value {
        let deal = match &self.deal {
            RoundDeal::Cards(seats) => {
                let seats: serde_json::Map<String, Value> = seats
                    .iter()
                    .map(|(seat, cards)| (seat.clone(), cards_json(cards)))
                    .collect();
                json!({ "cards": seats })
            }
            RoundDeal::Dice(shakes) => json!({
                "shakes": shakes.iter().map(|s| json!({
                    "shake": s.shake, "rolled_positions": s.rolled, "faces": s.faces,
                    "held_after": s.held,
                })).collect::<Vec<_>>(),
            }),
        };
        // At most 25 000 places of at most u64::MAX each: a u128 cannot overflow.
        let total = |of: fn(&Settlement) -> u64| -> Value {
            let sum: u128 = self
                .places
                .iter()
                .map(|p| u128::from(of(&p.settlement)))
                .sum();
            u64::try_from(sum).map_or_else(|_| json!(sum.to_string()), |n| json!(n))
        };
        json!({
            "id": self.id,
            "game": self.game.to_string(),
            "config_id": self.config_id.to_string(),
            "shape": self.shape.name(),
            "seats": self.seats,
            "deal": deal,
            "places": self.places.iter().enumerate().map(|(index, p)| json!({
                "index": index,
                "seat": p.seat,
                "player": p.player,
                "settlement": settlement_json(&p.settlement),
                "claimed": p.claimed,
                "differences": differences_json(&p.differences),
                "agrees": p.differences.is_empty(),
            })).collect::<Vec<_>>(),
            "total_staked": total(|s| s.total_staked.0),
            "total_paid": total(|s| s.total_paid.0),
            "differing_places": self.differing(),
            "agrees": self.agrees(),
        })
    }
}

/// Parses one round transcript.
pub fn parse(text: &str) -> Result<RoundTranscript, RoundRefusal> {
    serde_json::from_str(text).map_err(|e| RoundRefusal::Format(e.to_string()))
}

/// A transcript of either kind.
#[derive(Clone, Debug)]
pub enum AnyTranscript {
    /// One hand (`transcript`).
    Hand(Transcript),
    /// A whole round: the text has a `places` key.
    Round(RoundTranscript),
}

/// The check of a transcript of either kind.
#[derive(Clone, Debug)]
pub enum AnyChecked {
    /// A hand's (boxed: a hand holds its whole deck).
    Hand(Box<Checked>),
    /// A round's.
    Round(CheckedRound),
}

/// The refusal of a transcript of either kind.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnyRefusal {
    /// A hand transcript's refusal (and the refusal of a text that is no JSON object).
    #[error(transparent)]
    Hand(#[from] Refusal),
    /// A round transcript's refusal.
    #[error(transparent)]
    Round(#[from] RoundRefusal),
}

/// Parses a transcript of either kind: a round when the text's object has a `places` key, a hand
/// otherwise.
pub fn parse_any(text: &str) -> Result<AnyTranscript, AnyRefusal> {
    #[derive(Deserialize)]
    struct Probe {
        #[serde(default)]
        places: Option<serde::de::IgnoredAny>,
    }
    let probe: Probe = serde_json::from_str(text).map_err(|e| Refusal::Format(e.to_string()))?;
    Ok(match probe.places {
        Some(_) => AnyTranscript::Round(parse(text)?),
        None => AnyTranscript::Hand(transcript::parse(text)?),
    })
}

impl AnyTranscript {
    /// Checks the transcript: [`transcript::check`] or [`check`].
    pub fn check(&self) -> Result<AnyChecked, AnyRefusal> {
        Ok(match self {
            AnyTranscript::Hand(t) => AnyChecked::Hand(Box::new(transcript::check(t)?)),
            AnyTranscript::Round(t) => AnyChecked::Round(check(t)?),
        })
    }
}

impl AnyChecked {
    /// Whether every claim (if any) agrees.
    pub fn agrees(&self) -> bool {
        match self {
            AnyChecked::Hand(c) => c.differences.is_empty(),
            AnyChecked::Round(c) => c.agrees(),
        }
    }

    /// The result as JSON: [`Checked::json`] or [`CheckedRound::json`].
    pub fn json(&self) -> Value {
        match self {
            AnyChecked::Hand(c) => c.json(),
            AnyChecked::Round(c) => c.json(),
        }
    }

    /// The transcript's id.
    pub fn id(&self) -> Option<&str> {
        match self {
            AnyChecked::Hand(c) => c.id.as_deref(),
            AnyChecked::Round(c) => c.id.as_deref(),
        }
    }

    /// What our settlements pay in all (a round's: every place's; `None` past `u64`).
    pub fn total_paid(&self) -> Option<u64> {
        match self {
            AnyChecked::Hand(c) => Some(c.settlement.total_paid.0),
            AnyChecked::Round(c) => c
                .places
                .iter()
                .try_fold(0u64, |sum, p| sum.checked_add(p.settlement.total_paid.0)),
        }
    }

    /// Every difference as one list names it — a hand's by its bet, a round's by its place
    /// (`places[i].ante`) — with the rule our settlement applied to that bet (empty: none).
    pub fn named_differences(&self) -> Vec<(Difference, String)> {
        let named = |settlement: &Settlement, d: &Difference, prefix: &str| {
            let rule = settlement
                .lines
                .iter()
                .find(|l| l.bet.id() == d.what)
                .map(|l| l.rule.clone())
                .unwrap_or_default();
            let what = format!("{prefix}{}", d.what);
            (Difference { what, ..d.clone() }, rule)
        };
        match self {
            AnyChecked::Hand(c) => c
                .differences
                .iter()
                .map(|d| named(&c.settlement, d, ""))
                .collect(),
            AnyChecked::Round(c) => c
                .places
                .iter()
                .enumerate()
                .flat_map(|(i, p)| {
                    p.differences
                        .iter()
                        .map(move |d| named(&p.settlement, d, &format!("places[{i}].")))
                })
                .collect(),
        }
    }
}

/// What every check of a round needs, once its transcript is found well-formed.
struct Plan<'a> {
    t: &'a RoundTranscript,
    config: Arc<GameConfig>,
    shape: Shape,
    /// A round of seats: its seats.
    seats: Option<u8>,
    /// A round of one shake: the place offered the cup (the one giving decisions, or the first).
    cup: Option<usize>,
    /// A name for the round's dealer that no place's player has.
    dealer: String,
}

/// Runs a round transcript through the engine.
pub fn check(t: &RoundTranscript) -> Result<CheckedRound, RoundRefusal> {
    bounds(t)?;
    let config = configured(t.game, t.config.as_ref()).map_err(RoundRefusal::Transcript)?;
    let plan = plan(t, config)?;
    let source = source(
        t.game,
        t.seed.as_deref(),
        t.cards.as_ref(),
        t.dice.as_deref(),
    )
    .map_err(RoundRefusal::Transcript)?;
    let (deal, settlements) = match source {
        Source::Seed(seed) => by_seed(&plan, seed)?,
        Source::Cards(cards) => by_cards(&plan, cards)?,
        Source::Dice(shakes) => by_dice(&plan, shakes)?,
    };
    let places = t
        .places
        .iter()
        .zip(settlements)
        .map(|(p, settlement)| CheckedPlace {
            seat: p.seat,
            player: p.player.clone(),
            differences: p
                .claimed
                .as_ref()
                .map(|c| differences(c, &settlement))
                .unwrap_or_default(),
            claimed: p.claimed.is_some(),
            settlement,
        })
        .collect();
    Ok(CheckedRound {
        id: t.id.clone(),
        game: t.game,
        config_id: plan.config.id(),
        shape: t.shape,
        seats: plan.seats,
        deal,
        places,
    })
}

/// Every list within its bound, every player named.
fn bounds(t: &RoundTranscript) -> Result<(), RoundRefusal> {
    let within = |field: &dyn Fn() -> String, given: usize, max: usize| {
        if given > max {
            Err(RoundRefusal::TooMany {
                field: field(),
                given,
                max,
            })
        } else {
            Ok(())
        }
    };
    within(&|| "places".into(), t.places.len(), PLACES_MAX)?;
    if t.places.is_empty() {
        return Err(RoundRefusal::NoPlaces);
    }
    if let Some(dice) = &t.dice {
        within(&|| "dice".into(), dice.len(), SHAKES_MAX)?;
    }
    for (index, p) in t.places.iter().enumerate() {
        if p.player.trim().is_empty() {
            return Err(RoundRefusal::NoPlayer { index });
        }
        if p.player.len() > PLAYER_MAX_BYTES {
            return Err(RoundRefusal::PlayerTooLong {
                index,
                bytes: p.player.len(),
                max: PLAYER_MAX_BYTES,
            });
        }
        within(
            &|| format!("places[{index}].wagers"),
            p.wagers.len(),
            WAGERS_MAX,
        )?;
        within(
            &|| format!("places[{index}].decisions"),
            p.decisions.len(),
            DECISIONS_MAX,
        )?;
        if let Some(claimed) = &p.claimed {
            within(
                &|| format!("places[{index}].claimed.payouts"),
                claimed.payouts.len(),
                PAYOUTS_MAX,
            )?;
        }
    }
    Ok(())
}

/// The round's shape and seats as the engine opens it, each place's seat and player, the cup.
fn plan(t: &RoundTranscript, config: Arc<GameConfig>) -> Result<Plan<'_>, RoundRefusal> {
    let shape = match (t.shape, t.seats) {
        (RoundShape::Seats, seats) => Shape::Seats {
            seats: seats.or(t.game.facts().max_seats).unwrap_or_default(),
        },
        (other, Some(_)) => {
            return Err(RoundRefusal::SeatsNotThisShape {
                shape: other.name(),
            })
        }
        (RoundShape::SharedHand, None) => Shape::SharedHand,
        (RoundShape::OneShake, None) => Shape::OneShake,
    };
    let mut players: HashMap<&str, usize> = HashMap::new();
    let mut dealer = String::from("dealer");
    for (index, p) in t.places.iter().enumerate() {
        if let Some(&first) = players.get(p.player.as_str()) {
            return Err(RoundRefusal::PlayerTwice {
                index,
                player: p.player.clone(),
                first,
            });
        }
        players.insert(&p.player, index);
    }
    while players.contains_key(dealer.as_str()) {
        dealer.push('\'');
    }
    let plan = Plan {
        t,
        config,
        shape,
        seats: match shape {
            Shape::Seats { seats } => Some(seats),
            _ => None,
        },
        cup: None,
        dealer,
    };
    // The engine's own opening refuses what it does not deal (rules version, shape, seats).
    open(&plan, Seed::from_bytes([0; 32]))?;
    let mut taken: Vec<Option<usize>> = vec![None; usize::from(plan.seats.unwrap_or(0))];
    let mut cup: Option<usize> = None;
    for (index, p) in t.places.iter().enumerate() {
        match (plan.seats, p.seat) {
            (Some(seats), Some(seat)) => {
                let slot = seat
                    .checked_sub(1)
                    .and_then(|s| taken.get_mut(usize::from(s)))
                    .ok_or(RoundRefusal::NoSuchSeat { index, seat, seats })?;
                if let Some(first) = *slot {
                    return Err(RoundRefusal::SeatTwice { index, seat, first });
                }
                *slot = Some(index);
            }
            (Some(_), None) => return Err(RoundRefusal::SeatMissing { index }),
            (None, Some(_)) => {
                return Err(RoundRefusal::SeatNotThisShape {
                    index,
                    shape: t.shape.name(),
                })
            }
            (None, None) => {}
        }
        if shape == Shape::OneShake && !p.decisions.is_empty() {
            if let Some(first) = cup {
                return Err(RoundRefusal::SecondCup { index, first });
            }
            cup = Some(index);
        }
    }
    Ok(Plan {
        cup: (shape == Shape::OneShake).then_some(cup.unwrap_or(0)),
        ..plan
    })
}

/// The engine's round of `seed`, opened as the transcript's.
fn open(plan: &Plan<'_>, seed: Seed) -> Result<Round, RoundRefusal> {
    let mut round = Round::new(seed, plan.config.clone());
    round
        .step(&RoundCommand::Open(OpenRound {
            table: "transcript".into(),
            dealer: plan.dealer.clone(),
            shoe: None,
            shape: plan.shape,
            max_players: plan.t.places.len() as u32,
            seats_per_player: 1,
            decision_window_ms: WINDOW_MAX_MS,
            at: Timestamp(0),
        }))
        .map_err(RoundRefusal::Opening)?;
    Ok(round)
}

/// A place's refusal as a hand's.
fn at_place(index: usize) -> impl Fn(Refusal) -> RoundRefusal {
    move |source| RoundRefusal::Place { index, source }
}

/// The decisions a place plays: its own, or (one shake) the cup's.
fn decisions_of<'a>(plan: &Plan<'a>, index: usize) -> &'a [String] {
    let place = plan.cup.unwrap_or(index);
    plan.t
        .places
        .get(place)
        .map_or(&[][..], |p| p.decisions.as_slice())
}

/// The round dealt from `seed` by the engine's round: every place bet, betting closed, every
/// decision taken as soon as the table lets it come (a place waits while the table has not seen a
/// card it has), the showdown.
fn by_seed(plan: &Plan<'_>, seed: Seed) -> Result<(RoundDeal, Vec<Settlement>), RoundRefusal> {
    let t = plan.t;
    let mut round = open(plan, seed)?;
    for (index, p) in t.places.iter().enumerate() {
        let wagers = wagers_of(&p.wagers).map_err(at_place(index))?;
        round
            .step(&RoundCommand::Bet(PlaceBet {
                seed_digest: None,
                player: p.player.clone(),
                seat: p.seat,
                wagers,
                at: Timestamp(0),
            }))
            .map_err(|error| match error {
                RoundError::Hand(rule) => at_place(index)(Refusal::Open(rule)),
                error => RoundRefusal::Round {
                    index: Some(index),
                    error,
                },
            })?;
    }
    let mut shakes = Vec::new();
    let mut record = |events: Vec<RoundEvent>| {
        shakes.extend(events.into_iter().filter_map(|e| match e {
            RoundEvent::Shaken(shake) => Some(shake),
            _ => None,
        }))
    };
    record(
        round
            .step(&RoundCommand::CloseBetting {
                at: Timestamp(0),
                shaker: plan.cup.map(|c| t.places[c].player.clone()),
            })
            .map_err(|error| RoundRefusal::Round { index: None, error })?,
    );
    // Places that decide: every place, or (one shake) the cup's alone.
    let deciding: Vec<usize> = match plan.cup {
        Some(cup) => vec![cup],
        None => (0..t.places.len()).collect(),
    };
    let mut next = vec![0usize; t.places.len()];
    loop {
        let mut left = false;
        let mut moved = false;
        for &index in &deciding {
            let Some(text) = t.places[index].decisions.get(next[index]) else {
                continue;
            };
            left = true;
            let place = &round.places()[index];
            if place.in_play() && !place.waiting().is_empty() {
                continue;
            }
            let number = next[index] + 1;
            let action = decision(number, text).map_err(at_place(index))?;
            let refused = |rule: RuleError| {
                at_place(index)(Refusal::Decision {
                    index: number,
                    text: text.clone(),
                    why: rule.into(),
                })
            };
            if !place.in_play() {
                // The place's hand has ended: its own refusal, as a hand's transcript has it.
                let command = Command::Act {
                    action,
                    at: Timestamp(0),
                };
                let rule = place
                    .hand()
                    .decide(&command)
                    .err()
                    .unwrap_or(RuleError::Ended(place.hand().status()));
                return Err(refused(rule));
            }
            let events = round
                .step(&RoundCommand::Decide(Decide {
                    player: place.player().to_string(),
                    seat: place.seat(),
                    action,
                    at: Timestamp(0),
                }))
                .map_err(|error| match error {
                    RoundError::Hand(rule) => refused(rule),
                    error => RoundRefusal::Round {
                        index: Some(index),
                        error,
                    },
                })?;
            record(events);
            next[index] += 1;
            moved = true;
        }
        if !left || !moved {
            break;
        }
    }
    // Decisions left that could not come, or a round not ended: a place in play whose decisions
    // ran out holds the table.
    let places = round.places();
    if next
        .iter()
        .zip(&t.places)
        .any(|(&n, p)| n < p.decisions.len())
        || places.iter().any(|p| p.in_play())
    {
        let stuck = (0..places.len())
            .find(|&i| places[i].in_play() && next[i] >= decisions_of(plan, i).len())
            .unwrap_or(0);
        return Err(at_place(stuck)(unfinished(places[stuck].hand())));
    }
    let mut settlements = Vec::with_capacity(places.len());
    for (index, place) in places.iter().enumerate() {
        let settlement = place
            .hand()
            .settlement()
            .filter(|_| place.hand().status() == Status::Settled)
            .cloned()
            .ok_or_else(|| at_place(index)(Refusal::NoSettlement))?;
        settlements.push(settlement);
    }
    let deal = match t.game.material() {
        Material::Dice { .. } => RoundDeal::Dice(shakes),
        Material::Cards(_) => {
            let mut cards: Vec<(String, Vec<Card>)> = places
                .iter()
                .filter(|_| t.shape == RoundShape::Seats)
                .filter_map(|p| {
                    p.seat().map(|s| {
                        (
                            format!("seat{s}"),
                            p.hand().seat_cards(Seat::Player).to_vec(),
                        )
                    })
                })
                .collect();
            cards.sort_by_key(|(name, _)| seat_number(name));
            let first = places[0].hand();
            if t.shape == RoundShape::SharedHand {
                cards.push(("player".into(), first.seat_cards(Seat::Player).to_vec()));
            }
            cards.extend(table_cards(t.game, first));
            RoundDeal::Cards(cards)
        }
    };
    Ok((deal, settlements))
}

/// The dealer's or community cards a place's hand holds, by seat.
fn table_cards(game: GameId, hand: &Hand) -> Vec<(String, Vec<Card>)> {
    game.layout()
        .iter()
        .filter(|l| l.seat != Seat::Player)
        .map(|l| (l.seat.id().to_string(), hand.seat_cards(l.seat).to_vec()))
        .collect()
}

/// The number of a `seatN` name, if it is one (`seat01` is not).
fn seat_number(name: &str) -> Option<u8> {
    let number: u8 = name.strip_prefix("seat")?.parse().ok()?;
    (format!("seat{number}") == name).then_some(number)
}

/// The round dealt from the cards the other system gave: every seat's cards and the table's read
/// and checked as one deal (each card once in the round), then each place played as a one-player
/// hand over its seat's cards and the table's.
fn by_cards(
    plan: &Plan<'_>,
    given: &BTreeMap<String, Vec<String>>,
) -> Result<(RoundDeal, Vec<Settlement>), RoundRefusal> {
    let t = plan.t;
    let game = t.game;
    let Material::Cards(kind) = game.material() else {
        return Err(RoundRefusal::Transcript(Refusal::CardsForDice { game }));
    };
    let layout = game.layout();
    let player_layout = layout
        .iter()
        .find(|l| l.seat == Seat::Player)
        .map_or(0..0, |l| l.positions.clone());
    // The seats that hold cards, in deal order: each occupied seat (or the shared hand's player),
    // then the dealer's or community cards.
    let mut seats: Vec<(String, Option<Seat>)> = match plan.seats {
        Some(_) => {
            let mut occupied: Vec<u8> = t.places.iter().filter_map(|p| p.seat).collect();
            occupied.sort_unstable();
            occupied
                .into_iter()
                .map(|s| (format!("seat{s}"), None))
                .collect()
        }
        None => vec![("player".into(), None)],
    };
    seats.extend(
        layout
            .iter()
            .filter(|l| l.seat != Seat::Player)
            .map(|l| (l.seat.id().to_string(), Some(l.seat))),
    );
    for key in given.keys() {
        if seats.iter().any(|(name, _)| name == key) {
            continue;
        }
        if let (Some(count), Some(seat)) = (plan.seats, seat_number(key)) {
            if (1..=count).contains(&seat) {
                return Err(RoundRefusal::EmptySeat {
                    key: key.clone(),
                    seat,
                });
            }
        }
        let mut known: Vec<String> = match plan.seats {
            Some(count) => (1..=count).map(|s| format!("seat{s}")).collect(),
            None => vec!["player".into()],
        };
        known.extend(
            layout
                .iter()
                .filter(|l| l.seat != Seat::Player)
                .map(|l| l.seat.id().to_string()),
        );
        return Err(RoundRefusal::NoSuchCardSeat {
            key: key.clone(),
            game,
            known,
        });
    }
    let mut dealt: HashMap<Card, usize> = HashMap::new();
    let mut read: Vec<Vec<Card>> = Vec::with_capacity(seats.len());
    for (k, (name, table_seat)) in seats.iter().enumerate() {
        let deals = match table_seat {
            None => player_layout.len(),
            Some(seat) => layout
                .iter()
                .find(|l| l.seat == *seat)
                .map_or(0, |l| l.positions.len()),
        };
        let cards = given.get(name).map_or(&[][..], Vec::as_slice);
        if cards.len() != deals {
            return Err(RoundRefusal::CardCount {
                seat: name.clone(),
                given: cards.len(),
                game,
                deals,
            });
        }
        let mut these = Vec::with_capacity(deals);
        for text in cards {
            let card = read_card(text, kind).map_err(|bad| match bad {
                BadCard::Unreadable(problem) => RoundRefusal::Card {
                    seat: name.clone(),
                    problem,
                },
                BadCard::Joker => RoundRefusal::Joker {
                    seat: name.clone(),
                    game,
                },
            })?;
            if let Some(&other) = dealt.get(&card) {
                return Err(if other == k {
                    RoundRefusal::DealtTwice {
                        seat: name.clone(),
                        card,
                    }
                } else {
                    RoundRefusal::SharedCard {
                        seat: name.clone(),
                        card,
                        also: seats[other].0.clone(),
                    }
                });
            }
            dealt.insert(card, k);
            these.push(card);
        }
        read.push(these);
    }
    // The table's cards at their one-player positions, shared by every place.
    let mut table: Vec<(usize, Card)> = Vec::new();
    for ((_, seat), cards) in seats.iter().zip(&read) {
        if let Some(seat) = seat {
            if let Some(l) = layout.iter().find(|l| l.seat == *seat) {
                table.extend(l.positions.clone().zip(cards.iter().copied()));
            }
        }
    }
    let own = |place: &PlaceTranscript| -> &[Card] {
        let name = place
            .seat
            .map_or_else(|| "player".to_string(), |s| format!("seat{s}"));
        seats
            .iter()
            .position(|(n, _)| *n == name)
            .and_then(|k| read.get(k))
            .map_or(&[][..], Vec::as_slice)
    };
    let mut settlements = Vec::with_capacity(t.places.len());
    for (index, p) in t.places.iter().enumerate() {
        let mut placed: Vec<(usize, Card)> =
            player_layout.clone().zip(own(p).iter().copied()).collect();
        placed.extend(table.iter().copied());
        let hand = Hand::with_material(plan.config.clone(), fill_deck(kind, &placed), Vec::new());
        let Played { settlement, .. } =
            play(hand, &p.player, &p.wagers, &p.decisions, None).map_err(at_place(index))?;
        settlements.push(settlement);
    }
    let deal = seats.into_iter().map(|(name, _)| name).zip(read).collect();
    Ok((RoundDeal::Cards(deal), settlements))
}

/// The round of one shake from the dice the other system gave: the cup's place played first (a
/// shake the dice do not bear out is refused as the round's `dice`), then every bettor's boxes
/// on the same dice and the same shakes.
fn by_dice(
    plan: &Plan<'_>,
    shakes: &[Vec<u8>],
) -> Result<(RoundDeal, Vec<Settlement>), RoundRefusal> {
    let t = plan.t;
    let faces = shakes.concat();
    let cup = plan.cup.unwrap_or(0);
    let decisions = decisions_of(plan, cup);
    let run = |index: usize| -> Result<Played, RoundRefusal> {
        let p = &t.places[index];
        let hand = Hand::with_material(plan.config.clone(), Vec::new(), faces.clone());
        play(hand, &p.player, &p.wagers, decisions, Some(shakes)).map_err(|refusal| match refusal {
            Refusal::ShakeCount { .. } | Refusal::ShakeDice { .. } => {
                RoundRefusal::Transcript(refusal)
            }
            refusal => at_place(index)(refusal),
        })
    };
    let first = run(cup)?;
    let deal = RoundDeal::Dice(
        first
            .events
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
                    who: t.places[cup].player.clone(),
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
            .collect(),
    );
    let mut settlements = Vec::with_capacity(t.places.len());
    for index in 0..t.places.len() {
        let settlement = if index == cup {
            first.settlement.clone()
        } else {
            run(index)?.settlement
        };
        settlements.push(settlement);
    }
    Ok((deal, settlements))
}
