//! Exhaustive checks of every hand evaluator over every hand it can see: the category counts of
//! `spec/GAMES.md` and of standard poker, and the complete order of hands against the plain
//! reference implementations in `common`.

use std::collections::{HashMap, HashSet};

use pitboss_engine::card::{format_cards, Card};
use pitboss_engine::hand::pai_gow::{self, is_legal_setting};
use pitboss_engine::hand::poker5::{self, Category};
use pitboss_engine::hand::three_card;
use pitboss_testkit::reference::*;

fn mask_of(idx: &[u8]) -> u64 {
    idx.iter().fold(0, |m, &i| m | 1 << i)
}

fn describe(mask: u64) -> String {
    let cards: Vec<Card> = (0..53u8)
        .filter(|i| mask & 1 << i != 0)
        .filter_map(Card::from_index)
        .collect();
    format_cards(&cards)
}

#[test]
fn five_card_poker_over_all_2_598_960_hands() {
    let mut counts: HashMap<Category, u32> = HashMap::new();
    let mut distinct = HashSet::new();
    let mut pairs = Vec::with_capacity(2_598_960);
    for_each_combination::<5>(52, |idx| {
        let hand = cards(idx);
        let value = poker5::evaluate(&hand).expect("natural distinct cards");
        *counts.entry(value.category()).or_default() += 1;
        distinct.insert(value);
        pairs.push((poker5_key(&hand), value, mask_of(idx)));
    });
    let expected = [
        (Category::RoyalFlush, 4),
        (Category::StraightFlush, 36),
        (Category::FourOfAKind, 624),
        (Category::FullHouse, 3_744),
        (Category::Flush, 5_108),
        (Category::Straight, 10_200),
        (Category::ThreeOfAKind, 54_912),
        (Category::TwoPair, 123_552),
        (Category::Pair, 1_098_240),
        (Category::HighCard, 1_302_540),
    ];
    for (category, count) in expected {
        assert_eq!(
            counts.get(&category).copied().unwrap_or(0),
            count,
            "{category}"
        );
    }
    assert_eq!(pairs.len(), 2_598_960);
    assert_eq!(distinct.len(), 7_462, "distinct hand values");
    assert_same_order(pairs, describe);
}

#[test]
fn three_card_hands_over_all_22_100() {
    use three_card::Category as C;
    let mut counts: HashMap<C, u32> = HashMap::new();
    let mut total = 0;
    for_each_combination::<3>(52, |idx| {
        let value = three_card::evaluate(&cards(idx)).expect("natural distinct cards");
        *counts.entry(value.category()).or_default() += 1;
        total += 1;
    });
    assert_eq!(total, 22_100);
    let expected = [
        (C::MiniRoyal, 4),
        (C::StraightFlush, 44),
        (C::ThreeOfAKind, 52),
        (C::Straight, 720),
        (C::Flush, 1_096),
        (C::Pair, 3_744),
        (C::HighCard, 22_100 - 4 - 44 - 52 - 720 - 1_096 - 3_744),
    ];
    for (category, count) in expected {
        assert_eq!(
            counts.get(&category).copied().unwrap_or(0),
            count,
            "{category}"
        );
    }
}

#[test]
fn pai_gow_high_hands_over_all_2_869_685_with_the_joker() {
    use pai_gow::Category as C;
    let mut counts: HashMap<C, u32> = HashMap::new();
    let mut pairs = Vec::with_capacity(2_869_685);
    let mut natural_counts: HashMap<C, u32> = HashMap::new();
    for_each_combination::<5>(53, |idx| {
        let hand = cards(idx);
        let value = pai_gow::evaluate_high(&hand).expect("distinct cards");
        let key = pai_gow_high_key(&hand);
        assert_eq!(
            value.category() as u8,
            key.category,
            "category of {}",
            format_cards(&hand)
        );
        *counts.entry(value.category()).or_default() += 1;
        if !hand.contains(&Card::JOKER) {
            *natural_counts.entry(value.category()).or_default() += 1;
        }
        pairs.push((key, value, mask_of(idx)));
    });
    assert_eq!(pairs.len(), 2_869_685);
    // Without the joker the categories are those of standard poker.
    assert_eq!(natural_counts.get(&C::RoyalFlush), Some(&4));
    assert_eq!(natural_counts.get(&C::StraightFlush), Some(&36));
    assert_eq!(natural_counts.get(&C::Pair), Some(&1_098_240));
    // Five aces: the four aces and the joker, once. Royal flushes: 4 natural + 4 suits × 5 ways
    // for the joker to stand in.
    assert_eq!(counts.get(&C::FiveAces), Some(&1));
    assert_eq!(counts.get(&C::RoyalFlush), Some(&24));
    assert_same_order(pairs, describe);
}

#[test]
fn pai_gow_low_hands_and_legality_over_every_pair_of_hand_classes() {
    // One representative per distinct high value and per distinct low value, then every pairing:
    // the fast legality rule must agree with the reference comparison (the high hand must rank
    // strictly above the low hand, a shorter tie-break list ranking lower).
    let mut highs: HashMap<pai_gow::HighValue, [Card; 5]> = HashMap::new();
    for_each_combination::<5>(53, |idx| {
        let hand = cards(idx);
        highs
            .entry(pai_gow::evaluate_high(&hand).expect("distinct"))
            .or_insert(hand);
    });
    let mut lows: HashMap<pai_gow::LowValue, [Card; 2]> = HashMap::new();
    let mut low_pairs = Vec::new();
    for_each_combination::<2>(53, |idx| {
        let hand = cards(idx);
        let value = pai_gow::evaluate_low(&hand).expect("distinct");
        lows.entry(value).or_insert(hand);
        low_pairs.push((pai_gow_low_key(&hand), value, mask_of(idx)));
    });
    assert_eq!(low_pairs.len(), 1_378);
    assert_eq!(lows.len(), 13 + 78, "13 pairs and C(13,2) non-pairs");
    assert_same_order(low_pairs, describe);
    let mut checked = 0u64;
    let mut legal = 0u64;
    for (high_value, high_hand) in &highs {
        let high_key = pai_gow_high_key(high_hand);
        for (low_value, low_hand) in &lows {
            let expected = high_key > pai_gow_low_key(low_hand);
            assert_eq!(
                is_legal_setting(*high_value, *low_value),
                expected,
                "high {} low {}",
                format_cards(high_hand),
                format_cards(low_hand)
            );
            checked += 1;
            legal += u64::from(expected);
        }
    }
    // The joker makes no hand that five natural cards cannot, except five aces.
    assert_eq!(highs.len(), 7_462 + 1, "distinct Pai Gow high-hand values");
    assert_eq!(checked, 7_463 * 91);
    assert!(legal > 0 && legal < checked);
}
