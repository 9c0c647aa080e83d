//! The RocksDB database in the data directory: its column families, their key layouts, and reads.
//! Writes go through the ledger's writer (`writer/`), one atomic, synced batch at a time.
//!
//! The families' key layouts and the format versions are `seam.rs`'s, which every engine keeps.
//!
//! The engine-neutral part — the families' names, the reads every engine answers (`LogStore`), a
//! group's writes (`Batch`) and the contract of a commit — is `seam.rs`; this file is RocksDB's.
//!
//! RocksDB is opened with paranoid checks and `TolerateCorruptedTailRecords` WAL recovery: a record
//! whose checksum fails anywhere in the write-ahead log stops the open (the default point-in-time
//! mode would silently keep only the log before it); a record cut short at the very end (a crash in
//! the middle of a write that was never acknowledged) is dropped. `pitboss recover` opens with
//! point-in-time recovery, explicitly. Every read verifies block checksums, and
//! `Store::scan_checksums` reads whole families to find damaged table files before serving.
//!
//! Owns the handle and the layout; interprets no payload.

use std::path::{Path, PathBuf};

pub(crate) use super::seam::{
    anchored_format, be_u64, cf, index_key, readable_format, stream_key, Batch, Write, FORMAT_KEY,
};
pub use super::seam::{
    Entries, KeyValue, LogStore, StoreError, StreamEntries, FORMAT_VERSION, LEGACY_FORMAT_VERSION,
    SIGNED_FORMAT_VERSION,
};

use rocksdb::{
    BlockBasedOptions, Cache, ColumnFamilyDescriptor, DBRecoveryMode, Direction, ErrorKind,
    IteratorMode, Options, ReadOptions, WriteBufferManager, DB,
};

/// The most table files RocksDB keeps open at once (beyond, it closes the least used).
pub const MAX_OPEN_FILES: i32 = 512;

/// How the write-ahead log is replayed when the database opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalRecovery {
    /// Refuse any damaged record; drop only a record cut short at the very end (never
    /// acknowledged). Every ordinary open.
    Strict,
    /// Keep the log up to the first damaged record and drop the rest (`pitboss recover` only).
    PointInTime,
}

/// All the memory RocksDB may hold for one database, in one LRU cache: the memtables of every
/// column family (charged to the cache by a write buffer manager), data blocks, and index and filter
/// blocks (cached, not held by each table reader, so they do not grow with the number of tables).
/// Without it each column family has its own 64 MiB memtables and every table file its own index
/// in memory: the server's resident size grows with the log (`docs/PERFORMANCE.md`, the soak).
pub const MEMORY_BUDGET: usize = 96 << 20;

/// Of [`MEMORY_BUDGET`], what memtables may take before a flush is forced.
const MEMTABLE_BUDGET: usize = 48 << 20;

/// One column family's memtable: small enough that several fit in [`MEMTABLE_BUDGET`].
const MEMTABLE_SIZE: usize = 16 << 20;

/// Options sharing one cache and one write buffer manager: the database's and every column
/// family's options come from the returned closure, so all of them count against one budget.
fn bounded_memory() -> impl Fn() -> Options {
    let cache = Cache::new_lru_cache(MEMORY_BUDGET);
    let buffers = WriteBufferManager::new_write_buffer_manager_with_cache(
        MEMTABLE_BUDGET,
        false,
        cache.clone(),
    );
    move || {
        let mut table = BlockBasedOptions::default();
        table.set_block_cache(&cache);
        table.set_cache_index_and_filter_blocks(true);
        table.set_pin_l0_filter_and_index_blocks_in_cache(true);
        let mut options = Options::default();
        options.set_block_based_table_factory(&table);
        options.set_write_buffer_size(MEMTABLE_SIZE);
        options.set_write_buffer_manager(&buffers);
        options
    }
}

/// How to open the database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenOptions {
    /// Open for writing (holding RocksDB's lock) rather than read-only.
    pub write: bool,
    /// Create the database if the directory holds none (writing only).
    pub create: bool,
    /// How to replay the write-ahead log.
    pub wal: WalRecovery,
}

impl OpenOptions {
    /// Read-only, strict.
    pub const READ_ONLY: OpenOptions = OpenOptions {
        write: false,
        create: false,
        wal: WalRecovery::Strict,
    };
}

/// The open database.
pub struct Store {
    db: DB,
    path: PathBuf,
}

/// True when `dir` holds a RocksDB database (its `CURRENT` file).
pub fn has_database(dir: &Path) -> bool {
    dir.join("CURRENT").exists()
}

/// Refuses a database another process holds open for writing (a running server): RocksDB's lock
/// on its `LOCK` file, as the operating system reports it, without taking it.
pub fn check_not_in_use(dir: &Path) -> Result<(), StoreError> {
    #[cfg(unix)]
    {
        use std::os::unix::io::AsRawFd;
        let Ok(file) = std::fs::File::open(dir.join("LOCK")) else {
            return Ok(());
        };
        // SAFETY: `flock` is plain data, zero is a valid value for every field; `fcntl` with
        // F_GETLK only reads the descriptor's lock state into it.
        let mut lock: libc::flock = unsafe { std::mem::zeroed() };
        lock.l_type = libc::F_WRLCK as _;
        lock.l_whence = libc::SEEK_SET as _;
        // SAFETY: a valid open descriptor and a valid pointer to a `flock` for the call.
        let answer = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETLK, &mut lock) };
        if answer == 0 && i32::from(lock.l_type) != libc::F_UNLCK {
            return Err(StoreError::InUse {
                path: dir.to_path_buf(),
                detail: format!(
                    "process {} holds {}",
                    lock.l_pid,
                    dir.join("LOCK").display()
                ),
            });
        }
    }
    Ok(())
}

impl Store {
    /// Opens the database in `dir` for reading and writing, creating it if missing (only the
    /// tests' tampering opens a store for writing but through the integrity checks).
    #[cfg(any(test, feature = "tamper"))]
    pub(crate) fn open(dir: &Path) -> Result<Store, StoreError> {
        Store::open_with(
            dir,
            OpenOptions {
                write: true,
                create: true,
                wal: WalRecovery::Strict,
            },
        )
    }

    /// Opens an existing database read-only (verification while a server may be running).
    pub fn open_read_only(dir: &Path) -> Result<Store, StoreError> {
        Store::open_with(dir, OpenOptions::READ_ONLY)
    }

    /// Opens the database in `dir` as `how` says. Checks the recorded format version (2 or 3, or
    /// none yet), but writes nothing of its own: the ledger records the format (`integrity.rs`).
    pub(crate) fn open_with(dir: &Path, how: OpenOptions) -> Result<Store, StoreError> {
        if how.write && how.create {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        let bounded = bounded_memory();
        let mut options = bounded();
        options.create_if_missing(how.write && how.create);
        options.create_missing_column_families(how.write);
        options.set_paranoid_checks(true);
        // Every open (read-only ones too) starts a new diagnostic `LOG`: keep the last few.
        options.set_keep_log_file_num(16);
        // Table files open at once, bounded: the server's connections share the process's file
        // descriptors with them (`docs/limits.md`).
        options.set_max_open_files(MAX_OPEN_FILES);
        options.set_wal_recovery_mode(match how.wal {
            WalRecovery::Strict => DBRecoveryMode::TolerateCorruptedTailRecords,
            WalRecovery::PointInTime => DBRecoveryMode::PointInTime,
        });
        let opened = if how.write {
            let families = cf::ALL
                .iter()
                .map(|name| ColumnFamilyDescriptor::new(*name, bounded()));
            DB::open_cf_descriptors(&options, dir, families)
        } else {
            DB::open_cf_for_read_only(&options, dir, cf::ALL, false)
        };
        let db = opened.map_err(|source| {
            let locked = source.kind() == ErrorKind::IOError
                && source.as_ref().contains("lock file")
                && has_database(dir);
            if locked {
                StoreError::InUse {
                    path: dir.to_path_buf(),
                    detail: source.into_string(),
                }
            } else {
                StoreError::Rocks {
                    path: dir.to_path_buf(),
                    source,
                }
            }
        })?;
        let store = Store {
            db,
            path: dir.to_path_buf(),
        };
        store.format_version()?;
        Ok(store)
    }

    /// The data directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The RocksDB handle, for the writer and for tests that tamper with the raw bytes.
    #[cfg(any(test, feature = "tamper"))]
    pub(crate) fn db(&self) -> &DB {
        &self.db
    }

    pub(crate) fn rocks(&self, source: rocksdb::Error) -> StoreError {
        StoreError::Rocks {
            path: self.path.clone(),
            source,
        }
    }

    /// A column family handle.
    pub(crate) fn cf(&self, name: &str) -> Result<&rocksdb::ColumnFamily, StoreError> {
        self.db.cf_handle(name).ok_or_else(|| StoreError::Format {
            path: self.path.clone(),
            found: format!("no `{name}` column family"),
        })
    }

    /// The format version recorded in `meta` (`None` in a database not yet set up). Refuses one
    /// this build cannot read.
    pub fn format_version(&self) -> Result<Option<u32>, StoreError> {
        let meta = self.cf(cf::META)?;
        match self
            .db
            .get_cf(meta, FORMAT_KEY)
            .map_err(|e| self.rocks(e))?
        {
            None => Ok(None),
            Some(bytes) => match <[u8; 4]>::try_from(bytes.as_slice()).map(u32::from_be_bytes) {
                Ok(v) if readable_format(v) => Ok(Some(v)),
                _ => Err(StoreError::Format {
                    path: self.path.clone(),
                    found: format!(
                        "format {}, this build reads {LEGACY_FORMAT_VERSION} to {FORMAT_VERSION}",
                        hex::encode(bytes)
                    ),
                }),
            },
        }
    }

    /// Records the format version, synced.
    pub(crate) fn set_format_version(&self, version: u32) -> Result<(), StoreError> {
        let mut options = rocksdb::WriteOptions::default();
        options.set_sync(true);
        self.db
            .put_cf_opt(
                self.cf(cf::META)?,
                FORMAT_KEY,
                version.to_be_bytes(),
                &options,
            )
            .map_err(|e| self.rocks(e))
    }

    /// Reads every key and value of `family` with block checksums verified, bypassing the block
    /// cache: damaged table files are named (RocksDB's error gives the file and offset). Returns
    /// how many records it read.
    pub(crate) fn scan_checksums(&self, family: &str) -> Result<u64, StoreError> {
        let mut options = ReadOptions::default();
        options.set_verify_checksums(true);
        options.fill_cache(false);
        options.set_readahead_size(4 << 20);
        let iter = self
            .db
            .iterator_cf_opt(self.cf(family)?, options, IteratorMode::Start);
        let mut n = 0u64;
        for item in iter {
            item.map_err(|e| self.rocks(e))?;
            n += 1;
        }
        Ok(n)
    }

    /// Writes every family's memtable to table files and waits (so that the write-ahead log is
    /// no longer needed to reopen).
    pub(crate) fn flush_all(&self) -> Result<(), StoreError> {
        for family in cf::ALL {
            self.db
                .flush_cf(self.cf(family)?)
                .map_err(|e| self.rocks(e))?;
        }
        Ok(())
    }

    /// Every record of `family`, in key order (for a copy of the whole store). Stops at a read
    /// error, which it yields.
    pub(crate) fn family_items(
        &self,
        family: &str,
    ) -> Result<impl Iterator<Item = Result<KeyValue, StoreError>> + '_, StoreError> {
        let iter = self.db.iterator_cf(self.cf(family)?, IteratorMode::Start);
        Ok(iter.map(move |item| {
            item.map(|(k, v)| (k.to_vec(), v.to_vec()))
                .map_err(|e| self.rocks(e))
        }))
    }

    /// Writes a group's batch, synced when `sync` (every group the writer commits).
    pub(crate) fn write(&self, batch: &Batch, sync: bool) -> Result<(), StoreError> {
        let mut rocks = rocksdb::WriteBatch::default();
        for write in &batch.writes {
            match write {
                Write::Put(family, key, value) => rocks.put_cf(self.cf(family)?, key, value),
                Write::Delete(family, key) => rocks.delete_cf(self.cf(family)?, key),
            }
        }
        let mut options = rocksdb::WriteOptions::default();
        options.set_sync(sync);
        self.db
            .write_opt(rocks, &options)
            .map_err(|e| self.rocks(e))
    }
}

impl super::seam::Storage for Store {}

impl super::seam::Apply for Store {
    fn apply(&self, batch: &Batch, sync: bool) -> Result<(), StoreError> {
        self.write(batch, sync)
    }
}

impl LogStore for Store {
    fn get(&self, family: &str, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        self.db
            .get_cf(self.cf(family)?, key)
            .map_err(|e| self.rocks(e))
    }

    fn scan(
        &self,
        family: &str,
        prefix: &[u8],
        start: &[u8],
        limit: usize,
    ) -> Result<Vec<KeyValue>, StoreError> {
        let iter = self.db.iterator_cf(
            self.cf(family)?,
            IteratorMode::From(start, Direction::Forward),
        );
        let mut out = Vec::new();
        for item in iter {
            if out.len() >= limit {
                break;
            }
            let (key, value) = item.map_err(|e| self.rocks(e))?;
            if !key.starts_with(prefix) {
                break;
            }
            out.push((key.to_vec(), value.to_vec()));
        }
        Ok(out)
    }

    fn entries_from(&self, from: u64) -> Result<Entries<'_>, StoreError> {
        let start = from.to_be_bytes();
        let iter = self.db.iterator_cf(
            self.cf(cf::EVENTS)?,
            IteratorMode::From(&start, Direction::Forward),
        );
        Ok(Box::new(iter.map(move |item| {
            item.map(|(k, v)| (k.to_vec(), v.to_vec()))
                .map_err(|e| self.rocks(e))
        })))
    }

    fn last_entry(&self) -> Result<Option<(u64, Vec<u8>)>, StoreError> {
        let mut iter = self.db.iterator_cf(self.cf(cf::EVENTS)?, IteratorMode::End);
        match iter.next() {
            None => Ok(None),
            Some(Err(e)) => Err(self.rocks(e)),
            Some(Ok((key, value))) => Ok(be_u64(&key).map(|seq| (seq, value.to_vec()))),
        }
    }

    fn describe(&self) -> String {
        self.path.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_creates_and_reopens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        drop(Store::open(&path).unwrap());
        let store = Store::open(&path).unwrap();
        assert_eq!(store.path(), path);
        assert!(store.last_entry().unwrap().is_none());
        drop(store);
        assert!(Store::open_read_only(&path).is_ok());
    }

    #[test]
    fn a_file_in_place_of_the_directory_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        std::fs::write(&path, b"not a directory").unwrap();
        let err = Store::open(&path).err().unwrap();
        assert!(err.to_string().contains("data"), "{err}");
    }

    #[test]
    fn keys_sort_numerically() {
        assert!(stream_key("hand/a", 2) < stream_key("hand/a", 10));
        assert!(stream_key("hand/a", u64::MAX) < stream_key("hand/b", 0));
        assert_eq!(be_u64(&7u64.to_be_bytes()), Some(7));
        assert_eq!(be_u64(&[1, 2]), None);
    }
}
