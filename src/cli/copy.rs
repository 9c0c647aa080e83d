//! `pitboss copy --from SOURCE --to TARGET`: a whole log moved between the two engines, verified
//! on the way (`pitboss_ledger::copy`): a data directory (its server stopped) into an empty
//! PostgreSQL database, or a PostgreSQL log into a new data directory — then `--key DIR` names
//! the directory holding the log's current key file, which the new directory gets a copy of.
//! The source is verified before anything is written, the target verified after, from its first
//! entry, ending at the source's head.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use anyhow::{bail, Context};
use clap::Args;
use pitboss_ledger::copy::{self, Copied};
use pitboss_ledger::pg::PgStore;
use pitboss_ledger::store::{self, LogStore, Store};

use super::progress;

#[derive(Debug, Args)]
pub struct CopyArgs {
    /// The log to copy: a data directory (the server stopped), or a PostgreSQL database
    /// (`postgres://user@host:port/db`).
    #[arg(long)]
    from: String,
    /// Where to copy it: an empty PostgreSQL database, or a data directory that does not exist
    /// yet (or is empty).
    #[arg(long)]
    to: String,
    /// Copying into a data directory: the directory holding the log's current key file
    /// (`signing.key`, as a server of the database holds it).
    #[arg(long)]
    key: Option<PathBuf>,
}

fn is_database(location: &str) -> bool {
    location.starts_with("postgres://") || location.starts_with("postgresql://")
}

pub fn run(args: CopyArgs) -> anyhow::Result<()> {
    let done = Arc::new(AtomicU64::new(0));
    let copied = match (is_database(&args.from), is_database(&args.to)) {
        (false, true) => {
            let from = Path::new(&args.from);
            store::check_not_in_use(from)
                .with_context(|| format!("{} is in use: stop the server first", from.display()))?;
            let store = Store::open_read_only(from)
                .with_context(|| format!("cannot open {}", from.display()))?;
            let total = store.log_size()?;
            let target = PgStore::connect(&args.to).context("cannot reach the database")?;
            progress::while_running(&done, total, "entries", || {
                copy::rocks_to_postgres(&store, &target, Some(pitboss::codec::check_payload), &done)
            })?
        }
        (true, false) => {
            let Some(key) = &args.key else {
                bail!("--key DIR: the directory holding the log's current signing.key (a data directory needs it)");
            };
            let source =
                PgStore::connect_reading(&args.from).context("cannot reach the database")?;
            let total = source.log_size()?;
            progress::while_running(&done, total, "entries", || {
                copy::postgres_to_rocks(
                    &source,
                    Path::new(&args.to),
                    key,
                    Some(pitboss::codec::check_payload),
                    &done,
                )
            })?
        }
        _ => bail!(
            "one side is a data directory and the other a PostgreSQL URL (postgres://…); \
             to copy a directory, stop its server and copy the files"
        ),
    };
    report(&copied);
    Ok(())
}

fn report(copied: &Copied) {
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
}
