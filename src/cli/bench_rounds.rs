//! `pitboss bench-rounds`: a live studio's shared hands over gRPC — `--tables` rounds at once, each
//! of `--players` players, every bet and every decision one `RoundCommand` call (or `--batch`
//! players' a call, as a studio's relay sends them) from `--clients` concurrent clients per round —
//! and the players' bets and decisions per second, measured from the clients' side, against the
//! signing rate of two threads measured in the same run. A fixed amount of work; a benchmark, not
//! a test: nothing here asserts a speed.

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
    #[command(flatten)]
    server: ServerArgs,
}

/// Every player's command of one phase of one round, spread over `clients` tasks, `batch` players
/// a call. Returns the players' commands sent.
async fn phase(
    play: &PlayClient<pitboss_client::Authorized>,
    round: &str,
    players: u32,
    clients: u32,
    batch: u32,
    command: fn(u32) -> Command,
) -> anyhow::Result<u64> {
    let mut tasks = Vec::new();
    for c in 0..clients {
        let mut play = play.clone();
        let round = round.to_string();
        tasks.push(tokio::spawn(async move {
            let mine: Vec<u32> = (c..players).step_by(clients as usize).collect();
            let mut sent = 0u64;
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

fn bet(k: u32) -> Command {
    Command::Bet(proto::RoundBetCommand {
        player: format!("viewer-{k}"),
        seat: 0,
        wagers: vec![proto::Wager {
            bet: "ante".into(),
            amount: 100 + u64::from(k % 40) * 100,
        }],
    })
}

fn decide(k: u32) -> Command {
    Command::Decide(proto::RoundDecisionCommand {
        player: format!("viewer-{k}"),
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
        let play = PlayClient::new(args.server.connect().await?);
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
        for (name, command) in [("bets", bet as fn(u32) -> Command), ("decisions", decide)] {
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
            let started = Instant::now();
            let mut tasks = Vec::new();
            for round in &rounds {
                let (play, round) = (play.clone(), round.clone());
                let (players, clients, batch) = (args.players, args.clients, args.batch);
                tasks.push(tokio::spawn(async move {
                    phase(&play, &round, players, clients, batch, command).await
                }));
            }
            let mut calls = 0;
            for task in tasks {
                calls += task.await??;
            }
            let seconds = started.elapsed().as_secs_f64();
            let rate = calls as f64 / seconds;
            println!(
                "{name}: {calls} players' commands over {} round(s) of {} players, {} clients each, {} a call, in {seconds:.2} s: {rate:.0}/s = {:.2} x the signing rate",
                args.tables,
                args.players,
                args.clients,
                args.batch.max(1),
                rate / signing
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
