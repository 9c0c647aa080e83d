//! A regulator's mirror, as real processes on loopback: a `pitboss mirror` following a
//! live server through a restart of either side, its copy the log's entries byte for byte, its
//! Audit API answering from the copy while the log's server is down (replay, bundles that verify
//! with a policy naming the mirror, proofs), writes refused; its witness door cosigning only what
//! it holds; its tiles read back by outside readers with the mirror's cosignature; and a forged
//! log — the same key, an entry rewritten and the chain re-signed — refused by every one of three
//! witnesses (2 of 3 the quorum) and by the mirror, whose copy stops, each fork kept as evidence
//! `pitboss verify-evidence` proves; and the configurations it lists are the log's, one published
//! after it started among them.

use std::path::Path;
use std::time::{Duration, Instant};

use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;
use pitboss::proto::operations_client::OperationsClient;
use pitboss::proto::play_client::PlayClient;
use pitboss_testkit::mirror::MirrorProcess;
use pitboss_testkit::server::Server;
use pitboss_testkit::witness::WitnessProcess;
use prost::Message;

type Client = pitboss_client::Authorized;

async fn checkpoint(audit: &mut AuditClient<Client>, size: u64) -> proto::Checkpoint {
    audit
        .get_checkpoint(proto::GetCheckpointRequest { tree_size: size })
        .await
        .unwrap()
        .into_inner()
}

/// The log's verifier key, from its server's checkpoint.
fn vkey_of(checkpoint: &proto::Checkpoint) -> String {
    pitboss_witness::note::Vkey {
        name: checkpoint.origin.clone(),
        kind: pitboss_witness::note::ED25519,
        key: ed25519_dalek::VerifyingKey::from_bytes(
            &checkpoint.public_key.clone().try_into().unwrap(),
        )
        .unwrap(),
    }
    .to_string()
}

/// Plays `hands` Nutz hands; the last one's id.
async fn play(server: &Server, hands: usize) -> String {
    let mut play = PlayClient::new(server.channel().await);
    let mut last = String::new();
    for _ in 0..hands {
        last = play
            .play_hand(pitboss_testkit::load::nutz_hand("T-M", "p", "box_nutz"))
            .await
            .unwrap()
            .into_inner()
            .hand
            .expect("the hand")
            .hand_id;
    }
    last
}

/// Every stored entry a server streams, from 0 to `size`.
async fn stored(audit: &mut AuditClient<Client>, size: u64) -> Vec<Vec<u8>> {
    let mut stream = audit
        .stream_events(proto::StreamEventsRequest {
            from_sequence: 0,
            stored_entries: true,
        })
        .await
        .unwrap()
        .into_inner();
    let mut out = Vec::new();
    while (out.len() as u64) < size {
        out.push(
            stream
                .message()
                .await
                .unwrap()
                .expect("an entry")
                .stored_entry,
        );
    }
    out
}

/// Polls the mirror's checkpoint until it holds a tree of `size` (one call a look; a minute
/// without it is a failure).
async fn mirror_holds(mirror: &MirrorProcess, size: u64) -> proto::Checkpoint {
    let mut audit = AuditClient::new(mirror.channel().await);
    let started = Instant::now();
    loop {
        if let Ok(answer) = audit
            .get_checkpoint(proto::GetCheckpointRequest { tree_size: 0 })
            .await
        {
            let answer = answer.into_inner();
            if answer.tree_size >= size && answer.log_size >= size {
                return answer;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the mirror never held {size} entries"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `pitboss verify-bundle` and the Python checker on `json`: whether each passed, and what they
/// said (both must agree).
fn verify_bundle(dir: &Path, json: &str, key: &[u8], policy: Option<&Path>) -> (bool, String) {
    let file = dir.join("bundle.json");
    std::fs::write(&file, json).unwrap();
    let key = hex::encode(key);
    let mut ours = std::process::Command::new(pitboss_testkit::binary());
    ours.args(["verify-bundle", file.to_str().unwrap(), "--key", &key]);
    let mut python = std::process::Command::new(pitboss_testkit::python());
    python
        .arg(pitboss_testkit::root().join("fixtures/reference/verify_bundle.py"))
        .arg(&file)
        .arg(&key);
    if let Some(policy) = policy {
        ours.arg("--policy").arg(policy);
        python.arg("--policy").arg(policy);
    }
    let mut verdicts = Vec::new();
    let mut said = String::new();
    for (who, out) in [("pitboss", ours.output()), ("python", python.output())] {
        let out = out.unwrap();
        verdicts.push(out.status.success());
        said += &format!(
            "{who}:\n{}{}\n",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(verdicts[0], verdicts[1], "the checkers disagree:\n{said}");
    (verdicts[0], said)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_mirror_follows_through_restarts_and_serves_the_log_when_its_server_is_down() {
    let dirs = tempfile::tempdir().unwrap();
    let data = dirs.path().join("log");
    let port = pitboss_testkit::postgres::free_port();
    let listen = format!("127.0.0.1:{port}");
    let mut server = Server::start_with(&data, &["--listen", &listen]);
    play(&server, 5).await;
    let mut audit = AuditClient::new(server.channel().await);
    let first = checkpoint(&mut audit, 0).await;
    let log_vkey = vkey_of(&first);
    let mut mirror = MirrorProcess::start(
        &dirs.path().join("mirror"),
        "regulator.test/mirror",
        &server.address,
        &log_vkey,
    );

    // It catches up, then follows the log as it grows.
    let size = checkpoint(&mut audit, 0).await.log_size;
    mirror_holds(&mirror, size).await;
    play(&server, 3).await;

    // The log's server restarts (SIGKILL, same port): the mirror follows again from its copy's end.
    drop(server.kill());
    server = Server::start_with(&data, &["--listen", &listen]);
    play(&server, 3).await;
    let mut audit = AuditClient::new(server.channel().await);
    let size = checkpoint(&mut audit, 0).await.log_size;
    mirror_holds(&mirror, size).await;

    // The mirror restarts (SIGKILL): it verifies its copy, and follows from its end.
    mirror.kill_and_restart();
    let hand = play(&server, 3).await;
    let size = checkpoint(&mut audit, 0).await.log_size;
    let held = mirror_holds(&mirror, size).await;

    // Its copy is the log's entries, byte for byte; its checkpoint is the log's own, with the
    // mirror's cosignature, and the log's key.
    let mut mirrored = AuditClient::new(mirror.channel().await);
    assert_eq!(
        stored(&mut mirrored, size).await,
        stored(&mut audit, size).await
    );
    assert_eq!(held.public_key, first.public_key);
    let log_note = checkpoint(&mut audit, held.tree_size).await;
    assert_eq!(held.root_hash, log_note.root_hash, "the log's tree");
    let mirror_key = pitboss_witness::note::Vkey::parse(&mirror.vkey).unwrap();
    let note = pitboss_witness::note::Note::parse(&held.note).unwrap();
    assert!(
        note.signatures
            .iter()
            .any(|s| { pitboss_witness::cosignature::verify(&mirror_key, &note.text, s).is_ok() }),
        "the mirror cosigned the tree it holds"
    );

    // The log's server goes down; the mirror answers from its copy.
    drop(server.kill());
    let replay = mirrored
        .replay_hand(proto::ReplayHandRequest {
            hand_id: hand.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(replay.consistent, "{replay:?}");
    let bundle = mirrored
        .get_hand_bundle(proto::GetHandBundleRequest {
            hand_id: hand.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .bundle_json;
    // The hand's stream end is the mirror's statement: it verifies with a policy naming the
    // mirror, and says why not without one.
    let policy = dirs.path().join("regulator.policy");
    std::fs::write(
        &policy,
        format!("log {log_vkey}\nwitness M {}\nquorum none\n", mirror.vkey),
    )
    .unwrap();
    let (ok, said) = verify_bundle(dirs.path(), &bundle, &first.public_key, Some(&policy));
    assert!(ok, "{said}");
    let (ok, said) = verify_bundle(dirs.path(), &bundle, &first.public_key, None);
    assert!(!ok && said.contains("--policy"), "{said}");
    // A statement by another cosigner than the policy's is not accepted.
    let other = pitboss_witness::note::Vkey {
        name: "regulator.test/mirror".into(),
        kind: pitboss_witness::note::COSIGNATURE_V1,
        key: ed25519_dalek::SigningKey::from_bytes(&[9; 32]).verifying_key(),
    };
    std::fs::write(
        &policy,
        format!("log {log_vkey}\nwitness M {other}\nquorum none\n"),
    )
    .unwrap();
    let (ok, said) = verify_bundle(dirs.path(), &bundle, &first.public_key, Some(&policy));
    assert!(
        !ok && said.contains("no witness the policy names"),
        "{said}"
    );
    // The dispute packet is made and checked from the copy too.
    let packet = mirrored
        .get_dispute_packet(proto::GetDisputePacketRequest { hand_id: hand })
        .await
        .unwrap()
        .into_inner();
    assert!(packet.verified);
    // A proof between two of the log's trees, from the copy.
    let proof = mirrored
        .get_consistency_proof(proto::GetConsistencyProofRequest {
            first_size: first.tree_size,
            second_size: held.tree_size,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(pitboss_ledger::merkle::verify_consistency(
        first.tree_size,
        held.tree_size,
        &first.root_hash.clone().try_into().unwrap(),
        &held.root_hash.clone().try_into().unwrap(),
        &proof
            .hashes
            .iter()
            .map(|h| h.clone().try_into().unwrap())
            .collect::<Vec<_>>(),
    ));
    // Nothing is written through a mirror.
    let refused = PlayClient::new(mirror.channel().await)
        .play_hand(pitboss_testkit::load::nutz_hand("T-M", "p", "box_nutz"))
        .await
        .unwrap_err();
    assert_eq!(
        refused.code(),
        tonic::Code::FailedPrecondition,
        "{refused:?}"
    );

    // Its witness door cosigns only what the copy holds: the held tree again (200, a cosignature
    // that verifies with the mirror's key), not a tree it does not hold yet (503, after waiting
    // for the copy to reach it: the log's server is down).
    let key = pitboss_ledger::keys::Keypair::load(&data).expect("the log's key file");
    let sign = |size: u64, root: [u8; 32]| {
        let text = pitboss_ledger::checkpoint::body(&first.origin, size, &root, &[]);
        let mut sig = pitboss_ledger::checkpoint::key_hash(&first.origin, &key.public()).to_vec();
        sig.extend_from_slice(&key.sign_message(text.as_bytes()));
        format!(
            "{text}\n\u{2014} {} {}\n",
            first.origin,
            base64::Engine::encode(&base64::engine::general_purpose::STANDARD, sig)
        )
    };
    let held_root: [u8; 32] = held.root_hash.clone().try_into().unwrap();
    let door = |note: &str| {
        pitboss_testkit::http::post(
            &mirror.witness,
            "/add-checkpoint",
            format!("old {}\n\n{note}", held.tree_size).as_bytes(),
        )
    };
    let (status, _, line) = door(&sign(held.tree_size, held_root));
    assert_eq!(status, 200, "{line}");
    let cosigned =
        pitboss_witness::note::Note::parse(&format!("{}{line}", sign(held.tree_size, held_root)))
            .unwrap();
    assert!(cosigned
        .signatures
        .iter()
        .any(|s| { pitboss_witness::cosignature::verify(&mirror_key, &cosigned.text, s).is_ok() }));
    assert_eq!(door(&sign(held.tree_size + 5, [7; 32])).0, 503);
    // Another root the log signed at the size the mirror cosigned is a fork: refused, kept by the
    // mirror's witness as evidence that proves it, and the copy stops following.
    assert_eq!(door(&sign(held.tree_size, [7; 32])).0, 422);
    let forks: Vec<_> = std::fs::read_dir(mirror.data.join("witness/state/forks"))
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
        .map(|f| f.unwrap().path())
        .collect();
    assert_eq!(forks.len(), 1);
    assert!(verify_evidence(&forks[0], &log_vkey));

    // Its tiles, read by outside readers: every entry the copy's, the note cosigned by the mirror.
    let tiles = pitboss_testkit::tiles::read(
        &pitboss_testkit::tiles::Http(mirror.tiles.clone()),
        &log_vkey,
    );
    let tiles = tiles.expect("the mirror's tiles");
    assert!(tiles.size >= first.tree_size);
    let tiles_note = pitboss_witness::note::Note::parse(&tiles.note).unwrap();
    assert!(tiles_note
        .signatures
        .iter()
        .any(|s| pitboss_witness::cosignature::verify(&mirror_key, &tiles_note.text, s).is_ok()));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_forged_log_is_refused_by_every_witness_and_stops_the_mirror_with_evidence() {
    let dirs = tempfile::tempdir().unwrap();
    let data = dirs.path().join("log");
    let port = pitboss_testkit::postgres::free_port();
    let listen = format!("127.0.0.1:{port}");
    // The log begins; three witnesses know it; its server submits to them, two of three a quorum.
    let log_vkey = {
        let server = Server::start_with(&data, &["--listen", &listen]);
        let mut audit = AuditClient::new(server.channel().await);
        vkey_of(&checkpoint(&mut audit, 0).await)
    };
    let (witnesses, policy_file) = pitboss_testkit::witness::three_for(dirs.path(), &log_vkey);
    let args = [
        "--listen",
        &listen,
        "--witness-policy",
        policy_file.to_str().unwrap(),
        "--cosign-every-ms",
        "50",
    ];
    let server = Server::start_with(&data, &args);
    play(&server, 6).await;
    let mut audit = AuditClient::new(server.channel().await);
    let started = Instant::now();
    let honest = loop {
        let now = checkpoint(&mut audit, 0).await;
        if now.cosigned && now.tree_size == now.log_size {
            break now;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "never cosigned"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let mirror = MirrorProcess::start(
        &dirs.path().join("mirror"),
        "regulator.test/mirror",
        &server.address,
        &log_vkey,
    );
    let held = mirror_holds(&mirror, honest.log_size).await;
    assert_eq!(held.root_hash, honest.root_hash);
    assert!(
        held.cosigned,
        "the mirror holds the witnesses' cosigned tree"
    );

    // The operator rewrites an old entry with the log's own key and serves the forged history.
    drop(server.kill());
    pitboss_testkit::forge::rewrite(&data, honest.log_size / 2, |envelope| {
        envelope.actor = "forger".into()
    });
    let server = Server::start_with(&data, &args);
    let mut audit = AuditClient::new(server.channel().await);
    let forged = checkpoint(&mut audit, honest.log_size).await;
    assert_ne!(
        forged.root_hash, honest.root_hash,
        "another tree, same size"
    );
    play(&server, 2).await;

    // Every witness refuses the forged log's checkpoints (their consistency proofs do not reach
    // the tree they cosigned) and keeps them; the forged log gets no cosigned checkpoint.
    let refused = |w: &WitnessProcess| {
        std::fs::read_dir(w.data.join("state/refused"))
            .into_iter()
            .flatten()
            .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
            .count()
    };
    let started = Instant::now();
    while witnesses.iter().any(|w| refused(w) == 0) {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "not refused by every witness"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        !checkpoint(&mut audit, 0).await.cosigned,
        "no quorum for the forged log"
    );
    // Shown the forged log's own checkpoint of the size they cosigned, each keeps the fork.
    for w in &witnesses {
        let body = format!("old {}\n\n{}", honest.tree_size, forged.note);
        let (status, _, why) = w.add_checkpoint(&body);
        assert_eq!(status, 422, "{why}");
        let forks: Vec<_> = std::fs::read_dir(w.data.join("state/forks"))
            .unwrap()
            .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
            .map(|f| f.unwrap().path())
            .collect();
        assert_eq!(forks.len(), 1);
        assert!(
            verify_evidence(&forks[0], &log_vkey),
            "{}",
            forks[0].display()
        );
    }

    // The mirror refuses it: its copy stops where the honest log ended, its health says so, and
    // its witness keeps both signed trees as the evidence.
    let mut health = tonic_health::pb::health_client::HealthClient::new(mirror.channel().await);
    let started = Instant::now();
    loop {
        let status = health
            .check(tonic_health::pb::HealthCheckRequest {
                service: "pitboss.mirror".into(),
            })
            .await
            .unwrap()
            .into_inner()
            .status;
        if status == tonic_health::pb::health_check_response::ServingStatus::NotServing as i32 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the mirror never stopped"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut mirrored = AuditClient::new(mirror.channel().await);
    let still = checkpoint(&mut mirrored, 0).await;
    assert_eq!(
        (still.log_size, still.root_hash.clone()),
        (honest.log_size, honest.root_hash.clone()),
        "the copy holds the honest log, nothing of the forged one"
    );
    let forks = mirror.data.join("witness/state/forks");
    let started = Instant::now();
    let evidence = loop {
        let found: Vec<_> = std::fs::read_dir(&forks)
            .into_iter()
            .flatten()
            .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
            .map(|f| f.unwrap().path())
            .collect();
        if let Some(file) = found.first() {
            break file.clone();
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no evidence kept"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(
        verify_evidence(&evidence, &log_vkey),
        "{}",
        evidence.display()
    );
    // The regulator checks the copy offline as any log: every entry, and the log's checkpoint it
    // holds against the copy's tree (a mirror has no anchor or key of its own).
    let out = std::process::Command::new(pitboss_testkit::binary())
        .args(["verify", "--data", mirror.data.to_str().unwrap()])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("mirror: a copy of log"), "{said}");
    assert!(
        said.contains(&format!(
            "the log's first {} entries have the checkpoint's Merkle root",
            honest.log_size
        )),
        "{said}"
    );
}

/// The log rotates its signing key while a mirror follows it: the copy verifies the rotation (the
/// new key published by an entry the old key signed), and the mirror's witness then knows the log
/// by the new key as well, so the mirror holds and cosigns the checkpoints the new key signs, and
/// its witness door cosigns them, with no restart and no new `--log`.
#[tokio::test(flavor = "multi_thread")]
async fn a_mirror_cosigns_the_logs_checkpoints_after_the_log_rotates_its_key() {
    let dirs = tempfile::tempdir().unwrap();
    let server = Server::start(&dirs.path().join("log"));
    play(&server, 3).await;
    let mut audit = AuditClient::new(server.channel().await);
    let first = checkpoint(&mut audit, 0).await;
    let mirror = MirrorProcess::start(
        &dirs.path().join("mirror"),
        "regulator.test/mirror",
        &server.address,
        &vkey_of(&first),
    );
    mirror_holds(&mirror, first.log_size).await;

    let rotated = OperationsClient::new(server.channel().await)
        .rotate_signing_key(proto::RotateSigningKeyRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert_ne!(rotated.old_key_id, rotated.new_key_id);
    play(&server, 3).await;
    let after = checkpoint(&mut audit, 0).await;
    assert_ne!(
        after.public_key, first.public_key,
        "the log signs with its new key"
    );

    // The mirror holds the log's tree signed by the new key, and cosigns it.
    let held = mirror_holds(&mirror, after.log_size).await;
    assert_eq!(held.public_key, after.public_key);
    let new_key =
        ed25519_dalek::VerifyingKey::from_bytes(&after.public_key.clone().try_into().unwrap())
            .unwrap();
    let parsed = pitboss_ledger::checkpoint::Checkpoint::parse(&held.note).unwrap();
    assert!(parsed.verify(&new_key).is_ok(), "{}", held.note);
    let mirror_key = pitboss_witness::note::Vkey::parse(&mirror.vkey).unwrap();
    let cosigned = |note: &str| {
        let note = pitboss_witness::note::Note::parse(note).unwrap();
        note.signatures
            .iter()
            .any(|s| pitboss_witness::cosignature::verify(&mirror_key, &note.text, s).is_ok())
    };
    assert!(
        cosigned(&held.note),
        "the mirror's cosignature: {}",
        held.note
    );

    // Its witness door knows the new key too: the held tree, as the log signed it, is cosigned.
    let mut signed_by_log = pitboss_witness::note::Note::parse(&held.note).unwrap();
    signed_by_log.signatures.retain(|s| {
        pitboss_witness::cosignature::verify(&mirror_key, &signed_by_log.text, s).is_err()
    });
    let signed_by_log = signed_by_log.to_text();
    assert!(!cosigned(&signed_by_log));
    let (status, _, line) = pitboss_testkit::http::post(
        &mirror.witness,
        "/add-checkpoint",
        format!("old {}\n\n{signed_by_log}", held.tree_size).as_bytes(),
    );
    assert_eq!(status, 200, "{line}");
    assert!(cosigned(&format!("{signed_by_log}{line}")), "{line}");

    // A mirror given another key than the log's with `--log` (the origin right) copies the log,
    // but learns none of its keys: its witness door refuses the log's checkpoint (403).
    let stranger = pitboss_witness::note::Vkey {
        name: first.origin.clone(),
        kind: pitboss_witness::note::ED25519,
        key: ed25519_dalek::SigningKey::from_bytes(&[3; 32]).verifying_key(),
    };
    let misled = MirrorProcess::start(
        &dirs.path().join("misled"),
        "regulator.test/misled",
        &server.address,
        &stranger.to_string(),
    );
    let started = Instant::now();
    let (status, _, why) = loop {
        // 503 while its copy has not reached the tree yet.
        let answer = pitboss_testkit::http::post(
            &misled.witness,
            "/add-checkpoint",
            format!("old 0\n\n{signed_by_log}").as_bytes(),
        );
        if answer.0 != 503 {
            break answer;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "{answer:?}");
    };
    assert_eq!(status, 403, "{why}");
}

/// Whether `pitboss verify-evidence` proves a fork from `file` with the log's verifier key.
fn verify_evidence(file: &Path, log_vkey: &str) -> bool {
    let out = std::process::Command::new(pitboss_testkit::binary())
        .args(["verify-evidence", file.to_str().unwrap(), "--log", log_vkey])
        .output()
        .unwrap();
    out.status.success() && String::from_utf8_lossy(&out.stdout).starts_with("FORK PROVEN")
}

/// The mirror's copy at the ledger: entries held for their seal are offered again after a
/// reconnection (from the copy's end) and taken; an entry whose bytes were altered stops the copy
/// for good; a copy opened for another log, and `serve` on a mirror's directory, are refused.
#[tokio::test(flavor = "multi_thread")]
async fn the_copy_takes_a_run_offered_again_and_stops_at_an_altered_entry() {
    use pitboss_ledger::mirror::Mirrored;
    use pitboss_ledger::{AppendRequest, Expected, Ledger, LedgerError};
    let dirs = tempfile::tempdir().unwrap();
    let source = Ledger::open(&dirs.path().join("log"), 0).unwrap();
    let payload = |n: u64| {
        proto::Payload {
            kind: Some(proto::payload::Kind::ConfigPublished(
                proto::ConfigPublished {
                    config_id: vec![7; 32],
                    canonical_json: format!("{{\"n\":{n}}}").into_bytes(),
                },
            )),
        }
        .encode_to_vec()
    };
    // One group of five: only its last entry is signed.
    source
        .append(AppendRequest::entries(
            "s/1".into(),
            Expected::Any,
            (0..5).map(payload).collect(),
            1,
            "test",
        ))
        .await
        .unwrap();
    let stored = source.stored_entries(0, 6).unwrap();
    assert!(pitboss_ledger::Entry::decode(&stored[2].1)
        .unwrap()
        .signature
        .is_none());
    let offered = |range: std::ops::Range<usize>| -> Vec<Mirrored> {
        stored[range]
            .iter()
            .map(|(sequence, bytes)| Mirrored {
                sequence: *sequence,
                stored: bytes.clone(),
                indexes: Vec::new(),
            })
            .collect()
    };
    let origin = source.origin().unwrap();
    let copy = Ledger::open_mirror(&dirs.path().join("copy"), &origin, None).unwrap();
    let state = copy.mirror(offered(0..3)).await.unwrap();
    assert_eq!(
        (state.size, state.held),
        (1, 2),
        "two entries wait for their seal"
    );
    // Reconnected: offered again from the copy's end, the run is taken whole.
    let state = copy.mirror(offered(1..6)).await.unwrap();
    assert_eq!((state.size, state.held), (6, 0));
    assert_eq!(copy.stored_entries(0, 6).unwrap(), stored);
    drop(copy);

    // Another log's name on this copy is refused; so is `serve` on it.
    assert!(matches!(
        Ledger::open_mirror(&dirs.path().join("copy"), "example.com/other", None),
        Err(pitboss_ledger::OpenError::Ledger(
            LedgerError::MirrorOfAnotherLog { .. }
        ))
    ));
    let refused = pitboss_testkit::server::Server::refuses(&dirs.path().join("copy"));
    assert!(refused.contains("pitboss mirror"), "{refused}");

    // An altered entry is not taken, and nothing after it either.
    source
        .append(AppendRequest::entries(
            "s/1".into(),
            Expected::Any,
            vec![payload(9)],
            2,
            "test",
        ))
        .await
        .unwrap();
    let next = source.stored_entries(6, 1).unwrap();
    let mut altered = next[0].1.clone();
    let at = altered.len() / 2;
    altered[at] ^= 1;
    let copy = Ledger::open_mirror(&dirs.path().join("copy"), &origin, None).unwrap();
    let refused = copy
        .mirror(vec![Mirrored {
            sequence: 6,
            stored: altered,
            indexes: Vec::new(),
        }])
        .await;
    assert!(
        matches!(refused, Err(LedgerError::NotTheLog(_))),
        "{refused:?}"
    );
    let again = copy
        .mirror(vec![Mirrored {
            sequence: 6,
            stored: next[0].1.clone(),
            indexes: Vec::new(),
        }])
        .await;
    assert!(again.is_err(), "the copy stopped at the altered entry");
    assert_eq!(copy.size(), 6);
}

/// A regulator's mirror lists the configurations in play as the log holds them: one published
/// after the mirror started is on its `ListConfigs` once the copy holds it (uncertified), beside
/// the defaults.
#[tokio::test(flavor = "multi_thread")]
async fn a_mirror_lists_a_configuration_published_after_it_started() {
    let dirs = tempfile::tempdir().unwrap();
    let server = Server::start(&dirs.path().join("log"));
    let mut audit = AuditClient::new(server.channel().await);
    let log_vkey = vkey_of(&checkpoint(&mut audit, 0).await);
    let mirror = MirrorProcess::start(
        &dirs.path().join("mirror"),
        "regulator.test/mirror",
        &server.address,
        &log_vkey,
    );
    mirror_holds(&mirror, checkpoint(&mut audit, 0).await.log_size).await;

    let id = server
        .publish_nutz("nutz, published after the mirror started")
        .await;
    mirror_holds(&mirror, checkpoint(&mut audit, 0).await.log_size).await;

    let listed = OperationsClient::new(mirror.channel().await)
        .list_configs(proto::ListConfigsRequest {
            uncertified_only: true,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .configs;
    assert_eq!(
        listed.len(),
        5,
        "the four defaults and the new one: {listed:?}"
    );
    assert!(
        listed
            .iter()
            .any(|c| c.config_id == id && c.certification.is_none()),
        "{listed:?}"
    );
}
