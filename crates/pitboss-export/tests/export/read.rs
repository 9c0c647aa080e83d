//! Independent readers of an exported table, each turning the file back into rows through a JSON
//! object per row (so one `Deserialize` of the row types serves every format).

use std::fs::{self, File};
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::Array;
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::support::Columns;

/// What a Parquet file holds: its Arrow schema fields, its key-value metadata, its row groups and
/// its rows.
pub struct ParquetFile<T> {
    pub fields: Vec<(String, DataType, bool)>,
    pub metadata: Vec<(String, Option<String>)>,
    pub row_groups: usize,
    pub rows: Vec<T>,
}

pub fn parquet<T: DeserializeOwned>(path: &Path) -> ParquetFile<T> {
    let file = File::open(path).expect("open parquet");
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).expect("parquet footer");
    let fields: Vec<(String, DataType, bool)> = builder
        .schema()
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone(), f.is_nullable()))
        .collect();
    let file_metadata = builder.metadata().file_metadata();
    let metadata = file_metadata
        .key_value_metadata()
        .map(|kv| {
            kv.iter()
                .map(|k| (k.key.clone(), k.value.clone()))
                .collect()
        })
        .unwrap_or_default();
    let row_groups = builder.metadata().num_row_groups();
    let mut rows = Vec::new();
    for batch in builder.build().expect("reader") {
        let batch = batch.expect("batch");
        for r in 0..batch.num_rows() {
            let mut object = Map::new();
            for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
                let value = if column.is_null(r) {
                    Value::Null
                } else {
                    match field.data_type() {
                        DataType::Utf8 => Value::from(column.as_string::<i32>().value(r)),
                        DataType::UInt64 => {
                            Value::from(column.as_primitive::<UInt64Type>().value(r))
                        }
                        DataType::Int64 => Value::from(column.as_primitive::<Int64Type>().value(r)),
                        DataType::UInt32 => {
                            Value::from(column.as_primitive::<UInt32Type>().value(r))
                        }
                        DataType::UInt8 => Value::from(column.as_primitive::<UInt8Type>().value(r)),
                        other => panic!("unexpected column type {other}"),
                    }
                };
                object.insert(field.name().clone(), value);
            }
            rows.push(
                serde_json::from_value(Value::Object(object)).expect("row of the file's columns"),
            );
        }
    }
    ParquetFile {
        fields,
        metadata,
        row_groups,
        rows,
    }
}

/// A CSV field as written: quoted or bare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Field {
    Quoted(String),
    Bare(String),
}

/// A strict RFC 4180 parser: records end in CRLF (the last one too), a quoted field's quotes are
/// doubled, a bare field holds no quote, CR or LF.
pub fn parse_csv(text: &str) -> Vec<Vec<Field>> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut chars = text.chars().peekable();
    if text.is_empty() {
        return records;
    }
    loop {
        // One field.
        let field = if chars.peek() == Some(&'"') {
            chars.next();
            let mut s = String::new();
            loop {
                match chars.next().expect("unterminated quoted field") {
                    '"' if chars.peek() == Some(&'"') => {
                        chars.next();
                        s.push('"');
                    }
                    '"' => break,
                    c => s.push(c),
                }
            }
            Field::Quoted(s)
        } else {
            let mut s = String::new();
            while let Some(&c) = chars.peek() {
                if c == ',' || c == '\r' {
                    break;
                }
                assert!(c != '"' && c != '\n', "bare field holds {c:?}");
                s.push(c);
                chars.next();
            }
            Field::Bare(s)
        };
        record.push(field);
        match chars.next().expect("record not ended by CRLF") {
            ',' => {}
            '\r' => {
                assert_eq!(chars.next(), Some('\n'), "CR not followed by LF");
                records.push(std::mem::take(&mut record));
                if chars.peek().is_none() {
                    return records;
                }
            }
            c => panic!("{c:?} after a field"),
        }
    }
}

/// Reads a CSV table: checks the header against `columns` and turns each record into a row, an
/// unquoted empty field being null (only where the column is nullable) and a number parsed by type.
pub fn csv<T: DeserializeOwned>(path: &Path, columns: Columns) -> Vec<T> {
    let text = fs::read_to_string(path).expect("read csv");
    let mut records = parse_csv(&text).into_iter();
    let header = records.next().expect("a header row");
    let names: Vec<Field> = columns
        .iter()
        .map(|(n, _, _)| Field::Bare((*n).to_owned()))
        .collect();
    assert_eq!(header, names, "CSV header");
    records
        .map(|record| {
            assert_eq!(record.len(), columns.len(), "fields in a record");
            let mut object = Map::new();
            for (field, (name, ty, nullable)) in record.into_iter().zip(columns) {
                let value = match (field, ty) {
                    (Field::Bare(s), _) if s.is_empty() => {
                        assert!(
                            *nullable,
                            "{name}: empty unquoted field in a non-null column"
                        );
                        Value::Null
                    }
                    (Field::Quoted(s), DataType::Utf8) => {
                        assert!(
                            s.is_empty() || s.contains([',', '"', '\r', '\n']),
                            "{name}: {s:?} quoted needlessly"
                        );
                        Value::from(s)
                    }
                    (Field::Bare(s), DataType::Utf8) => Value::from(s),
                    (Field::Bare(s), DataType::Int64) => {
                        Value::from(s.parse::<i64>().expect("i64"))
                    }
                    (Field::Bare(s), _) => Value::from(s.parse::<u64>().expect("unsigned")),
                    (Field::Quoted(s), other) => panic!("{name}: quoted {s:?} in a {other} column"),
                };
                object.insert((*name).to_owned(), value);
            }
            serde_json::from_value(Value::Object(object)).expect("row of the CSV's columns")
        })
        .collect()
}

/// Reads a JSON Lines table: one object per line, its keys the columns in order.
pub fn jsonl<T: DeserializeOwned>(path: &Path, columns: Columns) -> Vec<T> {
    let text = fs::read_to_string(path).expect("read jsonl");
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "last line not ended"
    );
    text.lines()
        .map(|line| {
            // Key order: serde_json's map sorts, so look at the text. The fixtures' strings never
            // hold `":`, so `"name":` is found only as a key.
            let mut at = 0;
            for (name, _, _) in columns {
                let key = format!("\"{name}\":");
                let found = line[at..]
                    .find(&key)
                    .unwrap_or_else(|| panic!("{key} missing or out of order in {line}"));
                at += found + key.len();
            }
            serde_json::from_str(line).expect("a row per line")
        })
        .collect()
}
