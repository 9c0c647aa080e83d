//! Caribbean Stud Poker's configuration: its rules' type, their checks and the defaults of
//! `spec/GAMES.md`.

use serde::{Deserialize, Serialize};

use super::defaults::{odds, row, units};
use super::validate::{Structure, Worst};
use super::{refuse, ConfigError, Limit, RulesModule};
use crate::hand::poker5;
use crate::money::Money;
use crate::paytable::{Pay, PayRow};

/// Caribbean Stud Poker: ante, raise and the fixed-amount bonus.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaribbeanRules {
    /// Ante (required).
    pub ante: Limit,
    /// The bonus stake: exactly this amount, or no bonus.
    pub bonus_stake: Money,
    /// The raise is exactly this multiple of the ante.
    pub raise_multiple: u32,
    /// What the ante pays when it wins (dealer not qualifying, or player higher).
    pub ante_win: Pay,
    /// What the raise pays when the player's hand beats a qualifying dealer, by the player's hand.
    pub raise_paytable: Vec<PayRow<poker5::Category>>,
    /// What the bonus pays, by the player's hand (fixed amounts: the whole payout).
    pub bonus_paytable: Vec<PayRow<poker5::Category>>,
    /// Largest total payout of one hand.
    pub game_cap: Option<Money>,
}

/// The largest Caribbean Stud raise, in antes.
const MAX_RAISE_MULTIPLE: u32 = 100;

impl RulesModule for CaribbeanRules {
    fn default_rules() -> CaribbeanRules {
        use poker5::Category as C;
        CaribbeanRules {
            ante: Limit {
                min: units(1),
                max: units(100),
            },
            bonus_stake: units(1),
            raise_multiple: 2,
            ante_win: odds(1),
            raise_paytable: vec![
                row(C::RoyalFlush, odds(100)),
                row(C::StraightFlush, odds(50)),
                row(C::FourOfAKind, odds(20)),
                row(C::FullHouse, odds(7)),
                row(C::Flush, odds(5)),
                row(C::Straight, odds(4)),
                row(C::ThreeOfAKind, odds(3)),
                row(C::TwoPair, odds(2)),
                row(C::Pair, odds(1)),
                row(C::HighCard, odds(1)),
            ],
            bonus_paytable: vec![
                row(C::RoyalFlush, Pay::Fixed(units(10_000))),
                row(C::StraightFlush, Pay::Fixed(units(1_000))),
                row(C::FourOfAKind, Pay::Fixed(units(500))),
                row(C::FullHouse, Pay::Fixed(units(250))),
                row(C::Flush, Pay::Fixed(units(150))),
            ],
            game_cap: None,
        }
    }

    fn structure(&self, check: &Structure) -> Result<(), ConfigError> {
        check.limit("ante", self.ante)?;
        if self.bonus_stake.0 == 0 {
            return Err(refuse(check.path("bonus_stake"), "must be at least 1"));
        }
        if self.raise_multiple == 0 {
            return Err(refuse(check.path("raise_multiple"), "must be at least 1"));
        }
        Ok(())
    }

    fn bounds(&self, worst: &mut Worst) -> Result<(), ConfigError> {
        if self.raise_multiple > MAX_RAISE_MULTIPLE {
            return Err(refuse(
                worst.path("raise_multiple"),
                format!("1 to {MAX_RAISE_MULTIPLE}"),
            ));
        }
        let ante = worst.stake("ante", self.ante)?;
        let bonus = worst.stake(
            "bonus_stake",
            Limit {
                min: self.bonus_stake,
                max: self.bonus_stake,
            },
        )?;
        let raise = worst.within("raise_multiple", ante * u128::from(self.raise_multiple))?;
        let ante_win = worst.pay("ante_win", self.ante_win)?;
        let raise_pays = worst.table("raise_paytable", &self.raise_paytable)?;
        let side = worst.table("bonus_paytable", &self.bonus_paytable)?;
        worst.bet("ante", ante, &ante_win, None, "")?;
        worst.bet("raise_multiple", raise, &raise_pays, None, "")?;
        worst.bet("bonus_stake", bonus, &side, None, "")?;
        worst.game_cap(self.game_cap.map(|c| c.0))?;
        Ok(())
    }
}
