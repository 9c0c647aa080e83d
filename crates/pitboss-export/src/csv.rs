//! The CSV writer of one table.
//!
//! This module owns the CSV encoding (RFC 4180): a header row of the column names, one record per
//! row, CRLF line ends, a field quoted when it contains a comma, a double quote, CR or LF, with its
//! double quotes doubled. A null is an empty field; an empty string is `""`, so the two stay apart.
//! (DuckDB keeps them apart when read with `allow_quoted_nulls = false`.) Integers are written in
//! decimal. It must not choose the file's name nor make it durable.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use crate::error::ExportError;
use crate::rows::Value;
use crate::schema::Table;

pub(crate) struct CsvSink {
    out: BufWriter<File>,
    path: PathBuf,
}

impl CsvSink {
    /// Starts the table's file with its header row.
    pub(crate) fn new(table: Table, file: File, path: PathBuf) -> Result<CsvSink, ExportError> {
        let mut sink = CsvSink {
            out: BufWriter::new(file),
            path,
        };
        let header: Vec<Value<'_>> = table.columns().iter().map(|c| Value::Str(c.name)).collect();
        sink.row(&header)?;
        Ok(sink)
    }

    pub(crate) fn row(&mut self, values: &[Value<'_>]) -> Result<(), ExportError> {
        write_record(&mut self.out, values).map_err(|source| ExportError::Io {
            action: "write",
            path: self.path.clone(),
            source,
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

fn write_record(out: &mut impl Write, values: &[Value<'_>]) -> io::Result<()> {
    for (i, value) in values.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        match *value {
            Value::Str(s) => write_text(out, s)?,
            Value::U64(n) => write!(out, "{n}")?,
            Value::I64(n) => write!(out, "{n}")?,
            Value::U32(n) => write!(out, "{n}")?,
            Value::U8(n) => write!(out, "{n}")?,
            Value::Null => {}
        }
    }
    out.write_all(b"\r\n")
}

fn write_text(out: &mut impl Write, s: &str) -> io::Result<()> {
    let needs_quotes = s.is_empty() || s.contains([',', '"', '\r', '\n']);
    if !needs_quotes {
        return out.write_all(s.as_bytes());
    }
    out.write_all(b"\"")?;
    for (i, part) in s.split('"').enumerate() {
        if i > 0 {
            out.write_all(b"\"\"")?;
        }
        out.write_all(part.as_bytes())?;
    }
    out.write_all(b"\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(values: &[Value<'_>]) -> String {
        let mut out = Vec::new();
        write_record(&mut out, values).expect("writes to a Vec");
        String::from_utf8(out).expect("UTF-8")
    }

    #[test]
    fn quotes_exactly_what_rfc_4180_needs() {
        assert_eq!(
            record(&[Value::Str("plain"), Value::Str("é ü 🂡")]),
            "plain,é ü 🂡\r\n"
        );
        assert_eq!(record(&[Value::Str("a,b")]), "\"a,b\"\r\n");
        assert_eq!(
            record(&[Value::Str("say \"hi\"")]),
            "\"say \"\"hi\"\"\"\r\n"
        );
        assert_eq!(record(&[Value::Str("\"")]), "\"\"\"\"\r\n");
        assert_eq!(
            record(&[Value::Str("a\nb"), Value::Str("c\rd")]),
            "\"a\nb\",\"c\rd\"\r\n"
        );
        assert_eq!(
            record(&[Value::Str(""), Value::Null, Value::Str("x")]),
            "\"\",,x\r\n"
        );
        assert_eq!(
            record(&[
                Value::U64(u64::MAX),
                Value::I64(i64::MIN),
                Value::U32(7),
                Value::U8(255)
            ]),
            "18446744073709551615,-9223372036854775808,7,255\r\n"
        );
    }
}
