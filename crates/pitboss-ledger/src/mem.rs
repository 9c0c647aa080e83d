//! The log in memory: a storage engine whose bytes live in this process only, for the tests of
//! what is not durability (the floor's rooms, the server's handlers), where a RocksDB directory
//! would cost a database per test and prove nothing more. One module: its storage (the seam's
//! `Storage` and `Apply`), the writer's shared pipeline with no anchor to record, and its opening
//! ([`Ledger::open_memory`]).
//!
//! "Durable" means applied to the maps under their write lock: an acknowledged append is in the
//! maps, and the maps are the head. Nothing survives the process; a crash test is not its job.
//! Reopening a log (a restart within a test) is opening a ledger again on the same
//! [`MemoryLog`] handle, which resumes after the log's last entry, every entry verified.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, RwLock};

use super::keys::Keypair;
use super::seam::{cf, Apply, Batch, Entries, KeyValue, LogStore, Storage, StoreError, Write};
use super::{writer, Ledger, LedgerError, OpenError, PayloadCheck};

/// A log in memory: clones share it, and a ledger opened on it again resumes where it stands.
#[derive(Clone, Default)]
pub struct MemoryLog(Arc<MemStore>);

impl MemoryLog {
    /// An empty log.
    pub fn new() -> MemoryLog {
        MemoryLog::default()
    }
}

/// Each family's records in key order, by family.
type Families = BTreeMap<&'static str, BTreeMap<Vec<u8>, Vec<u8>>>;

/// The log's records.
#[derive(Default)]
struct MemStore {
    families: RwLock<Families>,
}

impl MemStore {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, Families> {
        self.families.read().unwrap_or_else(|p| p.into_inner())
    }
}

impl Apply for MemStore {
    /// The whole batch under one write lock: a read sees all of it or none.
    fn apply(&self, batch: &Batch, _sync: bool) -> Result<(), StoreError> {
        let mut families = self.families.write().unwrap_or_else(|p| p.into_inner());
        for write in &batch.writes {
            match write {
                Write::Put(family, key, value) => {
                    families
                        .entry(family)
                        .or_default()
                        .insert(key.clone(), value.clone());
                }
                Write::Delete(family, key) => {
                    if let Some(records) = families.get_mut(family) {
                        records.remove(key);
                    }
                }
            }
        }
        Ok(())
    }
}

impl Storage for MemStore {}

impl LogStore for MemStore {
    fn get(&self, family: &str, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self
            .read()
            .get(family)
            .and_then(|records| records.get(key).cloned()))
    }

    fn scan(
        &self,
        family: &str,
        prefix: &[u8],
        start: &[u8],
        limit: usize,
    ) -> Result<Vec<KeyValue>, StoreError> {
        Ok(self
            .read()
            .get(family)
            .map(|records| {
                records
                    .range(start.to_vec()..)
                    .take_while(|(key, _)| key.starts_with(prefix))
                    .take(limit)
                    .map(|(key, value)| (key.clone(), value.clone()))
                    .collect()
            })
            .unwrap_or_default())
    }

    fn entries_from(&self, from: u64) -> Result<Entries<'_>, StoreError> {
        // Copied under the lock, so that no lock is held while the caller iterates.
        let entries: Vec<KeyValue> = self
            .read()
            .get(cf::EVENTS)
            .map(|records| {
                records
                    .range(from.to_be_bytes().to_vec()..)
                    .map(|(key, value)| (key.clone(), value.clone()))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Box::new(entries.into_iter().map(Ok)))
    }

    fn last_entry(&self) -> Result<Option<(u64, Vec<u8>)>, StoreError> {
        Ok(self.read().get(cf::EVENTS).and_then(|records| {
            records
                .last_key_value()
                .and_then(|(key, value)| super::seam::be_u64(key).map(|s| (s, value.clone())))
        }))
    }

    fn describe(&self) -> String {
        "memory".to_string()
    }
}

/// For the seam's contract suite: a log in memory, opened again on the same handle.
#[cfg(test)]
pub(crate) fn maker() -> super::contract::Maker {
    let log = MemoryLog::new();
    Box::new(move |dir: &Path| Ledger::open_memory(&log, dir, 1_000, None).expect("a log in memory"))
}

impl Ledger {
    /// Opens the log `log` keeps in memory, signing with the key file in `key_dir` (created, and
    /// published as the first entry, for an empty log). A log that holds entries is verified
    /// whole first, and must be signed last by that key: the ledger resumes after its last entry.
    pub fn open_memory(
        log: &MemoryLog,
        key_dir: &Path,
        now_ms: u64,
        payloads: Option<PayloadCheck>,
    ) -> Result<Ledger, OpenError> {
        let store = log.0.clone();
        let (key, created) = Keypair::load_or_create(key_dir).map_err(LedgerError::from)?;
        let report = super::verify::verify_with(store.as_ref(), 0, None, payloads);
        if let Some(problem) = report.problem {
            return Err(LedgerError::NotTheLog(problem).into());
        }
        let (next_sequence, last_hash) = report
            .head
            .map_or((0, super::entry::GENESIS), |(sequence, hash)| {
                (sequence + 1, hash)
            });
        let current = store
            .get(cf::META, writer::CURRENT_KEY)
            .map_err(LedgerError::from)?;
        if next_sequence > 0 && (created || current.as_deref() != Some(&key.id().0[..])) {
            return Err(LedgerError::KeyNotTrusted {
                entries: next_sequence,
                ours: key.id(),
            }
            .into());
        }
        let origin = match store
            .get(cf::EVENTS, &0u64.to_be_bytes())
            .map_err(LedgerError::from)?
        {
            Some(bytes) => Some(
                super::Entry::decode(&bytes)
                    .map_err(|e| LedgerError::Corrupt {
                        sequence: 0,
                        problem: e.to_string(),
                    })?
                    .hash,
            ),
            None => None,
        };
        let w = writer::Writer::new(
            store.clone(),
            Box::new(writer::Pipeline::new(store, writer::Anchorer::new(None, 0))),
            key_dir.to_path_buf(),
            key,
            (next_sequence, last_hash),
            origin,
        );
        let (mut ledger, _) = Ledger::launch(w, now_ms, next_sequence == 0, None)?;
        ledger.payloads = payloads;
        Ok(ledger)
    }
}
