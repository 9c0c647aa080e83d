//! The dispute packet's data model: everything the page shows, as plain data the server assembles
//! from the log, the replay and the signed checkpoint.
//!
//! This module owns the shape of that data and its meaning. It must not compute anything, read
//! anything or judge anything: whether a signature verifies, an entry is in the checkpoint or the
//! replay agrees is decided by the server before the packet is built, and recorded here as facts.
//! Every `String` here is text from the log or from people (table and player references, actors,
//! reasons, notes): the page treats all of it as hostile and escapes it.

use pitboss_engine::config::GameConfig;
use pitboss_engine::game::GameId;
use pitboss_engine::games::{Completion, Event, Void};
use pitboss_engine::settlement::Settlement;

/// One hand's dispute packet: the hand's facts, its recorded events with the checks made on each,
/// and the verdict of the replay and of the bundle verification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    /// The hand's id, 32 hex digits: how the operator, the player and the log name the hand.
    pub hand_id: String,
    /// The game, which decides how the cards or dice are drawn and which paytables apply.
    pub game: GameId,
    /// The table's reference, as recorded when the hand opened (text from outside: escaped).
    pub table: String,
    /// The player's reference, as recorded when the hand opened (text from outside: escaped).
    pub player: String,
    /// When the hand opened, milliseconds since the Unix epoch (UTC), as recorded.
    pub opened_at_ms: u64,
    /// When the last event ending the hand was recorded, if the hand has ended.
    pub closed_at_ms: Option<u64>,
    /// Where the hand stands: `"in_progress"`, `"settled"` or `"voided"` (shown as given).
    pub status: String,
    /// The SHA-256 id of the configuration the hand was played under, 64 hex digits: the reader
    /// can check it against the configuration the operator published.
    pub config_id: String,
    /// The configuration itself: name, version, currency, rules version, paytables and caps. Every
    /// amount on the page is shown in its currency.
    pub config: GameConfig,
    /// The hand's recorded events, in log order, each with the checks made on it.
    pub events: Vec<PacketEvent>,
    /// What the replay and the bundle verification concluded.
    pub verdict: Verdict,
}

/// One recorded event of the hand and the checks made on its log entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PacketEvent {
    /// The entry's sequence number in the whole log: how the page and the bundle name an entry.
    pub sequence: u64,
    /// The entry's position in the hand's own stream (0 for the opening).
    pub stream_position: u64,
    /// When the log recorded the entry, milliseconds since the Unix epoch (UTC).
    pub recorded_at_ms: u64,
    /// The authenticated principal from the signed envelope: who caused the event. May be empty
    /// for entries recorded before envelopes named one (the page shows "—").
    pub actor: String,
    /// The id of the key that signed the entry.
    pub key_id: String,
    /// The entry's hash, hex: what the checkpoint's Merkle tree commits to.
    pub hash_hex: String,
    /// The event itself, as the engine reads it.
    pub event: Event,
    /// Whether the entry is in the signed checkpoint (its inclusion proof verified).
    pub in_checkpoint: bool,
    /// Whether the entry's signature verified with the key it names (for an entry its group's
    /// later signature seals: that signature in the log, or in a bundle the checkpoint's).
    pub signature_ok: bool,
    /// Whether the replay from the seed re-derived this event exactly.
    pub rederived: bool,
    /// Anything the checks want to say about this entry, in words (empty when nothing).
    pub note: String,
}

/// The verdict on the hand: the replay, the seed, the signatures and the checkpoint.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// The replay is consistent: it re-derives every event, every signature and hash link is good,
    /// and there is no mismatch.
    pub consistent: bool,
    /// The revealed seed opens the commitment recorded when the hand opened.
    pub commitment_ok: bool,
    /// The seed has been revealed (only once the hand has ended).
    pub seed_revealed: bool,
    /// For a void: what was refunded equals what was staked.
    pub refunds_equal_stakes: bool,
    /// Where a recorded event differs from the one the replay re-derived, field by field.
    pub mismatches: Vec<Mismatch>,
    /// The proof report in words, one line each, as the server's verifier wrote it.
    pub report: Vec<String>,
    /// Problems the bundle verification found (empty when it found none).
    pub problems: Vec<String>,
    /// The settlement the replay re-derived, if the hand settled.
    pub settlement: Option<Settlement>,
    /// The void, if the hand was voided or forfeited.
    pub void: Option<Void>,
    /// The incomplete-game rule's completion, if it completed the hand.
    pub completion: Option<Completion>,
    /// The signed checkpoint the hand's entries were checked against.
    pub checkpoint: CheckpointFacts,
    /// The file name of the offline bundle published beside the page (`hand-<id>.bundle.json`),
    /// used in the commands the reader can run to check the hand without pitboss's server.
    pub bundle_file: String,
}

/// One difference between a recorded event and the replay's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mismatch {
    /// The entry's sequence number.
    pub sequence: u64,
    /// The event's kind (`"settled"`, `"cards_shown"`…).
    pub event: String,
    /// The field that differs (`"lines[2].payout"`).
    pub field: String,
    /// The value the log records.
    pub recorded: String,
    /// The value the replay re-derived.
    pub rederived: String,
}

/// The signed checkpoint: the log's signed statement of its size and Merkle root.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckpointFacts {
    /// The log's origin line (its name).
    pub origin: String,
    /// How many entries the checkpoint covers.
    pub tree_size: u64,
    /// The Merkle root, hex.
    pub root_hex: String,
    /// The signed note, verbatim, as the reader can check it.
    pub note: String,
    /// The id of the key that signed the checkpoint.
    pub key_id: String,
    /// The checkpoint key's public key, hex (for the offline commands).
    pub public_key_hex: String,
}
