//! The optimal strategy's decision for a hand as it stands, read only from what the player may see
//! (the player view), and the strategy tables it is read from, built once per configuration and
//! kept as bytes. Each game's module says how it is advised and what its tables are
//! (`analysed::Analysed`: Mississippi Stud from the backward-induction tables, Caribbean Stud from
//! the decision table or by enumerating the dealer's completions, Fortune Pai Gow the house way's
//! setting, Nutz its one decision); this module holds no game's rule. One function serves the Play
//! service's advice, `PlayHand`'s `follow_advice` and simulation.
//!
//! Must not hold a game's strategy: that is its module's.

use pitboss_engine::config::GameConfig;
use pitboss_engine::games::view::player_view;
use pitboss_engine::games::{Action, Hand, Status};

use super::analysed::Tables;
use super::error::LabError;
use super::games;

/// What the advice is computed with: a configuration's tables, or none (a game that reads tables
/// then advises as its module does without them: Caribbean Stud by enumerating the dealer's
/// 163 185 completions, about a millisecond a decision; Mississippi Stud not at all).
#[derive(Clone, Copy, Default)]
pub struct Advisor<'a> {
    tables: Option<&'a dyn Tables>,
}

impl Advisor<'_> {
    /// The decision the strategy takes now (`None` when the hand awaits none it advises).
    pub fn advise(&self, hand: &Hand) -> Result<Option<Action>, LabError> {
        if hand.status() != Status::InProgress {
            return Ok(None);
        }
        games::of(hand.game()).advise(hand, &player_view(hand), self.tables)
    }
}

/// The tables a configuration's advice needs, built once: Mississippi Stud's backward induction
/// (about a quarter of a second), Caribbean Stud's decision table (the counting sweep, about 1.5 s
/// on two cores); nothing for a game whose module builds none.
#[derive(Debug, Default)]
pub struct StrategyTables {
    tables: Option<Box<dyn Tables>>,
}

impl PartialEq for StrategyTables {
    fn eq(&self, other: &StrategyTables) -> bool {
        match (&self.tables, &other.tables) {
            (Some(mine), Some(theirs)) => mine.same(theirs.as_ref()),
            (None, None) => true,
            _ => false,
        }
    }
}

impl Eq for StrategyTables {}

impl StrategyTables {
    /// Builds the tables of a configuration on `threads` threads; refused, before any work, when
    /// the lab cannot analyse it or they would not fit its budget ([`super::analysable`]).
    pub fn build(config: &GameConfig, threads: usize) -> Result<StrategyTables, LabError> {
        super::analysable::check(config, threads)?;
        Ok(StrategyTables {
            tables: games::of(config.game).build_tables(config, threads)?,
        })
    }

    /// The tables as bytes to keep: a tag (0 none, else the game's own: 1 Mississippi Stud's
    /// tables, 2 Caribbean Stud's decision bits) and the tables' own bytes;
    /// [`StrategyTables::from_bytes`] reads them back for the same configuration. Stored copies
    /// are keyed by the configuration's id and [`crate::REVISION`]. `None` for tables whose stakes
    /// the bytes cannot hold (they are then built again when needed).
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        Some(match &self.tables {
            Some(tables) => [vec![tables.tag()], tables.to_bytes()?].concat(),
            None => vec![0],
        })
    }

    /// The tables of `config` from [`StrategyTables::to_bytes`]: refused ([`LabError::Stored`])
    /// unless they are its game's, whole and well formed. The bytes are trusted to be this
    /// configuration's: whoever keeps them checks that (a digest, the configuration's id).
    pub fn from_bytes(config: &GameConfig, bytes: &[u8]) -> Result<StrategyTables, LabError> {
        let stored = |reason: String| LabError::Stored { reason };
        let (&tag, rest) = bytes
            .split_first()
            .ok_or_else(|| stored("no bytes".into()))?;
        let game = games::of(config.game);
        let tables = match (tag, game.tables_tag()) {
            (0, None) if rest.is_empty() => None,
            (tag, Some(own)) if tag == own => {
                Some(game.tables_from_bytes(config, rest).map_err(stored)?)
            }
            (tag, _) => {
                return Err(stored(format!(
                    "tables of kind {tag} are not {}'s",
                    config.game.id()
                )))
            }
        };
        Ok(StrategyTables { tables })
    }

    /// The advisor reading these tables.
    pub fn advisor(&self) -> Advisor<'_> {
        Advisor {
            tables: self.tables.as_deref(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_engine::game::GameId;

    /// Each game's default tables, kept as bytes and read back, are the tables built; the bytes
    /// of one game, a truncated copy or a stray bit are refused, naming what is wrong.
    #[test]
    fn kept_tables_read_back_as_built_and_nothing_else_reads() {
        for game in GameId::ALL {
            let config = GameConfig::default_for(game);
            let built = StrategyTables::build(&config, crate::threads()).unwrap();
            let bytes = built.to_bytes().unwrap();
            assert_eq!(
                StrategyTables::from_bytes(&config, &bytes).unwrap(),
                built,
                "{game:?}"
            );
            let cut = &bytes[..bytes.len() - 1];
            if cut.is_empty() {
                assert!(StrategyTables::from_bytes(&config, cut).is_err());
                continue;
            }
            let refused = StrategyTables::from_bytes(&config, cut).unwrap_err();
            assert!(matches!(refused, LabError::Stored { .. }), "{refused}");
            for other in GameId::ALL.into_iter().filter(|g| *g != game) {
                let other = GameConfig::default_for(other);
                assert!(
                    StrategyTables::from_bytes(&other, &bytes).is_err(),
                    "{game:?}'s tables read as {:?}'s",
                    other.game
                );
            }
        }
        // A 4th-street decision whose key names four cards instead of three: the first one's key
        // (cards 0, 1 and 2, the lowest) follows the tag, the count, C(52,4) = 270 725 sums and
        // the decisions' count.
        let mississippi = GameConfig::default_for(GameId::MississippiStud);
        let mut bytes = StrategyTables::build(&mississippi, crate::threads())
            .unwrap()
            .to_bytes()
            .unwrap();
        let first_key = 1 + 4 + 270_725 * 8 + 4;
        bytes[first_key] ^= 0b1000;
        let refused = StrategyTables::from_bytes(&mississippi, &bytes).unwrap_err();
        assert!(refused.to_string().contains("is not one"), "{refused}");
        let caribbean = GameConfig::default_for(GameId::CaribbeanStud);
        let mut bytes = StrategyTables::build(&caribbean, crate::threads())
            .unwrap()
            .to_bytes()
            .unwrap();
        // The last byte holds the last rank's spare bits, past the last of the 2 598 960 hands.
        *bytes.last_mut().unwrap() |= 0x80;
        let refused = StrategyTables::from_bytes(&caribbean, &bytes).unwrap_err();
        assert!(
            refused.to_string().contains("past the last hand"),
            "{refused}"
        );
    }
}
