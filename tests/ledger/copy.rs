//! `pitboss copy`: a RocksDB log filled by the real server, copied into a private PostgreSQL
//! cluster the test starts, verified there with the same checks as `pitboss verify` and ending at
//! the same head; a damaged row in the database named by its sequence; a second copy into a
//! database that holds a log refused.

use std::process::Command;

use pitboss_testkit::postgres::Cluster;
use pitboss_testkit::server::Server;

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
        "--hands",
        "40",
        "--games",
        "all",
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
    // 40 hands of at least three events each, beside the key and the configurations.
    assert!(copied["entries"].as_u64().unwrap() > 120, "{copied}");
    assert!(copied["records"].as_u64().unwrap() > 0, "{copied}");

    // Read back independently of the copy: the same verification, the same head, the head row.
    let (ok, stdout, stderr) = pitboss(&["verify", "--store", &cluster.url()]);
    assert!(ok, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!(
            "last good entry {}, hash {}",
            source["head_sequence"],
            source["head_hash"].as_str().unwrap()
        )),
        "{stdout}"
    );
    let log = pitboss_ledger::pg::PgStore::connect(&cluster.url()).unwrap();
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

    // And back: a new data directory with the log's key, verified by `pitboss verify` as any
    // other, at the same head; a server starts on it and goes on from there.
    let back_parent = tempfile::tempdir().unwrap();
    let back = back_parent.path().join("back");
    let (ok, _, stderr) = pitboss(&[
        "copy",
        "--from",
        &cluster.url(),
        "--to",
        back.to_str().unwrap(),
    ]);
    assert!(!ok && stderr.contains("--key"), "{stderr}");
    let copy_back = || {
        pitboss(&[
            "copy",
            "--from",
            &cluster.url(),
            "--to",
            back.to_str().unwrap(),
            "--key",
            dir.to_str().unwrap(),
        ])
    };
    let (ok, stdout, stderr) = copy_back();
    assert!(ok, "{stderr}");
    let returned: serde_json::Value = serde_json::from_str(stdout.trim()).expect(&stdout);
    assert_eq!(returned["head"], copied["head"]);
    assert_eq!(returned["entries"], copied["entries"]);
    assert_eq!(returned["records"], copied["records"]);
    let (ok, stdout, stderr) = pitboss(&["verify", "--data", back.to_str().unwrap()]);
    assert!(ok, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!("hash {}", source["head_hash"].as_str().unwrap())),
        "{stdout}"
    );
    // Into a directory that holds something: refused.
    let (ok, _, stderr) = copy_back();
    assert!(!ok && stderr.contains("not an empty directory"), "{stderr}");
    let server = Server::start(&back);
    assert!(server.address.starts_with("http://127.0.0.1:"));
    drop(server);

    // One byte changed in the database is named by its sequence.
    let mut client = postgres::Client::connect(&cluster.url(), postgres::NoTls).unwrap();
    client
        .execute(
            // Flipped, not set: a byte set to a constant it already held would change nothing.
            "UPDATE pitboss_entries SET stored = set_byte(stored, 19, get_byte(stored, 19) # 255) \
             WHERE sequence = 7",
            &[],
        )
        .unwrap();
    let (ok, stdout, _) = pitboss(&["verify", "--store", &cluster.url()]);
    assert!(!ok && stdout.contains("FAILED at entry 7"), "{stdout}");
}
