//! A table round's dispute packet, as data: the round's facts, the table as the dealer showed it
//! (every place's cards and settlement, other players' names already masked by the server), its
//! recorded entries in words with their checks, and the verdict of the bundle's verification.
//!
//! Owns the shape of that data. Must not compute, read or judge anything: the server decides every
//! fact before the packet is built. Every `String` is text from the log or from people (escaped by
//! the page).

use pitboss_engine::card::Card;
use pitboss_engine::config::GameConfig;
use pitboss_engine::game::GameId;
use pitboss_engine::games::Void;
use pitboss_engine::settlement::Settlement;

use crate::model::{CheckpointFacts, Mismatch};

/// One round's dispute packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundPacket {
    /// The round's id, 32 hex digits.
    pub round_id: String,
    pub game: GameId,
    /// The table's, dealer's and shoe's references, as recorded at the opening (the dealer: every
    /// dealer who dealt it, in order, `a → b` when another took over).
    pub table: String,
    pub dealer: String,
    pub shoe: String,
    /// `seats`, `shared_hand` or `one_shake`.
    pub shape: String,
    /// When the round opened and when its last entry was recorded (ms since the epoch, UTC).
    pub opened_at_ms: u64,
    pub last_at_ms: u64,
    /// `betting`, `playing`, `ended` or `voided` (shown as given); empty when not re-derived.
    pub phase: String,
    /// The configuration's id (64 hex digits) and the configuration.
    pub config_id: String,
    pub config: GameConfig,
    /// Whose packet it is: the player the dispute is about (their places named, every other
    /// player's name masked); empty: the table's (every name shown).
    pub player: String,
    /// The cards turned for the whole table, by round deck position.
    pub table_cards: Vec<(u8, Card)>,
    /// Nutz: the dice after the last shake.
    pub dice: Option<[u8; 5]>,
    /// Every place.
    pub places: Vec<RoundPacketPlace>,
    /// Every recorded entry of the round, in order.
    pub events: Vec<RoundPacketEvent>,
    pub verdict: RoundVerdict,
}

/// One place of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundPacketPlace {
    pub place: u32,
    pub seat: Option<u8>,
    /// The player's reference, or the masked word.
    pub player: String,
    /// The packet's player's own place.
    pub yours: bool,
    /// `in_progress`, `settled` or `voided`.
    pub status: String,
    /// Its own cards as the table saw them, by round deck position.
    pub cards: Vec<(u8, Card)>,
    pub settlement: Option<Settlement>,
    pub void: Option<Void>,
}

/// One recorded entry of the round and its checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundPacketEvent {
    pub sequence: u64,
    pub stream_position: u64,
    pub recorded_at_ms: u64,
    /// The authenticated principal in the signed envelope (empty: "—").
    pub actor: String,
    /// The event's kind and what it says, in words (names masked by the server).
    pub kind: String,
    pub words: String,
    pub in_checkpoint: bool,
    pub signature_ok: bool,
    pub rederived: bool,
    pub note: String,
}

/// What the round's replay and the bundle's verification concluded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoundVerdict {
    pub consistent: bool,
    pub commitment_ok: bool,
    pub seed_revealed: bool,
    /// Every card dealt or shown stands at one deck position.
    pub one_shuffle: bool,
    pub mismatches: Vec<Mismatch>,
    /// The round's proof report, one line each.
    pub report: Vec<String>,
    /// Problems the bundle's verification found.
    pub problems: Vec<String>,
    pub checkpoint: CheckpointFacts,
    /// The offline bundle's file name beside the page (`round-<id>.bundle.json`).
    pub bundle_file: String,
}
