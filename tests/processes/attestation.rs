//! The software that runs, against a real `pitboss serve`: the executable's
//! SHA-256 recorded at the start, computed here from the binary's file; the challenge's answer
//! checked by an independent HMAC (Python's `hmac`), and the request recorded; a server whose
//! executable the settings do not approve refuses to start, naming its hash, and starts when they
//! do — or, when the settings say so, serves the log read-only, writing and signing nothing.

use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;
use pitboss::proto::operations_client::OperationsClient;
use pitboss_testkit::clients::log_entries;
use pitboss_testkit::server::Server;
use sha2::{Digest, Sha256};

/// Every `SoftwareAttested` entry the server's log holds, in order.
async fn attested(server: &Server) -> Vec<proto::SoftwareAttested> {
    let mut audit = AuditClient::new(server.channel().await);
    log_entries(&mut audit)
        .await
        .into_iter()
        .filter_map(|event| match event.payload.and_then(|p| p.kind) {
            Some(proto::payload::Kind::SoftwareAttested(a)) => Some(a),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_executable_is_attested_at_start_and_on_a_challenge() {
    let dirs = tempfile::tempdir().unwrap();
    let binary = std::fs::read(pitboss_testkit::binary()).unwrap();
    let sha256 = hex::encode(Sha256::digest(&binary));
    let server = Server::start(&dirs.path().join("log"));
    let start = attested(&server).await;
    assert_eq!(start.len(), 1, "{start:?}");
    assert_eq!(
        (
            start[0].trigger.as_str(),
            start[0].executable_sha256.as_str()
        ),
        ("start", sha256.as_str())
    );
    assert_eq!(start[0].version, env!("CARGO_PKG_VERSION"));
    assert!(start[0].build.starts_with("commit "), "{}", start[0].build);

    // The challenge's answer, checked by Python's hmac over the binary's file.
    let challenge: Vec<u8> = (0..32u8)
        .map(|i| i.wrapping_mul(37).wrapping_add(11))
        .collect();
    let answer = OperationsClient::new(server.channel().await)
        .authenticate_software(proto::AuthenticateSoftwareRequest {
            challenge: challenge.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(answer.executable_sha256, sha256);
    let python = std::process::Command::new(pitboss_testkit::python())
        .args([
            "-c",
            "import hmac, hashlib, sys; print(hmac.new(bytes.fromhex(sys.argv[1]), open(sys.argv[2], 'rb').read(), hashlib.sha256).hexdigest())",
            &hex::encode(&challenge),
            pitboss_testkit::binary().to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(python.status.success());
    assert_eq!(
        hex::encode(&answer.hmac_sha256),
        String::from_utf8_lossy(&python.stdout).trim()
    );
    // The request is recorded, with the challenge's hash (not the challenge).
    let all = attested(&server).await;
    let asked = all.last().expect("the challenge's entry");
    assert_eq!(asked.trigger, "challenge");
    assert_eq!(asked.challenge_sha256, Sha256::digest(&challenge).to_vec());
}

#[test]
fn an_executable_the_settings_do_not_approve_refuses_to_start() {
    let dirs = tempfile::tempdir().unwrap();
    let binary = std::fs::read(pitboss_testkit::binary()).unwrap();
    let sha256 = hex::encode(Sha256::digest(&binary));
    let settings = dirs.path().join("pitboss.toml");
    std::fs::write(
        &settings,
        format!("[software]\napproved = [\"{}\"]\n", "00".repeat(32)),
    )
    .unwrap();
    let data = dirs.path().join("log");
    let said = Server::refuses_with(
        &data,
        &[
            "--listen",
            "127.0.0.1:0",
            "--config",
            settings.to_str().unwrap(),
        ],
    );
    assert!(
        said.contains(&sha256) && said.contains("refusing to start"),
        "{said}"
    );
    assert!(!data.join("signing.key").exists(), "nothing was begun");
    std::fs::write(
        &settings,
        format!(
            "[software]\napproved = [\"{}\", \"{sha256}\"]\n",
            "00".repeat(32)
        ),
    )
    .unwrap();
    let _server = Server::start_with(&data, &["--config", settings.to_str().unwrap()]);
}

/// The log's size as its store holds it (the server stopped).
fn stored_size(data: &std::path::Path) -> u64 {
    use pitboss_ledger::LogStore;
    let store = pitboss_ledger::Store::open_read_only(data).unwrap();
    store.last_entry().unwrap().map_or(0, |(seq, _)| seq + 1)
}

/// Every file under `dir` with its length and its bytes' SHA-256, by path.
fn listing(dir: &std::path::Path) -> std::collections::BTreeMap<String, (u64, String)> {
    let mut out = std::collections::BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                let name = path.strip_prefix(dir).unwrap().display().to_string();
                out.insert(
                    name,
                    (bytes.len() as u64, hex::encode(Sha256::digest(&bytes))),
                );
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn an_executable_not_approved_serves_read_only_when_the_settings_say_so() {
    let dirs = tempfile::tempdir().unwrap();
    let binary = std::fs::read(pitboss_testkit::binary()).unwrap();
    let sha256 = hex::encode(Sha256::digest(&binary));
    let data = dirs.path().join("log");
    // A log with a hand in it, written by an approved server.
    let server = Server::start(&data);
    let mut play = proto::play_client::PlayClient::new(server.channel().await);
    let played = play
        .play_hand(pitboss_testkit::load::advised_hand(
            proto::Game::MississippiStud,
            "t1",
            "p1",
            "ante",
            500,
        ))
        .await
        .expect("played")
        .into_inner()
        .hand
        .expect("a hand");
    assert!(server.stop(), "a clean stop");
    let size = stored_size(&data);
    let before = listing(&data);

    let settings = dirs.path().join("pitboss.toml");
    let write = |unapproved: &str| {
        std::fs::write(
            &settings,
            format!(
                "[software]\napproved = [\"{}\"]\nunapproved = \"{unapproved}\"\n",
                "00".repeat(32)
            ),
        )
        .unwrap()
    };
    write("sometimes");
    let said = Server::refuses_with(&data, &["--config", settings.to_str().unwrap()]);
    assert!(said.contains("software.unapproved"), "{said}");
    write("read-only");
    let server = Server::start_with(&data, &["--config", settings.to_str().unwrap()]);
    // Up, and saying so: a read-only ledger is not a stopped writer.
    let status = tonic_health::pb::health_client::HealthClient::new(server.channel().await)
        .check(tonic_health::pb::HealthCheckRequest {
            service: String::new(),
        })
        .await
        .expect("health")
        .into_inner()
        .status;
    assert_eq!(
        status,
        tonic_health::pb::health_check_response::ServingStatus::Serving as i32
    );
    // The Audit API answers from the log: the hand replays as it was played.
    let mut audit = AuditClient::new(server.channel().await);
    let replayed = audit
        .replay_hand(proto::ReplayHandRequest {
            hand_id: played.hand_id.clone(),
        })
        .await
        .expect("a read is served")
        .into_inner();
    assert!(
        replayed.commitment_ok && replayed.mismatches.is_empty() && replayed.status == "settled",
        "{replayed:?}"
    );
    // Every write is refused, saying why; the log signs nothing either.
    let mut play = proto::play_client::PlayClient::new(server.channel().await);
    let refused = play
        .play_hand(proto::PlayHandRequest::default())
        .await
        .expect_err("no hand is played");
    assert_eq!(refused.code(), tonic::Code::FailedPrecondition);
    assert!(
        refused.message().contains(&sha256) && refused.message().contains("read-only"),
        "{}",
        refused.message()
    );
    let unsigned = audit
        .get_checkpoint(proto::GetCheckpointRequest::default())
        .await
        .expect_err("no checkpoint is signed");
    assert_eq!(unsigned.code(), tonic::Code::FailedPrecondition);
    assert!(server.stop(), "a clean stop");
    assert_eq!(
        listing(&data),
        before,
        "a read-only start and stop wrote nothing in the data directory"
    );
    assert_eq!(stored_size(&data), size, "no attestation, no stop");
}
