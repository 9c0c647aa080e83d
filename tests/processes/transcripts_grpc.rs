//! A vendor's transcripts checked in bulk over gRPC (`Lab.CheckTranscripts`): a client streams
//! hundreds, as JSON and as typed messages, with errors planted — a claimed payout one unit off, a
//! decision the rules refuse, text that is not a transcript — and the server names each hand's
//! verdict in order, each difference with what was claimed, what the rules pay and the rule, then
//! the totals; the verdicts are the engine's own (`pitboss_lab::transcript`, called here directly);
//! a transcript beyond its limits ends the stream naming it; `pitboss check --jsonl --server` is
//! the same stream from the command line.

use std::collections::BTreeMap;

use pitboss::proto;
use pitboss::proto::check_transcripts_request::Transcript;
use pitboss::proto::check_transcripts_response::Kind;
use pitboss::proto::lab_client::LabClient;
use pitboss_lab::transcript;
use pitboss_testkit::server::{Server, ADMIN_TOKEN};
use serde_json::Value;

fn fixture(game: &str) -> Value {
    let path = pitboss_testkit::root().join(format!("fixtures/transcripts/{game}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The transcript as the typed message, field by field from its JSON.
fn typed(t: &Value) -> proto::TranscriptMessage {
    let map_u64 = |v: &Value| -> std::collections::HashMap<String, u64> {
        v.as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
                    .collect()
            })
            .unwrap_or_default()
    };
    let game = match t["game"].as_str().unwrap() {
        "mississippi_stud" => proto::Game::MississippiStud,
        "fortune_pai_gow" => proto::Game::FortunePaiGow,
        "nutz" => proto::Game::Nutz,
        _ => proto::Game::CaribbeanStud,
    };
    proto::TranscriptMessage {
        id: t["id"].as_str().unwrap_or_default().into(),
        game: game as i32,
        config_json: t.get("config").map(|c| c.to_string()).unwrap_or_default(),
        seed: t["seed"].as_str().unwrap_or_default().into(),
        cards: t["cards"]
            .as_object()
            .map(|o| {
                o.iter()
                    .map(|(seat, cards)| {
                        let cards = cards
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|c| c.as_str().unwrap().to_string())
                            .collect();
                        (seat.clone(), proto::CardList { cards })
                    })
                    .collect()
            })
            .unwrap_or_default(),
        dice: t["dice"]
            .as_array()
            .map(|shakes| {
                shakes
                    .iter()
                    .map(|s| proto::DiceRoll {
                        faces: s
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|f| f.as_u64().unwrap() as u32)
                            .collect(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        wagers: map_u64(&t["wagers"]),
        decisions: t["decisions"]
            .as_array()
            .map(|d| d.iter().map(|d| d.as_str().unwrap().to_string()).collect())
            .unwrap_or_default(),
        claimed: t.get("claimed").map(|c| proto::ClaimedPayouts {
            payouts: map_u64(&c["payouts"]),
            total_paid: c["total_paid"].as_u64(),
        }),
    }
}

/// What the engine itself says of a transcript: the verdict and, per bet, what it pays.
fn engine_says(text: &str) -> (String, BTreeMap<String, u64>) {
    match transcript::parse(text).and_then(|t| transcript::check(&t)) {
        Ok(c) => (
            if c.differences.is_empty() {
                "agrees"
            } else {
                "differs"
            }
            .into(),
            c.settlement
                .lines
                .iter()
                .map(|l| (l.bet.id().to_string(), l.payout.0))
                .collect(),
        ),
        Err(_) => ("refused".into(), BTreeMap::new()),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_vendors_transcripts_are_checked_in_bulk_with_planted_errors_named() {
    let dirs = tempfile::tempdir().unwrap();
    let server = Server::in_process(&dirs.path().join("log"));
    let mut lab = LabClient::new(server.channel().await);
    let games = [
        "mississippi_stud",
        "caribbean_stud",
        "fortune_pai_gow",
        "nutz",
    ];
    // 400 transcripts: the four examples in turn; every 7th claims one unit more on a bet; every
    // 11th has a decision the rules refuse; every 13th is not a transcript; every other one typed.
    let mut sent = Vec::new();
    for i in 0..400usize {
        let mut t = fixture(games[i % 4]);
        t["id"] = Value::String(format!("vendor-{i}"));
        let mut planted_bet = None;
        if i % 7 == 0 {
            if let Some(payouts) = t["claimed"]["payouts"].as_object_mut() {
                let (bet, paid) = payouts.iter_mut().next().unwrap();
                *paid = Value::from(paid.as_u64().unwrap() + 1);
                planted_bet = Some(bet.clone());
            }
        }
        if i % 11 == 0 {
            t["decisions"] = Value::Array(vec![Value::String("set_hand Zz Zz".into())]);
        }
        let text = if i % 13 == 0 {
            "{ not a transcript".to_string()
        } else {
            t.to_string()
        };
        let as_typed = i % 2 == 1 && i % 13 != 0;
        sent.push((text, planted_bet, as_typed, t));
    }
    let requests: Vec<proto::CheckTranscriptsRequest> = sent
        .iter()
        .enumerate()
        .map(
            |(i, (text, _, as_typed, t))| proto::CheckTranscriptsRequest {
                transcript: Some(if *as_typed {
                    Transcript::Typed(typed(t))
                } else {
                    Transcript::Json(text.clone())
                }),
                reference: format!("ref-{i}"),
            },
        )
        .collect();
    let mut stream = lab
        .check_transcripts(tokio_stream::iter(requests))
        .await
        .unwrap()
        .into_inner();
    let mut verdicts = Vec::new();
    let mut totals = None;
    while let Some(m) = stream.message().await.unwrap() {
        match m.kind.unwrap() {
            Kind::Verdict(v) => verdicts.push(v),
            Kind::Totals(t) => totals = Some(t),
        }
    }
    assert_eq!(verdicts.len(), 400);
    let (mut agree, mut differ, mut refused) = (0, 0, 0);
    for (i, (v, (text, planted_bet, _, _))) in verdicts.iter().zip(&sent).enumerate() {
        assert_eq!(
            (v.index, v.reference.as_str()),
            (i as u64, format!("ref-{i}").as_str())
        );
        let (said, pays) = engine_says(text);
        assert_eq!(v.verdict, said, "transcript {i}: {v:?}");
        match said.as_str() {
            "agrees" => agree += 1,
            "differs" => differ += 1,
            _ => {
                refused += 1;
                assert!(!v.refused.is_empty(), "{v:?}");
                continue;
            }
        }
        assert_eq!(v.id, format!("vendor-{i}"));
        assert_eq!(v.total_paid, pays.values().sum::<u64>(), "{v:?}");
        for d in &v.differences {
            if d.bet != "total_paid" {
                assert_eq!(d.rules_pay, pays.get(&d.bet).copied(), "{d:?}");
                assert!(!d.rule.is_empty(), "{d:?}");
            }
        }
        // A planted error is named on its bet, one unit over what the rules pay.
        if let Some(bet) = planted_bet {
            let d = v
                .differences
                .iter()
                .find(|d| d.bet == *bet)
                .unwrap_or_else(|| panic!("{i}: {v:?}"));
            assert_eq!(d.claimed, d.rules_pay.map(|p| p + 1), "{d:?}");
        }
        if i % 11 == 0 {
            unreachable!("a refused decision was accepted: {v:?}");
        }
    }
    assert!(refused >= 400 / 13 + 400 / 11 - 400 / 143 - 1, "{refused}");
    assert_eq!(
        totals.unwrap(),
        proto::TranscriptTotals {
            transcripts: 400,
            agree,
            differ,
            refused
        }
    );

    // A transcript beyond its limit ends the stream, naming it, after the verdicts before it.
    let good = fixture("nutz").to_string();
    let requests = vec![
        proto::CheckTranscriptsRequest {
            transcript: Some(Transcript::Json(good.clone())),
            reference: String::new(),
        },
        proto::CheckTranscriptsRequest {
            transcript: Some(Transcript::Json(" ".repeat(61_441))),
            reference: String::new(),
        },
        proto::CheckTranscriptsRequest {
            transcript: Some(Transcript::Json(good)),
            reference: String::new(),
        },
    ];
    let mut stream = lab
        .check_transcripts(tokio_stream::iter(requests))
        .await
        .unwrap()
        .into_inner();
    let first = stream.message().await.unwrap().unwrap();
    assert!(matches!(first.kind, Some(Kind::Verdict(_))));
    let refusal = stream.message().await.unwrap_err();
    assert_eq!(refusal.code(), tonic::Code::InvalidArgument);
    assert_eq!(
        pitboss_testkit::refusal::field(&refusal).as_deref(),
        Some("transcripts[1].json")
    );

    // The command line: the same lines, checked by the server.
    let lines: String = games.iter().map(|g| format!("{}\n", fixture(g))).collect();
    let file = dirs.path().join("vendor.jsonl");
    std::fs::write(&file, lines).unwrap();
    let token = dirs.path().join("token");
    std::fs::write(&token, ADMIN_TOKEN).unwrap();
    let run = |server: Option<&str>| {
        let mut c = std::process::Command::new(pitboss_testkit::binary());
        c.args(["check", "--jsonl"]).arg(&file);
        if let Some(server) = server {
            c.args(["--server", server, "--token-file"]).arg(&token);
        }
        c.output().unwrap()
    };
    let remote = run(Some(&server.address));
    let local = run(None);
    assert_eq!(remote.status.code(), local.status.code());
    let summary = |out: &std::process::Output| {
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .find(|l| l.starts_with("4 transcripts:"))
            .map(|l| l.split(" (").next().unwrap().to_string())
    };
    assert_eq!(summary(&remote), summary(&local), "{remote:?}");
    let verdicts: Vec<Value> = String::from_utf8_lossy(&remote.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(verdicts.len(), 4);
    assert_eq!(verdicts[1]["line"], 2);
}

/// The round example of `docs/transcripts.md` (its `~~~json` block).
fn documented_round() -> Value {
    let doc = std::fs::read_to_string(pitboss_testkit::root().join("docs/transcripts.md")).unwrap();
    let block = doc
        .split("~~~json\n")
        .nth(1)
        .and_then(|rest| rest.split("\n~~~").next())
        .expect("the round example");
    serde_json::from_str(block).unwrap()
}

/// A whole round's transcript over gRPC: its differences named by place (`places[2].raise`), its
/// total the lab's own sum over the places; a round whose seats share a card refused, naming the
/// card and both seats; and the same round checked by `pitboss check` on the command line.
#[tokio::test(flavor = "multi_thread")]
async fn a_rounds_transcript_is_checked_place_by_place_and_a_shared_card_refused() {
    use pitboss_lab::round_transcript;
    let dirs = tempfile::tempdir().unwrap();
    let server = Server::in_process(&dirs.path().join("log"));
    let mut lab = LabClient::new(server.channel().await);
    let round = documented_round();
    let mut shared = round.clone();
    shared["cards"]["seat3"][0] = Value::String("Ah".into());
    let requests: Vec<proto::CheckTranscriptsRequest> = [&round, &shared]
        .iter()
        .map(|t| proto::CheckTranscriptsRequest {
            transcript: Some(Transcript::Json(t.to_string())),
            reference: String::new(),
        })
        .collect();
    let mut stream = lab
        .check_transcripts(tokio_stream::iter(requests))
        .await
        .unwrap()
        .into_inner();
    let mut verdicts = Vec::new();
    while let Some(message) = stream.message().await.unwrap() {
        if let Some(Kind::Verdict(v)) = message.kind {
            verdicts.push(v);
        }
    }
    assert_eq!(verdicts.len(), 2);
    let lab_says =
        round_transcript::check(&round_transcript::parse(&round.to_string()).unwrap()).unwrap();
    let paid: u64 = lab_says
        .places
        .iter()
        .map(|p| p.settlement.total_paid.0)
        .sum();
    let v = &verdicts[0];
    assert_eq!(
        (v.verdict.as_str(), v.total_paid),
        ("differs", paid),
        "{v:?}"
    );
    assert_eq!(v.id, "vendor-csp-table-0042");
    let raise = v
        .differences
        .iter()
        .find(|d| d.bet == "places[2].raise")
        .unwrap_or_else(|| panic!("{v:?}"));
    let ours = lab_says.places[2]
        .settlement
        .lines
        .iter()
        .find(|l| l.bet.id() == "raise")
        .unwrap();
    assert_eq!(
        (raise.claimed, raise.rules_pay),
        (Some(3000), Some(ours.payout.0))
    );
    assert_eq!(raise.rule, ours.rule);
    assert!(
        v.differences
            .iter()
            .all(|d| d.bet.starts_with("places[2].")),
        "{v:?}"
    );
    let refused = &verdicts[1];
    assert_eq!(refused.verdict, "refused");
    assert!(
        refused.refused.contains("Ah")
            && refused.refused.contains("seat1")
            && refused.refused.contains("seat3"),
        "{refused:?}"
    );

    // The command line, in this process.
    let file = dirs.path().join("round.json");
    std::fs::write(&file, round.to_string()).unwrap();
    let out = std::process::Command::new(pitboss_testkit::binary())
        .args(["check", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "a round that differs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "places[2].raise: claimed 3000, our rules pay {}",
            ours.payout.0
        )),
        "{err}"
    );
}
