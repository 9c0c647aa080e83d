//! `pitboss bench-soak`: a long mixed load against a server, to show that its memory stays flat
//! whatever clients do. Each client loops over play (whole hands with `PlayHand`, interactive hands
//! with `OpenHand` and `Act`), recall, replay and bundles of recent hands, the lab (PAR sheets, RNG
//! words), refused requests (oversized ids and fields, unknown hands), and heavy lab work it
//! abandons (a long simulation or stream cancelled after a few milliseconds). Every `--sample`
//! seconds it prints one CSV line: elapsed seconds, the server's resident memory (from
//! `/proc/PID/status`, when `--pid` is given), and the counts so far (`limited`: calls a server
//! limit answered `RESOURCE_EXHAUSTED`, which is the limit working; `errors`: anything else that
//! failed, the first few printed).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;

use super::client::{block_on, ServerArgs};
use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;
use pitboss::proto::lab_client::LabClient;
use pitboss::proto::play_client::PlayClient;

#[derive(Debug, Args)]
pub struct BenchSoakArgs {
    /// Concurrent clients.
    #[arg(long, default_value_t = 16)]
    clients: usize,
    /// How long to run, in seconds.
    #[arg(long, default_value_t = 600.0)]
    seconds: f64,
    /// Seconds between samples.
    #[arg(long, default_value_t = 10.0)]
    sample: f64,
    /// The server's process id, to sample its resident memory.
    #[arg(long)]
    pid: Option<u32>,
    #[command(flatten)]
    server: ServerArgs,
}

/// What the clients have done so far.
#[derive(Default)]
struct Counts {
    hands: AtomicU64,
    reads: AtomicU64,
    lab: AtomicU64,
    refused: AtomicU64,
    abandoned: AtomicU64,
    /// Calls answered `RESOURCE_EXHAUSTED`: a server limit doing its job (at most 4 lab streams at
    /// once, and abandoned ones count until they notice), not a failure.
    limited: AtomicU64,
    errors: AtomicU64,
}

/// The server's resident memory in KiB, from `/proc/PID/status`.
fn resident_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

fn bet() -> proto::Action {
    proto::Action {
        kind: "bet".into(),
        multiple: 1,
        ..Default::default()
    }
}

fn open(client: usize, n: u64) -> proto::OpenHandRequest {
    proto::OpenHandRequest {
        game: proto::Game::MississippiStud as i32,
        table: format!("soak-{}", client % 8),
        player: format!("soak-player-{client}-{}", n % 64),
        wagers: vec![proto::Wager {
            bet: "ante".into(),
            amount: 500,
        }],
        ..Default::default()
    }
}

/// One client's loop until the deadline.
async fn client(
    i: usize,
    channel: pitboss_client::Authorized,
    abandoning: pitboss_client::Authorized,
    deadline: Instant,
    counts: Arc<Counts>,
) {
    let mut play = PlayClient::new(channel.clone());
    let mut audit = AuditClient::new(channel.clone());
    let mut lab = LabClient::new(channel);
    // Work abandoned goes over a connection of its own: each abandoned stream is reset while the
    // server still sends, and h2's client closes a connection after 1 024 such resets
    // (`too_many_internal_resets`), which would cancel the other clients' calls on it.
    let mut abandon = LabClient::new(abandoning);
    let mut recent = String::new();
    let mut n = 0u64;
    while Instant::now() < deadline {
        n += 1;
        let ok = match n % 16 {
            // Whole hands, following the strategy's advice.
            0..=7 => play
                .play_hand(proto::PlayHandRequest {
                    open: Some(open(i, n)),
                    decisions: Vec::new(),
                    follow_advice: true,
                })
                .await
                .map(|r| {
                    recent = r.into_inner().hand.unwrap_or_default().hand_id;
                    counts.hands.fetch_add(1, Ordering::Relaxed);
                }),
            // An interactive hand.
            8 | 9 => {
                async {
                    let hand = play.open_hand(open(i, n)).await?.into_inner().hand;
                    let id = hand.unwrap_or_default().hand_id;
                    for _ in 0..3 {
                        play.act(proto::ActRequest {
                            hand_id: id.clone(),
                            action: Some(bet()),
                            ..Default::default()
                        })
                        .await?;
                    }
                    counts.hands.fetch_add(1, Ordering::Relaxed);
                    Ok(())
                }
                .await
            }
            // Recall, replay and the bundle of a recent hand.
            10 => {
                async {
                    audit
                        .list_hands(proto::ListHandsRequest {
                            player: format!("soak-player-{i}-{}", n % 64),
                            page_size: 100,
                            ..Default::default()
                        })
                        .await?;
                    if !recent.is_empty() {
                        audit
                            .replay_hand(proto::ReplayHandRequest {
                                hand_id: recent.clone(),
                            })
                            .await?;
                        if n % 64 == 10 {
                            audit
                                .get_hand_bundle(proto::GetHandBundleRequest {
                                    hand_id: recent.clone(),
                                })
                                .await?;
                        }
                    }
                    counts.reads.fetch_add(1, Ordering::Relaxed);
                    Ok(())
                }
                .await
            }
            // The lab: cached sheets and a short stream read to its end.
            11 => {
                async {
                    lab.get_par_sheets(proto::GetParSheetsRequest {
                        game: proto::Game::Nutz as i32,
                        ..Default::default()
                    })
                    .await?;
                    let mut words = lab
                        .stream_rng_words(proto::StreamRngWordsRequest {
                            words: 4_096,
                            words_per_seed: 0,
                        })
                        .await?
                        .into_inner();
                    while words.message().await?.is_some() {}
                    counts.lab.fetch_add(1, Ordering::Relaxed);
                    Ok(())
                }
                .await
            }
            // Refused requests: each must be refused, and refusing must cost nothing that stays.
            12 | 13 => {
                let long = "f".repeat(4_096 + (n as usize % 4_096));
                let refusals = [
                    play.get_hand(proto::GetHandRequest {
                        hand_id: long.clone(),
                    })
                    .await
                    .err(),
                    play.act(proto::ActRequest {
                        hand_id: long,
                        action: Some(bet()),
                        ..Default::default()
                    })
                    .await
                    .err(),
                    play.open_hand(proto::OpenHandRequest {
                        table: "t".repeat(100_000),
                        ..open(i, n)
                    })
                    .await
                    .err(),
                ];
                if refusals.iter().all(Option::is_some) {
                    counts.refused.fetch_add(3, Ordering::Relaxed);
                    Ok(())
                } else {
                    Err(tonic::Status::internal("a hostile request was accepted"))
                }
            }
            // Heavy work abandoned: a long simulation or a long stream, dropped at once.
            _ => {
                if n % 32 == 14 {
                    let _ = tokio::time::timeout(
                        Duration::from_millis(20),
                        abandon.simulate(proto::SimulateRequest {
                            game: proto::Game::Nutz as i32,
                            hands: 50_000_000,
                            ..Default::default()
                        }),
                    )
                    .await;
                } else {
                    let stream = abandon
                        .stream_shuffles(proto::StreamShufflesRequest {
                            shuffles: 100_000_000,
                            deck: proto::DeckKind::Standard52 as i32,
                        })
                        .await;
                    // Read one message, then stop reading and drop the stream.
                    if let Ok(stream) = stream {
                        let mut stream = stream.into_inner();
                        let _ =
                            tokio::time::timeout(Duration::from_millis(20), stream.message()).await;
                    }
                }
                counts.abandoned.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
        };
        match ok {
            Ok(()) => {}
            Err(status) if status.code() == tonic::Code::ResourceExhausted => {
                counts.limited.fetch_add(1, Ordering::Relaxed);
            }
            Err(status) => {
                // The first few failures, with the step that failed, so that a run says why.
                if counts.errors.fetch_add(1, Ordering::Relaxed) < 5 {
                    eprintln!("client {i}, step {}: {status}", n % 16);
                }
            }
        }
    }
}

pub fn run(args: BenchSoakArgs) -> anyhow::Result<()> {
    super::trace_if_asked();
    block_on(async {
        let counts = Arc::new(Counts::default());
        let started = Instant::now();
        let deadline = started + Duration::from_secs_f64(args.seconds);
        let mut tasks = Vec::new();
        let channel = args.server.connect().await?;
        let abandoning = args.server.connect().await?;
        for i in 0..args.clients.max(1) {
            tasks.push(tokio::spawn(client(
                i,
                channel.clone(),
                abandoning.clone(),
                deadline,
                counts.clone(),
            )));
        }
        println!("seconds,rss_kib,hands,reads,lab,refused,abandoned,limited,errors");
        let sample = Duration::from_secs_f64(args.sample.max(0.1));
        loop {
            let line = |c: &Counts| {
                format!(
                    "{:.0},{},{},{},{},{},{},{},{}",
                    started.elapsed().as_secs_f64(),
                    args.pid
                        .and_then(resident_kib)
                        .map_or(String::new(), |k| k.to_string()),
                    c.hands.load(Ordering::Relaxed),
                    c.reads.load(Ordering::Relaxed),
                    c.lab.load(Ordering::Relaxed),
                    c.refused.load(Ordering::Relaxed),
                    c.abandoned.load(Ordering::Relaxed),
                    c.limited.load(Ordering::Relaxed),
                    c.errors.load(Ordering::Relaxed)
                )
            };
            println!("{}", line(&counts));
            if Instant::now() >= deadline {
                break;
            }
            tokio::time::sleep(sample.min(deadline.saturating_duration_since(Instant::now())))
                .await;
        }
        for task in tasks {
            task.await?;
        }
        if counts.errors.load(Ordering::Relaxed) > 0 {
            anyhow::bail!(
                "{} calls failed that should not have",
                counts.errors.load(Ordering::Relaxed)
            );
        }
        Ok(())
    })
}
