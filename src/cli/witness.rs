//! `pitboss witness`: a C2SP witness of the logs a policy file names, served over HTTP on its own
//! listener. A regulator, a lab or any third party runs one; a log's operator adds it to the log's
//! policy. Its data directory holds its keys (`witness.key`, Ed25519, and `witness-ml-dsa.key`, the
//! ML-DSA-44 seed; each made on first start, mode 0600), its state (`state/logs/`: the latest
//! checkpoint cosigned per log) and the submissions it refused although the log had signed them
//! (`state/refused/`: evidence). `--cosign` says which cosignatures it answers with (both by
//! default: C2SP's tlog-cosignature asks new deployments for ML-DSA-44, and the public witness
//! network's logs still read Ed25519); with an ML-DSA-44 key it also serves `sign-subtree`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;

use pitboss_ledger::keys::{KeyError, Keypair};
use pitboss_witness::state::State;
use pitboss_witness::Witness;

/// The witness's key files in its data directory.
const KEY_FILE: &str = "witness.key";
const ML_DSA_KEY_FILE: &str = "witness-ml-dsa.key";

/// A kind of cosignature (C2SP tlog-cosignature).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Cosign {
    /// `cosignature/v1`, Ed25519 (type 0x04).
    Ed25519,
    /// `subtree/v1`, ML-DSA-44 (type 0x06).
    #[value(name = "ml-dsa-44")]
    MlDsa44,
}

#[derive(Debug, Args)]
pub struct WitnessArgs {
    /// The witness's data directory (its key, its state, the refused submissions).
    #[arg(long)]
    data: PathBuf,
    /// The witness's name: its cosignatures' key name, a schema-less URL such as
    /// `witness.example.org/w1`.
    #[arg(long)]
    name: String,
    /// The logs to witness: a C2SP tlog-policy file whose `log <vkey>` lines name them (its other
    /// lines are checked, not used; `quorum none` is enough).
    #[arg(long)]
    policy: PathBuf,
    /// The address to serve on.
    #[arg(long, default_value = "127.0.0.1:7380")]
    listen: SocketAddr,
    /// The submission and monitoring prefix: `add-checkpoint` is served at
    /// `<prefix>/add-checkpoint`, each log's latest cosigned checkpoint at
    /// `<prefix>/<SHA-256 of its origin, hex>/checkpoint`.
    #[arg(long, default_value = "")]
    prefix: String,
    /// How long, in milliseconds, a connection may take to send its first request head before
    /// it is closed.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(100..=600_000))]
    handshake_timeout_ms: u64,
    /// How long, in milliseconds, a connection with no request in flight is kept.
    #[arg(long, default_value_t = 300_000, value_parser = clap::value_parser!(u64).range(100..=86_400_000))]
    idle_timeout_ms: u64,
    /// The cosignatures it answers with, comma-separated: `ed25519`, `ml-dsa-44`, or both.
    #[arg(long, value_delimiter = ',', default_value = "ed25519,ml-dsa-44")]
    cosign: Vec<Cosign>,
    /// Print the witness's verifier keys (for a log's policy), one a line, and exit.
    #[arg(long)]
    print_vkey: bool,
}

pub fn run(args: WitnessArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.prefix.is_empty() || (args.prefix.starts_with('/') && !args.prefix.contains(' ')),
        "--prefix {:?}: empty, or a path starting with /",
        args.prefix
    );
    let policy = super::read_policy(&args.policy)?;
    let logs = policy.logs.into_iter().map(|l| l.vkey).collect::<Vec<_>>();
    anyhow::ensure!(
        !logs.is_empty(),
        "{}: no `log` line: the witness would know no log",
        args.policy.display()
    );
    let witness = open_witness(&args.data, &args.name, logs.clone())?;
    let ed25519 = args.cosign.contains(&Cosign::Ed25519);
    let witness = if args.cosign.contains(&Cosign::MlDsa44) {
        let seed = load_or_create_seed(&args.data.join(ML_DSA_KEY_FILE))?;
        witness
            .with_ml_dsa(pitboss_witness::subtree::MlDsaKey::from_seed(seed), ed25519)
            .context("--name: at most 255 bytes for an ML-DSA-44 cosigner")?
    } else {
        anyhow::ensure!(ed25519, "--cosign: ed25519, ml-dsa-44 or both");
        witness
    };
    let keys = witness.cosigner_keys();
    if args.print_vkey {
        for key in &keys {
            println!("{key}");
        }
        return Ok(());
    }
    let vkey = ed25519.then(|| witness.vkey().to_string());
    let ml_dsa_vkey = keys.iter().find_map(|k| match k {
        pitboss_witness::cosigner::CosignerKey::MlDsa44(v) => Some(v.to_string()),
        _ => None,
    });
    let sign_subtree = ml_dsa_vkey.is_some();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        super::descriptors::raise();
        let listener = pitboss::service::listen(args.listen)
            .with_context(|| format!("cannot listen on {}", args.listen))?;
        let address = listener.local_addr()?;
        super::ready(&serde_json::json!({
            "witness": address.to_string(),
            "add_checkpoint": format!("http://{address}{}/add-checkpoint", args.prefix),
            "monitoring_prefix": format!("http://{address}{}", args.prefix),
            "vkey": vkey,
            "ml_dsa_vkey": ml_dsa_vkey,
            "sign_subtree": sign_subtree.then(|| format!("http://{address}{}/sign-subtree", args.prefix)),
            "logs": logs.iter().map(|l| l.name.clone()).collect::<Vec<_>>(),
        }))?;
        let stop = pitboss::service::work::Shutdown::default();
        let (_, serving) = pitboss::service::serve_witness(
            listener,
            Arc::new(witness),
            args.prefix,
            None,
            pitboss::service::Deadlines {
                handshake: std::time::Duration::from_millis(args.handshake_timeout_ms),
                idle: std::time::Duration::from_millis(args.idle_timeout_ms),
            },
            stop.clone(),
        );
        let stopping = async move {
            super::shutdown_signal().await;
            stop.trigger();
        };
        tokio::join!(serving, stopping);
        Ok(())
    })
}

/// The witness named `name` keeping its key and state in `data` (made on the first start),
/// knowing `logs`.
pub(super) fn open_witness(
    data: &std::path::Path,
    name: &str,
    logs: Vec<pitboss_witness::note::Vkey>,
) -> anyhow::Result<Witness> {
    anyhow::ensure!(
        pitboss_witness::note::is_key_name(name),
        "--name {name:?}: a key name has no spaces or `+`"
    );
    std::fs::create_dir_all(data).with_context(|| format!("cannot create {}", data.display()))?;
    let key = load_or_create_key(&data.join(KEY_FILE))?;
    let state = State::open(&data.join("state"))?;
    Ok(Witness::new(name.to_string(), key, logs, state))
}

/// The witness's ML-DSA-44 seed: read (32 bytes, owner-only), or made on the first start.
fn load_or_create_seed(path: &std::path::Path) -> anyhow::Result<[u8; 32]> {
    match pitboss_ledger::keys::read_secret(path) {
        Ok(seed) => Ok(seed),
        Err(KeyError::Missing { .. }) => {
            let mut seed = [0u8; 32];
            getrandom::fill(&mut seed).map_err(|e| anyhow::anyhow!("no randomness: {e}"))?;
            pitboss_ledger::keys::write_secret(path, &seed)?;
            Ok(seed)
        }
        Err(e) => Err(e.into()),
    }
}

/// The witness's key: read (32 bytes, owner-only), or made on the first start.
fn load_or_create_key(path: &std::path::Path) -> anyhow::Result<Keypair> {
    match Keypair::read(path) {
        Ok(key) => Ok(key),
        Err(KeyError::Missing { .. }) => {
            let key = Keypair::generate()?;
            key.write_to(path)?;
            Ok(key)
        }
        Err(e) => Err(e.into()),
    }
}

#[derive(Debug, Args)]
pub struct VerifyEvidenceArgs {
    /// A witness's evidence file (`state/forks/…/<size>-<root>.txt`).
    file: PathBuf,
    /// The log's verifier key (the `log` line of the witness's policy); given again for each key
    /// the log had when it rotated its key between the two checkpoints (at most 16).
    #[arg(long, required = true)]
    log: Vec<String>,
}

/// The most `--log` keys `verify-evidence` takes.
const MAX_EVIDENCE_KEYS: usize = 16;

/// Checks a fork's evidence offline: exit 0 and the two roots when it proves a fork.
pub fn run_verify_evidence(args: VerifyEvidenceArgs) -> anyhow::Result<std::process::ExitCode> {
    use std::io::Read;
    anyhow::ensure!(
        args.log.len() <= MAX_EVIDENCE_KEYS,
        "--log: at most {MAX_EVIDENCE_KEYS} keys"
    );
    let keys = args
        .log
        .iter()
        .map(|key| {
            pitboss_witness::note::Vkey::parse(key).with_context(|| format!("--log {key:?}"))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let Some(first) = keys.first() else {
        anyhow::bail!("--log: the log's verifier key");
    };
    anyhow::ensure!(
        keys.iter().all(|k| k.name == first.name),
        "--log: the keys of one log, each named by its origin (here {:?} and another)",
        first.name
    );
    let mut text = String::new();
    std::fs::File::open(&args.file)
        .with_context(|| format!("cannot open {}", args.file.display()))?
        .take(pitboss_witness::evidence::MAX_EVIDENCE_FILE as u64 + 1)
        .read_to_string(&mut text)
        .with_context(|| format!("cannot read {} as text", args.file.display()))?;
    Ok(match pitboss_witness::evidence::check(&text, &keys) {
        Ok(fork) => {
            use base64::Engine;
            let b64 = base64::engine::general_purpose::STANDARD;
            println!(
                "FORK PROVEN: log {} signed two trees of {} entries, roots {} (cosigned) and {}",
                fork.origin,
                fork.size,
                b64.encode(fork.roots[0]),
                b64.encode(fork.roots[1])
            );
            std::process::ExitCode::SUCCESS
        }
        Err(why) => {
            println!("no fork proven: {why}");
            std::process::ExitCode::FAILURE
        }
    })
}
