//! The witness's decisions, every answer `tlog-witness` names, on a log built here: its leaves,
//! roots and consistency proofs from the ledger's Merkle code, its checkpoints signed as a note by
//! a log key; and its state kept across a reopening.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ed25519_dalek::{Signer, SigningKey};
use pitboss_ledger::merkle::{consistency_proof, root_of};
use pitboss_ledger::Hash;
use pitboss_witness::cosignature;
use pitboss_witness::note::{key_id, Note, NoteSignature, Vkey, COSIGNATURE_V1, ED25519};
use pitboss_witness::request::AddCheckpoint;
use pitboss_witness::state::State;
use pitboss_witness::{Refused, Witness, WitnessError};

const ORIGIN: &str = "pitboss.v1/0011223344556677";
const NOW: u64 = 1_800_000_000;

fn leaves(n: u64) -> Vec<Hash> {
    (0..n).map(|i| [i as u8 ^ 0x5a; 32]).collect()
}

fn log_key() -> SigningKey {
    SigningKey::from_bytes(&[1; 32])
}

fn log_vkey() -> Vkey {
    Vkey {
        name: ORIGIN.into(),
        kind: ED25519,
        key: log_key().verifying_key(),
    }
}

/// A checkpoint of the first `size` leaves (or of `root`), signed by `key`.
fn note(size: u64, root: Option<Hash>, key: &SigningKey) -> Note {
    let root = root.unwrap_or_else(|| root_of(&leaves(size)));
    let text = format!("{ORIGIN}\n{size}\n{}\n", STANDARD.encode(root));
    let signature = key.sign(text.as_bytes()).to_bytes().to_vec();
    Note {
        signatures: vec![NoteSignature {
            name: ORIGIN.into(),
            key_id: key_id(ORIGIN, ED25519, key.verifying_key().as_bytes()),
            bytes: signature,
        }],
        text,
    }
}

fn request(old: u64, note: Note) -> Vec<u8> {
    let size = note.text.lines().nth(1).unwrap().parse().unwrap();
    let all = leaves(size);
    let proof = consistency_proof(&mut all.as_slice(), old, size).unwrap();
    AddCheckpoint { old, proof, note }.to_body().into_bytes()
}

fn witness(dir: &std::path::Path) -> Witness {
    Witness::new(
        "witness.test/w1".into(),
        pitboss_ledger::keys::Keypair::from_secret([2; 32]),
        vec![log_vkey()],
        State::open(dir).unwrap(),
    )
}

fn refused(result: Result<String, WitnessError>) -> Refused {
    match result {
        Err(WitnessError::Refused(r)) => r,
        other => panic!("not refused: {other:?}"),
    }
}

#[test]
fn a_witness_cosigns_only_what_extends_what_it_cosigned() {
    let dir = tempfile::tempdir().unwrap();
    let w = witness(dir.path());
    let me = w.vkey();
    assert_eq!(me.kind, COSIGNATURE_V1);

    // The first checkpoint, from size 0: cosigned, and the cosignature verifies.
    let first = note(5, None, &log_key());
    let line = w.add_checkpoint(&request(0, first.clone()), NOW).unwrap();
    let with = Note::parse(&format!("{}{line}", first.to_text())).unwrap();
    let cosig = with.signatures.iter().find(|s| me.names(s)).unwrap();
    assert_eq!(cosignature::verify(&me, &first.text, cosig), Ok(NOW));

    // A client that thinks the witness is at 0 learns its size (409).
    assert_eq!(
        refused(w.add_checkpoint(&request(0, note(9, None, &log_key())), NOW)),
        Refused::Conflict { size: 5 }
    );
    // Extending from 5 with a good proof: cosigned.
    w.add_checkpoint(&request(5, note(9, None, &log_key())), NOW + 1)
        .unwrap();
    // The same size and root again: the cosignature given for it is given again (nothing rolled
    // back, nothing written, its time stands).
    let again = w
        .add_checkpoint(&request(9, note(9, None, &log_key())), NOW + 2)
        .unwrap();
    let with = Note::parse(&format!("{}{again}", note(9, None, &log_key()).to_text())).unwrap();
    let cosig = with.signatures.iter().find(|s| me.names(s)).unwrap();
    assert_eq!(cosignature::verify(&me, &with.text, cosig), Ok(NOW + 1));

    // Another root at size 9: a fork (422), kept as evidence with the checkpoint cosigned before.
    let fork = note(9, Some([0xee; 32]), &log_key());
    let r = refused(w.add_checkpoint(&request(9, fork), NOW));
    assert_eq!(r.status(), 422, "{r}");
    // A rewritten history: a tree of 12 whose first 9 leaves differ, proven from the wrong leaves.
    let mut rewritten = leaves(12);
    rewritten[3] = [0; 32];
    let body = {
        let proof = consistency_proof(&mut rewritten.as_slice(), 9, 12).unwrap();
        AddCheckpoint {
            old: 9,
            proof,
            note: note(12, Some(root_of(&rewritten)), &log_key()),
        }
        .to_body()
    };
    let r = refused(w.add_checkpoint(body.as_bytes(), NOW));
    assert_eq!(r.status(), 422, "{r}");
    let evidence = w.refused(ORIGIN).unwrap();
    assert_eq!(evidence.len(), 2, "both refusals kept");
    let kept = std::fs::read_to_string(&evidence[1]).unwrap();
    assert!(kept.starts_with("pitboss witness evidence v1\n"), "{kept}");
    assert!(
        kept.contains(&note(9, None, &log_key()).to_text()),
        "the cosigned checkpoint beside it"
    );

    // State is the latest cosigned, across a reopening (what a restart after kill -9 reads).
    drop(w);
    let w = witness(dir.path());
    let latest = w.latest(ORIGIN).unwrap().expect("state kept");
    assert_eq!(latest.checkpoint.size, 9);
    assert_eq!(latest.checkpoint.root, root_of(&leaves(9)));
    assert_eq!(
        refused(w.add_checkpoint(&request(5, note(12, None, &log_key())), NOW)),
        Refused::Conflict { size: 9 }
    );
    // The clock went back across the restart: the cosignature is dated no earlier than the one
    // kept with the state (size 9's, at NOW + 1).
    let twelve = note(12, None, &log_key());
    let line = w.add_checkpoint(&request(9, twelve.clone()), NOW).unwrap();
    let with = Note::parse(&format!("{}{line}", twelve.to_text())).unwrap();
    let cosig = with.signatures.iter().find(|s| me.names(s)).unwrap();
    assert_eq!(cosignature::verify(&me, &twelve.text, cosig), Ok(NOW + 1));
}

#[test]
fn the_monitoring_api_serves_the_latest_checkpoint_with_the_cosignature_returned() {
    use sha2::Digest;
    let dir = tempfile::tempdir().unwrap();
    let w = witness(dir.path());
    let me = w.vkey();
    let hash = hex::encode(sha2::Sha256::digest(ORIGIN.as_bytes()));
    assert_eq!(w.monitored(&hash, NOW).unwrap(), None, "never cosigned");

    let five = note(5, None, &log_key());
    let line = w.add_checkpoint(&request(0, five.clone()), NOW).unwrap();
    let served = format!("{}{line}", five.to_text());
    assert_eq!(w.monitored(&hash, NOW + 50).unwrap(), Some(served.clone()));
    // The same tree again: the same cosignature answered; the state, and what is served, stay.
    assert_eq!(
        w.add_checkpoint(&request(5, five.clone()), NOW + 3)
            .unwrap(),
        line
    );
    assert_eq!(w.monitored(&hash, NOW + 60).unwrap(), Some(served));
    // A log it does not know.
    assert_eq!(w.monitored(&"0".repeat(64), NOW).unwrap(), None);
    // Across a reopening, the next tree's note replaces it.
    drop(w);
    let w = witness(dir.path());
    let nine = note(9, None, &log_key());
    let line = w
        .add_checkpoint(&request(5, nine.clone()), NOW + 4)
        .unwrap();
    assert_eq!(
        w.monitored(&hash, NOW + 70).unwrap(),
        Some(format!("{}{line}", nine.to_text()))
    );

    // A state kept by an earlier release holds the log's signature alone: it is served with a
    // cosignature made when first asked, and kept.
    drop(w);
    State::open(dir.path())
        .unwrap()
        .replace(ORIGIN, &nine)
        .unwrap();
    let w = witness(dir.path());
    let text = w.monitored(&hash, NOW + 80).unwrap().unwrap();
    // Kept with the state once made: asked again, the same.
    assert_eq!(w.monitored(&hash, NOW + 90).unwrap(), Some(text.clone()));
    let served = Note::parse(&text).unwrap();
    assert_eq!(served.text, nine.text);
    assert_eq!(served.signatures.len(), 2);
    let cosig = served.signatures.iter().find(|s| me.names(s)).unwrap();
    assert_eq!(cosignature::verify(&me, &nine.text, cosig), Ok(NOW + 80));
}

#[test]
fn a_second_witness_on_the_same_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let first = State::open(dir.path()).unwrap();
    let second = State::open(dir.path()).unwrap_err();
    assert!(
        matches!(second, pitboss_witness::state::StateError::InUse { .. }),
        "{second}"
    );
    drop(first);
    State::open(dir.path()).expect("free again once the first is gone");
}

#[test]
fn every_refusal_has_its_status() {
    let dir = tempfile::tempdir().unwrap();
    let w = witness(dir.path());
    // 404: an unknown log.
    let other = note(3, None, &log_key());
    let unknown = other.to_text().replace(ORIGIN, "example.com/other");
    let body = format!("old 0\n\n{unknown}");
    assert_eq!(
        refused(w.add_checkpoint(body.as_bytes(), NOW)).status(),
        404
    );
    // 403: signed by another key; a signature by the log's key that does not verify.
    let stranger = SigningKey::from_bytes(&[7; 32]);
    assert_eq!(
        refused(w.add_checkpoint(&request(0, note(3, None, &stranger)), NOW)).status(),
        403
    );
    let mut forged = note(3, None, &log_key());
    forged.signatures[0].bytes[0] ^= 1;
    assert_eq!(
        refused(w.add_checkpoint(&request(0, forged), NOW)).status(),
        403
    );
    // Another signature beside the log's (a cosignature, say) is ignored.
    let mut cosigned = note(3, None, &log_key());
    cosigned.signatures.push(NoteSignature {
        name: "someone.else/w".into(),
        key_id: [1, 2, 3, 4],
        bytes: vec![0; 72],
    });
    w.add_checkpoint(&request(0, cosigned), NOW).unwrap();
    // 400: an old size beyond the checkpoint's; a body that does not read.
    assert_eq!(
        refused(w.add_checkpoint(&request(0, note(2, None, &log_key())).replace_old(4), NOW))
            .status(),
        400
    );
    assert_eq!(refused(w.add_checkpoint(b"hello", NOW)).status(), 400);
    // 422: a proof from size 0; the empty tree with another root.
    let dir = tempfile::tempdir().unwrap();
    let w = witness(dir.path());
    let mut body = String::from_utf8(request(0, note(4, None, &log_key()))).unwrap();
    body = body.replacen(
        "old 0\n",
        &format!("old 0\n{}\n", STANDARD.encode([1u8; 32])),
        1,
    );
    assert_eq!(
        refused(w.add_checkpoint(body.as_bytes(), NOW)).status(),
        422
    );
    assert_eq!(
        refused(w.add_checkpoint(&request(0, note(0, Some([1; 32]), &log_key())), NOW)).status(),
        422
    );
    // Nothing refused changed the state; a bad clock cosigns nothing.
    assert!(w.latest(ORIGIN).unwrap().is_none());
    assert!(matches!(
        w.add_checkpoint(&request(0, note(4, None, &log_key())), 0),
        Err(WitnessError::Time(0))
    ));
}

trait ReplaceOld {
    fn replace_old(self, old: u64) -> Vec<u8>;
}

impl ReplaceOld for Vec<u8> {
    fn replace_old(self, old: u64) -> Vec<u8> {
        let text = String::from_utf8(self).unwrap();
        let (_, rest) = text.split_once('\n').unwrap();
        format!("old {old}\n{rest}").into_bytes()
    }
}

#[test]
fn a_fork_across_a_key_rotation_is_proven_with_both_keys() {
    use pitboss_witness::evidence::{check, EvidenceError};
    let dir = tempfile::tempdir().unwrap();
    // The log rotated from key 1 to key 4: the witness's policy lists both while it does.
    let rotated = SigningKey::from_bytes(&[4; 32]);
    let rotated_vkey = Vkey {
        name: ORIGIN.into(),
        kind: ED25519,
        key: rotated.verifying_key(),
    };
    let w = Witness::new(
        "witness.test/w1".into(),
        pitboss_ledger::keys::Keypair::from_secret([2; 32]),
        vec![log_vkey(), rotated_vkey.clone()],
        State::open(dir.path()).unwrap(),
    );
    w.add_checkpoint(&request(0, note(9, None, &log_key())), NOW)
        .unwrap();
    // The new key signs another tree of the size the old key's checkpoint was cosigned at.
    let fork = note(9, Some([0xee; 32]), &rotated);
    assert_eq!(
        refused(w.add_checkpoint(&request(9, fork), NOW)).status(),
        422
    );
    let evidence = std::fs::read_to_string(&w.refused(ORIGIN).unwrap()[0]).unwrap();
    // Each checkpoint is signed by one of the keys: both are needed to prove the fork.
    let proven = check(&evidence, &[log_vkey(), rotated_vkey.clone()]).unwrap();
    assert_eq!((proven.origin.as_str(), proven.size), (ORIGIN, 9));
    assert!(matches!(
        check(&evidence, &[log_vkey()]),
        Err(EvidenceError::Unsigned {
            which: "submitted",
            ..
        })
    ));
    assert!(matches!(
        check(&evidence, &[rotated_vkey]),
        Err(EvidenceError::Unsigned {
            which: "cosigned",
            ..
        })
    ));
}

/// The same tree with another text (an extension line) is cosigned over its own text, not
/// answered with the cosignature of the text kept.
#[test]
fn the_same_tree_in_another_text_is_cosigned_over_that_text() {
    let dir = tempfile::tempdir().unwrap();
    let w = witness(dir.path());
    let me = w.vkey();
    w.add_checkpoint(&request(0, note(9, None, &log_key())), NOW)
        .unwrap();
    let mut other = note(9, None, &log_key());
    other.text.push_str("an extension line\n");
    let signature = log_key().sign(other.text.as_bytes()).to_bytes().to_vec();
    other.signatures[0].bytes = signature;
    let line = w
        .add_checkpoint(&request(9, other.clone()), NOW + 1)
        .unwrap();
    let with = Note::parse(&format!("{}{line}", other.to_text())).unwrap();
    let cosig = with.signatures.iter().find(|s| me.names(s)).unwrap();
    assert_eq!(cosignature::verify(&me, &other.text, cosig), Ok(NOW + 1));
}

/// A witness cosigning with both keys answers both lines, each verifying; one with ML-DSA-44 only
/// answers that line alone; `sign-subtree` cosigns a subtree of a checkpoint it cosigned (time
/// zero), and refuses each thing tlog-witness names with its status: a range that is no subtree
/// (400), a checkpoint without its own cosignature (403), an unknown log (404), a proof that does
/// not join the subtree to the checkpoint (422).
#[test]
fn an_ml_dsa_witness_cosigns_checkpoints_and_subtrees() {
    use pitboss_ledger::merkle::subtree_consistency_proof;
    use pitboss_witness::cosigner::CosignerKey;
    use pitboss_witness::request::SignSubtree;
    use pitboss_witness::subtree::MlDsaKey;
    let dir = tempfile::tempdir().unwrap();
    let w = witness(dir.path())
        .with_ml_dsa(MlDsaKey::from_seed([3; 32]), true)
        .unwrap();
    let keys = w.cosigner_keys();
    assert_eq!(keys.len(), 2);
    let CosignerKey::MlDsa44(pq) = &keys[1] else {
        panic!("{keys:?}")
    };
    let first = note(14, None, &log_key());
    let answer = w.add_checkpoint(&request(0, first.clone()), NOW).unwrap();
    assert_eq!(answer.lines().count(), 2, "{answer}");
    let cosigned = Note::parse(&format!("{}{answer}", first.to_text())).unwrap();
    for key in &keys {
        let verified: Vec<u64> = cosigned
            .signatures
            .iter()
            .filter_map(|s| key.verify(&first.text, s).ok())
            .collect();
        assert_eq!(verified, [NOW], "{key}");
    }
    // The same checkpoint again: the same two lines.
    assert_eq!(
        w.add_checkpoint(&request(14, first.clone()), NOW + 5)
            .unwrap(),
        answer
    );

    // A subtree of the cosigned checkpoint, with the witness's own cosignatures only.
    let all = leaves(14);
    let subtree = |start: u64, end: u64, proof: Option<Vec<Hash>>, note: Note| {
        SignSubtree {
            start,
            end,
            hash: root_of(&all[start as usize..(end as usize).min(all.len())]),
            proof: proof.unwrap_or_else(|| {
                subtree_consistency_proof(&mut all.as_slice(), start, end, 14).unwrap()
            }),
            note,
        }
        .to_body()
        .into_bytes()
    };
    let own = Note {
        signatures: cosigned.signatures[1..].to_vec(),
        ..cosigned.clone()
    };
    let line = w.sign_subtree(&subtree(8, 13, None, own.clone())).unwrap();
    let signature = Note::parse(&format!("{}{line}", own.to_text()))
        .unwrap()
        .signatures
        .pop()
        .unwrap();
    let hash = root_of(&all[8..13]);
    assert_eq!(pq.verify(ORIGIN, 8, 13, &hash, &signature), Ok(0));
    assert!(pq.verify(ORIGIN, 8, 12, &hash, &signature).is_err());

    assert_eq!(
        refused(w.sign_subtree(&subtree(8, 14, Some(Vec::new()), own.clone()))).status(),
        422
    );
    assert_eq!(
        refused(w.sign_subtree(&subtree(4, 9, Some(Vec::new()), own.clone()))).status(),
        400
    );
    assert_eq!(
        refused(w.sign_subtree(&subtree(8, 15, Some(Vec::new()), own.clone()))).status(),
        400
    );
    let mut bad = subtree_consistency_proof(&mut all.as_slice(), 8, 13, 14).unwrap();
    bad[0][0] ^= 1;
    assert_eq!(
        refused(w.sign_subtree(&subtree(8, 13, Some(bad), own.clone()))).status(),
        422
    );
    // Signed by the log alone: not a checkpoint this witness cosigned.
    assert_eq!(
        refused(w.sign_subtree(&subtree(8, 13, None, first.clone()))).status(),
        403
    );
    let elsewhere = Note {
        text: first.text.replace(ORIGIN, "other.example/log"),
        ..own.clone()
    };
    assert_eq!(
        refused(w.sign_subtree(&subtree(8, 13, None, elsewhere))).status(),
        404
    );

    // ML-DSA-44 only: one line, and no Ed25519 key offered.
    let only = tempfile::tempdir().unwrap();
    let w = witness(only.path())
        .with_ml_dsa(MlDsaKey::from_seed([3; 32]), false)
        .unwrap();
    assert!(matches!(w.cosigner_keys()[..], [CosignerKey::MlDsa44(_)]));
    let answer = w.add_checkpoint(&request(0, first.clone()), NOW).unwrap();
    assert_eq!(answer.lines().count(), 1);
    let signature = Note::parse(&format!("{}{answer}", first.to_text()))
        .unwrap()
        .signatures
        .pop()
        .unwrap();
    assert_eq!(pq.verify_checkpoint(&first.text, &signature), Ok(NOW));
}

/// A witness that comes back with another set of keys never dates a cosignature before one it
/// gave: an Ed25519-only witness cosigns at NOW; reopened with both keys and a clock gone back,
/// the monitoring API keeps the line add-checkpoint answered and adds the ML-DSA-44 one, dated
/// NOW, not earlier; the next checkpoint is dated NOW or later too.
#[test]
fn a_change_of_keys_never_takes_a_cosignatures_time_back() {
    use pitboss_witness::cosigner::CosignerKey;
    use pitboss_witness::subtree::MlDsaKey;
    use sha2::Digest;
    let dir = tempfile::tempdir().unwrap();
    let first = note(5, None, &log_key());
    let answered = {
        let w = witness(dir.path());
        w.add_checkpoint(&request(0, first.clone()), NOW).unwrap()
    };
    let w = witness(dir.path())
        .with_ml_dsa(MlDsaKey::from_seed([3; 32]), true)
        .unwrap();
    let hash = hex::encode(sha2::Sha256::digest(ORIGIN.as_bytes()));
    let served = w.monitored(&hash, NOW - 100).unwrap().unwrap();
    assert!(served.contains(answered.trim_end()), "{served}");
    let kept = Note::parse(&served).unwrap();
    for key in w.cosigner_keys() {
        let times: Vec<u64> = kept
            .signatures
            .iter()
            .filter_map(|s| key.verify(&kept.text, s).ok())
            .collect();
        assert_eq!(times, [NOW], "{key}");
    }
    let next = w
        .add_checkpoint(&request(5, note(9, None, &log_key())), NOW - 50)
        .unwrap();
    let with = Note::parse(&format!("{}{next}", note(9, None, &log_key()).to_text())).unwrap();
    let CosignerKey::MlDsa44(pq) = &w.cosigner_keys()[1] else {
        panic!()
    };
    assert!(with
        .signatures
        .iter()
        .any(|s| pq.verify_checkpoint(&with.text, s).is_ok_and(|t| t >= NOW)));
}
