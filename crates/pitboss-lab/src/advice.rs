//! The optimal strategy's decision for a hand as it stands, read only from what the player may see
//! (the player view): Mississippi Stud from the backward-induction tables, Caribbean Stud from the
//! decision table or by enumerating the dealer's completions, Fortune Pai Gow the house way's
//! setting, Nutz its one decision (shake; the hold rule does the rest). One function serves the
//! Play service's advice, `PlayHand`'s `follow_advice` and simulation.

use pitboss_engine::card::Card;
use pitboss_engine::config::{GameConfig, Rules};
use pitboss_engine::game::Seat;
use pitboss_engine::games::view::player_view;
use pitboss_engine::games::{Action, Hand, Shaker, Status};
use pitboss_engine::settlement::BetId;

use super::error::LabError;
use super::{caribbean, mississippi};

/// What the advice is computed with.
#[derive(Clone, Copy, Default)]
pub struct Advisor<'a> {
    /// Mississippi Stud's tables (its hands get no advice without them).
    pub(crate) mississippi: Option<&'a mississippi::Strategy>,
    /// Caribbean Stud's decision table; without it each decision enumerates the 163 185 dealer
    /// completions (about a millisecond).
    pub(crate) caribbean: Option<&'a caribbean::DecisionTable>,
}

impl Advisor<'_> {
    /// The decision the strategy takes now (`None` when the hand awaits none it advises).
    pub fn advise(&self, hand: &Hand) -> Result<Option<Action>, LabError> {
        if hand.status() != Status::InProgress {
            return Ok(None);
        }
        let view = player_view(hand);
        let visible = |seat: Seat| -> Vec<Card> {
            view.seats
                .iter()
                .filter(|s| s.seat == seat)
                .flat_map(|s| s.cards.iter().flatten().copied())
                .collect()
        };
        Ok(match &hand.config().rules {
            Rules::MississippiStud(_) => {
                let Some(strategy) = self.mississippi else {
                    return Ok(None);
                };
                let mut seen = visible(Seat::Player);
                seen.extend(visible(Seat::Community));
                let ante = staked(hand, Some(BetId::Ante)).max(1);
                strategy
                    .advise(&seen, (staked(hand, None) / ante) as u32)
                    .map(|choice| match choice {
                        Some(multiple) => Action::Bet { multiple },
                        None => Action::Fold,
                    })
            }
            Rules::CaribbeanStud(rules) => {
                let dealer = visible(Seat::Dealer);
                let (Ok(player), [up]) =
                    (<[Card; 5]>::try_from(visible(Seat::Player)), &dealer[..])
                else {
                    return Ok(None);
                };
                let decision = match self.caribbean {
                    Some(table) => table.decide(&player, *up),
                    None => caribbean::advise(rules, &player, *up)?,
                };
                Some(match decision {
                    caribbean::Decision::Raise => Action::Raise,
                    caribbean::Decision::Fold => Action::Fold,
                })
            }
            Rules::FortunePaiGow(_) => view.suggested_low.map(|low| Action::SetHand { low }),
            Rules::Nutz(_) => Some(Action::Shake { by: Shaker::Player }),
        })
    }
}

/// The tables a configuration's advice needs, built once: Mississippi Stud's backward induction
/// (about a quarter of a second), Caribbean Stud's decision table (the counting sweep, about 1.5 s on two
/// cores); nothing for Pai Gow and Nutz.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct StrategyTables {
    mississippi: Option<mississippi::Strategy>,
    caribbean: Option<caribbean::DecisionTable>,
}

impl StrategyTables {
    /// Builds the tables of a configuration on `threads` threads; refused, before any work, when
    /// the lab cannot analyse it or they would not fit its budget ([`super::analysable`]).
    pub fn build(config: &GameConfig, threads: usize) -> Result<StrategyTables, LabError> {
        super::analysable::check(config, threads)?;
        Ok(match &config.rules {
            Rules::MississippiStud(rules) => StrategyTables {
                mississippi: Some(mississippi::Strategy::build(rules)),
                caribbean: None,
            },
            Rules::CaribbeanStud(rules) => StrategyTables {
                mississippi: None,
                caribbean: Some(caribbean::analyse(rules, threads)?.1),
            },
            _ => StrategyTables::default(),
        })
    }

    /// The tables as bytes to keep: a tag (0 none, 1 Mississippi Stud's tables, 2 Caribbean
    /// Stud's decision bits) and the tables' own bytes; [`StrategyTables::from_bytes`] reads them
    /// back for the same configuration. Stored copies are keyed by the configuration's id and
    /// [`crate::REVISION`]. `None` for tables whose stakes the bytes cannot hold (they are then
    /// built again when needed).
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        Some(match (&self.mississippi, &self.caribbean) {
            (Some(strategy), _) => [vec![1], strategy.to_bytes()?].concat(),
            (None, Some(table)) => [vec![2], table.to_bytes()].concat(),
            (None, None) => vec![0],
        })
    }

    /// The tables of `config` from [`StrategyTables::to_bytes`]: refused ([`LabError::Stored`])
    /// unless they are its game's, whole and well formed. The bytes are trusted to be this
    /// configuration's: whoever keeps them checks that (a digest, the configuration's id).
    pub fn from_bytes(config: &GameConfig, bytes: &[u8]) -> Result<StrategyTables, LabError> {
        let stored = |reason: String| LabError::Stored { reason };
        let (tag, rest) = bytes
            .split_first()
            .ok_or_else(|| stored("no bytes".into()))?;
        Ok(match (&config.rules, tag) {
            (Rules::MississippiStud(rules), 1) => StrategyTables {
                mississippi: Some(mississippi::Strategy::from_bytes(rules, rest).map_err(stored)?),
                caribbean: None,
            },
            (Rules::CaribbeanStud(_), 2) => StrategyTables {
                mississippi: None,
                caribbean: Some(caribbean::DecisionTable::from_bytes(rest).map_err(stored)?),
            },
            (Rules::FortunePaiGow(_) | Rules::Nutz(_), 0) if rest.is_empty() => {
                StrategyTables::default()
            }
            (_, tag) => {
                return Err(stored(format!(
                    "tables of kind {tag} are not {}'s",
                    config.game.id()
                )))
            }
        })
    }

    /// The advisor reading these tables.
    pub fn advisor(&self) -> Advisor<'_> {
        Advisor {
            mississippi: self.mississippi.as_ref(),
            caribbean: self.caribbean.as_ref(),
        }
    }
}

/// The stakes on `bet`, or on every bet but the side bonus (`None`), in minor units.
pub(crate) fn staked(hand: &Hand, bet: Option<BetId>) -> u64 {
    hand.stakes()
        .iter()
        .filter(|w| bet.map_or(w.bet != BetId::Bonus, |b| w.bet == b))
        .map(|w| w.amount.0)
        .sum()
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
