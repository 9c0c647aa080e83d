//! The JSON Lines writer of one table.
//!
//! This module owns the JSON Lines encoding: one JSON object per line, its keys the column names
//! in column order, a null `null`, an integer a JSON number (a `u64` is written exactly; readers
//! that hold numbers as doubles lose precision above 2^53, which is theirs to handle), a string
//! escaped by serde_json. It must not choose the file's name nor make it durable.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use crate::error::ExportError;
use crate::rows::Value;
use crate::schema::{Column, Table};

pub(crate) struct JsonlSink {
    out: BufWriter<File>,
    table: Table,
    path: PathBuf,
}

impl JsonlSink {
    pub(crate) fn new(table: Table, file: File, path: PathBuf) -> JsonlSink {
        JsonlSink {
            out: BufWriter::new(file),
            table,
            path,
        }
    }

    pub(crate) fn row(&mut self, values: &[Value<'_>]) -> Result<(), ExportError> {
        write_object(&mut self.out, self.table.columns(), values).map_err(|source| {
            ExportError::Json {
                table: self.table,
                path: self.path.clone(),
                source,
            }
        })
    }

    /// Flushes the buffer and hands back the file.
    pub(crate) fn finish(self) -> Result<File, ExportError> {
        let path = self.path;
        self.out.into_inner().map_err(|e| ExportError::Io {
            action: "write",
            path,
            source: e.into_error(),
        })
    }
}

fn write_object(
    out: &mut impl Write,
    columns: &[Column],
    values: &[Value<'_>],
) -> Result<(), serde_json::Error> {
    let io = serde_json::Error::io;
    out.write_all(b"{").map_err(io)?;
    for (i, (column, value)) in columns.iter().zip(values).enumerate() {
        if i > 0 {
            out.write_all(b",").map_err(io)?;
        }
        serde_json::to_writer(&mut *out, column.name)?;
        out.write_all(b":").map_err(io)?;
        match *value {
            Value::Str(s) => serde_json::to_writer(&mut *out, s)?,
            Value::U64(n) => write_number(out, n)?,
            Value::I64(n) => write_number(out, n)?,
            Value::U32(n) => write_number(out, n)?,
            Value::U8(n) => write_number(out, n)?,
            Value::Null => out.write_all(b"null").map_err(io)?,
        }
    }
    out.write_all(b"}\n").map_err(io)
}

fn write_number(out: &mut impl Write, n: impl std::fmt::Display) -> Result<(), serde_json::Error> {
    write!(out, "{n}").map_err(|e: io::Error| serde_json::Error::io(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_object_per_line_keys_in_column_order() {
        let mut out = Vec::new();
        let values = [
            Value::U64(u64::MAX),
            Value::Str("line\n\"two\"\t€"),
            Value::U64(0),
            Value::Str(""),
            Value::Null,
            Value::U64(1),
            Value::Str("a"),
            Value::Str("00ff"),
            Value::Str("ab"),
            Value::Str("k"),
            Value::Str("r"),
        ];
        write_object(&mut out, Table::Events.columns(), &values).expect("writes to a Vec");
        let text = String::from_utf8(out).expect("UTF-8");
        assert_eq!(
            text,
            "{\"sequence\":18446744073709551615,\"stream\":\"line\\n\\\"two\\\"\\t€\",\"stream_position\":0,\
             \"kind\":\"\",\"hand_id\":null,\"recorded_at_ms\":1,\"actor\":\"a\",\"hash\":\"00ff\",\
             \"signature\":\"ab\",\"key_id\":\"k\",\"round_id\":\"r\"}\n"
        );
    }
}
