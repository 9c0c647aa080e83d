//! What the lab's tables for a configuration cost, known before they are built: the memory of its
//! strategy tables and the steps their induction takes, against a stated budget. A configuration
//! over budget is refused when it is published (and by the lab commands), so that no request can
//! make the server build tables that do not fit.
//!
//! The estimates are each game's (`mississippi.rs`, `caribbean.rs`: hash maps of known entry sizes,
//! at most half full), following its tables' layout, and err on the large side. Pure: no I/O.

use pitboss_engine::config::{ConfigError, GameConfig};

/// The most memory one configuration's tables may take: 64 MiB.
pub(crate) const TABLES_BUDGET_BYTES: u64 = 64 << 20;

/// The most steps (one value of one decision) building one configuration's tables may take.
pub(crate) const TABLES_BUDGET_STEPS: u64 = 1_000_000_000;

pub use super::analysed::Footprint;

/// The cost of `config`'s strategy tables, built on up to `threads` threads.
pub(crate) fn footprint(config: &GameConfig, threads: usize) -> Footprint {
    super::games::of(config.game).footprint(config, threads)
}

/// Refuses a configuration whose tables would not fit the budget, naming the field that drives
/// their size.
pub fn check(config: &GameConfig, threads: usize) -> Result<Footprint, ConfigError> {
    let cost = footprint(config, threads);
    if cost.bytes > TABLES_BUDGET_BYTES || cost.steps > TABLES_BUDGET_STEPS {
        return Err(ConfigError::Field {
            field: format!("rules.{}.street_multiples", config.game.id()),
            problem: format!(
                "the lab's strategy tables would take {} MiB and {} steps; the budget is {} MiB and {} steps (the largest multiple sets their size, the number of multiples their work)",
                cost.bytes >> 20,
                cost.steps,
                TABLES_BUDGET_BYTES >> 20,
                TABLES_BUDGET_STEPS
            ),
        });
    }
    Ok(cost)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_engine::config::Rules;
    use pitboss_engine::game::GameId;

    #[test]
    fn the_defaults_fit_and_large_multiples_do_not() {
        for game in GameId::ALL {
            let config = GameConfig::default_for(game);
            let cost = check(&config, 2).unwrap();
            assert!(cost.bytes <= TABLES_BUDGET_BYTES);
        }
        let mut config = GameConfig::default_for(GameId::MississippiStud);
        if let Rules::MississippiStud(r) = &mut config.rules {
            r.street_multiples = vec![1, 2, 30];
        }
        config.check_limits().unwrap();
        let refused = check(&config, 2).unwrap_err();
        assert_eq!(
            refused.field(),
            Some("rules.mississippi_stud.street_multiples")
        );
    }
}
