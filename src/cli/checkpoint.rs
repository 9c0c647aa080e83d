//! `pitboss checkpoint` takes a signed checkpoint of a running server's log away as a file;
//! `pitboss prove` holds the log to checkpoints kept earlier: that a newer checkpoint extends an
//! older one (nothing rewritten), and that every event of a hand is in a checkpoint's tree. The
//! proofs are checked here, with nothing but hashes and the log's public key.

use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::Args;

use super::client::{block_on, refused, ServerArgs};
use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;
use pitboss_ledger::checkpoint::Checkpoint;
use pitboss_ledger::merkle::{leaf_hash, verify_consistency, verify_inclusion};

#[derive(Debug, Args)]
pub struct CheckpointArgs {
    /// Write the note to this file (standard output otherwise).
    #[arg(long)]
    out: Option<PathBuf>,
    /// A checkpoint of the first N entries instead of the whole log now.
    #[arg(long)]
    tree_size: Option<u64>,
    #[command(flatten)]
    server: ServerArgs,
}

#[derive(Debug, Args)]
pub struct ProveArgs {
    /// The checkpoint to hold the log to (a file written by `pitboss checkpoint`).
    #[arg(long)]
    checkpoint: PathBuf,
    /// The log's Ed25519 public key, 64 hex digits, as you pinned it (default: the key the server
    /// names now, printed so that you can compare).
    #[arg(long)]
    key: Option<String>,
    /// Prove that an older checkpoint's tree is a prefix of this one's.
    #[arg(long)]
    since: Option<PathBuf>,
    /// Prove that every event of this hand is in the checkpoint's tree.
    #[arg(long)]
    hand: Option<String>,
    #[command(flatten)]
    server: ServerArgs,
}

/// `pitboss log-list-entry`: the log's entry for the witness network's log lists.
#[derive(Debug, clap::Args)]
pub struct LogListEntryArgs {
    /// How the network and the witnesses' operators reach you.
    #[arg(long)]
    contact: String,
    /// The server's `--cosign-every-ms` (how often it may submit to each witness).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(10..=3_600_000))]
    cosign_every_ms: u64,
    #[command(flatten)]
    server: ServerArgs,
}

/// Prints the log's `logs/v0` entry once the log's newest checkpoint meets every rule it makes.
pub fn run_log_list_entry(args: LogListEntryArgs) -> anyhow::Result<std::process::ExitCode> {
    use pitboss_witness::log_list::{requests_per_day, LogListEntry};
    block_on(async {
        let mut audit = AuditClient::new(args.server.connect().await?);
        let c = audit
            .get_checkpoint(proto::GetCheckpointRequest::default())
            .await
            .map_err(refused)?
            .into_inner();
        let note = Checkpoint::parse(&c.note).context("the server's checkpoint does not read")?;
        let key = ed25519_dalek::VerifyingKey::from_bytes(&hash32(&c.public_key)?)
            .context("the server's key is not an Ed25519 key")?;
        let per_day = requests_per_day(args.cosign_every_ms);
        let entry = LogListEntry {
            vkey: pitboss_witness::note::Vkey {
                name: note.origin,
                kind: pitboss_witness::note::ED25519,
                key,
            },
            origin: None,
            bastion: None,
            qpd: per_day,
            contact: args.contact,
        };
        let problems = entry.problems(&c.note, per_day);
        for problem in &problems {
            eprintln!("PROBLEM: {problem}");
        }
        if !problems.is_empty() {
            return Ok(std::process::ExitCode::FAILURE);
        }
        print!("{}", entry.to_text());
        eprintln!(
            "the checkpoint of {} entries meets every rule of the entry; send it to participate \
             (at) lists.witness-network.org asking for the staging list (docs/witnessing.md)",
            c.tree_size
        );
        Ok(std::process::ExitCode::SUCCESS)
    })
}

pub fn run_checkpoint(args: CheckpointArgs) -> anyhow::Result<()> {
    block_on(async {
        let mut audit = AuditClient::new(args.server.connect().await?);
        let c = audit
            .get_checkpoint(proto::GetCheckpointRequest {
                tree_size: args.tree_size.unwrap_or(0),
            })
            .await
            .map_err(refused)?
            .into_inner();
        match &args.out {
            Some(path) => {
                std::fs::write(path, &c.note)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                eprintln!(
                    "checkpoint of {} entries written to {}",
                    c.tree_size,
                    path.display()
                );
            }
            None => print!("{}", c.note),
        }
        eprintln!(
            "signed by key {} (public key {})",
            c.key_id,
            hex::encode(&c.public_key)
        );
        if let (Ok(note), Ok(key)) = (Checkpoint::parse(&c.note), hash32(&c.public_key)) {
            if let Ok(key) = ed25519_dalek::VerifyingKey::from_bytes(&key) {
                let vkey = pitboss_witness::note::Vkey {
                    name: note.origin,
                    kind: pitboss_witness::note::ED25519,
                    key,
                };
                eprintln!("the log's verifier key (a witness policy's `log` line): {vkey}");
            }
        }
        Ok(())
    })
}

fn read(path: &PathBuf) -> anyhow::Result<Checkpoint> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    Checkpoint::parse(&text).with_context(|| format!("{}", path.display()))
}

fn hash32(bytes: &[u8]) -> anyhow::Result<[u8; 32]> {
    bytes
        .try_into()
        .map_err(|_| anyhow::anyhow!("the server sent a hash of {} bytes", bytes.len()))
}

fn hashes32(hashes: &[Vec<u8>]) -> anyhow::Result<Vec<[u8; 32]>> {
    hashes.iter().map(|h| hash32(h)).collect()
}

pub fn run_prove(args: ProveArgs) -> anyhow::Result<std::process::ExitCode> {
    if args.since.is_none() && args.hand.is_none() {
        bail!("give --since OLDER_CHECKPOINT, --hand HAND_ID, or both");
    }
    block_on(async {
        let mut audit = AuditClient::new(args.server.connect().await?);
        let public = match &args.key {
            Some(text) => hex::decode(text).context("--key is not hex")?,
            None => {
                let now = audit
                    .get_checkpoint(proto::GetCheckpointRequest::default())
                    .await
                    .map_err(refused)?
                    .into_inner();
                eprintln!(
                    "using the key the server names now: {} (pin it with --key {})",
                    now.key_id,
                    hex::encode(&now.public_key)
                );
                now.public_key
            }
        };
        let public = ed25519_dalek::VerifyingKey::from_bytes(&hash32(&public)?)
            .context("not an Ed25519 public key")?;
        let checkpoint = read(&args.checkpoint)?;
        checkpoint.verify(&public)?;
        println!(
            "checkpoint {}: {} entries, signature valid",
            args.checkpoint.display(),
            checkpoint.size
        );
        let mut failed = false;
        if let Some(path) = &args.since {
            let older = read(path)?;
            older.verify(&public)?;
            let proof = audit
                .get_consistency_proof(proto::GetConsistencyProofRequest {
                    first_size: older.size,
                    second_size: checkpoint.size,
                })
                .await
                .map_err(refused)?
                .into_inner();
            let hashes = hashes32(&proof.hashes)?;
            let ok = older.origin == checkpoint.origin
                && verify_consistency(
                    older.size,
                    checkpoint.size,
                    &older.root,
                    &checkpoint.root,
                    &hashes,
                );
            println!(
                "{}: the first {} entries are {} in the newer checkpoint",
                if ok { "consistent" } else { "INCONSISTENT" },
                older.size,
                if ok {
                    "unchanged"
                } else {
                    "not provably unchanged"
                }
            );
            failed |= !ok;
        }
        if let Some(hand) = &args.hand {
            let events = audit
                .get_hand_events(proto::GetHandEventsRequest {
                    hand_id: hand.clone(),
                    ..Default::default()
                })
                .await
                .map_err(refused)?
                .into_inner()
                .events;
            for event in events {
                if event.sequence >= checkpoint.size {
                    println!(
                        "entry {:>8}: after the checkpoint (take a newer one)",
                        event.sequence
                    );
                    failed = true;
                    continue;
                }
                let proof = audit
                    .get_inclusion_proof(proto::GetInclusionProofRequest {
                        sequence: event.sequence,
                        tree_size: checkpoint.size,
                    })
                    .await
                    .map_err(refused)?
                    .into_inner();
                let hashes = hashes32(&proof.hashes)?;
                let entry_hash = hash32(&proof.entry_hash)?;
                let ok = hex::encode(entry_hash) == event.hash
                    && verify_inclusion(
                        event.sequence,
                        checkpoint.size,
                        &leaf_hash(&entry_hash),
                        &hashes,
                        &checkpoint.root,
                    );
                println!(
                    "entry {:>8}: {}",
                    event.sequence,
                    if ok { "included" } else { "NOT PROVEN" }
                );
                failed |= !ok;
            }
        }
        Ok(if failed {
            std::process::ExitCode::FAILURE
        } else {
            std::process::ExitCode::SUCCESS
        })
    })
}
