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
#[derive(Default)]
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
