//! What happens to a round ([`RoundEvent`]): the log records these, in the order the round emits
//! them.
//!
//! Deck positions are the round's (`GameId::round_layout`), never a place's own. Cards appear when
//! the table sees them: a seat's own cards when dealt to it, the dealer's and community cards when
//! turned for everyone, every dealt card at the showdown. Settlements and voids are the one-player
//! hand's structures, one per place.

use serde::{Deserialize, Serialize};

use super::command::Shape;
use crate::card::Card;
use crate::config::{ConfigId, LateBeacon};
use crate::game::GameId;
use crate::games::{Action, Shaker, Timestamp, Void, VoidOrder};
use crate::house_way::{Rule, Setting};
use crate::mix::BeaconValue;
use crate::rng::{Commitment, Seed};
use crate::settlement::{Settlement, Wager};

/// The round's opening record. The seed stays secret: only its commitment is here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundOpened {
    /// The game.
    pub game: GameId,
    /// The configuration every place is played under.
    pub config_id: ConfigId,
    /// The table's reference.
    pub table: String,
    /// The dealer's reference.
    pub dealer: String,
    /// The shoe's or shuffler's reference, if any.
    pub shoe: Option<String>,
    /// How the round deals.
    pub shape: Shape,
    /// The most players it takes.
    pub max_players: u32,
    /// The most seats one player may hold.
    pub seats_per_player: u8,
    /// The decision window, in milliseconds from the deal.
    pub decision_window_ms: u64,
    /// `SHA-256(seed)`: the server's seed, before any player's seed or the beacon exists.
    pub commitment: Commitment,
    /// Whether the players' seeds mix the deal seed (`docs/rng.md` §1a).
    pub player_seeds: bool,
    /// The beacon round that mixes the deal seed, named now.
    pub beacon: Option<NamedBeacon>,
    /// When.
    pub at: Timestamp,
}

/// The beacon round a round names when it opens, and the times around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NamedBeacon {
    /// The chain's hash.
    pub chain: [u8; 32],
    /// The round: the first whose time is after betting closes.
    pub round: u64,
    /// The round's time, in milliseconds since the epoch.
    pub round_at: Timestamp,
    /// No bet is taken at or after this.
    pub betting_closes: Timestamp,
    /// The beacon is awaited until this; then the late rule applies.
    pub awaited_until: Timestamp,
    /// What a late beacon does.
    pub late: LateBeacon,
}

/// A bet on a place: the place's number in the round (from 0, in the order bet), its player and
/// seat, its wagers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BetPlaced {
    /// The place's number, from 0 in the order bets were placed.
    pub place: u32,
    /// The player's reference.
    pub player: String,
    /// The seat, in a round of seats.
    pub seat: Option<u8>,
    /// The wagers.
    pub wagers: Vec<Wager>,
    /// The digest of the player's seed, when they sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_digest: Option<[u8; 32]>,
    /// When.
    pub at: Timestamp,
}

/// The beacon round arrived, as the deal seed mixes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BeaconArrived {
    /// The chain, the round and its randomness.
    pub value: BeaconValue,
    /// The round's BLS signature (its digest is the randomness).
    pub signature: Vec<u8>,
    /// When it arrived.
    pub at: Timestamp,
}

/// The beacon round did not arrive, verified, in time: the rule applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BeaconMissed {
    /// When the rule was applied.
    pub at: Timestamp,
    /// What went wrong, in words (not served in time, a bad signature…).
    pub why: String,
    /// The rule: dealt without it, or the round void and every bet refunded.
    pub rule: LateBeacon,
}

/// One seat's cards as dealt to it (seen by its player only until the showdown).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatDealt {
    /// The seat's number.
    pub seat: u8,
    /// The round's deck positions.
    pub positions: Vec<u8>,
    /// The cards at them.
    pub cards: Vec<Card>,
}

/// One shake of the round's cup (Nutz), as a one-player hand records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shake {
    /// Who shook: the bettor offered the cup, or the dealer.
    pub who: String,
    /// The shake's number, from 1.
    pub shake: u8,
    /// By the player offered the cup, or by the dealer.
    pub by: Shaker,
    /// When.
    pub at: Timestamp,
    /// The dice rolled (positions 0–4).
    pub rolled: Vec<u8>,
    /// The five faces after it.
    pub faces: [u8; 5],
    /// The dice held after it.
    pub held: Vec<u8>,
    /// Whether the shaking is over.
    pub last: bool,
}

/// The decision window closing: which places it ended, by which rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowClosed {
    /// The order (its kind is `incomplete`).
    pub order: VoidOrder,
    /// Why the rule allowed it, in words.
    pub allowed_because: String,
    /// How many places it ended: those in play when it closed (the refunded ones each have their
    /// `PlaceVoided`; the completed ones settle at the showdown). A count, not a list, so that the
    /// entry of a round of the most players stays within an entry's bound.
    pub ended: u32,
}

/// Another dealer took over the round: who dealt before, who deals now, why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealerChanged {
    /// The dealer before.
    pub from: String,
    /// The dealer from here on.
    pub to: String,
    /// Why, in words.
    pub reason: String,
    /// When.
    pub at: Timestamp,
}

/// The whole round void: the order and why the rule allowed it. Each place's void follows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundVoided {
    /// The order (its kind is `malfunction`).
    pub order: VoidOrder,
    /// Why the rule allowed it, in words.
    pub allowed_because: String,
}

/// Something that happened to a round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RoundEvent {
    /// The round opened; betting is open.
    Opened(RoundOpened),
    /// A player's bet on a place.
    BetPlaced(BetPlaced),
    /// Betting closed; in Nutz, the cup offered to `shaker` (or to nobody: the dealer shakes).
    BettingClosed {
        at: Timestamp,
        shaker: Option<String>,
    },
    /// The beacon round arrived; the deal follows.
    BeaconArrived(BeaconArrived),
    /// The beacon round was late: dealt without it (the deal follows) or every place voided.
    BeaconLate(BeaconMissed),
    /// Each occupied seat's cards, dealt from the one shuffle in seat order (a round of seats).
    Dealt { seats: Vec<SeatDealt> },
    /// Cards turned face up for the whole table, with the round's deck positions.
    Revealed {
        positions: Vec<u8>,
        cards: Vec<Card>,
    },
    /// A player's decision on a place, with the stakes it placed.
    Decided {
        place: u32,
        action: Action,
        at: Timestamp,
        stakes: Vec<Wager>,
    },
    /// A shake of the cup every bettor plays (Nutz).
    Shaken(Shake),
    /// The decision window closed.
    WindowClosed(WindowClosed),
    /// Fortune Pai Gow: the dealer's hand set once by the house way, against every seat.
    DealerSet { setting: Setting, rule: Rule },
    /// Another dealer took over the round.
    DealerChanged(DealerChanged),
    /// A place settled, by its game's rules, at the showdown.
    Settled { place: u32, settlement: Settlement },
    /// The whole round void (each place's `PlaceVoided` follows).
    RoundVoided(RoundVoided),
    /// A place voided or forfeited (or refunded by the incomplete-game rule).
    PlaceVoided { place: u32, void: Void },
    /// The seed, now that the round has ended.
    SeedRevealed { seed: Seed },
}

impl RoundEvent {
    /// A stable snake_case name of the event's kind.
    pub fn kind(&self) -> &'static str {
        match self {
            RoundEvent::Opened(_) => "opened",
            RoundEvent::BetPlaced(_) => "bet_placed",
            RoundEvent::BettingClosed { .. } => "betting_closed",
            RoundEvent::BeaconArrived(_) => "beacon_arrived",
            RoundEvent::BeaconLate(_) => "beacon_late",
            RoundEvent::Dealt { .. } => "dealt",
            RoundEvent::Revealed { .. } => "revealed",
            RoundEvent::Decided { .. } => "decided",
            RoundEvent::Shaken(_) => "shaken",
            RoundEvent::WindowClosed(_) => "window_closed",
            RoundEvent::DealerSet { .. } => "dealer_set",
            RoundEvent::DealerChanged(_) => "dealer_changed",
            RoundEvent::Settled { .. } => "settled",
            RoundEvent::RoundVoided(_) => "round_voided",
            RoundEvent::PlaceVoided { .. } => "place_voided",
            RoundEvent::SeedRevealed { .. } => "seed_revealed",
        }
    }
}
