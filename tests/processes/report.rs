//! The significant-events report (`docs/significant-events.md`) of a scripted day, through a real
//! server and the `pitboss report events` command: a start, the defaults published, a hand voided
//! in progress, a settled hand's void proposed and rejected, a sweep, a key rotation, a software
//! challenge, a returns alert and its investigation, statements, a clean stop, and a start beyond
//! loopback without TLS — each listed with its time, actors, subject, before and after, reason and
//! sequence, in CSV (read back by the `csv` crate), HTML, and PDF printed by headless Chromium.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;
use pitboss::proto::operations_client::OperationsClient;
use pitboss::proto::play_client::PlayClient;
use pitboss_testkit::server::{Server, ADMIN_TOKEN};

fn caribbean_fold(table: &str) -> proto::PlayHandRequest {
    proto::PlayHandRequest {
        open: Some(proto::OpenHandRequest {
            game: proto::Game::CaribbeanStud as i32,
            table: table.into(),
            player: "p".into(),
            wagers: vec![proto::Wager {
                bet: "ante".into(),
                amount: 500,
            }],
            ..Default::default()
        }),
        decisions: vec![proto::Action {
            kind: "fold".into(),
            ..Default::default()
        }],
        follow_advice: false,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_scripted_day_is_reported_kind_by_kind_as_csv_html_and_pdf() {
    let dirs = tempfile::tempdir().unwrap();
    let data = dirs.path().join("log");
    let settings = dirs.path().join("pitboss.toml");
    std::fs::write(
        &settings,
        "[returns]\ncheck_every_s = 1\nmin_hands = 60\nstatement_every_s = 1\n",
    )
    .unwrap();
    let config = ["--config", settings.to_str().unwrap()];
    let server = Server::start_with(&data, &config);
    let channel = server.channel().await;
    let mut play = PlayClient::new(channel.clone());
    let mut ops = OperationsClient::new(channel.clone());
    let mut audit = AuditClient::new(channel);

    // A hand voided while in progress: the supervisor's void, done at once.
    let open = play
        .open_hand(caribbean_fold("T1").open.unwrap())
        .await
        .unwrap()
        .into_inner()
        .hand
        .unwrap();
    ops.void_hand(proto::VoidHandRequest {
        hand_id: open.hand_id.clone(),
        kind: "malfunction".into(),
        reason: "the shuffler jammed".into(),
        ..Default::default()
    })
    .await
    .unwrap();
    // A settled hand's void: a proposal, then rejected.
    let settled = play
        .play_hand(caribbean_fold("T1"))
        .await
        .unwrap()
        .into_inner()
        .hand
        .unwrap();
    let proposal = ops
        .void_hand(proto::VoidHandRequest {
            hand_id: settled.hand_id.clone(),
            kind: "malfunction".into(),
            reason: "a player's complaint".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .proposal
        .unwrap();
    ops.reject_proposal(proto::RejectProposalRequest {
        proposal_id: proposal.proposal_id.clone(),
        reason: "the cards were dealt as recorded".into(),
    })
    .await
    .unwrap();
    // A sweep, a key rotation, a software challenge.
    ops.run_sweep(proto::RunSweepRequest {
        request_id: "sweep-of-the-day".into(),
        ..Default::default()
    })
    .await
    .unwrap();
    ops.rotate_signing_key(proto::RotateSigningKeyRequest::default())
        .await
        .unwrap();
    ops.authenticate_software(proto::AuthenticateSoftwareRequest {
        challenge: vec![7; 32],
    })
    .await
    .unwrap();
    // A table whose player folds every hand: an alert, then its investigation.
    for _ in 0..100 {
        play.play_hand(caribbean_fold("T-fold")).await.unwrap();
    }
    let started = Instant::now();
    let alert_id = loop {
        let r = audit
            .get_returns(proto::GetReturnsRequest::default())
            .await
            .unwrap()
            .into_inner();
        if let Some(a) = r.alerts.first().and_then(|a| a.alert.as_ref()) {
            break a.alert_id.clone();
        }
        assert!(started.elapsed() < Duration::from_secs(300), "no alert");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    ops.record_investigation(proto::RecordInvestigationRequest {
        alert_id: alert_id.clone(),
        outcome: "explained".into(),
        reason: "a player folding on purpose".into(),
    })
    .await
    .unwrap();
    // A statement (one a second here): waited for by its entry, not by time.
    let started = Instant::now();
    while audit
        .list_significant_events(proto::ListSignificantEventsRequest {
            kinds: vec!["returns_statement".into()],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .events
        .is_empty()
    {
        assert!(started.elapsed() < Duration::from_secs(120), "no statement");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(server.stop(), "a clean stop");

    // Started again beyond loopback without TLS (recorded).
    let port = pitboss_testkit::postgres::free_port();
    let listen = format!("0.0.0.0:{port}");
    let mut args = config.to_vec();
    args.extend(["--listen", &listen, "--insecure-no-tls"]);
    let server = Server::start_with(&data, &args);
    let address = format!("http://127.0.0.1:{port}");
    let token = dirs.path().join("token");
    std::fs::write(&token, ADMIN_TOKEN).unwrap();

    let report = |format: &str, out: &std::path::Path, extra: &[&str]| {
        let ran = std::process::Command::new(pitboss_testkit::binary())
            .args([
                "report", "events", "--from", "0", "--format", format, "--out",
            ])
            .arg(out)
            .args(["--server", &address, "--token-file"])
            .arg(&token)
            .args(extra)
            .output()
            .unwrap();
        assert!(ran.status.success(), "{format}: {ran:?}");
    };
    let csv_file = dirs.path().join("day.csv");
    report("csv", &csv_file, &[]);
    let mut reader = csv::Reader::from_path(&csv_file).unwrap();
    let header = reader.headers().unwrap().clone();
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    let kinds: BTreeSet<String> = rows.iter().map(|r| r[column("kind")].to_string()).collect();
    for kind in [
        "config_published",
        "key_published",
        "access_changed",
        "server_started",
        "hand_voided",
        "proposal_recorded",
        "proposal_decided",
        "operation_recorded",
        "key_rotated",
        "software_attested",
        "returns_alert",
        "returns_investigated",
        "returns_statement",
        "server_stopped",
        "insecure_transport",
    ] {
        assert!(kinds.contains(kind), "{kind} missing from {kinds:?}");
    }
    // In log order, each with its sequence; no hand's own play among them.
    let sequences: Vec<u64> = rows
        .iter()
        .map(|r| r[column("sequence")].parse().unwrap())
        .collect();
    assert!(sequences.windows(2).all(|w| w[0] < w[1]), "{sequences:?}");
    // The void in progress: its hand, who, the amounts before and after, the reason.
    let void = rows
        .iter()
        .find(|r| &r[column("kind")] == "hand_voided")
        .unwrap();
    assert_eq!(&void[column("subject")], format!("hand {}", open.hand_id));
    assert!(void[column("actors")].contains("admin"), "{void:?}");
    assert_eq!(&void[column("reason")], "the shuffler jammed");
    assert!(
        void[column("before")].starts_with("paid ") && void[column("after")].starts_with("paid ")
    );
    let decided = rows
        .iter()
        .find(|r| &r[column("kind")] == "proposal_decided")
        .unwrap();
    assert_eq!(
        (&decided[column("before")], &decided[column("after")]),
        ("pending", "rejected")
    );
    let investigated = rows
        .iter()
        .find(|r| &r[column("kind")] == "returns_investigated")
        .unwrap();
    assert_eq!(
        &investigated[column("subject")],
        format!("alert {alert_id}")
    );
    assert_eq!(&investigated[column("after")], "closed: explained");
    // The stop comes before the second start, and the second start is the last start.
    let last = |kind: &str| {
        rows.iter()
            .rposition(|r| &r[column("kind")] == kind)
            .unwrap()
    };
    assert!(last("server_stopped") < last("server_started"));

    // The RPC itself: a kind filter, and pages of two that add up to the whole.
    let mut audit = AuditClient::new(server.channel_as(Some(ADMIN_TOKEN)).await);
    let only = audit
        .list_significant_events(proto::ListSignificantEventsRequest {
            kinds: vec!["key_rotated".into()],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(only.events.len(), 1);
    assert_eq!(only.events[0].kind, "key_rotated");
    assert_ne!(only.events[0].before, only.events[0].after);
    let mut paged = Vec::new();
    let mut token_at = String::new();
    loop {
        let page = audit
            .list_significant_events(proto::ListSignificantEventsRequest {
                page_size: 2,
                page_token: token_at.clone(),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert!(page.events.len() <= 2);
        paged.extend(page.events.into_iter().map(|e| e.sequence));
        if page.next_page_token.is_empty() {
            break;
        }
        token_at = page.next_page_token;
    }
    assert_eq!(paged, sequences[..paged.len()].to_vec());
    assert!(
        paged.len() >= sequences.len(),
        "the report was read before the last entries"
    );

    // HTML: every kind named; PDF: printed by headless Chromium.
    let html = dirs.path().join("day.html");
    report("html", &html, &[]);
    let page = std::fs::read_to_string(&html).unwrap();
    for kind in &kinds {
        assert!(page.contains(kind.as_str()), "{kind} not on the page");
    }
    let pdf = dirs.path().join("day.pdf");
    report("pdf", &pdf, &[]);
    let bytes = std::fs::read(&pdf).unwrap();
    assert!(bytes.starts_with(b"%PDF-"), "a PDF");
    // A file is never overwritten.
    let again = std::process::Command::new(pitboss_testkit::binary())
        .args(["report", "events", "--format", "csv", "--out"])
        .arg(&csv_file)
        .args(["--server", &address, "--token-file"])
        .arg(&token)
        .output()
        .unwrap();
    assert!(!again.status.success());
}
