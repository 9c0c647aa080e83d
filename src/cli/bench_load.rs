//! `pitboss bench-load`: N concurrent clients play complete Mississippi Stud hands (open, three
//! street bets; as four calls, or as one `PlayHand` call with `--batch`) against a server for T
//! seconds; reports hands/s, events/s and p50/p99 latency of each call and of a whole hand.

use std::time::{Duration, Instant};

use clap::Args;

use super::client::{block_on, refused, ServerArgs};
use pitboss::proto;
use pitboss::proto::play_client::PlayClient;

#[derive(Debug, Args)]
pub struct BenchLoadArgs {
    /// Concurrent clients.
    #[arg(long, default_value_t = 8)]
    clients: usize,
    /// How long to run, in seconds.
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// Play each hand in one `PlayHand` call (opening and the three bets, one append) instead of
    /// `OpenHand` and three `Act` calls.
    #[arg(long)]
    batch: bool,
    /// Connections shared by the clients (HTTP/2 multiplexes the rest).
    #[arg(long, default_value_t = 4)]
    connections: usize,
    #[command(flatten)]
    server: ServerArgs,
}

/// Events recorded by one Mississippi Stud hand with three street bets: opened, player cards,
/// three (decision, community card), settled, seed.
const EVENTS_PER_HAND: u64 = 10;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

pub fn run(args: BenchLoadArgs) -> anyhow::Result<()> {
    block_on(async {
        let mut channels = Vec::new();
        for _ in 0..args.connections.max(1) {
            channels.push(args.server.connect().await?);
        }
        let deadline = Instant::now() + Duration::from_secs_f64(args.seconds);
        let started = Instant::now();
        let mut tasks = Vec::new();
        for i in 0..args.clients {
            let mut play = PlayClient::new(channels[i % channels.len()].clone());
            let batch = args.batch;
            tasks.push(tokio::spawn(async move {
                let mut calls = Vec::new();
                let mut hands = Vec::new();
                let open = || proto::OpenHandRequest {
                    game: proto::Game::MississippiStud as i32,
                    table: format!("load-{}", i % 16),
                    player: format!("load-player-{i}"),
                    wagers: vec![proto::Wager {
                        bet: "ante".into(),
                        amount: 500,
                    }],
                    ..Default::default()
                };
                let bet = || proto::Action {
                    kind: "bet".into(),
                    multiple: 1,
                    ..Default::default()
                };
                while Instant::now() < deadline {
                    let hand_start = Instant::now();
                    if batch {
                        // The whole hand in one call, recorded in one append.
                        let hand = play
                            .play_hand(proto::PlayHandRequest {
                                open: Some(open()),
                                decisions: vec![bet(), bet(), bet()],
                                follow_advice: false,
                            })
                            .await
                            .map_err(refused)?
                            .into_inner()
                            .hand
                            .unwrap_or_default();
                        if hand.status != "settled" {
                            anyhow::bail!("hand {} ended {}", hand.hand_id, hand.status);
                        }
                        calls.push(hand_start.elapsed());
                        hands.push(hand_start.elapsed());
                        continue;
                    }
                    let t = Instant::now();
                    let hand = play
                        .open_hand(open())
                        .await
                        .map_err(refused)?
                        .into_inner()
                        .hand
                        .unwrap_or_default();
                    calls.push(t.elapsed());
                    for _ in 0..3 {
                        let t = Instant::now();
                        play.act(proto::ActRequest {
                            hand_id: hand.hand_id.clone(),
                            action: Some(bet()),
                            ..Default::default()
                        })
                        .await
                        .map_err(refused)?;
                        calls.push(t.elapsed());
                    }
                    hands.push(hand_start.elapsed());
                }
                anyhow::Ok((calls, hands))
            }));
        }
        let (mut calls, mut hands) = (Vec::new(), Vec::new());
        for task in tasks {
            let (c, h) = task.await??;
            calls.extend(c);
            hands.extend(h);
        }
        let elapsed = started.elapsed().as_secs_f64();
        calls.sort();
        hands.sort();
        let n = hands.len() as f64;
        println!(
            "clients {}  connections {}  {}  {:.1} s",
            args.clients,
            args.connections,
            if args.batch {
                "PlayHand (1 call a hand)"
            } else {
                "OpenHand + 3 Act"
            },
            elapsed
        );
        println!("hands/s  {:.0}", n / elapsed);
        println!("events/s {:.0}", n * EVENTS_PER_HAND as f64 / elapsed);
        println!("calls/s  {:.0}", calls.len() as f64 / elapsed);
        println!(
            "call latency p50 {:.2} ms  p99 {:.2} ms;  hand p50 {:.2} ms  p99 {:.2} ms",
            percentile(&calls, 0.5).as_secs_f64() * 1e3,
            percentile(&calls, 0.99).as_secs_f64() * 1e3,
            percentile(&hands, 0.5).as_secs_f64() * 1e3,
            percentile(&hands, 0.99).as_secs_f64() * 1e3
        );
        Ok(())
    })
}
