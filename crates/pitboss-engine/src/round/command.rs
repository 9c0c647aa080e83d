//! What can be asked of a round ([`RoundCommand`]) and the shapes a round takes ([`Shape`]).
//!
//! Commands carry everything from outside (names, wagers, times, orders); the round checks them
//! (`round/mod.rs`). Nothing here decides anything.

use serde::{Deserialize, Serialize};

use crate::games::{Action, Timestamp, VoidOrder};
use crate::mix::BeaconValue;
use crate::settlement::Wager;

/// How a round deals: to seats from one deck, one hand to many players, or one shake to many
/// bettors (`spec/GAMES.md`, *Rounds*).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "shape", rename_all = "snake_case")]
pub enum Shape {
    /// A card game's table: `seats` seats numbered from 1, each dealt its block of the one shuffle
    /// in seat order, then the dealer's or the community cards (`GameId::round_layout`); one player
    /// on each occupied seat.
    Seats { seats: u8 },
    /// A card game's live studio: one player hand dealt once (exactly a one-player hand's deal),
    /// played by every player of the round with their own stakes and decisions.
    SharedHand,
    /// Nutz: one shake (the cup offered to one bettor, or shaken by the dealer), every bettor's
    /// boxes settled on the same final dice.
    OneShake,
}

impl Shape {
    /// A stable snake_case name.
    pub fn name(&self) -> &'static str {
        match self {
            Shape::Seats { .. } => "seats",
            Shape::SharedHand => "shared_hand",
            Shape::OneShake => "one_shake",
        }
    }
}

/// Opening a round: where, who deals, how it deals, its bounds, and when.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenRound {
    /// The table's reference.
    pub table: String,
    /// The dealer's reference (who deals and, in Nutz, shakes for a bettor who does not).
    pub dealer: String,
    /// The shoe's or the shuffler's reference, where the table has one.
    pub shoe: Option<String>,
    /// How the round deals.
    pub shape: Shape,
    /// The most players the round takes (at most [`super::PLAYERS_MAX`]).
    pub max_players: u32,
    /// The most seats one player may hold (at most the game's `seats_per_player`; 1 for a shared
    /// hand or a shake).
    pub seats_per_player: u8,
    /// How long after the deal the players have to decide, in milliseconds; when it closes, every
    /// undecided place is ended by its game's incomplete-game rule.
    pub decision_window_ms: u64,
    /// When.
    pub at: Timestamp,
}

/// A player's bet on a place of the round, before betting closes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlaceBet {
    /// The player's reference.
    pub player: String,
    /// The seat (a round of seats); `None` on a shared hand or a shake.
    pub seat: Option<u8>,
    /// The wagers, as a one-player hand of the game opens with them.
    pub wagers: Vec<Wager>,
    /// The digest of the player's seed ([`super::player_seed`]), under a configuration
    /// whose rounds take players' seeds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_digest: Option<[u8; 32]>,
    /// When.
    pub at: Timestamp,
}

/// The beacon round a round named, as it arrived (its signature verified against the chain's
/// public key by whoever fetched it: the engine checks only that it is the round named and that
/// its randomness is its signature's digest).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BeaconArrival {
    /// The chain, the round and its randomness.
    pub value: BeaconValue,
    /// The round's BLS signature.
    pub signature: Vec<u8>,
    /// When it arrived.
    pub at: Timestamp,
}

/// Another dealer for a round in progress, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeDealer {
    /// The dealer taking over.
    pub dealer: String,
    /// Why, in words.
    pub reason: String,
    /// When.
    pub at: Timestamp,
}

/// A player's decision on their place.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decide {
    /// Who decides: the place's player, or (Nutz) the bettor offered the cup or the dealer
    /// shaking.
    pub player: String,
    /// The seat (a round of seats); `None` otherwise.
    pub seat: Option<u8>,
    /// The decision.
    pub action: Action,
    /// When.
    pub at: Timestamp,
}

/// What can be asked of a round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RoundCommand {
    /// Open the round: its seed committed, betting open.
    Open(OpenRound),
    /// A player's bet on a place.
    Bet(PlaceBet),
    /// Close betting and deal; in Nutz, offer the cup to `shaker` (a bettor), or to nobody (the
    /// dealer shakes).
    CloseBetting {
        at: Timestamp,
        shaker: Option<String>,
    },
    /// A player's decision (in Nutz, a shake of the round's cup).
    Decide(Decide),
    /// The decision window has closed: every undecided place is ended by its game's
    /// incomplete-game rule (the order's kind is `incomplete`).
    CloseWindow(VoidOrder),
    /// A malfunction, a misdeal or a dealer error: the whole round void, every place's pays and
    /// plays (a settled round's void needs a second person).
    VoidRound(VoidOrder),
    /// The beacon round the round named has arrived, verified: mix it into the deal seed and deal.
    Beacon(BeaconArrival),
    /// The beacon round has not arrived, verified, by the end of its wait: the configuration's
    /// rule for a late beacon (deal without it, or void the round and refund), `why` in words.
    BeaconLate { at: Timestamp, why: String },
    /// Another dealer takes over the table's round from here (a shift's change, a break, a dealer
    /// relieved after an error): later shakes by the dealer are theirs, and the round's
    /// settlements are counted under them.
    ChangeDealer(ChangeDealer),
    /// A conduct forfeit of one player's place (Caribbean Stud): that place alone.
    Forfeit {
        player: String,
        seat: Option<u8>,
        order: VoidOrder,
    },
}

impl RoundCommand {
    /// When the command is dated.
    pub fn at(&self) -> Timestamp {
        match self {
            RoundCommand::Open(open) => open.at,
            RoundCommand::Bet(bet) => bet.at,
            RoundCommand::CloseBetting { at, .. } => *at,
            RoundCommand::Decide(decide) => decide.at,
            RoundCommand::Beacon(arrival) => arrival.at,
            RoundCommand::BeaconLate { at, .. } => *at,
            RoundCommand::ChangeDealer(change) => change.at,
            RoundCommand::CloseWindow(order)
            | RoundCommand::VoidRound(order)
            | RoundCommand::Forfeit { order, .. } => order.at,
        }
    }
}
