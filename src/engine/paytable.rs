//! Paytables: which hand pays what, as data. The default tables of `spec/GAMES.md` live here and
//! nowhere else; a game configuration (with its canonical bytes and hash) carries a copy, so a hand
//! names exactly the table it was settled by.
//!
//! Only integer odds: "x to 1" pays `stake × x` in winnings and returns the stake.

use super::hand::fortune::FortuneCategory;

/// "x to 1".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Odds {
    /// Winnings per unit staked.
    pub to_one: u32,
}

impl Odds {
    /// `x` to 1.
    pub const fn to_one(x: u32) -> Odds {
        Odds { to_one: x }
    }

    /// What a winning bet of `stake` minor units pays back, stake included: `stake × (x + 1)`.
    /// `None` on overflow (no real stake comes near it).
    pub const fn payout(self, stake: u64) -> Option<u64> {
        stake.checked_mul(self.to_one as u64 + 1)
    }
}

/// One paying row of a paytable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row<C> {
    /// The hand category.
    pub category: C,
    /// What it pays.
    pub odds: Odds,
}

/// The Fortune bonus paytable of `spec/GAMES.md` (source `001_e02c539cab1224ae.txt`). Categories not
/// listed lose.
pub const FORTUNE_BONUS_DEFAULT: [Row<FortuneCategory>; 11] = {
    use FortuneCategory as F;
    [
        Row {
            category: F::SevenCardStraightFlushNatural,
            odds: Odds::to_one(8000),
        },
        Row {
            category: F::RoyalMatch,
            odds: Odds::to_one(2000),
        },
        Row {
            category: F::SevenCardStraightFlushWithJoker,
            odds: Odds::to_one(1000),
        },
        Row {
            category: F::FiveAces,
            odds: Odds::to_one(400),
        },
        Row {
            category: F::RoyalFlush,
            odds: Odds::to_one(150),
        },
        Row {
            category: F::StraightFlush,
            odds: Odds::to_one(50),
        },
        Row {
            category: F::FourOfAKind,
            odds: Odds::to_one(25),
        },
        Row {
            category: F::FullHouse,
            odds: Odds::to_one(5),
        },
        Row {
            category: F::Flush,
            odds: Odds::to_one(4),
        },
        Row {
            category: F::ThreeOfAKind,
            odds: Odds::to_one(3),
        },
        Row {
            category: F::Straight,
            odds: Odds::to_one(2),
        },
    ]
};

/// The odds of `category` in `table`, or `None` if it loses.
pub fn odds_of<C: PartialEq + Copy>(table: &[Row<C>], category: C) -> Option<Odds> {
    table
        .iter()
        .find(|row| row.category == category)
        .map(|row| row.odds)
}
