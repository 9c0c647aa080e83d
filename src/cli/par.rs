//! `pitboss par GAME [--format md|csv|json]`: the exact PAR sheets of a game's default configuration
//! (or one given as a JSON file). Nutz and the Fortune bonus so far.

use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};

use pitboss::engine::config::GameConfig;
use pitboss::engine::config::Rules;
use pitboss::engine::game::GameId;
use pitboss::lab::{fortune, mississippi, nutz, ParSheet};

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Md,
    Csv,
    Json,
}

#[derive(Debug, Args)]
pub struct ParArgs {
    /// nutz or fortune_pai_gow (the Fortune bonus).
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
        GameId::MississippiStud => mississippi_sheets(&config, args.format)?,
        other => {
            bail!("the PAR sheet of {other} is not computed yet (Nutz, the Fortune bonus and Mississippi Stud are)")
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

/// Prints the optimal-strategy summary of the ante and street bets, and returns the bonus sheet.
fn mississippi_sheets(config: &GameConfig, format: Format) -> anyhow::Result<Vec<ParSheet>> {
    let Rules::MississippiStud(rules) = &config.rules else {
        bail!("not Mississippi Stud rules")
    };
    let a = mississippi::analyse(rules);
    let summary = serde_json::json!({
        "title": "mississippi_stud / ante and street bets, optimal strategy",
        "config_id": config.id().to_string(),
        "value_per_ante": a.per_ante(),
        "average_total_wager_in_antes": a.average_wager(),
        "return_per_total_wagered": a.return_per_wagered(),
        "element_of_risk": 1.0 - a.return_per_wagered(),
        "exact": {"value": a.value.to_string(), "wagered": a.wagered.to_string(), "denominator": a.denominator.to_string()},
        "starting_hands_folded_on_third_street": a.folds_at_third,
    });
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&summary)?),
        _ => println!(
            "## mississippi_stud / ante and street bets, optimal strategy\n\nvalue per ante {:.6} (house edge {:.4} % of the ante); average total wager {:.6} antes; return per total wagered **{:.4} %** (element of risk {:.4} %)\n",
            a.per_ante(),
            -a.per_ante() * 100.0,
            a.average_wager(),
            a.return_per_wagered() * 100.0,
            (1.0 - a.return_per_wagered()) * 100.0
        ),
    }
    Ok(vec![
        mississippi::bonus_sheet(config).map_err(anyhow::Error::msg)?
    ])
}
