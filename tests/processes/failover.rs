//! The documented deployment's promise, on loopback: PostgreSQL with a synchronous standby
//! (`synchronous_commit = on`), a `pitboss serve` whose store URL names both
//! (`target_session_attrs=read-write`), clients playing hands and retrying a failed call with the
//! same request id. The primary is stopped as a crash would (`pg_ctl stop -m immediate`) in the
//! middle of the load, the standby promoted: the server reconnects by itself, the clients carry
//! on, and every call acknowledged before or after is in the promoted database's log (at its
//! version; every request id answered once), which verifies whole. The test prints how long the
//! clients went without an answer.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use pitboss_testkit::load::{self, OnError};
use pitboss_testkit::postgres::Cluster;
use pitboss_testkit::server::Server;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_promoted_synchronous_standby_holds_every_acknowledged_call() {
    let primary = Cluster::start();
    let standby = Cluster::standby_of(&primary, "standby1");
    primary.make_synchronous("standby1");
    let url = format!(
        "postgres://pitboss@127.0.0.1:{},127.0.0.1:{}/postgres?target_session_attrs=read-write",
        primary.port, standby.port
    );
    let data = tempfile::tempdir().unwrap();
    let server = Server::start_with(data.path(), &["--store", &url]);

    let clients = load::Clients::start(&server.address, 0..8, OnError::Retry);
    let acked = clients.acked.clone();
    load::wait_for(&acked, 40)
        .await
        .expect("before the primary fails");

    let failed = Instant::now();
    primary.kill();
    let at_failure = acked.load(Ordering::Relaxed);
    standby.promote();
    let promoted = failed.elapsed();
    // The first answer after the failover (at most one call per client was in flight at the
    // failure: answered before the crash reached it, or retried).
    load::wait_for(&acked, at_failure + 9)
        .await
        .expect("after the standby was promoted");
    let answering_again = failed.elapsed();
    load::wait_for(&acked, at_failure + 80)
        .await
        .expect("on the promoted standby");
    let acknowledged = clients.stop().await;
    eprintln!(
        "failover: standby promoted {:.2} s after the primary's crash; the clients answered again \
         after {:.2} s; {} calls acknowledged in all",
        promoted.as_secs_f64(),
        answering_again.as_secs_f64(),
        acknowledged.len()
    );

    // Everything acknowledged, before the crash too, is in the promoted database.
    let rechecked = load::recheck(&server.address, &acknowledged)
        .await
        .expect("the server answers");
    assert_eq!(rechecked.problems(), Vec::<String>::new());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(["verify", "--store", &standby.url()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.contains("OK"), "{stdout}");
    assert!(
        answering_again < Duration::from_secs(60),
        "{answering_again:?}"
    );
}
