//! Money: an integer count of minor units (cents). No floating point touches a stake, payout, cap or
//! refund; arithmetic is checked and an overflow is an error, never a wrap.

use serde::{Deserialize, Serialize};

/// An amount in minor units of the configuration's currency.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Money(pub u64);

/// An amount too large to represent: no real wager comes near it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("money arithmetic overflowed")]
pub struct MoneyOverflow;

impl Money {
    /// Zero.
    pub const ZERO: Money = Money(0);

    /// `self + other`.
    pub fn checked_add(self, other: Money) -> Result<Money, MoneyOverflow> {
        self.0.checked_add(other.0).map(Money).ok_or(MoneyOverflow)
    }

    /// `self × factor`.
    pub fn checked_mul(self, factor: u64) -> Result<Money, MoneyOverflow> {
        self.0.checked_mul(factor).map(Money).ok_or(MoneyOverflow)
    }

    /// `self − other`, or zero if `other` is larger.
    pub fn saturating_sub(self, other: Money) -> Money {
        Money(self.0.saturating_sub(other.0))
    }

    /// The sum of amounts.
    pub fn sum(amounts: impl IntoIterator<Item = Money>) -> Result<Money, MoneyOverflow> {
        amounts
            .into_iter()
            .try_fold(Money::ZERO, Money::checked_add)
    }

    /// Shows the amount with `minor_digits` decimals (`25050.00` for 2 505 000 cents), by integer
    /// arithmetic only. Money has no `Display` of its own: how many decimals an amount has is its
    /// currency's, which only the configuration knows.
    pub fn display(self, minor_digits: u8) -> String {
        let digits = usize::from(minor_digits);
        if digits == 0 {
            return self.0.to_string();
        }
        let text = format!("{:0width$}", self.0, width = digits + 1);
        let (whole, fraction) = text.split_at(text.len() - digits);
        format!("{whole}.{fraction}")
    }
}

/// A signed amount of minor units: a net result or an adjustment.
pub type SignedMinor = i128;

/// `a − b` as a signed amount.
pub fn difference(a: Money, b: Money) -> SignedMinor {
    i128::from(a.0) - i128::from(b.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_checked_arithmetic() {
        assert_eq!(Money(25_305_000).display(2), "253050.00");
        assert_eq!(Money(5).display(2), "0.05");
        assert_eq!(Money(5).display(0), "5");
        assert_eq!(Money(1234).display(3), "1.234");
        assert_eq!(Money(7).display(3), "0.007");
        assert_eq!(Money(u64::MAX).display(2), "184467440737095516.15");
        assert_eq!(Money(1).display(255).len(), 257);
        assert_eq!(Money(u64::MAX).checked_add(Money(1)), Err(MoneyOverflow));
        assert_eq!(Money(u64::MAX).checked_mul(2), Err(MoneyOverflow));
        assert_eq!(Money(3).saturating_sub(Money(5)), Money::ZERO);
        assert_eq!(Money::sum([Money(1), Money(2)]), Ok(Money(3)));
        assert_eq!(difference(Money(1), Money(3)), -2);
    }
}
