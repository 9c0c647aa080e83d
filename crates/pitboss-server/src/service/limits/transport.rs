//! The transport's limits of each service and connection, and the server's resources: pools,
//! streams, what is kept in memory.

use std::time::Duration;

use pitboss_proto::methods;
use tonic::Status;

/// The transport limits of one service.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transport {
    /// Largest request message (bytes, after the gRPC length prefix).
    pub max_request: usize,
    /// Largest reply message.
    pub max_reply: usize,
    /// How long a unary call may take before it is answered `DEADLINE_EXCEEDED` (a client's
    /// shorter `grpc-timeout` wins). Server streams answer at once and are not cut.
    pub deadline: Duration,
}

const KIB: usize = 1024;
const MIB: usize = 1024 * 1024;

/// Play: small requests (the largest `PlayHand` within its field limits is 24 KiB) and one hand's
/// view per reply; a call waits for at most one hand's lock and one append.
pub const PLAY: Transport = Transport {
    max_request: 64 * KIB,
    max_reply: MIB,
    deadline: Duration::from_secs(30),
};
/// Audit: small requests; the largest replies are a bundle of a long hand and a page of 1 000
/// events. Verification of a large log takes minutes.
pub const AUDIT: Transport = Transport {
    max_request: 64 * KIB,
    max_reply: 16 * MIB,
    deadline: Duration::from_secs(600),
};
/// Operations: a configuration's JSON (64 KiB) per request; a page of 100 configurations, or the
/// hand ids a table malfunction or a sweep voided, per reply. Voiding many hands takes minutes.
pub const OPERATIONS: Transport = Transport {
    max_request: 256 * KIB,
    max_reply: 16 * MIB,
    deadline: Duration::from_secs(600),
};
/// Lab: small requests; PAR sheets per reply. Simulations of 10^8 hands take tens of minutes.
pub const LAB: Transport = Transport {
    max_request: 64 * KIB,
    max_reply: 16 * MIB,
    deadline: Duration::from_secs(3600),
};
/// Health and reflection.
pub const OTHER: Transport = Transport {
    max_request: 64 * KIB,
    max_reply: 4 * MIB,
    deadline: Duration::from_secs(30),
};

/// The transport limits of the service a request path (`/pitboss.v1.Play/OpenHand`) names.
pub fn transport_of(path: &str) -> Transport {
    let service = path
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or_default();
    [
        (methods::play::SERVICE, PLAY),
        (methods::audit::SERVICE, AUDIT),
        (methods::operations::SERVICE, OPERATIONS),
        (methods::lab::SERVICE, LAB),
    ]
    .into_iter()
    .find(|(name, _)| *name == service)
    .map_or(OTHER, |(_, transport)| transport)
}

/// Per connection: concurrent HTTP/2 streams (calls).
pub const MAX_CONCURRENT_STREAMS: u32 = 128;
/// Per connection: the largest header list (metadata) of a call.
pub const MAX_HEADER_LIST: u32 = 16 * 1024;
/// HTTP/2 keepalive: a ping after this long without frames…
pub const HTTP2_KEEPALIVE_INTERVAL: Duration = Duration::from_secs(30);
/// … closes the connection unless answered within this.
pub const HTTP2_KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(10);
/// TCP keepalive: probes after this long idle…
pub const TCP_KEEPALIVE: Duration = Duration::from_secs(60);
/// … every this long…
pub const TCP_KEEPALIVE_INTERVAL: Duration = Duration::from_secs(10);
/// … this many times before the connection is dropped.
pub const TCP_KEEPALIVE_RETRIES: u32 = 3;

// ---- The server's resources. ----

/// gRPC connections kept at once (`connections.rs`): beyond, a newcomer takes the place of one
/// doing nothing, or is closed at once. Sized for many idle clients (a connection waiting for its
/// handshake holds a few kilobytes), within the process's file descriptors.
pub const MAX_CONNECTIONS: usize = 10_000;
/// gRPC connections kept at once from one peer (an IPv4 address, an IPv6 /64).
pub const MAX_CONNECTIONS_PER_PEER: usize = 1_000;
/// Unary calls being handled at once, over every connection; beyond, a call is answered
/// `RESOURCE_EXHAUSTED` at once (before its message is decoded).
pub const MAX_IN_FLIGHT: usize = 4_096;
/// Lab computations (PAR sheets, simulations, strategy-table builds) at once: each takes every core.
pub const LAB_WORKERS: usize = 1;
/// Audit jobs (verification, replay, bundles, proofs) at once: one per core, twice.
pub fn audit_workers() -> usize {
    2 * pitboss_lab::threads()
}
/// Lab streams (RNG words, shuffles) at once, each with a producer thread; beyond,
/// `RESOURCE_EXHAUSTED`.
pub const LAB_STREAMS: usize = 4;
/// `StreamEvents` streams at once; beyond, `RESOURCE_EXHAUSTED`.
pub const EVENT_STREAMS: usize = 256;
/// A stream whose client reads nothing for this long is ended (`DEADLINE_EXCEEDED`), freeing what
/// it holds.
pub const STREAM_STALL: Duration = Duration::from_secs(60);

/// Sends `item` on a stream's channel, waiting at most [`STREAM_STALL`] for the client to make
/// room: whether it was sent. A stalled client is told why (`DEADLINE_EXCEEDED`, "the `what` is
/// ended", best effort); a client gone is nothing to tell.
pub async fn send_within_stall<M>(
    tx: &tokio::sync::mpsc::Sender<Result<M, Status>>,
    item: Result<M, Status>,
    what: &str,
) -> bool {
    use tokio::sync::mpsc::error::SendTimeoutError;
    match tx.send_timeout(item, STREAM_STALL).await {
        Ok(()) => true,
        Err(SendTimeoutError::Closed(_)) => false,
        Err(SendTimeoutError::Timeout(_)) => {
            let _ = tx.try_send(Err(Status::deadline_exceeded(format!(
                "the client read nothing for {} s: the {what} is ended",
                STREAM_STALL.as_secs()
            ))));
            false
        }
    }
}
/// Configurations whose strategy tables (at most 64 MiB each, `lab/budget.rs`) are kept; the
/// least recently used is dropped first.
pub const STRATEGY_TABLES_KEPT: usize = 4;
/// Configurations whose exact PAR sheets (a few KiB each) are kept.
pub const PAR_SHEETS_KEPT: usize = 256;

#[cfg(test)]
mod tests {
    use super::super::fields::{CONFIGS_PAGE_SIZE, CONFIG_JSON};
    use super::*;

    #[test]
    fn each_service_has_its_transport_limits() {
        assert_eq!(transport_of("/pitboss.v1.Play/OpenHand"), PLAY);
        assert_eq!(transport_of("/pitboss.v1.Lab/Simulate"), LAB);
        assert_eq!(transport_of("/pitboss.v1.Audit/VerifyLog"), AUDIT);
        assert_eq!(transport_of("/pitboss.v1.Operations/RunSweep"), OPERATIONS);
        assert_eq!(transport_of("/grpc.health.v1.Health/Check"), OTHER);
        assert_eq!(transport_of(""), OTHER);
        // A page of configurations fits a reply.
        assert!(CONFIGS_PAGE_SIZE.max as usize * (CONFIG_JSON.max + KIB) < OPERATIONS.max_reply);
    }
}
