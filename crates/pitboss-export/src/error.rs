//! The export's one error type.
//!
//! This module owns [`ExportError`]: each variant carries what an operator needs to act on it
//! (the path, the table, the underlying error). It must not decide anything about recovery.

use std::io;
use std::path::PathBuf;

use crate::schema::Table;

/// Why an export could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The format's name is none of the accepted ones.
    #[error("unknown export format {given:?}: expected one of \"parquet\", \"csv\", \"jsonl\"")]
    UnknownFormat {
        /// What was given.
        given: String,
    },
    /// A file the export would write is already there: an export never overwrites a file.
    #[error("{} already exists: an export never overwrites a file; choose another directory or move it away", path.display())]
    Exists {
        /// The file that is in the way.
        path: PathBuf,
    },
    /// A temporary file of the export is already there: left by an interrupted export, or another
    /// export is writing to the same directory now.
    #[error("{} already exists: an interrupted export left it, or another export is writing here; remove it once no export is running", path.display())]
    PartialExists {
        /// The temporary file that is in the way.
        path: PathBuf,
    },
    /// Reading or writing the file system failed.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done (e.g. "create", "write", "sync").
        action: &'static str,
        /// The file or directory it was done to.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// The Parquet writer failed.
    #[error("cannot write the {table} table to {}: {source}", path.display())]
    Parquet {
        /// The table being written.
        table: Table,
        /// Its file (the temporary name until the export is finished).
        path: PathBuf,
        /// The Parquet writer's error.
        #[source]
        source: parquet::errors::ParquetError,
    },
    /// Building an Arrow record batch failed.
    #[error("cannot build a batch of the {table} table: {source}")]
    Arrow {
        /// The table being written.
        table: Table,
        /// Arrow's error.
        #[source]
        source: arrow_schema::ArrowError,
    },
    /// Encoding a JSON string failed.
    #[error("cannot write the {table} table to {}: {source}", path.display())]
    Json {
        /// The table being written.
        table: Table,
        /// Its file (the temporary name until the export is finished).
        path: PathBuf,
        /// serde_json's error.
        #[source]
        source: serde_json::Error,
    },
    /// A row's values do not fit its table's columns: a bug of this crate, never of the data.
    #[error("row of the {table} table does not fit column {column}: {detail}")]
    Schema {
        /// The table.
        table: Table,
        /// The column.
        column: &'static str,
        /// What is wrong.
        detail: String,
    },
}
