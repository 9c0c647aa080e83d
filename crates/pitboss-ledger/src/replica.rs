//! The thread of a read-only ledger (`serve --read-only`: a regulator's server on a streaming
//! replica of a PostgreSQL log). It follows the head row as the log grows elsewhere, refuses every
//! write with [`LedgerError::ReadOnly`], and signs checkpoints when the server holds a copy of the
//! log's current key file. Also the thread of a data directory opened only to read
//! (`Ledger::open_read_only`: an executable the settings do not approve), which refuses every
//! job (`refuse_writes`).
//!
//! Owns only the follower's state; MUST NOT write to the database (its connections are read-only
//! as well, `PgStore::connect_reading`) and MUST NOT sign with a key other than the one that
//! signed the log's last entry (a key rotated away by a writing server is not used).

use std::sync::{mpsc, Arc};
use std::time::Instant;

use super::entry::Entry;
use super::keys::{KeyId, Keypair};
use super::pg::PgStore;
use super::store::LogStore;
use super::writer::{refuse_all, Job, SignedBy, HEAD_POLL};
use super::LedgerError;

/// What a read-only ledger's thread holds.
pub(super) struct Follower {
    pg: Arc<PgStore>,
    /// A copy of the log's key file, if the server was given one: checkpoints are signed with it.
    key: Option<Keypair>,
    /// The log's size as last read from the head row (what the ledger's `size()` answers).
    head: tokio::sync::watch::Sender<u64>,
    /// Whether the last read of the head row failed (said once in the log, not at every poll).
    unreachable: std::cell::Cell<bool>,
}

impl Follower {
    pub(super) fn new(
        pg: Arc<PgStore>,
        key: Option<Keypair>,
        head: tokio::sync::watch::Sender<u64>,
    ) -> Follower {
        Follower {
            pg,
            key,
            head,
            unreachable: std::cell::Cell::new(false),
        }
    }

    /// Answers jobs until the ledger closes, reading the head row whenever `HEAD_POLL` passed.
    pub(super) fn run(self, jobs: mpsc::Receiver<Job>) {
        let mut followed = Instant::now();
        loop {
            match jobs.recv_timeout(HEAD_POLL) {
                Ok(job) => self.answer(job),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            if followed.elapsed() >= HEAD_POLL {
                self.follow();
                followed = Instant::now();
            }
        }
    }

    /// Moves the size forward to the head row's (a replica only ever grows). A database that
    /// cannot be read now is read again at the next poll; the server's log says when it stops
    /// and starts answering (meanwhile the size stands still and reads fail UNAVAILABLE).
    fn follow(&self) {
        match self.pg.head_row() {
            Ok(Some((size, _))) => {
                if self.unreachable.replace(false) {
                    tracing::info!(database = %self.pg.describe(), size, "the log is read again");
                }
                self.head.send_if_modified(|head| {
                    let moved = size > *head;
                    *head = (*head).max(size);
                    moved
                });
            }
            Ok(None) => {}
            Err(e) => {
                if !self.unreachable.replace(true) {
                    tracing::warn!(error = %e, "the log's head row cannot be read; following it again at the next poll");
                }
            }
        }
    }

    fn answer(&self, job: Job) {
        match job {
            Job::Sign(message, reply) => {
                let _ = reply.send(self.sign(&message));
            }
            other => refuse_all(vec![other], &LedgerError::ReadOnly),
        }
    }

    /// Signs with the key file if it is the key that signed the log's last entry.
    fn sign(&self, message: &[u8]) -> Result<SignedBy, LedgerError> {
        let key = self.key.as_ref().ok_or(LedgerError::NoSigningKey)?;
        let current = match self.pg.last_entry()? {
            None => None,
            Some((sequence, bytes)) => {
                let entry = Entry::decode(&bytes).map_err(|e| LedgerError::Corrupt {
                    sequence,
                    problem: e.to_string(),
                })?;
                KeyId::from_slice(&entry.envelope.key_id)
            }
        };
        if current != Some(key.id()) {
            return Err(LedgerError::KeyRotatedElsewhere {
                log: current.map_or_else(|| "unknown".to_string(), |id| id.to_string()),
                ours: key.id(),
            });
        }
        Ok((key.public(), key.sign_message(message)))
    }
}

/// The thread of a ledger opened read-only with no key and nothing to follow (a data directory
/// served read-only): every job refused until the ledger closes; `head` (whose size never moves)
/// is held until then.
pub(super) fn refuse_writes(jobs: mpsc::Receiver<Job>, head: tokio::sync::watch::Sender<u64>) {
    let _held = head;
    while let Ok(job) = jobs.recv() {
        match job {
            Job::Sign(_, reply) => {
                let _ = reply.send(Err(LedgerError::NoSigningKey));
            }
            other => refuse_all(vec![other], &LedgerError::ReadOnly),
        }
    }
}
