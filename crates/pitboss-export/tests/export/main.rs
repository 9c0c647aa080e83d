//! The export's tests against its public API: every format written and read back by an independent
//! reader (the parquet crate's Arrow reader, a CSV parser of the tests' own, serde_json, and — when
//! it is installed — pyarrow and DuckDB), the files' life (refusal to overwrite, `.partial` names,
//! empty exports) and the checked-in `SCHEMA.md`.

mod files;
mod python;
mod read;
mod round_trip;
mod schema_doc;
mod support;
