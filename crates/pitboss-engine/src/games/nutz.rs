//! Nutz, the five-dice game (`spec/GAMES.md`, source `002_2b8a8f9457ad0658.txt`).
//!
//! Up to three shakes. A shake rolls every die not held, in ascending die position, from the hand's
//! stream (RNG.md §7). After every shake, every die in a group of two or more equal faces is held and
//! the rest are shaken again. The round ends: after the first shake on a full house, a straight, no
//! hand or Nutz; after any shake on a full house or Nutz; after the last shake in any case. A player
//! who does not shake is shaken for (a shake by the dealer): a recorded event either way.
//!
//! Settlement: one line per staked box, in box order; a box wins when the final hand is its hand
//! (the Nutz box at the first-shake or later-shake row by when Nutz was made).

use serde::{Deserialize, Serialize};

use super::game::{Dealt, Game, GameView, IncompleteRule};
use super::view::DiceView;
use super::{
    only_bets, within, Action, DiceSource, Emitter, Event, Hand, RuleError, Shaker, Status,
    Timestamp,
};
use crate::config::{NutzRow, NutzRules};
use crate::facts::{rule_names_row, Advice, BetGroup, GameFacts, TableFacts};
use crate::game::{GameId, Material};
use crate::paytable::row_for;
use crate::settlement::{BetId, Settlement, SettlementBuilder, Wager};

/// Nutz's facts.
pub(crate) const FACTS: GameFacts = GameFacts {
    name: "Nutz",
    material: Material::Dice { count: 5 },
    layout: &[],
    max_seats: None,
    seats_per_player: 1,
    groups: &[
        BetGroup {
            name: BetId::BoxNutz.id(),
            bets: &[BetId::BoxNutz],
        },
        BetGroup {
            name: BetId::BoxFourOfAKind.id(),
            bets: &[BetId::BoxFourOfAKind],
        },
        BetGroup {
            name: BetId::BoxFullHouse.id(),
            bets: &[BetId::BoxFullHouse],
        },
        BetGroup {
            name: BetId::BoxThreeOfAKind.id(),
            bets: &[BetId::BoxThreeOfAKind],
        },
        BetGroup {
            name: BetId::BoxTwoPairs.id(),
            bets: &[BetId::BoxTwoPairs],
        },
        BetGroup {
            name: BetId::BoxOnePair.id(),
            bets: &[BetId::BoxOnePair],
        },
        BetGroup {
            name: BetId::BoxStraightOrNoHand.id(),
            bets: &[BetId::BoxStraightOrNoHand],
        },
    ],
    tables: &[TableFacts {
        field: "paytable",
        title: "Boxes (the final dice)",
        bets: &BetId::NUTZ_BOXES,
        row: None,
        paid_by: rule_names_row,
    }],
    advice: Advice::Shaking,
    strategy: "plain shaking: the game leaves the player no choice",
};

/// A hand of five dice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NutzHand {
    /// Five alike.
    Nutz,
    FourOfAKind,
    /// Three and two.
    FullHouse,
    /// Three and two different singles.
    ThreeOfAKind,
    /// Two, two and one.
    TwoPairs,
    /// Two and three different singles.
    OnePair,
    /// 1-2-3-4-5 or 2-3-4-5-6.
    Straight,
    /// Five different, not a straight.
    NoHand,
}

/// The hand five faces make.
pub fn nutz_hand(faces: [u8; 5]) -> NutzHand {
    let mut counts = [0u8; 7];
    for f in faces {
        counts[usize::from(f.min(6))] += 1;
    }
    let mut shape: Vec<u8> = counts.iter().copied().filter(|&c| c > 0).collect();
    shape.sort_unstable_by(|a, b| b.cmp(a));
    match shape.as_slice() {
        [5] => NutzHand::Nutz,
        [4, 1] => NutzHand::FourOfAKind,
        [3, 2] => NutzHand::FullHouse,
        [3, 1, 1] => NutzHand::ThreeOfAKind,
        [2, 2, 1] => NutzHand::TwoPairs,
        [2, 1, 1, 1] => NutzHand::OnePair,
        _ if counts[1] == 0 || counts[6] == 0 => NutzHand::Straight,
        _ => NutzHand::NoHand,
    }
}

/// Positions of dice in a group of two or more equal faces: the dice held for the next shake.
pub fn held_positions(faces: [u8; 5]) -> Vec<u8> {
    (0..5u8)
        .filter(|&p| {
            faces
                .iter()
                .filter(|&&f| f == faces[usize::from(p)])
                .count()
                >= 2
        })
        .collect()
}

/// Whether the round is over after `shake` with this hand.
pub fn round_over(shake: u8, hand: NutzHand, max_shakes: u8) -> bool {
    matches!(hand, NutzHand::FullHouse | NutzHand::Nutz)
        || (shake == 1 && matches!(hand, NutzHand::Straight | NutzHand::NoHand))
        || shake >= max_shakes
}

/// The paytable row a box pays by, when the round ended with `hand` on shake `shake`; `None` when
/// the box loses.
pub fn paying_row(bet: BetId, hand: NutzHand, shake: u8) -> Option<NutzRow> {
    match (bet, hand) {
        (BetId::BoxNutz, NutzHand::Nutz) if shake == 1 => Some(NutzRow::NutzFirstShake),
        (BetId::BoxNutz, NutzHand::Nutz) => Some(NutzRow::NutzLaterShake),
        (BetId::BoxFourOfAKind, NutzHand::FourOfAKind) => Some(NutzRow::FourOfAKind),
        (BetId::BoxFullHouse, NutzHand::FullHouse) => Some(NutzRow::FullHouse),
        (BetId::BoxThreeOfAKind, NutzHand::ThreeOfAKind) => Some(NutzRow::ThreeOfAKind),
        (BetId::BoxTwoPairs, NutzHand::TwoPairs) => Some(NutzRow::TwoPairs),
        (BetId::BoxOnePair, NutzHand::OnePair) => Some(NutzRow::OnePair),
        (BetId::BoxStraightOrNoHand, NutzHand::Straight | NutzHand::NoHand) => {
            Some(NutzRow::StraightOrNoHand)
        }
        _ => None,
    }
}

/// The boxes, in settlement order.
const BOXES: [BetId; 7] = BetId::NUTZ_BOXES;

/// The dice so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct State {
    shakes: u8,
    faces: [u8; 5],
    held: Vec<u8>,
    over: bool,
}

fn rules(hand: &Hand) -> Result<&NutzRules, RuleError> {
    super::rules_of(hand)
}

/// The shake that would come next: which dice roll, and the faces after it.
fn next_shake(state: &State, dice: &mut DiceSource) -> Result<(Vec<u8>, [u8; 5]), RuleError> {
    let rolled: Vec<u8> = (0..5u8).filter(|p| !state.held.contains(p)).collect();
    let mut faces = state.faces;
    for &p in &rolled {
        faces[usize::from(p)] = dice.die()?;
    }
    Ok((rolled, faces))
}

impl Game for State {
    /// At least one box, each within the box limit.
    fn check_wagers(&self, hand: &Hand, wagers: &[Wager]) -> Result<(), RuleError> {
        let r = rules(hand)?;
        only_bets(GameId::Nutz, wagers, &BOXES)?;
        if wagers.is_empty() {
            return Err(RuleError::NoWager);
        }
        for w in wagers {
            within(hand, w.bet, w.amount, r.box_limit)?;
        }
        Ok(())
    }

    /// Nothing: the dice are shaken by decisions.
    fn deal(&self, _: &mut Emitter) -> Result<(), RuleError> {
        Ok(())
    }

    /// A shake, by the player or by the dealer for them.
    fn legal(&self, _: &Hand) -> Vec<Action> {
        vec![
            Action::Shake { by: Shaker::Player },
            Action::Shake { by: Shaker::Dealer },
        ]
    }

    fn act(&self, out: &mut Emitter, action: Action, at: Timestamp) -> Result<(), RuleError> {
        let Action::Shake { by } = action else {
            return Err(RuleError::ActionNotInGame {
                game: GameId::Nutz,
                action: action.name(),
            });
        };
        let max_shakes = rules(&out.hand)?.max_shakes;
        if self.over {
            return Err(RuleError::NotLegalNow {
                action: "shake",
                why: "the round is over",
            });
        }
        let shake = self.shakes + 1;
        let mut dice = out.hand.dice.clone();
        let (rolled, faces) = next_shake(self, &mut dice)?;
        let last = round_over(shake, nutz_hand(faces), max_shakes);
        out.emit(Event::DiceShaken {
            shake,
            by,
            at,
            rolled,
            faces,
            held: held_positions(faces),
            last,
        })?;
        if last {
            out.finish()?;
        }
        Ok(())
    }

    fn apply(&mut self, event: &Event, dealt: Dealt<'_>) -> Result<(), RuleError> {
        let dice = dealt.dice;
        let wrong = |what: String| Err(RuleError::Inconsistent(what));
        match event {
            Event::DiceShaken {
                shake,
                rolled,
                faces,
                held,
                last,
                ..
            } => {
                if self.over || *shake != self.shakes + 1 {
                    return wrong(format!("shake {shake} out of turn"));
                }
                let (expect_rolled, expect_faces) = next_shake(self, dice)?;
                if *rolled != expect_rolled || *faces != expect_faces {
                    return wrong(format!(
                        "shake {shake} recorded dice {faces:?} (rolled {rolled:?}); the stream gives {expect_faces:?} (rolled {expect_rolled:?})"
                    ));
                }
                self.shakes = *shake;
                self.faces = *faces;
                self.held = held_positions(*faces);
                self.over = *last;
                if *held != self.held {
                    return wrong(format!(
                        "held dice {held:?}, the rule holds {:?}",
                        self.held
                    ));
                }
            }
            Event::Acted { action, .. } => {
                return wrong(format!("{} in Nutz", action.name()));
            }
            _ => {}
        }
        Ok(())
    }

    /// The dice after the last shake, once shaken.
    fn view(&self, _: &Hand) -> GameView {
        GameView {
            dice: (self.shakes > 0).then(|| DiceView {
                faces: self.faces,
                held: self.held.clone(),
                shakes: self.shakes,
            }),
            suggested_low: None,
        }
    }

    fn settle(&self, hand: &Hand) -> Result<Settlement, RuleError> {
        let r = rules(hand)?;
        let final_hand = nutz_hand(self.faces);
        let words = format!(
            "{} after shake {}: {}",
            crate::id_of(&final_hand).replace('_', " "),
            self.shakes,
            self.faces.map(|f| f.to_string()).join(" ")
        );
        let mut lines = SettlementBuilder::new();
        for bet in BOXES {
            let Some(stake) = hand.stake(bet) else {
                continue;
            };
            let paying_row = paying_row(bet, final_hand, self.shakes);
            let row = paying_row.and_then(|h| row_for(&r.paytable, h));
            let rule = paying_row.map_or_else(
                || format!("final_{}", crate::id_of(&final_hand)),
                |h| crate::id_of(&h),
            );
            lines.line(
                bet,
                stake,
                words.clone(),
                rule,
                row.map(|row| row.pay),
                None,
            )?;
        }
        Ok(lines.finish(r.game_cap)?)
    }

    fn incomplete_rule(&self) -> IncompleteRule {
        IncompleteRule::Complete {
            how: "completed by dealer shakes and settled (le croupier agitera les dés pour compléter la main)",
        }
    }

    /// The incomplete-game rule's completion (rules version 2): the dealer shakes until the round
    /// is over (at most the configured shakes), then the hand settles.
    fn complete(&self, out: &mut Emitter, at: Timestamp) -> Result<(), RuleError> {
        while out.hand.status == Status::InProgress {
            out.act(Action::Shake { by: Shaker::Dealer }, at)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hands_of_five_dice() {
        assert_eq!(nutz_hand([3, 3, 3, 3, 3]), NutzHand::Nutz);
        assert_eq!(nutz_hand([3, 3, 3, 3, 1]), NutzHand::FourOfAKind);
        assert_eq!(nutz_hand([3, 1, 3, 1, 3]), NutzHand::FullHouse);
        assert_eq!(nutz_hand([3, 3, 3, 2, 1]), NutzHand::ThreeOfAKind);
        assert_eq!(nutz_hand([3, 3, 2, 2, 1]), NutzHand::TwoPairs);
        assert_eq!(nutz_hand([3, 3, 2, 4, 1]), NutzHand::OnePair);
        assert_eq!(nutz_hand([5, 4, 3, 2, 1]), NutzHand::Straight);
        assert_eq!(nutz_hand([2, 6, 3, 5, 4]), NutzHand::Straight);
        assert_eq!(nutz_hand([1, 2, 3, 4, 6]), NutzHand::NoHand);
        assert_eq!(held_positions([3, 3, 2, 2, 1]), vec![0, 1, 2, 3]);
        assert_eq!(held_positions([1, 2, 3, 4, 6]), Vec::<u8>::new());
        assert!(round_over(1, NutzHand::NoHand, 3));
        assert!(!round_over(2, NutzHand::OnePair, 3));
        assert!(round_over(3, NutzHand::OnePair, 3));
    }
}
