//! The export's file formats and their names.
//!
//! This module owns [`Format`]: its accepted names and its files' extension. It must not write
//! anything.

use std::fmt;
use std::str::FromStr;

use crate::error::ExportError;

/// The format all three tables of an export are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Apache Parquet, Snappy-compressed, one row group per 65,536 rows.
    Parquet,
    /// RFC 4180 CSV: a header row, CRLF line ends, fields quoted when needed.
    Csv,
    /// JSON Lines: one JSON object per line, keys the column names.
    Jsonl,
}

impl Format {
    /// Every format, in the order their names are listed.
    pub const ALL: [Format; 3] = [Format::Parquet, Format::Csv, Format::Jsonl];

    /// The format's name, as [`FromStr`] accepts it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Parquet => "parquet",
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
        }
    }

    /// The extension of the format's files, without the dot.
    pub fn extension(self) -> &'static str {
        // The names are the extensions.
        self.name()
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = ExportError;

    /// `"parquet"`, `"csv"` or `"jsonl"`, exactly; anything else is refused naming those three.
    fn from_str(s: &str) -> Result<Format, ExportError> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| ExportError::UnknownFormat {
                given: s.to_owned(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_others_are_refused() {
        for f in Format::ALL {
            assert_eq!(f.name().parse::<Format>().ok(), Some(f));
            assert_eq!(f.to_string(), f.name());
        }
        assert_eq!(Format::Parquet.extension(), "parquet");
        assert_eq!(Format::Csv.extension(), "csv");
        assert_eq!(Format::Jsonl.extension(), "jsonl");
        for bad in ["", "json", "CSV", "parquet ", "xlsx"] {
            let err = bad.parse::<Format>().expect_err(bad);
            let message = err.to_string();
            assert!(matches!(err, ExportError::UnknownFormat { ref given } if given == bad));
            for accepted in ["\"parquet\"", "\"csv\"", "\"jsonl\""] {
                assert!(
                    message.contains(accepted),
                    "{message:?} does not name {accepted}"
                );
            }
        }
    }
}
