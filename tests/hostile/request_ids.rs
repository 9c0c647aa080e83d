//! Request ids mean one request: a retry returns the first answer and writes nothing; the same id
//! on another hand, another method or with other content is refused naming `request_id` (as the
//! client wrote it: `open.request_id` in a `PlayHand`) and writes nothing; many calls with one id
//! at once make exactly one hand and every answer names it; an answer never carries the seed of a
//! hand still in progress, and never a state that is not in the log.

use std::collections::BTreeSet;

use pitboss::proto;
use tonic::Code;

use crate::support::{bet, opening, violation, Checked, Clients};
use pitboss_testkit::server::Server;

fn act(hand_id: &str, request_id: &str, action: proto::Action) -> proto::ActRequest {
    proto::ActRequest {
        request_id: request_id.into(),
        hand_id: hand_id.into(),
        action: Some(action),
        expected_version: None,
    }
}

fn void(hand_id: &str, request_id: &str) -> proto::VoidHandRequest {
    proto::VoidHandRequest {
        request_id: request_id.into(),
        hand_id: hand_id.into(),
        kind: "malfunction".into(),
        reason: "dealer misdeal".into(),
        recorded_by: String::new(),
    }
}

fn play(request_id: &str, table: &str) -> proto::PlayHandRequest {
    proto::PlayHandRequest {
        open: Some(opening(table, request_id)),
        decisions: Vec::new(),
        follow_advice: true,
    }
}

fn malfunction(table: &str, request_id: &str, to_ms: u64) -> proto::RecordTableMalfunctionRequest {
    proto::RecordTableMalfunctionRequest {
        request_id: request_id.into(),
        table: table.into(),
        from_ms: 0,
        to_ms,
        reason: "shuffler fault".into(),
        recorded_by: String::new(),
    }
}

/// Asserts a refusal names the request id (at `field`) and says what is wrong.
fn assert_reused(result: Result<impl std::fmt::Debug, tonic::Status>, field: &str) {
    let e = result.expect_err("the same id for another request is refused");
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    let (named, description) = violation(&e);
    assert_eq!(named, field, "{e:?}");
    assert!(
        description.contains("was first used for a different request"),
        "{description}"
    );
}

/// The number of hands at `table`, from the recall index.
async fn hands_at(c: &mut Clients, table: &str) -> Vec<String> {
    c.audit
        .list_hands(proto::ListHandsRequest {
            table: table.into(),
            page_size: 100,
            ..Default::default()
        })
        .await
        .expect("list")
        .into_inner()
        .hands
        .into_iter()
        .map(|h| h.hand_id)
        .collect()
}

/// The hand as the log holds it: its view, and its number of recorded events.
async fn logged(c: &mut Clients, hand_id: &str) -> (proto::HandView, usize) {
    let view = c
        .play
        .get_hand(proto::GetHandRequest {
            hand_id: hand_id.into(),
        })
        .await
        .expect("get")
        .into_inner()
        .hand
        .expect("hand");
    let events = c
        .audit
        .get_hand_events(proto::GetHandEventsRequest {
            hand_id: hand_id.into(),
            page_size: 1000,
            page_token: String::new(),
        })
        .await
        .expect("events")
        .into_inner()
        .events
        .len();
    (view, events)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_retry_returns_the_first_answer_and_writes_nothing() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let mut c = Clients::of(&server).await;

    let first = c
        .play
        .open_hand(opening("T-retry", "open-1"))
        .await
        .unwrap()
        .into_inner();
    assert!(!first.duplicate);
    let hand = first.hand.clone().unwrap();
    let head = c.head().await;
    let again = c
        .play
        .open_hand(opening("T-retry", "open-1"))
        .await
        .unwrap()
        .into_inner();
    assert!(again.duplicate);
    assert_eq!(again.hand, first.hand, "the first answer, exactly");
    assert_eq!(c.head().await, head, "a retry writes nothing");

    // A decision, retried after the hand moved on (and with the expected version it was sent
    // with): still the first answer, not a conflict.
    let send = proto::ActRequest {
        expected_version: Some(hand.version),
        ..act(&hand.hand_id, "act-1", bet(1))
    };
    let acted = c.play.act(send.clone()).await.unwrap().into_inner();
    c.play
        .act(act(&hand.hand_id, "act-2", bet(1)))
        .await
        .unwrap();
    let head = c.head().await;
    let retried = c.play.act(send).await.unwrap().into_inner();
    assert!(retried.duplicate);
    assert_eq!(retried.hand, acted.hand);
    assert_eq!(c.head().await, head);

    // A whole hand in one call: the retry carries the same hand, ended, with its seed.
    let played = c
        .play
        .play_hand(play("play-1", "T-retry"))
        .await
        .unwrap()
        .into_inner();
    let view = played.hand.clone().unwrap();
    assert_ne!(view.status, "in_progress");
    assert!(!view.seed.is_empty());
    let head = c.head().await;
    let replayed = c
        .play
        .play_hand(play("play-1", "T-retry"))
        .await
        .unwrap()
        .into_inner();
    assert!(replayed.duplicate);
    assert_eq!(replayed.hand, played.hand);

    // A void, and operations over many hands.
    let voided = c
        .ops
        .void_hand(void(&hand.hand_id, "void-1"))
        .await
        .unwrap()
        .into_inner();
    let head_after_void = c.head().await;
    assert_ne!(head_after_void, head);
    assert_eq!(
        c.ops
            .void_hand(void(&hand.hand_id, "void-1"))
            .await
            .unwrap()
            .into_inner(),
        voided
    );
    let table = c
        .ops
        .record_table_malfunction(malfunction("T-retry", "op-1", u64::MAX))
        .await
        .unwrap()
        .into_inner();
    assert!(table.proposal.is_some(), "a malfunction is a proposal");
    let head = c.head().await;
    assert_eq!(
        c.ops
            .record_table_malfunction(malfunction("T-retry", "op-1", u64::MAX))
            .await
            .unwrap()
            .into_inner(),
        table
    );
    assert_eq!(c.head().await, head);
    c.assert_serving().await;
    c.assert_verifies().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn one_id_is_one_request() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let mut c = Clients::of(&server).await;
    let a = c.open_mississippi("T-ids", "open-a").await.hand_id;
    let b = c.open_mississippi("T-ids", "open-b").await.hand_id;
    c.play.act(act(&a, "act-a", bet(1))).await.unwrap();
    c.ops
        .record_table_malfunction(malfunction("T-none", "op-1", 5))
        .await
        .unwrap();
    c.ops
        .run_sweep(proto::RunSweepRequest {
            request_id: "sweep-1".into(),
            as_of_ms: 0,
            recorded_by: String::new(),
        })
        .await
        .unwrap();
    // A configuration published under an id.
    let nutz = c
        .ops
        .list_configs(proto::ListConfigsRequest {
            game: proto::Game::Nutz as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .configs
        .remove(0)
        .canonical_json;
    let variant = |n: u32| nutz.replacen("\"version\":1", &format!("\"version\":{}", 100 + n), 1);
    assert_ne!(
        variant(1),
        nutz,
        "the configuration has a version to change"
    );
    let published = c
        .ops
        .publish_config(proto::PublishConfigRequest {
            request_id: "pub-1".into(),
            config_json: variant(1),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!published.already_published);
    let head = c.head().await;

    // Retries are answered.
    assert!(
        c.play
            .open_hand(opening("T-ids", "open-a"))
            .await
            .unwrap()
            .into_inner()
            .duplicate
    );
    assert_eq!(
        c.ops
            .publish_config(proto::PublishConfigRequest {
                request_id: "pub-1".into(),
                config_json: variant(1)
            })
            .await
            .unwrap()
            .into_inner(),
        published
    );

    // Another hand.
    assert_reused(c.play.act(act(&b, "act-a", bet(1))).await, "request_id");
    assert_reused(c.ops.void_hand(void(&b, "act-a")).await, "request_id");
    // Other content.
    assert_reused(c.play.act(act(&a, "act-a", bet(2))).await, "request_id");
    assert_reused(
        c.play
            .open_hand(proto::OpenHandRequest {
                player: "Q".into(),
                ..opening("T-ids", "open-a")
            })
            .await,
        "request_id",
    );
    assert_reused(
        c.play
            .open_hand(proto::OpenHandRequest {
                wagers: vec![proto::Wager {
                    bet: "ante".into(),
                    amount: 600,
                }],
                ..opening("T-ids", "open-a")
            })
            .await,
        "request_id",
    );
    assert_reused(
        c.ops
            .record_table_malfunction(malfunction("T-none", "op-1", 6))
            .await,
        "request_id",
    );
    assert_reused(
        c.ops
            .publish_config(proto::PublishConfigRequest {
                request_id: "pub-1".into(),
                config_json: variant(2),
            })
            .await,
        "request_id",
    );
    // Another method.
    assert_reused(c.play.act(act(&a, "open-a", bet(1))).await, "request_id");
    assert_reused(
        c.play.open_hand(opening("T-ids", "act-a")).await,
        "request_id",
    );
    assert_reused(
        c.play.play_hand(play("open-a", "T-ids")).await,
        "open.request_id",
    );
    assert_reused(c.ops.void_hand(void(&a, "act-a")).await, "request_id");
    assert_reused(
        c.ops
            .record_table_malfunction(malfunction("T-none", "sweep-1", 5))
            .await,
        "request_id",
    );
    assert_reused(
        c.ops
            .run_sweep(proto::RunSweepRequest {
                request_id: "op-1".into(),
                as_of_ms: 0,
                recorded_by: String::new(),
            })
            .await,
        "request_id",
    );
    assert_reused(c.play.act(act(&a, "op-1", bet(1))).await, "request_id");
    assert_reused(c.play.act(act(&a, "pub-1", bet(1))).await, "request_id");
    assert_reused(
        c.ops
            .publish_config(proto::PublishConfigRequest {
                request_id: "act-a".into(),
                config_json: variant(3),
            })
            .await,
        "request_id",
    );
    assert_eq!(c.head().await, head, "no refused reuse wrote anything");
    // Nothing was answered for the wrong hand: b is as it was.
    let (view, events) = logged(&mut c, &b).await;
    assert_eq!(view.version as usize, events);
    assert_eq!(view.status, "in_progress");
    c.assert_serving().await;
    c.assert_verifies().await;
}

/// Many calls with one id at once: exactly one hand, and every answer names it; none carries a
/// seed while the hand is in progress.
#[tokio::test(flavor = "multi_thread")]
async fn concurrent_duplicates_make_exactly_one_hand() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let mut c = Clients::of(&server).await;
    let before = c.head().await;

    let answers: Vec<proto::HandResponse> = {
        let tasks: Vec<_> = (0..48)
            .map(|_| {
                let mut c = c.clone();
                tokio::spawn(async move {
                    c.play
                        .open_hand(opening("T-dup", "dup-open"))
                        .await
                        .unwrap()
                        .into_inner()
                })
            })
            .collect();
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await.unwrap());
        }
        out
    };
    let ids: BTreeSet<_> = answers
        .iter()
        .map(|a| a.hand.as_ref().unwrap().hand_id.clone())
        .collect();
    assert_eq!(ids.len(), 1, "one hand: {ids:?}");
    assert_eq!(answers.iter().filter(|a| !a.duplicate).count(), 1);
    for a in &answers {
        let hand = a.hand.as_ref().unwrap();
        assert_eq!(hand.status, "in_progress");
        assert!(hand.seed.is_empty(), "no seed of a hand in progress");
    }
    assert_eq!(
        hands_at(&mut c, "T-dup").await,
        ids.iter().cloned().collect::<Vec<_>>()
    );
    let hand_id = ids.into_iter().next().unwrap();
    let (view, events) = logged(&mut c, &hand_id).await;
    assert_eq!(
        c.head().await.0,
        before.0 + events as u64,
        "one hand's entries, no more"
    );

    // Decisions with one id at once: one decision.
    let tasks: Vec<_> = (0..32)
        .map(|_| {
            let mut c = c.clone();
            let hand_id = hand_id.clone();
            tokio::spawn(async move {
                c.play
                    .act(act(&hand_id, "dup-act", bet(1)))
                    .await
                    .unwrap()
                    .into_inner()
            })
        })
        .collect();
    let mut versions = BTreeSet::new();
    for t in tasks {
        let answer = t.await.unwrap();
        let hand = answer.hand.unwrap();
        assert_eq!(hand.hand_id, hand_id);
        assert!(hand.seed.is_empty() || hand.status != "in_progress");
        versions.insert(hand.version);
    }
    assert_eq!(versions.len(), 1, "one decision: {versions:?}");
    let (after, events) = logged(&mut c, &hand_id).await;
    assert_eq!(after.version as usize, events);
    assert_eq!(Some(&after.version), versions.iter().next());
    assert!(after.version > view.version);

    // Whole hands with one id at once: one hand, ended, the same seed in every answer.
    let tasks: Vec<_> = (0..32)
        .map(|_| {
            let mut c = c.clone();
            tokio::spawn(async move {
                c.play
                    .play_hand(play("dup-play", "T-dup-play"))
                    .await
                    .unwrap()
                    .into_inner()
            })
        })
        .collect();
    let mut hands = BTreeSet::new();
    for t in tasks {
        let hand = t.await.unwrap().hand.unwrap();
        assert_ne!(hand.status, "in_progress");
        hands.insert((hand.hand_id, hand.seed));
    }
    assert_eq!(hands.len(), 1, "{hands:?}");
    assert_eq!(hands_at(&mut c, "T-dup-play").await.len(), 1);
    c.assert_serving().await;
    c.assert_verifies().await;
}

/// One id sent at once to an opening and to a decision on another hand: one of them is recorded,
/// the other refused; whichever lost, the floor's view of the hand is exactly the log's (no
/// decision that was not recorded, no seed of a hand in progress), and the hand plays on.
#[tokio::test(flavor = "multi_thread")]
async fn a_duplicate_in_flight_never_changes_what_the_floor_believes() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let mut c = Clients::of(&server).await;
    let mut outcomes = BTreeSet::new();
    for round in 0..24 {
        let hand = c.open_mississippi("T-race", "").await;
        let id = format!("race-{round}");
        let (opened, acted) = {
            let (mut c1, mut c2) = (c.clone(), c.clone());
            let id1 = id.clone();
            let id2 = id.clone();
            let hand_id = hand.hand_id.clone();
            tokio::join!(
                async move { c1.play.open_hand(opening("T-race-other", &id1)).await },
                async move { c2.play.act(act(&hand_id, &id2, bet(1))).await }
            )
        };
        match (&opened, &acted) {
            (Ok(_), Err(e)) | (Err(e), Ok(_)) => {
                assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
                assert_eq!(violation(e).0, "request_id");
            }
            other => panic!("exactly one of the two is recorded: {other:?}"),
        }
        outcomes.insert(acted.is_ok());
        let (view, events) = logged(&mut c, &hand.hand_id).await;
        assert_eq!(
            view.version as usize, events,
            "the floor's hand is the log's"
        );
        assert!(view.seed.is_empty());
        let expected = hand.version + u64::from(acted.is_ok());
        assert!(view.version >= expected);
        // The hand takes its next decision at the version the log says.
        c.play
            .act(proto::ActRequest {
                expected_version: Some(view.version),
                ..act(&hand.hand_id, "", bet(1))
            })
            .await
            .expect("the hand plays on from the logged version");
    }
    eprintln!("outcomes seen (act won): {outcomes:?}");
    c.assert_serving().await;
    c.assert_verifies().await;
}
