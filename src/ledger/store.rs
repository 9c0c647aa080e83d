//! The RocksDB database in the data directory: opening it, creating it on first start, and the
//! column families the log will use. Owns the database handle; must not interpret what it stores.

use std::path::{Path, PathBuf};

use rocksdb::{ColumnFamilyDescriptor, Options, DB};

/// Column families, created on first open. `events` holds envelopes by sequence number; `meta` holds
/// the store's own records (format version, chain head).
pub const COLUMN_FAMILIES: [&str; 2] = ["events", "meta"];

/// Key under `meta` holding the on-disk format version.
const FORMAT_KEY: &[u8] = b"format_version";
/// The on-disk format this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

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
    #[error("the data directory {path} was written in format {found}; this build reads format {FORMAT_VERSION}")]
    Format { path: PathBuf, found: String },
}

/// The open database.
pub struct Store {
    db: DB,
    path: PathBuf,
}

impl Store {
    /// Opens the database in `dir`, creating the directory and the database if missing.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
            path: dir.to_path_buf(),
            source,
        })?;
        let rocks = |source| StoreError::Rocks {
            path: dir.to_path_buf(),
            source,
        };
        let mut options = Options::default();
        options.create_if_missing(true);
        options.create_missing_column_families(true);
        options.set_paranoid_checks(true);
        let families = COLUMN_FAMILIES
            .iter()
            .map(|name| ColumnFamilyDescriptor::new(*name, Options::default()));
        let db = DB::open_cf_descriptors(&options, dir, families).map_err(rocks)?;
        let store = Store {
            db,
            path: dir.to_path_buf(),
        };
        store.check_format()?;
        Ok(store)
    }

    /// The data directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the format version on first open (synced), and refuses a directory of another format.
    fn check_format(&self) -> Result<(), StoreError> {
        let rocks = |source| StoreError::Rocks {
            path: self.path.clone(),
            source,
        };
        let meta = self
            .db
            .cf_handle("meta")
            .ok_or_else(|| StoreError::Format {
                path: self.path.clone(),
                found: "a database without the `meta` column family".into(),
            })?;
        match self.db.get_cf(&meta, FORMAT_KEY).map_err(rocks)? {
            Some(bytes) if bytes == FORMAT_VERSION.to_be_bytes() => Ok(()),
            Some(bytes) => Err(StoreError::Format {
                path: self.path.clone(),
                found: hex::encode(bytes),
            }),
            None => {
                let mut write = rocksdb::WriteOptions::default();
                write.set_sync(true);
                self.db
                    .put_cf_opt(&meta, FORMAT_KEY, FORMAT_VERSION.to_be_bytes(), &write)
                    .map_err(rocks)
            }
        }
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
    }

    #[test]
    fn a_file_in_place_of_the_directory_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        std::fs::write(&path, b"not a directory").unwrap();
        let err = Store::open(&path).err().unwrap();
        assert!(err.to_string().contains("data"), "{err}");
    }
}
