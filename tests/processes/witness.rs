//! Witnesses of a real log, as real processes on loopback: three `pitboss witness`es
//! with a policy naming the log; a live server's checkpoints cosigned as the log grows, with the
//! consistency proofs the server serves; one witness killed with SIGKILL and restarted, its state
//! intact; a client behind the witness answered 409 with the witness's size, and recovering; a
//! forged log (the same key, another tree) refused by every witness, and kept as evidence.
//!
//! The notes are read back by a reader nobody here wrote: the `signed_note` crate checks the
//! log's signature with the log's verifier key (as Go's `sumdb/note` would), and the
//! cosignatures through its `Verifier` trait with the message `tlog-cosignature` specifies,
//! written here from the specification (the crate knows no cosignature).

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ed25519_dalek::Verifier as _;
use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;
use pitboss::proto::play_client::PlayClient;
use pitboss_testkit::server::Server;
use pitboss_testkit::witness::WitnessProcess;
use signed_note::{Note, StandardVerifier, Verifier, VerifierList};
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::HealthCheckRequest;

/// A cosigner's verifier for `signed_note`, from its vkey (`name+id+base64(0x04 ‖ key)`): the
/// message is `cosignature/v1\ntime <t>\n` and the note's text; the signature bytes are the
/// timestamp (8 bytes, big-endian) and the Ed25519 signature.
struct Cosigner {
    name: String,
    id: u32,
    key: ed25519_dalek::VerifyingKey,
}

impl Cosigner {
    fn new(vkey: &str) -> Cosigner {
        let mut parts = vkey.splitn(3, '+');
        let (name, id, key) = (
            parts.next().unwrap(),
            parts.next().unwrap(),
            parts.next().unwrap(),
        );
        let raw = STANDARD.decode(key).unwrap();
        assert_eq!(raw[0], 0x04, "a cosignature/v1 key");
        let id = u32::from_str_radix(id, 16).unwrap();
        assert_eq!(id, signed_note::key_id(name, &raw), "the vkey's id");
        Cosigner {
            name: name.to_string(),
            id,
            key: ed25519_dalek::VerifyingKey::from_bytes(&raw[1..].try_into().unwrap()).unwrap(),
        }
    }
}

impl Verifier for Cosigner {
    fn name(&self) -> &str {
        &self.name
    }
    fn key_id(&self) -> u32 {
        self.id
    }
    fn verify(&self, msg: &[u8], sig: &[u8]) -> bool {
        if sig.len() != 72 {
            return false;
        }
        let time = u64::from_be_bytes(sig[..8].try_into().unwrap());
        let mut signed = format!("cosignature/v1\ntime {time}\n").into_bytes();
        signed.extend_from_slice(msg);
        let signature = ed25519_dalek::Signature::from_bytes(&sig[8..].try_into().unwrap());
        time > 0 && self.key.verify(&signed, &signature).is_ok()
    }
}

async fn checkpoint(audit: &mut AuditClient<pitboss_client::Authorized>) -> proto::Checkpoint {
    audit
        .get_checkpoint(proto::GetCheckpointRequest::default())
        .await
        .unwrap()
        .into_inner()
}

/// An `add-checkpoint` body: the old size, the proof from it, a blank line, the note.
fn body(old: u64, proof: &[Vec<u8>], note: &str) -> String {
    let mut body = format!("old {old}\n");
    for hash in proof {
        body += &format!("{}\n", STANDARD.encode(hash));
    }
    format!("{body}\n{note}")
}

async fn proof(
    audit: &mut AuditClient<pitboss_client::Authorized>,
    first: u64,
    second: u64,
) -> Vec<Vec<u8>> {
    if first == 0 || first == second {
        return Vec::new();
    }
    audit
        .get_consistency_proof(proto::GetConsistencyProofRequest {
            first_size: first,
            second_size: second,
        })
        .await
        .unwrap()
        .into_inner()
        .hashes
}

/// Plays `hands` Nutz hands to their end: the last one's id.
async fn play(play: &mut PlayClient<pitboss_client::Authorized>, hands: usize) -> String {
    let mut last = String::new();
    for _ in 0..hands {
        let answer = play
            .play_hand(pitboss_testkit::load::nutz_hand("T-W", "p", "box_nutz"))
            .await
            .unwrap()
            .into_inner();
        last = answer.hand.expect("the hand").hand_id;
    }
    last
}

#[tokio::test(flavor = "multi_thread")]
async fn three_witnesses_cosign_a_growing_log_survive_a_kill_and_refuse_a_forged_one() {
    let dirs = tempfile::tempdir().unwrap();
    let server = Server::start(&dirs.path().join("log"));
    let channel = server.channel().await;
    let mut audit = AuditClient::new(channel.clone());
    let mut players = PlayClient::new(channel);

    // The log's verifier key, as `pitboss checkpoint` prints it: read by signed_note.
    let first = checkpoint(&mut audit).await;
    let log_key =
        ed25519_dalek::VerifyingKey::from_bytes(&first.public_key.clone().try_into().unwrap())
            .unwrap();
    let log_vkey = pitboss_witness::note::Vkey {
        name: first.origin.clone(),
        kind: pitboss_witness::note::ED25519,
        key: log_key,
    }
    .to_string();
    let log_verifier = StandardVerifier::new(&log_vkey).expect("signed_note reads the log's vkey");
    let policy = dirs.path().join("policy");
    std::fs::write(&policy, format!("# the log\nlog {log_vkey}\nquorum none\n")).unwrap();
    let mut witnesses: Vec<WitnessProcess> = (1..=3)
        .map(|i| {
            WitnessProcess::start(
                &dirs.path().join(format!("w{i}")),
                &format!("witness.test/w{i}"),
                &policy,
            )
        })
        .collect();
    let cosigners = |witnesses: &[WitnessProcess]| -> Vec<Box<dyn Verifier>> {
        witnesses
            .iter()
            .map(|w| Box::new(Cosigner::new(&w.vkey)) as Box<dyn Verifier>)
            .collect()
    };

    // The monitoring API (`GET <prefix>/<SHA-256 of the origin>/checkpoint`): nothing cosigned yet.
    let monitoring = format!(
        "/{}/checkpoint",
        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(
            first.origin.as_bytes()
        ))
    );
    for w in &witnesses {
        assert_eq!(pitboss_testkit::http::get(&w.address, &monitoring).0, 404);
    }

    // The log grows; each witness cosigns each checkpoint from the size it cosigned before.
    let mut cosigned = 0;
    for round in 0..3 {
        play(&mut players, 2 + round).await;
        let now = checkpoint(&mut audit).await;
        let proof = proof(&mut audit, cosigned, now.tree_size).await;
        let mut note = now.note.clone();
        for w in &witnesses {
            let (status, _, line) = w.add_checkpoint(&body(cosigned, &proof, &now.note));
            assert_eq!(status, 200, "round {round}: {line}");
            note.push_str(&line);
        }
        // Every signature verifies, by signed_note: the log's, and the three Ed25519
        // cosignatures; each witness's ML-DSA-44 line (its default: both) is a key signed_note
        // was not given, left unverified.
        let parsed = Note::from_bytes(note.as_bytes()).expect("signed_note reads the note");
        let mut verifiers = cosigners(&witnesses);
        verifiers.push(Box::new(log_verifier.clone()));
        let (verified, unverified) = parsed
            .verify(&VerifierList::new(verifiers))
            .expect("every signature verifies");
        assert_eq!((verified.len(), unverified.len()), (4, 3), "round {round}");
        cosigned = now.tree_size;
    }

    // A witness killed with SIGKILL comes back with its state: a client that thinks it is new
    // is told its size (409, text/x.tlog.size), and cosigning resumes from there.
    witnesses[1].kill_and_restart();
    play(&mut players, 2).await;
    let now = checkpoint(&mut audit).await;
    let (status, content_type, size) = witnesses[1].add_checkpoint(&body(0, &[], &now.note));
    assert_eq!(
        (status, content_type.as_str(), size.as_str()),
        (409, "text/x.tlog.size", format!("{cosigned}\n").as_str())
    );
    let recovered: u64 = size.trim().parse().unwrap();
    let proof_now = proof(&mut audit, recovered, now.tree_size).await;
    for w in &witnesses {
        let (status, _, line) = w.add_checkpoint(&body(recovered, &proof_now, &now.note));
        assert_eq!(status, 200, "{line}");
    }
    cosigned = now.tree_size;

    // A forged log: the log's own key signs another tree of the same size, and a longer tree whose
    // proof cannot reach the cosigned one. Every witness refuses both (422) and keeps them.
    let key = pitboss_ledger::keys::Keypair::load(&server.data).expect("the log's key file");
    let forge = |size: u64, root: [u8; 32]| {
        let text = pitboss_ledger::checkpoint::body(&now.origin, size, &root, &[]);
        let mut sig = pitboss_ledger::checkpoint::key_hash(&now.origin, &key.public()).to_vec();
        sig.extend_from_slice(&key.sign_message(text.as_bytes()));
        format!("{text}\n\u{2014} {} {}\n", now.origin, STANDARD.encode(sig))
    };
    let same_size = forge(cosigned, [0x66; 32]);
    let longer = forge(cosigned + 5, [0x77; 32]);
    for w in &witnesses {
        let (status, _, why) = w.add_checkpoint(&body(cosigned, &[], &same_size));
        assert_eq!(status, 422, "{why}");
        let (status, _, why) = w.add_checkpoint(&body(cosigned, &[vec![0x11; 32]], &longer));
        assert_eq!(status, 422, "{why}");
        // Sent again, the fork is kept once (a file per root).
        assert_eq!(w.add_checkpoint(&body(cosigned, &[], &same_size)).0, 422);
        let read = |kind: &str| -> Vec<String> {
            std::fs::read_dir(w.data.join("state").join(kind))
                .unwrap()
                .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
                .map(|f| std::fs::read_to_string(f.unwrap().path()).unwrap())
                .collect()
        };
        let (forks, refused) = (read("forks"), read("refused"));
        assert_eq!(
            (forks.len(), refused.len()),
            (1, 1),
            "the fork apart from the proof that does not verify"
        );
        assert!(forks[0].contains(&same_size) && forks[0].contains("a fork"));
        // The fork's file proves it offline; the bad proof's proves nothing; an altered file
        // nothing either.
        let files = |kind: &str| -> Vec<std::path::PathBuf> {
            std::fs::read_dir(w.data.join("state").join(kind))
                .unwrap()
                .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
                .map(|f| f.unwrap().path())
                .collect()
        };
        let verify = |file: &std::path::Path| {
            let out = std::process::Command::new(pitboss_testkit::binary())
                .args([
                    "verify-evidence",
                    file.to_str().unwrap(),
                    "--log",
                    &log_vkey,
                ])
                .output()
                .unwrap();
            (
                out.status.success(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
            )
        };
        let (proven, said) = verify(&files("forks")[0]);
        assert!(proven && said.starts_with("FORK PROVEN"), "{said}");
        let (proven, said) = verify(&files("refused")[0]);
        assert!(!proven && said.contains("prove nothing alone"), "{said}");
        let altered = dirs.path().join("altered.txt");
        let root_line = STANDARD.encode([0x66u8; 32]);
        std::fs::write(
            &altered,
            forks[0].replacen(&root_line, &STANDARD.encode([0x67u8; 32]), 1),
        )
        .unwrap();
        let (proven, said) = verify(&altered);
        assert!(!proven && said.contains("not signed"), "{said}");
        assert!(refused[0].contains(&longer));
        assert!(
            forks.iter().chain(&refused).all(|k| k.contains(&now.note)),
            "beside what was cosigned"
        );
    }
    // The forgeries changed nothing: the honest log goes on being cosigned.
    play(&mut players, 1).await;
    let later = checkpoint(&mut audit).await;
    let proof_later = proof(&mut audit, cosigned, later.tree_size).await;
    for w in &witnesses {
        let (status, _, line) = w.add_checkpoint(&body(cosigned, &proof_later, &later.note));
        assert_eq!(status, 200, "{line}");
        // Its monitoring API serves that checkpoint with the log's signature and the very
        // cosignature it returned, read by signed_note; the witness killed before included.
        let (status, _, served) = pitboss_testkit::http::get(&w.address, &monitoring);
        assert_eq!(
            (status, served.as_str()),
            (200, format!("{}{line}", later.note).as_str())
        );
        let parsed = Note::from_bytes(served.as_bytes()).expect("signed_note reads it");
        let verifiers: Vec<Box<dyn Verifier>> = vec![
            Box::new(Cosigner::new(&w.vkey)),
            Box::new(log_verifier.clone()),
        ];
        let (verified, unverified) = parsed
            .verify(&VerifierList::new(verifiers))
            .expect("both signatures verify");
        // The log's and the witness's Ed25519 lines; its ML-DSA-44 line is a key signed_note was
        // not given.
        assert_eq!((verified.len(), unverified.len()), (2, 1));
        assert_eq!(
            pitboss_testkit::http::post(&w.address, &monitoring, b"").0,
            405
        );
    }
    assert_eq!(
        pitboss_testkit::http::get(
            &witnesses[0].address,
            &format!("/{}/checkpoint", "0".repeat(64))
        )
        .0,
        404,
        "a log the witness does not know"
    );

    // What a witness refuses before looking at its state: a log it does not know (404), a note
    // the log did not sign (403), a body that is not a request (400), a wrong path or method.
    let w = &witnesses[0];
    let stranger = later.note.replace(&later.origin, "example.com/another-log");
    assert_eq!(w.add_checkpoint(&body(0, &[], &stranger)).0, 404);
    let unsigned = later.note.replace(
        later.note.lines().last().unwrap(),
        &format!("\u{2014} {} {}", later.origin, STANDARD.encode([0u8; 68])),
    );
    assert_eq!(w.add_checkpoint(&body(0, &[], &unsigned)).0, 403);
    assert_eq!(w.add_checkpoint("old 1\n").0, 400);
    assert_eq!(
        pitboss_testkit::http::post(&w.address, "/elsewhere", b"").0,
        404
    );
}

/// Polls the server's checkpoint until `done` holds (each look a fixed amount of work: one call;
/// a minute without it is a failure, not a wait for speed).
async fn checkpoint_until(
    audit: &mut AuditClient<pitboss_client::Authorized>,
    what: &str,
    done: impl Fn(&proto::Checkpoint) -> bool,
) -> proto::Checkpoint {
    let started = std::time::Instant::now();
    loop {
        let now = checkpoint(audit).await;
        if done(&now) {
            return now;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "{what}: never; last {now:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// The cosignatures of `note` that verify, by witness name (signed_note reading the note).
fn cosigners_of(note: &str, witnesses: &[WitnessProcess], log: &StandardVerifier) -> usize {
    let mut verifiers: Vec<Box<dyn Verifier>> = witnesses
        .iter()
        .map(|w| Box::new(Cosigner::new(&w.vkey)) as Box<dyn Verifier>)
        .collect();
    verifiers.push(Box::new(log.clone()));
    let parsed = Note::from_bytes(note.as_bytes()).expect("signed_note reads the note");
    let (verified, _) = parsed
        .verify(&VerifierList::new(verifiers))
        .expect("every known signature verifies");
    assert!(
        verified.iter().any(|s| s.name() == log.name()),
        "the log's own signature"
    );
    verified.len() - 1
}

/// Begins a log in `data` (a server started and stopped): its verifier key, which names it to the
/// witnesses (the log's key exists once the log has begun).
async fn begun_log(data: &std::path::Path) -> String {
    let server = Server::start(data);
    let mut audit = AuditClient::new(server.channel().await);
    let first = checkpoint(&mut audit).await;
    pitboss_witness::note::Vkey {
        name: first.origin.clone(),
        kind: pitboss_witness::note::ED25519,
        key: ed25519_dalek::VerifyingKey::from_bytes(&first.public_key.try_into().unwrap())
            .unwrap(),
    }
    .to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_keeps_its_checkpoints_cosigned_by_two_of_three_witnesses() {
    let dirs = tempfile::tempdir().unwrap();
    let data = dirs.path().join("log");
    let log_vkey = begun_log(&data).await;
    let log_verifier = StandardVerifier::new(&log_vkey).unwrap();
    // Three witnesses of the log; the log's policy: two of the three.
    let (mut witnesses, log_policy) = pitboss_testkit::witness::three_for(dirs.path(), &log_vkey);
    let tiles = dirs.path().join("tiles");
    let serve_args = [
        "--tiles",
        tiles.to_str().unwrap(),
        "--witness-policy",
        log_policy.to_str().unwrap(),
        "--cosign-every-ms",
        "50",
        "--metrics",
        "127.0.0.1:0",
        "--cosign-warn-behind",
        "0",
    ];
    let server = Server::start_with(&data, &serve_args);
    let metrics = server.metrics.clone().expect("the metrics endpoint");
    let sample = |name: &str| -> Option<u64> {
        let (_, _, text) = pitboss_testkit::http::get(&metrics, "/metrics");
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
    };
    let channel = server.channel().await;
    let mut audit = AuditClient::new(channel.clone());
    let mut players = PlayClient::new(channel.clone());
    let health = HealthClient::new(channel);
    // The health of `service` (`pitboss.witnessing`, or "" for the server), polled until `want`.
    let health_until = |service: &'static str, want: ServingStatus| {
        let mut health = health.clone();
        async move {
            let started = std::time::Instant::now();
            loop {
                let status = health
                    .check(HealthCheckRequest {
                        service: service.into(),
                    })
                    .await
                    .unwrap()
                    .into_inner()
                    .status;
                if status == want as i32 {
                    return;
                }
                assert!(
                    started.elapsed() < std::time::Duration::from_secs(60),
                    "{service:?} never {want:?}"
                );
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        }
    };

    // Under play, the newest checkpoint is cosigned by all three, and reaches the log's size.
    // The quorum (two) is served first and the third cosignature is added when it comes: wait for
    // all three.
    let hand = play(&mut players, 5).await;
    let now = checkpoint_until(&mut audit, "cosigned by all three at the log's size", |c| {
        c.cosigned
            && c.tree_size == c.log_size
            && cosigners_of(&c.note, &witnesses, &log_verifier) == 3
    })
    .await;
    // The tiles publish cosigned checkpoints only: read back by tlog_tiles, their note carries
    // the three cosignatures, verified by signed_note.
    let started = std::time::Instant::now();
    let published = loop {
        match pitboss_testkit::tiles::read(&pitboss_testkit::tiles::Dir(tiles.clone()), &log_vkey) {
            // The quorum (two) is published first; the third cosignature follows it.
            Ok(read)
                if read.size == now.tree_size
                    && cosigners_of(&read.note, &witnesses, &log_verifier) == 3 =>
            {
                break read
            }
            _ => {}
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "no cosigned tiles"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert_eq!(cosigners_of(&published.note, &witnesses, &log_verifier), 3);

    // One witness down: two of three still meet the quorum.
    witnesses[2].kill();
    play(&mut players, 3).await;
    let size = checkpoint(&mut audit).await.log_size;
    let now = checkpoint_until(&mut audit, "cosigned by two", |c| {
        c.cosigned && c.tree_size >= size
    })
    .await;
    assert_eq!(cosigners_of(&now.note, &witnesses, &log_verifier), 2);

    // Two down: the log goes on (every hand acknowledged), the cosigned checkpoint stays where it
    // was and says how far behind it is.
    witnesses[1].kill();
    let held = now.tree_size;
    play(&mut players, 3).await;
    let behind = checkpoint(&mut audit).await;
    assert!(behind.cosigned);
    assert_eq!(
        behind.tree_size, held,
        "no quorum: nothing newer is cosigned"
    );
    assert!(behind.log_size > held, "{behind:?}");
    // The metrics say so: entries behind, and the witnesses that gave no cosignature.
    assert!(
        sample("pitboss_cosigned_behind_entries{log=\"main\"}").is_some_and(|n| n > 0),
        "behind in the metrics"
    );
    // And health: the witnessing service says it is behind; the server itself still serves.
    health_until("pitboss.witnessing", ServingStatus::NotServing).await;
    health_until("", ServingStatus::Serving).await;
    let started = std::time::Instant::now();
    while sample("pitboss_witness_failures_total{witness=\"W2\"}").unwrap_or(0) == 0 {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "W2's failure counted"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }

    // Both back, their state intact: cosigning catches up with the log.
    witnesses[1].restart();
    witnesses[2].restart();
    let size = checkpoint(&mut audit).await.log_size;
    let now = checkpoint_until(&mut audit, "caught up", |c| {
        c.cosigned && c.tree_size >= size
    })
    .await;
    assert!(cosigners_of(&now.note, &witnesses, &log_verifier) >= 2);
    health_until("pitboss.witnessing", ServingStatus::Serving).await;

    // A hand's bundle carries the cosigned checkpoint of its tree: both checkers hold it to the
    // policy (2 of 3 met), and to a stricter one (all three and a fourth that never cosigned: not
    // met), and without a policy both still verify it as before.
    let key = hex::encode(now.public_key.as_slice());
    let bundle = dirs.path().join("hand.bundle.json");
    let json = audit
        .get_hand_bundle(proto::GetHandBundleRequest {
            hand_id: hand.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .bundle_json;
    std::fs::write(&bundle, &json).unwrap();
    let read: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(read["cosigned_checkpoint"].is_string(), "{json}");
    let stricter = dirs.path().join("stricter.policy");
    let fourth = pitboss_witness::note::Vkey {
        name: "witness.test/never".into(),
        kind: pitboss_witness::note::COSIGNATURE_V1,
        key: ed25519_dalek::SigningKey::from_bytes(&[9; 32]).verifying_key(),
    };
    let mut strict = std::fs::read_to_string(&log_policy)
        .unwrap()
        .replace("group two 2 W1 W2 W3\nquorum two\n", "");
    strict += &format!("witness W4 {fourth}\ngroup everyone all W1 W2 W3 W4\nquorum everyone\n");
    std::fs::write(&stricter, strict).unwrap();
    // Policies the language forbids, read the same way by both: W1's key listed twice under two
    // names (one cosignature would count twice), and a threshold of zero.
    let w1 = &witnesses[0];
    let twice = dirs.path().join("twice.policy");
    std::fs::write(
        &twice,
        format!(
            "log {log_vkey}\nwitness A {} {}\nwitness B {}\ngroup G all A B\nquorum G\n",
            w1.vkey,
            w1.url(),
            pitboss_witness::note::Vkey {
                name: "witness.test/copy".into(),
                ..pitboss_witness::note::Vkey::parse(&w1.vkey).unwrap()
            }
        ),
    )
    .unwrap();
    let zero = dirs.path().join("zero.policy");
    std::fs::write(
        &zero,
        format!(
            "log {log_vkey}\nwitness A {}\ngroup G 0 A\nquorum G\n",
            w1.vkey
        ),
    )
    .unwrap();
    for (policy, holds) in [
        (Some(&log_policy), true),
        (Some(&stricter), false),
        (Some(&twice), false),
        (Some(&zero), false),
        (None, true),
    ] {
        let mut ours = std::process::Command::new(pitboss_testkit::binary());
        ours.args(["verify-bundle", bundle.to_str().unwrap(), "--key", &key]);
        let mut python = std::process::Command::new("python3");
        python
            .arg(pitboss_testkit::root().join("fixtures/reference/verify_bundle.py"))
            .arg(&bundle)
            .arg(&key);
        if let Some(policy) = policy {
            ours.arg("--policy").arg(policy);
            python.arg("--policy").arg(policy);
        }
        for (who, out) in [("pitboss", ours.output()), ("python", python.output())] {
            let out = out.unwrap();
            let said = String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                out.status.success(),
                holds,
                "{who} with {policy:?}:\n{said}"
            );
            if policy.is_some() {
                assert_eq!(
                    said.contains("the policy's quorum is met"),
                    holds,
                    "{who} with {policy:?}:\n{said}"
                );
            }
        }
    }

    // The bundle's entries as C2SP tlog-proofs (docs/tlog-proof.md), cosigned by the witnesses:
    // `verify-bundle --tlog-proofs` checks them against the bundle, and two readers nobody here
    // wrote for the format check each one alone — signed_note and tlog_tiles (Cloudflare's azul),
    // and the spec's steps in Python with OpenSSL's Ed25519. One proof altered is refused by all
    // three.
    let parsed: pitboss::audit::bundle::Bundle = serde_json::from_str(&json).unwrap();
    let proofs = dirs.path().join("proofs");
    std::fs::create_dir(&proofs).unwrap();
    let files = pitboss::audit::bundle::tlog_proofs(&parsed);
    assert_eq!(files.len(), parsed.entries.len());
    for f in &files {
        std::fs::write(proofs.join(&f.file), &f.text).unwrap();
    }
    let ours = |extra: &[&str]| {
        let out = std::process::Command::new(pitboss_testkit::binary())
            .args(["verify-bundle", bundle.to_str().unwrap(), "--key", &key])
            .arg("--policy")
            .arg(&log_policy)
            .arg("--tlog-proofs")
            .arg(&proofs)
            .args(extra)
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (holds, said) = ours(&[]);
    assert!(holds, "{said}");
    assert_eq!(
        said.matches("tlog-proof of entry").count(),
        files.len(),
        "{said}"
    );
    let python = |file: &std::path::Path| {
        let mut python = std::process::Command::new(pitboss_testkit::python());
        python
            .arg(pitboss_testkit::root().join("fixtures/reference/verify_tlog_proof.py"))
            .arg(file)
            .args(["--log", &log_vkey, "--quorum", "2"]);
        for w in &witnesses {
            python.args(["--witness", &w.vkey]);
        }
        python.output().unwrap()
    };
    let azul = |text: &str| -> Result<u64, String> {
        // The proof's lines as the spec lays them out, read here; the checkpoint by signed_note
        // and tlog_tiles.
        let (head, note) = text.split_once("\n\n").ok_or("no blank line")?;
        let mut lines = head.lines();
        (lines.next() == Some("c2sp.org/tlog-proof@v1"))
            .then_some(())
            .ok_or("header")?;
        let extra = STANDARD
            .decode(
                lines
                    .next()
                    .and_then(|l| l.strip_prefix("extra "))
                    .ok_or("extra")?,
            )
            .map_err(|e| e.to_string())?;
        let index: u64 = lines
            .next()
            .and_then(|l| l.strip_prefix("index "))
            .and_then(|n| n.parse().ok())
            .ok_or("index")?;
        let proof: tlog_tiles::RecordProof = lines
            .map(|l| {
                let raw: [u8; 32] = STANDARD.decode(l).unwrap().try_into().unwrap();
                tlog_tiles::Hash(raw)
            })
            .collect();
        let mut verifiers: Vec<Box<dyn Verifier>> = witnesses
            .iter()
            .map(|w| Box::new(Cosigner::new(&w.vkey)) as Box<dyn Verifier>)
            .collect();
        verifiers.push(Box::new(log_verifier.clone()));
        let parsed = Note::from_bytes(note.as_bytes()).map_err(|e| e.to_string())?;
        let (verified, _) = parsed
            .verify(&VerifierList::new(verifiers))
            .map_err(|e| e.to_string())?;
        if !verified.iter().any(|s| s.name() == log_verifier.name()) || verified.len() < 3 {
            return Err("not signed by the log and two witnesses".into());
        }
        let checkpoint =
            tlog_tiles::Checkpoint::from_bytes(parsed.text()).map_err(|e| e.to_string())?;
        let entry_hash = {
            use sha2::Digest;
            sha2::Sha256::new()
                .chain_update(b"pitboss.v1.event\0")
                .chain_update(&extra)
                .finalize()
        };
        tlog_tiles::check_record(
            &proof,
            checkpoint.size(),
            *checkpoint.hash(),
            index,
            tlog_tiles::record_hash(&entry_hash),
        )
        .map_err(|e| e.to_string())?;
        Ok(index)
    };
    for (f, entry) in files.iter().zip(&parsed.entries) {
        assert_eq!(azul(&f.text), Ok(entry.sequence), "{}", f.file);
        let out = python(&proofs.join(&f.file));
        assert!(
            out.status.success(),
            "{}: {}",
            f.file,
            String::from_utf8_lossy(&out.stderr)
        );
        let said: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(said["index"], entry.sequence);
        assert!(said["witnesses"].as_array().unwrap().len() >= 2, "{said}");
    }
    // One witness's line twice does not make two witnesses: the Python steps count W1 once.
    let first = &files[0];
    let w1_line = first
        .text
        .lines()
        .find(|l| {
            l.starts_with(&format!(
                "\u{2014} {} ",
                Cosigner::new(&witnesses[0].vkey).name
            ))
        })
        .expect("W1's line")
        .to_string();
    let doubled = proofs.join("doubled.txt");
    std::fs::write(&doubled, format!("{}{w1_line}\n", first.text)).unwrap();
    let only_w1 = std::process::Command::new(pitboss_testkit::python())
        .arg(pitboss_testkit::root().join("fixtures/reference/verify_tlog_proof.py"))
        .arg(&doubled)
        .args([
            "--log",
            &log_vkey,
            "--quorum",
            "2",
            "--witness",
            &witnesses[0].vkey,
        ])
        .output()
        .unwrap();
    assert!(!only_w1.status.success());
    std::fs::remove_file(&doubled).unwrap();
    // One hash of one proof altered: refused by each reader, the file named by ours.
    let altered = &files[files.len() / 2];
    let mut lines: Vec<String> = altered.text.lines().map(str::to_string).collect();
    lines[3] = STANDARD.encode([0x42u8; 32]);
    std::fs::write(proofs.join(&altered.file), lines.join("\n") + "\n").unwrap();
    let tampered = std::fs::read_to_string(proofs.join(&altered.file)).unwrap();
    assert!(azul(&tampered).is_err());
    assert!(!python(&proofs.join(&altered.file)).status.success());
    let (holds, said) = ours(&[]);
    assert!(!holds, "{said}");
    assert!(
        said.contains(&format!(
            "PROBLEM: {}",
            proofs.join(&altered.file).display()
        )),
        "{said}"
    );
    // And one taken away: the entry it proved is named.
    std::fs::remove_file(proofs.join(&altered.file)).unwrap();
    let (holds, said) = ours(&[]);
    assert!(!holds && said.contains("no tlog-proof of it"), "{said}");

    // Every witness down, the server restarted: the cosigned checkpoint kept before is in force
    // again at once (checked against the log and the policy), not lost until the next quorum.
    // The checkpoint compared is the last one the server will keep: all three cosignatures in (a
    // later one would otherwise still be arriving while the witnesses are stopped).
    let kept = checkpoint_until(&mut audit, "cosigned by all three at the log's size", |c| {
        c.cosigned
            && c.tree_size == c.log_size
            && cosigners_of(&c.note, &witnesses, &log_verifier) == 3
    })
    .await;
    for w in &mut witnesses {
        w.kill();
    }
    drop(server);
    let server = Server::start_with(&data, &serve_args);
    let mut audit = AuditClient::new(server.channel().await);
    let again = checkpoint(&mut audit).await;
    assert!(again.cosigned, "{again:?}");
    assert_eq!(
        (again.tree_size, again.root_hash),
        (kept.tree_size, kept.root_hash)
    );
    assert_eq!(
        cosigners_of(&again.note, &witnesses, &log_verifier),
        cosigners_of(&kept.note, &witnesses, &log_verifier)
    );
}

/// A witness that takes the connection and never answers holds back only itself: with a policy of
/// two of three and ten minutes for a witness to answer, the two others cosign each newer
/// checkpoint of a growing log while the third hangs (each witness is followed on its own).
#[tokio::test(flavor = "multi_thread")]
async fn a_witness_that_hangs_holds_back_only_itself() {
    let dirs = tempfile::tempdir().unwrap();
    let data = dirs.path().join("log");
    let log_vkey = begun_log(&data).await;
    let log_verifier = StandardVerifier::new(&log_vkey).unwrap();
    let (witnesses, _) = pitboss_testkit::witness::three_for(dirs.path(), &log_vkey);
    // The third witness of the policy: a listener that takes every connection and never answers.
    let hole = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let hole_address = hole.local_addr().unwrap();
    let (taken_tx, taken) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in hole.incoming().flatten() {
            held.push(stream);
            let _ = taken_tx.send(());
        }
    });
    let hung = pitboss_witness::note::Vkey {
        name: "witness.test/hangs".into(),
        kind: pitboss_witness::note::COSIGNATURE_V1,
        key: ed25519_dalek::SigningKey::from_bytes(&[5; 32]).verifying_key(),
    };
    let policy = dirs.path().join("hangs.policy");
    std::fs::write(
        &policy,
        format!(
            "log {log_vkey}\nwitness W1 {} {}\nwitness W2 {} {}\nwitness W3 {hung} http://{hole_address}\n\
             group two 2 W1 W2 W3\nquorum two\n",
            witnesses[0].vkey,
            witnesses[0].url(),
            witnesses[1].vkey,
            witnesses[1].url(),
        ),
    )
    .unwrap();
    let server = Server::start_with(
        &data,
        &[
            "--witness-policy",
            policy.to_str().unwrap(),
            "--cosign-every-ms",
            "50",
            "--cosign-timeout-ms",
            "600000",
        ],
    );
    let channel = server.channel().await;
    let mut audit = AuditClient::new(channel.clone());
    let mut players = PlayClient::new(channel);

    // The third witness was given a checkpoint and holds the connection, unanswered.
    play(&mut players, 1).await;
    taken
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the hanging witness was submitted to");
    // Three times the log grows, and each time its new size is cosigned by the two others.
    for step in 0..3 {
        play(&mut players, 2).await;
        let size = checkpoint(&mut audit).await.log_size;
        let now = checkpoint_until(&mut audit, "cosigned while a witness hangs", |c| {
            c.cosigned && c.tree_size >= size
        })
        .await;
        assert_eq!(
            cosigners_of(&now.note, &witnesses, &log_verifier),
            2,
            "step {step}"
        );
    }
}

/// The log's entry for the witness network's log lists (`docs/witnessing.md`): `pitboss
/// log-list-entry` prints it once the log's checkpoint meets every rule it makes, and a reader of
/// the list format written from its specification (`fixtures/reference/log_list.py`) holds the
/// checkpoints the server serves as the log grows to that entry; a rate above its `qpd` is refused.
#[tokio::test(flavor = "multi_thread")]
async fn the_logs_entry_for_the_witness_network_holds_its_checkpoints() {
    let dirs = tempfile::tempdir().unwrap();
    let data = dirs.path().join("log");
    let server = Server::start(&data);
    let mut audit = AuditClient::new(server.channel().await);
    let mut player = PlayClient::new(server.channel().await);
    play(&mut player, 2).await;
    let out = std::process::Command::new(pitboss_testkit::binary())
        .args([
            "log-list-entry",
            "--contact",
            "ops (at) casino.example",
            "--cosign-every-ms",
            "60000",
            "--server",
            &server.address,
        ])
        .env("PITBOSS_TOKEN_FILE", data.join("admin.token"))
        .output()
        .unwrap();
    let entry = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{entry}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(entry.starts_with("logs/v0\n"), "{entry}");
    assert!(
        entry.contains("\norigin none\nbastion none\nqpd 2880\n"),
        "{entry}"
    );
    let list = dirs.path().join("staging.list");
    std::fs::write(&list, &entry).unwrap();
    let mut files = Vec::new();
    for i in 0..3 {
        play(&mut player, 3).await;
        let file = dirs.path().join(format!("checkpoint-{i}"));
        std::fs::write(&file, checkpoint(&mut audit).await.note).unwrap();
        files.push(file);
    }
    let reader = |per_day: &str| {
        let mut python = std::process::Command::new(pitboss_testkit::python());
        python
            .arg(pitboss_testkit::root().join("fixtures/reference/log_list.py"))
            .arg(&list)
            .args(["--per-day", per_day]);
        for file in &files {
            python.arg("--checkpoint").arg(file);
        }
        python.output().unwrap()
    };
    let held = reader("2880");
    assert!(
        held.status.success(),
        "{}",
        String::from_utf8_lossy(&held.stderr)
    );
    let said: serde_json::Value = serde_json::from_slice(&held.stdout).unwrap();
    assert_eq!(said["checked"].as_array().unwrap().len(), 3, "{said}");
    let over = reader("2881");
    assert!(!over.status.success());
    assert!(String::from_utf8_lossy(&over.stderr).contains("qpd 2880"));
}

/// Post-quantum witnessing end to end: two `pitboss witness`es cosigning with Ed25519 and ML-DSA-44
/// (the default), a log's policy naming one by its ML-DSA-44 key and the other by its Ed25519 key,
/// both required. The server's checkpoints are cosigned to that quorum; a hand's bundle verifies
/// with the policy by `verify-bundle` and by the Python checker (OpenSSL's ML-DSA-44); its entries'
/// tlog-proofs verify with the ML-DSA-44 witness alone (`verify_tlog_proof.py`); and the witness
/// cosigns a subtree of the checkpoint it cosigned over HTTP (`sign-subtree`), checked by OpenSSL
/// too, and refuses one whose proof does not join (422).
#[tokio::test(flavor = "multi_thread")]
async fn ml_dsa_witnesses_cosign_the_log_and_its_subtrees() {
    let dirs = tempfile::tempdir().unwrap();
    let data = dirs.path().join("log");
    let log_vkey = begun_log(&data).await;
    let known = dirs.path().join("witness.policy");
    std::fs::write(&known, format!("log {log_vkey}\nquorum none\n")).unwrap();
    let witnesses: Vec<WitnessProcess> = (1..=2)
        .map(|i| {
            WitnessProcess::start(
                &dirs.path().join(format!("w{i}")),
                &format!("witness.test/pq{i}"),
                &known,
            )
        })
        .collect();
    let pq = witnesses[0].ml_dsa_vkey.clone().expect("an ML-DSA-44 key");
    assert!(pq.contains("+Bu") || pq.contains("+B"), "type 0x06: {pq}");
    let policy = dirs.path().join("log.policy");
    std::fs::write(
        &policy,
        format!(
            "log {log_vkey}\nwitness PQ {pq} {}\nwitness ED {} {}\ngroup both all PQ ED\nquorum both\n",
            witnesses[0].url(),
            witnesses[1].vkey,
            witnesses[1].url()
        ),
    )
    .unwrap();
    let server = Server::start_with(
        &data,
        &[
            "--witness-policy",
            policy.to_str().unwrap(),
            "--cosign-every-ms",
            "50",
        ],
    );
    let channel = server.channel().await;
    let mut audit = AuditClient::new(channel.clone());
    let mut players = PlayClient::new(channel);
    let hand = play(&mut players, 3).await;
    let cosigned = checkpoint_until(&mut audit, "cosigned at the log's size", |c| {
        c.cosigned && c.tree_size == c.log_size
    })
    .await;
    let key = hex::encode(&cosigned.public_key);

    // The hand's bundle, checked with the policy by ours and by the Python checker.
    let json = audit
        .get_hand_bundle(proto::GetHandBundleRequest { hand_id: hand })
        .await
        .unwrap()
        .into_inner()
        .bundle_json;
    let bundle = dirs.path().join("hand.bundle.json");
    std::fs::write(&bundle, &json).unwrap();
    let ours = std::process::Command::new(pitboss_testkit::binary())
        .args(["verify-bundle", bundle.to_str().unwrap(), "--key", &key])
        .arg("--policy")
        .arg(&policy)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&ours.stdout);
    assert!(ours.status.success(), "{said}");
    assert!(said.contains("cosigned by ED, PQ"), "{said}");
    let python = std::process::Command::new(pitboss_testkit::python())
        .arg(pitboss_testkit::root().join("fixtures/reference/verify_bundle.py"))
        .arg(&bundle)
        .arg(&key)
        .arg("--policy")
        .arg(&policy)
        .output()
        .unwrap();
    assert!(
        python.status.success(),
        "{}{}",
        String::from_utf8_lossy(&python.stdout),
        String::from_utf8_lossy(&python.stderr)
    );
    let parsed: pitboss::audit::bundle::Bundle = serde_json::from_str(&json).unwrap();
    let proof = pitboss::audit::bundle::tlog_proofs(&parsed).remove(0);
    let file = dirs.path().join(&proof.file);
    std::fs::write(&file, &proof.text).unwrap();
    let checked = std::process::Command::new(pitboss_testkit::python())
        .arg(pitboss_testkit::root().join("fixtures/reference/verify_tlog_proof.py"))
        .arg(&file)
        .args(["--log", &log_vkey, "--witness", &pq, "--quorum", "1"])
        .output()
        .unwrap();
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stderr)
    );

    // A subtree [0, half) of the cosigned tree: its hash is that size's root, its proof the
    // consistency proof from it (the draft's subtree proof from 0 is RFC 9162's).
    let size = cosigned.tree_size;
    let half = size.next_power_of_two() / 2;
    let older = audit
        .get_checkpoint(proto::GetCheckpointRequest { tree_size: half })
        .await
        .unwrap()
        .into_inner();
    let proof = audit
        .get_consistency_proof(proto::GetConsistencyProofRequest {
            first_size: half,
            second_size: size,
        })
        .await
        .unwrap()
        .into_inner()
        .hashes;
    let (text, _) = cosigned.note.split_once("\n\n").unwrap();
    let text = format!("{text}\n");
    let own: Vec<&str> = cosigned
        .note
        .lines()
        .filter(|l| l.starts_with("\u{2014} witness.test/pq1 "))
        .collect();
    assert_eq!(own.len(), 1, "the ML-DSA-44 line the policy named");
    let body = |proof: &[Vec<u8>]| {
        let mut body = format!("subtree 0 {half}\n{}\n", STANDARD.encode(&older.root_hash));
        for h in proof {
            body += &format!("{}\n", STANDARD.encode(h));
        }
        body + &format!("\n{text}\n{}\n", own.join("\n"))
    };
    let (status, _, line) = pitboss_testkit::http::post(
        &witnesses[0].address,
        "/sign-subtree",
        body(&proof).as_bytes(),
    );
    assert_eq!(status, 200, "{line}");
    let signature = line.trim_end().rsplit(' ').next().unwrap().to_string();
    let raw = STANDARD.decode(&signature).unwrap();
    assert_eq!(
        &raw[4..12],
        &[0u8; 8],
        "a subtree's cosignature carries time zero"
    );
    let origin = text.lines().next().unwrap();
    let opened = std::process::Command::new(pitboss_testkit::python())
        .args([
            "-c",
            "import base64, sys\n\
             from cryptography.hazmat.primitives.asymmetric import mldsa\n\
             name, kid, key = sys.argv[1].split('+', 2)\n\
             pk = base64.b64decode(key)[1:]\n\
             raw = base64.b64decode(sys.argv[2])\n\
             origin, end, root = sys.argv[3], int(sys.argv[4]), base64.b64decode(sys.argv[5])\n\
             m = b'subtree/v1\\n\\x00' + bytes([len(name)]) + name.encode() + bytes(8) + \
             bytes([len(origin)]) + origin.encode() + bytes(8) + end.to_bytes(8, 'big') + root\n\
             mldsa.MLDSA44PublicKey.from_public_bytes(pk).verify(raw[12:], m)\n\
             print('ok')",
        ])
        .arg(&pq)
        .arg(&signature)
        .arg(origin)
        .arg(half.to_string())
        .arg(STANDARD.encode(&older.root_hash))
        .output()
        .unwrap();
    assert!(
        opened.status.success(),
        "{}",
        String::from_utf8_lossy(&opened.stderr)
    );
    let mut bad = proof.clone();
    if let Some(first) = bad.first_mut() {
        first[0] ^= 1;
        let (status, _, said) = pitboss_testkit::http::post(
            &witnesses[0].address,
            "/sign-subtree",
            body(&bad).as_bytes(),
        );
        assert_eq!(status, 422, "{said}");
    }
}
