//! `pitboss serve`: opens the data directory and serves gRPC until Ctrl-C or SIGTERM; SIGHUP
//! reloads the access file.
//!
//! Every call but health is authenticated (`docs/security.md`). On loopback with no access file,
//! the first start makes one for a local administrator whose token it writes beside it (mode
//! 0600): the CLI finds it there. Beyond loopback it serves TLS, or plain HTTP/2 only when told so
//! with `--insecure-no-tls`, which is recorded in the log at every start.
//!
//! The log goes to standard error. Standard output carries one line, for programs that start the
//! server (tests, supervisors): once it accepts connections, a JSON object whose `listening` is the
//! bound address (`--listen 127.0.0.1:0` picks a free port), with `tls`, `data`, `key_id`,
//! `head` and `metrics` (the metrics endpoint's bound address, or null). Nothing else is written
//! there.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use pitboss::access::{self, Access};
use pitboss::floor::Floor;
use pitboss_ledger::SERVER_ACTOR;

use super::serve_file::{self, Settings};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// A settings file (`pitboss.toml`: `docs/pitboss.example.toml`); each flag below overrides
    /// its key.
    #[arg(long, env = "PITBOSS_CONFIG")]
    config: Option<PathBuf>,
    /// The data directory (RocksDB), created if missing. Default: `./pitboss-data`.
    #[arg(long)]
    data: Option<PathBuf>,
    /// Keep the log in this PostgreSQL database instead (`postgres://user@host:port/db`); the data
    /// directory then holds the signing key (a copy of the log's key file) and the access file.
    /// Several servers may serve one database (`docs/deploy.md`).
    #[arg(long, env = "PITBOSS_STORE")]
    store: Option<String>,
    /// Serve the log read-only: the `--store` log (a regulator's server on a streaming replica,
    /// or with a role that may not write), or the data directory (a log kept, after every check
    /// that writes nothing). The Audit API answers from it; every write is refused with
    /// FAILED_PRECONDITION; a PostgreSQL log's checkpoints are signed only if the data directory
    /// holds a copy of its current key file, a data directory's never (`docs/deploy.md`).
    #[arg(long)]
    read_only: bool,
    /// The address to listen on. Default: `127.0.0.1:50051`.
    #[arg(long)]
    listen: Option<SocketAddr>,
    /// The access file (TOML: principals, credentials, roles, scopes; `docs/access.example.toml`).
    /// Default: `access.toml` in the data directory, made for a local administrator on the first
    /// start on loopback.
    #[arg(long)]
    access: Option<PathBuf>,
    /// The server's certificate chain (PEM): serve TLS.
    #[arg(long)]
    tls_cert: Option<PathBuf>,
    /// The server certificate's private key (PEM).
    #[arg(long)]
    tls_key: Option<PathBuf>,
    /// The CA (PEM) that signs client certificates: clients may then authenticate by mutual TLS
    /// (the certificate's subject names the principal); a bearer token still works.
    #[arg(long)]
    client_ca: Option<PathBuf>,
    /// Serve beyond loopback without TLS (tokens then cross the network in clear). Recorded in
    /// the log at every start.
    #[arg(long)]
    insecure_no_tls: bool,
    /// Serve the metrics (`GET /metrics`: OpenMetrics or Prometheus's classic text, as the
    /// scraper's `Accept` header asks) on this address, e.g. `127.0.0.1:9100`.
    #[arg(long)]
    metrics: Option<SocketAddr>,
    /// How long, in milliseconds, a connection to any of the server's listeners may take to
    /// complete its TLS handshake and HTTP/2 preface, or its first HTTP/1.1 request head, before it
    /// is closed (default 10 000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(100..=600_000))]
    handshake_timeout_ms: Option<u64>,
    /// How long, in milliseconds, an established connection with no request in flight is kept
    /// (default 300 000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(100..=86_400_000))]
    idle_timeout_ms: Option<u64>,
    /// Prepare the default configurations' strategy tables and theoretical returns before the
    /// server serves its calls (`true`, the default; kept in the data directory, so a restart
    /// loads them), so that no hand waits for them; `false` computes each on first use. While it
    /// prepares, the server answers health NOT_SERVING and other calls UNAVAILABLE at once.
    #[arg(long, value_name = "BOOL")]
    warm: Option<bool>,
    /// Open new hands only under a configuration whose latest certification report in the log
    /// holds (`true`); `false`, the default, under any published configuration
    /// (`docs/certification.md`, "The configurations in play").
    #[arg(long, value_name = "BOOL")]
    require_certification: Option<bool>,
    /// Where the beacon rounds that mix rounds' deal seeds are fetched: drand's HTTP API or a
    /// relay of it, `http://host:port[/prefix]` (`docs/rng.md` §1a). Without one, a round whose
    /// configuration names a beacon meets its late rule.
    #[arg(long)]
    beacon_source: Option<String>,
    #[command(flatten)]
    witnessing: WitnessingArgs,
    /// Keep this directory current with the log as C2SP tlog-tiles (hash tiles, entry bundles,
    /// the stored entries, and the checkpoint — the cosigned one when witnessed): files that any
    /// storage keeps and any reader checks without pitboss (`docs/tiles.md`).
    #[arg(long)]
    tiles: Option<PathBuf>,
    /// Serve the tile directory over HTTP on this address (`GET /checkpoint`, `/tile/…`).
    #[arg(long, requires = "tiles")]
    tiles_listen: Option<SocketAddr>,
}

/// The log's side of witnessing (`docs/witnessing.md`).
#[derive(Debug, clap::Args)]
struct WitnessingArgs {
    /// A C2SP tlog-policy file naming the witnesses (with their URLs) each new checkpoint is
    /// submitted to, and the quorum a checkpoint's cosignatures must meet; `GetCheckpoint` then
    /// answers the newest cosigned checkpoint.
    #[arg(long)]
    witness_policy: Option<PathBuf>,
    /// How often, in milliseconds, the log is looked at for a new checkpoint to submit (default
    /// 1000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(10..=3_600_000))]
    cosign_every_ms: Option<u64>,
    /// Say so (a warning in the server's log, the `pitboss.witnessing` health service
    /// NOT_SERVING) when the newest cosigned checkpoint is more than this many entries behind the
    /// log (default 10 000).
    #[arg(long)]
    cosign_warn_behind: Option<u64>,
    /// How long, in milliseconds, a witness may take to answer a submission before it is tried
    /// again (default 10 000). Each witness waits alone: a slow one holds back no other.
    #[arg(long, value_parser = clap::value_parser!(u64).range(100..=600_000))]
    cosign_timeout_ms: Option<u64>,
}

/// The settings to serve with: the flags over the settings file over the defaults.
fn settings(args: ServeArgs) -> anyhow::Result<Settings> {
    let file = match &args.config {
        Some(path) => serve_file::File::read(path)?,
        None => serve_file::File::default(),
    };
    let flags = serve_file::Flags {
        data: args.data,
        store: args.store,
        read_only: args.read_only,
        listen: args.listen,
        access: args.access,
        tls_cert: args.tls_cert,
        tls_key: args.tls_key,
        client_ca: args.client_ca,
        insecure_no_tls: args.insecure_no_tls,
        metrics: args.metrics,
        handshake_timeout_ms: args.handshake_timeout_ms,
        idle_timeout_ms: args.idle_timeout_ms,
        warm: args.warm,
        require_certification: args.require_certification,
        beacon_source: args.beacon_source,
        witness_policy: args.witnessing.witness_policy,
        cosign_every_ms: args.witnessing.cosign_every_ms,
        cosign_warn_behind: args.witnessing.cosign_warn_behind,
        cosign_timeout_ms: args.witnessing.cosign_timeout_ms,
        tiles: args.tiles,
        tiles_listen: args.tiles_listen,
    };
    Ok(serve_file::merge(flags, file)?)
}

fn read(path: &Path, what: &str) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read the {what} {}", path.display()))
}

/// The TLS configuration the arguments ask for.
fn tls(args: &Settings) -> anyhow::Result<Option<Arc<tokio_rustls::rustls::ServerConfig>>> {
    let (Some(cert), Some(key)) = (&args.tls_cert, &args.tls_key) else {
        return Ok(None);
    };
    let client_ca = match &args.client_ca {
        Some(ca) => Some(read(ca, "client CA")?),
        None => None,
    };
    let config = pitboss::service::tls::server_config(
        &read(cert, "TLS certificate")?,
        &read(key, "TLS key")?,
        client_ca.as_deref(),
    )
    .with_context(|| format!("cannot serve TLS with {}", cert.display()))?;
    Ok(Some(config))
}

/// The access in force at start: the file (made for the local administrator on loopback when
/// the data directory has none — unless that directory is a log served read-only, in which
/// nothing is written), recorded in the log when it differs from the last recorded.
async fn access(args: &Settings, floor: &Floor, loopback: bool) -> anyhow::Result<Arc<Access>> {
    let log_read_only = floor.log().read_only() && args.store.is_none();
    let path = match &args.access {
        Some(path) => path.clone(),
        None => {
            if loopback && !log_read_only {
                if let access::Bootstrap::Created { token_file } = access::bootstrap(&args.data)
                    .context("cannot make the local administrator's credential")?
                {
                    tracing::info!(
                        token_file = %token_file.display(),
                        "made a local administrator credential (every role; mode 0600); \
                         client commands on this machine find it"
                    );
                }
            }
            args.data.join(access::ACCESS_FILE)
        }
    };
    let (access, change) = Access::load(&path).with_context(|| {
        format!(
            "cannot use the access file {} (beyond loopback it must be given: --access)",
            path.display()
        )
    })?;
    if floor.last_access_sha256()? != Some(change.sha256) {
        floor
            .record_access_change(&change, "start", SERVER_ACTOR)
            .await?;
    }
    tracing::info!(access = %path.display(), principals = change.added.len(), "access file loaded");
    Ok(Arc::new(access))
}

/// Reloads the access file on every SIGHUP, recording each change.
fn reload_on_hangup(floor: Arc<Floor>, access: Arc<Access>) {
    #[cfg(unix)]
    tokio::spawn(async move {
        let Ok(mut hangups) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
        else {
            tracing::warn!("cannot listen for SIGHUP: reload the access file with ReloadAccess");
            return;
        };
        while hangups.recv().await.is_some() {
            match floor.reload_access(&access, "signal", "local:signal").await {
                Ok(change) => tracing::info!(
                    added = ?change.added,
                    removed = ?change.removed,
                    changed = ?change.changed,
                    "access file reloaded"
                ),
                Err(e) => tracing::error!(error = %e, "access file not reloaded"),
            }
        }
    });
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    run_with(settings(args)?, None)
}

/// What makes a server a mirror (`pitboss mirror`): the log it follows and how it cosigns.
pub struct MirrorSetup {
    /// The log's server, and the credentials to read its whole log.
    pub upstream: super::client::ServerArgs,
    /// The log's verifier key (its name is the log's origin).
    pub log: pitboss_witness::note::Vkey,
    /// The mirror's cosigner name.
    pub name: String,
    /// Where the mirror's witness door is served, if anywhere.
    pub witness_listen: Option<SocketAddr>,
    /// How often the log's checkpoint is asked for.
    pub every: std::time::Duration,
}

/// Serves with `args`: a log's own server, or with `mirror`, a mirror of another's.
pub fn run_with(args: Settings, mirror: Option<MirrorSetup>) -> anyhow::Result<()> {
    let witness_policy = match &args.witness_policy {
        Some(path) => Some(read_witness_policy(path)?),
        None => None,
    };
    let cosigning = pitboss::witnessing::Settings {
        every: std::time::Duration::from_millis(args.cosign_every_ms),
        warn_behind: args.cosign_warn_behind,
        timeout: std::time::Duration::from_millis(args.cosign_timeout_ms),
    };
    bound_allocator_arenas();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    // The software that runs: its own executable hashed, and held to the approved list first.
    let identity =
        pitboss::software::identify().context("cannot read the server's own executable")?;
    let unapproved = unapproved(&args, &identity, mirror.is_some())?;
    if let Some(why) = &unapproved {
        tracing::error!("{why}");
    }
    let read_only = args.read_only || unapproved.is_some();
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async {
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let ledger = std::sync::Arc::new(match &args.store {
            None if mirror.is_some() => pitboss_ledger::Ledger::open_mirror(
                &args.data,
                &mirror.as_ref().map(|m| m.log.name.clone()).unwrap_or_default(),
                Some(pitboss::codec::check_payload),
            )
            .with_context(|| format!("cannot open the mirror's copy in {}", args.data.display()))?,
            None if read_only => pitboss_ledger::Ledger::open_read_only(
                &args.data,
                Some(pitboss::codec::check_payload),
            )
            .with_context(|| {
                format!("cannot open the data directory {} to read", args.data.display())
            })?,
            None => pitboss_ledger::Ledger::open_checked(
                &args.data,
                now_ms,
                pitboss::codec::check_payload,
            )
            .with_context(|| format!("cannot open the data directory {}", args.data.display()))?,
            Some(url) => {
                std::fs::create_dir_all(&args.data).with_context(|| {
                    format!("cannot create the key directory {}", args.data.display())
                })?;
                if read_only {
                    // An executable not approved signs nothing, even with a copy of the key.
                    let key_dir = unapproved.is_none().then_some(args.data.as_path());
                    pitboss_ledger::Ledger::open_postgres_reading(
                        url,
                        key_dir,
                        Some(pitboss::codec::check_payload),
                    )
                    .context("cannot open the log in PostgreSQL to read")?
                } else {
                    pitboss_ledger::Ledger::open_postgres(
                        url,
                        &args.data,
                        now_ms,
                        Some(pitboss::codec::check_payload),
                    )
                    .context("cannot open the log in PostgreSQL")?
                }
            }
        });
        let head = ledger.head()?;
        let loopback = args.listen.ip().is_loopback();
        let tls = tls(&args)?;
        let tiles_dir = match &args.tiles {
            Some(dir) => Some(
                pitboss_ledger::tiles::TileDir::open(dir)
                    .with_context(|| format!("cannot keep tiles in {}", dir.display()))?,
            ),
            None => None,
        };
        if !loopback && tls.is_none() && !args.insecure_no_tls {
            anyhow::bail!(
                "refusing to serve on {}, beyond loopback, without TLS: give --tls-cert \
                 and --tls-key, or --insecure-no-tls (recorded in the log)",
                args.listen
            );
        }
        let floor = Arc::new(
            Floor::open(ledger, Arc::new(pitboss::floor::system_clock))
                .await
                .context("cannot open the floor (configurations)")?
                .require_certification(args.require_certification),
        );
        let access = access(&args, &floor, loopback).await?;
        floor
            .record_software(&identity, "start", None, SERVER_ACTOR)
            .await?;
        attest_daily(floor.clone());
        reload_on_hangup(floor.clone(), access.clone());
        let mirror = match mirror {
            Some(setup) => Some(start_mirror(&args.data, floor.clone(), setup).await?),
            None => None,
        };
        let mirror_ready = mirror.as_ref().map(|(serving, witness_address)| {
            serde_json::json!({
                "vkey": serving.mirroring.vkey().to_string(),
                "witness": witness_address,
            })
        });
        // Witnessing starts before the server serves: the cosigned checkpoint kept before is in
        // force from the first request.
        let witnessing = match witness_policy {
            Some(policy) => Some(
                pitboss::witnessing::Witnessing::start(
                    floor.clone(),
                    policy,
                    cosigning,
                    Some(args.data.join(pitboss::witnessing::KEPT_FILE)),
                )
                .await,
            ),
            None => None,
        };
        // The ports open only now, with nothing slow left before they are served: from the
        // moment a port accepts, it answers (health NOT_SERVING while the server prepares).
        super::descriptors::raise();
        let bind = |at: SocketAddr, what: &'static str| async move {
            pitboss::service::listen(at).with_context(|| format!("cannot listen {what}on {at}"))
        };
        let listener = bind(args.listen, "").await?;
        let address = listener.local_addr()?;
        let metrics = match args.metrics {
            Some(at) => Some(bind(at, "for metrics ").await?),
            None => None,
        };
        let tiles_listener = match args.tiles_listen {
            Some(at) => Some(bind(at, "for tiles ").await?),
            None => None,
        };
        let local = |l: &Option<tokio::net::TcpListener>| -> anyhow::Result<Option<String>> {
            Ok(match l {
                Some(listener) => Some(listener.local_addr()?.to_string()),
                None => None,
            })
        };
        let metrics_address = local(&metrics)?;
        let tiles_address = local(&tiles_listener)?;
        let witness_door = mirror
            .as_ref()
            .is_some_and(|(serving, _)| serving.witness.is_some());
        let limits = super::descriptors::fit(
            args.limits,
            metrics.is_some(),
            tiles_listener.is_some(),
            witness_door,
        );
        if !loopback && tls.is_none() {
            floor
                .record_insecure_transport(&address.to_string(), SERVER_ACTOR)
                .await?;
            tracing::warn!(%address, "serving beyond loopback WITHOUT TLS (--insecure-no-tls), recorded in the log");
        }
        tracing::info!(
            %address,
            data = %args.data.display(),
            log = %floor.log().location(),
            tls = tls.is_some(),
            read_only = floor.log().read_only(),
            key = %floor.log().key_id().map(|k| k.to_string()).unwrap_or_default(),
            head = head.map_or(-1, |(seq, _)| seq as i64),
            "pitboss serving"
        );
        // The defaults' strategy tables and theories, loaded from the data directory or computed,
        // while the port already answers: the first hands after a start wait for nothing, and
        // nothing heavy runs beside them.
        let preparation = (args.warm && !floor.log().read_only()).then(|| {
            let started = std::time::Instant::now();
            let preparing = pitboss::service::warm::start(
                &floor,
                Some(pitboss::service::warm::kept::Kept::new(&args.data)),
                args.returns.is_some(),
            );
            tokio::spawn(async move {
                let warmed = preparing.await.unwrap_or_default();
                let (tables, theories) = warmed.counts();
                tracing::info!(
                    tables,
                    theories,
                    loaded = warmed.loaded,
                    computed = warmed.computed,
                    ms = started.elapsed().as_millis() as u64,
                    "prepared: strategy tables and theoretical returns"
                );
                warmed
            })
        });
        let (ready, is_ready) = tokio::sync::oneshot::channel();
        let serving = pitboss::service::Serving {
            access,
            tls,
            metrics,
            limits,
            preparation,
            ready: Some(ready),
            witnessing,
            tiles: tiles_dir.map(|dir| pitboss::service::TilesServing {
                dir,
                listener: tiles_listener,
                every: std::time::Duration::from_millis(args.cosign_every_ms),
            }),
            mirror: mirror.map(|(serving, _)| serving),
            returns: args.returns,
            software: Some(identity),
            beacon_source: match &args.beacon_source {
                Some(url) => Some(pitboss::beacons::HttpSource::new(url)?),
                None => None,
            },
            read_only_reason: unapproved.clone(),
        };
        let mut server = tokio::spawn(pitboss::service::serve(
            listener,
            floor.clone(),
            serving,
            super::shutdown_signal(),
        ));
        // The ready line once the server serves its calls (or the server's own end, if first).
        tokio::select! {
            told = is_ready => if told.is_ok() {
                super::ready(&serde_json::json!({
                    "listening": address.to_string(),
                    "tls": args.tls_cert.is_some(),
                    "data": args.data.display().to_string(),
                    "log": floor.log().location(),
                    "key_id": floor.log().key_id().map(|k| k.to_string()).unwrap_or_default(),
                    "read_only": floor.log().read_only(),
                    "read_only_reason": unapproved,
                    "head": head.map(|(seq, _)| seq),
                    "metrics": metrics_address,
                    "tiles": tiles_address,
                    "mirror": mirror_ready,
                }))?;
                warm_tree(floor.clone());
            },
            served = &mut server => {
                served.context("the server stopped")??;
                tracing::info!("pitboss stopped");
                return Ok(());
            }
        }
        server.await.context("the server stopped")??;
        tracing::info!("pitboss stopped");
        Ok(())
    })
}

/// Why this executable serves read-only (`[software] unapproved = "read-only"`), `None` when it is
/// approved (or the settings approve any); an error when it may not start at all.
fn unapproved(
    args: &Settings,
    identity: &pitboss::software::Identity,
    mirroring: bool,
) -> anyhow::Result<Option<String>> {
    if args.approved.is_empty() || args.approved.contains(&identity.sha256) {
        return Ok(None);
    }
    let sha256 = hex::encode(identity.sha256);
    if !args.unapproved_read_only {
        anyhow::bail!(
            "this executable's SHA-256 is {sha256}, which the settings' [software] approved does \
             not list: refusing to start (run an approved build, or have the list changed)"
        );
    }
    if mirroring {
        anyhow::bail!(
            "this executable's SHA-256 is {sha256}, which the settings' [software] approved does \
             not list: a mirror writes its copy, so it does not start read-only"
        );
    }
    Ok(Some(format!(
        "this executable's SHA-256 is {sha256}, which the settings' [software] approved does not \
         list: it serves the log read-only and writes or signs nothing (run an approved build, or \
         have the list changed)"
    )))
}

/// Starts a mirror's following and cosigning on its copy: its witness (key and state in
/// `data/witness`), the log's server reached lazily (the mirror serves its copy while that server
/// is down), and the witness door's listener. The mirror's serving parts, and the door's address.
async fn start_mirror(
    data: &Path,
    floor: Arc<Floor>,
    setup: MirrorSetup,
) -> anyhow::Result<(pitboss::service::MirrorServing, Option<String>)> {
    let witness =
        super::witness::open_witness(&data.join("witness"), &setup.name, vec![setup.log.clone()])?;
    let upstream = setup.upstream.connect_lazy()?;
    let mirroring = pitboss::mirroring::Mirroring::start(
        floor,
        upstream,
        setup.log.name.clone(),
        Arc::new(witness),
        pitboss::mirroring::Settings {
            every: setup.every,
            ..Default::default()
        },
    );
    let listener = match setup.witness_listen {
        Some(at) => Some(
            pitboss::service::listen(at)
                .with_context(|| format!("cannot listen for the mirror's witness on {at}"))?,
        ),
        None => None,
    };
    let address = match &listener {
        Some(l) => Some(l.local_addr()?.to_string()),
        None => None,
    };
    Ok((
        pitboss::service::MirrorServing {
            mirroring,
            witness: listener,
        },
        address,
    ))
}

/// Reads the log once in the background to build the Merkle tree's block roots, so that the first
/// checkpoint or proof after a restart does not wait for a whole-log read; a bar on a terminal, a
/// log line at the end. Serving goes on meanwhile.
fn warm_tree(floor: Arc<pitboss::floor::Floor>) {
    tokio::task::spawn_blocking(move || {
        let total = floor.log().size();
        let progress = std::sync::atomic::AtomicU64::new(0);
        let started = std::time::Instant::now();
        let warmed = super::progress::while_running(&progress, total, "entries", || {
            floor.warm_tree(&progress)
        });
        match warmed {
            Ok(covered) => tracing::info!(
                entries = covered,
                ms = started.elapsed().as_millis() as u64,
                "Merkle tree ready for checkpoints and proofs"
            ),
            Err(e) => tracing::error!(error = %e, "the Merkle tree could not be built at start"),
        }
    });
}

/// glibc's allocator gives each thread that contends for memory an arena of its own, up to eight
/// per core, and an arena keeps what was freed in it: under a long mixed load the server's
/// resident memory keeps rising for that reason alone (`docs/PERFORMANCE.md`, the soak: flat at
/// 145 MiB with one arena per core, past 240 MiB and climbing without). One arena per core keeps
/// contention low and the footprint bounded. A `MALLOC_ARENA_MAX` in the environment wins.
fn bound_allocator_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let arenas = libc::c_int::try_from(cores.max(2)).unwrap_or(libc::c_int::MAX);
        // SAFETY: sets one allocator parameter before the server starts any thread; mallopt is
        // documented to be callable at any time and only reports failure by its return value.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, arenas);
        }
    }
}

/// Every 24 hours, the executable hashed again and recorded (`SoftwareAttested`, "interval").
fn attest_daily(floor: Arc<Floor>) {
    tokio::spawn(async move {
        let day = std::time::Duration::from_secs(24 * 3600);
        loop {
            tokio::time::sleep(day).await;
            match tokio::task::spawn_blocking(pitboss::software::identify).await {
                Ok(Ok(identity)) => {
                    if let Err(e) = floor
                        .record_software(&identity, "interval", None, SERVER_ACTOR)
                        .await
                    {
                        tracing::error!(error = %e, "the software's attestation was not recorded");
                    }
                }
                _ => tracing::error!(
                    "the server's own executable cannot be read for its attestation"
                ),
            }
        }
    });
}

/// Reads a witness policy naming the witnesses to submit checkpoints to.
fn read_witness_policy(path: &std::path::Path) -> anyhow::Result<pitboss_witness::policy::Policy> {
    let policy = super::read_policy(path)?;
    anyhow::ensure!(
        policy.witnesses.iter().any(|w| w.url.is_some()),
        "--witness-policy {}: no witness has a URL to submit checkpoints to",
        path.display()
    );
    Ok(policy)
}
