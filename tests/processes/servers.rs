//! Two `pitboss serve` processes writing one log in PostgreSQL (a private cluster the test
//! starts) under load from many clients (`common/load.rs`), one of them killed with SIGKILL in the
//! middle: the chain
//! never forks (`pitboss verify --store` passes and the head row names the last entry), every
//! acknowledged hand is there at the version it was acknowledged at (or later), every request id
//! retried on the other server returns its first answer, and a hand's expected version holds
//! across servers (a stale expected version is refused with the version the log has); and each
//! server lists the configurations and certification reports the other recorded.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use pitboss::proto;
use pitboss::proto::play_client::PlayClient;

use pitboss_testkit::load::{self, OnError};
use pitboss_testkit::postgres::Cluster;
use pitboss_testkit::server::Server;

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

/// Two servers on the log at `url`, one after the other, with one key: the second gets a copy of
/// the first's key file. Their directories are kept with them.
fn two_servers(url: &str) -> ([tempfile::TempDir; 2], Server, Server) {
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let a = Server::start_with(dirs[0].path(), &["--store", url]);
    std::fs::copy(
        dirs[0].path().join("signing.key"),
        dirs[1].path().join("signing.key"),
    )
    .unwrap();
    let b = Server::start_with(dirs[1].path(), &["--store", url]);
    (dirs, a, b)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_servers_on_one_database_never_fork_and_lose_nothing_when_one_is_killed() {
    let cluster = Cluster::start();
    let url = cluster.url();
    let ([a_dir, _b_dir], a, b) = two_servers(&url);

    // A server with a key the log does not trust is refused, naming the key.
    let c_dir = tempfile::tempdir().unwrap();
    pitboss_testkit::server::write_access(c_dir.path(), "");
    let refused = Server::refuses_with(c_dir.path(), &["--listen", "127.0.0.1:0", "--store", &url]);
    assert!(refused.contains("key"), "{refused}");

    // 16 clients, half on each server; the second server is killed once it has acknowledged
    // 400 calls, and the first must acknowledge 400 more after that.
    let stop = Arc::new(AtomicBool::new(false));
    let (on_a, on_b) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let mut tasks = Vec::new();
    for client in 0..16 {
        let (server, counter) = if client % 2 == 0 {
            (&a, &on_a)
        } else {
            (&b, &on_b)
        };
        tasks.push(tokio::spawn(load::play(
            server.address.clone(),
            client,
            stop.clone(),
            counter.clone(),
            OnError::Stop,
        )));
    }
    load::wait_for(&on_b, 400)
        .await
        .expect("the second server before it is killed");
    let b_dir_path = b.kill();
    let at_kill = on_a.load(Ordering::Relaxed);
    load::wait_for(&on_a, at_kill + 400)
        .await
        .expect("the first server after the second was killed");
    stop.store(true, Ordering::Relaxed);
    let mut acknowledged = Vec::new();
    for task in tasks {
        acknowledged.extend(task.await.unwrap());
    }

    // No fork: the whole log verifies, the head row names its last entry.
    let (ok, out) = pitboss(&["verify", "--store", &url]);
    assert!(ok && out.contains("OK"), "{out}");

    // Everything acknowledged by either server is there; every request id sent again to the
    // surviving server is answered as the first time and writes nothing.
    let rechecked = load::recheck(&a.address, &acknowledged)
        .await
        .expect("the server answers");
    assert_eq!(rechecked.problems(), Vec::<String>::new());

    // The killed server starts again on the same database and goes on; a hand's expected
    // version holds across servers.
    let b = Server::start_with(&b_dir_path, &["--store", &url]);
    let mut play = PlayClient::new(load::channel(&a.address).await.unwrap());
    let mut play_b = PlayClient::new(load::channel(&b.address).await.unwrap());
    let hand = play
        .open_hand(load::open("cross-open".into(), 0))
        .await
        .unwrap()
        .into_inner()
        .hand
        .unwrap();
    let acted = play_b
        .act(proto::ActRequest {
            expected_version: Some(hand.version),
            ..load::act("cross-act".into(), &hand.hand_id)
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
            expected_version: Some(hand.version),
            ..load::act("stale-act".into(), &hand.hand_id)
        })
        .await
        .unwrap_err();
    assert_eq!(stale.code(), tonic::Code::Aborted, "{stale:?}");
    assert_eq!(
        pitboss_testkit::refusal::reason(&stale).as_deref(),
        Some("VERSION_CONFLICT"),
        "{stale:?}"
    );
    assert_eq!(
        pitboss_testkit::refusal::metadata(&stale, "actual_version"),
        Some(acted.version.to_string()),
        "the version the log has: {stale:?}"
    );
    let current = play
        .act(proto::ActRequest {
            expected_version: Some(acted.version),
            ..load::act("current-act".into(), &hand.hand_id)
        })
        .await
        .unwrap()
        .into_inner()
        .hand
        .unwrap();
    assert_eq!(current.version, acted.version + 2);
    // The second server's kept hand is now behind the log (the first moved it): a decision there
    // without an expected version is decided on the log's hand, not refused and not forked.
    let behind = play_b
        .act(load::act("behind-act".into(), &hand.hand_id))
        .await
        .unwrap()
        .into_inner()
        .hand
        .unwrap();
    assert_eq!(
        behind.status, "settled",
        "the third street bet ends the hand"
    );
    assert_eq!(
        behind.version,
        current.version + 4,
        "decided on the log's hand: the bet, the last card, the settlement, the seed"
    );

    // The key rotated on the first server: the second refuses to sign with the old one
    // (FAILED_PRECONDITION, naming the new key) until it is given the new key file.
    let mut ops = pitboss::proto::operations_client::OperationsClient::new(
        load::channel(&a.address).await.unwrap(),
    );
    let rotated = ops
        .rotate_signing_key(proto::RotateSigningKeyRequest::default())
        .await
        .unwrap()
        .into_inner();
    let refused = play_b
        .open_hand(load::open("after-rotation".into(), 1))
        .await
        .unwrap_err();
    assert_eq!(
        refused.code(),
        tonic::Code::FailedPrecondition,
        "{refused:?}"
    );
    assert!(
        pitboss_testkit::refusal::names(&refused).contains(&"KEY_MISMATCH".to_string()),
        "{refused:?}"
    );
    // The message tells the operator which key file to copy.
    assert!(
        refused.message().contains(&rotated.new_key_id),
        "{refused:?}"
    );
    std::fs::copy(a_dir.path().join("signing.key"), b.data.join("signing.key")).unwrap();
    let reopened = play_b
        .open_hand(load::open("after-rotation".into(), 1))
        .await
        .unwrap()
        .into_inner();
    assert!(!reopened.duplicate, "the refused call wrote nothing");
    drop((a, b));
    let (ok, out) = pitboss(&["verify", "--store", &url]);
    assert!(ok && out.contains("OK"), "{out}");
}

/// Two servers with the same key file starting at once on an empty database: the key is
/// published once, both serve, and the log verifies.
#[test]
fn two_servers_starting_on_an_empty_database_publish_the_key_once() {
    let cluster = Cluster::start();
    let url = cluster.url();
    let key = pitboss_ledger::keys::Keypair::generate().unwrap();
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    for dir in &dirs {
        key.write_to(&dir.path().join("signing.key")).unwrap();
    }
    let servers: Vec<Server> = std::thread::scope(|scope| {
        let started: Vec<_> = dirs
            .iter()
            .map(|dir| {
                let url = url.clone();
                scope.spawn(move || Server::start_with(dir.path(), &["--store", &url]))
            })
            .collect();
        started.into_iter().map(|s| s.join().unwrap()).collect()
    });
    assert_eq!(servers.len(), 2);
    drop(servers);
    let (ok, out) = pitboss(&["verify", "--store", &url]);
    assert!(ok && out.contains("OK"), "{out}");
    let store = pitboss_ledger::pg::PgStore::connect(&url).unwrap();
    let keys = pitboss_ledger::LogStore::known_keys(&store).unwrap();
    assert_eq!(keys.len(), 1, "one key published");
    let first = pitboss_ledger::LogStore::stored_entry(&store, 0)
        .unwrap()
        .unwrap();
    let entry = pitboss_ledger::Entry::decode(&first).unwrap();
    assert_eq!(entry.envelope.stream, format!("key/{}", key.id()));
}

/// A group built on a head the log no longer has (a server whose view was wrong) is refused whole:
/// its head move fails, the COMMIT sent behind it in the same round trip becomes a ROLLBACK, and
/// nothing of the group is written — while a group built on the real head commits.
#[test]
fn a_group_built_on_a_stale_head_writes_nothing() {
    let cluster = Cluster::start();
    let url = cluster.url();
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(dir.path(), &["--store", &url]);
    drop(server);
    let store = pitboss_ledger::pg::PgStore::connect(&url).unwrap();
    let (size, hash) = store.head_row().unwrap().expect("a head row");
    let hash: [u8; 32] = hash.try_into().unwrap();
    let entries = store.count_entries().unwrap();
    assert_eq!(entries, size, "the head row counts the entries");

    let unchanged = || {
        assert_eq!(store.count_entries().unwrap(), entries);
        assert_eq!(store.head_row().unwrap(), Some((size, hash.to_vec())));
        assert_eq!(
            cluster.sql("SELECT count(*) FROM pitboss_records WHERE key = 'tampered'::bytea"),
            "0"
        );
    };
    // Built on a head the log never had (its entry's place is free): the writes succeed, the
    // head's move does not, and the COMMIT behind them rolls everything back.
    let elsewhere = (size + 5, [9; 32]);
    let committed =
        pitboss_ledger::tamper::commit_on_claimed_head(&url, elsewhere, b"x".to_vec()).unwrap();
    assert!(!committed, "a head the log does not have commits nothing");
    unchanged();
    // Built on an older head: its entry collides with the one there, refused, nothing written.
    let stale = (size - 1, hash);
    let refused = pitboss_ledger::tamper::commit_on_claimed_head(&url, stale, b"x".to_vec());
    assert!(refused.is_err(), "{refused:?}");
    unchanged();

    // Built on the real head: committed, entry, record and head together.
    let committed =
        pitboss_ledger::tamper::commit_on_claimed_head(&url, (size, hash), b"real".to_vec())
            .unwrap();
    assert!(committed);
    assert_eq!(store.count_entries().unwrap(), entries + 1);
    assert_eq!(store.head_row().unwrap(), Some((size + 1, vec![7; 32])));
    assert_eq!(
        cluster.sql("SELECT count(*) FROM pitboss_records WHERE key = 'tampered'::bytea"),
        "1"
    );
}

/// The writer drives its PostgreSQL connection only while it runs a statement, so a connection the
/// database closed while the writer was idle (a restart, an administrator's
/// `pg_terminate_backend`) is found closed by the next group's first round trip: the writer opens
/// another and the group commits on the first try, nothing refused.
#[test]
fn an_append_after_the_database_closed_the_idle_writers_connection_commits_first_time() {
    use pitboss_ledger::{AppendRequest, Expected, Ledger};
    let cluster = Cluster::start();
    let url = cluster.url();
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::open_postgres(&url, dir.path(), 0, None).unwrap();
    let append = |n: u8| {
        ledger.append_blocking(AppendRequest::entries(
            "hand/idle".into(),
            Expected::Any,
            // Field 1 (a hand's opening to the server), bytes the ledger does not read.
            vec![vec![0x0a, 0x01, n]],
            0,
            "test",
        ))
    };
    append(1).unwrap();
    for round in 2..5u8 {
        // Every other backend of the database, the writer's among them, ended by the server (each
        // waited for, up to 5 s, until it has exited).
        let ended = cluster.sql(
            "SELECT count(*) FROM (SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity \
             WHERE datname = current_database() AND pid <> pg_backend_pid()) AS ended",
        );
        assert_ne!(ended, "0", "the ledger's connections were there to end");
        let appended = append(round).unwrap_or_else(|e| panic!("round {round}: {e}"));
        assert_eq!(appended.stream_version, u64::from(round));
    }
    let verified = ledger.verify();
    assert!(verified.ok(), "{verified:?}");
}

/// The configurations in play on a shared log: a configuration published through one server and
/// a certification report recorded through the other are both in each server's `ListConfigs`,
/// though neither server saw the other's write happen (each learns from the log when it lists).
#[tokio::test(flavor = "multi_thread")]
async fn each_server_lists_what_the_other_published_and_certified() {
    use pitboss::proto::operations_client::OperationsClient;
    use pitboss_testkit::server::ADMIN_TOKEN;
    let cluster = Cluster::start();
    let url = cluster.url();
    let ([_a_dir, b_dir], a, b) = two_servers(&url);

    // Published through A: proposed by one principal, approved by a second.
    let id = a.publish_nutz("nutz, published through A").await;
    let mut ops_a = OperationsClient::new(a.channel().await);
    let nutz = |uncertified_only| proto::ListConfigsRequest {
        game: proto::Game::Nutz as i32,
        uncertified_only,
        ..Default::default()
    };
    let mut ops_b = OperationsClient::new(b.channel().await);
    let on_b = ops_b.list_configs(nutz(true)).await.unwrap().into_inner();
    let shown = on_b.configs.iter().find(|c| c.config_id == id);
    assert!(
        shown.is_some_and(|c| c.certification.is_none()),
        "B lists A's configuration as uncertified: {:?}",
        on_b.configs
    );

    // Certified through B.
    let token = b_dir.path().join("lab.token");
    std::fs::write(&token, ADMIN_TOKEN).unwrap();
    let out = b_dir.path().join("certificate");
    let (ok, said) = pitboss(&[
        "certify",
        "nutz",
        "--config-id",
        &id,
        "--hands",
        "10000",
        "--sequences",
        "55",
        "--bits",
        "131072",
        "--no-pdf",
        "--record",
        "--server",
        &b.address,
        "--token-file",
        token.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{said}");
    let on_a = ops_a.list_configs(nutz(false)).await.unwrap().into_inner();
    let status = on_a
        .configs
        .iter()
        .find(|c| c.config_id == id)
        .and_then(|c| c.certification.clone())
        .expect("A shows the certification recorded through B");
    assert!(status.holds && status.reports == 1 && status.hands == 10_000);
    let uncertified = ops_a.list_configs(nutz(true)).await.unwrap().into_inner();
    assert!(
        uncertified.configs.iter().all(|c| c.config_id != id),
        "{:?}",
        uncertified.configs
    );
}
