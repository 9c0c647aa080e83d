//! Game configurations: everything numeric a game's rules need (paytables, table limits, per-bet and
//! per-game payout caps, the house-way version, the currency, the incomplete-game period), with a
//! canonical byte form and a SHA-256 id. A hand names the id of the configuration it was opened
//! under, so a regulator sees exactly which numbers settled it.
//!
//! The defaults are those of `spec/GAMES.md`; this is the only place in the code where those numbers
//! appear.
//!
//! **Canonical bytes**: the configuration as JSON with object keys sorted by byte order, no
//! whitespace, integers only (money in minor units), UTF-8. The id is `SHA-256` of those bytes. Any
//! language's JSON library can reproduce them from the published configuration.

use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::game::GameId;
use super::hand::fortune::FortuneCategory;
use super::hand::{poker5, three_card};
use super::money::Money;
use super::paytable::{Pay, PayRow};

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
pub struct Currency {
    /// "EUR".
    pub code: String,
    /// 2 for cents.
    pub minor_digits: u8,
}

/// An inclusive range of accepted stakes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
pub struct GameConfig {
    /// The game these rules are for.
    pub game: GameId,
    /// A name for people ("default").
    pub name: String,
    /// Incremented by whoever publishes a changed configuration of the same name.
    pub version: u32,
    /// The currency of every amount.
    pub currency: Currency,
    /// A hand still in progress this many days after it opened may be voided with refunds
    /// (*Toute partie en cours depuis plus de 30 jours sera annulée*).
    pub incomplete_void_days: u32,
    /// The game's own numbers.
    pub rules: Rules,
}

/// The game-specific part of a configuration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rules {
    MississippiStud(MississippiRules),
    FortunePaiGow(FortunePaiGowRules),
    Nutz(NutzRules),
    CaribbeanStud(CaribbeanRules),
}

/// The rules of one game, read out of a configuration's [`Rules`].
pub trait GameRules {
    /// The game these rules are for.
    const GAME: GameId;
    /// These rules, if `rules` holds them.
    fn of(rules: &Rules) -> Option<&Self>;
}

macro_rules! game_rules {
    ($($ty:ident => $variant:ident, $game:ident;)*) => {$(
        impl GameRules for $ty {
            const GAME: GameId = GameId::$game;
            fn of(rules: &Rules) -> Option<&$ty> {
                match rules {
                    Rules::$variant(r) => Some(r),
                    _ => None,
                }
            }
        }
    )*};
}

game_rules! {
    MississippiRules => MississippiStud, MississippiStud;
    FortunePaiGowRules => FortunePaiGow, FortunePaiGow;
    NutzRules => Nutz, Nutz;
    CaribbeanRules => CaribbeanStud, CaribbeanStud;
}

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

/// Caribbean Stud Poker: ante, raise and the fixed-amount bonus.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

/// A configuration that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("configuration is for {game} but holds the rules of another game")]
    RulesForAnotherGame { game: GameId },
    #[error("{field}: minimum {min} is above maximum {max}, or zero")]
    BadLimit {
        field: &'static str,
        min: Money,
        max: Money,
    },
    #[error("{field}: must not be empty or zero")]
    Empty { field: &'static str },
    #[error("currency code `{0}` is not three capital letters")]
    Currency(String),
    #[error("the house way `{0}` is not one this build implements ({HOUSE_WAY_DEFAULT})")]
    UnknownHouseWay(String),
    #[error("configuration JSON is invalid: {0}")]
    Json(String),
}

/// The house way this build implements (`HOUSE_WAY.md`).
pub const HOUSE_WAY_DEFAULT: &str = "bally-atlantic-city-2026.1";

/// Whole currency units in minor units (two decimals).
const fn units(whole: u64) -> Money {
    Money(whole * 100)
}

const fn odds(x: u32) -> Pay {
    Pay::Odds(x)
}

fn row<H>(hand: H, pay: Pay) -> PayRow<H> {
    PayRow { hand, pay }
}

impl GameConfig {
    /// The default configuration of `game`, from `spec/GAMES.md`.
    pub fn default_for(game: GameId) -> GameConfig {
        let rules = match game {
            GameId::MississippiStud => Rules::MississippiStud(mississippi_default()),
            GameId::FortunePaiGow => Rules::FortunePaiGow(fortune_pai_gow_default()),
            GameId::Nutz => Rules::Nutz(nutz_default()),
            GameId::CaribbeanStud => Rules::CaribbeanStud(caribbean_default()),
        };
        GameConfig {
            game,
            name: "default".into(),
            version: 1,
            currency: Currency {
                code: "EUR".into(),
                minor_digits: 2,
            },
            incomplete_void_days: 30,
            rules,
        }
    }

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

    /// The rules of game `R`, or a message naming the configuration if it is another game's.
    pub fn rules_of<R: GameRules>(&self) -> Result<&R, String> {
        R::of(&self.rules).ok_or_else(|| {
            format!(
                "configuration {} is for {}, not {}",
                self.id(),
                self.game,
                R::GAME
            )
        })
    }

    /// Reads a configuration from JSON and checks it.
    pub fn from_json(bytes: &[u8]) -> Result<GameConfig, ConfigError> {
        let config: GameConfig =
            serde_json::from_slice(bytes).map_err(|e| ConfigError::Json(e.to_string()))?;
        config.validate()?;
        Ok(config)
    }

    /// Checks that the configuration can be played: rules of the right game, sane limits.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let code = &self.currency.code;
        if code.len() != 3 || !code.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(ConfigError::Currency(code.clone()));
        }
        if self.incomplete_void_days == 0 {
            return Err(ConfigError::Empty {
                field: "incomplete_void_days",
            });
        }
        let limit = |field, l: Limit| {
            if l.min.0 == 0 || l.min > l.max {
                Err(ConfigError::BadLimit {
                    field,
                    min: l.min,
                    max: l.max,
                })
            } else {
                Ok(())
            }
        };
        let wrong = Err(ConfigError::RulesForAnotherGame { game: self.game });
        match (&self.rules, self.game) {
            (Rules::MississippiStud(r), GameId::MississippiStud) => {
                limit("ante", r.ante)?;
                limit("bonus", r.bonus)?;
                if r.street_multiples.is_empty() || r.street_multiples.contains(&0) {
                    return Err(ConfigError::Empty {
                        field: "street_multiples",
                    });
                }
            }
            (Rules::FortunePaiGow(r), GameId::FortunePaiGow) => {
                limit("main", r.main)?;
                limit("bonus", r.bonus)?;
                if r.house_way != HOUSE_WAY_DEFAULT {
                    return Err(ConfigError::UnknownHouseWay(r.house_way.clone()));
                }
            }
            (Rules::Nutz(r), GameId::Nutz) => {
                limit("box_limit", r.box_limit)?;
                if r.max_shakes == 0 {
                    return Err(ConfigError::Empty {
                        field: "max_shakes",
                    });
                }
            }
            (Rules::CaribbeanStud(r), GameId::CaribbeanStud) => {
                limit("ante", r.ante)?;
                if r.bonus_stake.0 == 0 || r.raise_multiple == 0 {
                    return Err(ConfigError::Empty {
                        field: "bonus_stake / raise_multiple",
                    });
                }
            }
            _ => return wrong,
        }
        Ok(())
    }
}

fn mississippi_default() -> MississippiRules {
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

fn fortune_pai_gow_default() -> FortunePaiGowRules {
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

fn nutz_default() -> NutzRules {
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

fn caribbean_default() -> CaribbeanRules {
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn invalid_configurations_are_refused() {
        let mut config = GameConfig::default_for(GameId::Nutz);
        config.game = GameId::CaribbeanStud;
        assert_eq!(
            config.validate(),
            Err(ConfigError::RulesForAnotherGame {
                game: GameId::CaribbeanStud
            })
        );
        let mut config = GameConfig::default_for(GameId::Nutz);
        if let Rules::Nutz(r) = &mut config.rules {
            r.box_limit.min = units(200);
        }
        assert!(matches!(
            config.validate(),
            Err(ConfigError::BadLimit {
                field: "box_limit",
                ..
            })
        ));
        assert!(matches!(
            GameConfig::from_json(b"{}"),
            Err(ConfigError::Json(_))
        ));
    }
}
