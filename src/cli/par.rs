//! `pitboss par GAME [--format md|csv|json]`: the exact PAR sheets of a game's default configuration
//! (or one given as a JSON file), and for Fortune Pai Gow the main bet's simulation.

use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};

use pitboss::engine::config::GameConfig;
use pitboss::engine::game::GameId;
use pitboss::lab::{caribbean, fortune, mississippi, nutz, ParSheet};

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Md,
    Csv,
    Json,
}

#[derive(Debug, Args)]
pub struct ParArgs {
    /// mississippi_stud, fortune_pai_gow, nutz or caribbean_stud.
    game: GameId,
    /// Output format.
    #[arg(long, value_enum, default_value = "md")]
    format: Format,
    /// A configuration JSON file instead of the game's default.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Fortune Pai Gow: rounds of the main-bet simulation (the published figure needs 10^8 or more).
    #[arg(long, default_value_t = 10_000_000)]
    rounds: u64,
    /// Fortune Pai Gow: the simulation's seed, 64 hex digits (reproducible runs).
    #[arg(long, value_parser = |s: &str| pitboss::engine::rng::Seed::from_hex(s), default_value = "0000000000000000000000000000000000000000000000000000000000000000")]
    seed: pitboss::engine::rng::Seed,
}

pub fn run(args: ParArgs) -> anyhow::Result<()> {
    let config = match &args.config {
        Some(path) => {
            let bytes =
                std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            GameConfig::from_json(&bytes)?
        }
        None => GameConfig::default_for(args.game),
    };
    if config.game != args.game {
        bail!(
            "the configuration is for {}, not {}",
            config.game,
            args.game
        );
    }
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let sheets: Vec<ParSheet> = match args.game {
        GameId::Nutz => nutz::par_sheets(&config).map_err(anyhow::Error::msg)?,
        GameId::FortunePaiGow => {
            let started = std::time::Instant::now();
            let sim =
                pitboss::lab::pai_gow::simulate_main(&config, args.rounds, &args.seed, threads)
                    .map_err(anyhow::Error::msg)?;
            let seconds = started.elapsed().as_secs_f64();
            let (low, high) = sim.interval();
            let summary = serde_json::json!({
                "title": "fortune_pai_gow / main bet, house way both sides, simulated",
                "config_id": config.id().to_string(),
                "rounds": sim.rounds, "wins": sim.wins, "pushes": sim.pushes, "losses": sim.losses,
                "dealer_nine_high_pushes": sim.nine_high,
                "return": sim.return_rate(), "interval_95": [low, high],
                "rounds_per_second": sim.rounds as f64 / seconds,
            });
            match args.format {
                Format::Json => println!("{}", serde_json::to_string_pretty(&summary)?),
                _ => println!(
                    "## fortune_pai_gow / main bet (house way both sides), {} simulated rounds\n\nwins {:.4} %, pushes {:.4} % (9-high {:.4} %), losses {:.4} %; return **{:.4} %**, 95 % interval {:.4} – {:.4} %; {:.0} rounds/s\n",
                    sim.rounds,
                    sim.wins as f64 * 100.0 / sim.rounds as f64,
                    sim.pushes as f64 * 100.0 / sim.rounds as f64,
                    sim.nine_high as f64 * 100.0 / sim.rounds as f64,
                    sim.losses as f64 * 100.0 / sim.rounds as f64,
                    sim.return_rate() * 100.0,
                    low * 100.0,
                    high * 100.0,
                    sim.rounds as f64 / seconds
                ),
            }
            vec![fortune::par_sheet(&config, threads).map_err(anyhow::Error::msg)?]
        }
        GameId::MississippiStud => vec![
            mississippi::main_sheet(&config).map_err(anyhow::Error::msg)?,
            mississippi::bonus_sheet(&config).map_err(anyhow::Error::msg)?,
        ],
        GameId::CaribbeanStud => {
            caribbean::par_sheets(&config, threads).map_err(anyhow::Error::msg)?
        }
    };
    match args.format {
        Format::Md => sheets.iter().for_each(|s| println!("{}", s.markdown())),
        Format::Csv => sheets.iter().for_each(|s| print!("{}", s.csv())),
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&sheets.iter().map(ParSheet::json).collect::<Vec<_>>())?
        ),
    }
    Ok(())
}
