//! `pitboss tiles --out DIR`: a log's server (or a mirror) written to a directory as C2SP
//! tlog-tiles, incrementally — the archive anyone keeps of a log without trusting the machine that
//! serves it. The server's checkpoint is held to the pinned verifier key (and to a witness
//! policy's quorum, with `--policy`) before anything is written; the entries come over gRPC with
//! their stored bytes (`StreamEvents`), and the tile writer (`pitboss_ledger::tiles`) publishes
//! the checkpoint only once the tiles give its root.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::client::{refused, ServerArgs};
use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;
use pitboss_ledger::tiles::TileDir;

#[derive(Debug, Args)]
pub struct TilesArgs {
    /// The tile directory (made if missing; what it holds is extended, never rewritten).
    #[arg(long)]
    out: PathBuf,
    /// The log's verifier key (a signed-note vkey, as `pitboss checkpoint` prints it).
    #[arg(long)]
    log: String,
    /// A C2SP tlog-policy file: the checkpoint must also carry cosignatures that meet its quorum.
    #[arg(long)]
    policy: Option<PathBuf>,
    #[command(flatten)]
    server: ServerArgs,
}

pub fn run(args: TilesArgs) -> anyhow::Result<()> {
    let log = pitboss_witness::note::Vkey::parse(&args.log)
        .map_err(|e| anyhow::anyhow!("--log {:?}: {e}", args.log))?;
    let policy = match &args.policy {
        Some(path) => Some(super::read_policy(path)?),
        None => None,
    };
    let dir = TileDir::open(&args.out)
        .with_context(|| format!("cannot keep tiles in {}", args.out.display()))?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let channel = runtime.block_on(args.server.connect())?;
    // An event with its stored entry (at most MAX_RECORD bytes in any log the tiles can hold) and
    // its fields, or a checkpoint.
    let mut audit = AuditClient::new(channel)
        .max_decoding_message_size(pitboss_ledger::tiles::MAX_RECORD + 64 * 1024);
    let answer = runtime
        .block_on(audit.get_checkpoint(proto::GetCheckpointRequest { tree_size: 0 }))
        .map_err(refused)?
        .into_inner();
    let checkpoint = pitboss_ledger::checkpoint::Checkpoint::parse(&answer.note)
        .context("the server's checkpoint")?;
    anyhow::ensure!(
        checkpoint.origin == log.name,
        "the server serves log {}, not {}",
        checkpoint.origin,
        log.name
    );
    checkpoint
        .verify(&log.key)
        .context("the server's checkpoint is not signed by the log's key")?;
    if let Some(policy) = &policy {
        let check = pitboss_witness::cosigned::check(&answer.note, policy, &log.key)?;
        anyhow::ensure!(
            check.quorum,
            "the server's checkpoint of {} entries is not cosigned to the policy's quorum (by {})",
            checkpoint.size,
            check.witnesses.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    // One stream, opened at the first entry asked for and read in order; opened again if the
    // writer ever asks elsewhere.
    let mut stream: Option<(u64, tonic::Streaming<proto::LoggedEvent>)> = None;
    let started = std::time::Instant::now();
    let published = dir.publish(&answer.note, |from, count| {
        runtime.block_on(async {
            if stream.as_ref().is_none_or(|(next, _)| *next != from) {
                let opened = audit
                    .stream_events(proto::StreamEventsRequest {
                        from_sequence: from,
                        stored_entries: true,
                    })
                    .await
                    .map_err(|s| format!("{:?}: {}", s.code(), s.message()))?;
                stream = Some((from, opened.into_inner()));
            }
            let Some((next, events)) = stream.as_mut() else {
                return Err("no stream".to_string());
            };
            let mut records = Vec::with_capacity(count as usize);
            while (records.len() as u64) < count {
                let event = events
                    .message()
                    .await
                    .map_err(|s| format!("{:?}: {}", s.code(), s.message()))?
                    .ok_or("the server ended the stream")?;
                records.push((event.sequence, event.stored_entry));
            }
            *next += count;
            Ok(records)
        })
    })?;
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "{}: the log's tree of {} entries published ({} new entries, {} files, {} bytes, {:.1} s, {:.0} entries/s)",
        args.out.display(),
        published.size,
        published.size - published.from,
        published.files,
        published.bytes,
        seconds,
        (published.size - published.from) as f64 / seconds.max(1e-9)
    );
    Ok(())
}
