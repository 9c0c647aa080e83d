//! The strategy tables behind the advice, on a cold server (issue 23: the first Caribbean Stud
//! hands after a start waited 12 s, every waiting call apparently building): each configuration's
//! tables are built once however many calls need them at once — counted by the server's metrics —
//! Caribbean Stud's advice is given (and right) before its table exists, and a warm start prepares
//! the defaults' tables, once, and their theoretical returns before the server says it is ready.

use std::collections::BTreeMap;

use crate::support::*;
use pitboss::proto;
use pitboss_engine::card::{parse_cards, Card};
use pitboss_engine::config::{GameConfig, Rules};
use pitboss_engine::game::GameId;
use pitboss_testkit::server::Server;

/// The strategy builds the server counted: (started, finished) by game id.
fn builds(metrics: &str) -> BTreeMap<String, (u64, u64)> {
    let (_, _, answer) = pitboss_testkit::http::get(metrics, "/metrics");
    let mut out: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for line in answer.lines() {
        for (prefix, finished) in [
            ("pitboss_strategy_builds_started_total{game=\"", false),
            ("pitboss_strategy_builds_finished_total{game=\"", true),
        ] {
            if let Some(rest) = line.strip_prefix(prefix) {
                let (game, value) = rest.split_once("\"} ").expect(line);
                let value: u64 = value.parse().expect(line);
                let entry = out.entry(game.to_string()).or_default();
                if finished {
                    entry.1 = value;
                } else {
                    entry.0 = value;
                }
            }
        }
    }
    assert_eq!(out.len(), 4, "a count per game: {answer}");
    out
}

/// Waits (bounded, not timed: a build's speed is not what is tested) until the games that need
/// tables have begun a build and every build begun has finished; returns the counts.
async fn settled_builds(metrics: &str) -> BTreeMap<String, (u64, u64)> {
    for _ in 0..1_200 {
        let counts = builds(metrics);
        let begun = ["mississippi_stud", "caribbean_stud"]
            .iter()
            .all(|game| counts[*game].0 > 0);
        if begun
            && counts
                .values()
                .all(|(started, finished)| started == finished)
        {
            return counts;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    panic!(
        "builds still running after five minutes: {:?}",
        builds(metrics)
    );
}

fn cards_of(view: &proto::HandView, seat: &str) -> Vec<Card> {
    let shown: Vec<&str> = view
        .seats
        .iter()
        .filter(|s| s.seat == seat)
        .flat_map(|s| s.cards.iter())
        .filter(|c| !c.is_empty())
        .map(String::as_str)
        .collect();
    parse_cards(&shown.join(" ")).expect("cards")
}

/// One client's hands at once with the others': a Caribbean Stud hand played by its advice (the
/// advice checked against plain enumeration of the dealer's completions), and a Mississippi Stud
/// and a Caribbean Stud hand in one call each, following the advice.
async fn advised_hands(mut c: Clients, i: usize) {
    let table = format!("advice-{i}");
    let caribbean = GameConfig::default_for(GameId::CaribbeanStud);
    let Rules::CaribbeanStud(rules) = &caribbean.rules else {
        unreachable!()
    };
    let view = c
        .play
        .open_hand(open(
            proto::Game::CaribbeanStud,
            &table,
            "p",
            vec![wager("ante", 1000)],
        ))
        .await
        .expect("opened")
        .into_inner()
        .hand
        .unwrap();
    let player: [Card; 5] = cards_of(&view, "player").try_into().expect("five cards");
    let [up] = cards_of(&view, "dealer")[..] else {
        panic!("one dealer card up: {view:?}")
    };
    let expected = match pitboss_lab::caribbean::advise(rules, &player, up).unwrap() {
        pitboss_lab::caribbean::Decision::Raise => "raise",
        pitboss_lab::caribbean::Decision::Fold => "fold",
    };
    let advice = view.advice.clone().expect("advice, table built or not");
    assert_eq!(advice.kind, expected, "{view:?}");
    assert!(view.advice_unavailable.is_empty());
    let done = c
        .play
        .act(proto::ActRequest {
            hand_id: view.hand_id.clone(),
            action: Some(advice),
            ..Default::default()
        })
        .await
        .expect("acted")
        .into_inner()
        .hand
        .unwrap();
    assert_eq!(done.status, "settled");
    for (game, ante) in [
        (proto::Game::MississippiStud, 500),
        (proto::Game::CaribbeanStud, 1000),
    ] {
        let view = c
            .play
            .play_hand(pitboss_testkit::load::advised_hand(
                game, &table, "p", "ante", ante,
            ))
            .await
            .expect("played")
            .into_inner()
            .hand
            .unwrap();
        assert_eq!(view.status, "settled", "{game:?}");
    }
}

async fn burst(server: &Server, n: usize) {
    let mut running = tokio::task::JoinSet::new();
    for i in 0..n {
        running.spawn(advised_hands(clients(server).await, i));
    }
    while let Some(done) = running.join_next().await {
        done.expect("a client's hands");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cold_server_builds_each_configurations_tables_once_whoever_asks() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start_with(data.path(), &["--metrics", "127.0.0.1:0"]);
    let metrics = server.metrics.clone().expect("metrics");
    assert!(
        builds(&metrics).values().all(|&(s, f)| s == 0 && f == 0),
        "a server started with --warm false builds nothing until asked"
    );
    // Eight clients at once, each needing both games' tables.
    burst(&server, 8).await;
    let counts = settled_builds(&metrics).await;
    assert_eq!(counts["mississippi_stud"], (1, 1), "{counts:?}");
    assert_eq!(counts["caribbean_stud"], (1, 1), "{counts:?}");
    assert_eq!(
        counts["fortune_pai_gow"],
        (0, 0),
        "the house way needs no table"
    );
    assert_eq!(counts["nutz"], (0, 0), "shaking needs no table");
    // Again, with the tables built: nothing more is built.
    burst(&server, 4).await;
    assert_eq!(settled_builds(&metrics).await, counts);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_warm_start_prepares_the_defaults_tables_and_theories_before_it_is_ready() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start_with(data.path(), &["--metrics", "127.0.0.1:0", "--warm", "true"]);
    let metrics = server.metrics.clone().expect("metrics");
    // Ready means built: the counts are final before any hand is played.
    let counts = builds(&metrics);
    assert_eq!(counts["mississippi_stud"], (1, 1), "{counts:?}");
    assert_eq!(counts["caribbean_stud"], (1, 1), "{counts:?}");
    burst(&server, 4).await;
    burst(&server, 2).await;
    assert_eq!(builds(&metrics), counts, "no hand started another build");
    // The returns' theory of every default configuration was computed before the start too: the
    // first time the returns show a configuration's hands, its theoretical return is there.
    let mut c = clients(&server).await;
    let mut looks = 0;
    let rows = loop {
        looks += 1;
        assert!(looks <= 1_500, "the returns never showed both games' hands");
        let rows = c
            .audit
            .get_returns(proto::GetReturnsRequest::default())
            .await
            .expect("returns")
            .into_inner()
            .rows;
        let games: std::collections::BTreeSet<String> = rows
            .iter()
            .filter_map(|r| r.totals.as_ref().map(|t| t.game.clone()))
            .collect();
        if games.len() == 2 {
            break rows;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    for row in &rows {
        assert!(
            row.theoretical.is_some() && row.theory_note.is_empty(),
            "a default configuration's theory, known from the start: {row:?}"
        );
    }
}
