//! `pitboss recover --data DIR --reason TEXT [--accept-loss WHAT]`: the explicit repair of a data
//! directory the server refuses (`ledger::recovery`). Without `--accept-loss`, or with one that is
//! not exactly what the recovery would lose, it only prints its plan (what is wrong, what the log
//! would keep, which acknowledged entries would be lost) and changes nothing. With it, it copies the
//! damaged files aside, records a `LogRecovered` entry with the reason and re-anchors. The server
//! must be stopped.
//!
//! Exit status 0 when it recovered, 1 when it did not (the plan printed says why), 2 on an error.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use pitboss_ledger::recovery::{self, RecoveryError};

#[derive(Debug, Args)]
pub struct RecoverArgs {
    /// The data directory (its server stopped).
    #[arg(long)]
    data: PathBuf,
    /// Why, in your words: recorded in the log with what was found and lost.
    #[arg(long)]
    reason: String,
    /// What you accept to lose, exactly as the plan states it: `none`, `FIRST-LAST` (acknowledged
    /// sequence numbers), or `unknown` (no anchor can be read). Without it, nothing is changed.
    #[arg(long)]
    accept_loss: Option<String>,
}

pub fn run(args: RecoverArgs) -> ExitCode {
    let plan = recovery::plan(&args.data);
    if plan.healthy() {
        println!(
            "nothing to recover: {} passes every check",
            args.data.display()
        );
        return ExitCode::SUCCESS;
    }
    println!("found:");
    for finding in &plan.findings {
        println!("  {finding}");
    }
    if !plan.blocked.is_empty() {
        println!("recovery cannot repair this:");
        for why in &plan.blocked {
            println!("  {why}");
        }
        return ExitCode::from(1);
    }
    println!(
        "recovery would keep entries {}, lose {}, copy the write-ahead log, manifest and anchor aside, record a LogRecovered entry at sequence {} with your reason, and write a new anchor",
        if plan.kept_size == 0 {
            "none".to_string()
        } else {
            format!("0..={}", plan.kept_size - 1)
        },
        recovery::stated_loss(&plan),
        plan.kept_size
    );
    let Some(accept) = &args.accept_loss else {
        println!(
            "nothing changed: to proceed, run again with --accept-loss {}",
            plan.accept
        );
        return ExitCode::from(1);
    };
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    match recovery::recover(&args.data, &args.reason, accept, now_ms) {
        Ok(done) => {
            println!(
                "recovered: entry {} records it; files copied aside: {}",
                done.sequence,
                done.preserved.join(", ")
            );
            println!(
                "checkpoints taken before now that cover the lost entries no longer match the log; `pitboss verify` lists the recovery"
            );
            ExitCode::SUCCESS
        }
        Err(e @ RecoveryError::NotAccepted { .. }) => {
            println!("nothing changed: {e}");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("recovery failed: {e}");
            ExitCode::from(2)
        }
    }
}
