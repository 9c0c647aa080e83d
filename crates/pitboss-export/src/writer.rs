//! The export writer: the four files of an export, their temporary names, and making them durable.
//!
//! This module owns the life of an export's files: refusing to overwrite, writing each table under
//! `<table>.<ext>.partial`, checking each row against its table's columns, and on
//! [`ExportWriter::finish`] closing, syncing and giving each file its final name, then syncing the
//! directory. It must not encode rows (the format modules do) nor know where rows come from.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use crate::csv::CsvSink;
use crate::error::ExportError;
use crate::format::Format;
use crate::jsonl::JsonlSink;
use crate::parquet::ParquetSink;
use crate::rows::{BetRow, EventRow, HandRow, PlaceRow, Row, Value};
use crate::schema::Table;

/// The suffix of a file still being written.
pub(crate) const PARTIAL_SUFFIX: &str = ".partial";

/// An export being written: the four tables' files, under their temporary names until
/// [`finish`](ExportWriter::finish).
///
/// Dropping it without finishing removes the temporary files (a crash leaves them, under names that
/// never look complete).
pub struct ExportWriter {
    dir: PathBuf,
    format: Format,
    hands: TableFile,
    bets: TableFile,
    events: TableFile,
    places: TableFile,
}

/// A finished export: its directory, format and each table's file and row count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The directory the files are in.
    pub dir: PathBuf,
    /// Their format.
    pub format: Format,
    /// The `hands` table.
    pub hands: TableWritten,
    /// The `bets` table.
    pub bets: TableWritten,
    /// The `events` table.
    pub events: TableWritten,
    /// The `places` table.
    pub places: TableWritten,
}

/// One table of a finished export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableWritten {
    /// The table.
    pub table: Table,
    /// Its file, under its final name.
    pub path: PathBuf,
    /// How many rows it holds (the header of a CSV file not counted).
    pub rows: u64,
}

impl Written {
    /// The four tables, in the order `hands`, `bets`, `events`, `places`.
    pub fn tables(&self) -> [&TableWritten; 4] {
        [&self.hands, &self.bets, &self.events, &self.places]
    }
}

impl ExportWriter {
    /// Starts an export into `dir` (created if missing): the files `hands.<ext>`, `bets.<ext>`,
    /// `events.<ext>` and `places.<ext>`, written first as `<name>.partial`.
    ///
    /// Refuses, creating nothing, if any of the four files is already there
    /// ([`ExportError::Exists`]); refuses if a temporary file is there
    /// ([`ExportError::PartialExists`]: an interrupted export, or one running now).
    pub fn create(dir: &Path, format: Format) -> Result<ExportWriter, ExportError> {
        fs::create_dir_all(dir).map_err(|source| ExportError::Io {
            action: "create directory",
            path: dir.to_owned(),
            source,
        })?;
        for table in Table::ALL {
            let path = final_path(dir, table, format);
            if exists(&path)? {
                return Err(ExportError::Exists { path });
            }
        }
        // Each opened file is removed again by its drop if a later one is refused.
        let hands = TableFile::open(dir, Table::Hands, format)?;
        let bets = TableFile::open(dir, Table::Bets, format)?;
        let events = TableFile::open(dir, Table::Events, format)?;
        let places = TableFile::open(dir, Table::Places, format)?;
        Ok(ExportWriter {
            dir: dir.to_owned(),
            format,
            hands,
            bets,
            events,
            places,
        })
    }

    /// Writes a row of the `hands` table.
    pub fn hand(&mut self, row: &HandRow) -> Result<(), ExportError> {
        self.hands.row(row)
    }

    /// Writes a row of the `bets` table.
    pub fn bet(&mut self, row: &BetRow) -> Result<(), ExportError> {
        self.bets.row(row)
    }

    /// Writes a row of the `events` table.
    pub fn event(&mut self, row: &EventRow) -> Result<(), ExportError> {
        self.events.row(row)
    }

    /// Writes a row of the `places` table.
    pub fn place(&mut self, row: &PlaceRow) -> Result<(), ExportError> {
        self.places.row(row)
    }

    /// Finishes the export: flushes each file (closing a Parquet file's footer), syncs it to disk,
    /// gives it its final name (never replacing a file that appeared meanwhile) and syncs the
    /// directory. On an error no file of this export is left under a final name.
    pub fn finish(mut self) -> Result<Written, ExportError> {
        for file in [
            &mut self.hands,
            &mut self.bets,
            &mut self.events,
            &mut self.places,
        ] {
            file.close()?;
        }
        let mut published: Vec<PathBuf> = Vec::new();
        for file in [
            &mut self.hands,
            &mut self.bets,
            &mut self.events,
            &mut self.places,
        ] {
            if let Err(e) = file.publish() {
                if matches!(file.state, State::Published) {
                    // Linked under its final name, but the temporary name could not be removed.
                    published.push(file.path.clone());
                }
                for path in &published {
                    // Best effort: the error being returned matters more than this one.
                    let _ = fs::remove_file(path);
                }
                return Err(e);
            }
            published.push(file.path.clone());
        }
        File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .map_err(|source| ExportError::Io {
                action: "sync directory",
                path: self.dir.clone(),
                source,
            })?;
        Ok(Written {
            dir: self.dir.clone(),
            format: self.format,
            hands: self.hands.written(),
            bets: self.bets.written(),
            events: self.events.written(),
            places: self.places.written(),
        })
    }
}

impl std::fmt::Debug for ExportWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExportWriter")
            .field("dir", &self.dir)
            .field("format", &self.format)
            .field("hands", &self.hands.rows)
            .field("bets", &self.bets.rows)
            .field("events", &self.events.rows)
            .field("places", &self.places.rows)
            .finish()
    }
}

fn final_path(dir: &Path, table: Table, format: Format) -> PathBuf {
    dir.join(format!("{}.{}", table.name(), format.extension()))
}

/// Whether anything (a file, a directory, a link, even a dangling one) is at `path`.
fn exists(path: &Path) -> Result<bool, ExportError> {
    match fs::symlink_metadata(path) {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(source) => Err(ExportError::Io {
            action: "inspect",
            path: path.to_owned(),
            source,
        }),
    }
}

enum Sink {
    // Boxed: the Arrow writer and builders are large, the other sinks a buffered file.
    Parquet(Box<ParquetSink>),
    Csv(CsvSink),
    Jsonl(JsonlSink),
}

/// One table's file, from its temporary name to its final one.
struct TableFile {
    table: Table,
    partial: PathBuf,
    path: PathBuf,
    rows: u64,
    state: State,
}

enum State {
    Writing(Sink),
    /// Closed and synced, still under its temporary name.
    Closed,
    /// Under its final name.
    Published,
    /// A write failed part-way: the file is abandoned.
    Broken,
}

impl TableFile {
    fn open(dir: &Path, table: Table, format: Format) -> Result<TableFile, ExportError> {
        let path = final_path(dir, table, format);
        let mut partial = path.clone().into_os_string();
        partial.push(PARTIAL_SUFFIX);
        let partial = PathBuf::from(partial);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&partial)
            .map_err(|source| {
                if source.kind() == io::ErrorKind::AlreadyExists {
                    ExportError::PartialExists {
                        path: partial.clone(),
                    }
                } else {
                    ExportError::Io {
                        action: "create",
                        path: partial.clone(),
                        source,
                    }
                }
            })?;
        // From here on the drop removes the temporary file if the export goes no further.
        let mut table_file = TableFile {
            table,
            partial,
            path,
            rows: 0,
            state: State::Broken,
        };
        let at = table_file.partial.clone();
        let sink = match format {
            Format::Parquet => Sink::Parquet(Box::new(ParquetSink::new(table, file, at)?)),
            Format::Csv => Sink::Csv(CsvSink::new(table, file, at)?),
            Format::Jsonl => Sink::Jsonl(JsonlSink::new(table, file, at)),
        };
        table_file.state = State::Writing(sink);
        Ok(table_file)
    }

    fn row<R: Row>(&mut self, row: &R) -> Result<(), ExportError> {
        let values = row.values();
        check(R::TABLE, &values)?;
        let result = match &mut self.state {
            State::Writing(Sink::Parquet(s)) => s.row(&values),
            State::Writing(Sink::Csv(s)) => s.row(&values),
            State::Writing(Sink::Jsonl(s)) => s.row(&values),
            State::Closed | State::Published | State::Broken => {
                return Err(ExportError::Io {
                    action: "write",
                    path: self.partial.clone(),
                    source: io::Error::other("an earlier write to this file failed"),
                })
            }
        };
        if result.is_err() {
            // A half-written row may be in the file: nothing more goes into it.
            self.state = State::Broken;
        }
        result?;
        self.rows += 1;
        Ok(())
    }

    /// Flushes and closes the encoder and syncs the file.
    fn close(&mut self) -> Result<(), ExportError> {
        let sink = match std::mem::replace(&mut self.state, State::Broken) {
            State::Writing(sink) => sink,
            _ => {
                return Err(ExportError::Io {
                    action: "finish",
                    path: self.partial.clone(),
                    source: io::Error::other("an earlier write to this file failed"),
                })
            }
        };
        let file = match sink {
            Sink::Parquet(s) => s.finish()?,
            Sink::Csv(s) => s.finish()?,
            Sink::Jsonl(s) => s.finish()?,
        };
        file.sync_all().map_err(|source| ExportError::Io {
            action: "sync",
            path: self.partial.clone(),
            source,
        })?;
        self.state = State::Closed;
        Ok(())
    }

    /// Gives the closed file its final name, refusing if something took that name meanwhile.
    fn publish(&mut self) -> Result<(), ExportError> {
        // A hard link fails if the name is taken, where a rename would replace the file there.
        match fs::hard_link(&self.partial, &self.path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                return Err(ExportError::Exists {
                    path: self.path.clone(),
                })
            }
            // A file system without hard links: check, then rename.
            Err(_) => {
                if exists(&self.path)? {
                    return Err(ExportError::Exists {
                        path: self.path.clone(),
                    });
                }
                fs::rename(&self.partial, &self.path).map_err(|source| ExportError::Io {
                    action: "rename",
                    path: self.partial.clone(),
                    source,
                })?;
                self.state = State::Published;
                return Ok(());
            }
        }
        self.state = State::Published;
        fs::remove_file(&self.partial).map_err(|source| ExportError::Io {
            action: "remove",
            path: self.partial.clone(),
            source,
        })
    }

    fn written(&self) -> TableWritten {
        TableWritten {
            table: self.table,
            path: self.path.clone(),
            rows: self.rows,
        }
    }
}

impl Drop for TableFile {
    fn drop(&mut self) {
        if !matches!(self.state, State::Published) {
            // Best effort: a leftover is named `.partial` and never looks complete.
            let _ = fs::remove_file(&self.partial);
        }
    }
}

/// Checks a row's values against its table's columns: count, types, nulls only where nullable.
fn check(table: Table, values: &[Value<'_>]) -> Result<(), ExportError> {
    let columns = table.columns();
    if values.len() != columns.len() {
        return Err(ExportError::Schema {
            table,
            column: "*",
            detail: format!("{} values for {} columns", values.len(), columns.len()),
        });
    }
    for (value, column) in values.iter().zip(columns) {
        let fits = match value.column_type() {
            Some(ty) => ty == column.ty,
            None => column.nullable,
        };
        if !fits {
            return Err(ExportError::Schema {
                table,
                column: column.name,
                detail: format!(
                    "{value:?} does not fit a {}{}",
                    if column.nullable { "nullable " } else { "" },
                    column.ty.name()
                ),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_refuses_wrong_count_type_and_null() {
        let hand_columns = Table::Events.columns();
        let mut good: Vec<Value<'_>> = hand_columns
            .iter()
            .map(|c| match c.ty {
                crate::schema::ColumnType::Utf8 => Value::Str("x"),
                crate::schema::ColumnType::UInt64 => Value::U64(1),
                crate::schema::ColumnType::Int64 => Value::I64(1),
                crate::schema::ColumnType::UInt32 => Value::U32(1),
                crate::schema::ColumnType::UInt8 => Value::U8(1),
            })
            .collect();
        assert!(check(Table::Events, &good).is_ok());
        // events.hand_id (index 4) is nullable; events.sequence (index 0) is not.
        good[4] = Value::Null;
        assert!(check(Table::Events, &good).is_ok());
        let mut null_sequence = good.clone();
        null_sequence[0] = Value::Null;
        assert!(matches!(
            check(Table::Events, &null_sequence),
            Err(ExportError::Schema {
                column: "sequence",
                ..
            })
        ));
        let mut wrong_type = good.clone();
        wrong_type[1] = Value::U64(3);
        assert!(matches!(
            check(Table::Events, &wrong_type),
            Err(ExportError::Schema {
                column: "stream",
                ..
            })
        ));
        assert!(matches!(
            check(Table::Events, &good[1..]),
            Err(ExportError::Schema { column: "*", .. })
        ));
    }
}
