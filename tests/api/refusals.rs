//! Bad input refused with the right code, naming the field, and writing nothing: one test per
//! write RPC (or group of them), each against its own server holding a hand in progress and a
//! settled one, each ending with the log's head unchanged. Then `PlayHand`'s refusals, named by
//! decision or under `open.`.

use crate::support::{action, bet, clients, head, open, opened, play_to_end, wager, Clients};
use pitboss::proto;
use pitboss_testkit::server::Server;
use tonic::Code;

/// The log every refusal is tried against: a Mississippi Stud hand in progress and a settled Nutz
/// hand on table T-4, and the log's head then, which no refused request may move.
struct Log {
    live: proto::HandView,
    settled: proto::HandView,
    before: (Option<u64>, String),
}

async fn a_live_and_a_settled_hand(c: &mut Clients) -> Log {
    let live = opened(
        c,
        open(
            proto::Game::MississippiStud,
            "T-4",
            "p",
            vec![wager("ante", 500)],
        ),
    )
    .await;
    let settled = play_to_end(c, proto::Game::Nutz, "T-4", "p").await;
    let before = head(c).await;
    Log {
        live,
        settled,
        before,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_on_open_hand_is_refused_with_the_right_code_and_writes_nothing() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
    let Log { before, .. } = a_live_and_a_settled_hand(&mut c).await;

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
        assert_names(&err, field);
    }
    assert_eq!(
        head(&mut c).await,
        before,
        "no refused request wrote anything"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_on_act_is_refused_with_the_right_code_and_writes_nothing() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
    let Log {
        live,
        settled,
        before,
    } = a_live_and_a_settled_hand(&mut c).await;

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
            "action.bet.multiple",
        ),
        (
            proto::ActRequest {
                hand_id: live.hand_id.clone(),
                action: Some(action("raise")),
                ..Default::default()
            },
            Code::InvalidArgument,
            "action",
        ),
        (
            proto::ActRequest {
                hand_id: live.hand_id.clone(),
                action: Some(bet(1)),
                expected_version: Some(99),
                ..Default::default()
            },
            Code::Aborted,
            "VERSION_CONFLICT",
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
            "HAND_ENDED",
        ),
    ];
    for (request, code, words) in acts {
        let err = c.play.act(request.clone()).await.expect_err("refused");
        assert_eq!(err.code(), code, "{request:?}: {}", err.message());
        assert_names(&err, words);
    }
    assert_eq!(
        head(&mut c).await,
        before,
        "no refused request wrote anything"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_on_void_hand_is_refused_with_the_right_code_and_writes_nothing() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
    let Log { live, before, .. } = a_live_and_a_settled_hand(&mut c).await;

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
    assert_eq!(
        head(&mut c).await,
        before,
        "no refused request wrote anything"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_on_publish_config_is_refused_naming_the_field_and_writes_nothing() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
    let Log { before, .. } = a_live_and_a_settled_hand(&mut c).await;

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
    // A configuration every hand could settle but the lab cannot analyse (its advice and PAR
    // sheet count the ante in antes): refused before it is written, naming the field,
    // never accepted to fail each hand under it later.
    let mut fixed = serde_json::to_value(pitboss_engine::config::GameConfig::default_for(
        pitboss_engine::game::GameId::CaribbeanStud,
    ))
    .unwrap();
    fixed["rules"]["caribbean_stud"]["ante_win"] = serde_json::json!({"fixed": 200});
    assert!(
        pitboss_engine::config::GameConfig::from_json(fixed.to_string().as_bytes()).is_ok(),
        "the configuration parses: the refusal is the lab's"
    );
    let err = c
        .ops
        .publish_config(proto::PublishConfigRequest {
            config_json: fixed.to_string(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    {
        use tonic_types::StatusExt;
        let details = err.get_error_details();
        let violations = &details.bad_request().expect("BadRequest").field_violations;
        assert_eq!(
            violations[0].field,
            "config_json.rules.caribbean_stud.ante_win"
        );
    }
    assert_eq!(
        head(&mut c).await,
        before_publish,
        "nothing written for a refused configuration"
    );
    assert_eq!(
        head(&mut c).await,
        before,
        "no refused request wrote anything"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_on_malfunctions_and_sweeps_is_refused_and_writes_nothing() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
    let Log { before, .. } = a_live_and_a_settled_hand(&mut c).await;

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

/// `PlayHand`: a refused decision anywhere, or a bad opening, refuses the call with the log
/// unchanged — the decision named by index, the opening's fields under `open.`.
#[tokio::test(flavor = "multi_thread")]
async fn play_hand_refuses_a_bad_decision_or_opening_and_writes_nothing() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
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
    assert_names(&e, "decisions[1]");
    let e = c
        .play
        .play_hand(refuse(vec![bet(1), bet(1), bet(1), bet(1)]))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert_names(&e, "decisions[3]");
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
        assert_names(&e, field);
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

/// The refusal's details name `expected` (a field path, or a path under it such as `wagers.ante`
/// under `wagers`; a precondition's type or subject; an `ErrorInfo` reason; a resource type).
fn assert_names(status: &tonic::Status, expected: &str) {
    let names = pitboss_testkit::refusal::names(status);
    assert!(
        names.iter().any(|name| name == expected
            || name.starts_with(&format!("{expected}."))
            || name.starts_with(&format!("{expected}["))),
        "{expected} not among {names:?}: {status:?}"
    );
}
