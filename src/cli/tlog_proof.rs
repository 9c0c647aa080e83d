//! `pitboss tlog-proofs --stream STREAM --out DIR` takes the entries of a public stream away as
//! C2SP `tlog-proof` files (`Audit.GetTlogProofs`: the returns' signed statements,
//! `returns/statements`, or a configuration's certifications, `certifications/<config id>`);
//! `pitboss verify-tlog-proof FILE… --key HEX [--policy FILE]` checks proofs of a pitboss log with
//! no server by the spec's steps (`docs/tlog-proof.md`), printing what each entry is.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::client::{block_on, refused, ServerArgs};
use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;

#[derive(Debug, Args)]
pub struct TlogProofsArgs {
    /// `returns/statements`, or `certifications/<config id>`.
    #[arg(long)]
    stream: String,
    /// The directory to write the proofs in (created if missing; no file is overwritten).
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    server: ServerArgs,
}

#[derive(Debug, Args)]
pub struct VerifyTlogProofArgs {
    /// The proof files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The log's Ed25519 public key, 64 hex digits, as you pinned it.
    #[arg(long)]
    key: String,
    /// The log's origin (its checkpoints' first line), as you pinned it; the proof's own when
    /// absent.
    #[arg(long)]
    origin: Option<String>,
    /// A C2SP tlog-policy file: each proof's checkpoint must be cosigned to its quorum.
    #[arg(long)]
    policy: Option<PathBuf>,
}

/// Every page of the stream, written.
pub fn run(args: TlogProofsArgs) -> anyhow::Result<()> {
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot make {}", args.out.display()))?;
    block_on(async {
        let mut audit = AuditClient::new(args.server.connect().await?);
        let mut position = 0;
        let mut written = 0usize;
        loop {
            let page = audit
                .get_tlog_proofs(proto::GetTlogProofsRequest {
                    stream: args.stream.clone(),
                    position,
                })
                .await
                .map_err(refused)?
                .into_inner();
            for proof in &page.proofs {
                let name = super::plain(&proof.file)?;
                super::pages::write_new(&args.out.join(name), proof.text.as_bytes())?;
                written += 1;
            }
            eprintln!(
                "{} proofs in a tree of {} entries{}",
                page.proofs.len(),
                page.tree_size,
                if page.cosigned {
                    ", cosigned by the log's witnesses"
                } else {
                    ""
                }
            );
            if page.next_position == 0 || page.next_position <= position {
                break;
            }
            position = page.next_position;
        }
        println!(
            "{written} tlog-proof files of {} in {}",
            args.stream,
            args.out.display()
        );
        Ok(())
    })
}

/// Each proof checked; exit status 1 if any fails.
pub fn run_verify(args: VerifyTlogProofArgs) -> anyhow::Result<std::process::ExitCode> {
    use prost::Message;
    let key = super::pinned_key(&args.key)?;
    let policy = args.policy.as_deref().map(super::read_policy).transpose()?;
    let mut failed = 0;
    for path in &args.files {
        let len = std::fs::metadata(path)
            .with_context(|| format!("cannot read {}", path.display()))?
            .len();
        let outcome = if len > pitboss_witness::proof::MAX_TEXT as u64 {
            Err(format!("{len} bytes, more than a proof may have"))
        } else {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let origin = match &args.origin {
                Some(origin) => Ok(origin.clone()),
                None => pitboss_witness::proof::TlogProof::parse(&text)
                    .map_err(|e| e.to_string())
                    .and_then(|p| {
                        pitboss_ledger::checkpoint::Checkpoint::parse(&p.checkpoint)
                            .map(|c| c.origin)
                            .map_err(|e| format!("the checkpoint: {e}"))
                    }),
            };
            origin.and_then(|origin| {
                pitboss::audit::bundle::check_tlog_proof(&text, &origin, &key, policy.as_ref())
            })
        };
        match outcome {
            Ok((sequence, envelope)) => {
                let envelope = pitboss_ledger::proto::Envelope::decode(envelope.as_slice())
                    .context("the envelope does not decode")?;
                println!(
                    "{}: entry {sequence} (stream {} position {}, by {}) is in the log{}",
                    path.display(),
                    envelope.stream,
                    envelope.stream_position,
                    if envelope.actor.is_empty() {
                        "-"
                    } else {
                        &envelope.actor
                    },
                    if policy.is_some() {
                        ", in a checkpoint cosigned to the policy's quorum"
                    } else {
                        ""
                    }
                );
            }
            Err(problem) => {
                failed += 1;
                println!("{}: REFUSED: {problem}", path.display());
            }
        }
    }
    Ok(if failed == 0 {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    })
}
