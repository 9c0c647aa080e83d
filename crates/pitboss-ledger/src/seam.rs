//! The storage seam: what every storage engine of the log keeps and how the ledger reaches it —
//! the column families and their key layouts, the reads (`LogStore`), and a group's writes
//! (`Batch`) — whatever holds the bytes (RocksDB in `store.rs`, PostgreSQL in `pg.rs`). A third
//! engine is a new file implementing this, not edits across the ledger.
//!
//! # The contract
//!
//! **A commit** (RocksDB: `Store::write` from the writer's pipeline, then the anchor; PostgreSQL:
//! one transaction that moves the head row, `pg.rs`) of a [`Batch`]:
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
//! Layout (all integers big-endian): see the table in `store.rs`, which every engine keeps as is.

use super::store::StoreError;

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
/// (RocksDB here, PostgreSQL in `pg.rs`). Records are addressed by family and key exactly as the
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
        let mut prefix = stream.as_bytes().to_vec();
        prefix.push(0);
        Ok(self
            .scan(
                cf::STREAMS,
                &prefix,
                &stream_key(stream, position),
                usize::MAX,
            )?
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
