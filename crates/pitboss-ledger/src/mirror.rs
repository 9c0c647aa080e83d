//! A regulator's mirror's ledger (`pitboss mirror`): a copy of another server's log in a RocksDB
//! directory of its own, grown only by entries that verify — each the log's own stored bytes,
//! checked as `pitboss verify` checks them (place, bytes, link, key trust, the signature sealing
//! each run), in order, from the copy's end. Its server is read-only: every append, rotation and
//! signature is refused, and its checkpoints are the log's own (held by the caller).
//!
//! Owns the mirror's thread and its writes: each sealed run of entries with its stream positions,
//! stream heads, key records and the caller's index entries, in one synced RocksDB batch. It MUST
//! NOT write an entry before the signature sealing it has checked, MUST NOT write anything but
//! the log's bytes as received, and MUST NOT go on after an entry that does not verify (the copy
//! stops there; the caller keeps the evidence). A directory is a mirror by its `MIRROR` file, and
//! `integrity/` refuses to serve it as a log of its own.

use std::path::Path;
use std::sync::{mpsc, Arc};

use tokio::sync::oneshot;

use ed25519_dalek::VerifyingKey;

use super::checkpoint::{key_hash, Checkpoint};
use super::entry::Entry;
use super::seam::{cf, index_key, stream_key, Batch, LogStore};
use super::store::{OpenOptions, Store, WalRecovery, FORMAT_KEY, FORMAT_VERSION};
use super::verify::{Growing, PayloadCheck, Problem, ProblemKind};
use super::writer::{refuse_all, Job};
use super::{Ledger, LedgerError, OpenError};
use crate::proto::LedgerKind as Kind;

/// The file that makes a directory a mirror's (it names the log it copies).
pub const MIRROR_FILE: &str = "MIRROR";

/// The longest stored entry a mirror takes: twice the longest any release wrote (a configuration's
/// 64 KiB of JSON and its envelope), so that the entries it holds for their seal (fewer than
/// [`super::SEAL_RUN`]) stay bounded whatever the log's server sends.
pub const MAX_MIRRORED: usize = 128 * 1024;

/// The file of the newest checkpoint of the log a mirror holds (the log's note, as received).
pub const HELD_FILE: &str = "checkpoint";

/// The longest checkpoint note a mirror holds (a note with many cosignatures is a few KiB): less
/// than a tile directory's checkpoint may be, so that the mirror's own cosignature line fits.
pub const MAX_HELD_NOTE: usize = 60 * 1024;

/// A checkpoint of the log that a mirror holds: signed by a key the log established, of a tree
/// the copy holds, whose root is the copy's at that size. What the mirror answers as the log's
/// checkpoint (it signs none of its own).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Held {
    /// The note as the log's server sent it (with any cosignatures).
    pub note: String,
    /// The note's checkpoint.
    pub checkpoint: Checkpoint,
    /// The log's key that signed it.
    pub key: VerifyingKey,
}

/// Why a checkpoint is not held.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HoldError {
    #[error("the checkpoint does not read: {0}")]
    Malformed(String),
    #[error("the checkpoint is of log {given}, this copy of {held}")]
    OtherLog { held: String, given: String },
    #[error("the checkpoint is not signed by a key the log established")]
    Unsigned,
    #[error("the checkpoint is of {size} entries; the copy holds {held}")]
    Beyond { size: u64, held: u64 },
    /// The log signed another tree than the one the copy holds at that size: a fork (or a
    /// rewritten history). The caller keeps the evidence.
    #[error("the log signed root {theirs} for {size} entries; the entries it sent give {ours}: the log forked")]
    Fork {
        size: u64,
        ours: String,
        theirs: String,
    },
}

pub use super::writer::{MirrorState, Mirrored};

/// The mirror's thread: the copy, its verification state, and the entries held for their seal.
struct Copier {
    store: Arc<Store>,
    growing: Growing,
    held: Vec<Mirrored>,
    head: tokio::sync::watch::Sender<u64>,
    /// Why the copy takes nothing more: the first entry that did not verify, or a write that
    /// failed (its verification state is then ahead of the store: a restart verifies again).
    failed: Option<LedgerError>,
}

impl Copier {
    fn run(mut self, jobs: mpsc::Receiver<Job>) {
        while let Ok(job) = jobs.recv() {
            match job {
                Job::Mirror(entries, reply) => {
                    let _ = reply.send(self.offer(entries));
                }
                Job::Sign(_, reply) => {
                    let _ = reply.send(Err(LedgerError::NoSigningKey));
                }
                other => refuse_all(vec![other], &LedgerError::ReadOnly),
            }
        }
    }

    /// Verifies `entries` in order; writes each run whose seal checked.
    fn offer(&mut self, entries: Vec<Mirrored>) -> Result<MirrorState, LedgerError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        let result = self.verify_and_write(entries);
        if let Err(error) = &result {
            self.failed = Some(error.clone());
        }
        result
    }

    fn verify_and_write(&mut self, entries: Vec<Mirrored>) -> Result<MirrorState, LedgerError> {
        // Offered again from the copy's end (the follower reconnected): the entries held for their
        // seal are forgotten, and come again.
        if !self.held.is_empty() && entries.first().map(|e| e.sequence) == Some(*self.head.borrow())
        {
            self.held.clear();
            self.growing.rewind();
        }
        let mut batch = Batch::default();
        let mut sealed = 0u64;
        for entry in entries {
            if entry.stored.len() > MAX_MIRRORED {
                self.commit(&batch, sealed)?;
                return Err(LedgerError::NotTheLog(Problem {
                    sequence: entry.sequence,
                    kind: ProblemKind::Undecodable(format!(
                        "{} bytes stored, more than any log entry ({MAX_MIRRORED})",
                        entry.stored.len()
                    )),
                }));
            }
            match self.growing.push(entry.sequence, &entry.stored) {
                Ok(0) => self.held.push(entry),
                Ok(_) => {
                    self.held.push(entry);
                    for held in std::mem::take(&mut self.held) {
                        stage(&mut batch, held)?;
                        sealed += 1;
                    }
                }
                Err(problem) => {
                    // What sealed before the bad entry is the log's: keep it.
                    self.commit(&batch, sealed)?;
                    return Err(LedgerError::NotTheLog(problem));
                }
            }
        }
        self.commit(&batch, sealed)?;
        Ok(MirrorState {
            size: *self.head.borrow(),
            held: self.held.len() as u64,
        })
    }

    fn commit(&self, batch: &Batch, sealed: u64) -> Result<(), LedgerError> {
        if sealed == 0 {
            return Ok(());
        }
        self.store.write(batch, true)?;
        self.head.send_modify(|size| *size += sealed);
        Ok(())
    }
}

/// The writes of one verified entry: the entry, its stream position and head, the keys it
/// establishes, and its index entries (each pointing at its sequence).
fn stage(batch: &mut Batch, mirrored: Mirrored) -> Result<(), LedgerError> {
    let corrupt = |problem: String| LedgerError::Corrupt {
        sequence: mirrored.sequence,
        problem,
    };
    let entry = Entry::decode(&mirrored.stored).map_err(|e| corrupt(e.to_string()))?;
    let envelope = &entry.envelope;
    let sequence = mirrored.sequence.to_be_bytes();
    batch.put(cf::EVENTS, sequence, mirrored.stored.clone());
    batch.put(
        cf::STREAMS,
        stream_key(&envelope.stream, envelope.stream_position),
        sequence,
    );
    batch.put(
        cf::HEADS,
        envelope.stream.as_bytes(),
        (envelope.stream_position + 1).to_be_bytes(),
    );
    match entry.ledger_payload().map(|p| p.kind) {
        Ok(Some(Kind::KeyPublished(k))) => {
            batch.put(cf::KEYS, k.key_id, k.public_key);
        }
        Ok(Some(Kind::KeyRotated(r))) => {
            batch.put(cf::KEYS, r.new_key_id, r.new_public_key);
        }
        _ => {}
    }
    for (name, key) in &mirrored.indexes {
        batch.put(cf::INDEXES, index_key(name, key), sequence);
    }
    Ok(())
}

impl Ledger {
    /// Opens (or begins, in an empty directory) the mirror copy in `dir`: verifies every entry it
    /// holds, then takes entries only through [`Ledger::mirror`]. `origin` names the log copied,
    /// written to the `MIRROR` file of a new copy and required of an existing one.
    pub fn open_mirror(
        dir: &Path,
        origin: &str,
        payloads: Option<PayloadCheck>,
    ) -> Result<Ledger, OpenError> {
        let marker = dir.join(MIRROR_FILE);
        let store_err = |e| OpenError::Ledger(LedgerError::Store(super::Shared::new(e)));
        let io = |e: std::io::Error| {
            OpenError::Ledger(LedgerError::MirrorFile {
                path: marker.clone(),
                detail: e.to_string(),
            })
        };
        match std::fs::read_to_string(&marker) {
            Ok(text) if text.trim() == origin => {}
            Ok(text) => {
                return Err(OpenError::Ledger(LedgerError::MirrorOfAnotherLog {
                    held: text.trim().chars().take(200).collect(),
                    given: origin.to_string(),
                }))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if super::store::has_database(dir) {
                    return Err(OpenError::Ledger(LedgerError::MirrorOfAnotherLog {
                        held: "a log of its own (a data directory, not a mirror)".into(),
                        given: origin.to_string(),
                    }));
                }
                std::fs::create_dir_all(dir).map_err(io)?;
                super::files::replace(&marker, format!("{origin}\n").as_bytes()).map_err(io)?;
            }
            Err(e) => return Err(io(e)),
        }
        let how = OpenOptions {
            write: true,
            create: true,
            wal: WalRecovery::Strict,
        };
        let store = Arc::new(Store::open_with(dir, how).map_err(store_err)?);
        if store
            .get(cf::META, FORMAT_KEY)
            .map_err(store_err)?
            .is_none()
        {
            let mut batch = Batch::default();
            batch.put(cf::META, FORMAT_KEY, FORMAT_VERSION.to_be_bytes().to_vec());
            store.write(&batch, true).map_err(store_err)?;
        }
        let growing = Growing::resume(store.as_ref(), payloads)
            .map_err(|problem| OpenError::Ledger(LedgerError::NotTheLog(problem)))?;
        let held_note = std::fs::read(dir.join(HELD_FILE)).ok();
        let (head_tx, head) = tokio::sync::watch::channel(growing.expected);
        let copier = Copier {
            store: store.clone(),
            growing,
            held: Vec::new(),
            head: head_tx,
            failed: None,
        };
        let mut ledger = Ledger::with_thread(
            store,
            None,
            head,
            Arc::new(super::stats::WriterStats::default()),
            "ledger-mirror",
            move |jobs| copier.run(jobs),
        )?;
        ledger.payloads = payloads;
        ledger.mirror = true;
        // The checkpoint held before the last stop, checked again against the copy.
        if let Some(note) = held_note.and_then(|n| String::from_utf8(n).ok()) {
            if let Err(e) = ledger.hold_checkpoint(&note) {
                tracing::warn!(error = %e, "the checkpoint held before is not held again");
            }
        }
        Ok(ledger)
    }

    /// Offers the next entries of the log, in order from the copy's end (entries already held are
    /// not offered again): each verified run is durable when this returns.
    pub async fn mirror(&self, entries: Vec<Mirrored>) -> Result<MirrorState, LedgerError> {
        let (reply, answer) = oneshot::channel();
        self.send(Job::Mirror(entries, reply))?;
        answer.await.map_err(|_| LedgerError::Stopped)?
    }

    /// Whether this ledger is a mirror's copy ([`Ledger::open_mirror`]).
    pub fn is_mirror(&self) -> bool {
        self.mirror
    }

    /// Checks `note` against the copy and holds it as the log's newest checkpoint (kept in the
    /// directory's `checkpoint` file, replaced atomically, for the next start). An older tree than
    /// the one held is checked but not held.
    pub fn hold_checkpoint(&self, note: &str) -> Result<Held, HoldError> {
        let held = self.check_held(note)?;
        let mut current = self.held.lock().unwrap_or_else(|p| p.into_inner());
        if current
            .as_ref()
            .is_some_and(|c| c.checkpoint.size > held.checkpoint.size)
        {
            return Ok(held);
        }
        if let Some(store) = self.rocks() {
            let path = store.path().join(HELD_FILE);
            if let Err(e) = super::files::replace(&path, note.as_bytes()) {
                // Held in memory still; the next start takes the file's older note, or the log's.
                tracing::warn!(path = %path.display(), error = %e, "the held checkpoint was not saved");
            }
        }
        *current = Some(held.clone());
        Ok(held)
    }

    /// The log's newest checkpoint the mirror holds, if any.
    pub fn held(&self) -> Option<Held> {
        self.held.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// `note` as a checkpoint of this copy: its origin, its signature by an established key, its
    /// size within the copy, and its root the copy's.
    fn check_held(&self, note: &str) -> Result<Held, HoldError> {
        if note.len() > MAX_HELD_NOTE {
            return Err(HoldError::Malformed("longer than 60 KiB".into()));
        }
        let checkpoint =
            Checkpoint::parse(note).map_err(|e| HoldError::Malformed(e.to_string()))?;
        if !checkpoint.extensions.is_empty() {
            return Err(HoldError::Malformed(
                "a checkpoint with extension lines".into(),
            ));
        }
        let origin = self
            .origin()
            .map_err(|e| HoldError::Malformed(e.to_string()))?;
        if checkpoint.origin != origin {
            return Err(HoldError::OtherLog {
                held: origin,
                given: checkpoint.origin,
            });
        }
        let key = self
            .known_keys()
            .map_err(|e| HoldError::Malformed(e.to_string()))?
            .into_iter()
            .filter_map(|(_, public)| {
                VerifyingKey::from_bytes(&public.as_slice().try_into().ok()?).ok()
            })
            .find(|key| key_hash(&origin, key) == checkpoint.key_hash)
            .filter(|key| checkpoint.verify(key).is_ok())
            .ok_or(HoldError::Unsigned)?;
        let size = self.size();
        if checkpoint.size > size {
            return Err(HoldError::Beyond {
                size: checkpoint.size,
                held: size,
            });
        }
        let ours = self
            .tree_root(checkpoint.size)
            .map_err(|e| HoldError::Malformed(e.to_string()))?;
        if ours != checkpoint.root {
            return Err(HoldError::Fork {
                size: checkpoint.size,
                ours: hex::encode(ours),
                theirs: hex::encode(checkpoint.root),
            });
        }
        Ok(Held {
            note: note.to_string(),
            checkpoint,
            key,
        })
    }

    /// A mirror's checkpoint of `size` entries: the held one, which is the log's; a mirror signs
    /// nothing, so no other size and no extension line.
    pub(crate) fn held_checkpoint(
        &self,
        size: Option<u64>,
        extensions: &[String],
    ) -> Result<(Checkpoint, VerifyingKey), LedgerError> {
        let held = self.held();
        match held {
            Some(held)
                if extensions.is_empty() && size.is_none_or(|s| s == held.checkpoint.size) =>
            {
                Ok((held.checkpoint, held.key))
            }
            held => Err(LedgerError::MirrorSignsNothing {
                held: held.map(|h| h.checkpoint.size),
            }),
        }
    }
}
