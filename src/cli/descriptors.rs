//! The process's file descriptors, which the listeners' connections share with the log: the soft
//! limit raised to what the operator allows, and the gRPC connection budget fitted to it.

use pitboss::service::ServerLimits;

/// Descriptors kept for everything but connections: the log's files (RocksDB keeps at most
/// `pitboss_ledger::store::MAX_OPEN_FILES` table files open), its write-ahead log, the
/// database connections of a PostgreSQL log, kept files, pipes.
const RESERVE: u64 = 2_048;
/// The side doors' budgets (`metrics_http.rs`, `tiles_http.rs`, `witness_http.rs`).
const METRICS: u64 = 256;
const TILES: u64 = 4_096;
const WITNESS: u64 = 4_096;

/// The soft limit on open files raised to the hard limit (what the operator allows), so that
/// the connection budgets can be met.
pub fn raise() {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit and setrlimit read and write the struct given, nothing else.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0
                && limit.rlim_cur < limit.rlim_max
            {
                limit.rlim_cur = limit.rlim_max;
                libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
            }
        }
    }
}

/// The open-file limit now.
fn limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the struct given.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0 {
            // `rlim_t` is u64 here, narrower or signed on other systems.
            #[allow(clippy::unnecessary_cast)]
            return Some(limit.rlim_cur as u64);
        }
    }
    None
}

/// `limits` with the gRPC budget lowered, and said, when the listeners' budgets and the
/// reserve do not fit the process's open-file limit: a connection the server accepted but
/// could not keep open would fail others.
pub fn fit(mut limits: ServerLimits, metrics: bool, tiles: bool, witness: bool) -> ServerLimits {
    let Some(limit) = limit() else {
        return limits;
    };
    let doors =
        u64::from(metrics) * METRICS + u64::from(tiles) * TILES + u64::from(witness) * WITNESS;
    let room = limit.saturating_sub(RESERVE + doors).max(64);
    if limits.max_connections as u64 > room {
        tracing::warn!(
            configured = limits.max_connections,
            kept = room,
            open_file_limit = limit,
            "the gRPC connection budget is lowered to fit the open-file limit (raise `ulimit -n`)"
        );
        limits.max_connections = room as usize;
        limits.max_connections_per_peer = limits.max_connections_per_peer.min(room as usize);
    }
    limits
}
