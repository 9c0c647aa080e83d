//! Lab benchmarks: the time of each exact computation, and the simulation rates (whole hands
//! through the engine's commands; Pai Gow rounds through the house way), on every core.
//! Run: `cargo bench --bench lab` (numbers in `docs/PERFORMANCE.md`).

use std::time::Instant;

use pitboss_engine::config::{GameConfig, Rules};
use pitboss_engine::game::GameId;
use pitboss_engine::rng::Seed;
use pitboss_lab::simulate::{self, Request, Strategy};
use pitboss_lab::{caribbean, fortune, mississippi, nutz, pai_gow};

/// The best of `runs` wall-clock times of `work`, in seconds.
fn best_of(runs: usize, mut work: impl FnMut()) -> f64 {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            work();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    // `cargo test --benches` runs this without `--bench`: then only a quick pass that the code
    // runs (the exact computations take seconds each and are tested in `tests/checks/lab.rs`).
    let quick = !std::env::args().any(|a| a == "--bench");
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let config = GameConfig::default_for;
    println!("threads: {threads}\n");
    if quick {
        nutz::par_sheets(&config(GameId::Nutz)).unwrap();
        pai_gow::simulate_main(
            &config(GameId::FortunePaiGow),
            10_000,
            &Seed::from_bytes([0; 32]),
            threads,
            &pitboss_lab::Run::default(),
        )
        .unwrap();
        println!("quick pass (run `cargo bench --bench lab` for the numbers)");
        return;
    }
    println!("| exact computation | best of | seconds |\n| --- | ---: | ---: |");
    let ms = config(GameId::MississippiStud);
    let Rules::MississippiStud(ms_rules) = &ms.rules else {
        unreachable!()
    };
    let t = best_of(3, || {
        mississippi::analyse(ms_rules);
    });
    println!("| Mississippi Stud optimal strategy, backward induction (one thread) | 3 | {t:.3} |");
    let t = best_of(3, || {
        mississippi::main_sheet(&ms).unwrap();
    });
    println!("| Mississippi Stud sheet row by row (induction, then a forward pass) | 3 | {t:.3} |");
    let cs = config(GameId::CaribbeanStud);
    let Rules::CaribbeanStud(cs_rules) = &cs.rules else {
        unreachable!()
    };
    let t = best_of(3, || {
        caribbean::analyse(cs_rules, threads).unwrap();
    });
    println!("| Caribbean Stud optimal strategy over every deal, by counting | 3 | {t:.3} |");
    let t = best_of(1, || {
        fortune::par_sheet(&config(GameId::FortunePaiGow), threads).unwrap();
    });
    println!("| Fortune bonus over all C(53,7) hands | 1 | {t:.3} |");
    let t = best_of(5, || {
        nutz::par_sheets(&config(GameId::Nutz)).unwrap();
    });
    println!("| Nutz, seven boxes (Markov chain) | 5 | {t:.3} |");

    println!(
        "\n| simulation | hands or rounds | seconds | per second |\n| --- | ---: | ---: | ---: |"
    );
    let rounds = 10_000_000;
    let t = Instant::now();
    pai_gow::simulate_main(
        &config(GameId::FortunePaiGow),
        rounds,
        &Seed::from_bytes([0; 32]),
        threads,
        &pitboss_lab::Run::default(),
    )
    .unwrap();
    let s = t.elapsed().as_secs_f64();
    println!(
        "| Pai Gow main bet, house way both sides | {rounds} | {s:.2} | {:.0} |",
        rounds as f64 / s
    );
    for game in [
        GameId::MississippiStud,
        GameId::CaribbeanStud,
        GameId::FortunePaiGow,
        GameId::Nutz,
    ] {
        let hands = 400_000;
        let report = simulate::run(
            &Request {
                config: config(game),
                hands,
                strategy: Strategy::Optimal,
                seed: Seed::from_bytes([1; 32]),
                threads,
            },
            &pitboss_lab::Run::default(),
        )
        .unwrap();
        println!(
            "| {game}, whole hands through the engine's commands (optimal play) | {hands} | {:.2} | {:.0} |",
            report.seconds,
            report.rate()
        );
    }
}
