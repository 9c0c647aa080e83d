//! The default configurations: what every game's default shares (its name, currency, period and
//! rules version) with the game's default rules from its module (`RulesModule::default_rules`),
//! and the helpers those modules write the numbers of `spec/GAMES.md` with. Amounts are euro cents.

use super::{Currency, GameConfig, Rules, SeedSources, RULES_VERSION};
use crate::game::GameId;
use crate::money::Money;
use crate::paytable::{Pay, PayRow};

/// Whole currency units in minor units (two decimals).
pub(super) const fn units(whole: u64) -> Money {
    Money(whole * 100)
}

pub(super) const fn odds(x: u32) -> Pay {
    Pay::Odds(x)
}

pub(super) fn row<H>(hand: H, pay: Pay) -> PayRow<H> {
    PayRow { hand, pay }
}

impl GameConfig {
    /// The default configuration of `game`, from `spec/GAMES.md`.
    pub fn default_for(game: GameId) -> GameConfig {
        GameConfig {
            game,
            name: "default".into(),
            version: 1,
            currency: Currency {
                code: "EUR".into(),
                minor_digits: 2,
            },
            incomplete_void_days: 30,
            rules_version: RULES_VERSION,
            seed_sources: SeedSources::default(),
            rules: Rules::default_for(game),
        }
    }
}
