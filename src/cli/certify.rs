//! `pitboss certify GAME [--config FILE] --out DIR`: a configuration's certification report,
//! computed here from the engine alone (`pitboss_lab::certificate`): the exact PAR sheets, a
//! simulation through the engine held to them at simultaneous 99 % intervals, the RNG battery,
//! and the vendor's transcripts when `--transcripts FILE` gives them (one JSON transcript a
//! line, as `pitboss check --jsonl` reads). Writes `DIR/certificate.html` and, printed by
//! Chromium, `DIR/certificate.pdf`; prints the page's SHA-256 and the verdict. Exit status 0 when
//! the certificate holds, 1 when a figure, the battery or a transcript fails it.
//!
//! `--record`: the server computes the same report (`Lab.Certify`, the default or a published
//! configuration) and records it in its log as the caller's; its signed note is written beside
//! the page, `DIR/certificate.note`, with the recorded entry as a C2SP tlog-proof in the note's
//! tree, `DIR/certificate.tlog-proof`. `pitboss verify-certificate DIR --key KEY` checks a page
//! against its note, and the proof when it is there: the note's entry is the `CertificationRecorded`
//! of this page, included in the note's tree.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use sha2::{Digest, Sha256};

use pitboss_engine::game::GameId;
use pitboss_engine::rng::Seed;
use pitboss_lab::certificate::{self, Request, Transcripts};
use pitboss_lab::rng_battery::Plan;

use super::client::{block_on, refused, ServerArgs};
use pitboss::proto;
use pitboss::proto::lab_client::LabClient;

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
    /// Have the server compute and record the report (`Lab.Certify`): an entry of its log, and a
    /// signed note over the page written as `DIR/certificate.note`.
    #[arg(long, conflicts_with = "config")]
    record: bool,
    /// With `--record`: a published configuration's id (default: the game's default).
    #[arg(long, requires = "record")]
    config_id: Option<String>,
    #[command(flatten)]
    server: ServerArgs,
}

#[derive(Debug, Args)]
pub struct VerifyCertificateArgs {
    /// The directory `pitboss certify --record` wrote (`certificate.html`, `certificate.note`).
    dir: PathBuf,
    /// The log's public key (64 hex digits), as pinned from a checkpoint.
    #[arg(long)]
    key: String,
}

/// The most bytes of a page or note read back.
const MAX_PAGE: u64 = 16 * 1024 * 1024;

fn read_bounded(path: &std::path::Path) -> anyhow::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .with_context(|| format!("cannot read {}", path.display()))?
        .take(MAX_PAGE + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_PAGE {
        anyhow::bail!("{} is larger than {MAX_PAGE} bytes", path.display());
    }
    Ok(bytes)
}

/// `pitboss verify-certificate DIR --key KEY`: the page against its note, offline.
pub fn verify(args: VerifyCertificateArgs) -> anyhow::Result<std::process::ExitCode> {
    let key = super::pinned_key(&args.key)?;
    let page = read_bounded(&args.dir.join("certificate.html"))?;
    let note = String::from_utf8(read_bounded(&args.dir.join("certificate.note"))?)
        .context("the note is not text")?;
    let line = match pitboss::certification::verify(&page, &note, &key) {
        Ok(line) => line,
        Err(e) => {
            eprintln!("refused: {e}");
            return Ok(std::process::ExitCode::from(1));
        }
    };
    println!(
        "the report is the one recorded at entry {} of the log, configuration {}, sha256 {}",
        line.sequence,
        hex::encode(line.config_id),
        hex::encode(line.report_sha256)
    );
    let proof = args.dir.join("certificate.tlog-proof");
    if proof.exists() {
        let text = String::from_utf8(read_bounded(&proof)?).context("the proof is not text")?;
        match pitboss::certification::verify_tlog_proof(&text, &note, &line, &key) {
            Ok(()) => println!(
                "certificate.tlog-proof: entry {} is this page's CertificationRecorded, in the \
                 note's tree",
                line.sequence
            ),
            Err(e) => {
                eprintln!("refused: certificate.tlog-proof: {e}");
                return Ok(std::process::ExitCode::from(1));
            }
        }
    }
    Ok(std::process::ExitCode::SUCCESS)
}

pub fn run(args: CertifyArgs) -> anyhow::Result<std::process::ExitCode> {
    if args.record {
        return record(args);
    }
    let config = super::config_file::load(args.config.as_deref(), args.game)?;
    let battery_seed = args.battery_seed.unwrap_or(args.seed);
    let battery = Plan::new(*battery_seed.as_bytes(), args.sequences, args.bits)
        .map_err(|e| anyhow::anyhow!("--{}: {}", e.field, e.problem))?;
    let transcripts = match &args.transcripts {
        None => None,
        Some(path) => {
            let text =
                String::from_utf8(read_bounded(path)?).context("the transcripts are not text")?;
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
        "{} {}: {} of {} figures inside their simultaneous 99 % intervals; RNG battery {}; {}",
        certificate.config.game,
        certificate.config.id(),
        inside,
        certificate.figures.len(),
        if certificate.battery.holds() {
            "holds"
        } else {
            "FAILS"
        },
        if certificate.holds() {
            "the certificate holds"
        } else {
            "the certificate FAILS"
        }
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

/// `--record`: the server computes and records the report; the page, its note and the PDF here.
fn record(args: CertifyArgs) -> anyhow::Result<std::process::ExitCode> {
    let (transcripts, transcripts_source) = match &args.transcripts {
        None => (Vec::new(), String::new()),
        Some(path) => {
            let text =
                String::from_utf8(read_bounded(path)?).context("the transcripts are not text")?;
            (
                text.lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(str::to_string)
                    .collect(),
                path.display().to_string(),
            )
        }
    };
    let request = proto::CertifyRequest {
        game: pitboss::service::game_to_proto(args.game),
        config_id: args.config_id.clone().unwrap_or_default(),
        hands: args.hands,
        seed: args.seed.as_bytes().to_vec(),
        battery_sequences: args.sequences,
        battery_bits: args.bits,
        battery_seed: args
            .battery_seed
            .map(|s| s.as_bytes().to_vec())
            .unwrap_or_default(),
        transcripts,
        transcripts_source,
    };
    let certified = block_on(async {
        let mut lab = LabClient::new(args.server.connect().await?);
        Ok(lab.certify(request).await.map_err(refused)?.into_inner())
    })?;
    // The page is the one the server says it recorded, before it is kept or shown to Chromium.
    if Sha256::digest(certified.html.as_bytes()).as_slice() != certified.report_sha256.as_slice() {
        anyhow::bail!("the server's page is not the one whose SHA-256 it recorded");
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let page = args.out.join("certificate.html");
    super::pages::write_new(&page, certified.html.as_bytes())?;
    super::pages::write_new(
        &args.out.join("certificate.note"),
        certified.note.as_bytes(),
    )?;
    super::pages::write_new(
        &args.out.join("certificate.tlog-proof"),
        certified.tlog_proof.as_bytes(),
    )?;
    if !args.no_pdf {
        super::pages::print_pdf(
            &certified.html,
            &args.out.join("certificate.pdf"),
            &args.chromium,
        )?;
    }
    println!(
        "recorded at entry {} of the log: {}",
        certified.sequence,
        if certified.holds {
            "the certificate holds"
        } else {
            "the certificate FAILS"
        }
    );
    println!(
        "sha256 {}  {}",
        hex::encode(&certified.report_sha256),
        page.display()
    );
    Ok(if certified.holds {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::from(1)
    })
}
