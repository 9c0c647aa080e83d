//! Memory and CPU stay bounded whatever clients do: steady play does not grow the server, heavy
//! lab work a client abandons stops and frees the lab for the next, streams are limited in number
//! and end with their clients, and recall examines a bounded part of a history per call.

use std::time::{Duration, Instant};

use pitboss::proto;
use tonic::Code;

use crate::support::{resident_kib, whole_hand, Checked, Clients};
use pitboss_testkit::server::Server;

/// Whole hands, `n` of them, each in one `PlayHand` call following the strategy's advice.
async fn play_hands(c: &mut Clients, n: usize, table: &str) {
    for i in 0..n {
        whole_hand(&mut c.play, table, &format!("P{}", i % 50)).await;
    }
}

/// Hands that end are not kept: after a warm-up, thousands more hands leave the server's resident
/// memory where it was.
#[tokio::test(flavor = "multi_thread")]
async fn steady_play_does_not_grow_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let mut c = Clients::of(&server).await;
    play_hands(&mut c, 1_000, "warm").await;
    let warm = resident_kib(&server);
    play_hands(&mut c, 6_000, "steady").await;
    let after = resident_kib(&server);
    // RocksDB's memtable and block cache grow a little with the log; hands must not.
    assert!(
        after < warm + 24 * 1024,
        "resident memory grew from {warm} KiB to {after} KiB over 6 000 hands"
    );
    c.assert_serving().await;
    c.assert_verifies().await;
}

/// A simulation of 50 million hands abandoned after 200 ms stops: the lab's one worker is free
/// for the next request within seconds, not after the minutes the whole run would take.
#[tokio::test(flavor = "multi_thread")]
async fn abandoned_heavy_work_stops_and_frees_the_lab() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let mut c = Clients::of(&server).await;
    let head = c.head().await;
    for _ in 0..3 {
        let abandoned = tokio::time::timeout(
            Duration::from_millis(200),
            c.lab.simulate(proto::SimulateRequest {
                game: proto::Game::Nutz as i32,
                hands: 50_000_000,
                ..Default::default()
            }),
        )
        .await;
        assert!(abandoned.is_err(), "the client gave up first");
    }
    let started = Instant::now();
    let small = c
        .lab
        .simulate(proto::SimulateRequest {
            game: proto::Game::Nutz as i32,
            hands: 1_000,
            ..Default::default()
        })
        .await
        .expect("the lab answers")
        .into_inner();
    assert_eq!(small.hands, 1_000);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the abandoned runs stopped (the next waited {:?})",
        started.elapsed()
    );
    assert_eq!(c.head().await, head, "the lab writes nothing");
    c.assert_serving().await;
}

/// Lab streams are limited in number; one whose client goes away ends and frees its place.
#[tokio::test(flavor = "multi_thread")]
async fn lab_streams_are_limited_and_end_with_their_clients() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let mut c = Clients::of(&server).await;
    let shuffles = || proto::StreamShufflesRequest {
        shuffles: 100_000_000,
        deck: proto::DeckKind::Standard52 as i32,
    };
    // Streams opened and never read: as many as the limit are served...
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(c.lab.stream_shuffles(shuffles()).await.expect("a stream"));
    }
    // ...and one more is refused at once.
    let refused = c.lab.stream_shuffles(shuffles()).await.unwrap_err();
    assert_eq!(refused.code(), Code::ResourceExhausted, "{refused:?}");
    // The clients go away: their producers end and their places are free again.
    drop(held);
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut stream = loop {
        match c.lab.stream_shuffles(shuffles()).await {
            Ok(stream) => break stream.into_inner(),
            Err(e) if e.code() == Code::ResourceExhausted && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => panic!("the places were not freed: {e:?}"),
        }
    };
    let first = stream.message().await.expect("read").expect("a message");
    assert_eq!(first.deck_size, 52);
    drop(stream);
    c.assert_serving().await;
}

/// Event streams are limited in number too, over every connection, and end when their clients
/// go away.
#[tokio::test(flavor = "multi_thread")]
async fn event_streams_are_limited() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let mut c = Clients::of(&server).await;
    // A connection carries at most 128 calls at once: spread the streams over several.
    let mut connections = Vec::new();
    for _ in 0..4 {
        connections.push(Clients::of(&server).await);
    }
    let mut held = Vec::new();
    let refused = loop {
        let connection = &mut connections[held.len() / 100];
        match connection
            .audit
            .stream_events(proto::StreamEventsRequest {
                from_sequence: 0,
                ..Default::default()
            })
            .await
        {
            Ok(stream) => held.push(stream),
            Err(e) => break e,
        }
        assert!(held.len() <= 256, "no limit on event streams");
    };
    assert_eq!(refused.code(), Code::ResourceExhausted, "{refused:?}");
    assert_eq!(held.len(), 256);
    drop(held);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match c
            .audit
            .stream_events(proto::StreamEventsRequest {
                from_sequence: 0,
                ..Default::default()
            })
            .await
        {
            Ok(_) => break,
            Err(e) if e.code() == Code::ResourceExhausted && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => panic!("the places were not freed: {e:?}"),
        }
    }
    c.assert_serving().await;
}

/// Recall with a filter that matches nothing examines a bounded part of the history per call and
/// says where to continue; following the tokens reaches the end.
#[tokio::test(flavor = "multi_thread")]
async fn recall_examines_a_bounded_part_per_call() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let mut c = Clients::of(&server).await;
    // 2 500 settled hands of one player: more than one call examines.
    for _ in 0..5 {
        play_one_player(&mut c, 500).await;
    }
    let mut token = String::new();
    let mut calls = 0;
    loop {
        let page = c
            .audit
            .list_hands(proto::ListHandsRequest {
                player: "recall-player".into(),
                status: "in_progress".into(),
                page_size: 100,
                page_token: token.clone(),
                ..Default::default()
            })
            .await
            .expect("a page")
            .into_inner();
        assert!(
            page.hands.is_empty(),
            "no hand of this player is in progress"
        );
        calls += 1;
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
        assert!(calls < 10, "the listing ends");
    }
    assert_eq!(calls, 2, "2 500 hands: two calls of at most 2 000 examined");
}

async fn play_one_player(c: &mut Clients, n: usize) {
    for _ in 0..n {
        c.play
            .play_hand(pitboss_testkit::load::nutz_hand(
                "recall",
                "recall-player",
                "box_one_pair",
            ))
            .await
            .expect("a hand");
    }
}
