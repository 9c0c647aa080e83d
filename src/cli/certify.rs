//! `pitboss certify GAME [--config FILE] --out DIR`: a configuration's certification report,
//! computed here from the engine alone (`pitboss_lab::certificate`): the exact PAR sheets, a
//! simulation through the engine held to them at simultaneous 99 % intervals, the RNG battery,
//! and the vendor's transcripts when `--transcripts FILE` gives them (one JSON transcript a
//! line, as `pitboss check --jsonl` reads). Writes `DIR/certificate.html` and, printed by
//! Chromium, `DIR/certificate.pdf`; prints the page's SHA-256 and the verdict. Exit status 0 when
//! the certificate holds, 1 when a figure, the battery or a transcript fails it.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use sha2::{Digest, Sha256};

use pitboss_engine::game::GameId;
use pitboss_engine::rng::Seed;
use pitboss_lab::certificate::{self, Request, Transcripts};
use pitboss_lab::rng_battery::Plan;

#[derive(Debug, Args)]
pub struct CertifyArgs {
    /// mississippi_stud, fortune_pai_gow, nutz or caribbean_stud.
    game: GameId,
    /// A configuration JSON file instead of the game's default.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Hands simulated through the engine.
    #[arg(long, default_value_t = 1_000_000)]
    hands: u64,
    /// The simulation's seed, 64 hex digits.
    #[arg(long, value_parser = |s: &str| Seed::from_hex(s), default_value = "0000000000000000000000000000000000000000000000000000000000000000")]
    seed: Seed,
    /// The RNG battery's sequences.
    #[arg(long, default_value_t = 100)]
    sequences: u32,
    /// The RNG battery's bits per sequence.
    #[arg(long, default_value_t = 1_000_000)]
    bits: u64,
    /// The RNG battery's master seed, 64 hex digits (default: the simulation's seed).
    #[arg(long, value_parser = |s: &str| Seed::from_hex(s))]
    battery_seed: Option<Seed>,
    /// The vendor's transcripts, one JSON transcript a line.
    #[arg(long)]
    transcripts: Option<PathBuf>,
    /// The directory written (created; its certificate files must not exist yet).
    #[arg(long)]
    out: PathBuf,
    /// Skip the PDF (the HTML page alone).
    #[arg(long)]
    no_pdf: bool,
    /// Chromium, for the PDF [default: chromium]. Env: PITBOSS_CHROMIUM.
    #[arg(long, env = "PITBOSS_CHROMIUM", default_value = "chromium")]
    chromium: String,
}

pub fn run(args: CertifyArgs) -> anyhow::Result<std::process::ExitCode> {
    let config = super::config_file::load(args.config.as_deref(), args.game)?;
    let battery_seed = args.battery_seed.unwrap_or(args.seed);
    let battery = Plan::new(*battery_seed.as_bytes(), args.sequences, args.bits)
        .map_err(|e| anyhow::anyhow!("--{}: {}", e.field, e.problem))?;
    let transcripts = match &args.transcripts {
        None => None,
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            Some(Transcripts::check(
                &config,
                path.display().to_string(),
                text.lines().filter(|l| !l.trim().is_empty()),
            ))
        }
    };
    let request = Request {
        config,
        hands: args.hands,
        seed: args.seed,
        battery,
        threads: pitboss_lab::threads(),
    };
    let run = pitboss_lab::Run::default();
    let certificate = certificate::certify(&request, transcripts, &run)?;
    let config_file = args.config.as_ref().map(|p| p.display().to_string());
    let html = pitboss_packet::render_certificate(&pitboss::certification::page(
        &certificate,
        config_file.as_deref(),
    ));
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    super::pages::write_new(&args.out.join("certificate.html"), html.as_bytes())?;
    if !args.no_pdf {
        super::pages::print_pdf(&html, &args.out.join("certificate.pdf"), &args.chromium)?;
    }
    let inside = certificate.figures.iter().filter(|f| f.inside()).count();
    println!(
        "{} {}: {} of {} exact figures inside their simultaneous 99 % intervals; RNG battery {}; {}",
        certificate.config.game,
        certificate.config.id(),
        inside,
        certificate.figures.len(),
        if certificate.battery.holds() { "holds" } else { "FAILS" },
        if certificate.holds() { "the certificate holds" } else { "the certificate FAILS" }
    );
    println!(
        "sha256 {}  {}",
        hex::encode(Sha256::digest(html.as_bytes())),
        args.out.join("certificate.html").display()
    );
    Ok(if certificate.holds() {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::from(1)
    })
}
