//! The seam's contract, held to every engine whose log a test can make: the same appends,
//! versions, request ids, index entries, secrets, rotations, proofs and reopening give the same
//! answers on RocksDB and on every engine `lib.rs`'s `engines!` names (PostgreSQL's are held to it
//! by the root's tests, on a private cluster): a new engine is tested by all of this.

use std::path::Path;
use std::sync::Arc;

use super::merkle;
use super::{AppendRequest, Expected, Fingerprint, Ledger, LedgerError, RequestKey, SERVER_ACTOR};

/// Opens (again, when called again) the same log, its key in the directory given.
pub(crate) type Maker = Box<dyn Fn(&Path) -> Ledger>;

/// Every engine a test can make a log of, by name: RocksDB's, and each of `engines!`.
fn engines() -> Vec<(&'static str, Maker)> {
    let rocksdb: Maker = Box::new(|dir: &Path| Ledger::open(dir, 1_000).expect("a RocksDB log"));
    let mut all = vec![("rocksdb", rocksdb)];
    all.extend(super::engine_makers());
    all
}

/// A payload the ledger carries without reading: `text` in protobuf field 1000, which none of
/// the ledger's own kinds uses.
fn payload(text: &[u8]) -> Vec<u8> {
    let mut bytes = vec![0xC2, 0x3E, text.len() as u8];
    bytes.extend_from_slice(text);
    bytes
}

fn append(stream: &str, expected: Expected, payloads: &[&[u8]]) -> AppendRequest {
    AppendRequest::entries(
        stream.into(),
        expected,
        payloads.iter().map(|p| payload(p)).collect(),
        2_000,
        SERVER_ACTOR,
    )
}

/// Appends are chained and signed, the log verifies, and a ledger opened again on it resumes
/// after its last entry, the streams' versions and the key kept.
#[test]
fn appends_chain_verify_and_survive_reopening() {
    for (engine, open) in engines() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = open(dir.path());
        assert_eq!(ledger.size(), 1, "{engine}: the key's entry first");
        let a = ledger
            .append_blocking(append("s/a", Expected::Version(0), &[b"one", b"two"]))
            .unwrap();
        assert_eq!((a.first_sequence, a.stream_version), (1, 2), "{engine}");
        let b = ledger
            .append_blocking(append("s/b", Expected::Any, &[b"three"]))
            .unwrap();
        assert_eq!(b.first_sequence, 3, "{engine}");
        let report = ledger.verify();
        assert!(report.ok(), "{engine}: {:?}", report.problem);
        assert_eq!(report.verified, 4, "{engine}");
        let key = ledger.key_id();
        ledger.close();
        drop(ledger);
        let again = open(dir.path());
        assert_eq!(again.size(), 4, "{engine}: resumed after the last entry");
        assert_eq!(again.key_id(), key, "{engine}");
        assert_eq!(again.stream_version("s/a").unwrap(), 2, "{engine}");
        let c = again
            .append_blocking(append("s/a", Expected::Version(2), &[b"four"]))
            .unwrap();
        assert_eq!((c.first_sequence, c.stream_version), (4, 3), "{engine}");
        let stream: Vec<u64> = again
            .read_stream("s/a", 0)
            .unwrap()
            .iter()
            .map(|e| e.envelope.sequence)
            .collect();
        assert_eq!(stream, vec![1, 2, 4], "{engine}");
        assert!(again.verify().ok(), "{engine}");
    }
}

/// Of appends to one stream at one expected version, exactly one is written; the others are
/// refused with the version found, and nothing of theirs is.
#[test]
fn one_version_lets_exactly_one_append_through() {
    for (engine, open) in engines() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Arc::new(open(dir.path()));
        let results: Vec<Result<_, LedgerError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8)
                .map(|i| {
                    let ledger = ledger.clone();
                    scope.spawn(move || {
                        ledger.append_blocking(append(
                            "hand/x",
                            Expected::Version(0),
                            &[format!("{i}").as_bytes()],
                        ))
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(
            results.iter().filter(|r| r.is_ok()).count(),
            1,
            "{engine}: {results:?}"
        );
        assert!(results.iter().all(|r| matches!(
            r,
            Ok(_) | Err(LedgerError::VersionConflict { actual: 1, .. })
        )));
        assert_eq!(ledger.stream_version("hand/x").unwrap(), 1, "{engine}");
        assert_eq!(ledger.size(), 2, "{engine}");
    }
}

/// A request id answers its retry with the first result, writing nothing; the same id with
/// another fingerprint is refused; index entries, their removal and secrets are written with the
/// entries.
#[test]
fn request_ids_index_entries_and_secrets() {
    for (engine, open) in engines() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = open(dir.path());
        let keyed = |fingerprint: u8| {
            let mut request = append("hand/r", Expected::Any, &[b"x"]);
            request.request = Some(RequestKey {
                id: "req-1".into(),
                fingerprint: Fingerprint([fingerprint; 32]),
            });
            request.indexes = vec![("by-table".into(), b"T1/a".to_vec())];
            request.secrets = vec![(b"hand/r".to_vec(), b"seed".to_vec())];
            request
        };
        let first = ledger.append_blocking(keyed(1)).unwrap();
        let retry = ledger.append_blocking(keyed(1)).unwrap();
        assert!(retry.duplicate && !first.duplicate, "{engine}");
        assert_eq!(retry.first_sequence, first.first_sequence, "{engine}");
        assert_eq!(ledger.size(), 2, "{engine}: the retry wrote nothing");
        assert!(matches!(
            ledger.append_blocking(keyed(2)),
            Err(LedgerError::RequestReused { .. })
        ));
        assert_eq!(
            ledger.secret(b"hand/r").unwrap().as_deref(),
            Some(&b"seed"[..])
        );
        let page = ledger.index_page("by-table", b"T1/", b"T1/", 10).unwrap();
        assert_eq!(page, vec![(b"T1/a".to_vec(), 1)], "{engine}");
        let mut closing = append("hand/r", Expected::Any, &[b"y"]);
        closing.unindex = vec![("by-table".into(), b"T1/a".to_vec())];
        ledger.append_blocking(closing).unwrap();
        assert!(ledger
            .index_page("by-table", b"T1/", b"T1/", 10)
            .unwrap()
            .is_empty());
    }
}

/// A rotation is signed by both keys, later entries by the new one; checkpoints and proofs of
/// inclusion and consistency verify against the roots.
#[test]
fn rotations_checkpoints_and_proofs() {
    for (engine, open) in engines() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = open(dir.path());
        for i in 0..5u8 {
            ledger
                .append_blocking(append("s", Expected::Any, &[&[i]]))
                .unwrap();
        }
        let old = ledger.key_id().unwrap();
        let new = ledger.rotate_key_blocking(3_000, "admin").unwrap();
        assert_ne!(old, new, "{engine}");
        ledger
            .append_blocking(append("s", Expected::Any, &[b"after"]))
            .unwrap();
        assert!(ledger.verify().ok(), "{engine}");
        assert_eq!(ledger.known_keys().unwrap().len(), 2, "{engine}");
        let size = ledger.size();
        let (checkpoint, key) = ledger.checkpoint_blocking(None).unwrap();
        assert_eq!(checkpoint.size, size, "{engine}");
        assert_eq!(super::keys::KeyId::of(&key), new, "{engine}");
        for sequence in 0..size {
            let proof = ledger.inclusion_proof(sequence, size).unwrap();
            assert!(merkle::verify_inclusion(
                sequence,
                size,
                &merkle::leaf_hash(&proof.entry_hash),
                &proof.hashes,
                &checkpoint.root
            ));
        }
        let earlier = ledger.tree_root(3).unwrap();
        let proof = ledger.consistency_proof(3, size).unwrap();
        assert!(merkle::verify_consistency(
            3,
            size,
            &earlier,
            &checkpoint.root,
            &proof
        ));
    }
}
