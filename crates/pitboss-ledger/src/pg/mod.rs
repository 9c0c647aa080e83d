//! A log on PostgreSQL: the store ([`PgStore`]) and its connections to one database, for the
//! reads every engine answers ([`LogStore`](crate::LogStore)) and the writer's locked commit (one group per
//! transaction, ordered by the head row). The verified copies between a RocksDB data directory and
//! a database are `copy.rs`'s; the checks before a server writes to a database or reads it,
//! `pg_open.rs`'s.
//!
//! The schema keeps the store's own bytes: `pitboss_entries` holds each stored entry (envelope,
//! hash, signature) under its sequence number, exactly as RocksDB holds it, so hashes, signatures,
//! Merkle trees and proofs are the same; `pitboss_records` holds every other record (stream
//! positions, stream heads, request records, recall indexes, keys, secrets, the format) under its
//! family and key, byte for byte; `pitboss_head` is the one row naming the chain's head (size and
//! last hash).
//!
//! Sequencing (`docs/deploy.md`): a writer begins a transaction and locks the head row
//! (`SELECT … FOR UPDATE`); several servers on one database take turns there. It builds and signs
//! its group on the head it read (stream versions and request records read after the lock, so
//! they include every group committed before), writes the entries and records, and moves the head
//! with `UPDATE … WHERE size = old AND hash = old`, which must touch exactly one row (else it fails
//! and the transaction with it), in the same transaction; only after `COMMIT` returns (with a
//! synchronous standby: once the standby has it) are the callers answered. A group is two round
//! trips: `BEGIN`, the lock and the reads pipelined; the writes, the head's move and `COMMIT`
//! pipelined (a failed statement turns the `COMMIT` into a `ROLLBACK`). Every statement is prepared
//! once and planned for its own keys. A server that waited for the lock finds the head moved, re-reads
//! what it needs and signs on the new head: no two groups ever chain onto the same entry.
//!
//! Owns the SQL and the connections; MUST NOT decide what a record means (the store's layout and
//! the writer do) and MUST NOT write into a database that already holds a log by a copy (a copy
//! never merges two logs).
//!
//! By job: the schema, the connections with their prepared reads and the runtimes that drive them
//! (`connection.rs`); the reads of [`LogStore`](crate::LogStore) (`reads.rs`); the head row, read and created, and
//! an empty log's first record (`head.rs`); the writer's dedicated connection and its transaction
//! per group (`session.rs`); here, the store itself: connecting, the shared readers.

mod connection;
mod head;
mod reads;
mod session;

use std::future::Future;
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio_postgres::error::SqlState;
use tokio_postgres::Config;

use super::store::StoreError;
use connection::{connect, describe_config, pg_error, Conn, Runner, READERS, SCHEMA};

pub(crate) use connection::{signed, PAGE};
pub use head::HeadAndLast;
pub(crate) use session::{Committed, Prefetched, Session};

/// A log in a PostgreSQL database: reads from a few shared connections, a dedicated connection
/// for the writer (`PgStore::session`). The shared connections run on the client's own small
/// runtime, so the ledger's synchronous reads can be called from anywhere (an async worker
/// included): each one hands its query to that runtime and waits for the answer. The writer's
/// connection is driven by the writer's thread itself (`PgStore::session`).
pub struct PgStore {
    runtime: Option<tokio::runtime::Runtime>,
    runner: Runner,
    config: Config,
    /// `postgres://user@host:port/db`, never the password: for messages.
    database: String,
    readers: Vec<Mutex<Option<Arc<Conn>>>>,
    next_reader: AtomicUsize,
    /// Opened only to read ([`PgStore::connect_reading`]): every connection is read-only.
    reading: bool,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("database", &self.database)
            .finish()
    }
}

impl Drop for PgStore {
    fn drop(&mut self) {
        // Dropped from an async task too (a server stopping): never block there.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl PgStore {
    /// Connects to `url` (`postgres://user@host:port/db` or `host=… port=… user=… dbname=…`),
    /// creates the tables when missing, and checks it can read.
    pub fn connect(url: &str) -> Result<PgStore, StoreError> {
        let store = PgStore::configure(url, false)?;
        let (config, database) = (store.config.clone(), store.database.clone());
        store.runner.block(async move {
            connect(&config, &database)
                .await?
                .batch_execute(SCHEMA)
                .await
                .map_err(|e| pg_error(&database, &e))
        })?;
        Ok(store)
    }

    /// Connects to `url` only to read: creates nothing, and every connection is read-only
    /// (`default_transaction_read_only`), so a streaming replica (a hot standby) serves, and a
    /// role without write privileges is enough. A database without the log's tables is refused.
    pub fn connect_reading(url: &str) -> Result<PgStore, StoreError> {
        let store = PgStore::configure(url, true)?;
        // Opening a connection prepares the reads, which fails on a missing table: named here.
        let opened = store.reader();
        match opened {
            Ok(_) => Ok(store),
            Err(StoreError::Postgres {
                database,
                detail,
                state,
            }) if state.as_ref() == Some(&SqlState::UNDEFINED_TABLE.code().to_string()) => {
                Err(StoreError::Postgres {
                    database,
                    state,
                    detail: format!(
                        "holds no pitboss log (the tables pitboss_entries, pitboss_records and \
                         pitboss_head are made by the first writing server or a copy): {detail}"
                    ),
                })
            }
            Err(e) => Err(e),
        }
    }

    /// The store for `url`, its client runtime started, not yet connected.
    fn configure(url: &str, reading: bool) -> Result<PgStore, StoreError> {
        let config = Config::from_str(url).map_err(|e| StoreError::Postgres {
            state: None,
            database: "(the URL given)".into(),
            detail: format!("not a PostgreSQL connection string: {e}"),
        })?;
        let mut config = config;
        // A database that does not answer is noticed, not waited for forever: a connection attempt
        // gives up after 10 s, and a silent peer is probed after 30 s (unless the URL says).
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(std::time::Duration::from_secs(10));
        }
        let idle = config
            .get_keepalives_idle()
            .min(std::time::Duration::from_secs(30));
        config.keepalives_idle(idle);
        let database = describe_config(&config);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("pitboss-postgres")
            .enable_all()
            .build()
            .map_err(|e| StoreError::Postgres {
                state: None,
                database: database.clone(),
                detail: format!("cannot start the client's threads: {e}"),
            })?;
        let store = PgStore {
            runner: Runner {
                handle: runtime.handle().clone(),
                database: database.clone(),
            },
            runtime: Some(runtime),
            config,
            database,
            readers: (0..READERS).map(|_| Mutex::new(None)).collect(),
            next_reader: AtomicUsize::new(0),
            reading,
        };
        Ok(store)
    }

    fn open_conn(&self) -> Result<Arc<Conn>, StoreError> {
        self.runner.block(self.opening())
    }

    /// A new connection, once run: on the client's runtime or on a session's own.
    fn opening(&self) -> impl Future<Output = Result<Arc<Conn>, StoreError>> + Send + 'static {
        let (config, database, reading) =
            (self.config.clone(), self.database.clone(), self.reading);
        async move { Conn::open(config, database, reading).await.map(Arc::new) }
    }

    /// A reader's connection, reconnected if it was lost (a restart, a failover).
    fn reader(&self) -> Result<Arc<Conn>, StoreError> {
        let i = self.next_reader.fetch_add(1, Ordering::Relaxed) % self.readers.len().max(1);
        let Some(slot) = self.readers.get(i) else {
            return self.open_conn();
        };
        let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
        match slot.as_ref() {
            Some(conn) if !conn.client.is_closed() => Ok(conn.clone()),
            _ => {
                let conn = self.open_conn()?;
                *slot = Some(conn.clone());
                Ok(conn)
            }
        }
    }

    /// Runs a query on a reader with the database's name for its errors.
    fn read<T: Send + 'static, F>(
        &self,
        query: impl FnOnce(Arc<Conn>) -> F + Send + 'static,
    ) -> Result<T, StoreError>
    where
        F: Future<Output = Result<T, tokio_postgres::Error>> + Send,
    {
        self.runner.query(self.reader()?, query)
    }
}

impl super::seam::Storage for PgStore {
    fn shared(&self) -> bool {
        true
    }
}
