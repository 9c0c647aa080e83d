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
//! from pitboss's own seeds, are not run.

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
}

pub fn run(args: RngTestArgs) -> anyhow::Result<std::process::ExitCode> {
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
            let report =
                rng_battery::run_input(&plan, &mut *input, format, &pitboss_lab::Run::default())?;
            (
                report,
                format!("{} ({})", path.display(), args.format),
                format!(
                    "pitboss rng-test --input {} --format {} --sequences {} --bits {}",
                    path.display(),
                    args.format,
                    plan.sequences,
                    plan.bits
                ),
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
    Ok(if report.holds() {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::from(1)
    })
}
