//! Times the lab's heavy computations without the root crate (which would build RocksDB):
//! the Pai Gow main-bet simulation (`pai_gow::simulate_main`, what `pitboss par fortune_pai_gow
//! --rounds N` runs) on two threads, `exact_par_sheets` for the default Mississippi Stud and
//! Caribbean Stud configurations, and `StrategyTables::build` for both (what the server builds per
//! configuration at start). It prints the Pai Gow totals, and each sheet's totals and the SHA-256
//! of its CSV (every row's exact integers), so that two builds can be compared for identical
//! results as well as for time.
//!
//! ```sh
//! export CARGO_TARGET_DIR=$HOME/.cache/pitboss-lab-target
//! cargo run --release -p pitboss-lab --example lab_speed               # everything, 10^7 rounds
//! cargo run --release -p pitboss-lab --example lab_speed -- pai_gow 1000000
//! cargo run --release -p pitboss-lab --example lab_speed -- mississippi caribbean tables
//! ```
//!
//! Arguments pick what runs (`pai_gow`, `mississippi`, `caribbean`, `tables`; all by default) and a
//! number sets the rounds (10^7 by default). The machine is shared and noisy: compare builds in
//! the same session, back to back.

use std::time::Instant;

use sha2::{Digest, Sha256};

use pitboss_engine::config::GameConfig;
use pitboss_engine::game::GameId;
use pitboss_engine::rng::Seed;
use pitboss_lab::advice::StrategyTables;
use pitboss_lab::{exact_par_sheets, pai_gow, Run};

/// Runs `work` once and prints its wall time.
fn timed<T>(what: &str, work: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = work();
    println!("{what}: {:.3} s", started.elapsed().as_secs_f64());
    out
}

/// Lower-case hex of some bytes.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds = args
        .iter()
        .find_map(|a| a.parse::<u64>().ok())
        .unwrap_or(10_000_000);
    let picked: Vec<&str> = args
        .iter()
        .filter(|a| a.parse::<u64>().is_err())
        .map(String::as_str)
        .collect();
    let wants = |what: &str| picked.is_empty() || picked.contains(&what);
    let threads = 2;

    if wants("pai_gow") {
        let config = GameConfig::default_for(GameId::FortunePaiGow);
        let seed = Seed::from_bytes([0; 32]);
        let sim = timed(
            &format!("pai_gow::simulate_main, {rounds} rounds, {threads} threads"),
            || pai_gow::simulate_main(&config, rounds, &seed, threads, &Run::default()).unwrap(),
        );
        println!("  {sim:?}");
    }
    for (name, game) in [
        ("mississippi", GameId::MississippiStud),
        ("caribbean", GameId::CaribbeanStud),
    ] {
        if wants(name) {
            let config = GameConfig::default_for(game);
            let sheets = timed(&format!("exact_par_sheets({name})"), || {
                exact_par_sheets(&config, threads).unwrap()
            });
            for sheet in &sheets {
                println!(
                    "  {}: returned {} / wagered {} over {}; SHA-256 of its CSV {}",
                    sheet.title,
                    sheet.returned(),
                    sheet.wagered(),
                    sheet.denominator,
                    hex(&Sha256::digest(sheet.csv()))
                );
            }
        }
    }
    if wants("tables") {
        for game in [GameId::MississippiStud, GameId::CaribbeanStud] {
            let config = GameConfig::default_for(game);
            timed(&format!("StrategyTables::build({})", game.id()), || {
                StrategyTables::build(&config, threads).unwrap()
            });
        }
    }
}
