//! `pitboss rng --words N`: raw stream words (little-endian u32) on standard output, from fresh
//! seeds drawn from the operating system, for NIST SP 800-22 or Dieharder.

use clap::Args;

#[derive(Debug, Args)]
pub struct RngArgs {
    /// How many 32-bit words.
    #[arg(long)]
    words: u64,
    /// A fresh seed every this many words (each stream read from its word 0, as hands do).
    #[arg(long, default_value_t = 1024)]
    per_seed: u64,
}

pub fn run(args: RngArgs) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    pitboss::lab::rng_output::write_words(
        &mut out,
        args.words,
        args.per_seed,
        pitboss::lab::rng_output::os_seed,
    )?;
    Ok(())
}
