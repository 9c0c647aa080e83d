//! Play: every game played through the API and replayed, a hand surviving a restart mid-hand,
//! many clients racing on one hand, the strategy's advice in the view, and `PlayHand` (a whole
//! hand in one call and one append). Its refusals are in `refusals.rs`.

use crate::support::{act, bet, clients, head, open, opened, play_to_end, replay, wager};
use pitboss::proto;
use pitboss_testkit::server::Server;
use tonic::Code;

#[tokio::test(flavor = "multi_thread")]
async fn every_game_played_through_the_api_replays_consistently() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
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
    let hand = opened(
        &mut c,
        open(
            proto::Game::MississippiStud,
            "T-2",
            "p",
            vec![wager("ante", 1000)],
        ),
    )
    .await;
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
    let server = Server::in_process(&data_dir);
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
async fn many_clients_acting_on_one_hand_land_exactly_one_decision() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
    let hand = opened(
        &mut c,
        open(
            proto::Game::MississippiStud,
            "T-5",
            "p",
            vec![wager("ante", 500)],
        ),
    )
    .await;
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
async fn the_view_offers_the_optimal_strategys_advice() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
    // Mississippi Stud: follow the advice to the end; every piece of advice is a legal decision.
    for _ in 0..5 {
        let mut hand = opened(
            &mut c,
            open(
                proto::Game::MississippiStud,
                "T-10",
                "p",
                vec![wager("ante", 500)],
            ),
        )
        .await;
        while hand.status == "in_progress" {
            let advice = hand.advice.clone().expect("advice while in progress");
            assert!(hand.legal_actions.contains(&advice), "{advice:?} not legal");
            hand = act(&mut c, &hand.hand_id.clone(), advice).await;
        }
        assert!(hand.advice.is_none(), "no advice once the hand has ended");
        assert!(replay(&mut c, &hand.hand_id).await.consistent);
    }
    // Fortune Pai Gow: the advice is the house way's setting.
    let hand = opened(
        &mut c,
        open(
            proto::Game::FortunePaiGow,
            "T-10",
            "p",
            vec![wager("main", 500)],
        ),
    )
    .await;
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
        let hand = opened(
            &mut c,
            open(
                proto::Game::CaribbeanStud,
                "T-10",
                "p",
                vec![wager("ante", 500)],
            ),
        )
        .await;
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

/// `PlayHand`: a whole hand in one call and one append — listed decisions; it replays like any
/// hand, and a retry answers with the first result and writes nothing.
#[tokio::test(flavor = "multi_thread")]
async fn play_hand_takes_a_whole_hand_in_one_call() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
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
}

/// `PlayHand` following the strategy's advice to the end, for every game; each hand replays.
#[tokio::test(flavor = "multi_thread")]
async fn play_hand_follows_the_advice_to_the_end_in_every_game() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
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
}
