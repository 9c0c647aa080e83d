//! The storage seam: what every storage engine of the log keeps and how the ledger reaches it —
//! the column families and their key layouts, the reads (`LogStore`), and a group's writes
//! (`Batch`) — whatever holds the bytes (RocksDB in `store.rs`, PostgreSQL in `pg/`). A third
//! engine is a new file implementing this, not edits across the ledger.
//!
//! # The contract
//!
//! **A commit** (RocksDB: `Store::write` from the writer's pipeline, then the anchor; PostgreSQL:
//! one transaction that moves the head row, `pg/`) of a [`Batch`]:
//! - MUST apply every write of the batch or none of them, in the batch's order (a put after a
//!   delete of the same key wins);
//! - MUST be durable when it reports success: a crash (of the process, or of the machine for a
//!   synced commit) after that loses none of it — the ledger acknowledges an append only then;
//! - MUST NOT be reported as failed after it may have happened unless the ledger can tell: an
//!   engine whose commit's outcome can be unknown (a lost connection) reports it as such
//!   (`StoreError::Postgres`, kind unavailable) and the caller retries with its request id;
//! - MUST keep the value bytes exactly: an entry's stored record is hashed and signed as stored.
//!
//! **A read** ([`LogStore`]):
//! - MUST see every batch committed before it began, and MUST NOT see part of a batch;
//! - MUST return keys of a family in byte order (so sequences, big-endian, in numeric order);
//! - MUST NOT interpret a value: payloads are opaque, and the ledger decodes and checks them
//!   (verification never trusts a store);
//! - MAY run while a commit is in flight, and then sees the log before it.
//!
//! # The layout
//!
//! Column families and keys, which every engine keeps as they are (all integers big-endian, so
//! byte order is numeric order):
//!
//! | family | key | value |
//! | --- | --- | --- |
//! | `events` | sequence (u64) | `StoredEntry` (envelope bytes, hash, signature) |
//! | `streams` | stream name, `0x00`, position (u64) | sequence (u64) |
//! | `heads` | stream name | the stream's version: its number of entries (u64) |
//! | `requests` | request id | the first result: first sequence, count, stream version (3 × u64), then the request's 32-byte fingerprint (`requests.rs`; absent in records of earlier releases) |
//! | `indexes` | index name, `0x00`, index key (caller-defined) | sequence of the entry that wrote it |
//! | `keys` | key id (16 bytes) | Ed25519 public key (32 bytes), as published in the log |
//! | `secrets` | caller-defined (a hand id) | caller-defined (the hand's seed, kept outside the log until revealed) |
//! | `meta` | `format_version`; `current_key` | u32; the id of the key signing new entries (written with every key entry: the servers of a shared log compare theirs to it) |
//!
//! Format versions: 2 (no anchor), 3 (an anchor file, `anchor.rs`: a non-empty log without one is
//! damaged; every entry signed) and 4 (this one: as 3, entries signed once per group).

use std::path::PathBuf;

/// Key under `meta` holding the on-disk format version.
pub(crate) const FORMAT_KEY: &[u8] = b"format_version";
/// The on-disk format this build writes: 4, a directory with an anchor whose entries are signed
/// once per group (an unsigned entry is sealed by the next signed one).
pub const FORMAT_VERSION: u32 = 4;
/// Format 3: an anchor, every entry signed. Its entries are valid format 4 as they are: opened for
/// writing, the directory is marked 4 (so that a release reading only 3 refuses it by its format,
/// not as damaged at its first unsigned entry).
pub const SIGNED_FORMAT_VERSION: u32 = 3;
/// The format of an earlier release (no anchor), which this build opens and upgrades.
pub const LEGACY_FORMAT_VERSION: u32 = 2;

/// The formats this build reads.
pub(crate) fn readable_format(version: u32) -> bool {
    [LEGACY_FORMAT_VERSION, SIGNED_FORMAT_VERSION, FORMAT_VERSION].contains(&version)
}

/// A format whose directories keep an anchor.
pub(crate) fn anchored_format(version: Option<u32>) -> bool {
    matches!(version, Some(SIGNED_FORMAT_VERSION | FORMAT_VERSION))
}

/// Why the store could not be opened or used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot create the data directory {path}: {source}")]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("RocksDB error in {path}: {source}")]
    Rocks {
        path: PathBuf,
        source: rocksdb::Error,
    },
    #[error(
        "the data directory {path} is in use by another process (a running server?): {detail}"
    )]
    InUse { path: PathBuf, detail: String },
    #[error("the data directory {path} is not a pitboss store: {found}")]
    Format { path: PathBuf, found: String },
    /// The directory holds no database at all (no `CURRENT` file), where one was to be read.
    #[error("the data directory {path} holds no database (no CURRENT file)")]
    NoDatabase { path: PathBuf },
    /// The PostgreSQL database failed a read or a write (`pg/`).
    #[error("PostgreSQL ({database}): {detail}")]
    Postgres {
        database: String,
        detail: String,
        /// The SQLSTATE PostgreSQL answered with (`42P01`: no such table), when it answered one.
        state: Option<String>,
    },
}

impl StoreError {
    /// What a caller can do about it: a database that does not answer (or whose commit's outcome
    /// is unknown) is worth a retry; a local store's failure is not.
    pub fn kind(&self) -> crate::ErrorKind {
        match self {
            StoreError::Postgres { .. } => crate::ErrorKind::Unavailable,
            StoreError::Format { .. } => crate::ErrorKind::Corrupt,
            StoreError::CreateDir { .. }
            | StoreError::Rocks { .. }
            | StoreError::InUse { .. }
            | StoreError::NoDatabase { .. } => crate::ErrorKind::Internal,
        }
    }
}

impl StoreError {
    /// True when RocksDB found damaged bytes (a checksum, a size, a missing file).
    pub fn is_corruption(&self) -> bool {
        matches!(self, StoreError::Rocks { source, .. } if source.kind() == rocksdb::ErrorKind::Corruption)
    }
}

/// Column family names.
pub(crate) mod cf {
    pub const EVENTS: &str = "events";
    pub const STREAMS: &str = "streams";
    pub const HEADS: &str = "heads";
    pub const REQUESTS: &str = "requests";
    pub const INDEXES: &str = "indexes";
    pub const KEYS: &str = "keys";
    pub const META: &str = "meta";
    pub const SECRETS: &str = "secrets";
    /// Every family, in creation order.
    pub const ALL: [&str; 8] = [
        EVENTS, STREAMS, HEADS, REQUESTS, INDEXES, KEYS, META, SECRETS,
    ];
}

/// `stream 0x00 position` as a `streams` key.
pub(crate) fn stream_key(stream: &str, position: u64) -> Vec<u8> {
    let mut key = Vec::with_capacity(stream.len() + 9);
    key.extend_from_slice(stream.as_bytes());
    key.push(0);
    key.extend_from_slice(&position.to_be_bytes());
    key
}

/// `name 0x00 key` as an `indexes` key.
pub(crate) fn index_key(name: &str, key: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(name.len() + 1 + key.len());
    out.extend_from_slice(name.as_bytes());
    out.push(0);
    out.extend_from_slice(key);
    out
}

/// A stored key and value.
pub type KeyValue = (Vec<u8>, Vec<u8>);

/// Stored entries in sequence order, as (raw key, stored bytes); a read error is yielded and ends
/// the iteration.
pub type Entries<'a> = Box<dyn Iterator<Item = Result<KeyValue, StoreError>> + 'a>;

/// A stream's entries as (sequence, stored bytes, `None` when the log lacks the entry).
pub type StreamEntries = Vec<(u64, Option<Vec<u8>>)>;

/// The reads every storage engine answers: the seam between the ledger and where its bytes live
/// (RocksDB here, PostgreSQL in `pg/`). Records are addressed by family and key exactly as the
/// table in this module's comment lays them out, whatever the engine.
///
/// Contract: a read sees every group committed before it began and never part of one; keys come
/// in byte order. An engine MUST NOT interpret a value (the ledger does).
pub trait LogStore: Send + Sync {
    /// One record.
    fn get(&self, family: &str, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError>;

    /// Records of `family` from `start` on, in key order, while their keys start with `prefix`;
    /// at most `limit`.
    fn scan(
        &self,
        family: &str,
        prefix: &[u8],
        start: &[u8],
        limit: usize,
    ) -> Result<Vec<KeyValue>, StoreError>;

    /// Stored entries from sequence `from` on.
    fn entries_from(&self, from: u64) -> Result<Entries<'_>, StoreError>;

    /// The last stored entry's sequence and stored bytes, if any.
    fn last_entry(&self) -> Result<Option<(u64, Vec<u8>)>, StoreError>;

    /// Where the store is, for messages (a directory, or a database with its password hidden).
    fn describe(&self) -> String;

    /// How many entries the log holds: the last one's sequence, plus one (0 for none).
    fn log_size(&self) -> Result<u64, StoreError> {
        Ok(self.last_entry()?.map_or(0, |(sequence, _)| sequence + 1))
    }

    /// The sequences of a stream's entries from `position` on, in order.
    fn stream_sequences(&self, stream: &str, position: u64) -> Result<Vec<u64>, StoreError> {
        self.stream_sequences_up_to(stream, position, usize::MAX)
    }

    /// The sequences of at most `limit` of a stream's entries from `position` on, in order.
    fn stream_sequences_up_to(
        &self,
        stream: &str,
        position: u64,
        limit: usize,
    ) -> Result<Vec<u64>, StoreError> {
        let mut prefix = stream.as_bytes().to_vec();
        prefix.push(0);
        Ok(self
            .scan(cf::STREAMS, &prefix, &stream_key(stream, position), limit)?
            .into_iter()
            .take_while(|(key, _)| key.len() == prefix.len() + 8)
            .filter_map(|(_, value)| be_u64(&value))
            .collect())
    }

    /// A stream's stored entries from `position` on, in order, as (sequence, stored bytes); the
    /// bytes are `None` for an entry the stream names but the log does not hold (damage the
    /// caller names). One query on PostgreSQL.
    fn stream_entries(&self, stream: &str, position: u64) -> Result<StreamEntries, StoreError> {
        self.stream_sequences(stream, position)?
            .into_iter()
            .map(|sequence| Ok((sequence, self.stored_entry(sequence)?)))
            .collect()
    }

    /// A stream's version: how many entries it has.
    fn stream_version(&self, stream: &str) -> Result<u64, StoreError> {
        Ok(self
            .get(cf::HEADS, stream.as_bytes())?
            .and_then(|v| be_u64(&v))
            .unwrap_or(0))
    }

    /// Index keys under `name` starting at `from` (a key prefix within the index), in order, with
    /// the sequence that wrote each; at most `limit`, and only while they start with `prefix`.
    fn index_scan(
        &self,
        name: &str,
        prefix: &[u8],
        from: &[u8],
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, u64)>, StoreError> {
        let skip = name.len() + 1;
        Ok(self
            .scan(
                cf::INDEXES,
                &index_key(name, prefix),
                &index_key(name, from),
                limit,
            )?
            .into_iter()
            .map(|(key, value)| (key[skip..].to_vec(), be_u64(&value).unwrap_or(0)))
            .collect())
    }

    /// The stored record of entry `sequence` (its envelope bytes, hash and signature, as
    /// [`crate::Entry::decode`] reads them), if there is one.
    fn stored_entry(&self, sequence: u64) -> Result<Option<Vec<u8>>, StoreError> {
        self.get(cf::EVENTS, &sequence.to_be_bytes())
    }

    /// Public keys known to the log, by id.
    fn known_keys(&self) -> Result<Vec<KeyValue>, StoreError> {
        self.scan(cf::KEYS, &[], &[], usize::MAX)
    }
}

/// An open log, whatever its engine: its reads, and what the ledger asks of it beyond them. Each
/// engine is one module: its storage (this), how its groups are committed (a
/// `writer::Committer`: the shared pipeline, or one of its own), and its `Ledger::open_…`.
pub(crate) trait Storage: LogStore + std::any::Any {
    /// Whether other processes may append to this log at once (they take turns at a head the
    /// engine keeps committed): a caller's cache of what a stream holds must then be checked.
    fn shared(&self) -> bool {
        false
    }
}

/// A storage that commits a group's writes by itself (the writer's shared pipeline): atomically,
/// in order, and durably when `sync` — the contract of a commit above.
pub(crate) trait Apply: Send + Sync {
    fn apply(&self, batch: &Batch, sync: bool) -> Result<(), StoreError>;
}

/// Records read for a group before it is built, by family and key (`None`: no such record): what a
/// shared log's commit reads under its lock, which staging reads before the store.
pub(crate) type Prefetched = std::collections::HashMap<(&'static str, Vec<u8>), Option<Vec<u8>>>;

/// One write of a group: a record put or deleted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Write {
    Put(&'static str, Vec<u8>, Vec<u8>),
    Delete(&'static str, Vec<u8>),
}

/// A group's writes, in order, for any engine: committed all together or not at all.
#[derive(Clone, Debug, Default)]
pub(crate) struct Batch {
    pub(crate) writes: Vec<Write>,
}

impl Batch {
    pub(crate) fn put(
        &mut self,
        family: &'static str,
        key: impl Into<Vec<u8>>,
        value: impl Into<Vec<u8>>,
    ) {
        self.writes
            .push(Write::Put(family, key.into(), value.into()));
    }

    pub(crate) fn delete(&mut self, family: &'static str, key: impl Into<Vec<u8>>) {
        self.writes.push(Write::Delete(family, key.into()));
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.writes.is_empty()
    }
}

/// A big-endian u64 from stored bytes.
pub(crate) fn be_u64(bytes: &[u8]) -> Option<u64> {
    bytes
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .map(u64::from_be_bytes)
}
