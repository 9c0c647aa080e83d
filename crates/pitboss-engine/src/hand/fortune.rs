//! The Fortune bonus categories of a seven-card Pai Gow hand (53-card deck, semi-wild joker).
//!
//! A hand is classified by its best category only, whatever the player's split. Categories, best
//! first: 7-card straight flush without the joker; royal flush plus a suited K-Q among the other two
//! cards (the joker may complete the royal, the K-Q must be natural); 7-card straight flush with the
//! joker; five aces; royal flush; straight flush; four of a kind; full house; flush; three of a kind;
//! straight; nothing. A straight (of five or seven cards) may run from the ace low (A-2-3-4-5,
//! A-2-…-7). The joker completes straights and flushes; for everything else it is an ace.
//!
//! Which category pays what is the game configuration's business, not this module's.
//!
//! Classification works on four 13-bit suit masks and one joker flag, with straight questions
//! answered by tables over all 8 192 rank masks built at compile time.

use std::fmt;

use super::check_cards;
use super::rank_masks::{RankCounts, ACE, ALL_RANKS, BROADWAY};
use super::HandError;
use crate::card::Card;

/// Fortune bonus categories, best first.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum FortuneCategory {
    SevenCardStraightFlushNatural = 0,
    RoyalMatch,
    SevenCardStraightFlushWithJoker,
    FiveAces,
    RoyalFlush,
    StraightFlush,
    FourOfAKind,
    FullHouse,
    Flush,
    ThreeOfAKind,
    Straight,
    Nothing,
}

impl FortuneCategory {
    /// All categories, best first.
    pub const ALL: [FortuneCategory; 12] = [
        FortuneCategory::SevenCardStraightFlushNatural,
        FortuneCategory::RoyalMatch,
        FortuneCategory::SevenCardStraightFlushWithJoker,
        FortuneCategory::FiveAces,
        FortuneCategory::RoyalFlush,
        FortuneCategory::StraightFlush,
        FortuneCategory::FourOfAKind,
        FortuneCategory::FullHouse,
        FortuneCategory::Flush,
        FortuneCategory::ThreeOfAKind,
        FortuneCategory::Straight,
        FortuneCategory::Nothing,
    ];

    /// A stable snake_case id, as used in configurations and reports.
    pub const fn id(self) -> &'static str {
        match self {
            FortuneCategory::SevenCardStraightFlushNatural => "seven_card_straight_flush_natural",
            FortuneCategory::RoyalMatch => "royal_match",
            FortuneCategory::SevenCardStraightFlushWithJoker => {
                "seven_card_straight_flush_with_joker"
            }
            FortuneCategory::FiveAces => "five_aces",
            FortuneCategory::RoyalFlush => "royal_flush",
            FortuneCategory::StraightFlush => "straight_flush",
            FortuneCategory::FourOfAKind => "four_of_a_kind",
            FortuneCategory::FullHouse => "full_house",
            FortuneCategory::Flush => "flush",
            FortuneCategory::ThreeOfAKind => "three_of_a_kind",
            FortuneCategory::Straight => "straight",
            FortuneCategory::Nothing => "nothing",
        }
    }
}

impl fmt::Display for FortuneCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id().replace('_', " "))
    }
}

// Flags per rank mask (bit 0 = Two … bit 12 = Ace), for a mask of one suit or of all ranks.
/// Holds five consecutive ranks (A-2-3-4-5 included).
const STRAIGHT5: u8 = 1;
/// Holds four of some five consecutive ranks: a joker completes a straight.
const STRAIGHT5_JOKER: u8 = 2;
/// Holds seven consecutive ranks (A-2-…-7 included).
const STRAIGHT7: u8 = 4;
/// Holds six of some seven consecutive ranks.
const STRAIGHT7_JOKER: u8 = 8;

/// Ranks with the ace also counted low, as bit 0, and the others shifted up one: 14 bits in which a
/// straight is always a run of consecutive bits.
const fn with_low_ace(mask: u16) -> u16 {
    (mask << 1) | ((mask >> 12) & 1)
}

const fn straight_flags(mask: u16) -> u8 {
    let wide = with_low_ace(mask);
    let mut flags = 0;
    let mut low = 0;
    // Windows of five over the 14-bit form: lowest cards A(low)…5 up to T…A(high).
    while low <= 9 {
        let hits = (wide & (0b11111 << low)).count_ones();
        if hits >= 5 {
            flags |= STRAIGHT5;
        }
        if hits >= 4 {
            flags |= STRAIGHT5_JOKER;
        }
        low += 1;
    }
    let mut low = 0;
    while low <= 7 {
        let hits = (wide & (0b111_1111 << low)).count_ones();
        if hits >= 7 {
            flags |= STRAIGHT7;
        }
        if hits >= 6 {
            flags |= STRAIGHT7_JOKER;
        }
        low += 1;
    }
    flags
}

static STRAIGHTS: [u8; 8192] = {
    let mut table = [0u8; 8192];
    let mut mask = 0;
    while mask < 8192 {
        table[mask] = straight_flags(mask as u16);
        mask += 1;
    }
    table
};

const KING: u16 = 1 << 11;
const QUEEN: u16 = 1 << 10;

/// The cards of one hand as per-suit rank masks and a joker flag.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SuitMasks {
    /// Rank mask of each suit, in canonical suit order (clubs, diamonds, hearts, spades).
    pub suits: [u16; 4],
    /// Whether the joker is present.
    pub joker: bool,
}

impl SuitMasks {
    /// Masks of the given cards (the caller ensures they are distinct).
    pub fn of(cards: &[Card]) -> SuitMasks {
        let mut masks = SuitMasks::default();
        for &card in cards {
            masks.toggle(card);
        }
        masks
    }

    /// Adds a card not yet present, or removes one present (enumerations use this incrementally).
    #[inline(always)]
    pub fn toggle(&mut self, card: Card) {
        if card.is_joker() {
            self.joker = !self.joker;
        } else {
            self.suits[card.suit_bits() as usize] ^= 1 << card.rank_bits();
        }
    }
}

/// Classifies seven distinct cards of the 53-card deck.
pub fn classify(cards: &[Card; 7]) -> Result<FortuneCategory, HandError> {
    check_cards(cards, true)?;
    Ok(classify_masks(SuitMasks::of(cards)))
}

/// Classifies a hand of seven cards given as suit masks.
#[inline]
pub fn classify_masks(hand: SuitMasks) -> FortuneCategory {
    use FortuneCategory as F;
    let [c, d, h, s] = hand.suits;
    let joker = hand.joker;
    let j = u32::from(joker);

    let suit_flags = [
        STRAIGHTS[c as usize],
        STRAIGHTS[d as usize],
        STRAIGHTS[h as usize],
        STRAIGHTS[s as usize],
    ];
    let any_suit = |flag: u8| suit_flags.iter().any(|f| f & flag != 0);

    if any_suit(STRAIGHT7) {
        return F::SevenCardStraightFlushNatural;
    }
    if royal_match(hand) {
        return F::RoyalMatch;
    }
    if joker && any_suit(STRAIGHT7_JOKER) {
        return F::SevenCardStraightFlushWithJoker;
    }
    let RankCounts {
        at_least_1: any,
        at_least_2,
        at_least_3,
        at_least_4,
    } = RankCounts::from_suits(hand.suits);
    if joker && at_least_4 & ACE != 0 {
        return F::FiveAces;
    }
    if hand
        .suits
        .iter()
        .any(|&m| (m & BROADWAY).count_ones() + j >= 5)
    {
        return F::RoyalFlush;
    }
    let straight_flag = if joker { STRAIGHT5_JOKER } else { STRAIGHT5 };
    if any_suit(straight_flag) {
        return F::StraightFlush;
    }
    // Counts with the joker as an ace, for grouping.
    let (eff2, eff3, eff4) = if joker {
        (
            at_least_2 | (any & ACE),
            at_least_3 | (at_least_2 & ACE),
            at_least_4 | (at_least_3 & ACE),
        )
    } else {
        (at_least_2, at_least_3, at_least_4)
    };
    if eff4 != 0 {
        return F::FourOfAKind;
    }
    if eff3 != 0 && eff2.count_ones() >= 2 {
        return F::FullHouse;
    }
    if hand.suits.iter().any(|&m| m.count_ones() + j >= 5) {
        return F::Flush;
    }
    if eff3 != 0 {
        return F::ThreeOfAKind;
    }
    if STRAIGHTS[(any & ALL_RANKS) as usize] & straight_flag != 0 {
        return F::Straight;
    }
    F::Nothing
}

/// A royal flush (the joker may complete it) plus a natural suited K-Q among the other two cards.
#[inline]
fn royal_match(hand: SuitMasks) -> bool {
    let j = u32::from(hand.joker);
    (0..4).any(|kq_suit| {
        let suit = hand.suits[kq_suit];
        if suit & (KING | QUEEN) != KING | QUEEN {
            return false;
        }
        // Set the K-Q aside: the five cards left must be a royal flush.
        let mut rest = hand.suits;
        rest[kq_suit] &= !(KING | QUEEN);
        rest.iter().any(|&m| (m & BROADWAY).count_ones() + j >= 5)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::parse_exact;

    fn category(text: &str) -> FortuneCategory {
        classify(&parse_exact::<7>(text).unwrap()).unwrap()
    }

    #[test]
    fn examples_of_each_category() {
        use FortuneCategory as F;
        assert_eq!(
            category("As 2s 3s 4s 5s 6s 7s"),
            F::SevenCardStraightFlushNatural
        );
        assert_eq!(
            category("8h 9h Th Jh Qh Kh Ah"),
            F::SevenCardStraightFlushNatural
        );
        assert_eq!(category("As Ks Qs Js Ts Kh Qh"), F::RoyalMatch);
        assert_eq!(category("As Ks Qs Js JK Kh Qh"), F::RoyalMatch);
        assert_eq!(
            category("As Ks Qs Js Ts Kh JK"),
            F::RoyalFlush,
            "the K-Q must be natural"
        );
        assert_eq!(
            category("As 2s 3s JK 5s 6s 7s"),
            F::SevenCardStraightFlushWithJoker
        );
        assert_eq!(category("As Ac Ad Ah JK 2c 7d"), F::FiveAces);
        assert_eq!(category("As Ks Qs Js JK 2c 7d"), F::RoyalFlush);
        assert_eq!(category("9s Ks Qs Js JK 2c 7d"), F::StraightFlush);
        assert_eq!(category("As Ac Ad 2h JK 3c 7d"), F::FourOfAKind);
        assert_eq!(category("As Ac 2d 2h JK 3c 7d"), F::FullHouse);
        assert_eq!(category("As 9s 2s 5s JK 3c 7d"), F::Flush);
        assert_eq!(category("As Ac 2d 8h JK 3c 7d"), F::ThreeOfAKind);
        assert_eq!(
            category("As Kc 2d 8h JK 3c 7d"),
            F::Nothing,
            "the joker with an ace is only a pair"
        );
        assert_eq!(category("Ac 2d 3h 4s JK Kc 9d"), F::Straight);
        assert_eq!(
            category("Qc Kd Ah 2s 3c 8c 9d"),
            F::Nothing,
            "Q-K-A-2-3 is no straight"
        );
        assert_eq!(
            category("Kc Kd Qh Qs 3c 8c 9d"),
            F::Nothing,
            "two pair does not pay"
        );
    }
}
