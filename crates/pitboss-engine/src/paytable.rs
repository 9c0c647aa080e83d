//! Paytables as data: what a hand pays ([`Pay`]) and the rows of a table ([`PayRow`]). The numbers of
//! `spec/GAMES.md` live in the default configurations (`engine::config`) and nowhere else.

use serde::{Deserialize, Serialize};

use super::money::{Money, MoneyOverflow};

/// What a winning row pays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pay {
    /// "x to 1": `stake × x` in winnings and the stake back, so the payout is `stake × (x + 1)`.
    Odds(u32),
    /// The stake back and nothing more.
    Push,
    /// A fixed amount as the whole payout, whatever the stake (the stake is not returned on top),
    /// as for jackpot-style side bets.
    Fixed(Money),
}

/// How a bet ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Win,
    Push,
    Lose,
}

impl Pay {
    /// The payout of `stake` at this row, stake included where the row returns it.
    pub fn payout(self, stake: Money) -> Result<Money, MoneyOverflow> {
        match self {
            Pay::Odds(x) => stake.checked_mul(u64::from(x) + 1),
            Pay::Push => Ok(stake),
            Pay::Fixed(amount) => Ok(amount),
        }
    }

    /// Win or push.
    pub fn outcome(self) -> Outcome {
        match self {
            Pay::Push => Outcome::Push,
            Pay::Odds(_) | Pay::Fixed(_) => Outcome::Win,
        }
    }
}

/// One row of a paytable: a hand and what it pays. Hands without a row lose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PayRow<H> {
    /// The hand (a category id).
    pub hand: H,
    /// What it pays.
    pub pay: Pay,
}

/// The row for `hand`, if it pays.
pub fn row_for<H: PartialEq + Copy>(table: &[PayRow<H>], hand: H) -> Option<PayRow<H>> {
    table.iter().find(|row| row.hand == hand).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payouts_follow_the_x_to_one_convention() {
        assert_eq!(Pay::Odds(500).payout(Money(5_000)), Ok(Money(2_505_000)));
        assert_eq!(Pay::Push.payout(Money(700)), Ok(Money(700)));
        assert_eq!(
            Pay::Fixed(Money(1_000_000)).payout(Money(100)),
            Ok(Money(1_000_000))
        );
        assert_eq!(
            Pay::Odds(u32::MAX).payout(Money(u64::MAX)),
            Err(MoneyOverflow)
        );
        assert_eq!(Pay::Push.outcome(), Outcome::Push);
    }
}
