//! A log on PostgreSQL: the schema, a verified copy of a RocksDB data directory into it, and its
//! verification read back from the database (issue 14's first part: `pitboss copy`).
//!
//! The schema keeps the store's own bytes: `pitboss_entries` holds each stored entry (envelope,
//! hash, signature) under its sequence number, exactly as RocksDB holds it, so hashes, signatures,
//! Merkle trees and proofs are the same; `pitboss_records` holds every other record (stream
//! positions, stream heads, request records, recall indexes, keys, secrets, the format) under its
//! family and key, byte for byte; `pitboss_head` is the one row naming the chain's head (size and
//! last hash), written in the same transaction as the entries — the row a writer on several
//! servers must find unchanged to commit (see `docs/deploy.md` when it exists; not served yet).
//!
//! Owns the SQL; MUST NOT decide what a record means (the store and the writer do) and MUST NOT
//! write into a database that already holds a log (a copy never merges two logs).

use std::sync::atomic::{AtomicU64, Ordering};

use postgres::{Client, NoTls};

use super::store::{cf, KeyValue, Store};
use super::verify::{self, PayloadCheck, VerifyReport};
use super::Hash;

/// Entries (or records) sent per statement.
const BATCH: usize = 1_000;

/// The tables, created when missing.
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS pitboss_entries (
    sequence BIGINT PRIMARY KEY CHECK (sequence >= 0),
    stored BYTEA NOT NULL
);
CREATE TABLE IF NOT EXISTS pitboss_records (
    family TEXT NOT NULL,
    key BYTEA NOT NULL,
    value BYTEA NOT NULL,
    PRIMARY KEY (family, key)
);
CREATE TABLE IF NOT EXISTS pitboss_head (
    only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
    size BIGINT NOT NULL CHECK (size >= 0),
    hash BYTEA NOT NULL CHECK (length(hash) = 32)
);
";

/// Why a copy or a read of a PostgreSQL log failed.
#[derive(Debug, thiserror::Error)]
pub enum PgError {
    #[error("PostgreSQL: {0}")]
    Database(#[from] postgres::Error),
    #[error("the source log does not verify: {0}")]
    SourceBad(String),
    #[error("the source store cannot be read: {0}")]
    Source(#[from] super::store::StoreError),
    #[error("the database already holds a log of {entries} entries: a copy never merges two logs")]
    NotEmpty { entries: u64 },
    #[error("the copy does not verify: {0}")]
    CopyBad(String),
    #[error("the copy's head {copied:?} is not the source's {source_head:?}")]
    HeadDiffers {
        source_head: Option<(u64, String)>,
        copied: Option<(u64, String)>,
    },
    #[error("a sequence number {0} beyond what PostgreSQL's BIGINT holds")]
    TooLarge(u64),
}

/// What a copy did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Copied {
    /// Entries copied (and verified in the database).
    pub entries: u64,
    /// Other records copied.
    pub records: u64,
    /// The head both logs end at: (last sequence, its hash).
    pub head: Option<(u64, Hash)>,
}

fn signed(n: u64) -> Result<i64, PgError> {
    i64::try_from(n).map_err(|_| PgError::TooLarge(n))
}

/// A connection to a database holding (or to hold) a pitboss log.
pub struct PgLog {
    client: Client,
}

impl PgLog {
    /// Connects to `url` (`postgres://user@host:port/db` or key=value settings) and creates the
    /// tables when missing.
    pub fn connect(url: &str) -> Result<PgLog, PgError> {
        let mut client = Client::connect(url, NoTls)?;
        client.batch_execute(SCHEMA)?;
        Ok(PgLog { client })
    }

    /// How many entries the database holds.
    pub fn entries(&mut self) -> Result<u64, PgError> {
        let count: i64 = self
            .client
            .query_one("SELECT count(*) FROM pitboss_entries", &[])?
            .get(0);
        Ok(u64::try_from(count).unwrap_or(0))
    }

    /// Verifies the log the database holds, entry by entry from 0, with the same checks as
    /// `pitboss verify` (chain, hashes, keys, signatures, and `payloads` if given), reading
    /// `BATCH` entries at a time; `progress` counts the entries read.
    pub fn verify(
        &mut self,
        payloads: Option<PayloadCheck>,
        progress: &AtomicU64,
    ) -> Result<VerifyReport, PgError> {
        let mut reader = self.client.transaction()?;
        reader.batch_execute(
            "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY;
             DECLARE entries NO SCROLL CURSOR FOR
                 SELECT sequence, stored FROM pitboss_entries ORDER BY sequence",
        )?;
        let mut failure: Option<String> = None;
        let mut page: std::vec::IntoIter<KeyValue> = Vec::new().into_iter();
        let items = std::iter::from_fn(|| loop {
            if let Some(item) = page.next() {
                return Some(Ok(item));
            }
            if failure.is_some() {
                return None;
            }
            let rows = match reader.query(&format!("FETCH {BATCH} FROM entries"), &[]) {
                Ok(rows) => rows,
                Err(e) => {
                    let text = e.to_string();
                    failure = Some(text.clone());
                    return Some(Err(text));
                }
            };
            if rows.is_empty() {
                return None;
            }
            let mut next = Vec::with_capacity(rows.len());
            for row in rows {
                let sequence: i64 = row.get(0);
                let stored: Vec<u8> = row.get(1);
                // A negative sequence cannot be stored (CHECK), but a database is hostile until
                // checked: it becomes a key that is not a sequence, which the walk names.
                let key = u64::try_from(sequence)
                    .map(|s| s.to_be_bytes().to_vec())
                    .unwrap_or_default();
                next.push((key, stored));
            }
            progress.fetch_add(next.len() as u64, Ordering::Relaxed);
            page = next.into_iter();
        });
        let report = verify::verify_entries(items, payloads);
        drop(reader);
        Ok(report)
    }

    /// The head row: (size, last hash), if the database holds a log.
    pub fn head_row(&mut self) -> Result<Option<(u64, Vec<u8>)>, PgError> {
        Ok(self
            .client
            .query_opt("SELECT size, hash FROM pitboss_head", &[])?
            .map(|row| {
                let size: i64 = row.get(0);
                (u64::try_from(size).unwrap_or(0), row.get(1))
            }))
    }

    /// Copies the log of `store` into this (empty) database in one transaction: the source is
    /// verified first (with `payloads`), every entry and record is written byte for byte with the
    /// head row, the copy is verified back from the database, and its head must be the source's.
    /// `progress` counts entries written, then entries verified.
    pub fn copy_from(
        &mut self,
        store: &Store,
        payloads: Option<PayloadCheck>,
        progress: &AtomicU64,
    ) -> Result<Copied, PgError> {
        let source = verify::verify_with(store, 0, None, payloads);
        if let Some(problem) = &source.problem {
            return Err(PgError::SourceBad(problem.to_string()));
        }
        let existing = self.entries()?;
        if existing > 0 {
            return Err(PgError::NotEmpty { entries: existing });
        }
        let mut tx = self.client.transaction()?;
        // Another copy into the same database waits here, then finds it not empty.
        tx.batch_execute("LOCK TABLE pitboss_entries IN EXCLUSIVE MODE")?;
        let again: i64 = tx
            .query_one("SELECT count(*) FROM pitboss_entries", &[])?
            .get(0);
        if again > 0 {
            return Err(PgError::NotEmpty {
                entries: u64::try_from(again).unwrap_or(0),
            });
        }
        let mut entries = 0u64;
        let mut sequences: Vec<i64> = Vec::with_capacity(BATCH);
        let mut stored: Vec<Vec<u8>> = Vec::with_capacity(BATCH);
        let insert_entries = "INSERT INTO pitboss_entries (sequence, stored)
                              SELECT * FROM UNNEST($1::BIGINT[], $2::BYTEA[])";
        for item in store.entries_from(0)? {
            let (key, bytes) = item?;
            let sequence = super::store::be_u64(&key)
                .ok_or_else(|| PgError::SourceBad("a stored key is not a sequence".into()))?;
            sequences.push(signed(sequence)?);
            stored.push(bytes);
            if sequences.len() == BATCH {
                tx.execute(insert_entries, &[&sequences, &stored])?;
                entries += sequences.len() as u64;
                progress.store(entries, Ordering::Relaxed);
                sequences.clear();
                stored.clear();
            }
        }
        if !sequences.is_empty() {
            tx.execute(insert_entries, &[&sequences, &stored])?;
            entries += sequences.len() as u64;
            progress.store(entries, Ordering::Relaxed);
        }
        let mut records = 0u64;
        let insert_records = "INSERT INTO pitboss_records (family, key, value)
                              SELECT $1, * FROM UNNEST($2::BYTEA[], $3::BYTEA[])";
        for family in cf::ALL.iter().filter(|f| **f != cf::EVENTS) {
            let (mut keys, mut values): (Vec<Vec<u8>>, Vec<Vec<u8>>) = (Vec::new(), Vec::new());
            for item in store.family_items(family)? {
                let (key, value) = item?;
                keys.push(key);
                values.push(value);
                if keys.len() == BATCH {
                    tx.execute(insert_records, &[family, &keys, &values])?;
                    records += keys.len() as u64;
                    keys.clear();
                    values.clear();
                }
            }
            if !keys.is_empty() {
                tx.execute(insert_records, &[family, &keys, &values])?;
                records += keys.len() as u64;
            }
        }
        if let Some((last, hash)) = source.head {
            tx.execute(
                "INSERT INTO pitboss_head (size, hash) VALUES ($1, $2)",
                &[&signed(last.saturating_add(1))?, &hash.as_slice()],
            )?;
        }
        tx.commit()?;
        progress.store(0, Ordering::Relaxed);
        let copied = self.verify(payloads, progress)?;
        if let Some(problem) = &copied.problem {
            return Err(PgError::CopyBad(problem.to_string()));
        }
        let show = |head: Option<(u64, Hash)>| head.map(|(s, h)| (s, hex::encode(h)));
        if copied.head != source.head || copied.verified != entries {
            return Err(PgError::HeadDiffers {
                source_head: show(source.head),
                copied: show(copied.head),
            });
        }
        Ok(Copied {
            entries,
            records,
            head: source.head,
        })
    }
}
