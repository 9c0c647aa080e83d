//! `pitboss copy --from DATA_DIR --to postgres://…`: a RocksDB log copied into an empty PostgreSQL
//! database (issue 14's first part), verified on the way — the source before anything is written,
//! every entry and record byte for byte in one transaction with the head row, then the copy read
//! back from the database and verified with the same checks, ending at the same head. The server
//! must be stopped (the directory is refused while in use). Serving from PostgreSQL is not built
//! yet: the copy is for migration and for a regulator's replica.

use std::path::PathBuf;
use std::sync::atomic::AtomicU64;

use anyhow::Context;
use clap::Args;
use pitboss_ledger::pg::PgLog;
use pitboss_ledger::store::{self, Store};

use super::progress;

#[derive(Debug, Args)]
pub struct CopyArgs {
    /// The data directory to copy (the server stopped).
    #[arg(long)]
    from: PathBuf,
    /// The PostgreSQL database to copy into, empty: `postgres://user@host:port/db` or
    /// `host=… port=… user=… dbname=…`.
    #[arg(long)]
    to: String,
}

pub fn run(args: CopyArgs) -> anyhow::Result<()> {
    store::check_not_in_use(&args.from)
        .with_context(|| format!("{} is in use: stop the server first", args.from.display()))?;
    let store = Store::open_read_only(&args.from)
        .with_context(|| format!("cannot open {}", args.from.display()))?;
    let total = store.log_size()?;
    let mut log = PgLog::connect(&args.to).context("cannot reach the database")?;
    let done = AtomicU64::new(0);
    let copied = progress::while_running(&done, total, "entries", || {
        log.copy_from(&store, Some(pitboss::codec::check_payload), &done)
    })?;
    println!(
        "{}",
        serde_json::json!({
            "entries": copied.entries,
            "records": copied.records,
            "head": copied.head.map(|(s, h)| serde_json::json!({"sequence": s, "hash": hex::encode(h)})),
        })
    );
    eprintln!(
        "copied and verified {} entries and {} records; the copy ends at the source's head",
        copied.entries, copied.records
    );
    Ok(())
}
