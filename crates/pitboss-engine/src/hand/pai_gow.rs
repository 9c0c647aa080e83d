//! Pai Gow hands: the five-card high hand and the two-card low hand, with the semi-wild joker, and
//! the comparison that decides whether a split is legal.
//!
//! Rules (`spec/GAMES.md`, Fortune Pai Gow): five aces (four aces and the joker) is the top hand,
//! then royal flush, straight flush, four of a kind, full house, flush, straight, three of a kind,
//! two pair, one pair, high card. A-K-Q-J-T is the highest straight and A-2-3-4-5 the **second**
//! highest; the same for straight flushes. In the high hand the joker completes a straight, flush or
//! straight flush where it can, as the card that makes the best such hand (in a flush, the highest
//! rank missing from that suit); otherwise it is an ace. In the low hand it is always an ace.
//!
//! The value layout is the module's parent's (`category << 26 | primary << 13 | secondary`), with a
//! two-card hand encoded as a five-card hand with no kickers, so a low and a high value compare
//! directly: that comparison is the legality rule of `spec/HOUSE_WAY.md`.

use std::fmt;

use super::poker5;
use super::rank_masks::{
    highest, one_suit, RankCounts, SuitLanes, ACE, ALL_RANKS, BROADWAY, WHEEL,
};
use super::{check_cards, pack, HandError};
use crate::card::{Card, Rank};

/// Pai Gow categories, lowest first (the first ten share numbering with standard poker).
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
    FiveAces,
}

impl Category {
    /// All categories, lowest first.
    pub const ALL: [Category; 11] = [
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
        Category::FiveAces,
    ];

    /// A stable snake_case id.
    pub const fn id(self) -> &'static str {
        match self {
            Category::FiveAces => "five_aces",
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

/// The value of a five-card high hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HighValue(u32);

/// The value of a two-card low hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LowValue(u32);

impl HighValue {
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
}

impl LowValue {
    /// True for a pair (including the joker with an ace).
    #[inline]
    pub fn is_pair(self) -> bool {
        self.0 >> 26 == Category::Pair as u32
    }

    /// The higher rank of the two cards (the pair's rank for a pair); the joker counts as an ace.
    #[inline]
    pub fn top_rank(self) -> Rank {
        let primary = ((self.0 >> 13) & 0x1FFF) as u16;
        // A low value always holds at least one rank bit; Two is an unreachable fallback.
        Rank::from_index(highest(primary)).unwrap_or(Rank::Two)
    }

    /// The raw ordered integer.
    #[inline]
    pub const fn raw(self) -> u32 {
        self.0
    }
}

/// True if the high hand outranks the low hand, so the setting is legal. A two-card pair compares
/// as a pair with no kickers and a two-card non-pair as a high-card hand with no further kickers:
/// a high hand equal to the low hand in all the low hand has still wins on its extra kickers.
#[inline]
pub fn is_legal_setting(high: HighValue, low: LowValue) -> bool {
    high.0 > low.0
}

/// The straight order of Pai Gow, best first, as (window mask, straight top mask, secondary).
/// The wheel sits between A-K-Q-J-T and K-Q-J-T-9: it is encoded as a king-high straight with a
/// secondary of 1, just above the true king-high straight.
const STRAIGHTS_BEST_FIRST: [(u16, u16, u16); 10] = {
    let mut table = [
        (BROADWAY, 1 << 12, 0),
        (WHEEL, 1 << 11, 1),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
    ];
    let mut i = 2;
    while i < 10 {
        // K-high (top index 11) down to 6-high (top index 4).
        let top = 11 - (i - 2);
        table[i] = (0b11111 << (top - 4), 1 << top, 0);
        i += 1;
    }
    table
};

/// Re-ranks the wheel of a natural value from standard poker (five-high) to Pai Gow (second best).
fn natural_value(counts: RankCounts, flush: bool) -> u32 {
    let value = poker5::value_of(counts, flush);
    let category = (value >> 26) as u8;
    let is_straight =
        category == Category::Straight as u8 || category == Category::StraightFlush as u8;
    if is_straight && counts.at_least_1 == WHEEL {
        pack(category, 1 << 11, 1)
    } else {
        value
    }
}

/// Evaluates a five-card high hand of distinct cards, the joker allowed.
pub fn evaluate_high(cards: &[Card; 5]) -> Result<HighValue, HandError> {
    check_cards(cards, true)?;
    Ok(evaluate_high_unchecked(cards))
}

/// Evaluates five distinct cards (at most one joker, as in a 53-card deck) without checking.
#[inline]
pub fn evaluate_high_unchecked(cards: &[Card; 5]) -> HighValue {
    evaluate_high_lanes(SuitLanes::of(cards))
}

/// [`evaluate_high_unchecked`] from the cards' suit lanes (five distinct cards, at most one of
/// them the joker): the house way builds each setting's lanes from the seven cards' with two XORs.
#[inline]
pub(crate) fn evaluate_high_lanes(lanes: SuitLanes) -> HighValue {
    let suits = lanes.suits();
    let counts = RankCounts::from_suits(suits);
    let flush = one_suit(suits);
    let joker = lanes.has_joker();
    if !joker {
        return HighValue(natural_value(counts, flush));
    }
    if counts.at_least_4 & ACE != 0 {
        return HighValue(pack(Category::FiveAces as u8, ACE, 0));
    }
    // The joker as an ace: grouping only (it never makes a flush this way unless it could complete
    // one anyway, which the branch below covers).
    let mut as_ace = counts;
    as_ace.add(ACE.trailing_zeros() as u8);
    let mut best = natural_value(as_ace, false);
    let ranks = counts.at_least_1;
    if ranks.count_ones() == 4 {
        let straight = STRAIGHTS_BEST_FIRST
            .iter()
            .find(|(window, _, _)| ranks & !window == 0);
        let complete = match (straight, flush) {
            (Some(&(window, _, _)), true) if window == BROADWAY => {
                Some(pack(Category::RoyalFlush as u8, BROADWAY, 0))
            }
            (Some(&(_, top, secondary)), true) => {
                Some(pack(Category::StraightFlush as u8, top, secondary))
            }
            (_, true) => {
                let missing = ALL_RANKS & !ranks;
                Some(pack(
                    Category::Flush as u8,
                    ranks | 1 << highest(missing),
                    0,
                ))
            }
            (Some(&(_, top, secondary)), false) => {
                Some(pack(Category::Straight as u8, top, secondary))
            }
            (None, false) => None,
        };
        if let Some(value) = complete {
            best = best.max(value);
        }
    }
    HighValue(best)
}

/// Evaluates a two-card low hand (the joker is an ace).
pub fn evaluate_low(cards: &[Card; 2]) -> Result<LowValue, HandError> {
    check_cards(cards, true)?;
    Ok(evaluate_low_unchecked(cards))
}

/// Evaluates two distinct cards without checking.
#[inline]
pub(crate) fn evaluate_low_unchecked(cards: &[Card; 2]) -> LowValue {
    let rank = |card: Card| {
        if card.is_joker() {
            12
        } else {
            card.rank_bits()
        }
    };
    low_of_ranks(rank(cards[0]), rank(cards[1]))
}

/// The low hand of two cards of rank indices `a` and `b` (the joker's is the ace's, 12).
#[inline]
pub(crate) fn low_of_ranks(a: u8, b: u8) -> LowValue {
    LowValue(if a == b {
        pack(Category::Pair as u8, 1 << a, 0)
    } else {
        pack(Category::HighCard as u8, 1 << a | 1 << b, 0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::parse_exact;

    fn high(text: &str) -> HighValue {
        evaluate_high(&parse_exact::<5>(text).unwrap()).unwrap()
    }

    fn low(text: &str) -> LowValue {
        evaluate_low(&parse_exact::<2>(text).unwrap()).unwrap()
    }

    #[test]
    fn joker_completes_or_is_an_ace() {
        assert_eq!(high("As Ac Ad Ah JK").category(), Category::FiveAces);
        assert_eq!(high("Ks Qs Js Ts JK").category(), Category::RoyalFlush);
        assert_eq!(high("Ks Qs Js 9s JK").category(), Category::StraightFlush);
        assert_eq!(high("Ks Qd Js Ts JK").category(), Category::Straight);
        assert_eq!(high("2s 7s Js 9s JK").category(), Category::Flush);
        assert_eq!(
            high("2s 7s Js 9s JK"),
            high("2s 7s Js 9s As"),
            "joker is the highest missing rank"
        );
        assert_eq!(high("2s 7s Js As JK"), high("2s 7s Js As Ks"));
        assert_eq!(
            high("Kd Kc 2s 7h JK"),
            high("Kd Kc 2s 7h Ah"),
            "otherwise an ace"
        );
        assert_eq!(high("Ad Ac 2s 7h JK").category(), Category::ThreeOfAKind);
        assert_eq!(high("Ad Ac Kc Kh JK").category(), Category::FullHouse);
        assert_eq!(high("Ad Ac As Kh JK").category(), Category::FourOfAKind);
        // 2-3-4-5 + joker: the wheel (second best straight) beats 2-3-4-5-6.
        assert_eq!(high("2s 3d 4h 5c JK"), high("2s 3d 4h 5c Ah"));
    }

    #[test]
    fn the_wheel_is_the_second_highest_straight() {
        let broadway = high("As Kd Qh Jc Ts");
        let wheel = high("As 2d 3h 4c 5s");
        let king_high = high("9s Kd Qh Jc Ts");
        assert!(broadway > wheel && wheel > king_high);
        let sf_wheel = high("As 2s 3s 4s 5s");
        let sf_king = high("9s Ks Qs Js Ts");
        assert!(sf_wheel > sf_king && sf_wheel.category() == Category::StraightFlush);
    }

    #[test]
    fn low_hands_and_legality() {
        assert!(low("JK 9c") > low("Kc Qd"), "joker + 9 is A-9");
        assert!(!low("JK 9c").is_pair());
        assert!(low("JK Ac").is_pair());
        assert!(low("2c 2d") > low("Ac Kd"), "a pair beats any non-pair");
        assert_eq!(low("Ac Kd").top_rank(), Rank::Ace);
        // Split four eights: pair of 8s high with kickers beats pair of 8s low.
        assert!(is_legal_setting(high("8h 8s Kh 7d 3c"), low("8c 8d")));
        assert!(!is_legal_setting(high("7h 7s Kh 6d 3c"), low("8c 8d")));
        // Equal top two ranks: the high hand's extra kickers make it higher.
        assert!(is_legal_setting(high("Ah Ks 7h 6d 3c"), low("Ac Kd")));
        assert!(!is_legal_setting(high("Ah Qs Jh Td 8c"), low("Ac Kd")));
        assert!(!is_legal_setting(high("Kh Qs Jh 9d 8c"), low("Ac 2d")));
    }
}
