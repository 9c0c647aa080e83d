//! `pitboss simulate GAME --hands N --strategy S --seed S [--seats K]`: whole hands (or rounds of a
//! full table of K seats) played through the engine's commands on all cores, with a progress bar
//! on a terminal; the report in Markdown or JSON.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use pitboss_engine::game::GameId;
use pitboss_engine::rng::Seed;
use pitboss_lab::simulate::{self, Request, Strategy};

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Md,
    Json,
}

#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// mississippi_stud, fortune_pai_gow, nutz or caribbean_stud.
    game: GameId,
    /// How many hands.
    #[arg(long, default_value_t = 1_000_000)]
    hands: u64,
    /// optimal (the lab's strategy, the house way, or plain shaking), or always (never fold).
    #[arg(long, default_value = "optimal")]
    strategy: Strategy,
    /// The run's seed, 64 hex digits: the same seed gives the same report, whatever the threads.
    #[arg(long, value_parser = |s: &str| Seed::from_hex(s), default_value = "0000000000000000000000000000000000000000000000000000000000000000")]
    seed: Seed,
    /// Worker threads (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// A configuration JSON file instead of the game's default.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "md")]
    format: Format,
    /// Play rounds of a full table of this many seats (every seat occupied, one shuffle per
    /// round) instead of one player's hands: `--hands` counts rounds, each seat reported apart.
    #[arg(long)]
    seats: Option<u8>,
}

pub fn run(args: SimulateArgs) -> anyhow::Result<()> {
    let config = super::config_file::load(args.config.as_deref(), args.game)?;
    let request = Request {
        config,
        hands: args.hands,
        strategy: args.strategy,
        seed: args.seed,
        threads: args.threads.unwrap_or_else(pitboss_lab::threads),
    };
    let run = pitboss_lab::Run::default();
    if let Some(seats) = args.seats {
        let report = super::progress::while_running(&run.done, args.hands, "rounds", || {
            pitboss_lab::table::run(&request, seats, &run)
        })?;
        match args.format {
            Format::Md => print!("{}", report.markdown()),
            Format::Json => println!("{}", serde_json::to_string_pretty(&report.json())?),
        }
        return Ok(());
    }
    let report = super::progress::while_running(&run.done, args.hands, "hands", || {
        simulate::run(&request, &run)
    })?;
    match args.format {
        Format::Md => print!("{}", report.markdown()),
        Format::Json => println!("{}", serde_json::to_string_pretty(&report.json())?),
    }
    Ok(())
}
