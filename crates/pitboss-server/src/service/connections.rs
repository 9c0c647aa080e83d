//! The connections of every listener the server opens (gRPC, the metrics endpoint, the tiles, a
//! witness): which are let in, and how long one that makes no progress may stay.
//!
//! - **Always accepting.** A listener never stops accepting: a connection it cannot keep is
//!   accepted and closed at once, so no client ever waits in the kernel's backlog behind
//!   connections that say nothing.
//! - **Budgets.** Each listener keeps at most `max` connections, and at most `per_peer` from one
//!   peer (an IPv4 address, an IPv6 /64). At either bound the newcomer takes the place of the
//!   oldest connection doing nothing — one still in its handshake first, else the one idle the
//!   longest — and is refused only when every connection in the way has a request in flight.
//! - **Handshake deadline.** From its accept, a connection has `handshake` to become established
//!   (its TLS handshake and HTTP/2 preface, or its first HTTP/1.1 request head): trickling bytes
//!   does not extend it.
//! - **Idle deadline.** An established connection with no request in flight for `idle` is closed
//!   (HTTP/2 with a GOAWAY, after which clients reconnect when they next call).
//! - **Request deadline** (`request`, the side doors only): a request in flight longer than this
//!   ends with its connection (a client that never reads its answer holds nothing past it).
//!
//! Owns the admission, each connection's [`Activity`] and its deadlines, and the counts the
//! metrics read ([`ConnectionStats`]). Speaks no protocol: `transport.rs` (gRPC) and `http.rs`
//! (the side doors) serve what is admitted, and say when a connection is established and when a
//! request begins and ends.

use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::time::Instant;

use super::work::Shutdown;

/// What a listener lets in, and for how long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Connections kept at once.
    pub max: usize,
    /// Connections kept at once from one peer (an IPv4 address, an IPv6 /64).
    pub per_peer: usize,
    /// From accept to established (TLS and HTTP/2 preface, or the first request head).
    pub handshake: Duration,
    /// With no request in flight, an established connection is closed after this.
    pub idle: Duration,
    /// A request in flight longer than this ends with its connection (`None`: no bound here; the
    /// calls' own deadlines apply).
    pub request: Option<Duration>,
}

/// The deadlines an operator sets for every listener of a server (`[connections]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadlines {
    /// From accept to established.
    pub handshake: Duration,
    /// With no request in flight, an established connection is closed after this.
    pub idle: Duration,
}

/// The handshake deadline when none is set: a TLS handshake and a preface take milliseconds.
pub const HANDSHAKE: Duration = Duration::from_secs(10);
/// The idle deadline when none is set.
pub const IDLE: Duration = Duration::from_secs(300);

impl Default for Deadlines {
    fn default() -> Deadlines {
        Deadlines {
            handshake: HANDSHAKE,
            idle: IDLE,
        }
    }
}

impl Deadlines {
    /// A listener's limits: these deadlines, its budgets and its request deadline.
    pub fn limits(
        self,
        max: usize,
        per_peer: usize,
        request: Option<Duration>,
    ) -> ConnectionLimits {
        ConnectionLimits {
            max,
            per_peer,
            handshake: self.handshake,
            idle: self.idle,
            request,
        }
    }
}

/// The peer a budget counts: an IPv4 address (an IPv4-mapped IPv6 address is one), or the /64 of
/// an IPv6 address (what one host is usually given).
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
enum Peer {
    V4(u32),
    V6(u64),
}

impl Peer {
    fn of(ip: IpAddr) -> Peer {
        match ip {
            IpAddr::V4(v4) => Peer::V4(u32::from(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Peer::V4(u32::from(v4)),
                None => Peer::V6((u128::from(v6) >> 64) as u64),
            },
        }
    }
}

/// What one connection is doing, shared by its task, its requests and the admission.
#[derive(Debug)]
pub struct Activity {
    /// The listener's clock's start: times below are nanoseconds after it.
    epoch: Instant,
    accepted_at: u64,
    established: AtomicBool,
    in_flight: AtomicUsize,
    /// When the connection last became idle (no request in flight), or busy.
    changed_at: AtomicU64,
}

impl Activity {
    fn new(epoch: Instant) -> Activity {
        let now = nanos_since(epoch);
        Activity {
            epoch,
            accepted_at: now,
            established: AtomicBool::new(false),
            in_flight: AtomicUsize::new(0),
            changed_at: AtomicU64::new(now),
        }
    }

    /// The connection completed its handshake: from now on its idle deadline applies.
    pub fn establish(&self) {
        if !self.established.swap(true, Ordering::AcqRel) {
            self.changed_at
                .store(nanos_since(self.epoch), Ordering::Release);
        }
    }

    /// Whether the connection completed its handshake.
    pub fn established(&self) -> bool {
        self.established.load(Ordering::Acquire)
    }

    /// A request begins (and the connection is established); it ends when the guard is dropped.
    pub fn begin(self: &Arc<Self>) -> Busy {
        self.establish();
        if self.in_flight.fetch_add(1, Ordering::AcqRel) == 0 {
            self.changed_at
                .store(nanos_since(self.epoch), Ordering::Release);
        }
        Busy {
            activity: self.clone(),
        }
    }

    fn idle(&self) -> bool {
        self.in_flight.load(Ordering::Acquire) == 0
    }

    fn since(&self, nanos: u64) -> Instant {
        self.epoch + Duration::from_nanos(nanos)
    }

    /// When the connection overstays, given what it is doing now (`None`: not while it is).
    fn deadline(&self, limits: &ConnectionLimits) -> Option<(Instant, Expiry)> {
        if !self.established() {
            return Some((
                self.since(self.accepted_at) + limits.handshake,
                Expiry::Handshake,
            ));
        }
        let changed = self.since(self.changed_at.load(Ordering::Acquire));
        if self.idle() {
            return Some((changed + limits.idle, Expiry::Idle));
        }
        limits
            .request
            .map(|request| (changed + request, Expiry::Request))
    }
}

fn nanos_since(epoch: Instant) -> u64 {
    u64::try_from(epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// A request in flight on a connection: dropped when its answer has been sent (or abandoned).
#[derive(Debug)]
pub struct Busy {
    activity: Arc<Activity>,
}

impl Drop for Busy {
    fn drop(&mut self) {
        if self.activity.in_flight.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.activity
                .changed_at
                .store(nanos_since(self.activity.epoch), Ordering::Release);
        }
    }
}

/// Why a connection was closed by the server before its peer closed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expiry {
    /// It was not established within the handshake deadline.
    Handshake,
    /// It had no request in flight for the idle deadline.
    Idle,
    /// A request was in flight past the request deadline.
    Request,
    /// A newcomer took its place (it was doing nothing).
    Evicted,
}

/// A listener's connection counts, for the metrics.
#[derive(Debug, Default)]
pub struct ConnectionStats {
    open: AtomicU64,
    accepted: AtomicU64,
    refused: AtomicU64,
    handshake: AtomicU64,
    idle: AtomicU64,
    request: AtomicU64,
    evicted: AtomicU64,
}

/// A snapshot of [`ConnectionStats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnectionCounts {
    /// Kept now.
    pub open: u64,
    /// Accepted and kept since the start.
    pub accepted: u64,
    /// Accepted and closed at once: every connection in the way had a request in flight.
    pub refused: u64,
    /// Closed for not completing the handshake in time.
    pub handshake: u64,
    /// Closed after the idle deadline.
    pub idle: u64,
    /// Closed with a request in flight past the request deadline.
    pub request: u64,
    /// Closed to make room for a newcomer.
    pub evicted: u64,
}

impl ConnectionStats {
    /// The counts now.
    pub fn counts(&self) -> ConnectionCounts {
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        ConnectionCounts {
            open: get(&self.open),
            accepted: get(&self.accepted),
            refused: get(&self.refused),
            handshake: get(&self.handshake),
            idle: get(&self.idle),
            request: get(&self.request),
            evicted: get(&self.evicted),
        }
    }

    /// Counts a connection closed for `expiry`.
    pub fn closed(&self, expiry: Expiry) {
        let counter = match expiry {
            Expiry::Handshake => &self.handshake,
            Expiry::Idle => &self.idle,
            Expiry::Request => &self.request,
            Expiry::Evicted => &self.evicted,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// One kept connection, as the admission knows it.
struct Slot {
    peer: Peer,
    activity: Arc<Activity>,
    evict: Arc<Notify>,
}

/// The connections kept, in the order they were accepted (ids grow).
#[derive(Default)]
struct Register {
    next: u64,
    open: HashMap<u64, Slot>,
    order: BTreeSet<u64>,
    by_peer: HashMap<Peer, BTreeSet<u64>>,
}

impl Register {
    /// The connection among `ids` a newcomer may take the place of: the oldest not yet
    /// established, else the one idle the longest; `None` when all have a request in flight.
    fn evictable<'a>(&self, ids: impl Iterator<Item = &'a u64>) -> Option<u64> {
        let mut idle_longest: Option<(u64, u64)> = None;
        for id in ids {
            let Some(kept) = self.open.get(id) else {
                continue;
            };
            if !kept.activity.established() {
                return Some(*id);
            }
            if kept.activity.idle() {
                let since = kept.activity.changed_at.load(Ordering::Acquire);
                if idle_longest.is_none_or(|(_, best)| since < best) {
                    idle_longest = Some((*id, since));
                }
            }
        }
        idle_longest.map(|(id, _)| id)
    }

    /// Forgets `id` (it closed, or was evicted): whether it was still kept.
    fn forget(&mut self, id: u64) -> Option<Slot> {
        let kept = self.open.remove(&id)?;
        self.order.remove(&id);
        if let Some(ids) = self.by_peer.get_mut(&kept.peer) {
            ids.remove(&id);
            if ids.is_empty() {
                self.by_peer.remove(&kept.peer);
            }
        }
        Some(kept)
    }
}

/// A listener's admission: its budgets, the connections it keeps, and its counts.
pub struct Admission {
    limits: ConnectionLimits,
    epoch: Instant,
    kept: Mutex<Register>,
    stats: Arc<ConnectionStats>,
}

impl Admission {
    /// An admission with these limits (each budget at least one).
    pub fn new(limits: ConnectionLimits) -> Arc<Admission> {
        Arc::new(Admission {
            limits: ConnectionLimits {
                max: limits.max.max(1),
                per_peer: limits.per_peer.max(1),
                ..limits
            },
            epoch: Instant::now(),
            kept: Mutex::new(Register::default()),
            stats: Arc::default(),
        })
    }

    /// The limits in force.
    pub fn limits(&self) -> ConnectionLimits {
        self.limits
    }

    /// The counts, shared with the metrics.
    pub fn stats(&self) -> Arc<ConnectionStats> {
        self.stats.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Register> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Lets a connection from `ip` in, taking the place of one doing nothing when a budget is
    /// full; `None` when it must be closed at once.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<Ticket> {
        let peer = Peer::of(ip);
        let mut kept = self.lock();
        let from_peer = kept.by_peer.get(&peer).map_or(0, BTreeSet::len);
        if from_peer >= self.limits.per_peer {
            let ids = kept.by_peer.get(&peer).into_iter().flatten();
            let Some(victim) = kept.evictable(ids) else {
                self.stats.refused.fetch_add(1, Ordering::Relaxed);
                return None;
            };
            self.evict(&mut kept, victim);
        }
        if kept.open.len() >= self.limits.max {
            let Some(victim) = kept.evictable(kept.order.iter()) else {
                self.stats.refused.fetch_add(1, Ordering::Relaxed);
                return None;
            };
            self.evict(&mut kept, victim);
        }
        let id = kept.next;
        kept.next += 1;
        let activity = Arc::new(Activity::new(self.epoch));
        let evict = Arc::new(Notify::new());
        kept.open.insert(
            id,
            Slot {
                peer,
                activity: activity.clone(),
                evict: evict.clone(),
            },
        );
        kept.order.insert(id);
        kept.by_peer.entry(peer).or_default().insert(id);
        self.stats.open.fetch_add(1, Ordering::Relaxed);
        self.stats.accepted.fetch_add(1, Ordering::Relaxed);
        Some(Ticket {
            admission: self.clone(),
            id,
            activity,
            evict,
        })
    }

    /// Tells `id` to close, and no longer counts it.
    fn evict(&self, kept: &mut Register, id: u64) {
        if let Some(victim) = kept.forget(id) {
            self.stats.open.fetch_sub(1, Ordering::Relaxed);
            self.stats.closed(Expiry::Evicted);
            victim.evict.notify_one();
        }
    }
}

/// A kept connection's place: dropped when the connection ends.
pub struct Ticket {
    admission: Arc<Admission>,
    id: u64,
    activity: Arc<Activity>,
    evict: Arc<Notify>,
}

impl Ticket {
    /// What the connection is doing.
    pub fn activity(&self) -> &Arc<Activity> {
        &self.activity
    }

    /// Completes when the connection has overstayed (and counts why): not established within the
    /// handshake deadline, idle past the idle deadline, a request in flight past the request
    /// deadline, or evicted for a newcomer (counted when evicted).
    pub async fn expired(&self) -> Expiry {
        let limits = self.admission.limits;
        loop {
            let (wake, expiry) = self
                .activity
                .deadline(&limits)
                .unwrap_or((Instant::now() + limits.idle, Expiry::Idle));
            tokio::select! {
                () = self.evict.notified() => return Expiry::Evicted,
                () = tokio::time::sleep_until(wake) => {}
            }
            // Whatever the connection did meanwhile moved its deadline: look again.
            if let Some((deadline, now_expiry)) = self.activity.deadline(&limits) {
                if deadline <= Instant::now() && now_expiry == expiry {
                    self.admission.stats.closed(expiry);
                    return expiry;
                }
            }
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut kept = self.admission.lock();
        if kept.forget(self.id).is_some() {
            self.admission.stats.open.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// The kernel's queue of connections not yet accepted, per listener (the system caps it at
/// `net.core.somaxconn`): a burst of connections waits there for the accept loop, which takes
/// them at once; a full queue drops a client's SYN, which costs it a second.
const BACKLOG: u32 = 4_096;

/// A listener on `at` (address reuse on, as a restarted server needs) whose queue of connections
/// not yet accepted holds 4 096.
pub fn listen(at: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if at.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(at)?;
    socket.listen(BACKLOG)
}

/// Accepts connections on `listener` until `stop` is triggered, each admitted one served by
/// `serve` on a task of its own, the others closed at once; then waits for every connection's
/// task to end (each is told by `stop` too). `what` names the listener in the server's log.
pub async fn accept<F, Fut>(
    listener: TcpListener,
    admission: Arc<Admission>,
    stop: Shutdown,
    what: &'static str,
    serve: F,
) where
    F: Fn(TcpStream, SocketAddr, Ticket) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let mut tasks = tokio::task::JoinSet::new();
    let mut failing = false;
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            Some(_) = tasks.join_next(), if !tasks.is_empty() => continue,
            () = stop.wait() => break,
        };
        match accepted {
            Ok((stream, peer)) => {
                failing = false;
                let Some(ticket) = admission.admit(peer.ip()) else {
                    // Closed at once: the client learns now, and nobody waits behind it.
                    drop(stream);
                    continue;
                };
                configure(&stream);
                tasks.spawn(serve(stream, peer, ticket));
            }
            Err(e) => {
                // Out of descriptors or memory for a moment: said once per spell, then a pause
                // so that the loop does not spin.
                if !failing {
                    tracing::warn!(error = %e, "{what}: accepting a connection failed");
                    failing = true;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
    drop(listener);
    while tasks.join_next().await.is_some() {}
}

/// Nagle's algorithm off (an answer goes out at once instead of waiting for the peer's delayed
/// ACK) and TCP keepalive on, so that a peer that vanished is found even while a call waits.
fn configure(stream: &TcpStream) {
    let _ = stream.set_nodelay(true);
    let keepalive = socket2::TcpKeepalive::new()
        .with_time(super::limits::TCP_KEEPALIVE)
        .with_interval(super::limits::TCP_KEEPALIVE_INTERVAL)
        .with_retries(super::limits::TCP_KEEPALIVE_RETRIES);
    let _ = socket2::SockRef::from(stream).set_tcp_keepalive(&keepalive);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(max: usize, per_peer: usize) -> ConnectionLimits {
        ConnectionLimits {
            max,
            per_peer,
            handshake: Duration::from_secs(10),
            idle: Duration::from_secs(60),
            request: None,
        }
    }

    const A: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 1));
    const B: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 2));

    #[tokio::test(start_paused = true)]
    async fn a_full_peer_gives_way_to_a_newcomer_oldest_silent_first() {
        let admission = Admission::new(limits(100, 3));
        let first = admission.admit(A).expect("room");
        let second = admission.admit(A).expect("room");
        let third = admission.admit(A).expect("room");
        // The first is established and idle, the second still in its handshake: the second goes.
        first.activity().establish();
        let _busy_third = third.activity().begin();
        let fourth = admission.admit(A).expect("the silent one gives way");
        assert_eq!(second.expired().await, Expiry::Evicted);
        // Now the idle first one gives way; then all three left are busy: refused.
        let _busy_fourth = fourth.activity().begin();
        let fifth = admission.admit(A).expect("the idle one gives way");
        assert_eq!(first.expired().await, Expiry::Evicted);
        let _busy_fifth = fifth.activity().begin();
        assert!(admission.admit(A).is_none(), "every connection is busy");
        // Another peer is not held back by A's budget.
        assert!(admission.admit(B).is_some());
        let counts = admission.stats().counts();
        assert_eq!((counts.evicted, counts.refused), (2, 1));
    }

    #[tokio::test(start_paused = true)]
    async fn the_listener_budget_evicts_across_peers_and_counts_what_is_open() {
        let admission = Admission::new(limits(2, 10));
        let a = admission.admit(A).expect("room");
        let _busy = a.activity().begin();
        let b = admission.admit(B).expect("room");
        assert_eq!(admission.stats().counts().open, 2);
        let c = admission.admit(A).expect("b is silent");
        assert_eq!(b.expired().await, Expiry::Evicted);
        assert_eq!(admission.stats().counts().open, 2);
        drop(b);
        assert_eq!(
            admission.stats().counts().open,
            2,
            "an evicted one counts once"
        );
        drop(c);
        assert_eq!(admission.stats().counts().open, 1);
    }

    #[tokio::test(start_paused = true)]
    async fn the_handshake_deadline_is_not_moved_by_anything_but_establishing() {
        let admission = Admission::new(limits(10, 10));
        let ticket = admission.admit(A).unwrap();
        let started = Instant::now();
        assert_eq!(ticket.expired().await, Expiry::Handshake);
        assert_eq!(started.elapsed(), Duration::from_secs(10));
        assert_eq!(admission.stats().counts().handshake, 1);
    }

    #[tokio::test(start_paused = true)]
    async fn the_idle_deadline_counts_from_the_last_request_and_a_busy_connection_stays() {
        let admission = Admission::new(limits(10, 10));
        let ticket = admission.admit(A).unwrap();
        let started = Instant::now();
        let busy = ticket.activity().begin();
        let watch = tokio::time::timeout(Duration::from_secs(600), ticket.expired()).await;
        assert!(
            watch.is_err(),
            "a connection with a call in flight is not idle"
        );
        drop(busy);
        assert_eq!(ticket.expired().await, Expiry::Idle);
        assert_eq!(started.elapsed(), Duration::from_secs(660));
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_deadline_cuts_a_request_that_never_ends() {
        let admission = Admission::new(ConnectionLimits {
            request: Some(Duration::from_secs(30)),
            ..limits(10, 10)
        });
        let ticket = admission.admit(A).unwrap();
        let _busy = ticket.activity().begin();
        let started = Instant::now();
        assert_eq!(ticket.expired().await, Expiry::Request);
        assert_eq!(started.elapsed(), Duration::from_secs(30));
    }

    #[test]
    fn an_ipv6_peer_is_its_64_and_a_mapped_ipv4_is_the_address() {
        let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(Peer::of(a), Peer::of(b));
        assert_ne!(Peer::of(a), Peer::of(c));
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(Peer::of(mapped), Peer::of(A));
    }
}
