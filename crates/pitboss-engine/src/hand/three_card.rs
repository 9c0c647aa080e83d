//! Three-card hands (the Mississippi Stud 3-card bonus on the community cards): category and value.
//!
//! Three-card ranking, high to low: mini royal (A-K-Q suited), straight flush, three of a kind,
//! straight, flush, pair, high card. A-2-3 is a straight (the lowest), Q-K-A the highest; K-A-2 is
//! not a straight. 52 cards, no joker.

use std::fmt;

use super::rank_masks::{one_suit, RankCounts, SuitLanes, ACE};
use super::{check_cards, pack, HandError};
use crate::card::Card;

/// The seven categories, lowest first.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum Category {
    HighCard = 0,
    Pair,
    Flush,
    Straight,
    ThreeOfAKind,
    StraightFlush,
    MiniRoyal,
}

impl Category {
    /// All categories, lowest first.
    pub const ALL: [Category; 7] = [
        Category::HighCard,
        Category::Pair,
        Category::Flush,
        Category::Straight,
        Category::ThreeOfAKind,
        Category::StraightFlush,
        Category::MiniRoyal,
    ];

    /// A stable snake_case id.
    pub const fn id(self) -> &'static str {
        match self {
            Category::HighCard => "high_card",
            Category::Pair => "pair",
            Category::Flush => "flush",
            Category::Straight => "straight",
            Category::ThreeOfAKind => "three_of_a_kind",
            Category::StraightFlush => "straight_flush",
            Category::MiniRoyal => "mini_royal",
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id().replace('_', " "))
    }
}

/// A three-card hand's value; compares like the hands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ThreeCardValue(u32);

impl ThreeCardValue {
    /// The hand's category.
    #[inline]
    pub fn category(self) -> Category {
        Category::ALL[(self.0 >> 26) as usize]
    }
}

/// A-2-3, the lowest three-card straight.
const ACE_TWO_THREE: u16 = ACE | 0b11;
/// Q-K-A.
const QUEEN_KING_ACE: u16 = 0b111 << 10;

/// Evaluates three distinct natural cards.
pub fn evaluate(cards: &[Card; 3]) -> Result<ThreeCardValue, HandError> {
    check_cards(cards, false)?;
    Ok(evaluate_unchecked(cards))
}

/// Evaluates three cards known to be distinct and natural.
#[inline]
pub fn evaluate_unchecked(cards: &[Card; 3]) -> ThreeCardValue {
    use Category as C;
    let suits = SuitLanes::of(cards).suits();
    let counts = RankCounts::from_suits(suits);
    let flush = one_suit(suits);
    let ranks = counts.at_least_1;
    let value = if counts.at_least_2 == 0 {
        let low = ranks.trailing_zeros();
        // The straight's top card as a mask: the three for A-2-3.
        let straight = if ranks == ACE_TWO_THREE {
            Some(1u16 << 1)
        } else if ranks == 0b111 << low {
            Some(1u16 << (low + 2))
        } else {
            None
        };
        match (straight, flush) {
            (Some(_), true) if ranks == QUEEN_KING_ACE => pack(C::MiniRoyal as u8, ranks, 0),
            (Some(top), true) => pack(C::StraightFlush as u8, top, 0),
            (Some(top), false) => pack(C::Straight as u8, top, 0),
            (None, true) => pack(C::Flush as u8, ranks, 0),
            (None, false) => pack(C::HighCard as u8, ranks, 0),
        }
    } else if counts.at_least_3 == 0 {
        pack(C::Pair as u8, counts.at_least_2, counts.singles())
    } else {
        pack(C::ThreeOfAKind as u8, counts.at_least_3, 0)
    };
    ThreeCardValue(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::parse_exact;

    fn category(text: &str) -> Category {
        evaluate(&parse_exact::<3>(text).unwrap())
            .unwrap()
            .category()
    }

    #[test]
    fn straights_follow_the_bonus_rules() {
        assert_eq!(category("Ad 2c 3h"), Category::Straight);
        assert_eq!(category("Qd Kc Ah"), Category::Straight);
        assert_eq!(
            category("Kd Ac 2h"),
            Category::HighCard,
            "K-A-2 is not a straight"
        );
        assert_eq!(category("Ah Kh Qh"), Category::MiniRoyal);
        assert_eq!(category("Ah 2h 3h"), Category::StraightFlush);
        assert_eq!(category("Kh Ah 2h"), Category::Flush);
        assert_eq!(category("7h 7c 7d"), Category::ThreeOfAKind);
        assert_eq!(category("7h 7c 2d"), Category::Pair);
        let low = evaluate(&parse_exact::<3>("Ad 2c 3h").unwrap()).unwrap();
        let next = evaluate(&parse_exact::<3>("2d 3c 4h").unwrap()).unwrap();
        assert!(low < next, "A-2-3 is the lowest straight");
    }
}
