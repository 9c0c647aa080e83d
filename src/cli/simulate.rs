//! `pitboss simulate GAME --hands N --strategy S --seed S`: whole hands played through the
//! engine's commands on all cores, with a progress bar on a terminal; the report in Markdown or
//! JSON.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

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
    let progress = &run.done;
    let done = AtomicBool::new(false);
    let report = std::thread::scope(|scope| {
        if std::io::stderr().is_terminal() {
            scope.spawn(|| bar(progress, &done, args.hands));
        }
        let report = simulate::run(&request, &run);
        done.store(true, Ordering::Relaxed);
        report
    })
    .map_err(anyhow::Error::msg)?;
    match args.format {
        Format::Md => print!("{}", report.markdown()),
        Format::Json => println!("{}", serde_json::to_string_pretty(&report.json())?),
    }
    Ok(())
}

/// A progress bar on standard error, redrawn twice a second until the run is done.
fn bar(progress: &AtomicU64, done: &AtomicBool, total: u64) {
    let started = std::time::Instant::now();
    let mut err = std::io::stderr();
    while !done.load(Ordering::Relaxed) {
        let n = progress.load(Ordering::Relaxed);
        let fraction = n as f64 / total.max(1) as f64;
        let filled = (fraction * 40.0) as usize;
        let rate = n as f64 / started.elapsed().as_secs_f64().max(1e-3);
        let _ = write!(
            err,
            "\r[{}{}] {:>5.1} % {} / {} hands, {:.0}/s   ",
            "#".repeat(filled.min(40)),
            " ".repeat(40 - filled.min(40)),
            fraction * 100.0,
            n,
            total,
            rate
        );
        let _ = err.flush();
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    let _ = writeln!(err, "\r{}\r", " ".repeat(100));
}
