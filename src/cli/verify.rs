//! `pitboss verify --data DIR`: walks the log in a data directory (opened read-only, so a running
//! server is not disturbed) and checks every entry's place, bytes, link, key and signature. With
//! `--server URL` instead, the server does the same walk (`Audit.VerifyLog`). Exit status 0 when all
//! is good, 1 with the first bad entry named, 2 when the log cannot be read.

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
    /// Ask this running server to verify its log instead of reading a data directory.
    #[arg(long, conflicts_with = "data")]
    server: Option<String>,
}

pub fn run(args: VerifyArgs) -> ExitCode {
    if let Some(server) = &args.server {
        return remote(server.clone(), args.from, args.to);
    }
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

/// Verification by a running server.
fn remote(server: String, from: u64, to: Option<u64>) -> ExitCode {
    let server_args = super::client::ServerArgs { server };
    let result = super::client::block_on(async {
        let mut audit =
            pitboss::proto::audit_client::AuditClient::new(server_args.connect().await?);
        audit
            .verify_log(pitboss::proto::VerifyLogRequest {
                from_sequence: from,
                to_sequence: to,
            })
            .await
            .map(tonic::Response::into_inner)
            .map_err(super::client::refused)
    });
    match result {
        Err(e) => {
            eprintln!("{e:#}");
            ExitCode::from(2)
        }
        Ok(r) => {
            println!(
                "verified {} entries; last good entry {}, hash {}",
                r.verified,
                r.head_sequence
                    .map_or("none".to_string(), |s| s.to_string()),
                r.head_hash
            );
            if r.ok {
                println!("OK: every link, hash and signature checks");
                ExitCode::SUCCESS
            } else {
                println!("FAILED at {}", r.problem);
                ExitCode::from(1)
            }
        }
    }
}
