//! Mississippi Stud's configuration: its rules' type, their checks and the defaults of
//! `spec/GAMES.md`.

use serde::{Deserialize, Serialize};

use super::defaults::{odds, row, units};
use super::validate::{Structure, Worst};
use super::{refuse, ConfigError, Limit, RulesModule};
use crate::hand::three_card;
use crate::money::Money;
use crate::paytable::{Pay, PayRow};

/// Mississippi Stud hands that can pay on the ante and street bets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MississippiHand {
    RoyalFlush,
    StraightFlush,
    FourOfAKind,
    FullHouse,
    Flush,
    Straight,
    ThreeOfAKind,
    TwoPair,
    /// One pair of jacks, queens, kings or aces.
    PairJacksOrBetter,
    /// One pair of sixes to tens.
    PairSixesToTens,
}

/// Mississippi Stud: the ante, three street bets and the 3-card bonus.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MississippiRules {
    /// Ante (required).
    pub ante: Limit,
    /// 3-card bonus (optional).
    pub bonus: Limit,
    /// The multiples of the ante a street bet may be (1, 2, 3).
    pub street_multiples: Vec<u32>,
    /// Pays on the ante and every street bet, judged on the five-card hand.
    pub paytable: Vec<PayRow<MississippiHand>>,
    /// Pays on the bonus, judged on the three community cards.
    pub bonus_paytable: Vec<PayRow<three_card::Category>>,
    /// Largest payout of the ante bet (stake included).
    pub ante_cap: Option<Money>,
    /// Largest payout of each street bet.
    pub street_cap: Option<Money>,
    /// Largest payout of the bonus.
    pub bonus_cap: Option<Money>,
    /// Largest total payout of one hand.
    pub game_cap: Option<Money>,
}

/// The most street multiples a Mississippi Stud configuration offers, and the largest.
const MAX_STREET_MULTIPLES: usize = 5;
const MAX_STREET_MULTIPLE: u32 = 100;

impl RulesModule for MississippiRules {
    fn default_rules() -> MississippiRules {
        use three_card::Category as B;
        use MississippiHand as M;
        MississippiRules {
            ante: Limit {
                min: units(1),
                max: units(50),
            },
            bonus: Limit {
                min: units(1),
                max: units(50),
            },
            street_multiples: vec![1, 2, 3],
            paytable: vec![
                row(M::RoyalFlush, odds(500)),
                row(M::StraightFlush, odds(100)),
                row(M::FourOfAKind, odds(40)),
                row(M::FullHouse, odds(10)),
                row(M::Flush, odds(6)),
                row(M::Straight, odds(4)),
                row(M::ThreeOfAKind, odds(3)),
                row(M::TwoPair, odds(2)),
                row(M::PairJacksOrBetter, odds(1)),
                row(M::PairSixesToTens, Pay::Push),
            ],
            bonus_paytable: vec![
                row(B::MiniRoyal, odds(50)),
                row(B::StraightFlush, odds(40)),
                row(B::ThreeOfAKind, odds(30)),
                row(B::Straight, odds(6)),
                row(B::Flush, odds(4)),
                row(B::Pair, odds(1)),
            ],
            ante_cap: Some(units(25_050)),
            street_cap: Some(units(75_150)),
            bonus_cap: Some(units(2_550)),
            game_cap: Some(units(250_000)),
        }
    }

    fn structure(&self, check: &Structure) -> Result<(), ConfigError> {
        check.limit("ante", self.ante)?;
        check.limit("bonus", self.bonus)?;
        if self.street_multiples.is_empty() {
            return Err(refuse(check.path("street_multiples"), "must not be empty"));
        }
        if let Some(k) = self.street_multiples.iter().position(|&m| m == 0) {
            return Err(refuse(
                check.path(&format!("street_multiples[{k}]")),
                "must be at least 1",
            ));
        }
        Ok(())
    }

    fn bounds(&self, worst: &mut Worst) -> Result<(), ConfigError> {
        let multiples = &self.street_multiples;
        if multiples.len() > MAX_STREET_MULTIPLES {
            return Err(refuse(
                worst.path("street_multiples"),
                format!("at most {MAX_STREET_MULTIPLES} multiples"),
            ));
        }
        for (k, &m) in multiples.iter().enumerate() {
            if m > MAX_STREET_MULTIPLE || multiples[..k].contains(&m) {
                return Err(refuse(
                    worst.path(&format!("street_multiples[{k}]")),
                    format!("1 to {MAX_STREET_MULTIPLE}, each multiple once"),
                ));
            }
        }
        let ante = worst.stake("ante", self.ante)?;
        let bonus = worst.stake("bonus", self.bonus)?;
        let most = u128::from(multiples.iter().copied().max().unwrap_or(1));
        let street = worst.within("street_multiples", ante * most)?;
        let main = worst.table("paytable", &self.paytable)?;
        let side = worst.table("bonus_paytable", &self.bonus_paytable)?;
        worst.bet("ante", ante, &main, self.ante_cap.map(|c| c.0), "ante_cap")?;
        for _ in 0..3 {
            worst.bet(
                "street_multiples",
                street,
                &main,
                self.street_cap.map(|c| c.0),
                "street_cap",
            )?;
        }
        worst.bet("bonus", bonus, &side, self.bonus_cap.map(|c| c.0), "bonus_cap")?;
        worst.game_cap(self.game_cap.map(|c| c.0))?;
        Ok(())
    }
}
