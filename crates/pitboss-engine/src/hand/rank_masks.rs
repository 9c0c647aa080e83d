//! Rank multiplicity masks and straight windows: the bit arithmetic the evaluators share.
//!
//! A 13-bit rank mask has bit `r` set for rank index `r` (0 = Two … 12 = Ace). Owns no game rule.

/// Mask of the ace.
pub const ACE: u16 = 1 << 12;
/// Mask of A-2-3-4-5, the wheel.
pub const WHEEL: u16 = ACE | 0b1111;
/// Mask of T-J-Q-K-A.
pub const BROADWAY: u16 = 0b11111 << 8;
/// All thirteen ranks.
pub const ALL_RANKS: u16 = (1 << 13) - 1;

/// Which ranks occur at least once, twice, three and four times among the cards added.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RankCounts {
    /// Ranks present.
    pub at_least_1: u16,
    /// Ranks present two or more times.
    pub at_least_2: u16,
    /// Ranks present three or more times.
    pub at_least_3: u16,
    /// Ranks present four or more times.
    pub at_least_4: u16,
}

impl RankCounts {
    /// Counts from four suit rank masks, without a dependency chain from card to card: a rank is
    /// present k times when it is in k of the suit masks.
    #[inline(always)]
    pub fn from_suits([c, d, h, s]: [u16; 4]) -> RankCounts {
        RankCounts {
            at_least_1: c | d | h | s,
            at_least_2: (c & d) | (c & h) | (c & s) | (d & h) | (d & s) | (h & s),
            at_least_3: (c & d & h) | (c & d & s) | (c & h & s) | (d & h & s),
            at_least_4: c & d & h & s,
        }
    }

    /// Counts one more card of rank index `rank`.
    #[inline(always)]
    pub fn add(&mut self, rank: u8) {
        let bit = 1u16 << rank;
        self.at_least_4 |= self.at_least_3 & bit;
        self.at_least_3 |= self.at_least_2 & bit;
        self.at_least_2 |= self.at_least_1 & bit;
        self.at_least_1 |= bit;
    }

    /// Ranks present exactly once.
    #[inline(always)]
    pub fn singles(&self) -> u16 {
        self.at_least_1 & !self.at_least_2
    }
}

/// For a mask of exactly five ranks: the top rank index of the straight it forms (3, the five, for
/// the wheel), or `None`.
pub const fn straight_top(mask: u16) -> Option<u8> {
    let low = mask.trailing_zeros();
    if low <= 8 && mask == 0b11111 << low {
        Some(low as u8 + 4)
    } else if mask == WHEEL {
        Some(3)
    } else {
        None
    }
}

/// The highest rank index in a non-empty mask.
#[inline(always)]
pub fn highest(mask: u16) -> u8 {
    15 - mask.leading_zeros() as u8
}

/// The cards of a hand as four 13-bit suit rank masks (clubs, diamonds, hearts, spades) packed in
/// 16-bit lanes of a `u64`; the joker, if present, sets bit 13 of the clubs lane.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SuitLanes(pub u64);

impl SuitLanes {
    /// The lanes of these cards (a repeated card counts once).
    #[inline(always)]
    pub fn of(cards: &[crate::card::Card]) -> SuitLanes {
        let mut lanes = 0u64;
        for card in cards {
            let i = card.index();
            lanes |= 1u64 << ((i >> 2) + ((i & 3) << 4));
        }
        SuitLanes(lanes)
    }

    /// The four suits' rank masks, without the joker.
    #[inline(always)]
    pub fn suits(self) -> [u16; 4] {
        let lane = |k: u32| (self.0 >> (16 * k)) as u16 & ALL_RANKS;
        [lane(0), lane(1), lane(2), lane(3)]
    }

    /// Whether the joker is among the cards.
    #[inline(always)]
    pub fn has_joker(self) -> bool {
        self.0 & (1 << 13) != 0
    }
}

/// Whether exactly one of the suit masks holds cards.
#[inline(always)]
pub fn one_suit(suits: [u16; 4]) -> bool {
    suits.iter().filter(|&&m| m != 0).count() == 1
}
