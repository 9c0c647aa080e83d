//! Command-line parsing and dispatch. A command module reads its arguments, calls the library and
//! prints; it holds no logic that `engine`, `ledger` or `service` already has.

mod bench_load;
mod bench_rounds;
mod bench_soak;
mod bundle;
mod certify;
mod check;
mod checkpoint;
mod client;
mod config_file;
mod configs;
mod copy;
mod deal;
mod demo;
mod descriptors;
mod dispute;
mod export;
mod hands;
mod house_way;
mod ledger_load;
mod mirror;
mod pages;
mod par;
mod progress;
mod proposals;
mod recover;
mod replay;
mod report;
mod returns;
mod rng;
mod rng_test;
mod rotate_key;
mod round;
mod serve;
mod serve_file;
mod simulate;
mod tiles;
mod times;
mod tlog_proof;
mod vectors;
mod verify;
mod void;
mod witness;

use anyhow::Context;
use clap::{Parser, Subcommand};

/// pitboss: the auditable core of four casino table games.
///
/// Deals from seeds, settles by versioned paytables and records every step in a signed,
/// hash-chained log that regulators can verify and replay.
#[derive(Debug, Parser)]
#[command(name = "pitboss", version, about, long_about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the gRPC service (health, reflection, Audit) on a local data directory.
    Serve(serve::ServeArgs),
    /// Re-derive one game's deal from a seed, as `docs/rng.md` describes, and print it as JSON.
    Deal(deal::DealArgs),
    /// Set seven Pai Gow cards by the house way and say which rule fired.
    HouseWay(house_way::HouseWayArgs),
    /// Verify a data directory: its files, every link, hash and signature, the anchor (nothing
    /// acknowledged missing), the keys; optionally against a checkpoint.
    Verify(verify::VerifyArgs),
    /// Copy a log (server stopped) into an empty PostgreSQL database, verified on the way.
    Copy(copy::CopyArgs),
    /// Repair a directory the server refuses (damaged write-ahead log, lost tail, damaged anchor),
    /// explicitly: prints what it would keep and lose, acts only when told, records it in the log.
    Recover(recover::RecoverArgs),
    /// Replace the log's signing key (server stopped), recorded in the log, signed by both keys.
    RotateKey(rotate_key::RotateKeyArgs),
    /// Take a signed checkpoint of the log (size and Merkle root) away as a file.
    Checkpoint(checkpoint::CheckpointArgs),
    /// Hold the log to a checkpoint: consistent with an older one, a hand's events included.
    Prove(checkpoint::ProveArgs),
    /// The log's entry for the witness network's log lists, its checkpoint checked against it.
    LogListEntry(checkpoint::LogListEntryArgs),
    /// Take one hand's evidence away as an offline bundle (entries, proofs, checkpoint).
    Bundle(bundle::BundleArgs),
    /// Check an offline bundle with no server: signatures, inclusion, replay.
    VerifyBundle(bundle::VerifyBundleArgs),
    /// Take the entries of a public stream (the returns' statements, a configuration's
    /// certifications) away as C2SP tlog-proof files.
    TlogProofs(tlog_proof::TlogProofsArgs),
    /// Check C2SP tlog-proof files of a pitboss log with no server.
    VerifyTlogProof(tlog_proof::VerifyTlogProofArgs),
    /// One hand's dispute packet: a page for people (cards, timeline, paytable, caps, verdict)
    /// and the offline bundle it describes, side by side in a directory.
    Dispute(dispute::DisputeArgs),
    /// The analysts' export: the hands of a time range (a table, a game) with their bets and log
    /// entries, as Parquet, CSV or JSON Lines files.
    Export(export::ExportArgs),
    /// Replay a hand on a running server and print its proof report.
    Replay(replay::ReplayArgs),
    /// Game recall: a player's or a table's hands, newest first.
    Hands(hands::HandsArgs),
    /// Void a hand, or every hand of a table over a time range (malfunction).
    Void(void::VoidArgs),
    /// The configurations in play, each with its latest certification report in the log
    /// (`--uncertified`: only those without a holding one, and exit status 1 when there are any).
    Configs(configs::ConfigsArgs),
    /// The two-person rule's proposals, newest first.
    Proposals(proposals::ListArgs),
    /// The floor's returns against the theoretical: per game, table, configuration, bet group and
    /// window, with the z-score and 99 % band; then the alerts.
    Returns(returns::ReturnsArgs),
    /// Reports from a server: `events`, the significant events of a period as HTML, PDF or CSV.
    Report(report::ReportArgs),
    /// Close a returns alert with a supervisor's investigation (recorded in the log).
    Investigate(returns::InvestigateArgs),
    /// Approve another principal's proposal (a settled hand's void, a table malfunction, a
    /// configuration), which then takes effect.
    Approve(proposals::DecideArgs),
    /// Reject a proposal.
    Reject(proposals::RejectArgs),
    /// End every hand still in progress more than 30 days after it opened, by the incomplete-game
    /// rule (void with refunds, or completion by game).
    Sweep(void::SweepArgs),
    /// A table's round against a running server: open it, take bets, close betting, relay
    /// decisions, close the window, void it or forfeit a place, show it (`docs/rounds.md`).
    Round(round::RoundArgs),
    /// Play a few hands of each game against a running server and print them.
    Demo(demo::DemoArgs),
    /// Load generator: concurrent clients play Mississippi Stud hands; hands/s and latency.
    BenchLoad(bench_load::BenchLoadArgs),
    /// Load generator for rounds: live studios' shared hands, every bet and decision one call;
    /// calls/s against the signing rate.
    BenchRounds(bench_rounds::BenchRoundsArgs),
    /// Soak: a long mixed load (play, recall, replay, lab, refused and abandoned requests) with the
    /// server's resident memory sampled as CSV.
    BenchSoak(bench_soak::BenchSoakArgs),
    /// Append from many writers until killed (for the crash test).
    #[command(hide = true)]
    LedgerLoad(ledger_load::LedgerLoadArgs),
    /// Exact PAR sheets of a game: every row's probability and contribution, return, house edge.
    Par(par::ParArgs),
    /// Check a hand played by another system (a vendor transcript) against our rules and its
    /// claimed payouts.
    Check(check::CheckArgs),
    /// Play many hands through the engine's commands: return, 95 % interval, row frequencies and
    /// a chi-square against the exact PAR sheet.
    Simulate(simulate::SimulateArgs),
    /// Witness logs (C2SP tlog-witness): cosign each checkpoint consistent with the last one
    /// cosigned, over HTTP; keep what was refused as evidence.
    Witness(witness::WitnessArgs),
    /// Write a log's server (or a mirror) to a directory as C2SP tlog-tiles, incrementally, once
    /// its checkpoint is held to the log's key (and a witness policy's quorum).
    Tiles(tiles::TilesArgs),
    /// A regulator's mirror: follow another server's log over gRPC, verify every entry into a copy
    /// of one's own, cosign the log's checkpoints the copy holds, and serve the read-only Audit API
    /// from the copy (it works when the log's server is down).
    Mirror(mirror::MirrorArgs),
    /// Check a witness's evidence of a fork offline: two checkpoints of one size, two roots, both
    /// signed by the log's key.
    VerifyEvidence(witness::VerifyEvidenceArgs),
    /// Raw RNG words (little-endian u32) from fresh seeds, for statistical test suites.
    Rng(rng::RngArgs),
    /// NIST SP 800-22 tests over the RNG's raw output, judged as the publication judges a
    /// generator: the proportion passing and the uniformity of the P-values.
    RngTest(rng_test::RngTestArgs),
    /// A configuration's certification report: exact PAR sheets, a simulation held to them at
    /// simultaneous 99 % intervals, the RNG battery, the vendor's transcripts; HTML and PDF.
    Certify(certify::CertifyArgs),
    /// Check a certification report against its signed note (`pitboss certify --record`),
    /// offline: the log's signature, the entry inside the tree it signs, the page's SHA-256.
    VerifyCertificate(certify::VerifyCertificateArgs),
    /// Print the RNG test vectors (the content of `fixtures/rng-vectors.json`) as JSON.
    RngVectors,
}

impl Cli {
    /// Runs the chosen command.
    pub fn run(self) -> anyhow::Result<std::process::ExitCode> {
        let ok = std::process::ExitCode::SUCCESS;
        if !matches!(self.command, Command::Serve(_) | Command::Mirror(_)) {
            quiet_on_broken_pipe();
        }
        match self.command {
            Command::Verify(args) => Ok(verify::run(args)),
            Command::Copy(args) => copy::run(args).map(|()| ok),
            Command::Recover(args) => Ok(recover::run(args)),
            Command::RotateKey(args) => rotate_key::run(args).map(|()| ok),
            Command::Replay(args) => replay::run(args),
            Command::Hands(args) => hands::run(args).map(|()| ok),
            Command::Void(args) => void::run(args).map(|()| ok),
            Command::Sweep(args) => void::run_sweep(args).map(|()| ok),
            Command::Configs(args) => configs::run(args),
            Command::Proposals(args) => proposals::run_list(args).map(|()| ok),
            Command::Returns(args) => returns::run(args).map(|()| ok),
            Command::Report(args) => report::run(args).map(|()| ok),
            Command::Investigate(args) => returns::run_investigate(args).map(|()| ok),
            Command::Approve(args) => proposals::run_approve(args).map(|()| ok),
            Command::Reject(args) => proposals::run_reject(args).map(|()| ok),
            Command::Demo(args) => demo::run(args).map(|()| ok),
            Command::BenchLoad(args) => bench_load::run(args).map(|()| ok),
            Command::BenchSoak(args) => bench_soak::run(args).map(|()| ok),
            Command::LedgerLoad(args) => ledger_load::run(args).map(|()| ok),
            Command::Serve(args) => serve::run(args).map(|()| ok),
            Command::Deal(args) => deal::run(args).map(|()| ok),
            Command::HouseWay(args) => house_way::run(args).map(|()| ok),
            Command::RngVectors => vectors::run().map(|()| ok),
            Command::Par(args) => par::run(args).map(|()| ok),
            Command::Rng(args) => rng::run(args).map(|()| ok),
            Command::RngTest(args) => rng_test::run(args),
            Command::Certify(args) => certify::run(args),
            Command::VerifyCertificate(args) => certify::verify(args),
            Command::Simulate(args) => simulate::run(args).map(|()| ok),
            Command::Round(args) => round::run(args).map(|()| ok),
            Command::BenchRounds(args) => bench_rounds::run(args).map(|()| ok),
            Command::Check(args) => check::run(args),
            Command::Checkpoint(args) => checkpoint::run_checkpoint(args).map(|()| ok),
            Command::Prove(args) => checkpoint::run_prove(args),
            Command::LogListEntry(args) => checkpoint::run_log_list_entry(args),
            Command::Bundle(args) => bundle::run_bundle(args).map(|()| ok),
            Command::VerifyBundle(args) => bundle::run_verify(args),
            Command::TlogProofs(args) => tlog_proof::run(args).map(|()| ok),
            Command::VerifyTlogProof(args) => tlog_proof::run_verify(args),
            Command::Dispute(args) => dispute::run(args).map(|()| ok),
            Command::Export(args) => export::run(args).map(|()| ok),
            Command::Witness(args) => witness::run(args).map(|()| ok),
            Command::Mirror(args) => mirror::run(args).map(|()| ok),
            Command::Tiles(args) => tiles::run(args).map(|()| ok),
            Command::VerifyEvidence(args) => witness::run_verify_evidence(args),
        }
    }
}

/// Output piped into `head` and closed early ends a tool quietly, as other command-line tools do,
/// instead of panicking on the broken pipe (Rust ignores SIGPIPE by default). Not for `serve`,
/// which must survive clients that go away.
fn quiet_on_broken_pipe() {
    #[cfg(unix)]
    // SAFETY: restores the default disposition of one signal before the tool starts any thread.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Writes the ready line on standard output, and flushes it.
fn ready(line: &serde_json::Value) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}")
        .and_then(|()| out.flush())
        .context("cannot write the ready line on standard output")
}

/// Completes on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = ctrl_c => {},
                    _ = term.recv() => {},
                }
            }
            Err(_) => {
                let _ = ctrl_c.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}

/// A file name the server gave, used only if it is a plain name (no directory, no dot first).
fn plain(name: &str) -> anyhow::Result<&str> {
    let ok = !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    anyhow::ensure!(
        ok,
        "the server named a file {name:?}, not a plain file name"
    );
    Ok(name)
}

/// The log's Ed25519 public key as a user pinned it (`--key`, 64 hex digits).
fn pinned_key(hex_key: &str) -> anyhow::Result<ed25519_dalek::VerifyingKey> {
    use anyhow::Context;
    let key: [u8; 32] = hex::decode(hex_key)
        .ok()
        .and_then(|k| k.try_into().ok())
        .context("--key is not 64 hex digits")?;
    ed25519_dalek::VerifyingKey::from_bytes(&key).context("--key is not an Ed25519 key")
}

/// Reads a C2SP tlog-policy file (at most its limit's bytes).
fn read_policy(path: &std::path::Path) -> anyhow::Result<pitboss_witness::policy::Policy> {
    use std::io::Read;
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut text = String::new();
    file.take(pitboss_witness::policy::MAX_POLICY as u64 + 1)
        .read_to_string(&mut text)
        .with_context(|| format!("cannot read {} as text", path.display()))?;
    pitboss_witness::policy::Policy::parse(&text).with_context(|| path.display().to_string())
}

/// A load generator's own log on standard error, when `RUST_LOG` asks for one (to see what the
/// transport does under load: `RUST_LOG=h2=debug`).
fn trace_if_asked() {
    if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_default_env() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .try_init();
    }
}
