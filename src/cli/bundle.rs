//! `pitboss bundle HAND --out FILE` takes one hand's evidence away from a running server
//! (`--round`: one table round's);
//! `pitboss verify-bundle FILE --key HEX [--policy FILE]` checks it with no server: the
//! checkpoint's signature with the pinned key, with a policy the witnesses' cosignatures of the same
//! tree against its quorum, every entry's hash, signature and inclusion, then the replay's proof
//! report. `--tlog-proofs DIR`: `pitboss bundle` also writes a C2SP `tlog-proof` for each entry
//! there, and `verify-bundle` checks each one there by the spec's steps against the bundle's
//! entries (`docs/tlog-proof.md`).

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
    /// Also write a `tlog-proof` for each entry in this directory (created if missing).
    #[arg(long)]
    tlog_proofs: Option<PathBuf>,
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
    /// A directory of the bundle's `tlog-proof` files: each checked by the spec's steps, and one
    /// required for every entry.
    #[arg(long)]
    tlog_proofs: Option<PathBuf>,
}

/// Writes each of `bundle`'s `tlog-proof` files in `dir` (made if missing), refusing to overwrite
/// one; their paths.
pub fn write_tlog_proofs(bundle: &Bundle, dir: &std::path::Path) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot make {}", dir.display()))?;
    let mut written = Vec::new();
    for proof in bundle::tlog_proofs(bundle) {
        // Named from the bundle's id: a plain file name or nothing.
        let path = dir.join(super::plain(&proof.file)?);
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .with_context(|| format!("cannot write {} (it may exist already)", path.display()))?;
        std::io::Write::write_all(&mut file, proof.text.as_bytes())
            .and_then(|()| file.sync_all())
            .with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// The problems of the `tlog-proof` files in `dir` against `bundle`: each must verify (the log's
/// key for the bundle's origin, `policy`'s quorum when given) and prove one of the bundle's
/// entries, its envelope byte for byte; every entry must have one. Prints each proof checked.
fn tlog_proof_problems(
    bundle: &Bundle,
    dir: &std::path::Path,
    key: &ed25519_dalek::VerifyingKey,
    policy: Option<&pitboss_witness::policy::Policy>,
) -> anyhow::Result<Vec<String>> {
    use base64::Engine;
    let origin = pitboss_ledger::checkpoint::Checkpoint::parse(
        bundle
            .cosigned_checkpoint
            .as_deref()
            .unwrap_or(&bundle.checkpoint),
    )
    .map(|c| c.origin)
    .map_err(|e| anyhow::anyhow!("the bundle's checkpoint: {e}"))?;
    let mut envelopes = std::collections::BTreeMap::new();
    for bundled in &bundle.entries {
        let envelope = base64::engine::general_purpose::STANDARD
            .decode(&bundled.stored)
            .ok()
            .and_then(|b| pitboss_ledger::Entry::decode(&b).ok())
            .map(|e| e.envelope_bytes);
        envelopes.insert(bundled.sequence, envelope);
    }
    let mut problems = Vec::new();
    let mut proven = std::collections::BTreeSet::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x == pitboss_witness::proof::EXTENSION)
        })
        .collect();
    files.sort();
    if files.len() > bundle::MAX_ROUND_ENTRIES {
        anyhow::bail!(
            "{} holds more proofs than a bundle has entries",
            dir.display()
        );
    }
    for path in files {
        let name = path.display();
        let len = std::fs::metadata(&path)?.len();
        if len > pitboss_witness::proof::MAX_TEXT as u64 {
            problems.push(format!("{name}: {len} bytes, more than a proof may have"));
            continue;
        }
        let text = std::fs::read_to_string(&path)?;
        match bundle::check_tlog_proof(&text, &origin, key, policy) {
            Err(problem) => problems.push(format!("{name}: {problem}")),
            Ok((sequence, envelope)) => match envelopes.get(&sequence) {
                Some(Some(ours)) if *ours == envelope => {
                    proven.insert(sequence);
                    println!("tlog-proof of entry {sequence}: verified ({name})");
                }
                _ => problems.push(format!(
                    "{name}: proves entry {sequence}, which is not the bundle's entry there"
                )),
            },
        }
    }
    for sequence in envelopes.keys().filter(|s| !proven.contains(s)) {
        problems.push(format!(
            "entry {sequence}: no tlog-proof of it in {}",
            dir.display()
        ));
    }
    Ok(problems)
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
        std::fs::write(&args.out, &json)
            .with_context(|| format!("cannot write {}", args.out.display()))?;
        if let Some(dir) = &args.tlog_proofs {
            let bundle: Bundle =
                serde_json::from_str(&json).context("the server's bundle does not read")?;
            let written = write_tlog_proofs(&bundle, dir)?;
            eprintln!("{} tlog-proof files in {}", written.len(), dir.display());
        }
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
    let key = super::pinned_key(&args.key)?;
    let policy = args.policy.as_deref().map(super::read_policy).transpose()?;
    let mut verified = bundle::verify(&bundle, &key, policy.as_ref());
    if let Some(dir) = &args.tlog_proofs {
        let problems = tlog_proof_problems(&bundle, dir, &key, policy.as_ref())?;
        verified.problems.extend(problems);
    }
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
