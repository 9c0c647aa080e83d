//! The ledger: the durable store under the data directory. It knows no game rules.
//!
//! Today it opens (or creates) the RocksDB database and refuses a directory it cannot use; the
//! signed, hash-chained event log, its indexes and verification are built on this store.

pub mod store;

pub use store::{Store, StoreError};
