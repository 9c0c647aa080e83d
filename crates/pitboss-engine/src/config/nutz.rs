//! The Nutz dice game's configuration: its rules' type, their checks and the defaults of
//! `spec/GAMES.md`.

use serde::{Deserialize, Serialize};

use super::defaults::{odds, row, units};
use super::validate::{Structure, Worst};
use super::{refuse, ConfigError, Limit, RulesModule};
use crate::money::Money;
use crate::paytable::PayRow;

/// The Nutz bet boxes' paying rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NutzRow {
    /// Nutz made on the first shake.
    NutzFirstShake,
    /// Nutz made on the second or third shake.
    NutzLaterShake,
    FourOfAKind,
    FullHouse,
    ThreeOfAKind,
    TwoPairs,
    OnePair,
    StraightOrNoHand,
}

/// Nutz: seven boxes, each staked or not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NutzRules {
    /// The stake on any one box.
    pub box_limit: Limit,
    /// The most shakes of a round.
    pub max_shakes: u8,
    /// What each box pays when the final hand is its hand.
    pub paytable: Vec<PayRow<NutzRow>>,
    /// Largest total payout of one hand.
    pub game_cap: Option<Money>,
}

/// The most shakes of a Nutz round.
const MAX_SHAKES: u8 = 10;

impl RulesModule for NutzRules {
    fn default_rules() -> NutzRules {
        use NutzRow as N;
        NutzRules {
            box_limit: Limit {
                min: units(1),
                max: units(100),
            },
            max_shakes: 3,
            paytable: vec![
                row(N::NutzFirstShake, odds(100)),
                row(N::NutzLaterShake, odds(25)),
                row(N::OnePair, odds(25)),
                row(N::StraightOrNoHand, odds(9)),
                row(N::FourOfAKind, odds(5)),
                row(N::ThreeOfAKind, odds(5)),
                row(N::TwoPairs, odds(3)),
                row(N::FullHouse, odds(2)),
            ],
            game_cap: None,
        }
    }

    fn structure(&self, check: &Structure) -> Result<(), ConfigError> {
        check.limit("box_limit", self.box_limit)?;
        if self.max_shakes == 0 {
            return Err(refuse(check.path("max_shakes"), "must be at least 1"));
        }
        Ok(())
    }

    fn bounds(&self, worst: &mut Worst) -> Result<(), ConfigError> {
        if self.max_shakes > MAX_SHAKES {
            return Err(refuse(
                worst.path("max_shakes"),
                format!("1 to {MAX_SHAKES}"),
            ));
        }
        let stake = worst.stake("box_limit", self.box_limit)?;
        let pays = worst.table("paytable", &self.paytable)?;
        for _ in crate::settlement::BetId::NUTZ_BOXES {
            worst.bet("box_limit", stake, &pays, None, "")?;
        }
        worst.game_cap(self.game_cap.map(|c| c.0))?;
        Ok(())
    }
}
