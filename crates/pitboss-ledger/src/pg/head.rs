//! The head row — read alone, read with the last entry in one snapshot, created for an empty log
//! — the count of entries, and an empty log's first record (its format), written outside a group.

use super::connection::{col, unsigned};
use super::PgStore;
use crate::entry::GENESIS;
use crate::store::StoreError;

/// The head row (size, last hash) and the last entry (sequence, stored bytes), if any.
pub type HeadAndLast = (u64, Vec<u8>, Option<(u64, Vec<u8>)>);

impl PgStore {
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
