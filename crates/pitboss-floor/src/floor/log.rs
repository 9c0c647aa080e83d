//! The floor's door to the log for everything above it (the audit, the service, the CLI): the
//! reads, proofs, checkpoints and verification they serve, the key's rotation, and the ledger's
//! state. Nothing above the floor holds the `Ledger` (`tests/layers.rs` fails if a reach-around
//! comes back), so what the log offers outward is listed here, once.
//!
//! Owns no decision of its own beyond naming: each method is the ledger's, under the floor's name
//! for it; a hand's stream is read only through [`hand_stream`], never rebuilt from text.

use ed25519_dalek::VerifyingKey;
use pitboss_ledger::checkpoint::Checkpoint;
use pitboss_ledger::mirror::{Held, HoldError, MirrorState, Mirrored};
use pitboss_ledger::stats::WriterStats;
use pitboss_ledger::{Entry, Hash, InclusionProof, KeyId, LedgerError, VerifyReport};

use super::{hand_stream, index, proposals, Floor, FloorError};

/// How many entries one part of [`Floor::verify_in_parts`] walks: a caller who goes away stops the
/// work within one part.
const VERIFY_PART: u64 = 100_000;

/// A verification stopped between two parts because its caller went away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifyStopped;

impl Floor {
    /// The entry at `sequence`, if the log holds it.
    pub fn entry(&self, sequence: u64) -> Result<Option<Entry>, LedgerError> {
        self.ledger.entry(sequence)
    }

    /// The stored records of entries `from .. from + count`, byte for byte (tiles, mirrors).
    pub fn stored_entries(
        &self,
        from: u64,
        count: u64,
    ) -> Result<Vec<(u64, Vec<u8>)>, LedgerError> {
        self.ledger.stored_entries(from, count)
    }

    /// Offers the next entries of another server's log to this mirror's copy, each with the index
    /// entries the floor writes with it (`index::of_entry`): each verified run is durable when
    /// this returns; an entry that does not verify stops the copy (`LedgerError::NotTheLog`).
    pub async fn mirror(&self, records: Vec<(u64, Vec<u8>)>) -> Result<MirrorState, LedgerError> {
        let offered = records
            .into_iter()
            .map(|(sequence, stored)| Mirrored {
                indexes: Entry::decode(&stored)
                    .map(|entry| indexes_of(&entry))
                    .unwrap_or_default(),
                sequence,
                stored,
            })
            .collect();
        self.ledger.mirror(offered).await
    }

    /// Whether this floor serves a mirror's copy of another server's log.
    pub fn is_mirror(&self) -> bool {
        self.ledger.is_mirror()
    }

    /// Holds `note`, a checkpoint of the log this mirror copies, once it checks against the copy.
    pub fn hold_checkpoint(&self, note: &str) -> Result<Held, HoldError> {
        self.ledger.hold_checkpoint(note)
    }

    /// The log's newest checkpoint this mirror holds.
    pub fn held_checkpoint(&self) -> Option<Held> {
        self.ledger.held()
    }

    /// The log's last entry: its sequence and hash (`None` for an empty log).
    pub fn head(&self) -> Result<Option<(u64, Hash)>, LedgerError> {
        self.ledger.head()
    }

    /// Watches the next sequence number: it changes after every durable append.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.ledger.subscribe()
    }

    /// Entries durable and acknowledged (the metrics' gauge; no read of the store).
    pub fn log_size(&self) -> u64 {
        self.ledger.size()
    }

    /// The Merkle tree's size now: the log's entries, read from the store.
    pub fn tree_size(&self) -> Result<u64, LedgerError> {
        self.ledger.tree_size()
    }

    /// A checkpoint of the first `size` entries (all of them now, if `None`), signed by the
    /// current key, and that key. Blocks: call it from blocking work.
    pub fn checkpoint(&self, size: Option<u64>) -> Result<(Checkpoint, VerifyingKey), LedgerError> {
        self.ledger.checkpoint_blocking(size)
    }

    /// [`Floor::checkpoint`] of `size` entries carrying `extensions` (signed with the body).
    pub fn checkpoint_with(
        &self,
        size: u64,
        extensions: Vec<String>,
    ) -> Result<(Checkpoint, VerifyingKey), LedgerError> {
        self.ledger.checkpoint_with(size, extensions)
    }

    /// The audit path of entry `sequence` in the tree of `size` entries.
    pub fn inclusion_proof(&self, sequence: u64, size: u64) -> Result<InclusionProof, LedgerError> {
        self.ledger.inclusion_proof(sequence, size)
    }

    /// The Merkle root of the first `size` entries.
    pub fn tree_root(&self, size: u64) -> Result<Hash, LedgerError> {
        self.ledger.tree_root(size)
    }

    /// The proof that the tree of `first` entries is a prefix of the tree of `second`.
    pub fn consistency_proof(&self, first: u64, second: u64) -> Result<Vec<Hash>, LedgerError> {
        self.ledger.consistency_proof(first, second)
    }

    /// Every key the log established: (id, public key) as stored.
    pub fn known_keys(&self) -> Result<Vec<pitboss_ledger::store::KeyValue>, LedgerError> {
        self.ledger.known_keys()
    }

    /// Every entry of hand `hand_id`'s stream, in order (empty if the log has none): for the audit,
    /// which reports a hand the log does not hold as its own finding.
    pub fn hand_stream_entries(&self, hand_id: &str) -> Result<Vec<Entry>, LedgerError> {
        self.ledger.read_stream(&hand_stream(hand_id), 0)
    }

    /// Verifies entries `from..=to` (to the end, if `None`), held to the server's payload schema.
    pub fn verify_range(&self, from: u64, to: Option<u64>) -> VerifyReport {
        self.ledger.verify_range(from, to)
    }

    /// [`Floor::verify_range`] from `from` to `to` inclusive, in parts of 100 000 entries, asking
    /// `stopped` between parts; the parts' reports merged into one.
    pub fn verify_in_parts(
        &self,
        from: u64,
        to: u64,
        stopped: impl Fn() -> bool,
    ) -> Result<VerifyReport, VerifyStopped> {
        let mut report = VerifyReport {
            verified: 0,
            head: None,
            problem: None,
        };
        let mut start = from;
        loop {
            let end = start.saturating_add(VERIFY_PART - 1).min(to);
            let part = self.ledger.verify_range(start, Some(end));
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
    pub fn writer_stats(&self) -> &WriterStats {
        self.ledger.stats()
    }

    /// The id of the key signing new entries.
    pub fn signing_key_id(&self) -> Option<KeyId> {
        self.ledger.key_id()
    }

    /// Rotates the signing key, recorded as done by `actor`: the old key's id, the new key's id and
    /// its public key. `expected`, when given, must be the key in use (else nothing changes).
    pub async fn rotate_key(
        &self,
        expected: Option<&str>,
        actor: &str,
    ) -> Result<(KeyId, KeyId, [u8; 32]), FloorError> {
        let old = self.ledger.key_id().ok_or(FloorError::NoSigningKey)?;
        if let Some(expected) = expected.filter(|e| *e != old.to_string()) {
            return Err(FloorError::KeyChanged {
                expected: expected.to_string(),
                in_use: old.to_string(),
            });
        }
        let new = self.ledger.rotate_key(self.now(), actor).await?;
        let public = self
            .ledger
            .public_key(new)?
            .and_then(|bytes| <[u8; 32]>::try_from(bytes.as_slice()).ok())
            .ok_or_else(|| {
                FloorError::Corrupt(
                    format!("key {new}"),
                    "its public key is not in the log".into(),
                )
            })?;
        Ok((old, new, public))
    }

    /// True when this server only reads a log another server writes.
    pub fn read_only(&self) -> bool {
        self.ledger.read_only()
    }

    /// Where the log is, for people (a directory, or a database without its password).
    pub fn log_location(&self) -> String {
        self.ledger.location()
    }

    /// Completes when the ledger's writer has stopped: nothing more can be recorded.
    pub async fn log_stopped(&self) {
        self.ledger.stopped().await
    }

    /// Closes the log once every call has drained: the writer finishes what it holds.
    pub fn close_log(&self) {
        self.ledger.close()
    }

    /// Builds the Merkle tree's block roots now (at start, so the first checkpoint is quick),
    /// counting entries in `progress`; the entries covered.
    pub fn warm_tree(&self, progress: &std::sync::atomic::AtomicU64) -> Result<u64, LedgerError> {
        self.ledger.warm_tree(progress)
    }

    /// Makes the ledger's writer panic: for the tests of what a dead writer means to a server.
    #[cfg(any(test, feature = "testing"))]
    pub fn crash_writer(&self) {
        self.ledger.crash_writer()
    }
}

/// The index entries the floor writes with `entry`, derived from the entry alone: what a mirror's
/// copy (`Floor::mirror`) writes so that its recall answers as the log's own server does. The
/// index of open hands is left out: it serves only the sweep, which a read-only server never runs.
fn indexes_of(entry: &pitboss_ledger::Entry) -> Vec<(String, Vec<u8>)> {
    use crate::codec::EntryPayload;
    use crate::proto::payload::Kind;
    let Ok(payload) = entry.payload() else {
        return Vec::new();
    };
    match payload.kind {
        Some(Kind::HandOpened(opened)) => match super::hand_of_stream(&entry.envelope.stream) {
            Some(hand_id) if entry.envelope.stream_position == 0 => {
                let mut entries =
                    index::for_opened_hand(hand_id, &opened.table, &opened.player, opened.at_ms);
                entries.retain(|(name, _)| name != index::OPEN);
                entries
            }
            _ => Vec::new(),
        },
        Some(Kind::ConfigPublished(published)) => {
            vec![(index::CONFIG.to_string(), published.config_id)]
        }
        Some(Kind::ProposalRecorded(recorded)) => {
            vec![proposals::index_entry(
                &recorded.proposal_id,
                recorded.at_ms,
            )]
        }
        _ => Vec::new(),
    }
}
