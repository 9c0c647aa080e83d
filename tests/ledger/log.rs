//! The ledger through its public API and the real binary: appends, tampering named by
//! verification, concurrency and idempotent retries, key rotation, and SIGKILL crashes that lose
//! nothing acknowledged.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ed25519_dalek::{Signer, SigningKey};
use pitboss::proto;
use pitboss_ledger::entry::entry_hash;
use pitboss_ledger::tamper::Tamper;
use pitboss_ledger::{
    AppendRequest, Entry, Expected, Fingerprint, Ledger, LedgerError, Problem, ProblemKind,
    RequestKey, Store, Unsealed, SEAL_RUN,
};
use prost::Message;

fn payload(n: u64) -> Vec<u8> {
    prost::Message::encode_to_vec(&proto::Payload {
        kind: Some(proto::payload::Kind::ConfigPublished(
            proto::ConfigPublished {
                config_id: vec![7; 32],
                canonical_json: format!("{{\"n\":{n}}}").into_bytes(),
            },
        )),
    })
}

fn key(id: &str, fingerprint: u8) -> RequestKey {
    RequestKey {
        id: id.into(),
        fingerprint: Fingerprint([fingerprint; 32]),
    }
}

fn request(stream: &str, expected: Expected, n: u64) -> AppendRequest {
    AppendRequest {
        stream: stream.into(),
        expected,
        payloads: vec![payload(n)],
        request: None,
        indexes: Vec::new(),
        secrets: Vec::new(),
        unindex: Vec::new(),
        recorded_at_ms: 1_700_000_000_000 + n,
        actor: "test".into(),
    }
}

/// A ledger with the key entry and `n` more entries, closed; returns the directory.
fn filled(n: u64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::open(dir.path(), 0).unwrap();
    for i in 0..n {
        ledger
            .append_blocking(request(&format!("hand/{}", i % 3), Expected::Any, i))
            .unwrap();
    }
    assert!(ledger.verify().ok());
    drop(ledger);
    dir
}

fn raw(dir: &Path) -> Tamper<'static> {
    Tamper::open(dir).unwrap()
}

/// Flips one bit of entry `sequence`, inside its envelope bytes (the stored record starts with them).
fn flip_a_byte(dir: &Path, sequence: u64) {
    let store = raw(dir);
    let mut value = store.entry(sequence).unwrap().unwrap();
    value[40] ^= 0x01;
    store.put_entry(sequence, &value).unwrap();
}

fn problem_of(dir: &Path) -> (u64, ProblemKind) {
    let store = Store::open_read_only(dir).unwrap();
    let report = pitboss_ledger::verify(&store, 0, None);
    let problem = report.problem.expect("verification must fail");
    (problem.sequence, problem.kind)
}

#[test]
fn appends_are_chained_signed_and_survive_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::open(dir.path(), 5).unwrap();
    let key = ledger.entry(0).unwrap().expect("the key entry");
    assert_eq!(
        key.envelope.stream,
        format!("key/{}", ledger.key_id().unwrap())
    );
    let a = ledger
        .append_blocking(request("hand/a", Expected::Version(0), 1))
        .unwrap();
    assert_eq!(
        (a.first_sequence, a.count, a.stream_version, a.duplicate),
        (1, 1, 1, false)
    );
    let mut two = request("hand/a", Expected::Version(1), 2);
    two.payloads.push(payload(3));
    let b = ledger.append_blocking(two).unwrap();
    assert_eq!((b.first_sequence, b.count, b.stream_version), (2, 2, 3));
    let entries = ledger.read_stream("hand/a", 0).unwrap();
    assert_eq!(
        entries
            .iter()
            .map(|e| e.envelope.stream_position)
            .collect::<Vec<_>>(),
        vec![0, 1, 2]
    );
    assert_eq!(entries[1].envelope.prev_hash, entries[0].hash.to_vec());
    let head = ledger.head().unwrap().unwrap();
    drop(ledger);

    let ledger = Ledger::open(dir.path(), 6).unwrap();
    assert_eq!(
        ledger.head().unwrap().unwrap(),
        head,
        "reopening resumes at the head, publishing nothing"
    );
    let c = ledger
        .append_blocking(request("hand/a", Expected::Version(3), 4))
        .unwrap();
    assert_eq!(c.first_sequence, 4);
    let report = ledger.verify();
    assert!(report.ok(), "{:?}", report.problem);
    assert_eq!(report.verified, 5);
    assert_eq!(
        ledger.append_blocking(request("hand/a", Expected::Version(3), 5)),
        Err(LedgerError::VersionConflict {
            stream: "hand/a".into(),
            expected: 3,
            actual: 4
        })
    );
}

#[test]
fn a_flipped_byte_is_named() {
    let dir = filled(20);
    flip_a_byte(dir.path(), 11);
    assert_eq!(problem_of(dir.path()), (11, ProblemKind::AlteredBytes));
}

#[test]
fn a_deleted_entry_is_named_as_a_gap() {
    let dir = filled(20);
    let store = raw(dir.path());
    store.delete_entry(7).unwrap();
    drop(store);
    assert_eq!(problem_of(dir.path()), (7, ProblemKind::Gap { found: 8 }));
}

#[test]
fn swapped_entries_are_named() {
    let dir = filled(20);
    let store = raw(dir.path());
    let a = store.entry(5).unwrap().unwrap();
    let b = store.entry(9).unwrap().unwrap();
    store.put_entry(5, &b).unwrap();
    store.put_entry(9, &a).unwrap();
    drop(store);
    assert_eq!(
        problem_of(dir.path()),
        (5, ProblemKind::Misplaced { says: 9 })
    );
}

#[test]
fn an_entry_signed_by_a_foreign_key_is_named() {
    let dir = filled(20);
    let store = raw(dir.path());
    // Re-sign entry 12 with a key the log never established, keeping hash and link consistent.
    let entry = Entry::decode(&store.entry(12).unwrap().unwrap()).unwrap();
    let foreign = SigningKey::from_bytes(&[42; 32]);
    let mut envelope = entry.envelope.clone();
    envelope.key_id = pitboss_ledger::KeyId::of(&foreign.verifying_key())
        .0
        .to_vec();
    let bytes = envelope.encode_to_vec();
    let hash = entry_hash(&bytes);
    let record = proto::StoredEntry {
        envelope: bytes,
        hash: hash.to_vec(),
        signature: foreign.sign(&hash).to_bytes().to_vec(),
    };
    store.put_entry(12, &record.encode_to_vec()).unwrap();
    drop(store);
    let (sequence, kind) = problem_of(dir.path());
    assert_eq!(sequence, 12);
    assert!(matches!(kind, ProblemKind::UnknownKey(_)), "{kind:?}");

    // And a forged signature by the right key id is a bad signature.
    let dir = filled(20);
    let store = raw(dir.path());
    let mut entry = Entry::decode(&store.entry(3).unwrap().unwrap()).unwrap();
    entry.signature = Some(foreign.sign(&entry.hash).to_bytes());
    store.put_entry(3, &entry.encode()).unwrap();
    drop(store);
    assert_eq!(problem_of(dir.path()), (3, ProblemKind::BadSignature));
}

/// The ledger reads only its own payload kinds; the server holds every payload to
/// `pitboss.v1.Payload` (`Ledger::open_checked`, `pitboss verify`): a correctly signed entry whose
/// payload does not decode passes the ledger's own checks and is named by the server's.
#[test]
fn a_signed_entry_whose_payload_does_not_decode_is_named_by_the_servers_checks() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::open(dir.path(), 0).unwrap();
    // Field 1 (a hand's opening) holding bytes that are no message: well formed to the ledger.
    let malformed = vec![0x0a, 0x02, 0xff, 0xff];
    assert!(pitboss::codec::check_payload(&malformed).is_err());
    let appended = ledger
        .append_blocking(AppendRequest::entries(
            "hand/x".into(),
            Expected::Any,
            vec![malformed],
            0,
            "test",
        ))
        .unwrap();
    assert!(
        ledger.verify().ok(),
        "the ledger alone reads its own kinds only"
    );
    ledger.close();
    drop(ledger);
    let refused = Ledger::open_checked(dir.path(), 0, pitboss::codec::check_payload)
        .err()
        .expect("the server's open refuses it")
        .to_string();
    let named = format!("entry {}", appended.first_sequence);
    assert!(
        refused.contains(&named) && refused.contains("does not decode"),
        "{refused}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(["verify", "--data"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(&format!("FAILED at {named}: does not decode")),
        "{stdout}"
    );
}

#[test]
fn garbage_in_the_store_is_reported_not_panicked_on() {
    let dir = filled(5);
    let store = raw(dir.path());
    store.put_entry(3, b"\xff\xff garbage").unwrap();
    drop(store);
    let (sequence, kind) = problem_of(dir.path());
    assert_eq!(sequence, 3);
    assert!(matches!(kind, ProblemKind::Undecodable(_)), "{kind:?}");
    // A directory that is not a database at all: the CLI says so and exits 2.
    let junk = tempfile::tempdir().unwrap();
    std::fs::write(junk.path().join("CURRENT"), b"MANIFEST-nonsense\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(["verify", "--data"])
        .arg(junk.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
    // A directory with no database in it: the same, naming what is missing.
    let empty = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(["verify", "--data"])
        .arg(empty.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("holds no database (no CURRENT file)"),
        "{said}"
    );
    assert!(
        !empty.path().join("CURRENT").exists(),
        "verify creates nothing"
    );
}

#[test]
fn verify_cli_names_the_bad_entry() {
    let dir = filled(10);
    let pitboss = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pitboss"))
            .args(args)
            .arg("--data")
            .arg(dir.path())
            .output()
            .unwrap()
    };
    let out = pitboss(&["verify"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("verified 11 entries"));
    let out = pitboss(&["verify", "--from", "4", "--to", "8"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("verified 5 entries (4..=8)"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let store = raw(dir.path());
    store.delete_entry(6).unwrap();
    drop(store);
    let out = pitboss(&["verify"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("FAILED at entry 6: missing"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_appends_at_one_version_let_exactly_one_through() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Arc::new(Ledger::open(dir.path(), 0).unwrap());
    for round in 0..5u64 {
        let tasks: Vec<_> = (0..32)
            .map(|i| {
                let ledger = ledger.clone();
                tokio::spawn(async move {
                    ledger
                        .append(request("hand/x", Expected::Version(round), i))
                        .await
                })
            })
            .collect();
        let mut ok = 0;
        for task in tasks {
            match task.await.unwrap() {
                Ok(a) => {
                    ok += 1;
                    assert_eq!(a.stream_version, round + 1);
                }
                Err(LedgerError::VersionConflict {
                    expected, actual, ..
                }) => {
                    assert_eq!((expected, actual), (round, round + 1));
                }
                Err(e) => panic!("{e}"),
            }
        }
        assert_eq!(ok, 1, "round {round}");
    }
    assert_eq!(ledger.stream_version("hand/x").unwrap(), 5);
    assert!(ledger.verify().ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn retries_with_a_request_id_return_the_first_result_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Arc::new(Ledger::open(dir.path(), 0).unwrap());
    let tasks: Vec<_> = (0..16)
        .map(|i| {
            let ledger = ledger.clone();
            tokio::spawn(async move {
                let mut r = request("hand/y", Expected::Version(0), i);
                r.request = Some(key("req-1", 1));
                ledger.append(r).await
            })
        })
        .collect();
    let mut results = Vec::new();
    for task in tasks {
        results.push(task.await.unwrap().unwrap());
    }
    let firsts: Vec<_> = results.iter().filter(|r| !r.duplicate).collect();
    assert_eq!(firsts.len(), 1);
    for r in &results {
        assert_eq!(
            (r.first_sequence, r.count, r.stream_version),
            (firsts[0].first_sequence, 1, 1)
        );
    }
    let head = ledger.head().unwrap();
    let mut again = request("hand/y", Expected::Version(0), 99);
    again.request = Some(key("req-1", 1));
    let retry = ledger.append(again).await.unwrap();
    assert!(retry.duplicate);
    assert_eq!(ledger.head().unwrap(), head, "a retry writes nothing");
    // The same id for another request (another fingerprint) is refused and writes nothing.
    let mut other = request("hand/z", Expected::Version(0), 100);
    other.request = Some(key("req-1", 2));
    assert_eq!(
        ledger.append(other).await,
        Err(LedgerError::RequestReused { id: "req-1".into() })
    );
    assert_eq!(
        ledger.head().unwrap(),
        head,
        "a refused reuse writes nothing"
    );
    assert_eq!(ledger.read_stream("hand/y", 0).unwrap().len(), 1);
}

#[test]
fn rotation_is_signed_by_both_keys_and_old_entries_still_verify() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::open(dir.path(), 0).unwrap();
    let old = ledger.key_id().unwrap();
    ledger
        .append_blocking(request("hand/r", Expected::Any, 1))
        .unwrap();
    let new = ledger.rotate_key_blocking(10, "test").unwrap();
    assert_ne!(old, new);
    let after = ledger
        .append_blocking(request("hand/r", Expected::Any, 2))
        .unwrap();
    assert_eq!(
        ledger.entry(1).unwrap().unwrap().envelope.key_id,
        old.0.to_vec()
    );
    assert_eq!(
        ledger
            .entry(after.first_sequence)
            .unwrap()
            .unwrap()
            .envelope
            .key_id,
        new.0.to_vec()
    );
    assert!(ledger.verify().ok(), "{:?}", ledger.verify().problem);
    drop(ledger);
    assert!(dir
        .path()
        .join("retired-keys")
        .join(format!("{old}.key"))
        .exists());
    let ledger = Ledger::open(dir.path(), 20).unwrap();
    assert_eq!(
        ledger.key_id().unwrap(),
        new,
        "the new key signs after a restart"
    );
    ledger
        .append_blocking(request("hand/r", Expected::Any, 3))
        .unwrap();
    let report = ledger.verify();
    assert!(report.ok(), "{:?}", report.problem);
    assert_eq!(report.verified, 5, "key, entry, rotation, entry, entry");
}

#[test]
fn sigkill_at_random_moments_loses_nothing_acknowledged() {
    let dir = tempfile::tempdir().unwrap();
    let mut acked: Vec<(u64, u64)> = Vec::new();
    for round in 0..8u64 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pitboss"))
            .args(["ledger-load", "--writers", "8", "--data"])
            .arg(dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let reader = {
            let lines = lines.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                    lines.lock().unwrap().push(line);
                }
            })
        };
        // A pseudo-random moment between 150 and 650 ms after the first acknowledgement (opening
        // checks the whole log first), different every round.
        let opened = std::time::Instant::now();
        while lines.lock().unwrap().is_empty() && opened.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(5));
        }
        let wait = 150 + (round * 7919 + 13) % 500;
        std::thread::sleep(Duration::from_millis(wait));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        reader.join().unwrap();
        let lines = lines.lock().unwrap();
        assert!(
            !lines.is_empty(),
            "round {round}: nothing acknowledged in {wait} ms"
        );
        for line in lines.iter() {
            let parts: Vec<&str> = line.split_whitespace().collect();
            if parts.len() == 5 && parts[0] == "ack" {
                acked.push((parts[1].parse().unwrap(), parts[2].parse().unwrap()));
            }
        }
        // The anchor was durable before each acknowledgement: it covers every acknowledged entry.
        let anchored = pitboss_ledger::anchor::read(&dir.path().join("anchor"))
            .unwrap()
            .expect("an anchor")
            .newer
            .size;
        let acknowledged = acked.iter().map(|&(f, c)| f + c).max().unwrap_or(0);
        assert!(
            anchored >= acknowledged,
            "round {round}: anchor at {anchored}, acknowledged up to {acknowledged}"
        );
        // Restart: every acknowledged entry is there, the chain verifies, appends continue.
        let ledger = Ledger::open(dir.path(), 0).unwrap();
        for &(first, count) in &acked {
            for seq in first..first + count {
                assert!(
                    ledger.entry(seq).unwrap().is_some(),
                    "round {round}: acknowledged entry {seq} lost"
                );
            }
        }
        let report = ledger.verify();
        assert!(report.ok(), "round {round}: {:?}", report.problem);
        let head = ledger.head().unwrap().unwrap().0;
        let next = ledger
            .append_blocking(request("after/crash", Expected::Any, round))
            .unwrap();
        assert_eq!(next.first_sequence, head + 1);
    }
    assert!(acked.len() > 100, "{} appends acknowledged", acked.len());
}

/// The Merkle tree over the log: signed checkpoints, inclusion proofs for entries and a
/// consistency proof between an older and a newer checkpoint, all checked with nothing but
/// hashes and the log's public key; after an entry is altered, no checkpoint of the altered log
/// can be proven consistent with one taken before.
#[test]
fn checkpoints_and_proofs_verify_and_a_rewrite_cannot_be_hidden() {
    use pitboss_ledger::checkpoint::Checkpoint;
    use pitboss_ledger::merkle::{leaf_hash, verify_consistency, verify_inclusion};
    let dir = filled(700);
    let ledger = Ledger::open(dir.path(), 0).unwrap();
    assert_eq!(ledger.tree_size().unwrap(), 701);
    let (old, public) = ledger.checkpoint_blocking(Some(300)).unwrap();
    let old = Checkpoint::parse(&old.note()).unwrap();
    old.verify(&public).unwrap();
    let (new, _) = ledger.checkpoint_blocking(None).unwrap();
    let new = Checkpoint::parse(&new.note()).unwrap();
    new.verify(&public).unwrap();
    assert_eq!((old.size, new.size), (300, 701));
    assert_eq!(old.origin, new.origin);
    let proof = ledger.consistency_proof(300, 701).unwrap();
    assert!(verify_consistency(300, 701, &old.root, &new.root, &proof));
    for sequence in [0u64, 1, 255, 256, 299, 511, 700] {
        let p = ledger.inclusion_proof(sequence, 701).unwrap();
        let entry = ledger.entry(sequence).unwrap().unwrap();
        assert_eq!(p.entry_hash, entry_hash(&entry.envelope_bytes));
        assert!(verify_inclusion(
            sequence,
            701,
            &leaf_hash(&p.entry_hash),
            &p.hashes,
            &new.root
        ));
    }
    assert_eq!(
        ledger.inclusion_proof(701, 701),
        Err(LedgerError::NotInTree {
            sequence: 701,
            size: 701
        })
    );
    assert!(matches!(
        ledger.checkpoint_blocking(Some(702)),
        Err(LedgerError::TreeSize { .. })
    ));
    drop(ledger);

    // Alter entry 100 (inside the old checkpoint's tree): the ledger refuses to serve the altered
    // log, and the log's tree now has other roots: held to the old checkpoint, it is a rewrite.
    let store = Store::open_read_only(dir.path()).unwrap();
    for (size, root) in [(300, old.root), (701, new.root)] {
        assert_eq!(
            pitboss_ledger::root_from_store(&store, size).unwrap(),
            root,
            "one pass over the store gives the checkpoint's root"
        );
    }
    assert!(pitboss_ledger::root_from_store(&store, 702).is_err());
    drop(store);
    std::fs::write(dir.path().join("old.checkpoint"), old.note()).unwrap();
    flip_a_byte(dir.path(), 100);
    let refused = Ledger::open(dir.path(), 0)
        .err()
        .expect("an altered log is refused");
    assert!(
        log_problems(&refused).iter().any(|p| p.sequence == 100),
        "the damaged entry is named: {refused}"
    );
    let store = Store::open_read_only(dir.path()).unwrap();
    assert_ne!(
        pitboss_ledger::root_from_store(&store, 300).unwrap(),
        old.root
    );
    drop(store);
    let out = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(["verify", "--checkpoint"])
        .arg(dir.path().join("old.checkpoint"))
        .args(["--key", &hex::encode(public.as_bytes()), "--data"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("REWRITTEN"), "{stdout}");
    assert!(
        stdout.contains("FAILED at entry 100: altered bytes"),
        "{stdout}"
    );
}

/// Which entries of a log carry a signature of their own.
fn signed_entries(dir: &Path) -> Vec<u64> {
    let store = raw(dir);
    (0..)
        .map_while(|sequence| Some((sequence, store.entry(sequence).unwrap()?)))
        .filter(|(_, bytes)| Entry::decode(bytes).unwrap().signature.is_some())
        .map(|(sequence, _)| sequence)
        .collect()
}

/// Rewrites entry `sequence` (the log's last) with its signature removed.
fn strip_signature(dir: &Path, sequence: u64) {
    let store = raw(dir);
    let mut entry = Entry::decode(&store.entry(sequence).unwrap().unwrap()).unwrap();
    assert!(
        entry.signature.take().is_some(),
        "entry {sequence} was signed"
    );
    store.put_entry(sequence, &entry.encode()).unwrap();
}

/// One signature seals a group (format 4): an append of many entries is signed by its last entry
/// and, in a run that long, by every `SEAL_RUN`th; every entry verifies, also alone (a range is
/// read past its end to its seal); a signature removed is named where the unsealed run starts.
#[test]
fn a_group_is_signed_by_its_last_entry_and_an_unsealed_run_is_named() {
    let n = SEAL_RUN as u64 + 100;
    let many = |dir: &Path| {
        let ledger = Ledger::open(dir, 0).unwrap();
        let mut big = request("hand/many", Expected::Any, 0);
        big.payloads = (0..n).map(payload).collect();
        ledger.append_blocking(big).unwrap();
        let mut small = request("hand/few", Expected::Any, 1);
        small.payloads = (0..3).map(payload).collect();
        ledger.append_blocking(small).unwrap();
        assert!(ledger.verify().ok());
        // The benchmarks' reference, signatures one at a time, walks by the same rules.
        assert_eq!(ledger.verify_one_by_one(), Ok(n + 4));
        // Entry 5 alone is vouched for by entry SEAL_RUN's signature, 1 019 entries later.
        let alone = ledger.verify_range(5, Some(5));
        assert!(alone.ok(), "{alone:?}");
        assert_eq!(alone.verified, 1);
        assert_eq!(alone.head.map(|(sequence, _)| sequence), Some(5));
    };
    let dir = tempfile::tempdir().unwrap();
    many(dir.path());
    let last = n + 3;
    // The key entry, the run's forced seal, the end of the big append, the end of the small one.
    assert_eq!(
        signed_entries(dir.path()),
        vec![0, SEAL_RUN as u64, n, last]
    );

    // The log's last entry unsigned: the small append's three entries have no seal.
    strip_signature(dir.path(), last);
    assert_eq!(
        problem_of(dir.path()),
        (n + 1, ProblemKind::Unsealed(Unsealed::LogEnds))
    );
    // The server refuses to open it, naming the entry.
    let refused = Ledger::open(dir.path(), 0).err().expect("refused");
    assert!(
        log_problems(&refused).contains(&Problem {
            sequence: n + 1,
            kind: ProblemKind::Unsealed(Unsealed::LogEnds)
        }),
        "{refused}"
    );

    // The forced seal removed: 1 100 unsigned entries in a row.
    let dir = tempfile::tempdir().unwrap();
    many(dir.path());
    strip_signature(dir.path(), SEAL_RUN as u64);
    assert_eq!(
        problem_of(dir.path()),
        (1, ProblemKind::Unsealed(Unsealed::RunTooLong))
    );
}

/// An unsigned run must be sealed by its own key: a run signed by the new key after a rotation,
/// whose last entry is rewritten and signed by the old (still established) key, is named.
#[test]
fn an_unsigned_run_sealed_by_another_key_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::open(dir.path(), 0).unwrap();
    let old = pitboss_ledger::keys::Keypair::load(dir.path()).unwrap();
    ledger.rotate_key_blocking(1, "test").unwrap();
    let mut big = request("hand/many", Expected::Any, 0);
    big.payloads = (0..10).map(payload).collect();
    let appended = ledger.append_blocking(big).unwrap();
    assert!(ledger.verify().ok());
    drop(ledger);
    let last = appended.first_sequence + 9;
    assert_eq!(signed_entries(dir.path()).last(), Some(&last));

    let store = raw(dir.path());
    let entry = Entry::decode(&store.entry(last).unwrap().unwrap()).unwrap();
    let mut envelope = entry.envelope.clone();
    envelope.key_id = old.id().0.to_vec();
    let bytes = envelope.encode_to_vec();
    let hash = entry_hash(&bytes);
    let record = proto::StoredEntry {
        envelope: bytes,
        hash: hash.to_vec(),
        signature: old.sign(&hash).to_vec(),
    };
    store.put_entry(last, &record.encode_to_vec()).unwrap();
    drop(store);
    assert_eq!(
        problem_of(dir.path()),
        (
            appended.first_sequence,
            ProblemKind::Unsealed(Unsealed::KeyChanges { at: last })
        )
    );
}

/// A key entry carries its own signature: it is what establishes its key. One whose signature was
/// removed is refused although a later entry by the same key would seal it.
#[test]
fn a_key_entry_without_its_own_signature_is_named() {
    let dir = filled(3);
    strip_signature(dir.path(), 0);
    let (sequence, kind) = problem_of(dir.path());
    assert_eq!(sequence, 0);
    assert!(
        matches!(&kind, ProblemKind::UntrustedKey(why) if why.contains("without its own signature")),
        "{kind:?}"
    );
}

/// The problems with the log's entries an opening was refused for.
fn log_problems(refused: &pitboss_ledger::OpenError) -> Vec<Problem> {
    match refused {
        pitboss_ledger::OpenError::Refused(r) => r
            .problems
            .iter()
            .filter_map(|p| match p {
                pitboss_ledger::integrity::Refusal::Log { problem } => Some(problem.clone()),
                _ => None,
            })
            .collect(),
        other => panic!("not a refusal of the directory: {other}"),
    }
}
