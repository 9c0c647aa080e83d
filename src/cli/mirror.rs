//! `pitboss mirror`: a regulator's server on its own copy of another server's log — following it
//! over gRPC, verifying every entry, holding the log's checkpoints that check against the copy,
//! cosigning them (C2SP `tlog-mirror`), and serving the read-only Audit API (replay, recall,
//! bundles, dispute packets, proofs), its witness door and its tiles. It is `serve` over a
//! mirror's copy (`serve::run_with`): the same transport, access, limits and metrics.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;

use super::client::ServerArgs;
use super::serve::MirrorSetup;
use super::serve_file::{self, Flags};

#[derive(Debug, Args)]
pub struct MirrorArgs {
    /// The log's server to follow (`https://` for TLS).
    #[arg(long)]
    from: String,
    /// A file holding the bearer token for the log's server: a principal that reads the whole
    /// log (an auditor).
    #[arg(long)]
    from_token_file: Option<PathBuf>,
    /// The CA certificate (PEM) an `https://` log server's certificate is checked against.
    #[arg(long)]
    from_ca_cert: Option<PathBuf>,
    /// The log's verifier key (a signed-note vkey, as `pitboss checkpoint` prints it): the log
    /// followed must be this one.
    #[arg(long)]
    log: String,
    /// The mirror's own directory: its copy, its access file, its witness key and state.
    #[arg(long, default_value = "./pitboss-mirror")]
    data: PathBuf,
    /// The mirror's cosigner name (a signed-note key name, e.g. `regulator.example/mirror`); its key
    /// is made in DATA/witness on the first start.
    #[arg(long)]
    name: String,
    /// Where the read-only Audit API is served.
    #[arg(long, default_value = "127.0.0.1:50061")]
    listen: SocketAddr,
    /// Serve the mirror's witness door (C2SP tlog-witness `add-checkpoint`) here: it cosigns only
    /// what the copy holds.
    #[arg(long)]
    witness_listen: Option<SocketAddr>,
    /// The access file of the mirror's own clients (default: DATA/access.toml, made with a local
    /// administrator's token on the first start).
    #[arg(long)]
    access: Option<PathBuf>,
    /// Keep the copy as C2SP tlog-tiles in this directory.
    #[arg(long)]
    tiles: Option<PathBuf>,
    /// Serve the tiles over HTTP here.
    #[arg(long, requires = "tiles")]
    tiles_listen: Option<SocketAddr>,
    /// Serve the metrics here.
    #[arg(long)]
    metrics: Option<SocketAddr>,
    /// How often, in milliseconds, the log's checkpoint is asked for (default 1000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(10..=3_600_000))]
    every_ms: Option<u64>,
}

pub fn run(args: MirrorArgs) -> anyhow::Result<()> {
    let log = pitboss_witness::note::Vkey::parse(&args.log)
        .map_err(|e| anyhow::anyhow!("--log {:?}: {e}", args.log))?;
    anyhow::ensure!(
        log.kind == pitboss_witness::note::ED25519,
        "--log: the log's verifier key is an Ed25519 note key (type 0x01)"
    );
    let every = args.every_ms.unwrap_or(1000);
    let flags = Flags {
        data: Some(args.data),
        listen: Some(args.listen),
        access: args.access,
        metrics: args.metrics,
        warm: Some(false),
        tiles: args.tiles,
        tiles_listen: args.tiles_listen,
        cosign_every_ms: Some(every),
        ..Flags::default()
    };
    let settings = serve_file::merge(flags, serve_file::File::default())?;
    let mut upstream = ServerArgs::at(args.from);
    upstream.token_file = args.from_token_file.or(upstream.token_file);
    upstream.ca_cert = args.from_ca_cert.or(upstream.ca_cert);
    super::serve::run_with(
        settings,
        Some(MirrorSetup {
            upstream,
            log,
            name: args.name,
            witness_listen: args.witness_listen,
            every: std::time::Duration::from_millis(every),
        }),
    )
}
