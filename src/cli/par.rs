//! `pitboss par GAME [--format md|csv|json]`: the exact PAR sheets of a game's default configuration
//! (or one given as a JSON file). Nutz and the Fortune bonus so far.

use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};

use pitboss::engine::config::GameConfig;
use pitboss::engine::game::GameId;
use pitboss::lab::{fortune, nutz, ParSheet};

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
            vec![fortune::par_sheet(&config, threads).map_err(anyhow::Error::msg)?]
        }
        other => {
            bail!("the PAR sheet of {other} is not computed yet (Nutz and the Fortune bonus are)")
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
