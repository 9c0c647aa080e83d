//! The beacon's cost (issue 40): one BLS verification of a drand quicknet round — what a round
//! naming a beacon pays once, shared by every round that names the same beacon round — and the
//! deal seed's mix, against one-player Caribbean Stud hands/s through the engine in the same run.
//! Run: `cargo bench --bench beacon` (numbers in `docs/PERFORMANCE.md`). A fixed amount of work;
//! nothing here asserts a speed.

use std::time::Instant;

mod support;

use support::{caribbean_hands as hands, seed};

use std::sync::Arc;

use pitboss_beacon::{Chain, Round};
use pitboss_engine::config::{BeaconRule, GameConfig, LateBeacon, SeedSources};
use pitboss_engine::game::GameId;
use pitboss_engine::games::{Action, Timestamp};
use pitboss_engine::mix::{self, BeaconValue, Sources};
use pitboss_engine::money::Money;
use pitboss_engine::round::{
    BeaconArrival, Decide, OpenRound, PlaceBet, Round as TableRound, RoundCommand, Shape,
};
use pitboss_engine::settlement::{BetId, Wager};

/// Seven-seat Caribbean Stud rounds through the engine's round, opened, bet (each seat sending a
/// seed when `mixed`), closed, the beacon taken (when `mixed`), every seat raising: rounds/s.
fn table_rounds(n: u64, mixed: bool) -> f64 {
    let mut config = GameConfig::default_for(GameId::CaribbeanStud);
    if mixed {
        config.seed_sources = SeedSources {
            players: true,
            beacon: Some(BeaconRule {
                late: LateBeacon::DealWithout,
                ..BeaconRule::quicknet(5_000)
            }),
        };
    }
    let config = Arc::new(config);
    let signature = [7u8; 48];
    let started = Instant::now();
    for i in 0..n {
        let mut round = TableRound::new(seed(i), config.clone());
        let at = 1_692_803_367_000 + 2_990_000;
        let mut step = |command: RoundCommand| {
            round.step(&command).expect("the round takes it");
        };
        step(RoundCommand::Open(OpenRound {
            table: "T".into(),
            dealer: "d".into(),
            shoe: None,
            shape: Shape::Seats { seats: 7 },
            max_players: 7,
            seats_per_player: 1,
            decision_window_ms: 60_000,
            at: Timestamp(at),
        }));
        for seat in 1..=7u8 {
            step(RoundCommand::Bet(PlaceBet {
                player: format!("p{seat}"),
                seat: Some(seat),
                wagers: vec![Wager {
                    bet: BetId::Ante,
                    amount: Money(500),
                }],
                seed_digest: mixed.then(|| mix::player_seed_digest(&[seat; 16])),
                at: Timestamp(at + 1),
            }));
        }
        step(RoundCommand::CloseBetting {
            at: Timestamp(at + 2),
            shaker: None,
        });
        if mixed {
            step(RoundCommand::Beacon(BeaconArrival {
                value: BeaconValue {
                    chain: BeaconRule::quicknet(5_000).chain(),
                    // The round a round opened at 2 990 s with 5 s of betting names.
                    round: 1001,
                    randomness: mix::player_seed_digest(&signature),
                },
                signature: signature.to_vec(),
                at: Timestamp(at + 7_000),
            }));
        }
        for seat in 1..=7u8 {
            step(RoundCommand::Decide(Decide {
                player: format!("p{seat}"),
                seat: Some(seat),
                action: Action::Raise,
                at: Timestamp(at + 8_000),
            }));
        }
    }
    n as f64 / started.elapsed().as_secs_f64()
}

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
    let (verifications, mixes, played, tables) = if quick {
        (9, 1_000, 1_000, 100)
    } else {
        (270, 1_000_000, 200_000, 20_000)
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
    let plain = table_rounds(tables, false);
    let with_sources = table_rounds(tables, true);
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
    println!(
        "7-seat caribbean_stud rounds through the engine: {plain:.0}/s without sources, {with_sources:.0}/s with seven players' seeds and the beacon ({:.2}×; the deal opens each seat's hand again over the mixed seed's cards)",
        with_sources / plain
    );
    println!(
        "a round naming its own beacon round (none shared): one verification + one round = {:.2} ms; rounds/s so bound: {:.0}",
        verify_s * 1e3 + 1e3 / with_sources,
        1.0 / (verify_s + 1.0 / with_sources)
    );
}
