//! The log as the layers above the floor read it ([`LogRead`]): entries and their stored bytes,
//! the head and its subscription, the Merkle tree's size, roots, proofs and signed checkpoints,
//! the keys the log established, verification, and the ledger's state (its key, where it is,
//! whether it only reads, a mirror's held checkpoint, the writer's measurements).
//!
//! The floor hands it out (`Floor::log`); nothing above the floor holds the [`Ledger`] itself, so
//! nothing there can append, rotate a key or close the log but through the floor's own methods,
//! which record who asked. The contract of each read is the [`Ledger`] method it names: the
//! implementation only points at it.
//!
//! Must not write, and must not grow a method no caller above the floor needs.

use ed25519_dalek::VerifyingKey;

use super::checkpoint::Checkpoint;
use super::mirror::Held;
use super::stats::WriterStats;
use super::store::KeyValue;
use super::{Entry, Hash, InclusionProof, KeyId, Ledger, LedgerError, VerifyReport};

/// How many entries one part of [`LogRead::verify_in_parts`] walks: a caller who goes away stops
/// the work within one part.
const VERIFY_PART: u64 = 100_000;

/// A verification stopped between two parts because its caller went away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifyStopped;

/// The log, read. Every method reads; none writes.
pub trait LogRead: Send + Sync {
    /// The entry at `sequence`, if the log holds it ([`Ledger::entry`]).
    fn entry(&self, sequence: u64) -> Result<Option<Entry>, LedgerError>;

    /// The stored records of entries `from .. from + count`, byte for byte, each with its
    /// sequence ([`Ledger::stored_entries`]): what tiles and mirrors carry.
    fn stored_entries(&self, from: u64, count: u64) -> Result<Vec<(u64, Vec<u8>)>, LedgerError>;

    /// The log's last entry: its sequence and hash (`None` for an empty log).
    fn head(&self) -> Result<Option<(u64, Hash)>, LedgerError>;

    /// Watches the next sequence number: it changes after every durable append.
    fn subscribe(&self) -> tokio::sync::watch::Receiver<u64>;

    /// Entries durable and acknowledged (no read of the store: the metrics' gauge).
    fn size(&self) -> u64;

    /// The Merkle tree's size now: the log's entries, read from the store.
    fn tree_size(&self) -> Result<u64, LedgerError>;

    /// A checkpoint of the first `size` entries (all of them now, if `None`), signed by the
    /// current key, and that key; a mirror's, the log's own held checkpoint
    /// ([`Ledger::checkpoint_blocking`]). Blocks: call it from blocking work.
    fn checkpoint(&self, size: Option<u64>) -> Result<(Checkpoint, VerifyingKey), LedgerError>;

    /// A checkpoint of `size` entries carrying `extensions`, signed with the body
    /// ([`Ledger::checkpoint_with`]).
    fn checkpoint_with(
        &self,
        size: u64,
        extensions: Vec<String>,
    ) -> Result<(Checkpoint, VerifyingKey), LedgerError>;

    /// The audit path of entry `sequence` in the tree of `size` entries.
    fn inclusion_proof(&self, sequence: u64, size: u64) -> Result<InclusionProof, LedgerError>;

    /// The Merkle root of the first `size` entries.
    fn tree_root(&self, size: u64) -> Result<Hash, LedgerError>;

    /// The proof that the tree of `first` entries is a prefix of the tree of `second`.
    fn consistency_proof(&self, first: u64, second: u64) -> Result<Vec<Hash>, LedgerError>;

    /// Every key the log established: (id, public key) as stored.
    fn known_keys(&self) -> Result<Vec<KeyValue>, LedgerError>;

    /// Verifies entries `from ..= to` (to the end, if `None`), held to the payload schema the
    /// ledger was opened with ([`Ledger::verify_range`]).
    fn verify_range(&self, from: u64, to: Option<u64>) -> VerifyReport;

    /// [`LogRead::verify_range`] from `from` to `to` inclusive, in parts of 100 000 entries,
    /// asking `stopped` between parts; the parts' reports merged into one.
    fn verify_in_parts(
        &self,
        from: u64,
        to: u64,
        stopped: &dyn Fn() -> bool,
    ) -> Result<VerifyReport, VerifyStopped> {
        let mut report = VerifyReport {
            verified: 0,
            head: None,
            problem: None,
        };
        let mut start = from;
        loop {
            let end = start.saturating_add(VERIFY_PART - 1).min(to);
            let part = self.verify_range(start, Some(end));
            report.verified += part.verified;
            report.head = part.head.or(report.head);
            report.problem = part.problem;
            if report.problem.is_some() || end >= to {
                return Ok(report);
            }
            if stopped() {
                return Err(VerifyStopped);
            }
            start = end + 1;
        }
    }

    /// The writer's measurements (latencies, group sizes, syncs).
    fn stats(&self) -> &WriterStats;

    /// The id of the key signing new entries (`None`: a ledger that only reads, without it).
    fn key_id(&self) -> Option<KeyId>;

    /// Whether every write is refused: a server that only reads a log another writes, or a
    /// mirror's copy.
    fn read_only(&self) -> bool;

    /// Where the log is, for people (a directory, or a database without its password).
    fn location(&self) -> String;

    /// Whether this is a mirror's copy of another server's log.
    fn is_mirror(&self) -> bool;

    /// The log's newest checkpoint a mirror holds (`None` elsewhere).
    fn held(&self) -> Option<Held>;
}

impl LogRead for Ledger {
    fn entry(&self, sequence: u64) -> Result<Option<Entry>, LedgerError> {
        Ledger::entry(self, sequence)
    }

    fn stored_entries(&self, from: u64, count: u64) -> Result<Vec<(u64, Vec<u8>)>, LedgerError> {
        Ledger::stored_entries(self, from, count)
    }

    fn head(&self) -> Result<Option<(u64, Hash)>, LedgerError> {
        Ledger::head(self)
    }

    fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        Ledger::subscribe(self)
    }

    fn size(&self) -> u64 {
        Ledger::size(self)
    }

    fn tree_size(&self) -> Result<u64, LedgerError> {
        Ledger::tree_size(self)
    }

    fn checkpoint(&self, size: Option<u64>) -> Result<(Checkpoint, VerifyingKey), LedgerError> {
        Ledger::checkpoint_blocking(self, size)
    }

    fn checkpoint_with(
        &self,
        size: u64,
        extensions: Vec<String>,
    ) -> Result<(Checkpoint, VerifyingKey), LedgerError> {
        Ledger::checkpoint_with(self, size, extensions)
    }

    fn inclusion_proof(&self, sequence: u64, size: u64) -> Result<InclusionProof, LedgerError> {
        Ledger::inclusion_proof(self, sequence, size)
    }

    fn tree_root(&self, size: u64) -> Result<Hash, LedgerError> {
        Ledger::tree_root(self, size)
    }

    fn consistency_proof(&self, first: u64, second: u64) -> Result<Vec<Hash>, LedgerError> {
        Ledger::consistency_proof(self, first, second)
    }

    fn known_keys(&self) -> Result<Vec<KeyValue>, LedgerError> {
        Ledger::known_keys(self)
    }

    fn verify_range(&self, from: u64, to: Option<u64>) -> VerifyReport {
        Ledger::verify_range(self, from, to)
    }

    fn stats(&self) -> &WriterStats {
        Ledger::stats(self)
    }

    fn key_id(&self) -> Option<KeyId> {
        Ledger::key_id(self)
    }

    fn read_only(&self) -> bool {
        Ledger::read_only(self)
    }

    fn location(&self) -> String {
        Ledger::location(self)
    }

    fn is_mirror(&self) -> bool {
        Ledger::is_mirror(self)
    }

    fn held(&self) -> Option<Held> {
        Ledger::held(self)
    }
}
