//! A log on PostgreSQL: the schema, the reads every engine answers ([`LogStore`]), the writer's
//! locked commit (one group per transaction, ordered by the head row), and the verified copies
//! between a RocksDB data directory and a database (`pitboss copy`).
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

use std::collections::HashMap;
use std::future::Future;
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, Config, NoTls, Statement};

use super::entry::{Hash, GENESIS};
use super::store::{
    be_u64, cf, Batch, Entries, KeyValue, LogStore, StoreError, StreamEntries, Write,
};

/// Entries (or records) sent or read per statement.
pub(crate) const PAGE: usize = 1_000;

/// Connections for reads, shared round robin (each pipelines the queries sent to it).
const READERS: usize = 4;

/// The tables, created when missing.
/// Servers starting at once on a new database create the tables one at a time (concurrent
/// `CREATE TABLE IF NOT EXISTS` can fail on PostgreSQL's catalog): under this transaction-scoped
/// advisory lock ("pitboss" in ASCII).
const SCHEMA: &str = "
SET client_min_messages = warning;
BEGIN;
SELECT pg_advisory_xact_lock(31641145980187507);
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
COMMIT;
";

pub(crate) fn signed(n: u64) -> Result<i64, StoreError> {
    i64::try_from(n).map_err(|_| StoreError::Postgres {
        state: None,
        database: String::new(),
        detail: format!("{n} is beyond PostgreSQL's BIGINT"),
    })
}

/// A database value that must be a count or a sequence: never negative (the schema's CHECKs say
/// so, and a database is hostile until checked).
fn unsigned(n: i64, database: &str, what: &str) -> Result<u64, StoreError> {
    u64::try_from(n).map_err(|_| StoreError::Postgres {
        state: None,
        database: database.to_string(),
        detail: format!("{what} is {n}, below zero"),
    })
}

/// One connection and the statements prepared on it.
struct Conn {
    client: Client,
    get_record: Statement,
    get_entry: Statement,
    scan: Statement,
    scan_to: Statement,
    entries_page: Statement,
    stream_entries: Statement,
    last_entry: Statement,
}

impl Conn {
    /// A connection whose statements are prepared (the tables exist); a reading store's
    /// connections refuse every write in the database itself.
    async fn open(config: Config, database: String, reading: bool) -> Result<Conn, StoreError> {
        let fail = |e: tokio_postgres::Error| pg_error(&database, &e);
        let client = connect(&config, &database).await?;
        if reading {
            client
                .batch_execute("SET default_transaction_read_only = on")
                .await
                .map_err(fail)?;
        }
        let prepare = |sql: &'static str| {
            let client = &client;
            async move { client.prepare(sql).await }
        };
        Ok(Conn {
            get_record: prepare("SELECT value FROM pitboss_records WHERE family = $1 AND key = $2")
                .await
                .map_err(fail)?,
            get_entry: prepare("SELECT stored FROM pitboss_entries WHERE sequence = $1")
                .await
                .map_err(fail)?,
            scan: prepare(
                "SELECT key, value FROM pitboss_records WHERE family = $1 AND key >= $2
                 ORDER BY key LIMIT $3",
            )
            .await
            .map_err(fail)?,
            scan_to: prepare(
                "SELECT key, value FROM pitboss_records WHERE family = $1 AND key >= $2
                 AND key < $3 ORDER BY key LIMIT $4",
            )
            .await
            .map_err(fail)?,
            stream_entries: prepare(
                "SELECT r.value, e.stored FROM pitboss_records r
                 LEFT JOIN pitboss_entries e ON length(r.value) = 8
                     AND e.sequence = ('x' || encode(r.value, 'hex'))::BIT(64)::BIGINT
                 WHERE r.family = 'streams' AND r.key >= $1 AND r.key < $2
                     AND length(r.key) = $3 ORDER BY r.key",
            )
            .await
            .map_err(fail)?,
            entries_page: prepare(
                "SELECT sequence, stored FROM pitboss_entries WHERE sequence >= $1
                 ORDER BY sequence LIMIT $2",
            )
            .await
            .map_err(fail)?,
            last_entry: prepare(
                "SELECT sequence, stored FROM pitboss_entries ORDER BY sequence DESC LIMIT 1",
            )
            .await
            .map_err(fail)?,
            client,
        })
    }
}

/// A bare connection, its driving task spawned on the current (the client's) runtime.
async fn connect(config: &Config, database: &str) -> Result<Client, StoreError> {
    let (client, connection) = config
        .connect(NoTls)
        .await
        .map_err(|e| pg_error(database, &e))?;
    let label = database.to_string();
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::warn!(database = %label, error = %e, "a PostgreSQL connection ended");
        }
    });
    Ok(client)
}

/// A PostgreSQL error as the store reports it: the server's own message when it sent one.
fn pg_error(database: &str, e: &tokio_postgres::Error) -> StoreError {
    let detail = match e.as_db_error() {
        Some(db) => format!("{} {}: {}", db.severity(), db.code().code(), db.message()),
        None => match std::error::Error::source(e) {
            Some(source) => format!("{e}: {source}"),
            None => e.to_string(),
        },
    };
    StoreError::Postgres {
        database: database.to_string(),
        detail,
        state: e.code().map(|state| state.code().to_string()),
    }
}

/// Column `i` of a row, refused (not a panic) when the database holds another type or NULL there:
/// a database is hostile until checked.
fn col<'a, T: tokio_postgres::types::FromSql<'a>>(
    row: &'a tokio_postgres::Row,
    i: usize,
    database: &str,
) -> Result<T, StoreError> {
    row.try_get(i).map_err(|e| pg_error(database, &e))
}

/// The smallest key greater than every key starting with `prefix` (`None`: there is none).
fn after_prefix(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < u8::MAX {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

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

/// `postgres://user@host:port/db` from a parsed configuration, without the password.
fn describe_config(config: &Config) -> String {
    let host = config
        .get_hosts()
        .first()
        .map(|h| match h {
            tokio_postgres::config::Host::Tcp(name) => name.clone(),
            #[cfg(unix)]
            tokio_postgres::config::Host::Unix(path) => path.display().to_string(),
        })
        .unwrap_or_default();
    let port = config.get_ports().first().copied().unwrap_or(5432);
    format!(
        "postgres://{}@{host}:{port}/{}",
        config.get_user().unwrap_or(""),
        config.get_dbname().unwrap_or("")
    )
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

    /// A connection of its own, for the writer's transactions (and a copy's).
    ///
    /// Opened on a thread outside any runtime (the writer's thread, `pitboss copy`), the session
    /// drives its connection itself, on a runtime of its own on that thread: a round trip is that
    /// thread writing the statements and reading the answer, with no hand-off to the client's
    /// threads and back (two thread wake-ups per round trip, while a group holds the head row's
    /// lock). Opened inside a runtime (the first group of a ledger a server opens there, async
    /// tests), it hands its statements to the client's runtime. Either way a session is used on
    /// the thread that opened it, one statement at a time.
    pub(crate) fn session(&self) -> Result<Session, StoreError> {
        let driver = match tokio::runtime::Handle::try_current() {
            Ok(_) => Driver::Shared(self.runner.clone()),
            Err(_) => Driver::Own {
                runtime: Some(
                    tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .map_err(|e| StoreError::Postgres {
                            state: None,
                            database: self.database.clone(),
                            detail: format!("cannot start the writer's client runtime: {e}"),
                        })?,
                ),
                database: self.database.clone(),
            },
        };
        let conn = driver.block(self.opening())?;
        let (upsert, remove, insert_entries, lock, prefetch, move_head) =
            driver.query(conn.clone(), |conn| async move {
                // A statement prepared once would get a generic plan after five runs; for the
                // reads and writes by arrays of keys (UNNEST) that plan may scan the whole
                // records table. Each run is planned for its own keys.
                conn.client
                    .batch_execute("SET plan_cache_mode = force_custom_plan")
                    .await?;
                let upsert = conn
                    .client
                    .prepare(
                        "INSERT INTO pitboss_records (family, key, value)
                     SELECT * FROM UNNEST($1::TEXT[], $2::BYTEA[], $3::BYTEA[])
                     ON CONFLICT (family, key) DO UPDATE SET value = EXCLUDED.value",
                    )
                    .await?;
                let remove = conn
                    .client
                    .prepare(
                        "DELETE FROM pitboss_records r USING UNNEST($1::TEXT[], $2::BYTEA[])
                     AS w(family, key) WHERE r.family = w.family AND r.key = w.key",
                    )
                    .await?;
                let insert = conn
                    .client
                    .prepare(
                        "INSERT INTO pitboss_entries (sequence, stored)
                     SELECT * FROM UNNEST($1::BIGINT[], $2::BYTEA[])",
                    )
                    .await?;
                let lock = conn
                    .client
                    .prepare("SELECT size, hash FROM pitboss_head FOR UPDATE")
                    .await?;
                // One index lookup per key (the subquery is not pulled up into a join, so the
                // planner weighs no join orders or methods): about half the planning time of a
                // join with the keys, measured, and a group plans it once or twice while it holds
                // the head row.
                let prefetch = conn
                    .client
                    .prepare(
                        "SELECT w.family, w.key, x.value
                         FROM UNNEST($1::TEXT[], $2::BYTEA[]) AS w(family, key)
                         CROSS JOIN LATERAL (SELECT r.value FROM pitboss_records r
                         WHERE r.family = w.family AND r.key = w.key OFFSET 0) x",
                    )
                    .await?;
                // Fails (division by zero, SQLSTATE 22012) unless exactly one row moved, so that
                // the COMMIT sent behind it turns into a ROLLBACK when the head was not the one the
                // group was built on.
                let move_head = conn
                    .client
                    .prepare(
                        "WITH moved AS (UPDATE pitboss_head SET size = $1, hash = $2
                         WHERE size = $3 AND hash = $4 RETURNING 1)
                         SELECT 1 / count(*)::INT FROM moved",
                    )
                    .await?;
                Ok((upsert, remove, insert, lock, prefetch, move_head))
            })?;
        Ok(Session {
            conn: Some(conn),
            driver,
            upsert,
            remove,
            insert_entries,
            lock,
            prefetch,
            move_head,
        })
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

    /// The head row: (size, last hash); `None` before the first writer created it.
    pub fn head_row(&self) -> Result<Option<(u64, Vec<u8>)>, StoreError> {
        let row = self.read(|conn| async move {
            conn.client
                .query_opt("SELECT size, hash FROM pitboss_head", &[])
                .await
        })?;
        row.map(|row| {
            Ok((
                unsigned(
                    col(&row, 0, &self.database)?,
                    &self.database,
                    "the head's size",
                )?,
                col(&row, 1, &self.database)?,
            ))
        })
        .transpose()
    }

    /// The head row and the last entry read together, in one statement's snapshot (other servers,
    /// or a replica's replay, may commit in between two reads): `None` without a head row.
    pub fn head_and_last_entry(&self) -> Result<Option<HeadAndLast>, StoreError> {
        let row = self.read(|conn| async move {
            conn.client
                .query_opt(
                    "SELECT h.size, h.hash, e.sequence, e.stored FROM pitboss_head h
                     LEFT JOIN LATERAL (SELECT sequence, stored FROM pitboss_entries
                         ORDER BY sequence DESC LIMIT 1) e ON true",
                    &[],
                )
                .await
        })?;
        let Some(row) = row else {
            return Ok(None);
        };
        let database = &self.database;
        let size = unsigned(col(&row, 0, database)?, database, "the head's size")?;
        let last = match col::<Option<i64>>(&row, 2, database)? {
            None => None,
            Some(sequence) => Some((
                unsigned(sequence, database, "a sequence")?,
                col(&row, 3, database)?,
            )),
        };
        Ok(Some((size, col(&row, 1, database)?, last)))
    }

    /// How many entries the database holds (counted, not read from the head row).
    pub fn count_entries(&self) -> Result<u64, StoreError> {
        let row = self.read(|conn| async move {
            conn.client
                .query_one("SELECT count(*) FROM pitboss_entries", &[])
                .await
        })?;
        let count: i64 = col(&row, 0, &self.database)?;
        unsigned(count, &self.database, "the count of entries")
    }

    /// Puts one record outside a group (an empty log's format).
    pub(crate) fn put_record(
        &self,
        family: &'static str,
        key: &[u8],
        value: &[u8],
    ) -> Result<(), StoreError> {
        let (family, key, value) = (family.to_string(), key.to_vec(), value.to_vec());
        self.read(move |conn| async move {
            conn.client
                .execute(
                    "INSERT INTO pitboss_records (family, key, value) VALUES ($1, $2, $3)
                     ON CONFLICT DO NOTHING",
                    &[&family, &key, &value],
                )
                .await
        })?;
        Ok(())
    }

    /// Creates the head row of an empty log (size 0, the genesis hash) if there is none; refuses
    /// a database whose entries have no head row (damaged, or written by something else).
    pub(crate) fn ensure_head_row(&self) -> Result<(u64, Vec<u8>), StoreError> {
        if let Some(head) = self.head_row()? {
            return Ok(head);
        }
        let entries = self.count_entries()?;
        if entries > 0 {
            return Err(StoreError::Postgres {
                state: None,
                database: self.database.clone(),
                detail: format!("{entries} entries but no head row in pitboss_head"),
            });
        }
        self.read(|conn| async move {
            conn.client
                .execute(
                    "INSERT INTO pitboss_head (size, hash) VALUES (0, $1) ON CONFLICT DO NOTHING",
                    &[&GENESIS.as_slice()],
                )
                .await
        })?;
        self.head_row()?.ok_or_else(|| StoreError::Postgres {
            state: None,
            database: self.database.clone(),
            detail: "the head row could not be created".into(),
        })
    }
}

/// The head row (size, last hash) and the last entry (sequence, stored bytes), if any.
pub type HeadAndLast = (u64, Vec<u8>, Option<(u64, Vec<u8>)>);

/// A parameter of a statement run through [`Session::execute`].
pub(crate) type Param = Box<dyn tokio_postgres::types::ToSql + Send + Sync>;

/// Hands work to the client's runtime and waits for it, from any thread.
#[derive(Clone)]
struct Runner {
    handle: tokio::runtime::Handle,
    database: String,
}

impl Runner {
    fn block<T: Send + 'static>(
        &self,
        work: impl Future<Output = Result<T, StoreError>> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.handle.spawn(async move {
            let _ = tx.send(work.await);
        });
        rx.recv().map_err(|_| StoreError::Postgres {
            state: None,
            database: self.database.clone(),
            detail: "the client's runtime stopped".into(),
        })?
    }

    fn query<T: Send + 'static, F>(
        &self,
        conn: Arc<Conn>,
        work: impl FnOnce(Arc<Conn>) -> F + Send + 'static,
    ) -> Result<T, StoreError>
    where
        F: Future<Output = Result<T, tokio_postgres::Error>> + Send,
    {
        let database = self.database.clone();
        self.block(async move { work(conn).await.map_err(|e| pg_error(&database, &e)) })
    }
}

/// Where a session's statements run.
enum Driver {
    /// Handed to the client's runtime and waited for.
    Shared(Runner),
    /// On a runtime of the session's own, on the thread that opened it and uses it (`None` once
    /// the session is dropped).
    Own {
        runtime: Option<tokio::runtime::Runtime>,
        database: String,
    },
}

impl Driver {
    fn database(&self) -> &str {
        match self {
            Driver::Shared(runner) => &runner.database,
            Driver::Own { database, .. } => database,
        }
    }

    fn block<T: Send + 'static>(
        &self,
        work: impl Future<Output = Result<T, StoreError>> + Send + 'static,
    ) -> Result<T, StoreError> {
        match self {
            Driver::Shared(runner) => runner.block(work),
            Driver::Own {
                runtime: Some(runtime),
                ..
            } => runtime.block_on(work),
            Driver::Own { runtime: None, .. } => Err(self.closed()),
        }
    }

    fn query<T: Send + 'static, F>(
        &self,
        conn: Arc<Conn>,
        work: impl FnOnce(Arc<Conn>) -> F + Send + 'static,
    ) -> Result<T, StoreError>
    where
        F: Future<Output = Result<T, tokio_postgres::Error>> + Send,
    {
        match self {
            Driver::Shared(runner) => runner.query(conn, work),
            Driver::Own {
                runtime: Some(runtime),
                database,
            } => runtime
                .block_on(work(conn))
                .map_err(|e| pg_error(database, &e)),
            Driver::Own { runtime: None, .. } => Err(self.closed()),
        }
    }

    fn closed(&self) -> StoreError {
        StoreError::Postgres {
            state: None,
            database: self.database().to_string(),
            detail: "the session is closed".into(),
        }
    }
}

/// A dedicated connection: the writer's transactions, a copy's. Every statement of a group is
/// prepared once, so that a group's statements go out pipelined (tokio-postgres sends the requests
/// of futures polled together in order, in one round trip): the lock and the reads after it in
/// one, the writes and the head's move in one, the commit in one.
pub struct Session {
    /// `None` only while the session is dropped.
    conn: Option<Arc<Conn>>,
    /// Where its statements run ([`PgStore::session`]).
    driver: Driver,
    upsert: Statement,
    remove: Statement,
    insert_entries: Statement,
    /// `SELECT size, hash FROM pitboss_head FOR UPDATE`.
    lock: Statement,
    /// The records a group needs, read after the lock.
    prefetch: Statement,
    /// The head's move, only from the head the group was built on.
    move_head: Statement,
}

/// A batch as the statements take it: entries, records put, records removed (the last write of a
/// key wins, as in RocksDB's batches).
struct Split {
    sequences: Vec<i64>,
    stored: Vec<Vec<u8>>,
    put: (Vec<String>, Vec<Vec<u8>>, Vec<Vec<u8>>),
    removed: (Vec<String>, Vec<Vec<u8>>),
}

impl Split {
    /// (entries, records) it writes.
    fn counts(&self) -> (u64, u64) {
        (
            self.sequences.len() as u64,
            (self.put.0.len() + self.removed.0.len()) as u64,
        )
    }
}

/// The prepared statements that write a batch.
struct Writes {
    insert: Statement,
    upsert: Statement,
    remove: Statement,
}

impl Writes {
    /// Sends the batch's statements together (pipelined, in order) and waits for them all.
    async fn run(&self, conn: &Conn, split: &Split) -> Result<(), tokio_postgres::Error> {
        let insert = async {
            if split.sequences.is_empty() {
                return Ok(0);
            }
            conn.client
                .execute(&self.insert, &[&split.sequences, &split.stored])
                .await
        };
        let upsert = async {
            if split.put.0.is_empty() {
                return Ok(0);
            }
            let (f, k, v) = &split.put;
            conn.client.execute(&self.upsert, &[f, k, v]).await
        };
        let remove = async {
            if split.removed.0.is_empty() {
                return Ok(0);
            }
            let (f, k) = &split.removed;
            conn.client.execute(&self.remove, &[f, k]).await
        };
        tokio::try_join!(insert, upsert, remove)?;
        Ok(())
    }
}

pub(crate) use super::seam::Prefetched;

/// A read's parameters: the families and the keys, in the same order.
fn record_keys(wanted: &[(&'static str, Vec<u8>)]) -> (Vec<String>, Vec<Vec<u8>>) {
    wanted
        .iter()
        .map(|(family, key)| (family.to_string(), key.clone()))
        .unzip()
}

impl Drop for Session {
    fn drop(&mut self) {
        let Driver::Own { runtime, .. } = &mut self.driver else {
            return;
        };
        let Some(runtime) = runtime.take() else {
            return;
        };
        // The client, dropped, asks its connection to end; the connection task, run once more,
        // sends PostgreSQL the goodbye (else the server logs an unexpected end of file). Never
        // blocks inside a runtime.
        drop(self.conn.take());
        if tokio::runtime::Handle::try_current().is_err() {
            runtime.block_on(tokio::task::yield_now());
        }
        runtime.shutdown_background();
    }
}

impl Session {
    fn run<T: Send + 'static, F>(
        &self,
        work: impl FnOnce(Arc<Conn>) -> F + Send + 'static,
    ) -> Result<T, StoreError>
    where
        F: Future<Output = Result<T, tokio_postgres::Error>> + Send,
    {
        let conn = self.conn.clone().ok_or_else(|| self.driver.closed())?;
        self.driver.query(conn, work)
    }

    /// Whether the connection is gone (the writer opens another).
    pub(crate) fn is_closed(&self) -> bool {
        self.conn
            .as_ref()
            .is_none_or(|conn| conn.client.is_closed())
    }

    pub(crate) fn execute(&self, sql: &'static str, params: Vec<Param>) -> Result<u64, StoreError> {
        self.run(move |conn| async move {
            let refs: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = params
                .iter()
                .map(|p| p.as_ref() as &(dyn tokio_postgres::types::ToSql + Sync))
                .collect();
            conn.client.execute(sql, &refs).await
        })
    }

    /// A statement without parameters in PostgreSQL's simple protocol: one round trip, nothing
    /// prepared (`COMMIT`, `ROLLBACK`).
    fn simple(&self, sql: &'static str) -> Result<(), StoreError> {
        self.run(move |conn| async move { conn.client.batch_execute(sql).await })
    }

    pub(crate) fn count(&self, sql: &'static str) -> Result<u64, StoreError> {
        let row = self.run(move |conn| async move { conn.client.query_one(sql, &[]).await })?;
        let n: i64 = col(&row, 0, self.driver.database())?;
        unsigned(n, self.driver.database(), "a count")
    }

    /// Begins a group's transaction and locks the head row: (size, last hash) as committed by
    /// whichever server wrote last. Every record in `wanted` is read after the lock, so it is as
    /// the last group left it.
    pub(crate) fn lock_head(
        &self,
        wanted: &[(&'static str, Vec<u8>)],
    ) -> Result<((u64, Hash), Prefetched), StoreError> {
        let (families, keys) = record_keys(wanted);
        let (lock, prefetch) = (self.lock.clone(), self.prefetch.clone());
        // BEGIN, the lock and the reads in one round trip: PostgreSQL runs them in order, so the
        // reads see what was committed before the lock was granted.
        let (row, found) = self.run(move |conn| async move {
            let begin = conn.client.batch_execute("BEGIN");
            let locked = conn.client.query_opt(&lock, &[]);
            let read = async {
                if keys.is_empty() {
                    Ok(Vec::new())
                } else {
                    conn.client.query(&prefetch, &[&families, &keys]).await
                }
            };
            let ((), row, found) = tokio::try_join!(begin, locked, read)?;
            Ok((row, found))
        })?;
        let database = self.driver.database();
        let Some(row) = row else {
            return Err(StoreError::Postgres {
                state: None,
                database: database.to_string(),
                detail: "no head row in pitboss_head".into(),
            });
        };
        let size = unsigned(col(&row, 0, database)?, database, "the head's size")?;
        let hash: Vec<u8> = col(&row, 1, database)?;
        let hash: Hash = hash.try_into().map_err(|_| StoreError::Postgres {
            state: None,
            database: database.to_string(),
            detail: "the head's hash is not 32 bytes".into(),
        })?;
        Ok(((size, hash), self.prefetched(wanted, found)?))
    }

    /// Reads more records inside a transaction whose head row is locked (`lock_head`): for the
    /// jobs that arrived while the lock was awaited, so that they join the group it orders.
    pub(crate) fn read_records(
        &self,
        wanted: Vec<(&'static str, Vec<u8>)>,
    ) -> Result<Prefetched, StoreError> {
        if wanted.is_empty() {
            return Ok(Prefetched::new());
        }
        let (families, keys) = record_keys(&wanted);
        let prefetch = self.prefetch.clone();
        let found = self.run(move |conn| async move {
            conn.client.query(&prefetch, &[&families, &keys]).await
        })?;
        self.prefetched(&wanted, found)
    }

    /// Every wanted record, `None` where the database has none.
    fn prefetched(
        &self,
        wanted: &[(&'static str, Vec<u8>)],
        found: Vec<tokio_postgres::Row>,
    ) -> Result<Prefetched, StoreError> {
        let database = self.driver.database();
        let mut prefetched: Prefetched = wanted.iter().map(|k| (k.clone(), None)).collect();
        for row in found {
            let family: String = col(&row, 0, database)?;
            if let Some(family) = cf::ALL.iter().find(|f| **f == family) {
                prefetched.insert(
                    (family, col(&row, 1, database)?),
                    Some(col(&row, 2, database)?),
                );
            }
        }
        Ok(prefetched)
    }

    /// Writes a batch inside the open transaction: entries into `pitboss_entries`, every other
    /// record put or deleted in `pitboss_records` (the last write of a key wins, as in RocksDB's
    /// batches). Returns (entries, records) written.
    pub(crate) fn write(&self, batch: Batch) -> Result<(u64, u64), StoreError> {
        let split = self.split(batch)?;
        let counts = split.counts();
        let statements = self.writes();
        self.run(move |conn| async move {
            statements.run(&conn, &split).await?;
            Ok(())
        })?;
        Ok(counts)
    }

    /// The batch as the statements take it.
    fn split(&self, batch: Batch) -> Result<Split, StoreError> {
        let mut last: HashMap<(&'static str, Vec<u8>), Option<Vec<u8>>> = HashMap::new();
        let (mut sequences, mut stored): (Vec<i64>, Vec<Vec<u8>>) = (Vec::new(), Vec::new());
        for write in batch.writes {
            match write {
                Write::Put(family, key, value) if family == cf::EVENTS => {
                    let sequence = be_u64(&key).ok_or_else(|| StoreError::Postgres {
                        state: None,
                        database: self.driver.database().to_string(),
                        detail: "an entry's key is not a sequence".into(),
                    })?;
                    sequences.push(signed(sequence)?);
                    stored.push(value);
                }
                Write::Put(family, key, value) => {
                    last.insert((family, key), Some(value));
                }
                Write::Delete(family, key) => {
                    last.insert((family, key), None);
                }
            }
        }
        let mut split = Split {
            sequences,
            stored,
            put: Default::default(),
            removed: Default::default(),
        };
        for ((family, key), value) in last {
            match value {
                Some(value) => {
                    split.put.0.push(family.to_string());
                    split.put.1.push(key);
                    split.put.2.push(value);
                }
                None => {
                    split.removed.0.push(family.to_string());
                    split.removed.1.push(key);
                }
            }
        }
        Ok(split)
    }

    fn writes(&self) -> Writes {
        Writes {
            insert: self.insert_entries.clone(),
            upsert: self.upsert.clone(),
            remove: self.remove.clone(),
        }
    }

    /// Writes a group and moves the head from `old` to `new` in the open transaction, then
    /// commits: the writes, the head's move and `COMMIT` go out together (one round trip). The head
    /// row must still be `old`, else the move fails, PostgreSQL turns the `COMMIT` into a
    /// `ROLLBACK` and nothing is written: [`Committed::HeadMoved`]. Any statement that fails does
    /// the same. Returns `Done` only when every statement and the `COMMIT` succeeded, once
    /// PostgreSQL has committed (with a synchronous standby, once the standby has the commit).
    pub(crate) fn commit_group(
        &self,
        batch: Batch,
        old: (u64, Hash),
        new: (u64, Hash),
    ) -> Result<Committed, StoreError> {
        let split = self.split(batch)?;
        let (old_size, new_size) = (signed(old.0)?, signed(new.0)?);
        let (old_hash, new_hash) = (old.1.to_vec(), new.1.to_vec());
        let (statements, move_head) = (self.writes(), self.move_head.clone());
        let (written, moved, committed) = self.run(move |conn| async move {
            let writes = statements.run(&conn, &split);
            let head: [&(dyn tokio_postgres::types::ToSql + Sync); 4] =
                [&new_size, &new_hash, &old_size, &old_hash];
            let moved = conn.client.query_one(&move_head, &head);
            let commit = conn.client.batch_execute("COMMIT");
            Ok(tokio::join!(writes, moved, commit))
        })?;
        let database = self.driver.database();
        let failed = |e: tokio_postgres::Error| {
            // Whatever failed, the transaction did not commit; end it if it is still open.
            self.rollback();
            Err(pg_error(database, &e))
        };
        if let Err(e) = written {
            return failed(e);
        }
        match moved {
            Ok(_) => {}
            Err(e) if e.code() == Some(&tokio_postgres::error::SqlState::DIVISION_BY_ZERO) => {
                self.rollback();
                return Ok(Committed::HeadMoved);
            }
            Err(e) => return failed(e),
        }
        match committed {
            Ok(()) => Ok(Committed::Done),
            // The answer to COMMIT was lost: the outcome is unknown to this server (the callers'
            // retries with their request ids learn it).
            Err(e) => Err(pg_error(database, &e)),
        }
    }

    /// Ends the open transaction without writing anything (a group with nothing to write).
    pub(crate) fn rollback(&self) {
        if let Err(e) = self.simple("ROLLBACK") {
            tracing::debug!(error = %e, "rollback of a PostgreSQL transaction");
        }
    }
}

/// How a group's commit ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Committed {
    /// Durable: the callers may be answered.
    Done,
    /// The head row was not the one the group was built on: nothing written.
    HeadMoved,
}

impl super::seam::Storage for PgStore {
    fn shared(&self) -> bool {
        true
    }
}

impl LogStore for PgStore {
    fn get(&self, family: &str, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        if family == cf::EVENTS {
            let Some(sequence) = be_u64(key).filter(|_| key.len() == 8) else {
                return Ok(None);
            };
            let sequence = signed(sequence)?;
            return self.read(move |conn| async move {
                let row = conn.client.query_opt(&conn.get_entry, &[&sequence]).await?;
                row.map(|r| r.try_get(0)).transpose()
            });
        }
        let (family, key) = (family.to_string(), key.to_vec());
        self.read(move |conn| async move {
            let row = conn
                .client
                .query_opt(&conn.get_record, &[&family, &key])
                .await?;
            row.map(|r| r.try_get(0)).transpose()
        })
    }

    fn scan(
        &self,
        family: &str,
        prefix: &[u8],
        start: &[u8],
        limit: usize,
    ) -> Result<Vec<KeyValue>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let (family, start) = (family.to_string(), start.to_vec());
        let end = after_prefix(prefix);
        let rows = self.read(move |conn| async move {
            match end {
                Some(end) => {
                    conn.client
                        .query(&conn.scan_to, &[&family, &start, &end, &limit])
                        .await
                }
                None => {
                    conn.client
                        .query(&conn.scan, &[&family, &start, &limit])
                        .await
                }
            }
        })?;
        let mut found = Vec::with_capacity(rows.len());
        for row in rows {
            let key: Vec<u8> = col(&row, 0, &self.database)?;
            if key.starts_with(prefix) {
                found.push((key, col(&row, 1, &self.database)?));
            }
        }
        Ok(found)
    }

    fn entries_from(&self, from: u64) -> Result<Entries<'_>, StoreError> {
        let mut next = Some(from);
        let mut page: std::vec::IntoIter<KeyValue> = Vec::new().into_iter();
        Ok(Box::new(std::iter::from_fn(move || loop {
            if let Some(item) = page.next() {
                return Some(Ok(item));
            }
            let from = next.take()?;
            let rows = match signed(from).and_then(|from| {
                self.read(move |conn| async move {
                    conn.client
                        .query(&conn.entries_page, &[&from, &(PAGE as i64)])
                        .await
                })
            }) {
                Ok(rows) => rows,
                Err(e) => return Some(Err(e)),
            };
            let full = rows.len() == PAGE;
            let mut items = Vec::with_capacity(rows.len());
            for row in rows {
                let (sequence, stored): (i64, Vec<u8>) =
                    match (col(&row, 0, &self.database), col(&row, 1, &self.database)) {
                        (Ok(sequence), Ok(stored)) => (sequence, stored),
                        (Err(e), _) | (_, Err(e)) => return Some(Err(e)),
                    };
                // A negative sequence cannot be stored (CHECK), but a database is hostile until
                // checked: it becomes a key that is not a sequence, which the walk names.
                let key = u64::try_from(sequence)
                    .map(|s| s.to_be_bytes().to_vec())
                    .unwrap_or_default();
                if full {
                    next = u64::try_from(sequence).ok().and_then(|s| s.checked_add(1));
                }
                items.push((key, stored));
            }
            page = items.into_iter();
        })))
    }

    fn stream_entries(&self, stream: &str, position: u64) -> Result<StreamEntries, StoreError> {
        let mut prefix = stream.as_bytes().to_vec();
        prefix.push(0);
        let start = super::store::stream_key(stream, position);
        // A stream's keys are bounded by its prefix's successor (the prefix ends in 0x00).
        let end = after_prefix(&prefix).unwrap_or_else(|| vec![0xff; prefix.len() + 9]);
        let length = i32::try_from(prefix.len() + 8).unwrap_or(i32::MAX);
        let rows = self.read(move |conn| async move {
            conn.client
                .query(&conn.stream_entries, &[&start, &end, &length])
                .await
        })?;
        rows.into_iter()
            .map(|row| {
                let value: Vec<u8> = col(&row, 0, &self.database)?;
                let sequence = be_u64(&value).filter(|_| value.len() == 8).ok_or_else(|| {
                    StoreError::Postgres {
                        state: None,
                        database: self.database.clone(),
                        detail: format!("a position of stream `{stream}` is not a sequence"),
                    }
                })?;
                Ok((sequence, col(&row, 1, &self.database)?))
            })
            .collect()
    }

    fn last_entry(&self) -> Result<Option<(u64, Vec<u8>)>, StoreError> {
        let row =
            self.read(|conn| async move { conn.client.query_opt(&conn.last_entry, &[]).await })?;
        row.map(|row| {
            Ok((
                unsigned(col(&row, 0, &self.database)?, &self.database, "a sequence")?,
                col(&row, 1, &self.database)?,
            ))
        })
        .transpose()
    }

    fn describe(&self) -> String {
        self.database.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_after_a_prefix_bounds_every_key_with_it() {
        assert_eq!(after_prefix(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(after_prefix(&[1, 0xff]), Some(vec![2]));
        assert_eq!(after_prefix(&[0xff, 0xff]), None);
        assert_eq!(after_prefix(&[]), None);
        for key in [b"ab".to_vec(), b"ab\xff\xff".to_vec(), b"ab\0".to_vec()] {
            assert!(key < after_prefix(b"ab").unwrap());
        }
    }

    #[test]
    fn a_connection_string_is_shown_without_its_password() {
        let config = Config::from_str("postgres://pit:secret@127.0.0.1:6543/log").unwrap();
        let shown = describe_config(&config);
        assert_eq!(shown, "postgres://pit@127.0.0.1:6543/log");
        assert!(!shown.contains("secret"));
    }
}
