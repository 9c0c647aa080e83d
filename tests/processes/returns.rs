//! The floor's returns against the theoretical (`docs/returns.md`), through a real server: the
//! totals equal what a client that played the hands adds up from their settlements; a table whose
//! play drifts far from what the theory assumes (a player who folds every hand) leaves its band
//! and opens an alert, recorded in the log, that a supervisor's investigation closes once; the
//! gauges say so; every signed statement is recomputed by `pitboss verify`, and one altered in a
//! copy (re-signed, so that only its content can tell) fails it.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;
use pitboss::proto::operations_client::OperationsClient;
use pitboss::proto::play_client::PlayClient;
use pitboss_engine::config::{GameConfig, Rules};
use pitboss_engine::game::GameId;
use pitboss_testkit::server::Server;
use prost::Message;

/// The bet group of a settlement line, written out here as `docs/returns.md` states it (not taken
/// from the server's code).
fn group(bet: &str) -> String {
    match bet {
        "ante" | "raise" | "street_3" | "street_4" | "street_5" => "main".into(),
        other => other.into(),
    }
}

/// (table, bet group) → (hands, staked, paid), from the settlements a client was shown.
type Totals = BTreeMap<(String, String), (u64, u64, u64)>;

fn add(totals: &mut Totals, table: &str, hand: &proto::HandView) {
    let settled = hand.settlement.as_ref().expect("a settled hand");
    let mut groups: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for line in &settled.lines {
        let g = groups.entry(group(&line.bet)).or_default();
        g.0 += line.stake;
        g.1 += line.payout;
    }
    for (name, (staked, paid)) in groups {
        let t = totals.entry((table.to_string(), name)).or_default();
        t.0 += 1;
        t.1 += staked;
        t.2 += paid;
    }
}

fn caribbean(table: &str, ante: u64, bonus: u64, fold: bool) -> proto::PlayHandRequest {
    let mut wagers = vec![proto::Wager {
        bet: "ante".into(),
        amount: ante,
    }];
    if bonus > 0 {
        wagers.push(proto::Wager {
            bet: "bonus".into(),
            amount: bonus,
        });
    }
    proto::PlayHandRequest {
        open: Some(proto::OpenHandRequest {
            game: proto::Game::CaribbeanStud as i32,
            table: table.into(),
            player: "p".into(),
            wagers,
            ..Default::default()
        }),
        decisions: if fold {
            vec![proto::Action {
                kind: "fold".into(),
                ..Default::default()
            }]
        } else {
            Vec::new()
        },
        follow_advice: !fold,
    }
}

async fn returns(audit: &mut AuditClient<pitboss_client::Authorized>) -> proto::GetReturnsResponse {
    audit
        .get_returns(proto::GetReturnsRequest::default())
        .await
        .unwrap()
        .into_inner()
}

#[tokio::test(flavor = "multi_thread")]
async fn returns_add_up_drift_opens_an_alert_and_statements_are_recomputed() {
    let dirs = tempfile::tempdir().unwrap();
    let data = dirs.path().join("log");
    let settings = dirs.path().join("pitboss.toml");
    std::fs::write(
        &settings,
        "[returns]\ncheck_every_s = 1\nmin_hands = 60\nstatement_every_s = 1\n",
    )
    .unwrap();
    let server = Server::start_with(
        &data,
        &[
            "--config",
            settings.to_str().unwrap(),
            "--metrics",
            "127.0.0.1:0",
        ],
    );
    let channel = server.channel().await;
    let mut play = PlayClient::new(channel.clone());
    let mut audit = AuditClient::new(channel.clone());
    let mut ops = OperationsClient::new(channel);

    let Rules::CaribbeanStud(rules) = GameConfig::default_for(GameId::CaribbeanStud).rules else {
        unreachable!()
    };
    let (ante, bonus) = (rules.ante.min.0, rules.bonus_stake.0);
    let mut client = Totals::new();
    // An honest table: the strategy's advice, with the bonus on every other hand; Nutz boxes.
    for i in 0..40 {
        let hand = play
            .play_hand(caribbean(
                "honest",
                ante,
                if i % 2 == 0 { bonus } else { 0 },
                false,
            ))
            .await
            .unwrap()
            .into_inner()
            .hand
            .unwrap();
        add(&mut client, "honest", &hand);
    }
    for _ in 0..30 {
        let hand = play
            .play_hand(pitboss_testkit::load::nutz_hand(
                "dice",
                "p",
                "box_one_pair",
            ))
            .await
            .unwrap()
            .into_inner()
            .hand
            .unwrap();
        add(&mut client, "dice", &hand);
    }
    // A table whose player folds every hand: the main bet returns nothing, against a theory of
    // about 97 % with a standard deviation of 2.24 antes: 100 hands put it some 4.3 deviations out.
    for _ in 0..100 {
        let hand = play
            .play_hand(caribbean("folding", ante, 0, true))
            .await
            .unwrap()
            .into_inner()
            .hand
            .unwrap();
        add(&mut client, "folding", &hand);
    }

    // The server reads its log to the end, computes the theory, and opens the alert.
    let played = audit
        .get_checkpoint(proto::GetCheckpointRequest::default())
        .await
        .unwrap()
        .into_inner()
        .tree_size;
    let started = Instant::now();
    let answer = loop {
        let r = returns(&mut audit).await;
        let theory_known = r.rows.iter().all(|row| row.theoretical.is_some());
        // The lifetime window's alert (its rows are read in the same instant as the alerts).
        let alerted = r.alerts.iter().any(|a| {
            a.alert.as_ref().is_some_and(|a| {
                a.window_days == 0
                    && a.totals
                        .as_ref()
                        .is_some_and(|t| t.table == "folding" && t.bet == "main")
            })
        });
        if r.caught_up && r.through_sequence >= played && theory_known && alerted {
            break r;
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "no alert: {r:#?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    // Every window holds today's hands: the lifetime's figures in each, equal to the client's.
    let mut served = Totals::new();
    for row in &answer.rows {
        let t = row.totals.as_ref().unwrap();
        let key = (t.table.clone(), t.bet.clone());
        let figures = (t.hands, t.staked, t.paid);
        if row.window_days == 0 {
            served.insert(key, figures);
        } else {
            assert_eq!(
                served.get(&key).or(Some(&figures)),
                Some(&figures),
                "window {} of {key:?}",
                row.window_days
            );
        }
        assert_eq!((t.voided_hands, t.voided_staked), (0, 0));
    }
    assert_eq!(served, client, "the server's totals against the client's");
    // The folding table is out of its band, with a strongly negative z; its alert names it.
    let folding = answer
        .rows
        .iter()
        .find(|r| {
            r.window_days == 0
                && r.totals
                    .as_ref()
                    .is_some_and(|t| t.table == "folding" && t.bet == "main")
        })
        .unwrap();
    assert_eq!(folding.actual, Some(0.0));
    assert!(
        folding.out_of_band && folding.z.unwrap() < -3.0,
        "{folding:?}"
    );
    assert!(folding.theoretical_exact);
    assert!(!folding.open_alert_id.is_empty());
    let alert_id = folding.open_alert_id.clone();
    let alert = answer
        .alerts
        .iter()
        .find(|a| a.alert.as_ref().unwrap().alert_id == alert_id)
        .unwrap();
    assert!(alert.investigation.is_none());
    // Opened by a check once the window held enough hands: perhaps while they were being played.
    let alerted_at = alert.alert.as_ref().unwrap().totals.as_ref().unwrap().hands;
    assert!((60..=100).contains(&alerted_at), "{alert:?}");
    // The gauges say so.
    let metrics = server.metrics.clone().unwrap();
    let (_, _, text) = pitboss_testkit::http::get(&metrics, "/metrics");
    assert!(
        text.lines()
            .any(|l| l.starts_with("pitboss_returns_out_of_band{")
                && l.contains("table=\"folding\"")
                && l.contains("bet=\"main\"")
                && l.ends_with(" 1")),
        "{text}"
    );

    // `pitboss returns` prints the folding table's row naming the alert, and the alert once.
    let out = std::process::Command::new(pitboss_testkit::binary())
        .args(["returns", "--server", &server.address, "--table", "folding"])
        .env("PITBOSS_TOKEN_FILE", server.data.join("admin.token"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}");
    assert!(
        said.lines()
            .any(|l| l.contains("folding") && l.ends_with(&format!("alert {alert_id}"))),
        "{said}"
    );
    let printed = format!("alert {alert_id} at entry {}", alert.sequence);
    assert_eq!(said.matches(&printed).count(), 1, "{said}");
    assert!(said.contains(": OPEN"), "{said}");

    // Every gauge the shipped alert rules read is one the server writes.
    let rules =
        std::fs::read_to_string(pitboss_testkit::root().join("docs/alerts/returns.rules.yml"))
            .unwrap();
    let mut named = 0;
    for word in rules.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        if word.starts_with("pitboss_returns_") {
            assert!(
                text.contains(&format!("# TYPE {word} ")),
                "{word} is not written:\n{text}"
            );
            named += 1;
        }
    }
    assert!(named >= 5, "{rules}");

    // A supervisor investigates: the alert closes, once; an unknown alert is not found; an
    // outcome outside the list is refused before anything is written.
    let closed = ops
        .record_investigation(proto::RecordInvestigationRequest {
            alert_id: alert_id.clone(),
            outcome: "explained".into(),
            reason: "the player folded every hand (a test)".into(),
        })
        .await
        .unwrap()
        .into_inner();
    let again = ops
        .record_investigation(proto::RecordInvestigationRequest {
            alert_id: alert_id.clone(),
            outcome: "explained".into(),
            reason: "twice".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(again.code(), tonic::Code::FailedPrecondition, "{again:?}");
    let unknown = ops
        .record_investigation(proto::RecordInvestigationRequest {
            alert_id: "0".repeat(32),
            outcome: "explained".into(),
            reason: "none".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), tonic::Code::NotFound, "{unknown:?}");
    let odd = ops
        .record_investigation(proto::RecordInvestigationRequest {
            alert_id: alert_id.clone(),
            outcome: "shrug".into(),
            reason: "none".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(
        pitboss_testkit::refusal::field(&odd).as_deref(),
        Some("outcome")
    );
    let started = Instant::now();
    loop {
        let r = returns(&mut audit).await;
        let a = r
            .alerts
            .iter()
            .find(|a| a.alert.as_ref().unwrap().alert_id == alert_id)
            .unwrap();
        if let Some(i) = &a.investigation {
            assert_eq!(i.outcome, "explained");
            assert!(!a.investigated_by.is_empty());
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "never closed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(closed.sequence > alert.sequence);

    // Statements: wait until they cover every hand played (each covers one second's entries
    // here); the first that counts hands is the one altered below.
    let played_through = returns(&mut audit).await.through_sequence;
    let started = Instant::now();
    let statement_at = loop {
        let size = returns(&mut audit).await.through_sequence;
        let mut events = audit
            .stream_events(proto::StreamEventsRequest {
                from_sequence: 0,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        let (mut with_hands, mut covered) = (None, false);
        while let Some(event) = events.message().await.unwrap() {
            if let Some(proto::payload::Kind::ReturnsStatement(s)) =
                event.payload.as_ref().and_then(|p| p.kind.as_ref())
            {
                if with_hands.is_none() && s.totals.iter().any(|t| t.hands > 0) {
                    with_hands = Some(event.sequence);
                }
                covered |= s.to_sequence >= played_through;
            }
            if event.sequence + 1 >= size {
                break;
            }
        }
        if let (Some(at), true) = (with_hands, covered) {
            break at;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "no statement");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    // The statements as C2SP tlog-proofs (`GetTlogProofs`): one a statement entry, the one above
    // among them, each checked offline by `verify-tlog-proof` with the log's key; any other stream
    // is refused, naming the field.
    let proven = audit
        .get_tlog_proofs(proto::GetTlogProofsRequest {
            stream: "returns/statements".into(),
            position: 0,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(proven
        .proofs
        .iter()
        .any(|p| p.file == format!("entry-{statement_at}.tlog-proof")));
    let proofs = dirs.path().join("statements");
    std::fs::create_dir(&proofs).unwrap();
    for p in &proven.proofs {
        std::fs::write(proofs.join(&p.file), &p.text).unwrap();
    }
    let key = hex::encode(
        audit
            .get_checkpoint(proto::GetCheckpointRequest::default())
            .await
            .unwrap()
            .into_inner()
            .public_key,
    );
    let checked = std::process::Command::new(pitboss_testkit::binary())
        .arg("verify-tlog-proof")
        .args(proven.proofs.iter().map(|p| proofs.join(&p.file)))
        .args(["--key", &key])
        .output()
        .unwrap();
    let told = String::from_utf8_lossy(&checked.stdout);
    assert!(checked.status.success(), "{told}");
    assert_eq!(
        told.matches("(stream returns/statements position").count(),
        proven.proofs.len(),
        "{told}"
    );
    let refused = audit
        .get_tlog_proofs(proto::GetTlogProofsRequest {
            stream: "hand/0123".into(),
            position: 0,
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    assert_eq!(
        pitboss_testkit::refusal::field(&refused).as_deref(),
        Some("stream")
    );
    drop(server);
    let verify = |dir: &std::path::Path| {
        let out = std::process::Command::new(pitboss_testkit::binary())
            .args(["verify", "--data", dir.to_str().unwrap()])
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (ok, said) = verify(&data);
    assert!(ok, "{said}");
    let checked: u64 = said
        .lines()
        .find_map(|l| l.strip_prefix("returns: ")?.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{said}"));
    assert!(checked >= 1, "{said}");

    // A copy whose statement claims one more hand paid more, re-signed: verify names it.
    let copy = dirs.path().join("copy");
    pitboss_testkit::forge::copy_dir(&data, &copy);
    pitboss_testkit::forge::rewrite(&copy, statement_at, |envelope| {
        let mut payload = proto::Payload::decode(envelope.payload.as_slice()).unwrap();
        let Some(proto::payload::Kind::ReturnsStatement(s)) = payload.kind.as_mut() else {
            panic!("not a statement")
        };
        let t = s.totals.iter_mut().find(|t| t.hands > 0).unwrap();
        t.paid += 1;
        envelope.payload = payload.encode_to_vec();
    });
    let (ok, said) = verify(&copy);
    assert!(!ok, "{said}");
    assert!(
        said.contains("the returns statement does not agree with its hands"),
        "{said}"
    );
}

/// The shipped alert rules are valid Prometheus rules, and their unit tests (series shaped as the
/// server writes them) pass, by Prometheus's own `promtool` (scripts/test installs it).
#[test]
fn the_shipped_alert_rules_pass_promtool() {
    let dir = pitboss_testkit::root().join("docs/alerts");
    for args in [
        ["check", "rules", "returns.rules.yml"],
        ["test", "rules", "returns.test.yml"],
    ] {
        let out = std::process::Command::new("promtool")
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("promtool (Debian's prometheus package; scripts/test installs it)");
        assert!(
            out.status.success(),
            "promtool {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
