//! What a configuration must satisfy, in three degrees:
//!
//! - [`GameConfig::validate`], its **structure**: rules of the right game under a rules version (and
//!   house way edition) this build knows, limits that admit some stake. Enough to replay the hands
//!   recorded under it, so every configuration read back from the log must pass it, including ones
//!   an earlier release published under laxer checks.
//! - [`GameConfig::check_limits`], its **bounds**: every number within a stated limit, and a proof,
//!   by checked arithmetic on the worst case (the largest stake of every bet, at its largest pay,
//!   every street at the largest multiple), that every stake, payout, total, refund and recall sum
//!   of any hand fits in [`MAX_TOTAL`]. A configuration that passes can be played, settled and voided
//!   without an overflow; one that fails is refused with the field and the reason.
//! - [`GameConfig::check_current`]: both, and the current rules version: what publishing a
//!   configuration, and opening a hand under one, require.
//!
//! Field paths are those of the configuration's JSON (`rules.mississippi_stud.street_multiples[3]`).
//! Pure: no I/O. The lab's memory budget for a configuration's tables is checked by the lab.

use super::{refuse, ConfigError, GameConfig, Limit, RulesVersion, RULES_VERSION};
use crate::game::GameId;
use crate::paytable::{Pay, PayRow};

/// The largest stake any limit may admit, and the largest fixed pay or cap: 10^12 minor units (ten
/// billion euros).
pub const MAX_STAKE: u64 = 1_000_000_000_000;

/// The largest odds a paytable row may pay ("x to 1").
pub const MAX_ODDS: u32 = 1_000_000;

/// The bound every stake, payout and total of a hand must stay within: 10^18 minor units, below
/// `i64::MAX`, so that every amount also fits the signed 64-bit integers of other systems (SQL
/// `BIGINT`, Parquet `INT64`).
pub const MAX_TOTAL: u64 = 1_000_000_000_000_000_000;

/// The longest configuration name, in bytes.
const MAX_NAME: usize = 64;
/// The most decimals a currency's minor unit has (ISO 4217 has none above 4).
const MAX_MINOR_DIGITS: u8 = 4;
/// The longest incomplete-game period: ten years.
const MAX_INCOMPLETE_DAYS: u32 = 3_650;

/// `rules.<game>.<rest>`.
fn at(game: GameId, rest: &str) -> String {
    format!("rules.{}.{rest}", game.id())
}

impl GameConfig {
    /// Checks the structure (see the module documentation).
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !self.rules_version.is_known() {
            return Err(refuse(
                "rules_version",
                format!(
                    "{} is not a rules version this build knows (1 to {RULES_VERSION})",
                    self.rules_version
                ),
            ));
        }
        let code = &self.currency.code;
        if code.len() != 3 || !code.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(refuse(
                "currency.code",
                format!("`{code}` is not three capital letters (ISO 4217)"),
            ));
        }
        if self.incomplete_void_days == 0 {
            return Err(refuse("incomplete_void_days", "must be at least 1"));
        }
        if self.rules.game() != self.game {
            return Err(refuse(
                "rules",
                format!(
                    "the configuration is for {} but holds the rules of another game",
                    self.game
                ),
            ));
        }
        self.rules.module().structure(&Structure {
            game: self.game,
            rules_version: self.rules_version,
        })
    }

    /// Checks the bounds (see the module documentation); the structure first.
    pub fn check_limits(&self) -> Result<(), ConfigError> {
        self.validate()?;
        let name = &self.name;
        if name.trim().is_empty() || name.len() > MAX_NAME || name.chars().any(char::is_control) {
            return Err(refuse(
                "name",
                format!("1 to {MAX_NAME} bytes, no control characters"),
            ));
        }
        if self.currency.minor_digits > MAX_MINOR_DIGITS {
            return Err(refuse(
                "currency.minor_digits",
                format!(
                    "{} is more than {MAX_MINOR_DIGITS}",
                    self.currency.minor_digits
                ),
            ));
        }
        if self.incomplete_void_days > MAX_INCOMPLETE_DAYS {
            return Err(refuse(
                "incomplete_void_days",
                format!(
                    "{} is more than {MAX_INCOMPLETE_DAYS} (ten years)",
                    self.incomplete_void_days
                ),
            ));
        }
        self.seed_sources.check()?;
        self.rules.module().bounds(&mut Worst::new(self.game))
    }

    /// Checks that new hands may be played under the configuration: its structure, its bounds,
    /// and the current rules version (publishing, opening a hand).
    pub fn check_current(&self) -> Result<(), ConfigError> {
        self.validate()?;
        if self.rules_version != RULES_VERSION {
            return Err(refuse(
                "rules_version",
                format!(
                    "{} is retired: configurations are published and hands opened under rules version {RULES_VERSION} (a configuration without rules_version is version 1, kept only to replay the hands recorded under it)",
                    self.rules_version
                ),
            ));
        }
        let canonical = self.canonical_bytes().len();
        if canonical > MAX_CANONICAL_BYTES {
            return Err(refuse(
                "",
                format!(
                    "the configuration's canonical JSON is {canonical} bytes; at most {MAX_CANONICAL_BYTES} are published (each log entry, which carries it, must fit the 64 KiB of a tile bundle)"
                ),
            ));
        }
        self.check_limits()
    }
}

/// The longest canonical JSON a configuration published today may have: the log entries that
/// carry it (its proposal, its publication) must fit the 65 535 bytes a tile bundle frames, with
/// room for their other fields.
pub const MAX_CANONICAL_BYTES: usize = 60 * 1024;

/// The largest pay of a paytable: the most a stake can multiply into (`x + 1` for "x to 1", 1 for
/// a push), and the largest fixed amount.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Pays {
    factor: u128,
    fixed: u128,
}

impl Pays {
    /// These pays and `pay` (at `path`), refused beyond [`MAX_ODDS`] or [`MAX_STAKE`].
    fn with(self, pay: Pay, path: &str) -> Result<Pays, ConfigError> {
        Ok(match pay {
            Pay::Odds(x) if x > MAX_ODDS => {
                return Err(refuse(
                    path,
                    format!("odds {x} to 1 are more than {MAX_ODDS} to 1"),
                ))
            }
            Pay::Odds(x) => Pays {
                factor: self.factor.max(u128::from(x) + 1),
                ..self
            },
            Pay::Push => Pays {
                factor: self.factor.max(1),
                ..self
            },
            Pay::Fixed(m) if m.0 == 0 || m.0 > MAX_STAKE => {
                return Err(refuse(
                    path,
                    format!("a fixed pay is 1 to {MAX_STAKE} minor units"),
                ))
            }
            Pay::Fixed(m) => Pays {
                fixed: self.fixed.max(u128::from(m.0)),
                ..self
            },
        })
    }
}

/// What a game's structure check is given (`RulesModule::structure`): the game and rules version,
/// and the check of a limit, at a field path under the game's rules.
pub(super) struct Structure {
    game: GameId,
    /// The configuration's rules version.
    pub(super) rules_version: RulesVersion,
}

impl Structure {
    /// `rules.<game>.<rest>`.
    pub(super) fn path(&self, rest: &str) -> String {
        at(self.game, rest)
    }

    /// Refuses a limit that admits no stake: its minimum must be at least 1 and not above its
    /// maximum.
    pub(super) fn limit(&self, field: &str, l: Limit) -> Result<(), ConfigError> {
        if l.min.0 == 0 || l.min > l.max {
            return Err(refuse(
                self.path(field),
                format!(
                    "minimum {} and maximum {} (minor units): the minimum must be at least 1 and not above the maximum",
                    l.min.0, l.max.0
                ),
            ));
        }
        Ok(())
    }
}

/// The worst case of a hand under a configuration, bet by bet: what it stakes and what it pays
/// before any cap, summed, every figure checked against [`MAX_TOTAL`].
pub(super) struct Worst {
    game: GameId,
    staked: u128,
    paid: u128,
}

impl Worst {
    fn new(game: GameId) -> Worst {
        Worst {
            game,
            staked: 0,
            paid: 0,
        }
    }

    pub(super) fn path(&self, rest: &str) -> String {
        at(self.game, rest)
    }

    /// A figure within [`MAX_TOTAL`], or the field that makes it too large.
    pub(super) fn within(&self, field: &str, value: u128) -> Result<u128, ConfigError> {
        if value > u128::from(MAX_TOTAL) {
            return Err(refuse(
                self.path(field),
                format!("the largest hand's amounts would pass {MAX_TOTAL} minor units"),
            ));
        }
        Ok(value)
    }

    /// A limit's largest stake, within [`MAX_STAKE`].
    pub(super) fn stake(&self, field: &str, limit: Limit) -> Result<u128, ConfigError> {
        if limit.max.0 > MAX_STAKE {
            return Err(refuse(
                self.path(field),
                format!("{} is more than {MAX_STAKE} minor units", limit.max.0),
            ));
        }
        Ok(u128::from(limit.max.0))
    }

    /// A paytable's largest pays; each hand at most once, every pay within its bounds.
    pub(super) fn table<H: PartialEq + Copy>(
        &self,
        field: &str,
        rows: &[PayRow<H>],
    ) -> Result<Pays, ConfigError> {
        let mut pays = Pays::default();
        for (k, row) in rows.iter().enumerate() {
            let path = self.path(&format!("{field}[{k}]"));
            if rows[..k].iter().any(|r| r.hand == row.hand) {
                return Err(refuse(path, "this hand already has a row"));
            }
            pays = pays.with(row.pay, &path)?;
        }
        Ok(pays)
    }

    /// One pay's largest, within its bounds.
    pub(super) fn pay(&self, field: &str, pay: Pay) -> Result<Pays, ConfigError> {
        Pays::default().with(pay, &self.path(field))
    }

    /// One bet at its largest stake and pay; its cap, if any, must let a push return the stake.
    pub(super) fn bet(
        &mut self,
        field: &str,
        stake: u128,
        pays: &Pays,
        cap: Option<u64>,
        cap_field: &str,
    ) -> Result<(), ConfigError> {
        let uncapped = self.within(field, (stake * pays.factor).max(pays.fixed))?;
        if let Some(cap) = cap {
            if u128::from(cap) < stake || cap > MAX_TOTAL {
                return Err(refuse(
                    self.path(cap_field),
                    format!("{cap} must be at least the bet's largest stake ({stake}), so that a push returns it, and at most {MAX_TOTAL}"),
                ));
            }
        }
        self.staked = self.within(field, self.staked + stake)?;
        self.paid = self.within(field, self.paid + uncapped)?;
        Ok(())
    }

    /// The per-game cap, if any: at least what the hand can stake, so that pushes return every
    /// stake, and within the bound.
    pub(super) fn game_cap(&self, cap: Option<u64>) -> Result<(), ConfigError> {
        if let Some(cap) = cap {
            if u128::from(cap) < self.staked || cap > MAX_TOTAL {
                return Err(refuse(
                    self.path("game_cap"),
                    format!(
                        "{cap} must be at least the largest total a hand stakes ({}), so that pushes return every stake, and at most {MAX_TOTAL}",
                        self.staked
                    ),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Currency, MississippiRules, Rules};
    use super::*;
    use crate::house_way::Edition;
    use crate::money::Money;

    fn mississippi(edit: impl FnOnce(&mut MississippiRules)) -> GameConfig {
        let mut config = GameConfig::default_for(GameId::MississippiStud);
        if let Rules::MississippiStud(r) = &mut config.rules {
            edit(r);
        }
        config
    }

    fn field_of(result: Result<(), ConfigError>) -> String {
        result.unwrap_err().field().unwrap_or_default().to_string()
    }

    #[test]
    fn the_defaults_pass_every_check() {
        for game in GameId::ALL {
            GameConfig::default_for(game).check_current().unwrap();
        }
    }

    #[test]
    fn structure_errors_name_their_field() {
        let mut config = GameConfig::default_for(GameId::Nutz);
        config.game = GameId::CaribbeanStud;
        assert_eq!(field_of(config.validate()), "rules");
        let mut config = GameConfig::default_for(GameId::Nutz);
        if let Rules::Nutz(r) = &mut config.rules {
            r.box_limit.min = Money(20_000);
        }
        assert_eq!(field_of(config.validate()), "rules.nutz.box_limit");
        let config = mississippi(|r| r.street_multiples = vec![1, 0]);
        assert_eq!(
            field_of(config.validate()),
            "rules.mississippi_stud.street_multiples[1]"
        );
        let mut config = GameConfig::default_for(GameId::Nutz);
        config.currency = Currency {
            code: "eur".into(),
            minor_digits: 2,
        };
        assert_eq!(field_of(config.validate()), "currency.code");
        assert!(matches!(
            GameConfig::from_json(b"{}"),
            Err(ConfigError::Json(_))
        ));
    }

    #[test]
    fn numbers_too_large_to_settle_are_refused() {
        // The largest stake times the largest odds times the largest multiple passes the bound.
        let config = mississippi(|r| {
            r.ante.max = Money(10_000_000_000);
            r.street_multiples = vec![1, 2, 100];
            r.paytable[0].pay = Pay::Odds(MAX_ODDS);
            r.ante_cap = None;
            r.street_cap = None;
            r.game_cap = None;
        });
        assert!(config.validate().is_ok(), "the structure is fine");
        assert_eq!(
            field_of(config.check_limits()),
            "rules.mississippi_stud.street_multiples"
        );
        let config = mississippi(|r| r.ante.max = Money(MAX_STAKE + 1));
        assert_eq!(
            field_of(config.check_limits()),
            "rules.mississippi_stud.ante"
        );
        let config = mississippi(|r| r.paytable[0].pay = Pay::Odds(u32::MAX));
        assert_eq!(
            field_of(config.check_limits()),
            "rules.mississippi_stud.paytable[0]"
        );
        let config = mississippi(|r| r.street_multiples = vec![1, 2, 3, 4, 5, 6]);
        assert_eq!(
            field_of(config.check_limits()),
            "rules.mississippi_stud.street_multiples"
        );
        let config = mississippi(|r| r.street_multiples = vec![1, 2, 2]);
        assert_eq!(
            field_of(config.check_limits()),
            "rules.mississippi_stud.street_multiples[2]"
        );
        let config = mississippi(|r| r.paytable.push(r.paytable[0]));
        assert_eq!(
            field_of(config.check_limits()),
            "rules.mississippi_stud.paytable[10]"
        );
        let config = mississippi(|r| r.game_cap = Some(Money(100)));
        assert_eq!(
            field_of(config.check_limits()),
            "rules.mississippi_stud.game_cap"
        );
        let config = mississippi(|r| r.ante_cap = Some(Money(1)));
        assert_eq!(
            field_of(config.check_limits()),
            "rules.mississippi_stud.ante_cap"
        );
        let mut config = GameConfig::default_for(GameId::CaribbeanStud);
        if let Rules::CaribbeanStud(r) = &mut config.rules {
            r.raise_multiple = u32::MAX;
        }
        assert_eq!(
            field_of(config.check_limits()),
            "rules.caribbean_stud.raise_multiple"
        );
        let mut config = GameConfig::default_for(GameId::FortunePaiGow);
        config.incomplete_void_days = u32::MAX;
        assert_eq!(field_of(config.check_limits()), "incomplete_void_days");
        let mut config = GameConfig::default_for(GameId::FortunePaiGow);
        config.currency.minor_digits = u8::MAX;
        assert_eq!(field_of(config.check_limits()), "currency.minor_digits");
        let mut config = GameConfig::default_for(GameId::FortunePaiGow);
        config.name = "x".repeat(65);
        assert_eq!(field_of(config.check_limits()), "name");
    }

    #[test]
    fn only_the_current_rules_version_is_published() {
        let mut config = GameConfig::default_for(GameId::FortunePaiGow);
        config.rules_version = RulesVersion::FIRST;
        // Version 1 names the first house way edition.
        assert_eq!(
            field_of(config.validate()),
            "rules.fortune_pai_gow.house_way"
        );
        if let Rules::FortunePaiGow(r) = &mut config.rules {
            r.house_way = Edition::AtlanticCity2026_1.name().into();
        }
        config.validate().unwrap();
        config.check_limits().unwrap();
        assert_eq!(field_of(config.check_current()), "rules_version");
        config.rules_version = RulesVersion(3);
        assert_eq!(field_of(config.validate()), "rules_version");
    }
}
