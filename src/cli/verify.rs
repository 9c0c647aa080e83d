//! `pitboss verify --data DIR`: walks the log in a data directory (opened read-only, so a running
//! server is not disturbed) and checks every entry's place, bytes, link, key and signature. Exit
//! status 0 when all is good, 1 with the first bad entry named, 2 when the directory cannot be read.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use pitboss::ledger::{verify, Store};

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The data directory.
    #[arg(long, default_value = "./pitboss-data")]
    data: PathBuf,
    /// First sequence number to check (keys and the link come from the entry before it).
    #[arg(long, default_value_t = 0)]
    from: u64,
    /// Last sequence number to check.
    #[arg(long)]
    to: Option<u64>,
}

pub fn run(args: VerifyArgs) -> ExitCode {
    let store = match Store::open_read_only(&args.data) {
        Ok(store) => store,
        Err(e) => {
            eprintln!("cannot read {}: {e}", args.data.display());
            return ExitCode::from(2);
        }
    };
    let started = std::time::Instant::now();
    let report = verify(&store, args.from, args.to);
    let elapsed = started.elapsed();
    match report.head {
        Some((sequence, hash)) => println!(
            "verified {} entries ({}..={sequence}) in {:.3} s; last good entry {sequence}, hash {}",
            report.verified,
            args.from,
            elapsed.as_secs_f64(),
            hex::encode(hash)
        ),
        None => println!("verified 0 entries"),
    }
    match report.problem {
        None => {
            println!("OK: every link, hash and signature checks");
            ExitCode::SUCCESS
        }
        Some(problem) => {
            println!("FAILED at {problem}");
            ExitCode::from(1)
        }
    }
}
