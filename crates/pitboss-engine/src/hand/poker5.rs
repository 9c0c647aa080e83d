//! Standard five-card poker (Mississippi Stud, Caribbean Stud): the category of a hand and its full
//! tie-break value. 52 cards, no joker; aces high, and low only in the wheel A-2-3-4-5, which is the
//! lowest straight.
//!
//! The evaluator is branch-light bit arithmetic on rank masks (no tables, no allocation), a few
//! nanoseconds a hand. Over all 2 598 960 hands it yields exactly 7 462 distinct values.

use std::fmt;

use super::rank_masks::{one_suit, straight_top, RankCounts, SuitLanes, BROADWAY};
use super::{check_cards, pack, HandError};
use crate::card::{Card, Rank};

/// The ten categories, lowest first. A royal flush is kept apart from other straight flushes
/// because paytables pay it apart.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum Category {
    HighCard = 0,
    Pair,
    TwoPair,
    ThreeOfAKind,
    Straight,
    Flush,
    FullHouse,
    FourOfAKind,
    StraightFlush,
    RoyalFlush,
}

impl Category {
    /// All categories, lowest first.
    pub const ALL: [Category; 10] = [
        Category::HighCard,
        Category::Pair,
        Category::TwoPair,
        Category::ThreeOfAKind,
        Category::Straight,
        Category::Flush,
        Category::FullHouse,
        Category::FourOfAKind,
        Category::StraightFlush,
        Category::RoyalFlush,
    ];

    /// A stable snake_case id, as used in configurations and reports.
    pub const fn id(self) -> &'static str {
        match self {
            Category::HighCard => "high_card",
            Category::Pair => "pair",
            Category::TwoPair => "two_pair",
            Category::ThreeOfAKind => "three_of_a_kind",
            Category::Straight => "straight",
            Category::Flush => "flush",
            Category::FullHouse => "full_house",
            Category::FourOfAKind => "four_of_a_kind",
            Category::StraightFlush => "straight_flush",
            Category::RoyalFlush => "royal_flush",
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id().replace('_', " "))
    }
}

/// A hand's value: compare two values to compare the hands (equal values tie exactly).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HandValue(u32);

impl HandValue {
    /// The hand's category.
    #[inline]
    pub fn category(self) -> Category {
        Category::ALL[(self.0 >> 26) as usize]
    }

    /// The raw ordered integer.
    #[inline]
    pub const fn raw(self) -> u32 {
        self.0
    }

    /// A value back from [`HandValue::raw`] (only for values the evaluator produced: the lab's
    /// tables keep raw values).
    #[inline]
    pub const fn from_raw(raw: u32) -> HandValue {
        HandValue(raw)
    }

    /// The rank of the pair, for a one-pair hand.
    #[inline]
    pub fn pair_rank(self) -> Option<Rank> {
        if self.category() == Category::Pair {
            let primary = ((self.0 >> 13) & 0x1FFF) as u16;
            Rank::from_index(primary.trailing_zeros() as u8)
        } else {
            None
        }
    }
}

/// Evaluates five distinct natural cards.
pub fn evaluate(cards: &[Card; 5]) -> Result<HandValue, HandError> {
    check_cards(cards, false)?;
    Ok(evaluate_unchecked(cards))
}

/// Evaluates five cards already known to be distinct and natural (dealt from a 52-card deck).
/// A joker or a repeated card gives a meaningless value, never a panic.
#[inline]
pub fn evaluate_unchecked(cards: &[Card; 5]) -> HandValue {
    let suits = SuitLanes::of(cards).suits();
    HandValue(value_of(RankCounts::from_suits(suits), one_suit(suits)))
}

/// The value of five cards from their rank counts and whether they share a suit. The wheel's
/// straight value has the five as its top card. (Pai Gow reuses this and re-ranks the wheel.)
///
/// Five distinct ranks (high card, straight, flush, straight flush) are read from tables built at
/// compile time; hands with a repeated rank are packed from the multiplicity masks directly. No
/// population count is needed at run time, so the baseline x86-64 build stays fast.
#[inline(always)]
pub(crate) fn value_of(counts: RankCounts, flush: bool) -> u32 {
    use Category as C;
    let ranks = counts.at_least_1;
    if counts.at_least_2 == 0 {
        return if flush {
            FLUSH_VALUES[ranks as usize]
        } else {
            DISTINCT_VALUES[ranks as usize]
        };
    }
    let singles = counts.singles();
    if counts.at_least_3 == 0 {
        let pairs = counts.at_least_2;
        let two_pairs = pairs & (pairs - 1) != 0;
        let category = if two_pairs { C::TwoPair } else { C::Pair };
        return pack(category as u8, pairs, singles);
    }
    if counts.at_least_4 != 0 {
        return pack(
            C::FourOfAKind as u8,
            counts.at_least_4,
            ranks & !counts.at_least_4,
        );
    }
    let pair = counts.at_least_2 & !counts.at_least_3;
    if pair != 0 {
        pack(C::FullHouse as u8, counts.at_least_3, pair)
    } else {
        pack(C::ThreeOfAKind as u8, counts.at_least_3, singles)
    }
}

/// The value of five distinct ranks in one suit (`flush`) or not, for a 13-bit mask of exactly five
/// ranks; other masks are never looked up.
const fn distinct_value(ranks: u16, flush: bool) -> u32 {
    use Category as C;
    match (straight_top(ranks), flush) {
        (Some(_), true) if ranks == BROADWAY => pack(C::RoyalFlush as u8, ranks, 0),
        (Some(top), true) => pack(C::StraightFlush as u8, 1 << top, 0),
        (None, true) => pack(C::Flush as u8, ranks, 0),
        (Some(top), false) => pack(C::Straight as u8, 1 << top, 0),
        (None, false) => pack(C::HighCard as u8, ranks, 0),
    }
}

const fn distinct_table(flush: bool) -> [u32; 8192] {
    let mut table = [0u32; 8192];
    let mut mask = 0;
    while mask < 8192 {
        if (mask as u16).count_ones() == 5 {
            table[mask] = distinct_value(mask as u16, flush);
        }
        mask += 1;
    }
    table
}

static DISTINCT_VALUES: [u32; 8192] = distinct_table(false);
static FLUSH_VALUES: [u32; 8192] = distinct_table(true);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::parse_exact;

    fn value(text: &str) -> HandValue {
        evaluate(&parse_exact::<5>(text).unwrap()).unwrap()
    }

    #[test]
    fn categories_of_examples() {
        assert_eq!(value("As Ks Qs Js Ts").category(), Category::RoyalFlush);
        assert_eq!(value("5h 4h 3h 2h Ah").category(), Category::StraightFlush);
        assert_eq!(value("9c 9d 9h 9s 2c").category(), Category::FourOfAKind);
        assert_eq!(value("9c 9d 9h 2s 2c").category(), Category::FullHouse);
        assert_eq!(value("Ac 9c 7c 4c 2c").category(), Category::Flush);
        assert_eq!(value("Ac 2d 3c 4h 5s").category(), Category::Straight);
        assert_eq!(
            value("Kc Ad 2c 3h 4s").category(),
            Category::HighCard,
            "K-A-2-3-4 wraps, not a straight"
        );
        assert_eq!(value("9c 9d 9h Ks 2c").category(), Category::ThreeOfAKind);
        assert_eq!(value("9c 9d 2h Ks 2c").category(), Category::TwoPair);
        assert_eq!(value("Jc Jd 2h Ks 3c").pair_rank(), Some(Rank::Jack));
        assert_eq!(value("Jc Td 2h Ks 3c").pair_rank(), None);
    }

    #[test]
    fn ties_are_broken_by_ranks_never_suits() {
        assert!(
            value("6c 5d 4h 3s 2c") > value("5h 4h 3h 2d As"),
            "the wheel is the lowest straight"
        );
        assert_eq!(value("Ac Kd 9h 5s 3c"), value("Ad Kh 9s 5c 3h"));
        assert!(value("Ac Ad 9h 5s 3c") > value("Kc Kd Ah Qs Jc"));
        assert!(
            value("Ac Ad 9h 5s 4c") > value("Ah As 9c 5d 3h"),
            "kickers decide"
        );
        assert!(
            value("Kc Kd 2h 2s 3c") > value("Qc Qd Jh Js Ac"),
            "higher top pair wins"
        );
        assert!(
            value("3c 3d 3h 2s 2c") > value("2c 2d 2h As Ac"),
            "full house by its trips"
        );
    }

    #[test]
    fn bad_hands_are_refused() {
        let cards = parse_exact::<5>("As Ks JK Js Ts").unwrap();
        assert_eq!(evaluate(&cards), Err(HandError::JokerNotAllowed));
        let as_card: Card = "As".parse().unwrap();
        let dup = [as_card, as_card, cards[1], cards[3], cards[4]];
        assert_eq!(evaluate(&dup), Err(HandError::DuplicateCard(as_card)));
    }
}
