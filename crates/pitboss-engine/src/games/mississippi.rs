//! Mississippi Stud (`spec/GAMES.md`, source `000_453daf8fe97e1453.txt`).
//!
//! Deal: player cards at deck positions 0–1 (face up), community cards at 2, 3, 4 (face down).
//! Decisions at 3rd, 4th and 5th street: fold, or bet 1×, 2× or 3× the ante; after each bet the next
//! community card is shown. "Max bet all" at 3rd or 4th street bets the largest multiple on this and
//! every remaining street at once. A fold loses the ante and the street bets placed; the bonus is
//! still settled on the three community cards, which are then shown.
//!
//! Settlement lines, in order: ante, street 3, 4, 5 (those placed), bonus (if placed); then the
//! per-game cap. Ante and street bets pay by the five-card hand, the bonus by the three-card hand
//! of the community cards.

use super::game::{Dealt, Game, GameView, IncompleteRule};
use super::{
    judged, only_bets, wager_on, within, Action, Emitter, Event, Hand, RuleError, Timestamp,
};
use crate::card::{Card, Deck};
use crate::card::Rank;
use crate::config::{MississippiHand, MississippiRules};
use crate::facts::{rule_names_row, Advice, BetGroup, GameFacts, TableFacts};
use crate::game::{GameId, Material, Seat, SeatLayout};
use crate::hand::poker5::{self, Category, HandValue};
use crate::hand::three_card;
use crate::money::Money;
use crate::paytable::row_for;
use crate::settlement::{BetId, Settlement, SettlementBuilder, Wager};

/// Mississippi Stud's facts.
pub(crate) const FACTS: GameFacts = GameFacts {
    name: "Mississippi Stud",
    material: Material::Cards(Deck::Standard52),
    layout: &[
        SeatLayout::new(Seat::Player, 0..2, "both face up"),
        SeatLayout::new(
            Seat::Community,
            2..5,
            "face down; revealed one by one after the 3rd, 4th and 5th street decisions",
        ),
    ],
    max_seats: Some(7),
    seats_per_player: 1,
    groups: &[
        BetGroup {
            name: "main",
            bets: &[BetId::Ante, BetId::Street3, BetId::Street4, BetId::Street5],
        },
        BetGroup {
            name: "bonus",
            bets: &[BetId::Bonus],
        },
    ],
    tables: &[
        TableFacts {
            field: "paytable",
            title: "Ante and street bets (five-card hand)",
            bets: &[BetId::Ante, BetId::Street3, BetId::Street4, BetId::Street5],
            row: None,
            paid_by: rule_names_row,
        },
        TableFacts {
            field: "bonus_paytable",
            title: "3-card bonus (the three community cards)",
            bets: &[BetId::Bonus],
            row: None,
            paid_by: rule_names_row,
        },
    ],
    advice: Advice::Tables {
        exact_while_building: false,
    },
    strategy: "the lab's optimal strategy, by exact backward induction",
};

/// The street a decision is taken on (3, 4 or 5), or 6 once no decision remains.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct State {
    street: u8,
    folded_on: Option<u8>,
}

impl Default for State {
    fn default() -> State {
        State {
            street: 3,
            folded_on: None,
        }
    }
}

const STREET_BETS: [BetId; 3] = [BetId::Street3, BetId::Street4, BetId::Street5];

fn rules(hand: &Hand) -> Result<&MississippiRules, RuleError> {
    super::rules_of(hand)
}

impl Game for State {
    /// The ante (required) and the bonus (optional), each within its limit.
    fn check_wagers(&self, hand: &Hand, wagers: &[Wager]) -> Result<(), RuleError> {
        let r = rules(hand)?;
        only_bets(
            GameId::MississippiStud,
            wagers,
            &[BetId::Ante, BetId::Bonus],
        )?;
        let ante =
            wager_on(wagers, BetId::Ante).ok_or(RuleError::MissingWager { bet: BetId::Ante })?;
        within(hand, BetId::Ante, ante, r.ante)?;
        if let Some(bonus) = wager_on(wagers, BetId::Bonus) {
            within(hand, BetId::Bonus, bonus, r.bonus)?;
        }
        Ok(())
    }

    /// The player's two cards, face up.
    fn deal(&self, out: &mut Emitter) -> Result<(), RuleError> {
        out.show(Seat::Player)
    }

    fn legal(&self, hand: &Hand) -> Vec<Action> {
        let Ok(r) = rules(hand) else {
            return Vec::new();
        };
        if self.street > 5 {
            return Vec::new();
        }
        let mut legal = vec![Action::Fold];
        legal.extend(
            r.street_multiples
                .iter()
                .map(|&multiple| Action::Bet { multiple }),
        );
        if self.street < 5 {
            legal.push(Action::MaxBetAll);
        }
        legal
    }

    fn act(&self, out: &mut Emitter, action: Action, at: Timestamp) -> Result<(), RuleError> {
        act_on_street(out, self.street, action, at)
    }

    fn apply(&mut self, event: &Event, _: Dealt<'_>) -> Result<(), RuleError> {
        if let Event::Acted { action, .. } = event {
            match action {
                Action::Bet { .. } => self.street += 1,
                Action::MaxBetAll => self.street = 6,
                Action::Fold => {
                    self.folded_on = Some(self.street);
                    self.street = 6;
                }
                _ => {
                    return Err(RuleError::Inconsistent(format!(
                        "{} in Mississippi Stud",
                        action.name()
                    )))
                }
            }
        }
        Ok(())
    }

    fn view(&self, _: &Hand) -> GameView {
        GameView::default()
    }

    fn settle(&self, hand: &Hand) -> Result<Settlement, RuleError> {
        let r = rules(hand)?;
        let player = hand.seat_cards(Seat::Player);
        let community = hand.seat_cards(Seat::Community);
        let five: [Card; 5] = [
            player[0],
            player[1],
            community[0],
            community[1],
            community[2],
        ];
        let value = poker5::evaluate_unchecked(&five);
        let paying = mississippi_hand(value);
        let row = paying.and_then(|h| row_for(&r.paytable, h));
        let five_words = judged(value.category(), &five);
        let mut lines = SettlementBuilder::new();
        let bets = [(BetId::Ante, r.ante_cap)]
            .into_iter()
            .chain(STREET_BETS.iter().map(|&b| (b, r.street_cap)));
        for (bet, cap) in bets {
            let Some(stake) = hand.stake(bet) else {
                continue;
            };
            match self.folded_on {
                Some(street) => lines.line(
                    bet,
                    stake,
                    format!("folded on street {street}"),
                    "fold",
                    None,
                    cap,
                )?,
                None => lines.line(
                    bet,
                    stake,
                    five_words.clone(),
                    row.map_or_else(
                        || crate::id_of(&value.category()),
                        |row| crate::id_of(&row.hand),
                    ),
                    row.map(|row| row.pay),
                    cap,
                )?,
            };
        }
        if let Some(stake) = hand.stake(BetId::Bonus) {
            let three = [community[0], community[1], community[2]];
            let category = three_card::evaluate_unchecked(&three).category();
            let row = row_for(&r.bonus_paytable, category);
            lines.line(
                BetId::Bonus,
                stake,
                judged(category, &three),
                crate::id_of(&category),
                row.map(|row| row.pay),
                r.bonus_cap,
            )?;
        }
        Ok(lines.finish(r.game_cap)?)
    }

    fn incomplete_rule(&self) -> IncompleteRule {
        IncompleteRule::Refund
    }
}

/// The Mississippi paytable hand a five-card value falls in, if any.
#[inline]
pub fn mississippi_hand(value: HandValue) -> Option<MississippiHand> {
    use MississippiHand as M;
    Some(match value.category() {
        Category::RoyalFlush => M::RoyalFlush,
        Category::StraightFlush => M::StraightFlush,
        Category::FourOfAKind => M::FourOfAKind,
        Category::FullHouse => M::FullHouse,
        Category::Flush => M::Flush,
        Category::Straight => M::Straight,
        Category::ThreeOfAKind => M::ThreeOfAKind,
        Category::TwoPair => M::TwoPair,
        Category::Pair => match value.pair_rank()? {
            r if r >= Rank::Jack => M::PairJacksOrBetter,
            r if r >= Rank::Six => M::PairSixesToTens,
            _ => return None,
        },
        Category::HighCard => return None,
    })
}

/// A decision on `street`.
fn act_on_street(
    out: &mut Emitter,
    street: u8,
    action: Action,
    at: Timestamp,
) -> Result<(), RuleError> {
    let r = rules(&out.hand)?.clone();
    let ante = out
        .hand
        .stake(BetId::Ante)
        .ok_or(RuleError::MissingWager { bet: BetId::Ante })?;
    let street_bet = |s: u8| STREET_BETS[usize::from(s - 3)];
    let community_position = |s: u8| 2 + (s - 3);
    match action {
        Action::Bet { multiple } => {
            if !r.street_multiples.contains(&multiple) {
                return Err(RuleError::BadMultiple {
                    multiple,
                    allowed: r.street_multiples.clone(),
                });
            }
            let amount = ante.checked_mul(u64::from(multiple))?;
            out.emit(Event::Acted {
                action,
                at,
                stakes: vec![Wager {
                    bet: street_bet(street),
                    amount,
                }],
            })?;
            out.show_one(Seat::Community, community_position(street))?;
            if street == 5 {
                out.finish()?;
            }
        }
        Action::MaxBetAll => {
            if street >= 5 {
                return Err(RuleError::NotLegalNow {
                    action: "max_bet_all",
                    why: "max bet all is offered on 3rd and 4th street only; bet 3x instead",
                });
            }
            let max = r.street_multiples.iter().copied().max().unwrap_or(1);
            let amount: Money = ante.checked_mul(u64::from(max))?;
            let stakes = (street..=5)
                .map(|s| Wager {
                    bet: street_bet(s),
                    amount,
                })
                .collect();
            out.emit(Event::Acted { action, at, stakes })?;
            for s in street..=5 {
                out.show_one(Seat::Community, community_position(s))?;
            }
            out.finish()?;
        }
        Action::Fold => {
            out.emit(Event::Acted {
                action,
                at,
                stakes: Vec::new(),
            })?;
            out.show(Seat::Community)?;
            out.finish()?;
        }
        other => {
            return Err(RuleError::ActionNotInGame {
                game: GameId::MississippiStud,
                action: other.name(),
            })
        }
    }
    Ok(())
}
