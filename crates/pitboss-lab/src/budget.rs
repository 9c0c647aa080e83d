//! What the lab's tables for a configuration cost, known before they are built: the memory of its
//! strategy tables and the steps their induction takes, against a stated budget. A configuration
//! over budget is refused when it is published (and by the lab commands), so that no request can
//! make the server build tables that do not fit.
//!
//! The estimates follow the tables' layout in `mississippi.rs` and `caribbean.rs` (hash maps of
//! known entry sizes, at most half full) and err on the large side. Pure: no I/O.

use pitboss_engine::config::{ConfigError, GameConfig, Rules};

/// The most memory one configuration's tables may take: 64 MiB.
pub(crate) const TABLES_BUDGET_BYTES: u64 = 64 << 20;

/// The most steps (one value of one decision) building one configuration's tables may take.
pub(crate) const TABLES_BUDGET_STEPS: u64 = 1_000_000_000;

/// Four-card sets of 52 cards, the 5th-street table's entries.
const FOUR_CARD_SETS: u64 = 270_725;
/// Three-card sets, the 4th-street table's entries per amount staked.
const THREE_CARD_SETS: u64 = 22_100;
/// Bytes per entry: 5th street, estimated as a hash map's at most half full (u64 key, i64 value, a
/// control byte), more than the table's vector of one i64 per four-card set takes: the estimate
/// errs on the large side, and a configuration's verdict does not move with the table's layout;
/// 4th street, a hash map's (a 32-byte key, a 48-byte decision, a control byte).
const FIFTH_ENTRY: u64 = 2 * 17;
const FOURTH_ENTRY: u64 = 2 * 81;
/// Caribbean Stud's decision table (a bit per player hand, per up-card rank) and the counters of
/// the counting sweep on each thread.
const CARIBBEAN_TABLE: u64 = 13 * 2_598_960 / 8;
const CARIBBEAN_SWEEP_PER_THREAD: u64 = 272_052 * 4;

/// The estimated cost of a configuration's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footprint {
    /// Memory, in bytes.
    pub bytes: u64,
    /// Steps of the induction (the counting sweep and the simulations are fixed work).
    pub steps: u64,
}

/// The cost of `config`'s strategy tables, built on up to `threads` threads.
pub(crate) fn footprint(config: &GameConfig, threads: usize) -> Footprint {
    match &config.rules {
        Rules::MississippiStud(r) => {
            let multiples = r.street_multiples.len() as u64;
            let most = u64::from(r.street_multiples.iter().copied().max().unwrap_or(1));
            let fourth_entries = THREE_CARD_SETS.saturating_mul(most);
            Footprint {
                bytes: (FOUR_CARD_SETS * FIFTH_ENTRY)
                    .saturating_add(fourth_entries.saturating_mul(FOURTH_ENTRY)),
                steps: (FOUR_CARD_SETS * 48).saturating_add(
                    fourth_entries
                        .saturating_mul(49)
                        .saturating_mul(multiples.saturating_mul(multiples)),
                ),
            }
        }
        Rules::CaribbeanStud(_) => Footprint {
            bytes: CARIBBEAN_TABLE + CARIBBEAN_SWEEP_PER_THREAD * threads.clamp(1, 64) as u64,
            steps: 0,
        },
        Rules::FortunePaiGow(_) | Rules::Nutz(_) => Footprint { bytes: 0, steps: 0 },
    }
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
