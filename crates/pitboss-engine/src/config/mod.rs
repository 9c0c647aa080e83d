//! Game configurations: everything numeric a game's rules need (paytables, table limits, per-bet and
//! per-game payout caps, the house-way version, the currency, the incomplete-game period), with a
//! canonical byte form and a SHA-256 id. A hand names the id of the configuration it was opened
//! under, so a regulator sees exactly which numbers settled it.
//!
//! Each game's rules are its own module (`mississippi.rs`, `pai_gow.rs`, `nutz.rs`, `caribbean.rs`,
//! declared from the roster in `roster.rs`): their type, their checks and their defaults, the
//! numbers of `spec/GAMES.md` and the only place in the code where those numbers appear. What all
//! configurations share is here, in `validate.rs` (the checks) and `defaults.rs` (the defaults'
//! common fields).
//!
//! **Canonical bytes**: the configuration as JSON with object keys sorted by byte order, no
//! whitespace, integers only (money in minor units), UTF-8. The id is `SHA-256` of those bytes. Any
//! language's JSON library can reproduce them from the published configuration.

use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::game::GameId;
use super::house_way::Edition;
use super::money::Money;

mod defaults;
mod sources;
mod validate;

pub use sources::{BeaconRule, LateBeacon, SeedSources};

pub use validate::{MAX_ODDS, MAX_STAKE, MAX_TOTAL};

/// The SHA-256 of a configuration's canonical bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConfigId(pub [u8; 32]);

impl fmt::Display for ConfigId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

impl fmt::Debug for ConfigId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ConfigId({self})")
    }
}

/// A currency: its ISO 4217 code and how many decimals its minor unit has.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Currency {
    /// "EUR".
    pub code: String,
    /// 2 for cents.
    pub minor_digits: u8,
}

/// An inclusive range of accepted stakes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limit {
    /// Smallest stake accepted.
    pub min: Money,
    /// Largest stake accepted.
    pub max: Money,
}

impl Limit {
    /// True if `amount` is within the limit.
    pub fn admits(self, amount: Money) -> bool {
        self.min <= amount && amount <= self.max
    }
}

/// One game's configuration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameConfig {
    /// The game these rules are for.
    pub game: GameId,
    /// A name for people ("default").
    pub name: String,
    /// Incremented by whoever publishes a changed configuration of the same name.
    pub version: u32,
    /// The currency of every amount.
    pub currency: Currency,
    /// A hand still in progress more than this many days after it opened takes no decision and
    /// is ended by the incomplete-game rule (*Toute partie en cours depuis plus de 30 jours sera
    /// annulée*): refunded in Mississippi Stud and Fortune Pai Gow, completed and settled in Nutz
    /// and Caribbean Stud (rules version 2).
    pub incomplete_void_days: u32,
    /// The edition of the engine's rules that settles hands under this configuration
    /// ([`RULES_VERSION`] for every configuration published now). Configurations recorded before
    /// the field existed have none and are version 1; they stay in the log, and the hands recorded
    /// under them replay by the rules of version 1, but no new hand opens under them.
    #[serde(
        default = "RulesVersion::first",
        skip_serializing_if = "RulesVersion::is_first"
    )]
    pub rules_version: RulesVersion,
    /// What a round's deal seed is mixed from besides the server's seed (`docs/rng.md` §1a);
    /// absent when nothing is (every configuration published before mixing existed).
    #[serde(default, skip_serializing_if = "SeedSources::is_off")]
    pub seed_sources: SeedSources,
    /// The game's own numbers.
    pub rules: Rules,
}

/// The edition of the engine's rules a configuration is played under (`docs/games.md`, *Rules
/// versions*).
///
/// - **1**: the rules until November 2026, kept so that hands recorded under them replay.
/// - **2**: an incomplete hand is void only *strictly* after its period and takes no decision from
///   then on; Nutz completes it by dealer shakes and Caribbean Stud by a fold, both settled; a
///   command may not be dated before the hand's last recorded event; a Caribbean Stud conduct
///   forfeit loses the bonus too; the void of a settled hand repeats its per-game cap line; the Pai
///   Gow house way edition `bally-atlantic-city-2026.2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RulesVersion(pub u32);

/// The rules version every configuration is published and every new hand is played under.
pub const RULES_VERSION: RulesVersion = RulesVersion(2);

impl RulesVersion {
    /// Version 1, the rules before the field existed.
    pub const FIRST: RulesVersion = RulesVersion(1);

    fn first() -> RulesVersion {
        RulesVersion::FIRST
    }

    fn is_first(&self) -> bool {
        *self == RulesVersion::FIRST
    }

    /// The house way edition a Pai Gow configuration of this rules version names.
    pub fn house_way(self) -> Option<Edition> {
        match self.0 {
            1 => Some(Edition::AtlanticCity2026_1),
            2 => Some(Edition::AtlanticCity2026_2),
            _ => None,
        }
    }

    /// Whether this build knows the version (it can replay hands recorded under it).
    pub(crate) fn is_known(self) -> bool {
        self.house_way().is_some()
    }
}

impl fmt::Display for RulesVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The rules of one game, read out of a configuration's [`Rules`].
pub trait GameRules {
    /// The game these rules are for.
    const GAME: GameId;
    /// These rules, if `rules` holds them.
    fn of(rules: &Rules) -> Option<&Self>;
}

/// What each game's rules module (`config/<module>.rs`) provides: the defaults of
/// `spec/GAMES.md`, and its part of the structure and bounds checks (`validate.rs`).
trait RulesModule {
    /// The default rules.
    fn default_rules() -> Self
    where
        Self: Sized;

    /// The structure: limits that admit some stake, the fields without which no hand replays.
    fn structure(&self, check: &validate::Structure) -> Result<(), ConfigError>;

    /// The bounds: every number within its limit, every bet at its worst folded into `worst`.
    fn bounds(&self, worst: &mut validate::Worst) -> Result<(), ConfigError>;
}

/// Declares each game's rules module, [`Rules`] and the dispatch to the modules, from the roster.
macro_rules! game_rules {
    ($($variant:ident $id:literal $module:ident $rules:ident;)*) => {
        $(mod $module;)*
        $(pub use $module::*;)*

        /// The game-specific part of a configuration.
        #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
        pub enum Rules {
            $(#[serde(rename = $id)] $variant($rules),)*
        }

        $(impl GameRules for $rules {
            const GAME: GameId = GameId::$variant;
            fn of(rules: &Rules) -> Option<&$rules> {
                match rules {
                    Rules::$variant(r) => Some(r),
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }
        })*

        impl Rules {
            /// The game these rules are for.
            pub fn game(&self) -> GameId {
                match self {
                    $(Rules::$variant(_) => GameId::$variant,)*
                }
            }

            /// The default rules of `game`.
            fn default_for(game: GameId) -> Rules {
                match game {
                    $(GameId::$variant => Rules::$variant(<$rules as RulesModule>::default_rules()),)*
                }
            }

            /// The rules' own checks.
            fn module(&self) -> &dyn RulesModule {
                match self {
                    $(Rules::$variant(r) => r,)*
                }
            }
        }
    };
}

crate::roster::roster!(game_rules);

/// A configuration that cannot be used: the field (its path in the configuration's JSON, e.g.
/// `rules.mississippi_stud.ante.max`) and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("{field}: {problem}")]
    Field { field: String, problem: String },
    #[error("configuration JSON is invalid: {0}")]
    Json(String),
}

impl ConfigError {
    /// The path of the field at fault in the configuration's JSON (empty: the whole configuration;
    /// `None` for JSON that does not parse).
    pub fn field(&self) -> Option<&str> {
        match self {
            ConfigError::Field { field, .. } => Some(field),
            ConfigError::Json(_) => None,
        }
    }

    /// What is wrong, without the field.
    pub fn problem(&self) -> &str {
        match self {
            ConfigError::Field { problem, .. } | ConfigError::Json(problem) => problem,
        }
    }
}

/// A configuration read as the rules of a game it is not for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("configuration {config} is for {found}, not {expected}")]
pub struct WrongRules {
    /// The configuration's id.
    pub config: ConfigId,
    /// The game it is for.
    pub found: GameId,
    /// The game whose rules were asked for.
    pub expected: GameId,
}

/// A [`ConfigError`] on `field`.
pub(crate) fn refuse(field: impl Into<String>, problem: impl Into<String>) -> ConfigError {
    ConfigError::Field {
        field: field.into(),
        problem: problem.into(),
    }
}

/// The house way edition of the current rules version (`HOUSE_WAY.md`).
pub const HOUSE_WAY_DEFAULT: &str = Edition::CURRENT.name();

/// A configuration with its id, computed once. [`GameConfig::id`] serializes the whole
/// configuration to its canonical JSON and hashes it, which a server opening thousands of hands a
/// second must not redo for each one: it keeps each published configuration as one of these and
/// deals from it ([`crate::games::Hand::new`]). The fields are private, so the id is always the
/// configuration's own.
#[derive(Clone, Debug)]
pub struct Identified {
    config: std::sync::Arc<GameConfig>,
    id: ConfigId,
}

impl Identified {
    /// The configuration and its id.
    pub fn new(config: std::sync::Arc<GameConfig>) -> Identified {
        let id = config.id();
        Identified { config, id }
    }

    /// The configuration.
    pub fn config(&self) -> &std::sync::Arc<GameConfig> {
        &self.config
    }

    /// Its id, `SHA-256(canonical bytes)`.
    pub fn id(&self) -> ConfigId {
        self.id
    }
}

impl From<std::sync::Arc<GameConfig>> for Identified {
    fn from(config: std::sync::Arc<GameConfig>) -> Identified {
        Identified::new(config)
    }
}

impl GameConfig {
    /// The canonical bytes (see the module documentation).
    pub fn canonical_bytes(&self) -> Vec<u8> {
        // A `serde_json::Value` object is a sorted map, so keys come out in byte order; `to_vec`
        // writes no whitespace. Serializing these plain types cannot fail.
        let value = serde_json::to_value(self).unwrap_or(serde_json::Value::Null);
        serde_json::to_vec(&value).unwrap_or_default()
    }

    /// `SHA-256(canonical bytes)`.
    pub fn id(&self) -> ConfigId {
        ConfigId(Sha256::digest(self.canonical_bytes()).into())
    }

    /// The rules of game `R`, or [`WrongRules`] naming the configuration if it is another game's.
    pub fn rules_of<R: GameRules>(&self) -> Result<&R, WrongRules> {
        R::of(&self.rules).ok_or_else(|| WrongRules {
            config: self.id(),
            found: self.game,
            expected: R::GAME,
        })
    }

    /// Reads a configuration from JSON and checks its structure ([`GameConfig::validate`]): enough
    /// to replay the hands recorded under it. New uses check more ([`GameConfig::check_limits`],
    /// [`GameConfig::check_current`]).
    pub fn from_json(bytes: &[u8]) -> Result<GameConfig, ConfigError> {
        let config: GameConfig =
            serde_json::from_slice(bytes).map_err(|e| ConfigError::Json(e.to_string()))?;
        config.validate()?;
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn units(whole: u64) -> Money {
        Money(whole * 100)
    }

    #[test]
    fn an_identified_configuration_carries_its_own_id_into_the_hands_dealt_from_it() {
        use crate::games::Hand;
        use crate::rng::Seed;
        for game in GameId::ALL {
            let config = std::sync::Arc::new(GameConfig::default_for(game));
            let identified = Identified::new(config.clone());
            assert_eq!(identified.id(), config.id());
            assert!(std::sync::Arc::ptr_eq(identified.config(), &config));
            let seed = Seed::from_bytes([7; 32]);
            let dealt = Hand::new(seed, identified);
            assert_eq!(dealt.config_id(), config.id());
            assert_eq!(dealt.config_id(), Hand::new(seed, config).config_id());
        }
    }

    #[test]
    fn defaults_validate_and_have_stable_distinct_ids() {
        let mut ids = std::collections::HashSet::new();
        for game in GameId::ALL {
            let config = GameConfig::default_for(game);
            config.validate().unwrap();
            assert!(ids.insert(config.id()));
            let again = GameConfig::from_json(&config.canonical_bytes()).unwrap();
            assert_eq!(again, config, "canonical bytes round-trip");
            assert_eq!(again.id(), config.id());
        }
    }

    /// A misspelt or invented field anywhere in a configuration is refused, never ignored: an
    /// operator's typo (`ante_cpa`) must not publish a configuration without the cap they meant.
    #[test]
    fn an_unknown_field_anywhere_is_refused() {
        for game in GameId::ALL {
            let canonical =
                String::from_utf8(GameConfig::default_for(game).canonical_bytes()).unwrap();
            GameConfig::from_json(canonical.as_bytes()).unwrap();
            for (needle, with_extra) in [
                ("{\"currency\":{", "{\"currency\":{\"minor_digit\":2,"),
                ("\"max\":", "\"maxi\":1,\"max\":"),
                ("{\"hand\":", "{\"note\":\"x\",\"hand\":"),
                (",\"name\":", ",\"nmae\":\"x\",\"name\":"),
                (
                    &format!("{{\"{}\":{{", game),
                    &format!("{{\"{}\":{{\"cap\":1,", game),
                ),
            ] {
                if !canonical.contains(needle) {
                    continue;
                }
                let text = canonical.replacen(needle, with_extra, 1);
                let refused = GameConfig::from_json(text.as_bytes());
                assert!(
                    matches!(&refused, Err(ConfigError::Json(e)) if e.contains("unknown field")),
                    "{game}: {text} gave {refused:?}"
                );
            }
        }
    }

    #[test]
    fn canonical_bytes_are_sorted_compact_json() {
        let bytes = GameConfig::default_for(GameId::Nutz).canonical_bytes();
        let text = String::from_utf8(bytes).unwrap();
        assert!(
            text.starts_with(r#"{"currency":{"code":"EUR","minor_digits":2},"game":"nutz","#),
            "{text}"
        );
        assert!(!text.contains(' '));
        assert!(text.contains(r#"{"hand":"nutz_first_shake","pay":{"odds":100}}"#));
    }

    #[test]
    fn a_changed_number_changes_the_id() {
        let config = GameConfig::default_for(GameId::MississippiStud);
        let mut changed = config.clone();
        if let Rules::MississippiStud(r) = &mut changed.rules {
            r.game_cap = Some(units(250_001));
        }
        assert_ne!(config.id(), changed.id());
    }
}
