//! The ledger: every event a SHA-256-chained entry in RocksDB (or PostgreSQL, `pg/`), signed
//! with Ed25519 once per group written together, durable before it is acknowledged, and verifiable by anyone with the data files and a public key
//! (`docs/log-format.md`). It knows no game rule: it stores encoded payloads in named streams.
//!
//! - `entry`: the envelope's bytes, hash and signature.
//! - `keys`: the signing key file, key ids, rotation signatures.
//! - `seam`: what every storage engine keeps and answers — families, key layouts, the reads
//!   (`LogStore`), a group's writes (`Batch`) — and the MUST/MUST NOT of a commit and a read.
//! - `store`: RocksDB's side of it: the database, its options, its reads and synced writes.
//! - `writer`: the single writer with group commit, anchoring every acknowledged head.
//! - `requests`: request records (an id bound to a fingerprint of its request) for idempotent
//!   retries.
//! - `anchor`: the file recording the last acknowledged head, beside the database.
//! - `wal`: the write-ahead log files read independently, to name where they are damaged.
//! - `integrity`: the checks a data directory passes before it is served or called good.
//! - `recovery`: the explicit, recorded repair of a damaged directory.
//! - `verify`: walking the log and naming the first bad entry.
//! - `mirror`: a regulator's copy of another server's log, grown only by entries that verify.
//! - `pg`, `pg_open`: the log in PostgreSQL, several servers writing it; `copy`: verified copies
//!   between the engines; `replica`: a read-only server's ledger on a replica of that log.
//! - `tiles`: the log as C2SP tlog-tiles in a directory (hash tiles, entry bundles, records).
//! - `tamper` (feature `tamper`, tests only): writes around the writer, to damage a directory.
//!
//! # Contract
//!
//! The API is [`Ledger`]'s methods (and, offline, [`integrity`], [`recovery`] and a read-only
//! [`Store`]); column families and record layouts stay inside this crate. Both storage engines
//! ([`LogStore`]: RocksDB, PostgreSQL) keep the same promises:
//!
//! - [`Ledger::append`] MUST NOT return `Ok` before the entries, their stream positions, index
//!   keys, secrets and request record are durable together and the new head is recorded (RocksDB:
//!   the anchor file; PostgreSQL: the head row, in the same transaction); on
//!   `Err` nothing of the append is written. Sequence numbers are gapless, each entry's hash chains
//!   the one before, and a stream's entries are in its positions' order.
//! - An append with [`Expected::Version`] goes ahead only if the stream holds exactly that many
//!   entries. A request id is bound to its fingerprint: a retry is answered with the first result
//!   (`duplicate`), writes nothing, and another fingerprint is [`LedgerError::RequestReused`].
//! - Reads see every acknowledged append and never part of one. A read during an append sees the
//!   log before it.
//! - Payloads are opaque: the ledger decodes only its own kinds ([`proto::LedgerPayload`]); a
//!   caller that knows them may hold every payload to its schema ([`Ledger::open_checked`]).

pub mod anchor;
pub mod checkpoint;
pub mod copy;
pub mod entry;
pub mod files;
pub mod integrity;
pub mod keys;
pub mod merkle;
pub mod mirror;
pub mod pg;
mod pg_open;
mod proofs;
pub mod proto;
mod reader;
pub mod recovery;
mod replica;
mod requests;
mod seam;
pub mod stats;
pub mod store;
#[cfg(feature = "tamper")]
pub mod tamper;
pub mod tiles;
mod verify;
mod wal;
mod writer;

use std::path::Path;
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;

use tokio::sync::oneshot;

/// The storage engines that are one module each (RocksDB's is the directory's own modules,
/// PostgreSQL's `pg`): each a module with its `Ledger::open_…` and, for the seam's contract suite
/// (`contract.rs`), a `maker()` of a log to test. A new engine is its module and its name here.
macro_rules! engines {
    ($($engine:ident),*) => {
        $(pub mod $engine;)*
        #[cfg(test)]
        mod contract;
        /// Every such engine's maker, by name, for the contract suite.
        #[cfg(test)]
        fn engine_makers() -> Vec<(&'static str, contract::Maker)> {
            vec![$((stringify!($engine), $engine::maker())),*]
        }
    };
}
engines!(mem);

pub use entry::{Entry, Hash, SEAL_RUN};
pub use integrity::Refused;
pub use keys::KeyId;
pub use pg_open::PgRefusal;
pub use proofs::{root_from_store, InclusionProof};
pub use reader::{LogRead, VerifyStopped};
pub use requests::{reused_message, Fingerprint, RequestKey, RequestRecord};
pub use store::{LogStore, Store, StoreError};
pub use verify::{
    verify, walk, PayloadCheck, Problem, ProblemKind, Unsealed, VerifyReport, WalkOptions,
};
pub use writer::AppendRequest;

/// The actor of what the server and its tools do on their own (the default configurations, key
/// entries, a recorded repair): no principal asked for it.
pub const SERVER_ACTOR: &str = "pitboss";

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
    /// An entry offered to a mirror is not the log's next verified entry: the copy stops there.
    #[error("the log sent an entry that does not verify: {0}")]
    NotTheLog(Problem),
    /// A mirror's directory copies another log than the one it was asked to follow.
    #[error("this mirror's directory copies {held}, not {given}")]
    MirrorOfAnotherLog { held: String, given: String },
    /// A mirror's `MIRROR` file cannot be read or written.
    #[error("{}: {detail}", path.display())]
    MirrorFile {
        path: std::path::PathBuf,
        detail: String,
    },
    /// A mirror was asked for a checkpoint other than the log's own it holds.
    #[error(
        "a mirror signs nothing: it answers the log's own checkpoint it holds ({})",
        held.map_or_else(|| "none yet".to_string(), |size| format!("of {size} entries"))
    )]
    MirrorSignsNothing { held: Option<u64> },
    /// Entries were offered to a ledger that is not a mirror's.
    #[error("this ledger writes its own log: it takes no mirrored entries")]
    NotAMirror,
    /// An entry would be longer than a tile bundle frames (`tiles::MAX_RECORD`): not written.
    #[error(
        "an entry of stream {stream} would be {bytes} bytes stored; a log entry is at most {} \
         (it must fit a tile bundle)",
        tiles::MAX_RECORD
    )]
    EntryTooLarge { stream: String, bytes: usize },
    /// The store failed a read or a write; its error is kept.
    #[error("storage failed: {0}")]
    Store(#[source] Shared<StoreError>),
    /// The writer's thread could not be started.
    #[error("cannot start the writer: {0}")]
    StartWriter(#[source] Shared<std::io::Error>),
    /// A request id's stored record does not decode.
    #[error("request record `{id}` is damaged")]
    DamagedRequestRecord { id: String },
    /// An earlier group failed to be written, so this one (chained onto it) was not written.
    #[error("an earlier write failed; this group was not written")]
    EarlierWriteFailed,
    /// The anchor file could not be written: nothing more can be acknowledged.
    #[error(
        "the anchor {} cannot be written ({source}): nothing more can be acknowledged; the ledger \
         stopped (restart it: opening checks the log and anchors it)",
        path.display()
    )]
    Anchor {
        path: std::path::PathBuf,
        #[source]
        source: Shared<std::io::Error>,
    },
    /// The signer gave a group another number of signatures than entries (a bug): not written.
    #[error("{entries} entries but {signatures} signatures: the group is not written")]
    SignatureCount { entries: usize, signatures: usize },
    /// The ledger stopped earlier because its anchor could not be written.
    #[error("the ledger stopped: the anchor could not be written (restart it)")]
    AnchorStopped,
    #[error("entry {sequence} is damaged: {problem}")]
    Corrupt { sequence: u64, problem: String },
    /// Another server rotated the log's signing key: this one's key file is the old key.
    #[error(
        "the log's signing key is now {log} (rotated by another server); this server's key file \
         holds {ours}: copy the new key file here"
    )]
    KeyRotatedElsewhere {
        /// The key that signed the log's last entry (hex when it is not a key id at all).
        log: String,
        /// This server's key.
        ours: KeyId,
    },
    /// The log was begun by another key, which this server's key file is not.
    #[error(
        "the log already holds {entries} entries signed by another key: this server's key {ours} \
         is not one the log trusts (give every server the log's key file)"
    )]
    KeyNotTrusted {
        /// The entries the log holds.
        entries: u64,
        /// This server's key.
        ours: KeyId,
    },
    /// A rotation is in the log, but its files could not be finished; the next start finishes it.
    #[error(
        "the rotation is recorded in the log, but the key file could not be replaced ({}); the \
         next start finishes it from signing.key.next",
        .0.get()
    )]
    RotationUnfinished(#[source] Shared<keys::KeyError>),
    /// A read-only server without the log's key file was asked to sign (a checkpoint).
    #[error(
        "this read-only server holds no copy of the log's key file (signing.key in its data \
         directory), so it signs no checkpoint"
    )]
    NoSigningKey,
    /// The next signing key could not be made or written (a rotation).
    #[error("signing key: {}", .0.get())]
    KeyFile(#[source] Shared<keys::KeyError>),
    #[error("the ledger's writer has stopped")]
    Stopped,
    #[error("a tree of {asked} entries was asked for; the log holds {size}")]
    TreeSize { asked: u64, size: u64 },
    #[error("entry {sequence} is not in a tree of {size} entries")]
    NotInTree { sequence: u64, size: u64 },
    #[error("{}", requests::reused_message(.id))]
    RequestReused { id: String },
    /// PostgreSQL: the head row was not the one the group was built on (another writer moved it
    /// without the row's lock): nothing of the group was written.
    #[error("the log's head moved while the group was written; nothing was written (retry)")]
    HeadMoved,
    /// The ledger was opened read-only ([`Ledger::open_read_only`],
    /// [`Ledger::open_postgres_reading`]): it writes nothing.
    #[error(
        "this server serves the log read-only and writes nothing: play, publish and rotate keys \
         on a writing server"
    )]
    ReadOnly,
}

/// What a caller can do about a [`LedgerError`], whatever the storage engine behind it: the one
/// thing a boundary (the gRPC service) maps to its own codes, so that it never asks which engine
/// failed or how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// What the caller built on moved (a stream's version, the log's head): nothing was written;
    /// read again and retry.
    Conflict,
    /// The log cannot be written or reached now (a database that does not answer, a commit whose
    /// outcome is unknown, a writer that stopped): retry, with the same request id.
    Unavailable,
    /// This server may not write what was asked: it serves the log read-only.
    ReadOnly,
    /// This server's signing key is not the log's (another server rotated it, or began the log).
    KeyMismatch,
    /// This server holds no signing key (a read-only server without the key file).
    NoSigningKey,
    /// The request named a place outside the log: a tree larger than it (`tree_size`) or an entry
    /// outside a tree (`sequence`), the request's field.
    OutOfRange { field: &'static str },
    /// What was asked would make an entry longer than the log allows: nothing was written.
    TooLarge,
    /// Stored bytes are damaged.
    Corrupt,
    /// A fault a retry does not mend (a bug, a local disk's failure).
    Internal,
}

impl LedgerError {
    /// What a caller can do about it.
    pub fn kind(&self) -> ErrorKind {
        use LedgerError as E;
        match self {
            E::VersionConflict { .. } | E::HeadMoved => ErrorKind::Conflict,
            E::Stopped => ErrorKind::Unavailable,
            E::Store(e) => e.get().kind(),
            E::ReadOnly => ErrorKind::ReadOnly,
            E::KeyRotatedElsewhere { .. } | E::KeyNotTrusted { .. } => ErrorKind::KeyMismatch,
            E::NoSigningKey | E::MirrorSignsNothing { .. } => ErrorKind::NoSigningKey,
            E::TreeSize { .. } => ErrorKind::OutOfRange { field: "tree_size" },
            E::NotInTree { .. } => ErrorKind::OutOfRange { field: "sequence" },
            E::Corrupt { .. } | E::DamagedRequestRecord { .. } => ErrorKind::Corrupt,
            E::EntryTooLarge { .. } => ErrorKind::TooLarge,
            E::NotTheLog(_) => ErrorKind::Corrupt,
            E::MirrorOfAnotherLog { .. } | E::MirrorFile { .. } | E::NotAMirror => {
                ErrorKind::Internal
            }
            E::Empty
            | E::BadStream(_)
            | E::StartWriter(_)
            | E::EarlierWriteFailed
            | E::Anchor { .. }
            | E::SignatureCount { .. }
            | E::AnchorStopped
            | E::RequestReused { .. }
            | E::KeyFile(_)
            | E::RotationUnfinished(_) => ErrorKind::Internal,
        }
    }
}

/// Why a ledger could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The data directory cannot be trusted (every reason, each naming what and where).
    #[error(transparent)]
    Refused(#[from] Refused),
    /// The ledger could not start on it.
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    /// The PostgreSQL log cannot be trusted, or reached.
    #[error(transparent)]
    Postgres(#[from] pg_open::PgRefusal),
}

impl From<keys::KeyError> for LedgerError {
    fn from(e: keys::KeyError) -> LedgerError {
        LedgerError::KeyFile(Shared::new(e))
    }
}

impl From<StoreError> for LedgerError {
    fn from(e: StoreError) -> LedgerError {
        LedgerError::Store(Shared::new(e))
    }
}

/// An error kept, shared, inside a [`LedgerError`], which is cloned to every caller of a failed
/// group: its source stays reachable. Two are equal when they say the same.
#[derive(Debug)]
pub struct Shared<E>(Arc<E>);

impl<E> Shared<E> {
    /// Keeps `error`.
    pub fn new(error: E) -> Shared<E> {
        Shared(Arc::new(error))
    }

    /// The error kept.
    pub fn get(&self) -> &E {
        &self.0
    }
}

impl<E> Clone for Shared<E> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<E: std::fmt::Display> PartialEq for Shared<E> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.to_string() == other.0.to_string()
    }
}

impl<E: std::fmt::Display> Eq for Shared<E> {}

impl<E: std::fmt::Display> std::fmt::Display for Shared<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<E: std::error::Error + 'static> std::error::Error for Shared<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.0.as_ref())
    }
}

/// The open ledger. Cheap to share behind an `Arc`; appends from many tasks are grouped.
pub struct Ledger {
    /// Where the log lives: a RocksDB data directory, a PostgreSQL database several servers may
    /// write at once, or memory (`seam::Storage`).
    storage: Arc<dyn seam::Storage>,
    jobs: Mutex<Option<mpsc::Sender<writer::Job>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
    /// The key signing new entries (`None`: a read-only ledger without a copy of the key file).
    key_id: Mutex<Option<KeyId>>,
    head: tokio::sync::watch::Receiver<u64>,
    /// Roots of complete blocks of the Merkle tree, filled as proofs need them.
    merkle: Mutex<merkle::MerkleCache>,
    /// Places in the writer's queue: an append waits (asynchronously) for one before it is queued
    /// and holds it until answered, so the queue never holds more than [`MAX_QUEUED`] appends
    /// however many callers there are.
    queued: Arc<tokio::sync::Semaphore>,
    /// The caller's check of every payload, for verification (`None`: the ledger's kinds only).
    payloads: Option<PayloadCheck>,
    /// What the writer measures (group sizes, sync times) and the appends' latency.
    stats: Arc<stats::WriterStats>,
    /// A mirror's copy of another server's log (`mirror.rs`): read-only, grown by verified
    /// entries of that log.
    mirror: bool,
    /// Opened only to read ([`Ledger::open_read_only`], [`Ledger::open_postgres_reading`]).
    reading: bool,
    /// The log's newest checkpoint a mirror holds (`None` elsewhere).
    held: Mutex<Option<mirror::Held>>,
}

/// The most appends queued for the writer or being written at once (a group commit takes them
/// all; the server's own limit on calls in flight is of the same size).
pub const MAX_QUEUED: usize = 4096;

/// An append handed to the writer ([`Ledger::submit`]), not yet answered. It owns what it holds
/// (its place in the writer's queue among them), so it may be awaited by a task of its own that
/// outlives the call that submitted it.
pub struct Pending {
    _place: tokio::sync::OwnedSemaphorePermit,
    answer: oneshot::Receiver<Result<Appended, LedgerError>>,
    started: std::time::Instant,
    stats: Arc<stats::WriterStats>,
}

impl Pending {
    /// The append's answer, once durable (or why it was not made).
    pub async fn wait(self) -> Result<Appended, LedgerError> {
        let answered = self.answer.await.map_err(|_| LedgerError::Stopped)?;
        self.stats
            .append_latency
            .observe_duration(self.started.elapsed());
        answered
    }
}

impl Ledger {
    /// Opens (or creates) the ledger in `dir` after every check of `integrity/`: the store, its
    /// write-ahead log and tables, the chain, the anchor and the signing key (created only for an
    /// empty log, and published as its first entry). Resumes at the chain head (the last durable
    /// entry, after a crash too). A directory that cannot be trusted is refused with every reason.
    ///
    /// Only the ledger's own payload kinds are read; [`Ledger::open_checked`] holds every payload
    /// to the caller's schema as well.
    pub fn open(dir: &Path, now_ms: u64) -> Result<Ledger, OpenError> {
        Ledger::open_with(dir, now_ms, None)
    }

    /// [`Ledger::open`], every payload of the log also held to `payloads` when the directory is
    /// checked and whenever the log is verified: a signed entry whose payload does not decode is
    /// named (the server passes its `pitboss.v1.Payload` decoding).
    pub fn open_checked(
        dir: &Path,
        now_ms: u64,
        payloads: PayloadCheck,
    ) -> Result<Ledger, OpenError> {
        Ledger::open_with(dir, now_ms, Some(payloads))
    }

    fn open_with(
        dir: &Path,
        now_ms: u64,
        payloads: Option<PayloadCheck>,
    ) -> Result<Ledger, OpenError> {
        let opened = integrity::open_for_writing(dir, store::WalRecovery::Strict, false, payloads)?;
        for note in &opened.notes {
            tracing::warn!(data = %dir.display(), "{note}");
        }
        let (mut ledger, _) = Ledger::start(opened, now_ms, None)?;
        ledger.payloads = payloads;
        Ok(ledger)
    }

    /// Starts the writer on a checked directory: publishes the key of an empty log, and appends
    /// `first` (a recovery's record) before anything else; returns its result.
    fn start(
        opened: integrity::Opened,
        now_ms: u64,
        first: Option<AppendRequest>,
    ) -> Result<(Ledger, Option<Appended>), LedgerError> {
        let integrity::Opened {
            store,
            key,
            next_sequence,
            last_hash,
            origin,
            anchor,
            anchored,
            publish_key,
            ..
        } = opened;
        let key_dir = store.path().to_path_buf();
        let anchorer = writer::Anchorer::new(Some(anchor), anchored);
        let w = writer::Writer::new(
            store.clone(),
            Box::new(writer::Pipeline::new(store, anchorer)),
            key_dir,
            key,
            (next_sequence, last_hash),
            origin,
        );
        Ledger::launch(w, now_ms, publish_key, first)
    }

    /// Opens the log in the PostgreSQL database at `url` (`postgres://user@host:port/db`) after
    /// the checks of `pg_open.rs`, for a server whose signing key file is in `key_dir` (created,
    /// and published as the first entry, only for an empty log). Several servers may open one
    /// database at once, each with a copy of the log's key file: their groups take turns at the
    /// head row and never fork the chain (`pg/`).
    pub fn open_postgres(
        url: &str,
        key_dir: &Path,
        now_ms: u64,
        payloads: Option<PayloadCheck>,
    ) -> Result<Ledger, OpenError> {
        let pg_open::PgOpened {
            store,
            key_dir,
            key,
            next_sequence,
            last_hash,
            publish_key,
        } = pg_open::open(url, key_dir)?;
        let origin = None;
        let w = writer::Writer::new(
            store.clone(),
            Box::new(writer::Serial::new(store)),
            key_dir,
            key,
            (next_sequence, last_hash),
            origin,
        );
        let (mut ledger, _) = Ledger::launch(w, now_ms, publish_key, None)?;
        ledger.payloads = payloads;
        Ok(ledger)
    }

    /// Opens the log in the PostgreSQL database at `url` only to read (a regulator's server on a
    /// streaming replica, or with a role that may not write): the checks of `pg_open.rs` on
    /// read-only connections, no writer. Every append and rotation is refused with
    /// [`LedgerError::ReadOnly`]; the size follows the head row as writing servers move it.
    /// Checkpoints are signed only when `key_dir` holds a copy of the log's current key file.
    pub fn open_postgres_reading(
        url: &str,
        key_dir: Option<&Path>,
        payloads: Option<PayloadCheck>,
    ) -> Result<Ledger, OpenError> {
        let pg_open::PgReading { store, key, size } = pg_open::open_reading(url, key_dir)?;
        let key_id = key.as_ref().map(keys::Keypair::id);
        let (follows, head) = tokio::sync::watch::channel(size);
        let follower = replica::Follower::new(store.clone(), key, follows);
        let mut ledger = Ledger::with_thread(
            store,
            key_id,
            head,
            Arc::new(stats::WriterStats::default()),
            "ledger-follower",
            move |jobs| follower.run(jobs),
        )?;
        ledger.payloads = payloads;
        ledger.reading = true;
        Ok(ledger)
    }

    /// Opens the data directory in `dir` only to read (a server whose executable is not approved
    /// serves this way when its settings say so): the checks of [`Ledger::open`] that write
    /// nothing, on a store opened read-only, no writer and no key. Every append and rotation is
    /// refused with [`LedgerError::ReadOnly`], every signature with
    /// [`LedgerError::NoSigningKey`]; the size is the log's when it was opened.
    pub fn open_read_only(dir: &Path, payloads: Option<PayloadCheck>) -> Result<Ledger, OpenError> {
        let (store, size) = integrity::open_for_reading(dir, payloads)?;
        // The size never moves; its sender lives as long as the thread, so that the head's
        // watchers (health, live streams) see a ledger that is up, not one whose writer stopped.
        let (still, head) = tokio::sync::watch::channel(size);
        let mut ledger = Ledger::with_thread(
            Arc::new(store),
            None,
            head,
            Arc::new(stats::WriterStats::default()),
            "ledger-reader",
            move |jobs| replica::refuse_writes(jobs, still),
        )?;
        ledger.payloads = payloads;
        ledger.reading = true;
        Ok(ledger)
    }

    /// The ledger whose jobs `run` answers on a thread of its own named `name` (the writer, or a
    /// read-only ledger's follower).
    fn with_thread(
        storage: Arc<dyn seam::Storage>,
        key_id: Option<KeyId>,
        head: tokio::sync::watch::Receiver<u64>,
        stats: Arc<stats::WriterStats>,
        name: &str,
        run: impl FnOnce(mpsc::Receiver<writer::Job>) + Send + 'static,
    ) -> Result<Ledger, LedgerError> {
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || run(rx))
            .map_err(|e| LedgerError::StartWriter(Shared::new(e)))?;
        Ok(Ledger {
            storage,
            jobs: Mutex::new(Some(tx)),
            thread: Mutex::new(Some(thread)),
            key_id: Mutex::new(key_id),
            head,
            merkle: Mutex::new(merkle::MerkleCache::default()),
            queued: Arc::new(tokio::sync::Semaphore::new(MAX_QUEUED)),
            payloads: None,
            stats,
            mirror: false,
            reading: false,
            held: Mutex::new(None),
        })
    }

    /// Publishes the key of an empty log and appends `first` (a recovery's record) on this thread,
    /// then starts the writer's thread.
    fn launch(
        mut w: writer::Writer,
        now_ms: u64,
        publish_key: bool,
        first: Option<AppendRequest>,
    ) -> Result<(Ledger, Option<Appended>), LedgerError> {
        let key_id = w.key_id();
        let storage = w.storage();
        if publish_key {
            // Publish the key before anything else is written, on this thread (no runtime needed).
            let (reply, mut answer) = oneshot::channel();
            w.commit(vec![writer::Job::PublishKey(now_ms, reply)]);
            answer.try_recv().map_err(|_| LedgerError::Stopped)??;
        }
        let first = match first {
            None => None,
            Some(request) => {
                let (reply, mut answer) = oneshot::channel();
                w.commit(vec![writer::Job::Append(request, reply)]);
                Some(answer.try_recv().map_err(|_| LedgerError::Stopped)??)
            }
        };
        let (head, stats) = (w.subscribe(), w.stats());
        let ledger = Ledger::with_thread(
            storage,
            Some(key_id),
            head,
            stats,
            "ledger-writer",
            move |jobs| w.run(jobs),
        )?;
        Ok((ledger, first))
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
        self.submit(request).await?.wait().await
    }

    /// Hands `request` to the writer now and returns what waits for its answer: appends submitted
    /// one after another (under a caller's lock) reach the writer in that order, and one stream's
    /// appends in one group are checked against each other's versions, so a caller may submit the
    /// next append of a stream before the last is durable (each is answered only once it is). An
    /// append is acknowledged only by [`Pending::wait`].
    pub async fn submit(&self, request: AppendRequest) -> Result<Pending, LedgerError> {
        let started = std::time::Instant::now();
        let place = self
            .queued
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| LedgerError::Stopped)?;
        let (reply, answer) = oneshot::channel();
        self.send(writer::Job::Append(request, reply))?;
        Ok(Pending {
            _place: place,
            answer,
            started,
            stats: self.stats.clone(),
        })
    }

    /// What the writer has measured since the ledger opened: append latency, entries per group
    /// commit, the WAL's and the anchor's sync times.
    pub fn stats(&self) -> &stats::WriterStats {
        &self.stats
    }

    /// How many entries the log holds (the next sequence number), as last made durable.
    pub fn size(&self) -> u64 {
        *self.head.borrow()
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
    pub fn rotate_key_blocking(&self, now_ms: u64, actor: &str) -> Result<KeyId, LedgerError> {
        let (reply, answer) = oneshot::channel();
        self.send(writer::Job::Rotate(now_ms, actor.to_string(), reply))?;
        let id = answer.blocking_recv().map_err(|_| LedgerError::Stopped)??;
        self.rotated(id);
        Ok(id)
    }

    /// [`Ledger::rotate_key_blocking`], for a running server: `actor` is the principal who asked.
    pub async fn rotate_key(&self, now_ms: u64, actor: &str) -> Result<KeyId, LedgerError> {
        let (reply, answer) = oneshot::channel();
        self.send(writer::Job::Rotate(now_ms, actor.to_string(), reply))?;
        let id = answer.await.map_err(|_| LedgerError::Stopped)??;
        self.rotated(id);
        Ok(id)
    }

    fn rotated(&self, id: KeyId) {
        if let Ok(mut key_id) = self.key_id.lock() {
            *key_id = Some(id);
        }
    }

    /// Watches the next sequence number: it changes after every durable append.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.head.clone()
    }

    /// Completes when the writer has stopped (closed, or dead): from then on every append fails
    /// with [`LedgerError::Stopped`]. The server stops reporting itself healthy.
    pub async fn stopped(&self) {
        let mut head = self.head.clone();
        while head.changed().await.is_ok() {}
    }

    /// Makes the writer thread panic: for the tests of what a dead writer means to its callers.
    #[cfg(any(test, feature = "tamper"))]
    pub fn crash_writer(&self) {
        let _ = self.send(writer::Job::Crash);
    }

    /// The id of the key signing new entries.
    pub fn key_id(&self) -> Option<KeyId> {
        self.key_id.lock().ok().and_then(|k| *k)
    }

    /// The store's reads, whatever the engine (for the crate's own reads).
    pub(crate) fn store(&self) -> &dyn LogStore {
        self.storage.as_ref()
    }

    /// The RocksDB store (`None` elsewhere): a recovery's flush, a mirror's directory, the tests'
    /// writes around the writer — the tools of one engine, which ask for it by its type.
    pub(crate) fn rocks(&self) -> Option<&Store> {
        let storage: &dyn std::any::Any = self.storage.as_ref();
        storage.downcast_ref::<Store>()
    }

    /// Whether other processes may append to this log at once (PostgreSQL), or it grows by
    /// another log's entries (a mirror): a caller's cache of what a stream holds must then be
    /// checked against the stream's version before it is used.
    pub fn shared(&self) -> bool {
        self.mirror || self.storage.shared()
    }

    /// Whether the ledger was opened read-only ([`Ledger::open_read_only`],
    /// [`Ledger::open_postgres_reading`]) or is a mirror's copy: every write is refused with
    /// [`LedgerError::ReadOnly`].
    pub fn read_only(&self) -> bool {
        self.mirror || self.reading
    }

    /// Where the log is: the data directory, or the database (its password hidden).
    pub fn location(&self) -> String {
        self.storage.describe()
    }

    /// The secret an append stored under `key` ([`AppendRequest::secrets`]), if any. Secrets are
    /// outside the log: not hashed, not signed, never in a proof.
    pub fn secret(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LedgerError> {
        Ok(self.store().get(store::cf::SECRETS, key)?)
    }

    /// A stream's version: how many entries it holds (0: none).
    pub fn stream_version(&self, stream: &str) -> Result<u64, LedgerError> {
        Ok(self.store().stream_version(stream)?)
    }

    /// One page of the index `name` ([`AppendRequest::indexes`]): keys from `from` on, in byte
    /// order, while they start with `prefix`, at most `limit`, each with the sequence of the
    /// entry that wrote it.
    pub fn index_page(
        &self,
        name: &str,
        prefix: &[u8],
        from: &[u8],
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, u64)>, LedgerError> {
        Ok(self.store().index_scan(name, prefix, from, limit)?)
    }

    /// The public key the log published under `id`, if any.
    pub fn public_key(&self, id: KeyId) -> Result<Option<Vec<u8>>, LedgerError> {
        Ok(self.store().get(store::cf::KEYS, &id.0)?)
    }

    /// Every public key the log published, by id.
    pub fn known_keys(&self) -> Result<Vec<store::KeyValue>, LedgerError> {
        Ok(self.store().known_keys()?)
    }

    /// Verifies entries `from ..= to` (to the end when `to` is `None`), with the keys the log
    /// published before `from`.
    pub fn verify_range(&self, from: u64, to: Option<u64>) -> VerifyReport {
        verify::verify_with(self.store(), from, to, self.payloads)
    }

    /// The record of a request id, if the id was used by a durable append.
    pub fn request(&self, id: &str) -> Result<Option<RequestRecord>, LedgerError> {
        match self.store().get(store::cf::REQUESTS, id.as_bytes())? {
            None => Ok(None),
            Some(bytes) => RequestRecord::decode(&bytes)
                .map(Some)
                .ok_or_else(|| LedgerError::DamagedRequestRecord { id: id.to_string() }),
        }
    }

    /// The entries of a stream, from `position` on.
    pub fn read_stream(&self, stream: &str, position: u64) -> Result<Vec<Entry>, LedgerError> {
        self.store()
            .stream_entries(stream, position)?
            .into_iter()
            .map(|(sequence, stored)| {
                let stored = stored.ok_or(LedgerError::Corrupt {
                    sequence,
                    problem: "indexed but missing".into(),
                })?;
                Entry::decode(&stored).map_err(|e| LedgerError::Corrupt {
                    sequence,
                    problem: e.to_string(),
                })
            })
            .collect()
    }

    /// At most `limit` entries of a stream from `position` on: what is read is bounded by the
    /// limit, whatever the stream's length.
    pub fn read_stream_up_to(
        &self,
        stream: &str,
        position: u64,
        limit: usize,
    ) -> Result<Vec<Entry>, LedgerError> {
        let store = self.store();
        store
            .stream_sequences_up_to(stream, position, limit)?
            .into_iter()
            .map(|sequence| {
                let stored = store.stored_entry(sequence)?.ok_or(LedgerError::Corrupt {
                    sequence,
                    problem: "indexed but missing".into(),
                })?;
                Entry::decode(&stored).map_err(|e| LedgerError::Corrupt {
                    sequence,
                    problem: e.to_string(),
                })
            })
            .collect()
    }

    /// One entry by sequence number.
    pub fn entry(&self, sequence: u64) -> Result<Option<Entry>, LedgerError> {
        match self
            .store()
            .get(store::cf::EVENTS, &sequence.to_be_bytes())?
        {
            None => Ok(None),
            Some(bytes) => Entry::decode(&bytes)
                .map(Some)
                .map_err(|e| LedgerError::Corrupt {
                    sequence,
                    problem: e.to_string(),
                }),
        }
    }

    /// The stored records of entries `from .. from + count`, byte for byte as kept, each with its
    /// sequence (fewer if the log ends sooner): what tiles and mirrors carry.
    pub fn stored_entries(
        &self,
        from: u64,
        count: u64,
    ) -> Result<Vec<(u64, Vec<u8>)>, LedgerError> {
        let mut records = Vec::new();
        for item in self.store().entries_from(from)? {
            if records.len() as u64 >= count {
                break;
            }
            let (key, value) = item?;
            let sequence = key
                .as_slice()
                .try_into()
                .map(u64::from_be_bytes)
                .map_err(|_| LedgerError::Corrupt {
                    sequence: from + records.len() as u64,
                    problem: "a key of the events family is not a sequence".into(),
                })?;
            records.push((sequence, value));
        }
        Ok(records)
    }

    /// The chain head: the last entry's sequence and hash.
    pub fn head(&self) -> Result<Option<(u64, Hash)>, LedgerError> {
        match writer::load_head(self.store())? {
            (0, _) => Ok(None),
            (next, hash) => Ok(Some((next - 1, hash))),
        }
    }

    /// Verifies the whole log.
    pub fn verify(&self) -> VerifyReport {
        self.verify_range(0, None)
    }

    /// Verifies the whole log one signature at a time: the reference the batched verification's
    /// speed is measured against (`benches/ledger.rs`). The number of entries checked.
    pub fn verify_one_by_one(&self) -> Result<u64, Problem> {
        verify::verify_one_by_one(self.store())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn append(stream: &str) -> AppendRequest {
        AppendRequest {
            stream: stream.into(),
            expected: Expected::Any,
            payloads: vec![vec![1, 2, 3]],
            request: None,
            indexes: Vec::new(),
            secrets: Vec::new(),
            unindex: Vec::new(),
            recorded_at_ms: 0,
            actor: String::new(),
        }
    }

    /// A writer thread that dies (a panic) does not leave appends waiting: they fail with
    /// `Stopped` (the service's UNAVAILABLE), and `stopped()` completes so the server can stop
    /// reporting itself healthy.
    #[tokio::test]
    async fn a_dead_writer_fails_appends_and_is_noticed() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Arc::new(Ledger::open(dir.path(), 0).unwrap());
        ledger.append(append("s")).await.unwrap();
        let watcher = {
            let ledger = ledger.clone();
            tokio::spawn(async move { ledger.stopped().await })
        };
        tokio::task::yield_now().await;
        assert!(!watcher.is_finished(), "the writer is alive");
        ledger.crash_writer();
        tokio::time::timeout(std::time::Duration::from_secs(10), watcher)
            .await
            .expect("stopped() completes once the writer is dead")
            .unwrap();
        let result = tokio::time::timeout(
            std::time::Duration::from_secs(10),
            ledger.append(append("s")),
        )
        .await
        .expect("an append to a dead writer does not hang");
        assert_eq!(result, Err(LedgerError::Stopped));
        assert_eq!(ledger.read_stream("s", 0).unwrap().len(), 1);
    }

    /// The same id with another fingerprint is refused, durable or in flight; a record of the
    /// previous release (no fingerprint) still answers a retry.
    #[tokio::test]
    async fn a_request_id_is_bound_to_its_fingerprint() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::open(dir.path(), 0).unwrap();
        let keyed = |stream: &str, id: &str, fingerprint: u8| AppendRequest {
            request: Some(RequestKey {
                id: id.into(),
                fingerprint: Fingerprint([fingerprint; 32]),
            }),
            ..append(stream)
        };
        // Two at once: the second is staged while the first is in flight.
        let (first, reused) = tokio::join!(
            ledger.append(keyed("a", "r1", 1)),
            ledger.append(keyed("b", "r1", 2))
        );
        let first = first.unwrap();
        assert!(!first.duplicate);
        assert_eq!(reused, Err(LedgerError::RequestReused { id: "r1".into() }));
        // Durable now: a retry answers with the first result, another fingerprint is refused.
        let retry = ledger.append(keyed("a", "r1", 1)).await.unwrap();
        assert_eq!(
            retry,
            Appended {
                duplicate: true,
                ..first.clone()
            }
        );
        assert_eq!(
            ledger.append(keyed("a", "r1", 3)).await,
            Err(LedgerError::RequestReused { id: "r1".into() })
        );
        assert_eq!(ledger.read_stream("a", 0).unwrap().len(), 1);
        assert!(ledger.read_stream("b", 0).unwrap().is_empty());
        let record = ledger.request("r1").unwrap().unwrap();
        assert_eq!(record.fingerprint, Some(Fingerprint([1; 32])));
        // An earlier release's record: 24 bytes, no fingerprint.
        let old = Appended {
            first_sequence: first.first_sequence,
            count: 1,
            stream_version: 1,
            duplicate: false,
        };
        let bytes = RequestRecord::encode(&old, &Fingerprint([0; 32]));
        let requests = ledger.rocks().unwrap().cf(store::cf::REQUESTS).unwrap();
        ledger
            .rocks()
            .unwrap()
            .db()
            .put_cf(requests, b"old", &bytes[..24])
            .unwrap();
        let legacy = ledger.request("old").unwrap().unwrap();
        assert_eq!(legacy.fingerprint, None);
        let answered = ledger.append(keyed("a", "old", 7)).await.unwrap();
        assert!(answered.duplicate);
        assert_eq!(answered.first_sequence, first.first_sequence);
        assert_eq!(ledger.read_stream("a", 0).unwrap().len(), 1);
    }
}
