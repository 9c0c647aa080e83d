//! The ledger: every event an Ed25519-signed, SHA-256-chained entry in RocksDB, durable before it
//! is acknowledged, and verifiable by anyone with the data files and a public key
//! (`docs/log-format.md`). It knows no game rule: it stores encoded payloads in named streams.
//!
//! - `entry`: the envelope's bytes, hash and signature.
//! - `keys`: the signing key file, key ids, rotation signatures.
//! - `store`: the RocksDB column families and reads.
//! - `writer`: the single writer with group commit.
//! - `verify`: walking the log and naming the first bad entry.

pub mod checkpoint;
pub mod entry;
pub mod keys;
pub mod merkle;
mod proofs;
pub mod store;
pub mod verify;
pub mod writer;

use std::path::Path;
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;

use prost::Message;
use tokio::sync::oneshot;

pub use entry::{Entry, Hash};
pub use keys::KeyId;
pub use proofs::InclusionProof;
pub use store::{Store, StoreError};
pub use verify::{verify, Problem, ProblemKind, VerifyReport};
pub use writer::AppendRequest;

use crate::proto;

/// The version a stream must have for an append to go ahead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// Whatever it is.
    Any,
    /// Exactly this many entries (0: the stream must not exist yet).
    Version(u64),
}

/// An append's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Appended {
    /// The first entry's global sequence number.
    pub first_sequence: u64,
    /// How many entries.
    pub count: u64,
    /// The stream's version after the append.
    pub stream_version: u64,
    /// True when this is a retry of an earlier request id: nothing was written now.
    pub duplicate: bool,
}

/// Why an append or read failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LedgerError {
    #[error("stream {stream} is at version {actual}, not the expected {expected}")]
    VersionConflict {
        stream: String,
        expected: u64,
        actual: u64,
    },
    #[error("an append needs at least one entry")]
    Empty,
    #[error("`{0}` is not a stream name")]
    BadStream(String),
    #[error("storage failed: {0}")]
    Storage(String),
    #[error("entry {sequence} is damaged: {problem}")]
    Corrupt { sequence: u64, problem: String },
    #[error("signing key: {0}")]
    Key(String),
    #[error("the ledger's writer has stopped")]
    Stopped,
    #[error("a tree of {asked} entries was asked for; the log holds {size}")]
    TreeSize { asked: u64, size: u64 },
}

impl From<StoreError> for LedgerError {
    fn from(e: StoreError) -> LedgerError {
        LedgerError::Storage(e.to_string())
    }
}

/// The open ledger. Cheap to share behind an `Arc`; appends from many tasks are grouped.
pub struct Ledger {
    store: Arc<Store>,
    jobs: Mutex<Option<mpsc::Sender<writer::Job>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
    key_id: Mutex<KeyId>,
    head: tokio::sync::watch::Receiver<u64>,
    /// Roots of complete blocks of the Merkle tree, filled as proofs need them.
    merkle: Mutex<merkle::MerkleCache>,
}

impl Ledger {
    /// Opens (or creates) the ledger in `dir`: the store, the signing key (created on first start,
    /// published as an entry), and the chain head (the last durable entry, after a crash too).
    pub fn open(dir: &Path, now_ms: u64) -> Result<Ledger, LedgerError> {
        let store = Arc::new(Store::open(dir)?);
        writer::recover_rotation(&store)?;
        let (key, _) =
            keys::Keypair::load_or_create(dir).map_err(|e| LedgerError::Key(e.to_string()))?;
        let (next_sequence, last_hash) = writer::load_head(&store)?;
        let known = store.get(store::cf::KEYS, &key.id().0)?.is_some();
        let mut w = writer::Writer::new(store.clone(), key, next_sequence, last_hash);
        let key_id = w.key_id();
        if !known {
            // Publish the key before anything else is written, on this thread (no runtime needed).
            let (reply, mut answer) = oneshot::channel();
            w.commit(vec![writer::Job::PublishKey(now_ms, reply)]);
            answer.try_recv().map_err(|_| LedgerError::Stopped)??;
        }
        let head = w.subscribe();
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("ledger-writer".into())
            .spawn(move || w.run(rx))
            .map_err(|e| LedgerError::Storage(format!("cannot start the writer: {e}")))?;
        let ledger = Ledger {
            store,
            jobs: Mutex::new(Some(tx)),
            thread: Mutex::new(Some(thread)),
            key_id: Mutex::new(key_id),
            head,
            merkle: Mutex::new(merkle::MerkleCache::default()),
        };
        Ok(ledger)
    }

    fn send(&self, job: writer::Job) -> Result<(), LedgerError> {
        let guard = self.jobs.lock().map_err(|_| LedgerError::Stopped)?;
        guard
            .as_ref()
            .ok_or(LedgerError::Stopped)?
            .send(job)
            .map_err(|_| LedgerError::Stopped)
    }

    /// Appends, returning once the entries are durable (or refused).
    pub async fn append(&self, request: AppendRequest) -> Result<Appended, LedgerError> {
        let (reply, answer) = oneshot::channel();
        self.send(writer::Job::Append(request, reply))?;
        answer.await.map_err(|_| LedgerError::Stopped)?
    }

    /// [`Ledger::append`] for callers outside an async runtime.
    pub fn append_blocking(&self, request: AppendRequest) -> Result<Appended, LedgerError> {
        let (reply, answer) = oneshot::channel();
        self.send(writer::Job::Append(request, reply))?;
        answer.blocking_recv().map_err(|_| LedgerError::Stopped)?
    }

    /// Rotates the signing key: a new key, recorded by an entry signed by the new key and carrying
    /// the old key's signature over it. Later entries are signed by the new key; older ones still
    /// verify with the old public key, which the log keeps.
    pub fn rotate_key_blocking(&self, now_ms: u64) -> Result<KeyId, LedgerError> {
        let (reply, answer) = oneshot::channel();
        self.send(writer::Job::Rotate(now_ms, reply))?;
        let id = answer.blocking_recv().map_err(|_| LedgerError::Stopped)??;
        if let Ok(mut key_id) = self.key_id.lock() {
            *key_id = id;
        }
        Ok(id)
    }

    /// Watches the next sequence number: it changes after every durable append.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.head.clone()
    }

    /// The id of the key signing new entries.
    pub fn key_id(&self) -> Option<KeyId> {
        self.key_id.lock().ok().map(|k| *k)
    }

    /// The store, for reads.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The entries of a stream, from `position` on.
    pub fn read_stream(&self, stream: &str, position: u64) -> Result<Vec<Entry>, LedgerError> {
        self.store
            .stream_sequences(stream, position)?
            .into_iter()
            .map(|seq| {
                self.entry(seq)?.ok_or(LedgerError::Corrupt {
                    sequence: seq,
                    problem: "indexed but missing".into(),
                })
            })
            .collect()
    }

    /// One entry by sequence number.
    pub fn entry(&self, sequence: u64) -> Result<Option<Entry>, LedgerError> {
        match self.store.get(store::cf::EVENTS, &sequence.to_be_bytes())? {
            None => Ok(None),
            Some(bytes) => Entry::decode(&bytes)
                .map(Some)
                .map_err(|e| LedgerError::Corrupt {
                    sequence,
                    problem: e.to_string(),
                }),
        }
    }

    /// The chain head: the last entry's sequence and hash.
    pub fn head(&self) -> Result<Option<(u64, Hash)>, LedgerError> {
        match writer::load_head(&self.store)? {
            (0, _) => Ok(None),
            (next, hash) => Ok(Some((next - 1, hash))),
        }
    }

    /// Verifies the whole log.
    pub fn verify(&self) -> VerifyReport {
        verify(&self.store, 0, None)
    }

    /// Stops the writer after the jobs already sent.
    pub fn close(&self) {
        if let Ok(mut jobs) = self.jobs.lock() {
            jobs.take();
        }
        if let Ok(mut thread) = self.thread.lock() {
            if let Some(handle) = thread.take() {
                let _ = handle.join();
            }
        }
    }
}

impl Drop for Ledger {
    fn drop(&mut self) {
        self.close();
    }
}

/// Encodes a payload for an append.
pub fn encode_payload(payload: &proto::Payload) -> Vec<u8> {
    payload.encode_to_vec()
}
