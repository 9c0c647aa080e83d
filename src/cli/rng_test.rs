//! `pitboss rng-test --sequences S --bits N [--seed HEX]`: the NIST SP 800-22 tests of
//! `pitboss_lab::nist` over S sequences of N bits of the RNG's raw output (the words `pitboss rng`
//! writes, a seed every 1 024 words as hands draw them), judged as the publication judges a
//! generator (4.2): the proportion of sequences that pass each test, and the uniformity of its
//! P-values. The seeds come from one master seed, printed, so the run is reproduced by
//! `--seed`. Exit status 0 when every test holds, 1 otherwise.

use clap::Args;
use sha2::{Digest, Sha256};

use pitboss_engine::rng::Seed;
use pitboss_lab::nist;

#[derive(Debug, Args)]
pub struct RngTestArgs {
    /// Sequences tested (the publication's assessment wants 55 or more for uniformity).
    #[arg(long, default_value_t = 100)]
    sequences: u32,
    /// Bits per sequence (a multiple of 32; at least 128).
    #[arg(long, default_value_t = 1_000_000)]
    bits: u64,
    /// The master seed (64 hexadecimal digits); a fresh one from the operating system if absent.
    #[arg(long)]
    seed: Option<String>,
}

pub fn run(args: RngTestArgs) -> anyhow::Result<std::process::ExitCode> {
    if args.bits < 128 || !args.bits.is_multiple_of(32) || args.bits > 1 << 30 {
        anyhow::bail!("--bits: a multiple of 32 from 128 to 2^30");
    }
    if args.sequences == 0 || args.sequences > 10_000 {
        anyhow::bail!("--sequences: 1 to 10 000");
    }
    let master: [u8; 32] = match &args.seed {
        Some(hex) => hex::decode(hex)
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| anyhow::anyhow!("--seed: 64 hexadecimal digits"))?,
        None => *pitboss_lab::rng_output::os_seed()?.as_bytes(),
    };
    // Each hand's seed: SHA-256(master ‖ the sequence ‖ the chunk), a seed every 1 024 words.
    let mut columns: Vec<(String, Vec<f64>)> = Vec::new();
    for sequence in 0..args.sequences {
        let mut chunk = 0u64;
        let mut words = Vec::with_capacity(args.bits as usize / 8);
        pitboss_lab::rng_output::write_words(&mut words, args.bits / 32, 1024, || {
            let digest: [u8; 32] = Sha256::new()
                .chain_update(master)
                .chain_update(sequence.to_be_bytes())
                .chain_update(chunk.to_be_bytes())
                .finalize()
                .into();
            chunk += 1;
            Ok(Seed::from_bytes(digest))
        })?;
        let bits = nist::bits_of(&words);
        for (name, p) in nist::battery(&bits) {
            let p = p?;
            for (i, value) in p.iter().enumerate() {
                let column = if p.len() > 1 {
                    format!("{name}[{i}]")
                } else {
                    name.to_string()
                };
                match columns.iter_mut().find(|(c, _)| *c == column) {
                    Some((_, values)) => values.push(*value),
                    None => columns.push((column, vec![*value])),
                }
            }
        }
    }
    println!(
        "NIST SP 800-22 over {} sequences of {} bits of the RNG's output (master seed {})",
        args.sequences,
        args.bits,
        hex::encode(master)
    );
    println!(
        "{:<24} {:>10} {:>12} {:>12}  verdict",
        "test", "passed", "at least", "uniformity"
    );
    let mut all = true;
    for (name, values) in &columns {
        let a = nist::Assessment::of(values);
        all &= a.holds();
        println!(
            "{name:<24} {:>10} {:>12.4} {:>12.6}  {}",
            format!("{}/{}", a.passed, a.sequences),
            a.least_proportion * a.sequences as f64,
            a.uniformity,
            if a.holds() { "holds" } else { "FAILS" }
        );
    }
    println!(
        "reproduce: pitboss rng-test --sequences {} --bits {} --seed {}",
        args.sequences,
        args.bits,
        hex::encode(master)
    );
    Ok(if all {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::from(1)
    })
}
