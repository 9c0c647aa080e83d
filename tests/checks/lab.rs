//! The lab's exact computations against independent ones, and the RNG's output statistics.

use std::collections::HashMap;
use std::process::Command;

use pitboss_engine::card::Deck;
use pitboss_engine::config::GameConfig;
use pitboss_engine::game::GameId;
use pitboss_engine::rng::Seed;
use pitboss_lab::nutz;
use sha2::{Digest, Sha256};

/// A plain reading of the Nutz rules, written apart from the engine: the final hand's name.
fn hand_name(faces: &[u8; 5]) -> &'static str {
    let mut counts = [0u8; 7];
    for &f in faces {
        counts[f as usize] += 1;
    }
    let mut shape: Vec<u8> = counts.iter().copied().filter(|&c| c > 0).collect();
    shape.sort_unstable_by(|a, b| b.cmp(a));
    match shape.as_slice() {
        [5] => "nutz",
        [4, 1] => "four_of_a_kind",
        [3, 2] => "full_house",
        [3, 1, 1] => "three_of_a_kind",
        [2, 2, 1] => "two_pairs",
        [2, 1, 1, 1] => "one_pair",
        _ if counts[1] == 0 || counts[6] == 0 => "straight",
        _ => "no_hand",
    }
}

/// Every sequence of dice outcomes, followed to the end of the round, with its weight over 6^15.
fn brute_force(
    faces: [u8; 5],
    held: [bool; 5],
    shake: u8,
    weight: u128,
    out: &mut HashMap<(&'static str, u8), u128>,
) {
    let free: Vec<usize> = (0..5).filter(|&i| !held[i]).collect();
    let outcomes = 6u32.pow(free.len() as u32);
    let share = weight / u128::from(outcomes);
    for roll in 0..outcomes {
        let mut f = faces;
        let mut r = roll;
        for &i in &free {
            f[i] = (r % 6) as u8 + 1;
            r /= 6;
        }
        let name = hand_name(&f);
        let over = matches!(name, "full_house" | "nutz")
            || (shake == 1 && matches!(name, "straight" | "no_hand"))
            || shake == 3;
        if over {
            *out.entry((name, shake)).or_default() += share;
        } else {
            // Hold every die in a group of two or more equal faces.
            let next_held: [bool; 5] =
                std::array::from_fn(|i| f.iter().filter(|&&x| x == f[i]).count() >= 2);
            // The next shake's weight: this outcome's share times 6^5 for the unrolled dice.
            brute_force(f, next_held, shake + 1, share, out);
        }
    }
}

#[test]
fn nutz_markov_chain_equals_brute_force_over_every_dice_outcome() {
    let exact = nutz::outcomes(3);
    let mut brute: HashMap<(&'static str, u8), u128> = HashMap::new();
    brute_force([0; 5], [false; 5], 1, nutz::denominator(3), &mut brute);
    assert_eq!(exact.values().sum::<u128>(), nutz::denominator(3));
    assert_eq!(brute.values().sum::<u128>(), nutz::denominator(3));
    assert_eq!(exact.len(), brute.len());
    for (&(hand, shake), &weight) in &exact {
        let name = pitboss::codec::id_of(&hand);
        let other = brute
            .iter()
            .find(|((n, s), _)| *n == name && *s == shake)
            .map(|(_, &w)| w);
        assert_eq!(Some(weight), other, "{name} after shake {shake}");
    }
    // Nutz on the first shake: 6 of 7 776.
    let first: u128 = exact
        .iter()
        .filter(|((h, s), _)| *s == 1 && pitboss::codec::id_of(h) == "nutz")
        .map(|(_, w)| w)
        .sum();
    assert_eq!(first * 7776, nutz::denominator(3) * 6);
}

#[test]
fn nutz_par_sheets_cover_every_box_exactly() {
    let sheets = nutz::par_sheets(&GameConfig::default_for(GameId::Nutz)).unwrap();
    assert_eq!(sheets.len(), 7);
    for sheet in &sheets {
        assert_eq!(
            sheet.rows.iter().map(|r| r.count).sum::<u128>(),
            sheet.denominator,
            "{}",
            sheet.title
        );
        assert!(
            sheet.return_rate() < 1.0,
            "{} returns {}",
            sheet.title,
            sheet.return_rate()
        );
    }
    // The straight-or-no-hand box can only win on the first shake: 720 of 7 776 at 9 to 1.
    let straight = sheets
        .iter()
        .find(|s| s.title.ends_with("box_straight_or_no_hand"))
        .unwrap();
    assert_eq!(straight.returned() * 7776, straight.denominator * 720 * 10);
}

/// Chi-square of card-by-position counts over 10^6 shuffles of 52 cards (seeds derived from a
/// counter, so the test is reproducible): each position's distribution over the 52 cards must be
/// uniform. 52 × 51 = 2 652 degrees of freedom: mean 2 652, standard deviation about 72.8.
#[test]
fn card_by_position_counts_over_a_million_shuffles_are_uniform() {
    const SHUFFLES: u64 = 1_000_000;
    let mut counts = vec![[0u32; 52]; 52];
    for n in 0..SHUFFLES {
        let seed = Seed::from_bytes(Sha256::digest(format!("chi-square {n}")).into());
        for (position, card) in seed.stream().shuffle(Deck::Standard52).iter().enumerate() {
            counts[position][usize::from(card.index())] += 1;
        }
    }
    let expected = SHUFFLES as f64 / 52.0;
    let chi2: f64 = counts
        .iter()
        .flatten()
        .map(|&o| (f64::from(o) - expected).powi(2) / expected)
        .sum();
    let df = 52.0 * 51.0;
    let z = (chi2 - df) / (2.0 * df).sqrt();
    println!("chi-square {chi2:.1} on {df} degrees of freedom (z = {z:.2})");
    assert!(z.abs() < 5.0, "chi-square {chi2:.1}, z = {z:.2}");
    for row in &counts {
        assert_eq!(row.iter().map(|&c| u64::from(c)).sum::<u64>(), SHUFFLES);
    }
}

#[test]
fn rng_command_writes_raw_words() {
    let out = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(["rng", "--words", "10000", "--per-seed", "100"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout.len(), 40_000);
    let words: Vec<u32> = out
        .stdout
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let distinct: std::collections::HashSet<_> = words.iter().collect();
    assert!(
        distinct.len() > 9_990,
        "fresh random words, nearly all distinct"
    );
    // Shuffled decks, one byte a card: every deck a permutation, decks not all alike.
    let out = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(["rng", "--shuffles", "100", "--joker"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout.len(), 100 * 53);
    let decks: std::collections::HashSet<&[u8]> = out.stdout.chunks(53).collect();
    assert_eq!(decks.len(), 100);
    for deck in &decks {
        let mut sorted = deck.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..53).collect::<Vec<u8>>());
    }
    let out = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(["par", "nutz", "--format", "json"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["sheets"].as_array().unwrap().len(), 7);
    assert!(json["main_bet_simulation"].is_null());
    let out = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(["par", "caribbean_stud", "--format", "csv"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text
        .contains("caribbean_stud / ante and raise, optimal strategy,player_higher_royal_flush,"));
    assert!(text.contains("caribbean_stud / bonus,total,"));
}

#[test]
fn mississippi_stud_optimal_play_returns_98_63_percent_and_the_bonus_97_86() {
    let config = GameConfig::default_for(GameId::MississippiStud);
    let pitboss_engine::config::Rules::MississippiStud(rules) = &config.rules else {
        panic!("rules")
    };
    let a = pitboss_lab::mississippi::analyse(rules);
    // Return per total amount wagered, exactly: 1 + value / wagered, rounded to hundredths of a %.
    let basis_points = ((a.wagered + a.value) * 10_000 * 2 + a.wagered) / (2 * a.wagered);
    assert_eq!(
        basis_points,
        9_863,
        "published 98.63 %: {}",
        a.return_per_wagered()
    );
    assert!(
        (a.per_ante() + 0.0491).abs() < 0.0001,
        "house edge per ante {}",
        a.per_ante()
    );
    assert!(a.average_wager() > 3.5 && a.average_wager() < 3.7);
    // The forward pass that writes the sheet row by row lands exactly on the backward induction.
    let main = pitboss_lab::mississippi::main_sheet(&config).unwrap();
    assert_eq!(
        main.rows.iter().map(|r| r.count).sum::<u128>(),
        main.denominator
    );
    assert_eq!(main.denominator as i128, a.denominator);
    assert_eq!(main.wagered() as i128, a.wagered);
    assert_eq!(main.returned() as i128 - main.wagered() as i128, a.value);
    let bonus = pitboss_lab::mississippi::bonus_sheet(&config).unwrap();
    assert_eq!(bonus.rows.iter().map(|r| r.count).sum::<u128>(), 22_100);
    assert_eq!(
        (bonus.returned() * 10_000 + 11_050) / 22_100,
        9_786,
        "published 97.86 %"
    );
}

/// The published 97.47 % for the main bet under the house way (both sides), by simulating 10^8
/// rounds through the engine's house way and main-bet rule: the 95 % interval must contain it.
/// About two minutes on this machine's two cores.
#[test]
fn pai_gow_main_bet_simulated_over_10_8_rounds_contains_97_47_percent() {
    let config = GameConfig::default_for(GameId::FortunePaiGow);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let sim = pitboss_lab::pai_gow::simulate_main(
        &config,
        100_000_000,
        &Seed::from_bytes([0; 32]),
        threads,
        &pitboss_lab::Run::default(),
    )
    .unwrap();
    assert_eq!(sim.rounds, 100_000_000);
    assert_eq!(sim.wins + sim.pushes + sim.losses, sim.rounds);
    let (low, high) = sim.interval();
    println!(
        "return {:.5} %, 95 % interval {:.5} – {:.5} %",
        sim.return_rate() * 100.0,
        low * 100.0,
        high * 100.0
    );
    assert!(
        low <= 0.9747 && 0.9747 <= high,
        "interval {low:.6} – {high:.6} misses 97.47 %"
    );
    assert!(
        high - low < 0.0004,
        "the interval is narrow: {low} – {high}"
    );
}

/// Caribbean Stud, exactly: the counting sweep against plain enumeration of the dealer's 163 185
/// completions for sampled hands and up cards, then the whole analysis against the published
/// optimal-strategy figures (house edge 5.224 % per ante, element of risk 2.556 %, raising 52.2 %
/// of hands) and the bonus, whose pays need no strategy but the folds (never on a flush or better).
#[test]
fn caribbean_stud_counting_equals_enumeration_and_gives_the_published_edge() {
    use pitboss_engine::card::{parse_cards, Card};
    use pitboss_lab::caribbean::{self, Counts, Decision, Payouts, SortedHands, COMPLETIONS};
    let config = GameConfig::default_for(GameId::CaribbeanStud);
    let pitboss_engine::config::Rules::CaribbeanStud(rules) = &config.rules else {
        panic!("rules")
    };
    let hands = SortedHands::build();
    let card = |i: u8| Card::from_index(i).unwrap();
    // Two up cards of different suits and ranks; every 25 000th player hand and the first 60 that
    // can tie the dealer, checked by enumeration.
    for up in [card(4 * 11 + 2), card(1)] {
        let mut visited = 0u64;
        let mut checked = 0;
        let mut ties_checked = 0;
        caribbean::sweep(&hands, up.index(), |set, _, counts| {
            visited += 1;
            let total = counts.not_qualifying
                + counts.player_higher
                + counts.stand_off
                + counts.dealer_higher;
            assert_eq!(total, COMPLETIONS);
            let tie_prone = ties_checked < 60 && counts.stand_off > 0;
            if visited.is_multiple_of(25_000) || tie_prone {
                ties_checked += usize::from(tie_prone);
                let player = set.map(card);
                assert_eq!(
                    counts,
                    caribbean::dealer_counts(&player, up),
                    "{player:?} against {up}"
                );
                checked += 1;
            }
        });
        assert_eq!(visited, 2_349_060, "C(51,5) player hands against {up}");
        assert!(checked >= 140, "{checked} checked");
    }
    // Well-known decisions: a pair always raises; no ace-king folds.
    let payouts = Payouts::of(rules).unwrap();
    let advise = |player: &str, up: &str| {
        let player: [Card; 5] = parse_cards(player).unwrap().try_into().unwrap();
        caribbean::advise(rules, &player, parse_cards(up).unwrap()[0]).unwrap()
    };
    assert_eq!(advise("2c 2d 5h 7s 9c", "As"), Decision::Raise);
    assert_eq!(advise("Qc Jd 9h 7s 5c", "3s"), Decision::Fold);
    assert_eq!(
        advise("Ac Kd Jh 8s 3c", "Ad"),
        Decision::Raise,
        "A K J 8 3 raises"
    );
    assert_eq!(
        advise("Ac Kd 4h 3s 2c", "Qd"),
        Decision::Fold,
        "A K 4 3 2 against a queen folds"
    );
    // A tie between raising and folding raises.
    let tie = Counts {
        not_qualifying: 0,
        player_higher: 0,
        stand_off: COMPLETIONS,
        dealer_higher: 0,
    };
    assert!(
        payouts.raise_net(pitboss_engine::hand::poker5::Category::Pair, &tie) > payouts.fold_net()
    );

    // The decision table (one bit per hand and up card, built by the sweep for the up cards of the
    // first suit) against enumeration, for hands and up cards of every suit.
    let (_, table) = caribbean::analyse(rules, 2).unwrap();
    let mut raised = 0;
    for n in 0..200u64 {
        let seed = Seed::from_bytes(Sha256::digest(format!("caribbean {n}")).into());
        let deck = seed.stream().shuffle(Deck::Standard52);
        let player: [Card; 5] = deck[..5].try_into().unwrap();
        let decision = table.decide(&player, deck[5]);
        assert_eq!(
            decision,
            caribbean::advise(rules, &player, deck[5]).unwrap(),
            "{player:?} {}",
            deck[5]
        );
        raised += usize::from(decision == Decision::Raise);
    }
    assert!((60..140).contains(&raised), "{raised} of 200 raised");

    let sheets = caribbean::par_sheets(&config, 2).unwrap();
    let main = &sheets[0];
    assert_eq!(
        main.rows.iter().map(|r| r.count).sum::<u128>(),
        main.denominator
    );
    println!("{}", main.markdown());
    assert!(
        (main.house_edge() - 0.05224).abs() < 0.00001,
        "house edge {}",
        main.house_edge()
    );
    assert!(
        (main.element_of_risk() - 0.02556).abs() < 0.00001,
        "element of risk {}",
        main.element_of_risk()
    );
    // The average wager is 1 + 2 × P(raise).
    let raise_share = (main.average_wager() - 1.0) / 2.0;
    assert!((raise_share - 0.522).abs() < 0.001, "raises {raise_share}");
    // Bonus: every flush or better raises, so it returns the plain count of those hands × pays:
    // (4 × 10 000 + 36 × 1 000 + 624 × 500 + 3 744 × 250 + 5 108 × 150) / 2 598 960.
    let bonus = &sheets[1];
    assert_eq!(
        bonus.returned() * 2_598_960,
        (4 * 10_000 + 36 * 1_000 + 624 * 500 + 3_744 * 250 + 5_108 * 150) * bonus.denominator
    );
}

/// Whole hands through the engine's commands, every game: the rows hit are the exact sheet's rows,
/// the chi-square against the exact sheet does not reject it, the report is the same on one thread
/// as on two (hand seeds come from the run seed and the hand's number), and a strategy other than
/// the one the sheet assumes is told apart by the same test.
#[test]
fn simulation_through_the_engine_agrees_with_the_exact_sheets() {
    use pitboss_lab::simulate::{self, Request, Strategy};
    let run = |game, hands, strategy, threads| {
        let request = Request {
            config: GameConfig::default_for(game),
            hands,
            strategy,
            seed: Seed::from_bytes([7; 32]),
            threads,
        };
        let progress = pitboss_lab::Run::default();
        let report = simulate::run(&request, &progress).unwrap();
        assert_eq!(progress.done.into_inner(), hands, "every hand counted once");
        report
    };
    for game in [
        GameId::MississippiStud,
        GameId::CaribbeanStud,
        GameId::FortunePaiGow,
        GameId::Nutz,
    ] {
        let report = run(game, 40_000, Strategy::Optimal, 2);
        assert_eq!(report.hands, 40_000);
        for group in &report.groups {
            assert_eq!(group.tally.hands, 40_000, "{game} {}", group.name);
            assert_eq!(
                group.tally.rows.values().sum::<u64>(),
                40_000,
                "{game} {}",
                group.name
            );
            let (low, high) = group.tally.interval();
            assert!(low < group.tally.return_rate() && group.tally.return_rate() < high);
            match (&group.exact, &group.chi_square) {
                (Some(_), Some(chi)) => {
                    assert!(
                        chi.unknown_rows.is_empty(),
                        "{game} {}: {chi:?}",
                        group.name
                    );
                    assert!(chi.p_value > 0.0001, "{game} {}: {chi:?}", group.name);
                }
                (None, None) => assert_eq!(
                    (game, group.name.as_str()),
                    (GameId::FortunePaiGow, "main"),
                    "only the Pai Gow main bet has no exact sheet"
                ),
                other => panic!("{game} {}: {other:?}", group.name),
            }
        }
    }
    // Each row's wagers: the simulated hands that ended in a row wagered, on average, what the
    // exact sheet says (Σ wagered / count) and its square (Σ wagered² / count) — the second
    // moment behind each sheet's variance — within five standard errors (a wager is at most ten
    // antes, so these means converge quickly).
    for game in [GameId::MississippiStud, GameId::CaribbeanStud] {
        let config = GameConfig::default_for(game);
        let initial = match &config.rules {
            pitboss_engine::config::Rules::MississippiStud(r) => r.ante.min.0,
            pitboss_engine::config::Rules::CaribbeanStud(r) => r.ante.min.0,
            _ => unreachable!(),
        } as f64;
        let report = run(game, 60_000, Strategy::Optimal, 2);
        let main = report.groups.iter().find(|g| g.name == "main").unwrap();
        let exact = main.exact.as_ref().unwrap();
        let mut compared = 0;
        for (row, &(w, w2)) in &main.tally.row_wagers {
            let hits = main.tally.rows[row] as f64;
            let sheet = exact.row(row).unwrap();
            if hits < 200.0 {
                continue;
            }
            let mean_w = w as f64 / hits / initial;
            let mean_w2 = w2 as f64 / hits / (initial * initial);
            let exact_w = sheet.wagered as f64 / sheet.count as f64;
            let exact_w2 = sheet.wagered_sq as f64 / sheet.count as f64;
            // The sample's own spread of w; that of w² is at most 2 × 10 × it (w ≤ 10 antes, and
            // |w² − c²| = |w − c|·|w + c|).
            let sd_w = (mean_w2 - mean_w * mean_w).max(0.0).sqrt();
            assert!(
                (mean_w - exact_w).abs() <= 5.0 * sd_w / hits.sqrt() + 1e-9,
                "{game} {row}: mean wager {mean_w} against {exact_w}"
            );
            assert!(
                (mean_w2 - exact_w2).abs() <= 5.0 * 2.0 * 10.0 * sd_w / hits.sqrt() + 1e-9,
                "{game} {row}: mean squared wager {mean_w2} against {exact_w2}"
            );
            compared += 1;
        }
        assert!(compared >= 5, "{game}: only {compared} rows compared");
        // The variance from the rows is Σ p·net² − edge², positive and finite.
        let variance = exact.variance();
        assert!(variance.is_finite() && variance > 0.0, "{game}: {variance}");
    }
    // One thread or two: the same hands, the same report.
    let one = run(GameId::MississippiStud, 3_000, Strategy::Optimal, 1);
    let two = run(GameId::MississippiStud, 3_000, Strategy::Optimal, 2);
    for (a, b) in one.groups.iter().zip(&two.groups) {
        assert_eq!(a.tally, b.tally);
    }
    // Never folding is not the optimal strategy: its rows are far from the optimal sheet.
    let always = run(GameId::MississippiStud, 20_000, Strategy::Always, 2);
    let main = &always.groups[0];
    assert!(main.chi_square.is_none(), "no exact sheet for 'always'");
    let optimal =
        pitboss_lab::mississippi::main_sheet(&GameConfig::default_for(GameId::MississippiStud))
            .unwrap();
    let chi = simulate::chi_square(&main.tally, &optimal);
    assert!(chi.p_value < 1e-9, "{chi:?}");
    assert!(!main.tally.rows.contains_key("fold_on_third_street"));
}

#[test]
fn simulate_command_prints_the_report() {
    let out = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args([
            "simulate",
            "caribbean_stud",
            "--hands",
            "2000",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["hands"], 2000);
    assert_eq!(report["groups"][0]["name"], "main");
    assert!(report["groups"][0]["chi_square"]["p_value"]
        .as_f64()
        .is_some());
    let bad = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(["simulate", "nutz", "--strategy", "always", "--hands", "10"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("does not apply"));
}
