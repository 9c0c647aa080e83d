//! `pitboss par GAME [--format md|csv|json]`: the exact PAR sheets of a game's default configuration
//! (or one given as a JSON file), and for Fortune Pai Gow the main bet's simulation.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use pitboss_engine::config::GameConfig;
use pitboss_engine::game::GameId;
use pitboss_lab::ParSheet;

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
    /// Fortune Pai Gow: rounds of the main-bet simulation (the published figure needs 10^8 or more; 0: none).
    #[arg(long, default_value_t = 10_000_000)]
    rounds: u64,
    /// Fortune Pai Gow: the simulation's seed, 64 hex digits (reproducible runs).
    #[arg(long, value_parser = |s: &str| pitboss_engine::rng::Seed::from_hex(s), default_value = "0000000000000000000000000000000000000000000000000000000000000000")]
    seed: pitboss_engine::rng::Seed,
}

pub fn run(args: ParArgs) -> anyhow::Result<()> {
    let config = super::config_file::load(args.config.as_deref(), args.game)?;
    let threads = pitboss_lab::threads();
    let main_bet = if config.game == GameId::FortunePaiGow && args.rounds > 0 {
        Some(pai_gow_main(&config, &args, threads)?)
    } else {
        None
    };
    let sheets = pitboss_lab::exact_par_sheets(&config, threads).map_err(anyhow::Error::msg)?;
    match args.format {
        Format::Md => {
            if let Some((_, text)) = &main_bet {
                println!("{text}");
            }
            sheets.iter().for_each(|s| println!("{}", s.markdown()));
        }
        Format::Csv => sheets.iter().for_each(|s| print!("{}", s.csv())),
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "config_id": config.id().to_string(),
                "sheets": sheets.iter().map(ParSheet::json).collect::<Vec<_>>(),
                "main_bet_simulation": main_bet.map(|(json, _)| json),
            }))?
        ),
    }
    Ok(())
}

/// The Fortune Pai Gow main bet's simulation, as JSON and as Markdown.
fn pai_gow_main(
    config: &GameConfig,
    args: &ParArgs,
    threads: usize,
) -> anyhow::Result<(serde_json::Value, String)> {
    let started = std::time::Instant::now();
    let sim = pitboss_lab::pai_gow::simulate_main(
        config,
        args.rounds,
        &args.seed,
        threads,
        &pitboss_lab::Run::default(),
    )
    .map_err(anyhow::Error::msg)?;
    let seconds = started.elapsed().as_secs_f64();
    let (low, high) = sim.interval();
    let json = serde_json::json!({
        "title": "fortune_pai_gow / main bet, house way both sides, simulated",
        "config_id": config.id().to_string(),
        "rounds": sim.rounds, "wins": sim.wins, "pushes": sim.pushes, "losses": sim.losses,
        "dealer_nine_high_pushes": sim.nine_high,
        "return": sim.return_rate(), "interval_95": [low, high],
        "rounds_per_second": sim.rounds as f64 / seconds,
    });
    let share = |n: u64| n as f64 * 100.0 / sim.rounds.max(1) as f64;
    let text = format!(
        "## fortune_pai_gow / main bet (house way both sides), {} simulated rounds\n\nwins {:.4} %, pushes {:.4} % (9-high {:.4} %), losses {:.4} %; return **{:.4} %**, 95 % interval {:.4} – {:.4} %; {:.0} rounds/s\n",
        sim.rounds,
        share(sim.wins),
        share(sim.pushes),
        share(sim.nine_high),
        share(sim.losses),
        sim.return_rate() * 100.0,
        low * 100.0,
        high * 100.0,
        sim.rounds as f64 / seconds
    );
    Ok((json, text))
}
