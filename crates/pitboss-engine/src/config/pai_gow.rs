//! Fortune Pai Gow Poker's configuration: its rules' type, their checks and the defaults of
//! `spec/GAMES.md`.

use serde::{Deserialize, Serialize};

use super::defaults::{odds, row, units};
use super::validate::{Structure, Worst};
use super::{refuse, ConfigError, Limit, RulesModule};
use super::HOUSE_WAY_DEFAULT;
use crate::hand::fortune::FortuneCategory;
use crate::house_way::Edition;
use crate::money::Money;
use crate::paytable::{Pay, PayRow};

/// How the dealer's 9-high low hand is treated (`HOUSE_WAY.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NineHighRule {
    /// The main bet is returned whatever the outcome would have been (the default: 97.47 %).
    PushEveryOutcome,
    /// Only a would-be player win is pushed (97.45 %).
    PushWouldBeWins,
}

/// Fortune Pai Gow Poker: the main bet and the Fortune bonus.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FortunePaiGowRules {
    /// Main bet (required).
    pub main: Limit,
    /// Fortune bonus (optional).
    pub bonus: Limit,
    /// What the main bet pays when both player hands win.
    pub main_win: Pay,
    /// The Fortune bonus paytable, on the player's seven cards.
    pub bonus_paytable: Vec<PayRow<FortuneCategory>>,
    /// The house way used for the dealer and for auto-set (`HOUSE_WAY.md`).
    pub house_way: String,
    /// The dealer's 9-high rule.
    pub dealer_nine_high: NineHighRule,
    /// Largest total payout of one hand.
    pub game_cap: Option<Money>,
}

impl RulesModule for FortunePaiGowRules {
    fn default_rules() -> FortunePaiGowRules {
        use FortuneCategory as F;
        FortunePaiGowRules {
            main: Limit {
                min: units(1),
                max: units(100),
            },
            bonus: Limit {
                min: units(1),
                max: units(30),
            },
            main_win: odds(1),
            bonus_paytable: vec![
                row(F::SevenCardStraightFlushNatural, odds(8000)),
                row(F::RoyalMatch, odds(2000)),
                row(F::SevenCardStraightFlushWithJoker, odds(1000)),
                row(F::FiveAces, odds(400)),
                row(F::RoyalFlush, odds(150)),
                row(F::StraightFlush, odds(50)),
                row(F::FourOfAKind, odds(25)),
                row(F::FullHouse, odds(5)),
                row(F::Flush, odds(4)),
                row(F::ThreeOfAKind, odds(3)),
                row(F::Straight, odds(2)),
            ],
            house_way: HOUSE_WAY_DEFAULT.into(),
            dealer_nine_high: NineHighRule::PushEveryOutcome,
            game_cap: Some(units(240_230)),
        }
    }

    fn structure(&self, check: &Structure) -> Result<(), ConfigError> {
        check.limit("main", self.main)?;
        check.limit("bonus", self.bonus)?;
        let expected = check.rules_version.house_way().unwrap_or(Edition::CURRENT);
        if Edition::from_name(&self.house_way) != Some(expected) {
            return Err(refuse(
                check.path("house_way"),
                format!(
                    "`{}` is not the house way of rules version {} (`{}`)",
                    self.house_way,
                    check.rules_version,
                    expected.name()
                ),
            ));
        }
        Ok(())
    }

    fn bounds(&self, worst: &mut Worst) -> Result<(), ConfigError> {
        let main = worst.stake("main", self.main)?;
        let bonus = worst.stake("bonus", self.bonus)?;
        let win = worst.pay("main_win", self.main_win)?;
        let side = worst.table("bonus_paytable", &self.bonus_paytable)?;
        worst.bet("main", main, &win, None, "")?;
        worst.bet("bonus", bonus, &side, None, "")?;
        worst.game_cap(self.game_cap.map(|c| c.0))?;
        Ok(())
    }
}
