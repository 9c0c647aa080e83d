//! The connections to one database: the schema a writing store creates, a connection with the
//! reads prepared on it ([`Conn`]), the runtimes that drive connections ([`Runner`], the client's
//! own; [`Driver`], a session's), and how a PostgreSQL error and a column are read. Holds no
//! query of the log but the prepared reads' text.

use std::future::Future;
use std::sync::Arc;

use tokio_postgres::{Client, Config, NoTls, Statement};

use crate::store::StoreError;

/// Entries (or records) sent or read per statement.
pub(crate) const PAGE: usize = 1_000;

/// Connections for reads, shared round robin (each pipelines the queries sent to it).
pub(super) const READERS: usize = 4;

/// The tables, created when missing.
/// Servers starting at once on a new database create the tables one at a time (concurrent
/// `CREATE TABLE IF NOT EXISTS` can fail on PostgreSQL's catalog): under this transaction-scoped
/// advisory lock ("pitboss" in ASCII).
pub(super) const SCHEMA: &str = "
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
pub(super) fn unsigned(n: i64, database: &str, what: &str) -> Result<u64, StoreError> {
    u64::try_from(n).map_err(|_| StoreError::Postgres {
        state: None,
        database: database.to_string(),
        detail: format!("{what} is {n}, below zero"),
    })
}

/// One connection and the statements prepared on it.
pub(super) struct Conn {
    pub(super) client: Client,
    pub(super) get_record: Statement,
    pub(super) get_entry: Statement,
    pub(super) scan: Statement,
    pub(super) scan_to: Statement,
    pub(super) entries_page: Statement,
    pub(super) stream_entries: Statement,
    pub(super) last_entry: Statement,
}

impl Conn {
    /// A connection whose statements are prepared (the tables exist); a reading store's
    /// connections refuse every write in the database itself.
    pub(super) async fn open(
        config: Config,
        database: String,
        reading: bool,
    ) -> Result<Conn, StoreError> {
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
pub(super) async fn connect(config: &Config, database: &str) -> Result<Client, StoreError> {
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
pub(super) fn pg_error(database: &str, e: &tokio_postgres::Error) -> StoreError {
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
pub(super) fn col<'a, T: tokio_postgres::types::FromSql<'a>>(
    row: &'a tokio_postgres::Row,
    i: usize,
    database: &str,
) -> Result<T, StoreError> {
    row.try_get(i).map_err(|e| pg_error(database, &e))
}

/// `postgres://user@host:port/db` from a parsed configuration, without the password.
pub(super) fn describe_config(config: &Config) -> String {
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

/// A parameter of a statement run through [`Session::execute`].
pub(crate) type Param = Box<dyn tokio_postgres::types::ToSql + Send + Sync>;

/// Hands work to the client's runtime and waits for it, from any thread.
#[derive(Clone)]
pub(super) struct Runner {
    pub(super) handle: tokio::runtime::Handle,
    pub(super) database: String,
}

impl Runner {
    pub(super) fn block<T: Send + 'static>(
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

    pub(super) fn query<T: Send + 'static, F>(
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
pub(super) enum Driver {
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
    pub(super) fn database(&self) -> &str {
        match self {
            Driver::Shared(runner) => &runner.database,
            Driver::Own { database, .. } => database,
        }
    }

    pub(super) fn block<T: Send + 'static>(
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

    pub(super) fn query<T: Send + 'static, F>(
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

    pub(super) fn closed(&self) -> StoreError {
        StoreError::Postgres {
            state: None,
            database: self.database().to_string(),
            detail: "the session is closed".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;

    #[test]
    pub(super) fn a_connection_string_is_shown_without_its_password() {
        let config = Config::from_str("postgres://pit:secret@127.0.0.1:6543/log").unwrap();
        let shown = describe_config(&config);
        assert_eq!(shown, "postgres://pit@127.0.0.1:6543/log");
        assert!(!shown.contains("secret"));
    }
}
