//! The beacon's cost (issue 40): one BLS verification of a drand quicknet round — what a round
//! naming a beacon pays once, shared by every round that names the same beacon round — and the
//! deal seed's mix, against one-player Caribbean Stud hands/s through the engine in the same run.
//! Run: `cargo bench --bench beacon` (numbers in `docs/PERFORMANCE.md`). A fixed amount of work;
//! nothing here asserts a speed.

use std::time::Instant;

mod support;

use support::{caribbean_hands as hands, seed};

use pitboss_beacon::{Chain, Round};
use pitboss_engine::mix::{self, BeaconValue, Sources};

fn rounds() -> Vec<Round> {
    let fixture: serde_json::Value =
        serde_json::from_str(include_str!("../fixtures/beacon/quicknet.json")).expect("fixture");
    fixture["rounds"]
        .as_array()
        .expect("rounds")
        .iter()
        .map(|r| Round::from_public_json(r.to_string().as_bytes()).expect("a round"))
        .collect()
}

fn main() {
    // `cargo test --benches` runs this without `--bench`: keep it short then.
    let quick = !std::env::args().any(|a| a == "--bench");
    let (verifications, mixes, played) = if quick {
        (9, 1_000, 1_000)
    } else {
        (270, 1_000_000, 200_000)
    };
    let chain = Chain::quicknet();
    let rounds = rounds();
    let before = hands(played);
    let started = Instant::now();
    let mut last = [0u8; 32];
    for i in 0..verifications {
        last = chain
            .verify(&rounds[i % rounds.len()])
            .expect("a published round verifies");
    }
    let verify_s = started.elapsed().as_secs_f64() / verifications as f64;
    let sources = Sources {
        players: Some(
            (0..7u32)
                .map(|p| (p, mix::player_seed_digest(&p.to_be_bytes())))
                .collect(),
        ),
        beacon: Some(BeaconValue {
            chain: chain.hash,
            round: 1000,
            randomness: last,
        }),
    };
    let started = Instant::now();
    let mut mixed = seed(0);
    for i in 0..mixes {
        mixed = mix::deal_seed(&seed(i), &sources);
    }
    let mix_s = started.elapsed().as_secs_f64() / mixes as f64;
    let after = hands(played);
    let rate = (before + after) / 2.0;
    println!(
        "one-player caribbean_stud hands: {before:.0}/s before, {after:.0}/s after ({:.1} µs a hand)",
        1e6 / rate
    );
    println!(
        "a quicknet round's BLS verification: {:.0} µs ({verifications} verifications) = {:.0} hands' time; one a beacon round (3 s), shared by every round naming it",
        verify_s * 1e6,
        verify_s * rate
    );
    println!(
        "the deal seed's mix (7 players' seeds and the beacon): {:.2} µs = {:.4} of a hand (last {})",
        mix_s * 1e6,
        mix_s * rate,
        &mixed.to_hex()[..8]
    );
}
