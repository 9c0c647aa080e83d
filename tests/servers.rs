//! Two `pitboss serve` processes writing one log in PostgreSQL (a private cluster the test
//! starts) under load from many clients, one of them killed with SIGKILL in the middle: the chain
//! never forks (`pitboss verify --store` passes and the head row names the last entry), every
//! acknowledged hand is there at the version it was acknowledged at (or later), every request id
//! retried on the other server returns its first answer, and a hand's expected version holds
//! across servers (a stale expected version is refused with the version the log has).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pitboss::proto;
use pitboss::proto::play_client::PlayClient;

mod common;

use common::postgres::Cluster;
use common::server::Server;

/// One acknowledged call: the request id, the hand, and the version it was acknowledged at.
#[derive(Clone, Debug)]
struct Acknowledged {
    request_id: String,
    hand_id: String,
    version: u64,
    opened: bool,
}

fn open(request_id: String, client: usize) -> proto::OpenHandRequest {
    proto::OpenHandRequest {
        request_id,
        game: proto::Game::MississippiStud as i32,
        table: format!("pg-{}", client % 4),
        player: format!("pg-player-{client}"),
        wagers: vec![proto::Wager {
            bet: "ante".into(),
            amount: 500,
        }],
        ..Default::default()
    }
}

fn bet() -> proto::Action {
    proto::Action {
        kind: "bet".into(),
        multiple: 1,
        ..Default::default()
    }
}

/// Plays interactive hands (OpenHand and three Acts, each with its own request id) until
/// `stop`, or until the server stops answering; returns what was acknowledged.
async fn play(server: String, client: usize, stop: Arc<AtomicBool>) -> Vec<Acknowledged> {
    let mut acknowledged = Vec::new();
    let Ok(channel) = server_channel(&server).await else {
        return acknowledged;
    };
    let mut play = PlayClient::new(channel);
    let mut n = 0;
    while !stop.load(Ordering::Relaxed) {
        let id = format!("c{client}-h{n}");
        n += 1;
        let opened = match play.open_hand(open(format!("{id}-open"), client)).await {
            Ok(opened) => opened,
            Err(e) => {
                eprintln!(
                    "client {client} on {server} after {} calls: {e:?}",
                    acknowledged.len()
                );
                return acknowledged;
            }
        };
        let hand = opened.into_inner().hand.unwrap_or_default();
        acknowledged.push(Acknowledged {
            request_id: format!("{id}-open"),
            hand_id: hand.hand_id.clone(),
            version: hand.version,
            opened: true,
        });
        for street in 0..3 {
            let request_id = format!("{id}-act{street}");
            let Ok(acted) = play
                .act(proto::ActRequest {
                    request_id: request_id.clone(),
                    hand_id: hand.hand_id.clone(),
                    action: Some(bet()),
                    ..Default::default()
                })
                .await
            else {
                return acknowledged;
            };
            let view = acted.into_inner().hand.unwrap_or_default();
            acknowledged.push(Acknowledged {
                request_id,
                hand_id: hand.hand_id.clone(),
                version: view.version,
                opened: false,
            });
        }
    }
    acknowledged
}

async fn server_channel(server: &str) -> Result<pitboss::service::client::Authorized, ()> {
    let channel = tonic::transport::Channel::from_shared(server.to_string())
        .map_err(|_| ())?
        .connect()
        .await
        .map_err(|_| ())?;
    pitboss::service::client::authorized(channel, Some(common::server::ADMIN_TOKEN)).map_err(|_| ())
}

fn pitboss(args: &[&str]) -> (bool, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(args)
        .output()
        .expect("run pitboss");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_servers_on_one_database_never_fork_and_lose_nothing_when_one_is_killed() {
    let cluster = Cluster::start();
    let url = cluster.url();
    let a_dir = tempfile::tempdir().unwrap();
    let b_dir = tempfile::tempdir().unwrap();
    let a = Server::start_with(a_dir.path(), &["--store", &url]);
    // One key for the log: the second server gets a copy of the first's key file.
    std::fs::copy(
        a_dir.path().join("signing.key"),
        b_dir.path().join("signing.key"),
    )
    .unwrap();
    let b = Server::start_with(b_dir.path(), &["--store", &url]);

    // A server with a key the log does not trust is refused, naming the key.
    let c_dir = tempfile::tempdir().unwrap();
    common::server::write_access(c_dir.path(), "");
    let refused = Server::refuses_with(c_dir.path(), &["--listen", "127.0.0.1:0", "--store", &url]);
    assert!(refused.contains("key"), "{refused}");

    // 16 clients, half on each server; the second server is killed after a second and a half.
    let stop = Arc::new(AtomicBool::new(false));
    let mut tasks = Vec::new();
    for client in 0..16 {
        let server = if client % 2 == 0 { &a } else { &b };
        tasks.push(tokio::spawn(play(
            server.address.clone(),
            client,
            stop.clone(),
        )));
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let killed_at = Instant::now();
    let b_dir_path = b.kill();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    stop.store(true, Ordering::Relaxed);
    let mut acknowledged = Vec::new();
    let (mut on_a, mut on_b) = (0, 0);
    for (client, task) in tasks.into_iter().enumerate() {
        let acks = task.await.unwrap();
        if client % 2 == 0 {
            on_a += acks.len();
        } else {
            on_b += acks.len();
        }
        acknowledged.extend(acks);
    }
    assert!(
        on_b > 0,
        "the killed server acknowledged calls before it died"
    );
    assert!(
        on_a > on_b,
        "the surviving server carried on after {:?}: {on_a} calls against {on_b}",
        killed_at.elapsed()
    );

    // No fork: the whole log verifies, the head row names its last entry.
    let (ok, out) = pitboss(&["verify", "--store", &url]);
    assert!(ok && out.contains("OK"), "{out}");

    // Everything acknowledged is there; every request id retried (on the surviving server)
    // returns its first answer and writes nothing.
    let mut play = PlayClient::new(server_channel(&a.address).await.unwrap());
    let mut audit =
        pitboss::proto::audit_client::AuditClient::new(server_channel(&a.address).await.unwrap());
    let size_before = audit
        .verify_log(proto::VerifyLogRequest::default())
        .await
        .unwrap()
        .into_inner();
    for ack in &acknowledged {
        let now = play
            .get_hand(proto::GetHandRequest {
                hand_id: ack.hand_id.clone(),
            })
            .await
            .unwrap()
            .into_inner()
            .hand
            .unwrap();
        assert!(
            now.version >= ack.version,
            "{ack:?} but the log has {now:?}"
        );
        let retried = if ack.opened {
            let client: usize = ack.request_id[1..ack.request_id.find('-').unwrap()]
                .parse()
                .unwrap();
            play.open_hand(open(ack.request_id.clone(), client)).await
        } else {
            play.act(proto::ActRequest {
                request_id: ack.request_id.clone(),
                hand_id: ack.hand_id.clone(),
                action: Some(bet()),
                ..Default::default()
            })
            .await
        }
        .unwrap()
        .into_inner();
        assert!(retried.duplicate, "{ack:?} answered anew: {retried:?}");
        let view = retried.hand.unwrap();
        assert_eq!(
            (view.hand_id.as_str(), view.version),
            (ack.hand_id.as_str(), ack.version)
        );
    }
    let size_after = audit
        .verify_log(proto::VerifyLogRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        size_before.head_sequence, size_after.head_sequence,
        "the retries wrote nothing"
    );

    // The killed server starts again on the same database and goes on; a hand's expected
    // version holds across servers.
    let b = Server::start_with(&b_dir_path, &["--store", &url]);
    let mut play_b = PlayClient::new(server_channel(&b.address).await.unwrap());
    let hand = play
        .open_hand(open("cross-open".into(), 0))
        .await
        .unwrap()
        .into_inner()
        .hand
        .unwrap();
    let acted = play_b
        .act(proto::ActRequest {
            request_id: "cross-act".into(),
            hand_id: hand.hand_id.clone(),
            action: Some(bet()),
            expected_version: Some(hand.version),
        })
        .await
        .unwrap()
        .into_inner()
        .hand
        .unwrap();
    assert_eq!(acted.version, hand.version + 2, "a decision and a card");
    // A stale expected version is refused on the first server too (its cached hand is checked
    // against the stream), with the version the log has.
    let stale = play
        .act(proto::ActRequest {
            request_id: "stale-act".into(),
            hand_id: hand.hand_id.clone(),
            action: Some(bet()),
            expected_version: Some(hand.version),
        })
        .await
        .unwrap_err();
    assert_eq!(stale.code(), tonic::Code::Aborted, "{stale:?}");
    assert!(stale.message().contains("not the expected"), "{stale:?}");
    let current = play
        .act(proto::ActRequest {
            request_id: "current-act".into(),
            hand_id: hand.hand_id.clone(),
            action: Some(bet()),
            expected_version: Some(acted.version),
        })
        .await
        .unwrap()
        .into_inner()
        .hand
        .unwrap();
    assert_eq!(current.version, acted.version + 2);
    drop((a, b));
    let (ok, out) = pitboss(&["verify", "--store", &url]);
    assert!(ok && out.contains("OK"), "{out}");
}
