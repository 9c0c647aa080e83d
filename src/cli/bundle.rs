//! `pitboss bundle HAND --out FILE` takes one hand's evidence away from a running server
//! (`--round`: one table round's);
//! `pitboss verify-bundle FILE --key HEX [--policy FILE]` checks it with no server: the
//! checkpoint's signature with the pinned key, with a policy the witnesses' cosignatures of the same
//! tree against its quorum, every entry's hash, signature and inclusion, then the replay's proof
//! report.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::client::{block_on, refused, ServerArgs};
use pitboss::audit::bundle::{self, Bundle};
use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;

#[derive(Debug, Args)]
pub struct BundleArgs {
    /// The hand id (with `--round`, the round id).
    hand: String,
    /// The id is a table round's (`docs/rounds.md`).
    #[arg(long)]
    round: bool,
    /// Where to write the bundle (JSON).
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    server: ServerArgs,
}

#[derive(Debug, Args)]
pub struct VerifyBundleArgs {
    /// The bundle file.
    file: PathBuf,
    /// The log's Ed25519 public key, 64 hex digits, as you pinned it (`pitboss checkpoint` prints it).
    #[arg(long)]
    key: String,
    /// A C2SP tlog-policy file (`docs/witnessing.md`): the bundle's tree must also be cosigned by
    /// witnesses that meet its quorum, and the policy must list the log with the key given.
    #[arg(long)]
    policy: Option<PathBuf>,
}

pub fn run_bundle(args: BundleArgs) -> anyhow::Result<()> {
    block_on(async {
        let mut audit = AuditClient::new(args.server.connect().await?);
        let answer = if args.round {
            audit
                .get_round_bundle(proto::GetRoundBundleRequest {
                    round_id: args.hand.clone(),
                })
                .await
        } else {
            audit
                .get_hand_bundle(proto::GetHandBundleRequest {
                    hand_id: args.hand.clone(),
                })
                .await
        };
        let json = answer.map_err(refused)?.into_inner().bundle_json;
        std::fs::write(&args.out, json)
            .with_context(|| format!("cannot write {}", args.out.display()))?;
        eprintln!(
            "{} {} bundled in {}",
            if args.round { "round" } else { "hand" },
            args.hand,
            args.out.display()
        );
        Ok(())
    })
}

pub fn run_verify(args: VerifyBundleArgs) -> anyhow::Result<std::process::ExitCode> {
    let size = std::fs::metadata(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?
        .len();
    if size > bundle::MAX_BYTES {
        anyhow::bail!(
            "{} has {size} bytes, more than the {} a bundle may have",
            args.file.display(),
            bundle::MAX_BYTES
        );
    }
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let bundle: Bundle = serde_json::from_str(&text).context("not a pitboss bundle")?;
    let key: [u8; 32] = hex::decode(&args.key)
        .ok()
        .and_then(|k| k.try_into().ok())
        .context("--key is not 64 hex digits")?;
    let key = ed25519_dalek::VerifyingKey::from_bytes(&key).context("not an Ed25519 key")?;
    let policy = args.policy.as_deref().map(super::read_policy).transpose()?;
    let verified = bundle::verify(&bundle, &key, policy.as_ref());
    if let Some(size) = verified.checkpoint_size {
        println!("checkpoint of {size} entries: signature valid");
    }
    if let Some(witnesses) = &verified.cosigned_by {
        println!(
            "cosigned by {}: the policy's quorum is met",
            witnesses.join(", ")
        );
    }
    for problem in &verified.problems {
        println!("PROBLEM: {problem}");
    }
    let nothing = (Vec::new(), Vec::new());
    let (lines, events, places) = match (&verified.report, &verified.round) {
        (Some(report), _) => (&report.report, &report.events, Vec::new()),
        (None, Some(round)) => (
            &round.report,
            &round.events,
            round.places.iter().flat_map(|p| p.report.clone()).collect(),
        ),
        (None, None) => (&nothing.0, &nothing.1, Vec::new()),
    };
    for line in lines {
        println!("{line}");
    }
    for line in &places {
        println!("  {line}");
    }
    for e in events {
        println!(
            "  entry {:>8}  {:<14} by {:<16} in checkpoint {}  signature {}  re-derived {}{}",
            e.sequence,
            e.kind,
            if e.actor.is_empty() { "-" } else { &e.actor },
            if e.chain_ok { "ok" } else { "FAIL" },
            if e.signature_ok { "ok" } else { "FAIL" },
            if e.rederived { "ok" } else { "FAIL" },
            if e.note.is_empty() {
                String::new()
            } else {
                format!("  ({})", e.note)
            }
        );
    }
    Ok(if verified.ok() {
        let what = if verified.round.is_some() {
            "the round is in the signed log, dealt from one shuffle, and every place settles by \
             the rules"
        } else {
            "the hand is in the signed log and settles by the rules"
        };
        println!("bundle verified: {what}");
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    })
}
