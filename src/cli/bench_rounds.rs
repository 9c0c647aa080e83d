//! `pitboss bench-rounds`: a live studio's shared hands over gRPC — `--tables` rounds at once, each
//! of `--players` players, every bet and every decision one `RoundCommand` call (or `--batch`
//! players' a call, as a studio's relay sends them) from `--clients` concurrent clients per round
//! over `--connections` HTTP/2 connections — and the players' bets and decisions per second,
//! measured from the clients' side, against the signing rate of two threads measured in the same
//! run and against the same clients' reads of each player's view (`GetRound`: a call through the
//! same stack that writes nothing, the ceiling of one call per player). A fixed amount of work; a
//! benchmark, not a test: nothing here asserts a speed.

use std::time::Instant;

use clap::Args;

use super::client::{block_on, refused, ServerArgs};
use pitboss::proto;
use pitboss::proto::play_client::PlayClient;
use pitboss::proto::round_command_request::Command;

#[derive(Debug, Args)]
pub struct BenchRoundsArgs {
    /// Rounds played at once (tables).
    #[arg(long, default_value_t = 4)]
    tables: usize,
    /// Players of each round.
    #[arg(long, default_value_t = 2_000)]
    players: u32,
    /// Concurrent clients per round.
    #[arg(long, default_value_t = 16)]
    clients: u32,
    /// Players' bets or decisions per call (1: one call each; more: a relay's batch, one append).
    #[arg(long, default_value_t = 1)]
    batch: u32,
    /// HTTP/2 connections the clients share (client `c` on connection `c mod N`).
    #[arg(long, default_value_t = 4)]
    connections: usize,
    /// A local server's process id: its processor time (user and system, every thread, from
    /// `/proc`) per call of each phase is printed too — what the server spends, apart from the
    /// clients sharing its machine.
    #[arg(long)]
    server_pid: Option<u32>,
    #[command(flatten)]
    server: ServerArgs,
}

/// What a phase's calls are: every player's bet, every player's decision, or every player's
/// read of their own view.
#[derive(Clone, Copy)]
enum Calls {
    Commands(fn(u32) -> Command),
    Reads,
}

/// Every player's call of one phase of one round, spread over `clients` tasks on `plays`'
/// connections, `batch` players a command. Returns the players' calls made.
async fn phase(
    plays: &[PlayClient<pitboss_client::Authorized>],
    round: &str,
    players: u32,
    clients: u32,
    batch: u32,
    calls: Calls,
) -> anyhow::Result<u64> {
    let mut tasks = Vec::new();
    for c in 0..clients {
        let mut play = plays[c as usize % plays.len()].clone();
        let round = round.to_string();
        tasks.push(tokio::spawn(async move {
            let mine: Vec<u32> = (c..players).step_by(clients as usize).collect();
            let mut sent = 0u64;
            let command = match calls {
                Calls::Commands(command) => command,
                Calls::Reads => {
                    for &k in &mine {
                        play.get_round(proto::GetRoundRequest {
                            round_id: round.clone(),
                            player: player(k),
                            ..Default::default()
                        })
                        .await
                        .map_err(refused)?;
                        sent += 1;
                    }
                    return anyhow::Ok(sent);
                }
            };
            for chunk in mine.chunks(batch.max(1) as usize) {
                let command = if batch <= 1 {
                    command(chunk[0])
                } else {
                    Command::Batch(proto::RoundBatchCommand {
                        commands: chunk
                            .iter()
                            .map(|&k| proto::RoundBatchItem {
                                command: Some(match command(k) {
                                    Command::Bet(b) => proto::round_batch_item::Command::Bet(b),
                                    Command::Decide(d) => {
                                        proto::round_batch_item::Command::Decide(d)
                                    }
                                    _ => unreachable!("bets and decisions only"),
                                }),
                            })
                            .collect(),
                    })
                };
                play.round_command(proto::RoundCommandRequest {
                    request_id: String::new(),
                    round_id: round.clone(),
                    command: Some(command),
                })
                .await
                .map_err(refused)?;
                sent += chunk.len() as u64;
            }
            anyhow::Ok(sent)
        }));
    }
    let mut sent = 0;
    for task in tasks {
        sent += task.await??;
    }
    Ok(sent)
}

/// A process's processor time so far (user and system, every thread), in seconds, from
/// `/proc/<pid>/stat` (fields 14 and 15, after the command's closing parenthesis).
fn cpu_seconds(pid: u32) -> anyhow::Result<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    let after = stat
        .rsplit_once(") ")
        .map(|(_, rest)| rest)
        .ok_or_else(|| anyhow::anyhow!("/proc/{pid}/stat: no command name"))?;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| -> anyhow::Result<f64> {
        Ok(fields
            .get(i)
            .ok_or_else(|| anyhow::anyhow!("/proc/{pid}/stat: too short"))?
            .parse::<f64>()?)
    };
    // The clock ticks per second of Linux's /proc (USER_HZ), 100 on every architecture it runs.
    Ok((ticks(11)? + ticks(12)?) / 100.0)
}

fn player(k: u32) -> String {
    format!("viewer-{k}")
}

fn bet(k: u32) -> Command {
    Command::Bet(proto::RoundBetCommand {
        player_seed: Vec::new(),
        player: player(k),
        seat: 0,
        wagers: vec![proto::Wager {
            bet: "ante".into(),
            amount: 100 + u64::from(k % 40) * 100,
        }],
    })
}

fn decide(k: u32) -> Command {
    Command::Decide(proto::RoundDecisionCommand {
        player: player(k),
        seat: 0,
        action: Some(proto::Action {
            kind: if k.is_multiple_of(4) { "fold" } else { "raise" }.into(),
            ..Default::default()
        }),
    })
}

pub fn run(args: BenchRoundsArgs) -> anyhow::Result<()> {
    let signing = pitboss_ledger::keys::signing_rate(2, 20_000);
    println!("signing, two threads: {signing:.0} signatures/s");
    block_on(async {
        let mut plays = Vec::new();
        for _ in 0..args.connections.max(1) {
            plays.push(PlayClient::new(args.server.connect().await?));
        }
        let play = plays[0].clone();
        let mut rounds = Vec::new();
        for t in 0..args.tables {
            let opened = play
                .clone()
                .open_round(proto::OpenRoundRequest {
                    game: proto::Game::CaribbeanStud as i32,
                    table: format!("studio-{t}"),
                    dealer: format!("dealer-{t}"),
                    shape: "shared_hand".into(),
                    max_players: args.players,
                    decision_window_ms: 86_400_000,
                    ..Default::default()
                })
                .await
                .map_err(refused)?
                .into_inner();
            rounds.push(opened.round.map(|r| r.round_id).unwrap_or_default());
        }
        let mut rates = Vec::new();
        for (name, calls) in [
            ("bets", Calls::Commands(bet)),
            ("decisions", Calls::Commands(decide)),
            ("reads", Calls::Reads),
        ] {
            if name == "decisions" {
                for round in &rounds {
                    play.clone()
                        .round_command(proto::RoundCommandRequest {
                            request_id: String::new(),
                            round_id: round.clone(),
                            command: Some(Command::CloseBetting(
                                proto::RoundCloseBettingCommand::default(),
                            )),
                        })
                        .await
                        .map_err(refused)?;
                }
            }
            let cpu_before = args.server_pid.map(cpu_seconds).transpose()?;
            let started = Instant::now();
            let mut tasks = Vec::new();
            for round in &rounds {
                let (plays, round) = (plays.clone(), round.clone());
                let (players, clients, batch) = (args.players, args.clients, args.batch);
                tasks.push(tokio::spawn(async move {
                    phase(&plays, &round, players, clients, batch, calls).await
                }));
            }
            let mut made = 0;
            for task in tasks {
                made += task.await??;
            }
            let seconds = started.elapsed().as_secs_f64();
            let rate = made as f64 / seconds;
            println!(
                "{name}: {made} players' calls over {} round(s) of {} players, {} clients each on {} connection(s), {} a call, in {seconds:.2} s: {rate:.0}/s = {:.2} x the signing rate",
                args.tables,
                args.players,
                args.clients,
                args.connections.max(1),
                if matches!(calls, Calls::Reads) { 1 } else { args.batch.max(1) },
                rate / signing
            );
            rates.push(rate);
            if let (Some(pid), Some(before)) = (args.server_pid, cpu_before) {
                let used = cpu_seconds(pid)? - before;
                println!(
                    "  the server's processor time: {used:.2} s, {:.1} µs a player's call (two cores: {:.0} calls/s with the clients elsewhere)",
                    used * 1e6 / made as f64,
                    2.0 * made as f64 / used
                );
            }
        }
        if let [bets, decisions, reads] = rates[..] {
            println!(
                "against the reads (one call each): bets {:.2} x, decisions {:.2} x",
                bets / reads,
                decisions / reads
            );
        }
        let mut settled = 0;
        for round in &rounds {
            let view = play
                .clone()
                .get_round(proto::GetRoundRequest {
                    round_id: round.clone(),
                    page_size: 1,
                    ..Default::default()
                })
                .await
                .map_err(refused)?
                .into_inner()
                .round
                .unwrap_or_default();
            if view.phase == "ended" {
                settled += view.place_count;
            }
        }
        println!("settled: {settled} places");
        let again = pitboss_ledger::keys::signing_rate(2, 20_000);
        println!("signing again, two threads: {again:.0} signatures/s");
        Ok(())
    })
}
