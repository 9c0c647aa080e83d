//! The Fortune bonus over all C(53,7) = 154 143 080 seven-card hands: category counts, the return of
//! the default paytable (92.23 % in `spec/GAMES.md`), and a cross-check of the fast classifier
//! against a reference built from five-card evaluations on every hand holding the joker (the hard
//! cases) and on a sample of the natural ones.
//!
//! The counts are pinned in `fixtures/fortune-counts.json`, which this test writes when run with
//! `PITBOSS_BLESS=1` and otherwise checks.

// The engine's plain reference implementations, shared rather than copied.
use pitboss_testkit::reference as common;

use pitboss_engine::card::{format_cards, Card, Rank, Suit};
use pitboss_engine::config::{GameConfig, Rules};
use pitboss_engine::game::GameId;
use pitboss_engine::hand::fortune::{classify, FortuneCategory};
use pitboss_engine::hand::pai_gow::{self, Category as PaiGow};
use pitboss_engine::money::Money;
use pitboss_engine::paytable::row_for;

const HANDS: u64 = 154_143_080;

/// Counts per category over every 7-card hand, by the lab's exhaustive enumeration (the same
/// code `pitboss par fortune_pai_gow` runs).
fn exhaustive_counts() -> [u64; 12] {
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 8);
    pitboss_lab::fortune::category_counts(threads)
}

#[test]
fn fortune_bonus_returns_92_23_percent_over_every_hand() {
    let counts = exhaustive_counts();
    assert_eq!(counts.iter().sum::<u64>(), HANDS, "C(53,7) hands");

    // Return per unit staked: Σ count × payout of one unit over the default paytable's rows,
    // exactly, in integers.
    let config = GameConfig::default_for(GameId::FortunePaiGow);
    let Rules::FortunePaiGow(rules) = &config.rules else {
        panic!("Fortune Pai Gow rules")
    };
    let mut returned = 0u64;
    println!("{:<40} {:>12} {:>12}", "category", "hands", "pays per 1");
    for category in FortuneCategory::ALL {
        let n = counts[category as usize];
        let per_unit = row_for(&rules.bonus_paytable, category)
            .map(|row| row.pay.payout(Money(1)).expect("small"));
        returned += n * per_unit.map_or(0, |m| m.0);
        println!(
            "{:<40} {n:>12} {:>12}",
            category.id(),
            per_unit.map_or("loses".into(), |m| m.0.to_string())
        );
    }
    // Rounded to hundredths of a percent.
    let basis_points = (returned * 10_000 + HANDS / 2) / HANDS;
    println!(
        "return {returned}/{HANDS} = {:.4} %",
        returned as f64 * 100.0 / HANDS as f64
    );
    assert_eq!(
        basis_points, 9_223,
        "published Fortune bonus return 92.23 %"
    );

    // Pin the counts: any change to the classifier shows up here by category.
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/fortune-counts.json");
    let json = serde_json::json!({
        "note": "Fortune bonus categories over all C(53,7) hands; written by tests/fortune.rs with PITBOSS_BLESS=1, checked otherwise",
        "hands": HANDS,
        "return_numerator": returned,
        "counts": FortuneCategory::ALL.iter().map(|c| (c.id().to_string(), serde_json::json!(counts[*c as usize]))).collect::<serde_json::Map<_, _>>(),
    });
    let text = serde_json::to_string_pretty(&json).expect("json") + "\n";
    if std::env::var_os("PITBOSS_BLESS").is_some() {
        std::fs::write(&fixture, &text).expect("write fixture");
    }
    let pinned = std::fs::read_to_string(&fixture).expect("fixtures/fortune-counts.json");
    assert_eq!(
        pinned, text,
        "Fortune counts differ from fixtures/fortune-counts.json"
    );
}

/// Reference classification: from the 21 five-card hands (Pai Gow evaluator, itself checked
/// exhaustively in `evaluators.rs`) and direct searches for the seven-card straight flushes and
/// the royal match. Best = first in paytable order.
fn reference(hand: &[Card; 7]) -> FortuneCategory {
    use FortuneCategory as F;
    let naturals: Vec<Card> = hand.iter().copied().filter(|c| !c.is_joker()).collect();
    let joker = naturals.len() == 6;
    let is_seven_run = |cards: &[Card]| -> bool {
        let suit = cards[0].suit();
        if cards.iter().any(|c| c.suit() != suit) {
            return false;
        }
        let mut ranks: Vec<u8> = cards
            .iter()
            .filter_map(|c| c.rank())
            .map(|r| r.index())
            .collect();
        ranks.sort_unstable();
        let high_run = ranks.windows(2).all(|w| w[1] == w[0] + 1);
        let low: Vec<u8> = ranks
            .iter()
            .map(|&r| if r == 12 { 0 } else { r + 1 })
            .collect();
        let mut low_sorted = low.clone();
        low_sorted.sort_unstable();
        high_run || low_sorted.windows(2).all(|w| w[1] == w[0] + 1)
    };
    if !joker && is_seven_run(&naturals) {
        return F::SevenCardStraightFlushNatural;
    }
    for suit in Suit::ALL {
        let king = Card::new(Rank::King, suit);
        let queen = Card::new(Rank::Queen, suit);
        if hand.contains(&king) && hand.contains(&queen) {
            let rest: Vec<Card> = hand
                .iter()
                .copied()
                .filter(|&c| c != king && c != queen)
                .collect();
            let rest: [Card; 5] = rest.try_into().expect("five left");
            if pai_gow::evaluate_high(&rest).expect("distinct").category() == PaiGow::RoyalFlush {
                return F::RoyalMatch;
            }
        }
    }
    let one_suit = naturals.iter().all(|c| c.suit() == naturals[0].suit());
    if joker && one_suit {
        for index in 0..52 {
            let card = Card::from_index(index).expect("natural");
            if !naturals.contains(&card) {
                let mut seven = naturals.clone();
                seven.push(card);
                if is_seven_run(&seven) {
                    return F::SevenCardStraightFlushWithJoker;
                }
            }
        }
    }
    let mut best = F::Nothing;
    common::for_each_combination::<5>(7, |idx| {
        let five = idx.map(|i| hand[i as usize]);
        let category = match pai_gow::evaluate_high(&five).expect("distinct").category() {
            PaiGow::FiveAces => F::FiveAces,
            PaiGow::RoyalFlush => F::RoyalFlush,
            PaiGow::StraightFlush => F::StraightFlush,
            PaiGow::FourOfAKind => F::FourOfAKind,
            PaiGow::FullHouse => F::FullHouse,
            PaiGow::Flush => F::Flush,
            PaiGow::ThreeOfAKind => F::ThreeOfAKind,
            PaiGow::Straight => F::Straight,
            PaiGow::TwoPair | PaiGow::Pair | PaiGow::HighCard => F::Nothing,
        };
        best = best.min(category);
    });
    best
}

#[test]
fn fortune_classifier_matches_the_reference_on_every_joker_hand() {
    // All C(52,6) = 20 358 520 hands with the joker, split over threads by the first card.
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 8);
    let checked: u64 = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mut checked = 0u64;
                    common::for_each_combination::<6>(52, |idx| {
                        if idx[0] as usize % threads != t {
                            return;
                        }
                        let six = common::cards(idx);
                        let hand = [six[0], six[1], six[2], six[3], six[4], six[5], Card::JOKER];
                        let fast = classify(&hand).expect("distinct");
                        assert_eq!(fast, reference(&hand), "{}", format_cards(&hand));
                        checked += 1;
                    });
                    checked
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("thread")).sum()
    });
    assert_eq!(checked, 20_358_520);
}

#[test]
fn fortune_classifier_matches_the_reference_on_sampled_natural_hands() {
    // Every 61st natural hand in lexicographic order (about 2.2 million), plus the rare categories
    // checked by construction in the unit tests.
    let mut n = 0u64;
    let mut checked = 0u64;
    common::for_each_combination::<7>(52, |idx| {
        n += 1;
        if !n.is_multiple_of(61) {
            return;
        }
        let hand = common::cards(idx);
        assert_eq!(
            classify(&hand).expect("distinct"),
            reference(&hand),
            "{}",
            format_cards(&hand)
        );
        checked += 1;
    });
    assert_eq!(n, 133_784_560);
    assert!(checked > 2_000_000);
}
