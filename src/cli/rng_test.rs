//! `pitboss rng-test --sequences S --bits N [--seed HEX]`: the SP 800-22 battery of
//! `pitboss_lab::rng_battery` over S sequences of N bits of the RNG's raw output, printed: each
//! P-value of each test judged (the proportion that passed and the uniformity of the P-values),
//! each test that did not apply said so, the rows failing against those chance explains, and the
//! command that reproduces the run. The master seed is fresh from the operating system unless
//! `--seed` gives it. Exit status 0 when the run holds (no more rows fail than chance explains),
//! 1 otherwise.
//!
//! `--input FILE` (or `-`, standard input): the same battery over any generator's output instead —
//! S sequences of N bits read in order, raw bytes (`--format raw`, the default) or NIST STS's
//! ASCII `0`/`1` (`--format ascii`); only S × N bits are read; the table-game tests, which deal
//! from pitboss's own seeds, are not run. `--p-values FILE` writes each sequence's P-values, one
//! JSON line a sequence, to set beside another implementation's (NIST's STS, `nistrng`).
//!
//! `--transcripts FILE` (or `-`): the table-game tests over another system's deals instead — the
//! cards and dice of its transcripts (docs/transcripts.md, one per line, as `pitboss check
//! --jsonl` reads them), one chi-square a game's layout and a dice test (`pitboss_lab::
//! vendor_deals`). Exit status 0 when every test is made and holds, 1 otherwise.

use clap::Args;

use pitboss_engine::rng::Seed;
use pitboss_lab::rng_battery::{self, Plan};

#[derive(Debug, Args)]
pub struct RngTestArgs {
    /// Sequences tested (the publication's assessment wants 55 or more for uniformity).
    #[arg(long, default_value_t = 100)]
    sequences: u32,
    /// Bits per sequence (a multiple of 32, from 128 to 2^23).
    #[arg(long, default_value_t = 1_000_000)]
    bits: u64,
    /// The master seed (64 hexadecimal digits); a fresh one from the operating system if absent.
    #[arg(long, conflicts_with = "input")]
    seed: Option<String>,
    /// Test another generator's output: a file, or `-` for standard input.
    #[arg(long)]
    input: Option<std::path::PathBuf>,
    /// How `--input` is written: `raw` bytes (most significant bit first) or `ascii` 0/1.
    #[arg(long, default_value = "raw", requires = "input", value_parser = ["raw", "ascii"])]
    format: String,
    /// With `--input`: write each sequence's P-values here, one JSON line a sequence.
    #[arg(long, requires = "input")]
    p_values: Option<std::path::PathBuf>,
    /// Test another system's dealt cards and dice: its transcripts, one per line (`-`: standard
    /// input).
    #[arg(long, conflicts_with_all = ["input", "seed"])]
    transcripts: Option<std::path::PathBuf>,
}

/// The longest transcript line read (a transcript's own limit, docs/transcripts.md).
const MAX_TRANSCRIPT_LINE: u64 = pitboss_lab::transcript::MAX_TEXT as u64;

/// `--transcripts`: every line counted, each test printed; whether all were made and hold.
fn vendor(path: &std::path::Path) -> anyhow::Result<std::process::ExitCode> {
    use std::io::{BufRead, Read};
    let input: Box<dyn std::io::Read> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(
            std::fs::File::open(path)
                .map_err(|e| anyhow::anyhow!("--transcripts {}: {e}", path.display()))?,
        )
    };
    let mut input = std::io::BufReader::new(input);
    let mut deals = pitboss_lab::vendor_deals::VendorDeals::default();
    let mut line = Vec::new();
    for number in 1u64.. {
        line.clear();
        // One line at a time, never more than a transcript's limit of it held.
        let read = (&mut input)
            .take(MAX_TRANSCRIPT_LINE + 1)
            .read_until(b'\n', &mut line)?;
        if read == 0 {
            break;
        }
        if line.len() as u64 > MAX_TRANSCRIPT_LINE {
            anyhow::bail!(
                "--transcripts {} line {number}: longer than {MAX_TRANSCRIPT_LINE} bytes",
                path.display()
            );
        }
        let text = String::from_utf8_lossy(&line);
        if !text.trim().is_empty() {
            deals.add(number, text.trim());
        }
    }
    println!(
        "the table-game tests over {} ({} transcripts counted, {} refused)",
        path.display(),
        deals.counted,
        deals.refused
    );
    for (number, why) in &deals.refusals {
        println!("  line {number} refused: {why}");
    }
    let rows = deals.rows();
    println!(
        "{:<60} {:>9} {:>12} {:>7} {:>10}  verdict",
        "test", "draws", "chi-square", "df", "P-value"
    );
    for row in &rows {
        match &row.outcome {
            Ok(chi) => println!(
                "{:<60} {:>9} {:>12.2} {:>7} {:>10.6}  {}",
                row.test,
                row.draws,
                chi.statistic,
                chi.degrees,
                chi.p_value,
                if row.holds() { "holds" } else { "FAILS" }
            ),
            Err(too_few) => println!("{:<60} {:>9}  not made: {too_few}", row.test, row.draws),
        }
    }
    let holds = !rows.is_empty() && rows.iter().all(|r| r.holds());
    println!(
        "{} (a test fails under P = {}): {}",
        if rows.is_empty() {
            "no deals to test".to_string()
        } else {
            format!("{} tests", rows.len())
        },
        pitboss_lab::vendor_deals::ALPHA,
        if holds { "holds" } else { "FAILS" }
    );
    Ok(if holds {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::from(1)
    })
}

pub fn run(args: RngTestArgs) -> anyhow::Result<std::process::ExitCode> {
    if let Some(path) = &args.transcripts {
        return vendor(path);
    }
    let master: [u8; 32] = match &args.seed {
        Some(hex) => *Seed::from_hex(hex)
            .map_err(|_| anyhow::anyhow!("--seed: 64 hexadecimal digits"))?
            .as_bytes(),
        None => *pitboss_lab::rng_output::os_seed()?.as_bytes(),
    };
    let plan = Plan::new(master, args.sequences, args.bits)
        .map_err(|e| anyhow::anyhow!("--{}: {}", e.field, e.problem))?;
    let (report, what, reproduce) = match &args.input {
        None => (
            rng_battery::run(&plan, &pitboss_lab::Run::default())?,
            format!(
                "the RNG's output (master seed {})",
                hex::encode(plan.master)
            ),
            plan.command(),
        ),
        Some(path) => {
            let format = match args.format.as_str() {
                "ascii" => rng_battery::InputFormat::Ascii,
                _ => rng_battery::InputFormat::Raw,
            };
            let mut input: Box<dyn std::io::Read + Send> = if path.as_os_str() == "-" {
                Box::new(std::io::stdin())
            } else {
                Box::new(std::io::BufReader::new(std::fs::File::open(path).map_err(
                    |e| anyhow::anyhow!("--input {}: {e}", path.display()),
                )?))
            };
            let detail = if args.p_values.is_some() {
                rng_battery::Detail::PValues
            } else {
                rng_battery::Detail::Rows
            };
            let report = rng_battery::run_input(
                &plan,
                &mut *input,
                format,
                detail,
                &pitboss_lab::Run::default(),
            )?;
            (
                report,
                format!("{} ({})", path.display(), args.format),
                plan.input_command(&path.display().to_string(), format),
            )
        }
    };
    println!(
        "NIST SP 800-22 over {} sequences of {} bits of {what}",
        plan.sequences, plan.bits
    );
    println!(
        "{:<36} {:>11} {:>10} {:>11}  verdict",
        "test", "passed", "at least", "uniformity"
    );
    for judged in &report.judged {
        let a = &judged.assessment;
        println!(
            "{:<36} {:>11} {:>10.2} {:>11.6}  {}",
            judged.name,
            format!("{}/{}", a.passed, a.sequences),
            a.least_proportion * a.sequences as f64,
            a.uniformity,
            if a.holds() { "holds" } else { "FAILS" }
        );
    }
    for n in &report.not_run {
        println!(
            "{:<36} {} on {} of {} sequences",
            n.test, n.reason, n.sequences, plan.sequences
        );
    }
    println!(
        "rows failing: {} of {}; chance explains up to {} (a perfect generator fails {:.2} on \
         average): {}",
        report.failing,
        report.judged.len(),
        report.allowed_failing,
        report.expected_failing,
        if report.holds() { "holds" } else { "FAILS" }
    );
    println!("reproduce: {reproduce}");
    if let Some(path) = &args.p_values {
        let mut lines = String::new();
        for (sequence, values) in report.p_values.iter().enumerate() {
            let values: serde_json::Map<String, serde_json::Value> = values
                .iter()
                .map(|(name, p)| (name.clone(), serde_json::json!(p)))
                .collect();
            lines.push_str(
                &serde_json::json!({"sequence": sequence, "p_values": values}).to_string(),
            );
            lines.push('\n');
        }
        std::fs::write(path, lines)
            .map_err(|e| anyhow::anyhow!("--p-values {}: {e}", path.display()))?;
    }
    Ok(if report.holds() {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::from(1)
    })
}
