//! `pitboss ledger-load` (hidden): appends to the ledger from many concurrent writers until killed,
//! printing `ack <first sequence> <count> <stream> <version>` for every durable append. The crash
//! test kills it with SIGKILL at random moments and checks that every acknowledged entry survived.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;

use pitboss::proto;
use pitboss_ledger::{AppendRequest, Expected, Ledger};

#[derive(Debug, Args)]
pub struct LedgerLoadArgs {
    /// The data directory.
    #[arg(long)]
    data: PathBuf,
    /// Concurrent writers.
    #[arg(long, default_value_t = 8)]
    writers: usize,
    /// Appends per writer (0: until killed).
    #[arg(long, default_value_t = 0)]
    appends: u64,
}

pub fn run(args: LedgerLoadArgs) -> anyhow::Result<()> {
    let ledger = Arc::new(Ledger::open(&args.data, 0).context("open the ledger")?);
    let runtime = tokio::runtime::Runtime::new()?;
    let out = Arc::new(std::sync::Mutex::new(std::io::stdout()));
    runtime.block_on(async {
        let mut tasks = Vec::new();
        for w in 0..args.writers {
            let ledger = ledger.clone();
            let out = out.clone();
            tasks.push(tokio::spawn(async move {
                let stream = format!("load/{}/{w}", std::process::id());
                let mut n = 0u64;
                while args.appends == 0 || n < args.appends {
                    let payload = proto::Payload {
                        kind: Some(proto::payload::Kind::ConfigPublished(
                            proto::ConfigPublished {
                                config_id: vec![w as u8; 32],
                                canonical_json: format!("{{\"n\":{n}}}").into_bytes(),
                            },
                        )),
                    };
                    let count = 1 + (n % 3) as usize;
                    let request = AppendRequest {
                        stream: stream.clone(),
                        expected: Expected::Any,
                        payloads: vec![prost::Message::encode_to_vec(&payload); count],
                        request: None,
                        indexes: Vec::new(),
                        secrets: Vec::new(),
                        unindex: Vec::new(),
                        recorded_at_ms: n,
                        actor: pitboss_ledger::SERVER_ACTOR.to_string(),
                    };
                    let appended = ledger.append(request).await?;
                    if let Ok(mut out) = out.lock() {
                        writeln!(
                            out,
                            "ack {} {} {stream} {}",
                            appended.first_sequence, appended.count, appended.stream_version
                        )?;
                        out.flush()?;
                    }
                    n += 1;
                }
                anyhow::Ok(())
            }));
        }
        for task in tasks {
            task.await??;
        }
        anyhow::Ok(())
    })
}
