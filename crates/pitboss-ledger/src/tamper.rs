//! Writes around the single writer, for the tests of damaged data directories only (the `tamper`
//! feature, which only the test builds turn on). Everything here breaks the log's guarantees on
//! purpose: a changed entry, a lost request record, an older format. The server and its tools
//! never call it.

use std::path::{Path, PathBuf};

use crate::store::{cf, LogStore, Store, StoreError};

/// A data directory's store, opened for tampering (no server may hold it), or an open ledger's.
pub struct Tamper<'a> {
    store: Held<'a>,
}

enum Held<'a> {
    Opened(Store),
    Ledger(&'a Store),
}

impl<'a> Tamper<'a> {
    /// Opens the store in `dir` for writing.
    pub fn open(dir: &Path) -> Result<Tamper<'static>, StoreError> {
        Ok(Tamper {
            store: Held::Opened(Store::open(dir)?),
        })
    }

    /// The store of an open ledger, under its writer.
    pub fn ledger(ledger: &'a crate::Ledger) -> Tamper<'a> {
        Tamper {
            store: Held::Ledger(
                ledger
                    .rocks()
                    .expect("tampering is for RocksDB data directories"),
            ),
        }
    }

    /// The stored record of entry `sequence` (envelope bytes, hash and signature).
    pub fn entry(&self, sequence: u64) -> Result<Option<Vec<u8>>, StoreError> {
        self.store().stored_entry(sequence)
    }

    /// Replaces the stored record of entry `sequence`.
    pub fn put_entry(&self, sequence: u64, bytes: &[u8]) -> Result<(), StoreError> {
        self.put(cf::EVENTS, &sequence.to_be_bytes(), bytes)
    }

    /// Removes entry `sequence`.
    pub fn delete_entry(&self, sequence: u64) -> Result<(), StoreError> {
        self.delete(cf::EVENTS, &sequence.to_be_bytes())
    }

    /// The stored record of request id `id`.
    pub fn request(&self, id: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.store().get(cf::REQUESTS, id.as_bytes())
    }

    /// Replaces the stored record of request id `id`.
    pub fn put_request(&self, id: &str, bytes: &[u8]) -> Result<(), StoreError> {
        self.put(cf::REQUESTS, id.as_bytes(), bytes)
    }

    /// Forgets request id `id`.
    pub fn delete_request(&self, id: &str) -> Result<(), StoreError> {
        self.delete(cf::REQUESTS, id.as_bytes())
    }

    /// Records another on-disk format version (an older release's directory).
    pub fn set_format_version(&self, version: u32) -> Result<(), StoreError> {
        self.store().set_format_version(version)
    }

    /// Flushes everything into table files and names those holding entries (paths relative to
    /// the data directory).
    pub fn entry_table_files(&self) -> Result<Vec<PathBuf>, StoreError> {
        self.store().flush_all()?;
        let files = self
            .store()
            .db()
            .live_files()
            .map_err(|e| self.store().rocks(e))?;
        Ok(files
            .into_iter()
            .filter(|f| f.column_family_name == cf::EVENTS)
            .map(|f| PathBuf::from(f.name.trim_start_matches('/')))
            .collect())
    }

    fn put(&self, family: &str, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        self.store()
            .db()
            .put_cf(self.store().cf(family)?, key, value)
            .map_err(|e| self.store().rocks(e))
    }

    fn delete(&self, family: &str, key: &[u8]) -> Result<(), StoreError> {
        self.store()
            .db()
            .delete_cf(self.store().cf(family)?, key)
            .map_err(|e| self.store().rocks(e))
    }

    fn store(&self) -> &Store {
        match &self.store {
            Held::Opened(store) => store,
            Held::Ledger(store) => store,
        }
    }
}

/// A group committed on a PostgreSQL log as the writer commits it — the head row locked, an entry
/// and a record written, the head moved — but built on `claimed` rather than the head it locked,
/// as a server whose view of the head was wrong would. Returns whether it committed (`true`) or
/// was refused with nothing written (`false`).
pub fn commit_on_claimed_head(
    url: &str,
    claimed: (u64, [u8; 32]),
    entry: Vec<u8>,
) -> Result<bool, StoreError> {
    use crate::pg::Committed;
    let pg = crate::pg::PgStore::connect(url)?;
    let session = pg.session()?;
    session.lock_head(&[])?;
    let mut batch = crate::store::Batch::default();
    batch.put(cf::EVENTS, claimed.0.to_be_bytes(), entry);
    batch.put(cf::META, b"tampered".to_vec(), b"yes".to_vec());
    let next = (claimed.0 + 1, [7; 32]);
    Ok(session.commit_group(batch, claimed, next)? == Committed::Done)
}
