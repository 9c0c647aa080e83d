//! `pitboss bench-load`: N concurrent clients play complete hands against one server or several
//! (`--also-server`, e.g. servers sharing one PostgreSQL log), for T seconds or a fixed number of
//! hands (`--hands`), and report hands/s, events/s and latency percentiles of each call and of a
//! whole hand, overall and per game.
//!
//! Games (`--games`): Mississippi Stud alone by default (open, then three 1× street bets: as four
//! calls, or one `PlayHand` call with `--batch`), or a mix drawn at random per hand from a list
//! (`all`: the four games). The other games play the strategy's advice: each `Act` takes the
//! view's `advice`, or with `--batch` one `PlayHand` follows it (`follow_advice`). Started on a
//! fresh server, the mix shows what a cold start costs each game (the first hands wait for nothing
//! but the strategy tables' builds, `service/advice.rs`).
//!
//! A benchmark, not a test: nothing here asserts a speed.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;

use super::client::{block_on, hand_of, ServerArgs};
use super::demo;
use pitboss::codec;
use pitboss::proto;
use pitboss::proto::play_client::PlayClient;
use pitboss_engine::game::GameId;

#[derive(Debug, Args)]
pub struct BenchLoadArgs {
    /// Concurrent clients.
    #[arg(long, default_value_t = 8)]
    clients: usize,
    /// How long to run, in seconds (unless `--hands` is given).
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// Play exactly this many hands in all, whatever the time (a fixed amount of work).
    #[arg(long)]
    hands: Option<u64>,
    /// Play each hand in one `PlayHand` call (one append) instead of `OpenHand` and `Act` calls.
    #[arg(long)]
    batch: bool,
    /// The games played, comma-separated (`mississippi_stud`, `fortune_pai_gow`, `nutz`,
    /// `caribbean_stud`) or `all`; each hand's game is drawn at random among them.
    #[arg(long, default_value = "mississippi_stud", value_parser = parse_games)]
    games: Games,
    /// Connections to each server, shared by the clients (HTTP/2 multiplexes the rest).
    #[arg(long, default_value_t = 4)]
    connections: usize,
    /// More servers (with the same credentials) to spread the clients over, round robin.
    #[arg(long = "also-server", value_name = "URL")]
    also: Vec<String>,
    #[command(flatten)]
    server: ServerArgs,
}

/// The games a run draws from.
#[derive(Clone, Debug)]
struct Games(Vec<GameId>);

fn parse_games(text: &str) -> Result<Games, String> {
    if text == "all" {
        return Ok(Games(GameId::ALL.to_vec()));
    }
    let mut games = Vec::new();
    for name in text.split(',').map(str::trim) {
        let game: GameId = name.parse().map_err(|err| format!("{err}, or all"))?;
        if !games.contains(&game) {
            games.push(game);
        }
    }
    Ok(Games(games))
}

/// What one client measured: per game, each call's and each hand's latency, and events recorded.
#[derive(Default)]
struct Measured {
    calls: BTreeMap<&'static str, Vec<Duration>>,
    hands: BTreeMap<&'static str, Vec<Duration>>,
    events: u64,
}

impl Measured {
    fn merge(&mut self, other: Measured) {
        for (game, c) in other.calls {
            self.calls.entry(game).or_default().extend(c);
        }
        for (game, h) in other.hands {
            self.hands.entry(game).or_default().extend(h);
        }
        self.events += other.events;
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A small generator for the clients' choice of game (not the deal: the server deals).
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Plays one hand of `game`; returns the hand's final view and each call's latency.
async fn play_one(
    play: &mut PlayClient<pitboss_client::Authorized>,
    game: GameId,
    table: String,
    player: String,
    batch: bool,
    calls: &mut Vec<Duration>,
) -> anyhow::Result<proto::HandView> {
    let (wagers, _) = demo::plan(codec::game_to(game));
    let open = proto::OpenHandRequest {
        game: codec::game_to(game) as i32,
        table,
        player,
        wagers,
        ..Default::default()
    };
    // Mississippi Stud bets 1× on each street (the benchmark's historical hand); the other games
    // follow the strategy's advice.
    let fixed = game == GameId::MississippiStud;
    let bet = || proto::Action {
        kind: "bet".into(),
        multiple: 1,
        ..Default::default()
    };
    let t = Instant::now();
    if batch {
        let hand = hand_of(
            play.play_hand(proto::PlayHandRequest {
                open: Some(open),
                decisions: if fixed {
                    vec![bet(), bet(), bet()]
                } else {
                    Vec::new()
                },
                follow_advice: !fixed,
            })
            .await,
        )?;
        calls.push(t.elapsed());
        return Ok(hand);
    }
    let mut hand = hand_of(play.open_hand(open).await)?;
    calls.push(t.elapsed());
    while hand.status == "in_progress" {
        let action = if fixed {
            bet()
        } else {
            hand.advice.clone().ok_or_else(|| {
                anyhow::anyhow!(
                    "hand {} awaits a decision without advice: {}",
                    hand.hand_id,
                    hand.advice_unavailable
                )
            })?
        };
        let t = Instant::now();
        hand = hand_of(
            play.act(proto::ActRequest {
                hand_id: hand.hand_id.clone(),
                action: Some(action),
                expected_version: Some(hand.version),
                ..Default::default()
            })
            .await,
        )?;
        calls.push(t.elapsed());
    }
    Ok(hand)
}

pub fn run(args: BenchLoadArgs) -> anyhow::Result<()> {
    super::trace_if_asked();
    if args.games.0.is_empty() {
        anyhow::bail!("--games names no game");
    }
    block_on(async {
        let mut channels = Vec::new();
        for address in std::iter::once(&args.server.server).chain(&args.also) {
            let server = ServerArgs {
                server: address.clone(),
                ..args.server.clone()
            };
            for _ in 0..args.connections.max(1) {
                channels.push(server.connect().await?);
            }
        }
        let servers = 1 + args.also.len();
        let deadline = Instant::now() + Duration::from_secs_f64(args.seconds);
        let remaining = Arc::new(AtomicU64::new(args.hands.unwrap_or(u64::MAX)));
        let fixed_count = args.hands.is_some();
        let started = Instant::now();
        let mut tasks = Vec::new();
        for i in 0..args.clients {
            // Client i talks to server i mod servers, on one of that server's connections.
            let server = i % servers;
            let connection = (i / servers) % args.connections.max(1);
            let mut play =
                PlayClient::new(channels[server * args.connections.max(1) + connection].clone());
            let games = args.games.0.clone();
            let batch = args.batch;
            let remaining = remaining.clone();
            tasks.push(tokio::spawn(async move {
                let mut measured = Measured::default();
                let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ (i as u64 + 1);
                loop {
                    if fixed_count {
                        if remaining
                            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                                n.checked_sub(1)
                            })
                            .is_err()
                        {
                            break;
                        }
                    } else if Instant::now() >= deadline {
                        break;
                    }
                    let game = games[(next(&mut state) % games.len() as u64) as usize];
                    let name = game.id();
                    let hand_start = Instant::now();
                    let mut calls = Vec::new();
                    let hand = play_one(
                        &mut play,
                        game,
                        format!("load-{}", i % 16),
                        format!("load-player-{i}"),
                        batch,
                        &mut calls,
                    )
                    .await?;
                    if hand.status != "settled" {
                        anyhow::bail!("hand {} ended {}", hand.hand_id, hand.status);
                    }
                    measured
                        .hands
                        .entry(name)
                        .or_default()
                        .push(hand_start.elapsed());
                    measured.calls.entry(name).or_default().extend(calls);
                    measured.events += hand.version;
                }
                anyhow::Ok(measured)
            }));
        }
        let mut all = Measured::default();
        for task in tasks {
            all.merge(task.await??);
        }
        let elapsed = started.elapsed().as_secs_f64();
        report(&args, servers, elapsed, all);
        Ok(())
    })
}

fn report(args: &BenchLoadArgs, servers: usize, elapsed: f64, mut all: Measured) {
    let mut calls: Vec<Duration> = all.calls.values().flatten().copied().collect();
    let mut hands: Vec<Duration> = all.hands.values().flatten().copied().collect();
    calls.sort();
    hands.sort();
    let n = hands.len() as f64;
    println!(
        "clients {}  servers {}  connections {}  {}  {}  {:.1} s",
        args.clients,
        servers,
        args.connections,
        if args.batch {
            "PlayHand (1 call a hand)"
        } else {
            "OpenHand + Act"
        },
        args.games
            .0
            .iter()
            .map(|g| g.id())
            .collect::<Vec<_>>()
            .join(","),
        elapsed
    );
    println!("hands    {}", hands.len());
    println!("hands/s  {:.0}", n / elapsed);
    println!("events/s {:.0}", all.events as f64 / elapsed);
    println!("calls/s  {:.0}", calls.len() as f64 / elapsed);
    println!(
        "call latency p50 {:.2} ms  p99 {:.2} ms  max {:.2} ms;  hand p50 {:.2} ms  p99 {:.2} ms  max {:.2} ms",
        ms(percentile(&calls, 0.5)),
        ms(percentile(&calls, 0.99)),
        ms(calls.last().copied().unwrap_or_default()),
        ms(percentile(&hands, 0.5)),
        ms(percentile(&hands, 0.99)),
        ms(hands.last().copied().unwrap_or_default()),
    );
    if all.hands.len() > 1 || args.games.0 != [GameId::MississippiStud] {
        println!(
            "{:<17} {:>7}  {:>9} {:>9} {:>9}  {:>9} {:>9} {:>9}",
            "game", "hands", "call p50", "call p99", "call max", "hand p50", "hand p99", "hand max"
        );
        for (game, hands) in all.hands.iter_mut() {
            hands.sort();
            let calls = all.calls.entry(game).or_default();
            calls.sort();
            println!(
                "{:<17} {:>7}  {:>9.2} {:>9.2} {:>9.2}  {:>9.2} {:>9.2} {:>9.2}",
                game,
                hands.len(),
                ms(percentile(calls, 0.5)),
                ms(percentile(calls, 0.99)),
                ms(calls.last().copied().unwrap_or_default()),
                ms(percentile(hands, 0.5)),
                ms(percentile(hands, 0.99)),
                ms(hands.last().copied().unwrap_or_default()),
            );
        }
        println!("(latencies in ms)");
    }
}
