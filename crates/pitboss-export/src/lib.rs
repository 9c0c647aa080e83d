//! The analysts' export of a pitboss log: four tables written to a directory as Parquet, CSV or
//! JSON Lines.
//!
//! - `hands` ([`HandRow`]): one row per hand — game, table, player, configuration, currency,
//!   status, and what was staked, paid and netted.
//! - `bets` ([`BetRow`]): one row per bet line settled or voided — the rule that judged it, the
//!   pay, any cap, and the payout.
//! - `events` ([`EventRow`]): one row per log entry — its place in the log and its stream, who
//!   recorded it, its hash and signature.
//! - `places` ([`PlaceRow`]): one row per place of a table's round — its player and seat, the
//!   round's table, dealer and configuration, and what the place staked, paid and netted.
//!
//! Money is integer minor units, times are milliseconds since the Unix epoch (UTC); there are no
//! floats. The columns are described once ([`schema_markdown`] renders them; the crate's
//! `SCHEMA.md` is that text) and every format follows that description: same columns, same order.
//!
//! This crate is pure file-writing: it knows nothing of the log, the games or gRPC; the server
//! fills the rows. It writes as it goes, so memory stays bounded whatever the number of rows.
//!
//! # Never a file that looks complete and is not
//!
//! [`ExportWriter::create`] refuses when any of the four files is already in the directory: an
//! export never overwrites an analyst's file. Each file is written as `<table>.<ext>.partial` and
//! only [`ExportWriter::finish`] — after flushing it, closing the Parquet footer and syncing it to
//! disk — gives it its final name (`hands.parquet`, …), then syncs the directory. An export that is
//! interrupted (a crash, a lost connection, an error) therefore leaves at most `.partial` files,
//! never a truncated `hands.parquet`; dropping an unfinished [`ExportWriter`] removes them.

mod csv;
mod error;
mod format;
mod jsonl;
mod parquet;
mod rows;
mod schema;
mod writer;

pub use error::ExportError;
pub use format::Format;
pub use rows::{BetRow, EventRow, HandRow, PlaceRow};
pub use schema::{schema_markdown, Table};
pub use writer::{ExportWriter, TableWritten, Written};
