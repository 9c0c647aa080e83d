//! Whether the lab can analyse a configuration — its strategy tables, its advice and its PAR sheets
//! — decided before any of them is built, from the same per-row functions the sheets use. The server
//! publishes a configuration only when this passes, so that no hand under an accepted
//! configuration ever meets a configuration the lab refuses (a Caribbean Stud `ante_win` of a fixed
//! amount, published, would fail every hand under it after the hand was written).
//!
//! Owns the mapping of the lab's refusals to the configuration's field paths. Must not build a
//! table or walk a deck: it is cheap enough for every publication and proposal.

use pitboss_engine::config::{ConfigError, GameConfig};

use super::{budget, games};

/// Refuses `config` when a strategy table, the advice or a PAR sheet could not be computed for
/// it, naming the field at fault in the configuration's JSON; the tables' budget on `threads`
/// threads included ([`budget::check`]). Every computation the lab offers for a configuration
/// runs this first, so a configuration it passes is one they all accept.
pub fn check(config: &GameConfig, threads: usize) -> Result<(), ConfigError> {
    budget::check(config, threads)?;
    let game = config.game.id();
    games::of(config.game)
        .refusal(config)
        .map_err(|(field, e)| {
            let field = if field.is_empty() {
                format!("rules.{game}")
            } else {
                format!("rules.{game}.{field}")
            };
            ConfigError::Field {
                field,
                problem: e.to_string(),
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LabError;
    use pitboss_engine::config::Rules;
    use pitboss_engine::game::GameId;
    use pitboss_engine::money::Money;
    use pitboss_engine::paytable::Pay;

    #[test]
    fn every_default_configuration_is_analysable() {
        for game in GameId::ALL {
            assert_eq!(check(&GameConfig::default_for(game), 2), Ok(()), "{game:?}");
        }
    }

    /// A fixed-amount ante win the sheets cannot count: refused by its field before anything is
    /// built, with the lab's own reason; and the computations refuse it the same way.
    #[test]
    fn a_fixed_amount_row_the_sheets_cannot_count_is_refused_by_its_field() {
        let mut config = GameConfig::default_for(GameId::CaribbeanStud);
        let Rules::CaribbeanStud(rules) = &mut config.rules else {
            unreachable!()
        };
        rules.ante_win = Pay::Fixed(Money(200));
        let refused = check(&config, 2).unwrap_err();
        assert_eq!(refused.field(), Some("rules.caribbean_stud.ante_win"));
        assert!(matches!(
            crate::advice::StrategyTables::build(&config, 2),
            Err(LabError::NotAnalysable(e)) if e == refused
        ));
        assert!(crate::exact_par_sheets(&config, 2).is_err());

        let mut config = GameConfig::default_for(GameId::CaribbeanStud);
        let Rules::CaribbeanStud(rules) = &mut config.rules else {
            unreachable!()
        };
        rules.raise_paytable[2].pay = Pay::Fixed(Money(100));
        assert_eq!(
            check(&config, 2).unwrap_err().field(),
            Some("rules.caribbean_stud.raise_paytable[2].pay")
        );

        let mut config = GameConfig::default_for(GameId::CaribbeanStud);
        let Rules::CaribbeanStud(rules) = &mut config.rules else {
            unreachable!()
        };
        let stake = rules.bonus_stake.0;
        rules.bonus_paytable[1].pay = Pay::Fixed(Money(stake * 3 + 1));
        assert_eq!(
            check(&config, 2).unwrap_err().field(),
            Some("rules.caribbean_stud.bonus_paytable[1].pay")
        );

        let mut config = GameConfig::default_for(GameId::MississippiStud);
        let Rules::MississippiStud(rules) = &mut config.rules else {
            unreachable!()
        };
        rules.paytable[0].pay = Pay::Fixed(Money(1000));
        assert_eq!(
            check(&config, 2).unwrap_err().field(),
            Some("rules.mississippi_stud.paytable[0].pay")
        );
        assert!(crate::exact_par_sheets(&config, 2).is_err());
    }
}
