//! A regulator's read-only server (`serve --read-only`) on a streaming replica of a PostgreSQL log
//! (`docs/deploy.md`): a primary and a hot standby on loopback, a writing server on the primary
//! with clients playing hands, and read-only servers on the standby.
//!
//! What it must show: `pitboss verify` reads the standby (it creates nothing there); the read-only
//! server answers every acknowledged hand, checkpoint, proof and bundle exactly as the writing
//! server does (Ed25519 is deterministic: the same note, byte for byte), follows the log as it
//! grows, refuses every write with FAILED_PRECONDITION writing nothing, signs nothing without a
//! copy of the log's current key (nor with a key the log rotated away from), and refuses to start
//! on a key file that is not the log's or a database that holds no log.

use std::time::{Duration, Instant};

use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;
use pitboss::proto::operations_client::OperationsClient;
use pitboss::proto::play_client::PlayClient;
use pitboss_client::Authorized;
use pitboss_testkit::load::{self, OnError};
use pitboss_testkit::postgres::Cluster;
use pitboss_testkit::server::Server;
use tonic_types::StatusExt;

/// Clients play on `server` until `calls` more calls are acknowledged; what they acknowledged.
async fn play_on(server: &Server, calls: usize, first_client: usize) -> Vec<load::Acknowledged> {
    let clients = load::Clients::start(
        &server.address,
        first_client..first_client + 4,
        OnError::Stop,
    );
    load::wait_for(&clients.acked, calls)
        .await
        .expect("playing on the primary");
    clients.stop().await
}

/// The log's size in the head row of `cluster`'s database.
fn head_size(cluster: &Cluster) -> u64 {
    cluster
        .sql("SELECT size FROM pitboss_head")
        .parse()
        .expect("a head row")
}

/// Waits until the standby has replayed the primary's head row (a minute at most).
fn caught_up(primary: &Cluster, standby: &Cluster) -> u64 {
    let size = head_size(primary);
    let started = Instant::now();
    while head_size(standby) != size {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the standby did not replay the primary's head in a minute"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    size
}

/// Waits until a server's log holds `size` entries (it follows the head row): until it proves
/// entry `size - 1` in a tree of `size` (OUT_OF_RANGE before; no signature needed).
async fn follows_to(audit: &mut AuditClient<Authorized>, size: u64) {
    let started = Instant::now();
    loop {
        let proof = audit
            .get_inclusion_proof(proto::GetInclusionProofRequest {
                sequence: size - 1,
                tree_size: size,
            })
            .await;
        match proof {
            Ok(_) => return,
            Err(status) => assert_eq!(status.code(), tonic::Code::OutOfRange, "{status:?}"),
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the read-only server did not follow the log to {size} entries"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `status` is FAILED_PRECONDITION of this `kind` (its `PreconditionFailure`'s type).
fn refused(status: tonic::Status, kind: &str) {
    assert_eq!(status.code(), tonic::Code::FailedPrecondition, "{status:?}");
    let names = pitboss_testkit::refusal::names(&status);
    assert!(
        names.iter().any(|n| n == kind),
        "{kind} not in {names:?}: {status:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_read_only_server_on_a_replica_answers_as_the_writer_and_writes_nothing() {
    let primary = Cluster::start();
    let standby = Cluster::standby_of(&primary, "regulator");
    let writer_dir = tempfile::tempdir().unwrap();
    let writer = Server::start_with(writer_dir.path(), &["--store", &primary.url()]);
    let acknowledged = play_on(&writer, 60, 0).await;
    let size = caught_up(&primary, &standby);

    // `pitboss verify` on the hot standby: read-only connections, nothing created there.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(["verify", "--store", &standby.url()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("OK"),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // A read-only server holding a copy of the log's key file.
    let reader_dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        writer_dir.path().join("signing.key"),
        reader_dir.path().join("signing.key"),
    )
    .unwrap();
    let reader = Server::start_with(
        reader_dir.path(),
        &["--store", &standby.url(), "--read-only"],
    );
    let (mut writer_play, mut reader_play) = (
        PlayClient::new(writer.channel().await),
        PlayClient::new(reader.channel().await),
    );
    let (mut writer_audit, mut reader_audit) = (
        AuditClient::new(writer.channel().await),
        AuditClient::new(reader.channel().await),
    );

    // Every acknowledged hand, as the writer answers it.
    let mut hands: Vec<&str> = acknowledged.iter().map(|a| a.hand_id.as_str()).collect();
    hands.sort_unstable();
    hands.dedup();
    for hand in &hands {
        let get = || proto::GetHandRequest {
            hand_id: hand.to_string(),
        };
        let from_writer = writer_play.get_hand(get()).await.unwrap().into_inner();
        let from_reader = reader_play.get_hand(get()).await.unwrap().into_inner();
        assert_eq!(from_reader, from_writer, "{hand}");
    }
    for ack in &acknowledged {
        let hand = reader_play
            .get_hand(proto::GetHandRequest {
                hand_id: ack.hand_id.clone(),
            })
            .await
            .unwrap()
            .into_inner()
            .hand
            .unwrap();
        assert!(hand.version >= ack.version, "{ack:?}: {hand:?}");
    }

    // The same checkpoint, byte for byte; the same proofs and bundle; the whole log verifies.
    let at = |tree_size| proto::GetCheckpointRequest { tree_size };
    let checkpoint = reader_audit.get_checkpoint(at(size)).await.unwrap();
    assert_eq!(
        checkpoint.into_inner(),
        writer_audit
            .get_checkpoint(at(size))
            .await
            .unwrap()
            .into_inner()
    );
    let proof = |sequence| proto::GetInclusionProofRequest {
        sequence,
        tree_size: size,
    };
    for sequence in [0, size / 2, size - 1] {
        assert_eq!(
            reader_audit
                .get_inclusion_proof(proof(sequence))
                .await
                .unwrap()
                .into_inner(),
            writer_audit
                .get_inclusion_proof(proof(sequence))
                .await
                .unwrap()
                .into_inner()
        );
    }
    let bundle = || proto::GetHandBundleRequest {
        hand_id: hands[0].to_string(),
    };
    assert_eq!(
        reader_audit
            .get_hand_bundle(bundle())
            .await
            .unwrap()
            .into_inner(),
        writer_audit
            .get_hand_bundle(bundle())
            .await
            .unwrap()
            .into_inner()
    );
    let verified = reader_audit
        .verify_log(proto::VerifyLogRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(
        verified.ok && verified.head_sequence == Some(size - 1),
        "{verified:?}"
    );

    // Every write refused, naming why, and nothing written anywhere.
    let open = load::open("on-the-replica".into(), 99);
    refused(reader_play.open_hand(open).await.unwrap_err(), "READ_ONLY");
    // Every RPC that may write the log is refused READ_ONLY before its request is looked at
    // (an empty one here), and no other RPC is.
    for rpc in pitboss_testkit::rpcs::every_rpc() {
        let answer = pitboss_testkit::rpcs::call(reader.channel().await, &rpc).await;
        let read_only = answer.as_ref().err().is_some_and(|status| {
            status.code() == tonic::Code::FailedPrecondition
                && status
                    .get_details_precondition_failure()
                    .is_some_and(|f| f.violations.iter().any(|v| v.r#type == "READ_ONLY"))
        });
        assert_eq!(
            read_only,
            pitboss::access::writes_log(&rpc),
            "{rpc}: {answer:?}"
        );
    }
    let mut reader_operations = OperationsClient::new(reader.channel().await);
    refused(
        reader_operations
            .rotate_signing_key(proto::RotateSigningKeyRequest::default())
            .await
            .unwrap_err(),
        "READ_ONLY",
    );
    assert_eq!(head_size(&primary), size);
    assert_eq!(head_size(&standby), size);

    // The log grows on the primary: the read-only server follows it.
    let more = play_on(&writer, 20, 10).await;
    let grown = caught_up(&primary, &standby);
    assert!(grown > size);
    follows_to(&mut reader_audit, grown).await;
    let last = more.last().unwrap();
    let hand = reader_play
        .get_hand(proto::GetHandRequest {
            hand_id: last.hand_id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .hand
        .unwrap();
    assert!(hand.version >= last.version, "{last:?}: {hand:?}");
    // A hand opened on the writer cannot be played on the replica.
    let opened = writer_play
        .open_hand(load::open("for-the-replica".into(), 98))
        .await
        .unwrap()
        .into_inner()
        .hand
        .unwrap();
    let grown = caught_up(&primary, &standby);
    follows_to(&mut reader_audit, grown).await;
    refused(
        reader_play
            .act(load::act("on-the-replica-act".into(), &opened.hand_id))
            .await
            .unwrap_err(),
        "READ_ONLY",
    );
    assert_eq!(head_size(&primary), grown);

    // Without a key file: everything but a signature.
    let keyless_dir = tempfile::tempdir().unwrap();
    let keyless = Server::start_with(
        keyless_dir.path(),
        &["--store", &standby.url(), "--read-only"],
    );
    let mut keyless_audit = AuditClient::new(keyless.channel().await);
    refused(
        keyless_audit.get_checkpoint(at(0)).await.unwrap_err(),
        "NO_SIGNING_KEY",
    );
    assert_eq!(
        keyless_audit
            .get_inclusion_proof(proof(1))
            .await
            .unwrap()
            .into_inner(),
        reader_audit
            .get_inclusion_proof(proof(1))
            .await
            .unwrap()
            .into_inner()
    );
    assert!(!keyless_dir.path().join("signing.key").exists());

    // The writer rotates its key: the read-only server's copy is then not the log's key, and it
    // signs nothing with it; a server started on a key the log never published is refused.
    let mut writer_operations = OperationsClient::new(writer.channel().await);
    writer_operations
        .rotate_signing_key(proto::RotateSigningKeyRequest::default())
        .await
        .unwrap();
    let rotated = caught_up(&primary, &standby);
    follows_to(&mut keyless_audit, rotated).await;
    refused(
        reader_audit.get_checkpoint(at(0)).await.unwrap_err(),
        "KEY_MISMATCH",
    );
    // The retired copy still starts a server (which signs nothing); the new key signs again, the
    // writer's checkpoint byte for byte.
    drop(reader);
    let restarted = Server::start_with(
        reader_dir.path(),
        &["--store", &standby.url(), "--read-only"],
    );
    let mut restarted_audit = AuditClient::new(restarted.channel().await);
    refused(
        restarted_audit.get_checkpoint(at(0)).await.unwrap_err(),
        "KEY_MISMATCH",
    );
    drop(restarted);
    std::fs::copy(
        writer_dir.path().join("signing.key"),
        reader_dir.path().join("signing.key"),
    )
    .unwrap();
    let renewed = Server::start_with(
        reader_dir.path(),
        &["--store", &standby.url(), "--read-only"],
    );
    let mut renewed_audit = AuditClient::new(renewed.channel().await);
    assert_eq!(
        renewed_audit
            .get_checkpoint(at(rotated))
            .await
            .unwrap()
            .into_inner(),
        writer_audit
            .get_checkpoint(at(rotated))
            .await
            .unwrap()
            .into_inner()
    );
    let foreign_dir = tempfile::tempdir().unwrap();
    pitboss_ledger::keys::Keypair::load_or_create(foreign_dir.path()).unwrap();
    let why = Server::refuses_with(
        foreign_dir.path(),
        &[
            "--listen",
            "127.0.0.1:0",
            "--store",
            &standby.url(),
            "--read-only",
        ],
    );
    assert!(why.contains("key file"), "{why}");

    // A database holding no log is refused, and nothing is created in it.
    let empty = primary.create_database();
    let why = Server::refuses_with(
        keyless_dir.path(),
        &["--listen", "127.0.0.1:0", "--store", &empty, "--read-only"],
    );
    assert!(why.contains("holds no pitboss log"), "{why}");
    let name = empty.rsplit('/').next().unwrap();
    assert_eq!(
        primary.sql_in(
            name,
            "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'pitboss%'"
        ),
        "0"
    );
}
