//! The service end to end over real gRPC on loopback, the server as in production (the `pitboss`
//! binary): every game played and replayed, a restart in the middle of a hand, tampering named,
//! bad input refused with the right code and nothing written, many clients on one hand, and a
//! table malfunction over a time range.

mod common;

use common::server::Server;
use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;
use pitboss::proto::operations_client::OperationsClient;
use pitboss::proto::play_client::PlayClient;
use pitboss::service::client::Authorized as Channel;
use tonic::Code;

struct Clients {
    play: PlayClient<Channel>,
    audit: AuditClient<Channel>,
    ops: OperationsClient<Channel>,
    /// Operations as the second administrator, who approves the first one's proposals.
    second: OperationsClient<Channel>,
}

impl Clients {
    /// The second administrator approves `proposal`: what it did.
    async fn approve(
        &mut self,
        proposal: &Option<proto::Proposal>,
    ) -> proto::ApproveProposalResponse {
        let id = proposal.as_ref().expect("a proposal").proposal_id.clone();
        self.second
            .approve_proposal(proto::ApproveProposalRequest { proposal_id: id })
            .await
            .expect("approved")
            .into_inner()
    }
}

async fn clients(server: &Server) -> Clients {
    let channel = server.channel().await;
    Clients {
        play: PlayClient::new(channel.clone()),
        audit: AuditClient::new(channel.clone()),
        ops: OperationsClient::new(channel),
        second: OperationsClient::new(server.channel_as(Some(common::server::SECOND_TOKEN)).await),
    }
}

fn wager(bet: &str, amount: u64) -> proto::Wager {
    proto::Wager {
        bet: bet.into(),
        amount,
    }
}

fn action(kind: &str) -> proto::Action {
    proto::Action {
        kind: kind.into(),
        ..Default::default()
    }
}

fn bet(multiple: u32) -> proto::Action {
    proto::Action {
        kind: "bet".into(),
        multiple,
        ..Default::default()
    }
}

fn open(
    game: proto::Game,
    table: &str,
    player: &str,
    wagers: Vec<proto::Wager>,
) -> proto::OpenHandRequest {
    proto::OpenHandRequest {
        game: game as i32,
        table: table.into(),
        player: player.into(),
        wagers,
        ..Default::default()
    }
}

async fn act(c: &mut Clients, hand: &str, a: proto::Action) -> proto::HandView {
    c.play
        .act(proto::ActRequest {
            hand_id: hand.into(),
            action: Some(a),
            ..Default::default()
        })
        .await
        .expect("a legal decision")
        .into_inner()
        .hand
        .expect("hand")
}

/// Plays a hand of `game` to its end with the first legal decision each time (Pai Gow: auto-set).
async fn play_to_end(
    c: &mut Clients,
    game: proto::Game,
    table: &str,
    player: &str,
) -> proto::HandView {
    let wagers = match game {
        proto::Game::MississippiStud => vec![wager("ante", 500), wager("bonus", 100)],
        proto::Game::FortunePaiGow => vec![wager("main", 1000), wager("fortune_bonus", 300)],
        proto::Game::Nutz => vec![wager("box_one_pair", 200), wager("box_nutz", 100)],
        _ => vec![wager("ante", 1000), wager("bonus", 100)],
    };
    let mut hand = c
        .play
        .open_hand(open(game, table, player, wagers))
        .await
        .expect("open")
        .into_inner()
        .hand
        .expect("hand");
    while hand.status == "in_progress" {
        let next = match game {
            proto::Game::MississippiStud => bet(1),
            proto::Game::FortunePaiGow => action("auto_set"),
            proto::Game::Nutz => proto::Action {
                kind: "shake".into(),
                by: "player".into(),
                ..Default::default()
            },
            _ => action("raise"),
        };
        assert!(
            hand.legal_actions.iter().any(|a| a.kind == next.kind),
            "{} not legal: {:?}",
            next.kind,
            hand.legal_actions
        );
        hand = act(c, &hand.hand_id.clone(), next).await;
    }
    hand
}

async fn replay(c: &mut Clients, hand: &str) -> proto::ReplayHandResponse {
    c.audit
        .replay_hand(proto::ReplayHandRequest {
            hand_id: hand.into(),
        })
        .await
        .expect("replay")
        .into_inner()
}

async fn head(c: &mut Clients) -> (Option<u64>, String) {
    let v = c
        .audit
        .verify_log(proto::VerifyLogRequest::default())
        .await
        .expect("verify")
        .into_inner();
    assert!(v.ok, "{}", v.problem);
    (v.head_sequence, v.head_hash)
}

#[tokio::test(flavor = "multi_thread")]
async fn every_game_played_through_the_api_replays_consistently() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let mut c = clients(&server).await;
    for game in [
        proto::Game::MississippiStud,
        proto::Game::FortunePaiGow,
        proto::Game::Nutz,
        proto::Game::CaribbeanStud,
    ] {
        let hand = play_to_end(&mut c, game, "T-1", "player-1").await;
        assert_eq!(hand.status, "settled");
        assert_eq!(
            hand.seed.len(),
            64,
            "the seed is shown once the hand has ended"
        );
        assert!(hand.legal_actions.is_empty());
        let report = replay(&mut c, &hand.hand_id).await;
        assert!(report.consistent, "{game:?}: {:#?}", report.report);
        assert!(report.commitment_ok && report.seed_revealed);
        assert!(report
            .events
            .iter()
            .all(|e| e.chain_ok && e.signature_ok && e.rederived));
        assert_eq!(
            report.settlement, hand.settlement,
            "the replay re-settles to the recorded settlement"
        );
        assert!(report.report.iter().any(|l| l.contains("ALL CONSISTENT")));
    }
    // Recall: the player's last games, newest first.
    let list = c
        .audit
        .list_hands(proto::ListHandsRequest {
            player: "player-1".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(list.hands.len(), 4);
    assert_eq!(
        list.hands[0].game,
        proto::Game::CaribbeanStud as i32,
        "newest first"
    );
    assert!(list
        .hands
        .windows(2)
        .all(|w| w[0].opened_at_ms >= w[1].opened_at_ms));
    let events = c
        .audit
        .get_hand_events(proto::GetHandEventsRequest {
            hand_id: list.hands[0].hand_id.clone(),
            page_size: 2,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(events.events.len(), 2);
    assert_eq!(events.next_page_token, "2");
    assert!(matches!(
        events.events[0].payload.as_ref().unwrap().kind,
        Some(proto::payload::Kind::HandOpened(_))
    ));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hand_continues_after_the_server_is_killed_mid_hand() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let mut c = clients(&server).await;
    let hand = c
        .play
        .open_hand(open(
            proto::Game::MississippiStud,
            "T-2",
            "p",
            vec![wager("ante", 1000)],
        ))
        .await
        .unwrap()
        .into_inner()
        .hand
        .unwrap();
    let id = hand.hand_id.clone();
    let after_one = act(&mut c, &id, bet(2)).await;
    assert_eq!(
        after_one.seats[1]
            .cards
            .iter()
            .filter(|c| !c.is_empty())
            .count(),
        1,
        "one community card shown"
    );
    let data_dir = server.kill(); // SIGKILL
    let server = Server::start(&data_dir);
    let mut c = clients(&server).await;
    let seen = c
        .play
        .get_hand(proto::GetHandRequest {
            hand_id: id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .hand
        .unwrap();
    assert_eq!(seen.version, after_one.version);
    assert_eq!(
        seen.seats, after_one.seats,
        "the same cards after the restart"
    );
    assert!(seen.seed.is_empty(), "no seed before the end");
    act(&mut c, &id, bet(1)).await;
    let done = act(&mut c, &id, bet(3)).await;
    assert_eq!(done.status, "settled");
    let report = replay(&mut c, &id).await;
    assert!(report.consistent, "{:#?}", report.report);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tampered_event_is_named_by_the_server_refusing_and_by_verification() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let mut c = clients(&server).await;
    let hand = play_to_end(&mut c, proto::Game::CaribbeanStud, "T-3", "p").await;
    let events = c
        .audit
        .get_hand_events(proto::GetHandEventsRequest {
            hand_id: hand.hand_id.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .events;
    let target = events[3].sequence;
    let data_dir = server.kill();
    {
        // Flip one byte of the stored entry through the raw RocksDB handle.
        let store = pitboss_ledger::tamper::Tamper::open(&data_dir).unwrap();
        let mut value = store.entry(target).unwrap().unwrap();
        let last = value.len() - 70; // inside the envelope, before the hash and signature
        value[last] ^= 0x20;
        store.put_entry(target, &value).unwrap();
    }
    // The server refuses to serve the altered log, naming the entry; so does verification.
    let refusal = Server::refuses(&data_dir);
    assert!(
        refusal.contains(&format!("entry {target}: altered bytes")),
        "{refusal}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(["verify", "--data"])
        .arg(&data_dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(&format!("FAILED at entry {target}: altered bytes")),
        "{stdout}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_on_every_write_is_refused_with_the_right_code_and_writes_nothing() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let mut c = clients(&server).await;
    let live = c
        .play
        .open_hand(open(
            proto::Game::MississippiStud,
            "T-4",
            "p",
            vec![wager("ante", 500)],
        ))
        .await
        .unwrap()
        .into_inner()
        .hand
        .unwrap();
    let settled = play_to_end(&mut c, proto::Game::Nutz, "T-4", "p").await;
    let before = head(&mut c).await;

    let mi = proto::Game::MississippiStud;
    let opens: Vec<(proto::OpenHandRequest, Code, &str)> = vec![
        (
            open(proto::Game::Unspecified, "T", "p", vec![wager("ante", 500)]),
            Code::InvalidArgument,
            "game",
        ),
        (
            proto::OpenHandRequest {
                config_id: "xyz".into(),
                ..open(mi, "T", "p", vec![wager("ante", 500)])
            },
            Code::InvalidArgument,
            "config_id",
        ),
        (
            proto::OpenHandRequest {
                config_id: "00".repeat(32),
                ..open(mi, "T", "p", vec![wager("ante", 500)])
            },
            Code::NotFound,
            "configuration",
        ),
        (
            open(mi, "", "p", vec![wager("ante", 500)]),
            Code::InvalidArgument,
            "table",
        ),
        (
            open(mi, "T", "", vec![wager("ante", 500)]),
            Code::InvalidArgument,
            "player",
        ),
        (
            open(mi, "T", "p", vec![wager("antes", 500)]),
            Code::InvalidArgument,
            "wagers",
        ),
        (
            open(mi, "T", "p", vec![wager("ante", 5001)]),
            Code::InvalidArgument,
            "wagers.ante",
        ),
        (
            open(mi, "T", "p", vec![wager("ante", 99)]),
            Code::InvalidArgument,
            "wagers.ante",
        ),
        (
            open(mi, "T", "p", vec![wager("bonus", 100)]),
            Code::InvalidArgument,
            "wagers",
        ),
        (
            open(mi, "T", "p", vec![wager("ante", 500), wager("main", 500)]),
            Code::InvalidArgument,
            "wagers.main",
        ),
        (
            open(mi, "T", "p", vec![wager("ante", 500), wager("ante", 600)]),
            Code::InvalidArgument,
            "wagers.ante",
        ),
        (
            proto::OpenHandRequest {
                rebet_of: "ffff".into(),
                ..open(mi, "T", "p", vec![])
            },
            Code::InvalidArgument,
            "rebet_of",
        ),
    ];
    for (request, code, field) in opens {
        let err = c
            .play
            .open_hand(request.clone())
            .await
            .expect_err("refused");
        assert_eq!(err.code(), code, "{request:?}: {}", err.message());
        assert!(
            err.message().contains(field),
            "{field} not named in `{}`",
            err.message()
        );
    }
    let acts: Vec<(proto::ActRequest, Code, &str)> = vec![
        (
            proto::ActRequest {
                hand_id: "0123".repeat(8),
                action: Some(bet(1)),
                ..Default::default()
            },
            Code::NotFound,
            "hand",
        ),
        (
            proto::ActRequest {
                hand_id: "0123".into(),
                action: Some(bet(1)),
                ..Default::default()
            },
            Code::InvalidArgument,
            "hand_id",
        ),
        (
            proto::ActRequest {
                hand_id: live.hand_id.clone(),
                action: None,
                ..Default::default()
            },
            Code::InvalidArgument,
            "action",
        ),
        (
            proto::ActRequest {
                hand_id: live.hand_id.clone(),
                action: Some(action("dance")),
                ..Default::default()
            },
            Code::InvalidArgument,
            "action.kind",
        ),
        (
            proto::ActRequest {
                hand_id: live.hand_id.clone(),
                action: Some(bet(4)),
                ..Default::default()
            },
            Code::InvalidArgument,
            "multiple",
        ),
        (
            proto::ActRequest {
                hand_id: live.hand_id.clone(),
                action: Some(action("raise")),
                ..Default::default()
            },
            Code::InvalidArgument,
            "raise",
        ),
        (
            proto::ActRequest {
                hand_id: live.hand_id.clone(),
                action: Some(bet(1)),
                expected_version: Some(99),
                ..Default::default()
            },
            Code::Aborted,
            "version",
        ),
        (
            proto::ActRequest {
                hand_id: settled.hand_id.clone(),
                action: Some(proto::Action {
                    kind: "shake".into(),
                    by: "player".into(),
                    ..Default::default()
                }),
                ..Default::default()
            },
            Code::FailedPrecondition,
            "ended",
        ),
    ];
    for (request, code, words) in acts {
        let err = c.play.act(request.clone()).await.expect_err("refused");
        assert_eq!(err.code(), code, "{request:?}: {}", err.message());
        assert!(
            err.message().contains(words),
            "{words} not in `{}`",
            err.message()
        );
    }
    let voids: Vec<(proto::VoidHandRequest, Code)> = vec![
        (
            proto::VoidHandRequest {
                hand_id: live.hand_id.clone(),
                kind: "oops".into(),
                reason: "r".into(),
                recorded_by: String::new(),
                ..Default::default()
            },
            Code::InvalidArgument,
        ),
        (
            proto::VoidHandRequest {
                hand_id: live.hand_id.clone(),
                kind: "malfunction".into(),
                reason: "".into(),
                recorded_by: String::new(),
                ..Default::default()
            },
            Code::InvalidArgument,
        ),
        (
            proto::VoidHandRequest {
                hand_id: live.hand_id.clone(),
                kind: "malfunction".into(),
                reason: "r".into(),
                recorded_by: "someone-else".into(),
                ..Default::default()
            },
            Code::InvalidArgument,
        ),
        (
            proto::VoidHandRequest {
                hand_id: "abcd".repeat(8),
                kind: "malfunction".into(),
                reason: "r".into(),
                recorded_by: String::new(),
                ..Default::default()
            },
            Code::NotFound,
        ),
        (
            proto::VoidHandRequest {
                hand_id: "abcd".into(),
                kind: "malfunction".into(),
                reason: "r".into(),
                recorded_by: String::new(),
                ..Default::default()
            },
            Code::InvalidArgument,
        ),
        (
            proto::VoidHandRequest {
                hand_id: live.hand_id.clone(),
                kind: "incomplete".into(),
                reason: "r".into(),
                recorded_by: String::new(),
                ..Default::default()
            },
            Code::FailedPrecondition,
        ),
        (
            proto::VoidHandRequest {
                hand_id: live.hand_id.clone(),
                kind: "conduct_forfeit".into(),
                reason: "r".into(),
                recorded_by: String::new(),
                ..Default::default()
            },
            Code::FailedPrecondition,
        ),
    ];
    for (request, code) in voids {
        let err = c.ops.void_hand(request.clone()).await.expect_err("refused");
        assert_eq!(err.code(), code, "{request:?}: {}", err.message());
    }
    let err = c
        .ops
        .publish_config(proto::PublishConfigRequest {
            config_json: "{\"game\":\"nutz\"}".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    // A configuration that parses but whose largest hand could not be settled: refused, naming
    // the field inside the configuration, and nothing written.
    let before_publish = head(&mut c).await;
    let mut huge = serde_json::to_value(pitboss_engine::config::GameConfig::default_for(
        pitboss_engine::game::GameId::MississippiStud,
    ))
    .unwrap();
    huge["rules"]["mississippi_stud"]["street_multiples"] =
        serde_json::json!([1, 2, 4_000_000_000u64]);
    let err = c
        .ops
        .publish_config(proto::PublishConfigRequest {
            config_json: huge.to_string(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    {
        use tonic_types::StatusExt;
        let details = err.get_error_details();
        let violations = &details.bad_request().expect("BadRequest").field_violations;
        assert_eq!(
            violations[0].field,
            "config_json.rules.mississippi_stud.street_multiples[2]"
        );
    }
    assert_eq!(
        head(&mut c).await,
        before_publish,
        "nothing written for a refused configuration"
    );
    let err = c
        .ops
        .record_table_malfunction(proto::RecordTableMalfunctionRequest {
            table: "".into(),
            reason: "r".into(),
            recorded_by: String::new(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    let err = c
        .ops
        .record_table_malfunction(proto::RecordTableMalfunctionRequest {
            table: "T".into(),
            from_ms: 10,
            to_ms: 5,
            reason: "r".into(),
            recorded_by: String::new(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    let err = c
        .ops
        .run_sweep(proto::RunSweepRequest {
            as_of_ms: u64::MAX,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert_eq!(
        head(&mut c).await,
        before,
        "no refused request wrote anything"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn many_clients_acting_on_one_hand_land_exactly_one_decision() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let mut c = clients(&server).await;
    let hand = c
        .play
        .open_hand(open(
            proto::Game::MississippiStud,
            "T-5",
            "p",
            vec![wager("ante", 500)],
        ))
        .await
        .unwrap()
        .into_inner()
        .hand
        .unwrap();
    let mut version = hand.version;
    for street in 0..3 {
        let tasks: Vec<_> = (0..16)
            .map(|i| {
                let mut play = c.play.clone();
                let id = hand.hand_id.clone();
                tokio::spawn(async move {
                    play.act(proto::ActRequest {
                        hand_id: id,
                        action: Some(bet(1 + i % 3)),
                        expected_version: Some(version),
                        ..Default::default()
                    })
                    .await
                })
            })
            .collect();
        let mut landed = Vec::new();
        for t in tasks {
            match t.await.unwrap() {
                Ok(r) => landed.push(r.into_inner().hand.unwrap()),
                Err(status) => assert_eq!(
                    status.code(),
                    Code::Aborted,
                    "street {street}: {}",
                    status.message()
                ),
            }
        }
        assert_eq!(landed.len(), 1, "street {street}");
        version = landed[0].version;
    }
    let report = replay(&mut c, &hand.hand_id).await;
    assert!(report.consistent);
    assert_eq!(
        report.settlement.unwrap().lines.len(),
        4,
        "ante and exactly three street bets"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_table_malfunction_voids_exactly_the_hands_in_its_time_range() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let mut c = clients(&server).await;
    let mut hands = Vec::new();
    for i in 0..5 {
        let hand = if i % 2 == 0 {
            play_to_end(&mut c, proto::Game::CaribbeanStud, "T-6", "p").await
        } else {
            c.play
                .open_hand(open(
                    proto::Game::MississippiStud,
                    "T-6",
                    "p",
                    vec![wager("ante", 500)],
                ))
                .await
                .unwrap()
                .into_inner()
                .hand
                .unwrap()
        };
        hands.push(hand);
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    // Another table in the same period is not touched.
    let other = play_to_end(&mut c, proto::Game::Nutz, "T-7", "p").await;
    let (from, to) = (hands[1].opened_at_ms, hands[3].opened_at_ms);
    let response = c
        .ops
        .record_table_malfunction(proto::RecordTableMalfunctionRequest {
            table: "T-6".into(),
            from_ms: from,
            to_ms: to,
            reason: "shuffler jam".into(),
            recorded_by: String::new(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        response.voided_hand_ids.is_empty(),
        "nothing is voided before a second principal approves"
    );
    let response = c
        .approve(&response.proposal)
        .await
        .table_malfunction
        .expect("the malfunction's result");
    let mut voided = response.voided_hand_ids.clone();
    voided.sort();
    let mut expected: Vec<String> = hands[1..4].iter().map(|h| h.hand_id.clone()).collect();
    expected.sort();
    assert_eq!(voided, expected);
    for (i, hand) in hands.iter().chain([&other]).enumerate() {
        let report = replay(&mut c, &hand.hand_id).await;
        assert!(report.consistent, "{:#?}", report.report);
        let in_range = (1..4).contains(&i);
        assert_eq!(report.status == "voided", in_range, "hand {i}");
        if in_range {
            let void = report.void.as_ref().unwrap();
            assert_eq!(void.kind, "malfunction");
            assert_eq!(void.paid_now, void.total_staked, "refunds equal stakes");
            assert!(report.refunds_equal_stakes);
            assert!(report
                .report
                .iter()
                .any(|l| l.contains("VOID (malfunction)") && l.contains("shuffler jam")));
        }
    }
    // Again: nothing left to void in the range.
    let again = c
        .ops
        .record_table_malfunction(proto::RecordTableMalfunctionRequest {
            table: "T-6".into(),
            from_ms: from,
            to_ms: to,
            reason: "again".into(),
            recorded_by: String::new(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let again = c
        .approve(&again.proposal)
        .await
        .table_malfunction
        .expect("the malfunction's result");
    assert!(again.voided_hand_ids.is_empty());
    assert_eq!(again.skipped_hand_ids.len(), 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn stream_events_catches_up_then_follows_live() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let mut c = clients(&server).await;
    let (head_before, _) = head(&mut c).await;
    let head_before = head_before.unwrap();
    let mut stream = c
        .audit
        .stream_events(proto::StreamEventsRequest { from_sequence: 0 })
        .await
        .unwrap()
        .into_inner();
    // Catch-up: everything recorded so far (the key and the default configurations), in order.
    for expected in 0..=head_before {
        let event = stream.message().await.unwrap().expect("an entry");
        assert_eq!(event.sequence, expected);
    }
    // Live: a hand played now arrives as it is recorded.
    let hand = play_to_end(&mut c, proto::Game::CaribbeanStud, "T-8", "p").await;
    let mut kinds = Vec::new();
    while kinds.len() < usize::try_from(hand.version).unwrap() {
        let event = tokio::time::timeout(std::time::Duration::from_secs(5), stream.message())
            .await
            .expect("live entries arrive")
            .unwrap()
            .expect("an entry");
        assert_eq!(event.sequence, head_before + 1 + kinds.len() as u64);
        kinds.push(event.payload.unwrap().kind.unwrap());
    }
    assert!(matches!(
        kinds.first(),
        Some(proto::payload::Kind::HandOpened(_))
    ));
    assert!(matches!(
        kinds.last(),
        Some(proto::payload::Kind::SeedRevealed(_))
    ));
}

#[tokio::test(flavor = "multi_thread")]
async fn retries_of_operations_with_a_request_id_return_the_first_result() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let mut c = clients(&server).await;
    let hand = play_to_end(&mut c, proto::Game::Nutz, "T-9", "p").await;
    let request = proto::RecordTableMalfunctionRequest {
        request_id: "op-1".into(),
        table: "T-9".into(),
        from_ms: 0,
        to_ms: u64::MAX / 2,
        reason: "dice cup cracked".into(),
        recorded_by: String::new(),
    };
    let first = c
        .ops
        .record_table_malfunction(request.clone())
        .await
        .unwrap()
        .into_inner();
    let head_after = head(&mut c).await;
    let again = c
        .ops
        .record_table_malfunction(request)
        .await
        .unwrap()
        .into_inner();
    assert_eq!(again, first, "the same proposal, not a second one");
    assert_eq!(head(&mut c).await, head_after, "a retry writes nothing");
    let done = c.approve(&first.proposal).await;
    let voided = done.table_malfunction.clone().expect("done");
    assert_eq!(voided.voided_hand_ids, vec![hand.hand_id.clone()]);
    let head_after = head(&mut c).await;
    let again = c.approve(&first.proposal).await;
    assert_eq!(
        again.table_malfunction, done.table_malfunction,
        "the first result, not 'already voided'"
    );
    assert_eq!(head(&mut c).await, head_after, "a retry writes nothing");
    let sweep = proto::RunSweepRequest {
        request_id: "sweep-1".into(),
        as_of_ms: 1,
        recorded_by: String::new(),
    };
    let first = c.ops.run_sweep(sweep.clone()).await.unwrap().into_inner();
    let head_after = head(&mut c).await;
    assert_eq!(c.ops.run_sweep(sweep).await.unwrap().into_inner(), first);
    assert_eq!(head(&mut c).await, head_after);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_view_offers_the_optimal_strategys_advice() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let mut c = clients(&server).await;
    // Mississippi Stud: follow the advice to the end; every piece of advice is a legal decision.
    for _ in 0..5 {
        let mut hand = c
            .play
            .open_hand(open(
                proto::Game::MississippiStud,
                "T-10",
                "p",
                vec![wager("ante", 500)],
            ))
            .await
            .unwrap()
            .into_inner()
            .hand
            .unwrap();
        while hand.status == "in_progress" {
            let advice = hand.advice.clone().expect("advice while in progress");
            assert!(hand.legal_actions.contains(&advice), "{advice:?} not legal");
            hand = act(&mut c, &hand.hand_id.clone(), advice).await;
        }
        assert!(hand.advice.is_none(), "no advice once the hand has ended");
        assert!(replay(&mut c, &hand.hand_id).await.consistent);
    }
    // Fortune Pai Gow: the advice is the house way's setting.
    let hand = c
        .play
        .open_hand(open(
            proto::Game::FortunePaiGow,
            "T-10",
            "p",
            vec![wager("main", 500)],
        ))
        .await
        .unwrap()
        .into_inner()
        .hand
        .unwrap();
    let advice = hand.advice.expect("advice");
    assert_eq!(advice.kind, "set_hand");
    assert_eq!(advice.low, hand.suggested_low);
    // Caribbean Stud: raise or fold as the lab's exact enumeration says for the visible cards.
    let rules = match pitboss_engine::config::GameConfig::default_for(
        pitboss_engine::game::GameId::CaribbeanStud,
    )
    .rules
    {
        pitboss_engine::config::Rules::CaribbeanStud(r) => r,
        _ => unreachable!(),
    };
    let mut seen = std::collections::HashSet::new();
    for _ in 0..20 {
        let hand = c
            .play
            .open_hand(open(
                proto::Game::CaribbeanStud,
                "T-10",
                "p",
                vec![wager("ante", 500)],
            ))
            .await
            .unwrap()
            .into_inner()
            .hand
            .unwrap();
        let advice = hand.advice.clone().expect("advice at the raise decision");
        assert!(hand.legal_actions.contains(&advice), "{advice:?} not legal");
        let cards = |seat: &str| -> Vec<pitboss_engine::card::Card> {
            hand.seats
                .iter()
                .filter(|s| s.seat == seat)
                .flat_map(|s| s.cards.iter())
                .filter_map(|c| pitboss_engine::card::parse_cards(c).ok())
                .flatten()
                .collect()
        };
        let player: [_; 5] = cards("player").try_into().unwrap();
        let up = cards("dealer");
        assert_eq!(up.len(), 1, "only the up card shows: {:?}", hand.seats);
        let expected = pitboss_lab::caribbean::advise(&rules, &player, up[0]).unwrap();
        let kind = match expected {
            pitboss_lab::caribbean::Decision::Raise => "raise",
            pitboss_lab::caribbean::Decision::Fold => "fold",
        };
        assert_eq!(advice.kind, kind);
        seen.insert(kind);
        let done = act(&mut c, &hand.hand_id.clone(), advice).await;
        assert!(done.advice.is_none(), "no advice once the hand has ended");
    }
    assert_eq!(seen.len(), 2, "twenty hands both raise and fold: {seen:?}");
}

/// The Lab service over gRPC: the four games' PAR sheets (kept once computed), a simulation with
/// its chi-square, raw RNG words and shuffles streamed, and bad requests refused by field.
#[tokio::test(flavor = "multi_thread")]
async fn the_lab_serves_par_sheets_simulations_and_rng_output() {
    use pitboss::proto::lab_client::LabClient;
    use tokio_stream::StreamExt;
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let mut lab = LabClient::new(server.channel().await);
    let sheets = |game: proto::Game| proto::GetParSheetsRequest {
        game: game as i32,
        ..Default::default()
    };
    let ms = lab
        .get_par_sheets(sheets(proto::Game::MississippiStud))
        .await
        .unwrap()
        .into_inner();
    let returns: Vec<(String, f64)> = ms
        .sheets
        .iter()
        .map(|s| (s.title.clone(), (s.r#return * 10_000.0).round() / 100.0))
        .collect();
    assert_eq!(
        returns,
        vec![
            (
                "mississippi_stud / ante and street bets, optimal strategy".to_string(),
                98.63
            ),
            ("mississippi_stud / bonus".to_string(), 97.86)
        ]
    );
    let again = lab
        .get_par_sheets(sheets(proto::Game::MississippiStud))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(again.sheets, ms.sheets, "the same sheets, from the cache");
    assert!(again.seconds < 0.1, "cached: {} s", again.seconds);
    let caribbean = lab
        .get_par_sheets(sheets(proto::Game::CaribbeanStud))
        .await
        .unwrap()
        .into_inner();
    assert!((caribbean.sheets[0].house_edge - 0.05224).abs() < 0.00001);
    let nutz = lab
        .get_par_sheets(sheets(proto::Game::Nutz))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(nutz.sheets.len(), 7);
    let fortune = lab
        .get_par_sheets(proto::GetParSheetsRequest {
            game: proto::Game::FortunePaiGow as i32,
            main_bet_rounds: 100_000,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (fortune.sheets[0].r#return * 10_000.0).round() / 100.0,
        92.23
    );
    let main = fortune.main_bet.expect("the main bet simulated");
    assert_eq!(main.rounds, 100_000);
    assert!(main.interval_low < main.r#return && main.r#return < main.interval_high);

    let sim = lab
        .simulate(proto::SimulateRequest {
            game: proto::Game::CaribbeanStud as i32,
            hands: 5_000,
            strategy: proto::Strategy::Optimal as i32,
            seed: vec![3; 32],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(sim.hands, 5_000);
    assert_eq!(sim.seed, vec![3; 32]);
    let main = &sim.groups[0];
    assert_eq!(main.rows.iter().map(|r| r.hits).sum::<u64>(), 5_000);
    let chi = main
        .chi_square
        .as_ref()
        .expect("chi-square against the exact sheet");
    assert!(
        chi.unknown_rows.is_empty() && chi.p_value > 0.0001,
        "{chi:?}"
    );

    let mut words = lab
        .stream_rng_words(proto::StreamRngWordsRequest {
            words: 50_000,
            words_per_seed: 100,
        })
        .await
        .unwrap()
        .into_inner();
    let mut bytes = Vec::new();
    while let Some(chunk) = words.next().await {
        bytes.extend(chunk.unwrap().data);
    }
    assert_eq!(bytes.len(), 200_000);
    let ones: u32 = bytes.iter().map(|b| b.count_ones()).sum();
    // 1.6 million bits: the share of ones within 5 standard deviations (0.2 %) of a half.
    assert!(
        (ones as f64 / 1_600_000.0 - 0.5).abs() < 0.002,
        "{ones} ones"
    );

    let mut shuffles = lab
        .stream_shuffles(proto::StreamShufflesRequest {
            shuffles: 2_500,
            deck: proto::DeckKind::WithJoker53 as i32,
        })
        .await
        .unwrap()
        .into_inner();
    let mut decks = 0;
    while let Some(samples) = shuffles.next().await {
        let samples = samples.unwrap();
        assert_eq!(samples.deck_size, 53);
        for deck in samples.cards.chunks(53) {
            let mut sorted = deck.to_vec();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..53).collect::<Vec<u8>>(), "a permutation");
            decks += 1;
        }
    }
    assert_eq!(decks, 2_500);

    // Bad requests, refused by field.
    let refused = |r: Result<tonic::Response<proto::SimulateResponse>, tonic::Status>| {
        r.expect_err("refused")
    };
    let e = refused(
        lab.simulate(proto::SimulateRequest {
            game: proto::Game::Nutz as i32,
            hands: 0,
            ..Default::default()
        })
        .await,
    );
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().starts_with("hands:"), "{}", e.message());
    let e = refused(
        lab.simulate(proto::SimulateRequest {
            game: proto::Game::Nutz as i32,
            hands: 10,
            strategy: proto::Strategy::Always as i32,
            ..Default::default()
        })
        .await,
    );
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().starts_with("strategy:"), "{}", e.message());
    let e = refused(
        lab.simulate(proto::SimulateRequest {
            game: proto::Game::Nutz as i32,
            hands: 10,
            config_id: "ab".repeat(32),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(e.code(), Code::NotFound);
    let e = lab
        .get_par_sheets(proto::GetParSheetsRequest {
            game: proto::Game::Nutz as i32,
            main_bet_rounds: 10,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().starts_with("main_bet_rounds:"));
    let e = lab
        .stream_rng_words(proto::StreamRngWordsRequest {
            words: 0,
            words_per_seed: 0,
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
}

/// `PlayHand`: a whole hand in one call and one append — listed decisions, or the strategy's advice
/// to the end for every game; it replays like any hand, and a refused decision anywhere refuses the call with the log unchanged.
#[tokio::test(flavor = "multi_thread")]
async fn play_hand_takes_a_whole_hand_in_one_call() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let mut c = clients(&server).await;
    let bet = |multiple| proto::Action {
        kind: "bet".into(),
        multiple,
        ..Default::default()
    };
    let request = || proto::PlayHandRequest {
        open: Some(proto::OpenHandRequest {
            request_id: "batch-1".into(),
            ..open(
                proto::Game::MississippiStud,
                "T-20",
                "p20",
                vec![wager("ante", 500)],
            )
        }),
        decisions: vec![bet(1), bet(2), bet(3)],
        follow_advice: false,
    };
    let before = head(&mut c).await;
    let hand = c.play.play_hand(request()).await.unwrap().into_inner();
    let view = hand.hand.clone().unwrap();
    assert_eq!(view.status, "settled");
    assert!(!hand.duplicate);
    let report = replay(&mut c, &view.hand_id).await;
    assert!(report.consistent);
    // Opened, player cards, three decisions each with a community card, settled, seed: one append.
    let events = c
        .audit
        .get_hand_events(proto::GetHandEventsRequest {
            hand_id: view.hand_id.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .events;
    assert_eq!(events.len(), 10);
    assert!(events
        .windows(2)
        .all(|w| w[1].sequence == w[0].sequence + 1));
    assert_eq!(
        head(&mut c).await.0.unwrap() - before.0.unwrap(),
        10,
        "ten entries, one append"
    );
    // A retry answers with the first result and writes nothing.
    let after = head(&mut c).await;
    let again = c.play.play_hand(request()).await.unwrap().into_inner();
    assert!(again.duplicate);
    assert_eq!(again.hand.unwrap().hand_id, view.hand_id);
    assert_eq!(head(&mut c).await, after);

    // Every game to its end by the advice.
    for (game, wagers) in [
        (proto::Game::MississippiStud, vec![wager("ante", 500)]),
        (proto::Game::CaribbeanStud, vec![wager("ante", 500)]),
        (proto::Game::FortunePaiGow, vec![wager("main", 500)]),
        (proto::Game::Nutz, vec![wager("box_one_pair", 500)]),
    ] {
        for _ in 0..3 {
            let view = c
                .play
                .play_hand(proto::PlayHandRequest {
                    open: Some(open(game, "T-21", "p21", wagers.clone())),
                    decisions: vec![],
                    follow_advice: true,
                })
                .await
                .unwrap()
                .into_inner()
                .hand
                .unwrap();
            assert_eq!(view.status, "settled", "{game:?}");
            assert!(replay(&mut c, &view.hand_id).await.consistent);
        }
    }
    // Refusals name the decision and write nothing.
    let unchanged = head(&mut c).await;
    let refuse = |decisions: Vec<proto::Action>| proto::PlayHandRequest {
        open: Some(open(
            proto::Game::MississippiStud,
            "T-22",
            "p22",
            vec![wager("ante", 500)],
        )),
        decisions,
        follow_advice: false,
    };
    let e = c
        .play
        .play_hand(refuse(vec![bet(1), bet(7)]))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().starts_with("decisions[1]"), "{}", e.message());
    let e = c
        .play
        .play_hand(refuse(vec![bet(1), bet(1), bet(1), bet(1)]))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("decisions[3]"), "{}", e.message());
    let e = c
        .play
        .play_hand(refuse(vec![proto::Action {
            kind: "raise".into(),
            ..Default::default()
        }]))
        .await
        .unwrap_err();
    assert!(e.message().starts_with("decisions[0]"), "{}", e.message());
    let e = c
        .play
        .play_hand(proto::PlayHandRequest::default())
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().starts_with("open"), "{}", e.message());
    // Every field of the opening is checked as OpenHand checks it, named under `open.`.
    for (bad, field, code) in [
        (
            proto::OpenHandRequest {
                game: 0,
                ..open(
                    proto::Game::Nutz,
                    "T-22",
                    "p22",
                    vec![wager("box_nutz", 100)],
                )
            },
            "open.game",
            Code::InvalidArgument,
        ),
        (
            proto::OpenHandRequest {
                config_id: "zz".into(),
                ..open(
                    proto::Game::Nutz,
                    "T-22",
                    "p22",
                    vec![wager("box_nutz", 100)],
                )
            },
            "open.config_id",
            Code::InvalidArgument,
        ),
        (
            open(proto::Game::Nutz, "T-22", "p22", vec![wager("box_nutz", 7)]),
            "open.wagers.box_nutz",
            Code::InvalidArgument,
        ),
        (
            open(proto::Game::Nutz, "", "p22", vec![wager("box_nutz", 100)]),
            "open.table",
            Code::InvalidArgument,
        ),
        (
            proto::OpenHandRequest {
                config_id: "ab".repeat(32),
                ..open(
                    proto::Game::Nutz,
                    "T-22",
                    "p22",
                    vec![wager("box_nutz", 100)],
                )
            },
            "configuration",
            Code::NotFound,
        ),
    ] {
        let e = c
            .play
            .play_hand(proto::PlayHandRequest {
                open: Some(bad),
                decisions: vec![],
                follow_advice: true,
            })
            .await
            .unwrap_err();
        assert_eq!(e.code(), code, "{field}: {e:?}");
        assert!(e.message().contains(field), "{field}: {}", e.message());
    }
    let e = c
        .play
        .play_hand(proto::PlayHandRequest {
            open: Some(open(proto::Game::MississippiStud, "T-22", "p22", vec![])),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().starts_with("open.wagers"), "{}", e.message());
    assert_eq!(head(&mut c).await, unchanged);
}

/// The Merkle tree over gRPC: a checkpoint's root is what the inclusion proofs of its entries
/// lead to; sizes beyond the log are refused as OUT_OF_RANGE, naming the sizes.
#[tokio::test(flavor = "multi_thread")]
async fn checkpoints_and_proofs_over_grpc() {
    use pitboss_ledger::merkle::{leaf_hash, verify_inclusion};
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let mut c = clients(&server).await;
    for _ in 0..3 {
        c.play
            .play_hand(proto::PlayHandRequest {
                open: Some(open(
                    proto::Game::Nutz,
                    "T-30",
                    "p30",
                    vec![wager("box_nutz", 100)],
                )),
                decisions: vec![],
                follow_advice: true,
            })
            .await
            .unwrap();
    }
    let checkpoint = c
        .audit
        .get_checkpoint(proto::GetCheckpointRequest::default())
        .await
        .unwrap()
        .into_inner();
    let parsed = pitboss_ledger::checkpoint::Checkpoint::parse(&checkpoint.note).unwrap();
    let key =
        ed25519_dalek::VerifyingKey::from_bytes(&checkpoint.public_key.clone().try_into().unwrap())
            .unwrap();
    parsed.verify(&key).unwrap();
    assert_eq!(parsed.root.to_vec(), checkpoint.root_hash);
    for sequence in 0..checkpoint.tree_size {
        let p = c
            .audit
            .get_inclusion_proof(proto::GetInclusionProofRequest {
                sequence,
                tree_size: checkpoint.tree_size,
            })
            .await
            .unwrap()
            .into_inner();
        let hashes: Vec<[u8; 32]> = p
            .hashes
            .iter()
            .map(|h| h.clone().try_into().unwrap())
            .collect();
        let leaf = leaf_hash(&p.entry_hash.clone().try_into().unwrap());
        assert!(verify_inclusion(
            sequence,
            checkpoint.tree_size,
            &leaf,
            &hashes,
            &parsed.root
        ));
    }
    for (e, field) in [
        (
            c.audit
                .get_inclusion_proof(proto::GetInclusionProofRequest {
                    sequence: checkpoint.tree_size,
                    tree_size: checkpoint.tree_size,
                })
                .await
                .unwrap_err(),
            "sequence",
        ),
        (
            c.audit
                .get_checkpoint(proto::GetCheckpointRequest {
                    tree_size: checkpoint.tree_size + 100,
                })
                .await
                .unwrap_err(),
            "tree_size",
        ),
        (
            c.audit
                .get_consistency_proof(proto::GetConsistencyProofRequest {
                    first_size: 5,
                    second_size: checkpoint.tree_size + 1,
                })
                .await
                .unwrap_err(),
            "second_size",
        ),
    ] {
        use tonic_types::StatusExt;
        assert_eq!(e.code(), Code::OutOfRange, "{e:?}");
        let violation = &e
            .get_details_bad_request()
            .expect("a BadRequest")
            .field_violations[0];
        assert_eq!(violation.field, field, "{e:?}");
        assert!(
            e.message().contains("beyond the log") || e.message().contains("not in a tree of"),
            "{}",
            e.message()
        );
    }
}
