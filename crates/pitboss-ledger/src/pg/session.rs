//! The writer's dedicated connection ([`Session`]): its statements prepared once and sent
//! pipelined, a group's transaction — the head row locked, the records it needs read after the
//! lock, the writes and the head's move, the commit — and the plain statements a copy runs.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use tokio_postgres::Statement;

use super::connection::{col, pg_error, signed, unsigned, Conn, Driver, Param};
use super::PgStore;
use crate::entry::Hash;
use crate::store::{be_u64, cf, Batch, StoreError, Write};

impl PgStore {
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

pub(crate) use crate::seam::Prefetched;

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
