//! `pitboss copy`: a RocksDB log filled by the real server, copied into a private PostgreSQL
//! cluster the test starts, verified there with the same checks as `pitboss verify` and ending at
//! the same head; a damaged row in the database named by its sequence; a second copy into a
//! database that holds a log refused.

use std::process::Command;
use std::sync::atomic::AtomicU64;

mod common;

use common::postgres::Cluster;
use common::server::Server;

fn pitboss(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(args)
        .output()
        .expect("run pitboss");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_log_copied_into_postgres_verifies_there_with_the_same_head() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let (ok, _, stderr) = pitboss(&[
        "bench-load",
        "--server",
        &server.address,
        "--local-data",
        data.path().to_str().unwrap(),
        "--clients",
        "8",
        "--seconds",
        "2",
    ]);
    assert!(ok, "{stderr}");
    let dir = server.kill();

    let source = {
        let store = pitboss_ledger::store::Store::open_read_only(&dir).unwrap();
        let report = pitboss_ledger::verify(&store, 0, None);
        assert!(report.problem.is_none(), "{:?}", report.problem);
        let (sequence, hash) = report.head.expect("a log");
        serde_json::json!({"head_sequence": sequence, "head_hash": hex::encode(hash)})
    };

    let cluster = Cluster::start();
    let (ok, stdout, stderr) = pitboss(&[
        "copy",
        "--from",
        dir.to_str().unwrap(),
        "--to",
        &cluster.url(),
    ]);
    assert!(
        ok,
        "{stderr}\n{}",
        std::fs::read_to_string(cluster.log()).unwrap_or_default()
    );
    let copied: serde_json::Value = serde_json::from_str(stdout.trim()).expect(&stdout);
    assert_eq!(
        copied["head"]["hash"], source["head_hash"],
        "{copied} vs {source}"
    );
    assert_eq!(copied["head"]["sequence"], source["head_sequence"]);
    assert!(copied["entries"].as_u64().unwrap() > 100, "{copied}");
    assert!(copied["records"].as_u64().unwrap() > 0, "{copied}");

    // Read back independently of the copy: the same verification, the same head.
    let mut log = pitboss_ledger::pg::PgLog::connect(&cluster.url()).unwrap();
    let report = log
        .verify(Some(pitboss::codec::check_payload), &AtomicU64::new(0))
        .unwrap();
    assert!(report.problem.is_none(), "{:?}", report.problem);
    assert_eq!(
        report.head.map(|(s, h)| (s, hex::encode(h))),
        Some((
            source["head_sequence"].as_u64().unwrap(),
            source["head_hash"].as_str().unwrap().to_string()
        ))
    );
    let (size, hash) = log.head_row().unwrap().expect("the head row");
    assert_eq!(size, source["head_sequence"].as_u64().unwrap() + 1);
    assert_eq!(hex::encode(hash), source["head_hash"].as_str().unwrap());

    // A second copy never merges into a log.
    let (ok, _, stderr) = pitboss(&[
        "copy",
        "--from",
        dir.to_str().unwrap(),
        "--to",
        &cluster.url(),
    ]);
    assert!(!ok && stderr.contains("already holds a log"), "{stderr}");

    // One byte changed in the database is named by its sequence.
    let mut client = postgres::Client::connect(&cluster.url(), postgres::NoTls).unwrap();
    client
        .execute(
            "UPDATE pitboss_entries SET stored = overlay(stored PLACING '\\xff'::bytea FROM 20 FOR 1) \
             WHERE sequence = 7",
            &[],
        )
        .unwrap();
    let damaged = log.verify(None, &AtomicU64::new(0)).unwrap();
    let problem = damaged.problem.expect("the damage is found");
    assert_eq!(problem.sequence, 7, "{problem}");
}
