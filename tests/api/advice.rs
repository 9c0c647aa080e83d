//! The strategy tables behind the advice, on a cold server, so that the first hands after a start
//! do not freeze: each configuration's tables are built once however many calls need them at
//! once — counted by the server's metrics — Caribbean Stud's advice is given (and right) before
//! its table exists, and a warm start prepares the defaults' tables, once, and their theoretical
//! returns before the server says it is ready.

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

/// What the start prepared, by the metrics: (loaded from the data directory, computed).
fn prepared(metrics: &str) -> (u64, u64) {
    let (_, _, answer) = pitboss_testkit::http::get(metrics, "/metrics");
    let count = |how: &str| -> u64 {
        let prefix = format!("pitboss_prepared{{how=\"{how}\"}} ");
        answer
            .lines()
            .find_map(|line| line.strip_prefix(prefix.as_str()))
            .unwrap_or_else(|| panic!("no {prefix}in {answer}"))
            .parse()
            .expect("a count")
    };
    (count("loaded"), count("computed"))
}

/// From the moment the port accepts, the server answers: while it prepares, health says
/// NOT_SERVING and a call is answered UNAVAILABLE at once (`PREPARING`, with a retry delay); once
/// ready, SERVING and served. What it prepared is kept in the data directory: a restart loads every
/// table and theory and computes none.
#[tokio::test(flavor = "multi_thread")]
async fn the_port_answers_while_the_server_prepares_and_a_restart_loads_what_it_prepared() {
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::health_client::HealthClient;
    use tonic_health::pb::HealthCheckRequest;

    let data = tempfile::tempdir().unwrap();
    let listen = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().to_string()
    };
    let args = [
        "--listen",
        &listen,
        "--warm",
        "true",
        "--metrics",
        "127.0.0.1:0",
    ];
    let mut starting = Server::starting(data.path(), &args);
    // A client that calls as soon as the port accepts (a minute at most for the process to open
    // its log and bind).
    let mut tries = 0;
    let channel = loop {
        tries += 1;
        assert!(!starting.exited(), "the server stopped before it listened");
        assert!(tries <= 3_000, "the port never accepted");
        let endpoint = tonic::transport::Channel::from_shared(format!("http://{listen}")).unwrap();
        match endpoint.connect().await {
            Ok(channel) => break channel,
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(20)).await,
        }
    };
    let mut health = HealthClient::new(channel.clone());
    let check = || HealthCheckRequest {
        service: String::new(),
    };
    let first = health
        .check(check())
        .await
        .expect("health answers")
        .into_inner();
    assert_eq!(
        first.status,
        ServingStatus::NotServing as i32,
        "while the server prepares, health says so"
    );
    let mut play = proto::play_client::PlayClient::new(
        pitboss_client::authorized(channel, Some(pitboss_testkit::server::ADMIN_TOKEN)).unwrap(),
    );
    let nutz = || proto::PlayHandRequest {
        open: Some(open(
            proto::Game::Nutz,
            "T-P",
            "p",
            vec![wager("box_one_pair", 100)],
        )),
        decisions: vec![],
        follow_advice: true,
    };
    let refused = play.play_hand(nutz()).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::Unavailable, "{refused:?}");
    assert_eq!(
        pitboss_testkit::refusal::reason(&refused).as_deref(),
        Some("PREPARING")
    );
    let details = tonic_types::StatusExt::get_error_details(&refused);
    assert!(details.retry_info().is_some(), "a retry delay: {refused:?}");

    let server = starting.ready();
    let ready = health.check(check()).await.unwrap().into_inner();
    assert_eq!(ready.status, ServingStatus::Serving as i32);
    play.play_hand(nutz()).await.expect("served once ready");
    let metrics = server.metrics.clone().expect("metrics");
    let (loaded, computed) = prepared(&metrics);
    assert_eq!(loaded, 0, "nothing was kept before the first start");
    // Two games' tables and the four default configurations' theories.
    assert_eq!(computed, 6);
    let kept: Vec<String> = std::fs::read_dir(data.path().join("prepared"))
        .expect("kept in the data directory")
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        kept.iter().filter(|n| n.starts_with("tables-")).count(),
        2,
        "{kept:?}"
    );
    assert_eq!(
        kept.iter().filter(|n| n.starts_with("theory-")).count(),
        4,
        "{kept:?}"
    );
    assert!(server.stop(), "a clean stop");

    let again = Server::start_with(data.path(), &["--warm", "true", "--metrics", "127.0.0.1:0"]);
    let metrics = again.metrics.clone().expect("metrics");
    assert_eq!(
        prepared(&metrics),
        (6, 0),
        "a restart loads all and computes none"
    );
    let counts = builds(&metrics);
    assert_eq!(counts["mississippi_stud"], (1, 1), "{counts:?}");
    assert_eq!(counts["caribbean_stud"], (1, 1), "{counts:?}");
}
