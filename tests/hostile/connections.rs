//! Connections that say nothing cannot take a listener off the air: one client holding 5 000
//! connections that each sent the first bytes of a request (half an HTTP/2 preface, half a request
//! head) and then nothing, to each of the server's listeners in turn — gRPC, the metrics, the tiles
//! and a witness — does not keep another client's call from being answered, and every one of them
//! is closed by the server within its handshake deadline (or at once, for a newcomer's place); a
//! client trickling a request one byte a second is cut off before it is done; an HTTP/2 connection
//! that completes its preface and makes no call is closed once idle.
//!
//! Nothing here is timed against speed: the counts are fixed, and the bounds (a minute for what
//! the deadline says takes two seconds) only stop a test that would otherwise hang.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use pitboss_testkit::server::Server;

use crate::support::{Checked, Clients};

/// Connections held against each listener.
const HELD: usize = 5_000;
/// The deadlines the server is started with.
const HANDSHAKE_MS: &str = "2000";
const IDLE_MS: &str = "3000";
/// How long the test waits for what the deadlines say takes seconds.
const BOUND: Duration = Duration::from_secs(60);

/// The first bytes of an HTTP/2 connection's preface, and a request head left unfinished.
const HALF_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n";
const HALF_HEAD: &[u8] = b"POST /add-checkpoint HTTP/1.1\r\nHost: pitboss\r\n";

/// This process's open-file limit raised to what the system allows, which must hold the
/// connections.
fn raise_open_files() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write the struct given.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit), 0);
        limit.rlim_cur = limit.rlim_max;
        assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &limit), 0);
    }
    assert!(
        limit.rlim_cur as usize >= HELD + 1_000,
        "the open-file limit ({}) cannot hold {HELD} connections",
        limit.rlim_cur
    );
}

/// `HELD` connections to `address`, each having sent `first`.
fn hold(address: &str, first: &[u8]) -> Vec<TcpStream> {
    (0..HELD)
        .map(|i| {
            let mut socket = TcpStream::connect(address)
                .unwrap_or_else(|e| panic!("connection {i} to {address}: {e}"));
            // A connection the server already closed (a newcomer took its place) may refuse it.
            let _ = socket.write_all(first);
            socket
        })
        .collect()
}

/// Waits (at most [`BOUND`]) until the server has closed every one of `held`; how many it closed.
fn closed_by_server(held: &[TcpStream]) -> usize {
    let mut open: Vec<&TcpStream> = held.iter().collect();
    for socket in &open {
        socket.set_nonblocking(true).expect("non-blocking");
    }
    let started = Instant::now();
    let mut buffer = [0u8; 4096];
    while !open.is_empty() && started.elapsed() < BOUND {
        open.retain(|socket| loop {
            let mut reading: &TcpStream = socket;
            match reading.read(&mut buffer) {
                Ok(0) => return false,
                Ok(_) => continue,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return true,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(_) => return false,
            }
        });
        std::thread::sleep(Duration::from_millis(100));
    }
    held.len() - open.len()
}

/// Sends `request` one byte a second; the byte at which the server cut the connection off (it
/// closed it or answered it before the request was whole), `None` if it never did.
fn trickle(address: &str, request: &[u8]) -> Option<usize> {
    let mut socket = TcpStream::connect(address).expect("connect");
    socket.set_nonblocking(true).expect("non-blocking");
    let mut buffer = [0u8; 1024];
    for (at, byte) in request.iter().enumerate() {
        if socket.write_all(std::slice::from_ref(byte)).is_err() {
            return Some(at);
        }
        std::thread::sleep(Duration::from_secs(1));
        match socket.read(&mut buffer) {
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            // Closed, reset, or answered (an error status, or HTTP/2's settings and GOAWAY).
            Ok(0) | Err(_) => return Some(at),
            Ok(_) => {
                if closed_after(&mut socket) {
                    return Some(at);
                }
            }
        }
    }
    None
}

/// Whether the server closes `socket` within [`BOUND`], reading what it sends meanwhile.
fn closed_after(socket: &mut TcpStream) -> bool {
    let started = Instant::now();
    let mut buffer = [0u8; 1024];
    while started.elapsed() < BOUND {
        match socket.read(&mut buffer) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(50))
            }
            Err(_) => return true,
        }
    }
    false
}

/// The count the server's metrics show of `pitboss_connections_closed_total` for `listener` and
/// `reason`.
fn closed_count(metrics: &str, listener: &str, reason: &str) -> u64 {
    let (_, _, text) = pitboss_testkit::http::get(metrics, "/metrics");
    let series =
        format!("pitboss_connections_closed_total{{listener=\"{listener}\",reason=\"{reason}\"}} ");
    text.lines()
        .find_map(|line| line.strip_prefix(series.as_str()))
        .unwrap_or_else(|| panic!("no {series}in the metrics"))
        .parse()
        .expect("a count")
}

#[tokio::test(flavor = "multi_thread")]
async fn connections_that_say_nothing_hold_no_listener() {
    raise_open_files();
    let dirs = tempfile::tempdir().unwrap();
    let tiles = dirs.path().join("tiles");
    let server = Server::start_with(
        &dirs.path().join("data"),
        &[
            "--handshake-timeout-ms",
            HANDSHAKE_MS,
            "--idle-timeout-ms",
            IDLE_MS,
            "--metrics",
            "127.0.0.1:0",
            "--tiles",
            tiles.to_str().unwrap(),
            "--tiles-listen",
            "127.0.0.1:0",
        ],
    );
    let metrics = server.metrics.clone().expect("metrics");
    let tiles_at = server.tiles.clone().expect("tiles");
    let grpc = server.address.trim_start_matches("http://").to_string();
    // A witness of some log, with the same deadlines.
    let log = ed25519_dalek::SigningKey::from_bytes(&[7; 32]).verifying_key();
    let log = pitboss_witness::note::Vkey {
        name: "log.test/connections".into(),
        kind: pitboss_witness::note::ED25519,
        key: log,
    };
    let policy = dirs.path().join("witness.policy");
    std::fs::write(&policy, format!("log {log}\nquorum none\n")).unwrap();
    let witness = pitboss_testkit::witness::WitnessProcess::start_with(
        &dirs.path().join("witness"),
        "witness.test/connections",
        &policy,
        &[
            "--handshake-timeout-ms",
            HANDSHAKE_MS,
            "--idle-timeout-ms",
            IDLE_MS,
        ],
    );
    // The tile directory has a checkpoint before anyone floods it.
    let mut looks = 0;
    while pitboss_testkit::http::get(&tiles_at, "/checkpoint").0 != 200 {
        looks += 1;
        assert!(looks < 600, "the tiles never had a checkpoint");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // Connections the server closed on `listener` because they said nothing: too slow to finish
    // their handshake, or a newcomer took their place.
    let silenced = |listener: &str| {
        closed_count(&metrics, listener, "handshake") + closed_count(&metrics, listener, "evicted")
    };

    // gRPC: half-open connections, then a client's calls.
    let before = silenced("grpc");
    let held = hold(&grpc, HALF_PREFACE);
    let mut c = tokio::time::timeout(BOUND, Clients::of(&server))
        .await
        .expect("a new client connects past 5 000 silent connections");
    tokio::time::timeout(BOUND, c.assert_serving())
        .await
        .expect("health answers");
    tokio::time::timeout(BOUND, c.head())
        .await
        .expect("a call answers");
    assert_eq!(
        closed_by_server(&held),
        HELD,
        "gRPC: every silent connection closed"
    );
    drop(held);
    assert!(
        silenced("grpc") >= before + HELD as u64,
        "gRPC: each closed for saying nothing"
    );

    // The side doors: the same, each answering a plain request meanwhile.
    let doors = [
        ("metrics", metrics.clone(), "/metrics", 200),
        ("tiles", tiles_at.clone(), "/checkpoint", 200),
        (
            "witness",
            witness.address.clone(),
            "/0000000000000000000000000000000000000000000000000000000000000000/checkpoint",
            404,
        ),
    ];
    for (door, address, path, status) in &doors {
        // The witness is a process of its own, whose counts this server does not show.
        let before = (*door != "witness").then(|| silenced(door));
        let held = hold(address, HALF_HEAD);
        let (address, path) = (address.clone(), path.to_string());
        let answered =
            tokio::task::spawn_blocking(move || pitboss_testkit::http::get(&address, &path));
        let answered = tokio::time::timeout(BOUND, answered)
            .await
            .unwrap_or_else(|_| panic!("{door}: no answer past 5 000 silent connections"))
            .unwrap();
        assert_eq!(answered.0, *status, "{door}");
        assert_eq!(
            closed_by_server(&held),
            HELD,
            "{door}: every silent connection closed"
        );
        if let Some(before) = before {
            assert!(
                silenced(door) >= before + HELD as u64,
                "{door}: each closed for saying nothing"
            );
        }
    }

    // A request trickled a byte a second is cut off long before it is whole.
    let mut preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    preface.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 0, 0]);
    let head = b"GET /metrics HTTP/1.1\r\nHost: pitboss\r\nAccept: */*\r\n\r\n";
    for (door, address, request) in [
        ("gRPC", grpc.clone(), &preface[..]),
        ("metrics", metrics.clone(), &head[..]),
        ("tiles", tiles_at.clone(), &head[..]),
        ("witness", witness.address.clone(), &head[..]),
    ] {
        let request = request.to_vec();
        let cut = tokio::task::spawn_blocking(move || trickle(&address, &request))
            .await
            .unwrap();
        assert!(
            cut.is_some_and(|at| at + 1 < head.len().min(preface.len())),
            "{door}: a trickled request was not cut off ({cut:?})"
        );
    }

    // A connection that completes its preface and makes no call is closed once idle.
    let idle_before = closed_count(&metrics, "grpc", "idle");
    let mut idle = TcpStream::connect(&grpc).unwrap();
    idle.write_all(&preface).unwrap();
    idle.set_nonblocking(true).unwrap();
    let grpc_idle = tokio::task::spawn_blocking(move || closed_after(&mut idle));
    assert!(
        grpc_idle.await.unwrap(),
        "an idle HTTP/2 connection is closed"
    );
    assert!(closed_count(&metrics, "grpc", "idle") > idle_before);

    // Through it all the server kept serving, and the client's connection still works.
    c.assert_serving().await;
}
