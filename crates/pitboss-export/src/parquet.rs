//! The Parquet writer of one table.
//!
//! This module owns the Parquet encoding: rows are gathered into column builders, at most
//! [`BATCH_ROWS`] at a time, then handed to the Arrow writer as one record batch; the writer closes
//! a row group every [`ROW_GROUP_ROWS`] rows. Memory is bounded by those two numbers, whatever the
//! number of rows. Columns are Snappy-compressed; the file metadata carries `pitboss.schema` and
//! `pitboss.table`. It must not choose the file's name nor make it durable.

use std::fs::File;
use std::path::PathBuf;
use std::sync::Arc;

use ::parquet::arrow::ArrowWriter;
use ::parquet::basic::Compression;
use ::parquet::file::metadata::KeyValue;
use ::parquet::file::properties::WriterProperties;
use arrow_array::builder::{
    Int64Builder, StringBuilder, UInt32Builder, UInt64Builder, UInt8Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::SchemaRef;

use crate::error::ExportError;
use crate::rows::Value;
use crate::schema::{ColumnType, Table, SCHEMA_KEY, SCHEMA_VERSION, TABLE_KEY};

/// The most rows held in the column builders before they become a record batch.
pub(crate) const BATCH_ROWS: usize = 8192;
/// The most rows of one row group.
pub(crate) const ROW_GROUP_ROWS: usize = 65_536;

enum Builder {
    Utf8(StringBuilder),
    UInt64(UInt64Builder),
    Int64(Int64Builder),
    UInt32(UInt32Builder),
    UInt8(UInt8Builder),
}

impl Builder {
    fn new(ty: ColumnType) -> Builder {
        match ty {
            // The string bytes grow as needed; 16 bytes a value is a starting guess.
            ColumnType::Utf8 => {
                Builder::Utf8(StringBuilder::with_capacity(BATCH_ROWS, BATCH_ROWS * 16))
            }
            ColumnType::UInt64 => Builder::UInt64(UInt64Builder::with_capacity(BATCH_ROWS)),
            ColumnType::Int64 => Builder::Int64(Int64Builder::with_capacity(BATCH_ROWS)),
            ColumnType::UInt32 => Builder::UInt32(UInt32Builder::with_capacity(BATCH_ROWS)),
            ColumnType::UInt8 => Builder::UInt8(UInt8Builder::with_capacity(BATCH_ROWS)),
        }
    }

    /// Appends the value; `false` when it is not of the builder's type (a null fits any).
    fn append(&mut self, value: Value<'_>) -> bool {
        match (self, value) {
            (Builder::Utf8(b), Value::Str(s)) => b.append_value(s),
            (Builder::UInt64(b), Value::U64(n)) => b.append_value(n),
            (Builder::Int64(b), Value::I64(n)) => b.append_value(n),
            (Builder::UInt32(b), Value::U32(n)) => b.append_value(n),
            (Builder::UInt8(b), Value::U8(n)) => b.append_value(n),
            (Builder::Utf8(b), Value::Null) => b.append_null(),
            (Builder::UInt64(b), Value::Null) => b.append_null(),
            (Builder::Int64(b), Value::Null) => b.append_null(),
            (Builder::UInt32(b), Value::Null) => b.append_null(),
            (Builder::UInt8(b), Value::Null) => b.append_null(),
            _ => return false,
        }
        true
    }

    /// The values appended so far as an array; the builder is left empty, its memory kept.
    fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Utf8(b) => Arc::new(b.finish()),
            Builder::UInt64(b) => Arc::new(b.finish()),
            Builder::Int64(b) => Arc::new(b.finish()),
            Builder::UInt32(b) => Arc::new(b.finish()),
            Builder::UInt8(b) => Arc::new(b.finish()),
        }
    }
}

pub(crate) struct ParquetSink {
    table: Table,
    path: PathBuf,
    schema: SchemaRef,
    builders: Vec<Builder>,
    buffered: usize,
    writer: ArrowWriter<File>,
}

impl ParquetSink {
    pub(crate) fn new(table: Table, file: File, path: PathBuf) -> Result<ParquetSink, ExportError> {
        let schema = table.arrow_schema();
        let properties = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .set_key_value_metadata(Some(vec![
                KeyValue::new(SCHEMA_KEY.to_owned(), SCHEMA_VERSION.to_owned()),
                KeyValue::new(TABLE_KEY.to_owned(), table.name().to_owned()),
            ]))
            .build();
        let writer = ArrowWriter::try_new(file, Arc::clone(&schema), Some(properties)).map_err(
            |source| ExportError::Parquet {
                table,
                path: path.clone(),
                source,
            },
        )?;
        let builders = table.columns().iter().map(|c| Builder::new(c.ty)).collect();
        Ok(ParquetSink {
            table,
            path,
            schema,
            builders,
            buffered: 0,
            writer,
        })
    }

    pub(crate) fn row(&mut self, values: &[Value<'_>]) -> Result<(), ExportError> {
        // The values were checked against the columns before; a mismatch here is still refused.
        for ((builder, value), column) in self
            .builders
            .iter_mut()
            .zip(values)
            .zip(self.table.columns())
        {
            if !builder.append(*value) {
                return Err(ExportError::Schema {
                    table: self.table,
                    column: column.name,
                    detail: format!("{value:?} is not a {}", column.ty.name()),
                });
            }
        }
        self.buffered += 1;
        if self.buffered >= BATCH_ROWS {
            self.write_batch()?;
        }
        Ok(())
    }

    fn write_batch(&mut self) -> Result<(), ExportError> {
        let columns: Vec<ArrayRef> = self.builders.iter_mut().map(Builder::finish).collect();
        self.buffered = 0;
        let batch = RecordBatch::try_new(Arc::clone(&self.schema), columns).map_err(|source| {
            ExportError::Arrow {
                table: self.table,
                source,
            }
        })?;
        self.writer
            .write(&batch)
            .map_err(|source| ExportError::Parquet {
                table: self.table,
                path: self.path.clone(),
                source,
            })
    }

    /// Writes the last batch and the footer and hands back the file.
    pub(crate) fn finish(mut self) -> Result<File, ExportError> {
        if self.buffered > 0 {
            self.write_batch()?;
        }
        let (table, path) = (self.table, self.path);
        self.writer
            .into_inner()
            .map_err(|source| ExportError::Parquet {
                table,
                path,
                source,
            })
    }
}
