//! The RNG battery's rate over another generator's stream (issue 41): SP 800-22 over S sequences
//! of N bits read from a stream (SHA-256 in counter mode, raw bytes and NIST's ASCII), against the
//! battery over pitboss's own RNG in the same run (which also deals the table-game tests). Bits
//! judged per second, on every core. Run: `cargo bench --bench battery` (numbers in
//! `docs/PERFORMANCE.md`); `cargo test --benches` runs a quick pass. Nothing here asserts a speed.

use std::time::Instant;

use pitboss_lab::rng_battery::{self, Detail, InputFormat, Plan};
use pitboss_lab::Run;
use sha2::{Digest, Sha256};

fn main() {
    let quick = !std::env::args().any(|a| a == "--bench");
    let (sequences, bits) = if quick { (2, 65_536) } else { (60, 1 << 20) };
    let plan = Plan::new([7; 32], sequences, bits).expect("a plan within bounds");
    let total = (u64::from(sequences) * bits / 8) as usize;
    let stream: Vec<u8> = (0..(total / 32) as u64)
        .flat_map(|i| Sha256::digest(i.to_be_bytes()).to_vec())
        .collect();
    let ascii: Vec<u8> = stream
        .iter()
        .flat_map(|byte| (0..8).rev().map(move |i| b'0' + ((byte >> i) & 1)))
        .collect();
    let all_bits = u64::from(sequences) * bits;
    let rate = |started: Instant| all_bits as f64 / started.elapsed().as_secs_f64();

    let started = Instant::now();
    let raw = rng_battery::run_input(
        &plan,
        &mut stream.as_slice(),
        InputFormat::Raw,
        Detail::Rows,
        &Run::default(),
    )
    .expect("the stream reads");
    let raw_rate = rate(started);
    let started = Instant::now();
    let text = rng_battery::run_input(
        &plan,
        &mut ascii.as_slice(),
        InputFormat::Ascii,
        Detail::Rows,
        &Run::default(),
    )
    .expect("the stream reads");
    let ascii_rate = rate(started);
    assert_eq!(raw.judged, text.judged, "the same bits, the same rows");
    let started = Instant::now();
    let own = rng_battery::run(&plan, &Run::default()).expect("the battery runs");
    let own_rate = rate(started);
    println!(
        "{sequences} sequences of {bits} bits, {} threads:",
        pitboss_lab::threads()
    );
    println!(
        "  a stream, raw bytes:        {raw_rate:>12.0} bits/s  ({} rows, {} failing)",
        raw.judged.len(),
        raw.failing
    );
    println!("  a stream, ASCII 0/1:        {ascii_rate:>12.0} bits/s");
    println!(
        "  pitboss's RNG (+ deals):    {own_rate:>12.0} bits/s  ({} rows)",
        own.judged.len()
    );
    println!(
        "  stream / own RNG: {:.2}x the bits a second",
        raw_rate / own_rate
    );
}
