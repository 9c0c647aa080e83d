//! `pitboss serve`: opens the data directory and serves gRPC until Ctrl-C or SIGTERM.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The data directory (RocksDB), created if missing.
    #[arg(long, default_value = "./pitboss-data")]
    data: PathBuf,
    /// The address to listen on. The API has no authentication yet: keep it on loopback.
    #[arg(long, default_value = "127.0.0.1:50051")]
    listen: SocketAddr,
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    bound_allocator_arenas();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stdout()))
        .init();
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async {
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let ledger = std::sync::Arc::new(
            pitboss::ledger::Ledger::open(&args.data, now_ms)
                .with_context(|| format!("cannot open the data directory {}", args.data.display()))?,
        );
        let head = ledger.head()?;
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .with_context(|| format!("cannot listen on {}", args.listen))?;
        let address = listener.local_addr()?;
        if !address.ip().is_loopback() {
            tracing::warn!(%address, "listening beyond loopback: the API has no authentication yet");
        }
        tracing::info!(
            %address,
            data = %args.data.display(),
            key = %ledger.key_id().map(|k| k.to_string()).unwrap_or_default(),
            head = head.map_or(-1, |(seq, _)| seq as i64),
            "pitboss serving (the API is open: no authentication yet)"
        );
        let floor = std::sync::Arc::new(
            pitboss::floor::Floor::open(ledger, std::sync::Arc::new(pitboss::floor::system_clock))
                .await
                .context("cannot open the floor (configurations)")?,
        );
        pitboss::service::serve(listener, floor, shutdown_signal()).await?;
        tracing::info!("pitboss stopped");
        Ok(())
    })
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

/// glibc's allocator gives each thread that contends for memory an arena of its own, up to eight
/// per core, and an arena keeps what was freed in it: under a long mixed load the server's
/// resident memory kept rising for that reason alone (`docs/PERFORMANCE.md`, the soak: flat at
/// 145 MiB with one arena per core, still climbing past 240 MiB without). One arena per core keeps
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
