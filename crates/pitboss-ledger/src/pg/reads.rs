//! The reads every engine answers ([`LogStore`]), on the store's shared reading connections: a
//! record, a family's keys in order, the entries from a sequence, a stream's entries, the last
//! entry.

use super::connection::{col, signed, unsigned, PAGE};
use super::PgStore;
use crate::store::{be_u64, cf, Entries, KeyValue, LogStore, StoreError, StreamEntries};

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
        let start = crate::store::stream_key(stream, position);
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
}
