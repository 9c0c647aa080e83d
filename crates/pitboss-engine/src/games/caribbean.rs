//! Caribbean Stud Poker (`spec/GAMES.md`, source `003_8d17d0117d3ac051.txt`).
//!
//! Deal: player cards at deck positions 0–4, dealer cards at 5–9; the dealer's last card (position 9)
//! is face up. The player folds (losing the ante and the bonus) or raises exactly the configured
//! multiple of the ante; then the dealer's four other cards are shown.
//!
//! Settlement lines, in order: ante, raise (if placed), bonus (if placed). The dealer qualifies with
//! A-K high or better. Not qualifying: the ante wins, the raise is returned. Qualifying: player higher
//! wins the ante and the raise by the raise paytable; dealer higher loses both; equal hands
//! (ranks only, suits never) return both. The bonus pays fixed amounts on the player's hand whatever
//! the dealer holds, unless the player folded.

use super::game::{Dealt, Game, GameView, IncompleteRule};
use super::{
    judged, only_bets, wager_on, within, Action, ConfigMisfit, Emitter, Event, Hand, RuleError,
    Timestamp,
};
use crate::card::Deck;
use crate::config::CaribbeanRules;
use crate::facts::{rule_names_row, Advice, BetGroup, GameFacts, TableFacts};
use crate::game::{GameId, Material, Seat, SeatLayout};
use crate::hand::poker5::{self, Category, HandValue};
use crate::hand::rank_masks::ACE;
use crate::paytable::row_for;
use crate::settlement::{BetId, Settlement, SettlementBuilder, Wager};

/// Caribbean Stud Poker's facts.
pub(crate) const FACTS: GameFacts = GameFacts {
    name: "Caribbean Stud Poker",
    material: Material::Cards(Deck::Standard52),
    layout: &[
        SeatLayout::new(Seat::Player, 0..5, "the player's five cards"),
        SeatLayout::new(
            Seat::Dealer,
            5..10,
            "the dealer's five cards; the last (position 9) is face up",
        ),
    ],
    max_seats: Some(7),
    seats_per_player: 1,
    groups: &[
        BetGroup {
            name: "main",
            bets: &[BetId::Ante, BetId::Raise],
        },
        BetGroup {
            name: "bonus",
            bets: &[BetId::Bonus],
        },
    ],
    tables: &[
        TableFacts {
            field: "ante_win",
            title: "Ante",
            bets: &[BetId::Ante],
            row: Some("Ante wins (dealer not qualifying, or player higher)"),
            paid_by: ante_paid_by,
        },
        TableFacts {
            field: "raise_paytable",
            title: "Raise (the player's hand beats a qualifying dealer)",
            bets: &[BetId::Raise],
            row: None,
            paid_by: raise_paid_by,
        },
        TableFacts {
            field: "bonus_paytable",
            title: "Bonus (fixed amounts, the whole payout)",
            bets: &[BetId::Bonus],
            row: None,
            paid_by: rule_names_row,
        },
    ],
    advice: Advice::Tables {
        exact_while_building: true,
    },
    strategy: "the lab's optimal strategy (raise or fold), by a counting sweep over every deal",
};

/// The ante's one row pays whenever the ante wins: the dealer does not qualify or the player is
/// higher.
fn ante_paid_by(_row: &str, rule: &str) -> bool {
    rule == DEALER_NOT_QUALIFYING || player_higher_category(rule).is_some()
}

/// A raise row pays when the player is higher with that row's hand.
fn raise_paid_by(row: &str, rule: &str) -> bool {
    player_higher_category(rule) == Some(row)
}

/// How a settlement line names a raise that wins: `player_higher_<category id>`. The one spelling,
/// written by [`player_higher_rule`] and read back by [`player_higher_category`].
const PLAYER_HIGHER: &str = "player_higher_";

/// The rule of an ante paid because the dealer does not qualify.
const DEALER_NOT_QUALIFYING: &str = "dealer_not_qualifying";

/// The rule of an ante and raise won with a player's hand of `category_id` (`flush`, …).
pub fn player_higher_rule(category_id: &str) -> String {
    format!("{PLAYER_HIGHER}{category_id}")
}

/// The category id a [`player_higher_rule`] names; `None` for any other rule.
pub fn player_higher_category(rule: &str) -> Option<&str> {
    rule.strip_prefix(PLAYER_HIGHER)
}

/// Whether the player has raised or folded yet.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct State {
    decision: Option<Action>,
    /// Folded by the incomplete-game rule, not by the player (rules version 2).
    folded_by_rule: bool,
}

fn rules(hand: &Hand) -> Result<&CaribbeanRules, RuleError> {
    super::rules_of(hand)
}

/// Whether a dealer hand qualifies: A-K high or better (any pair, or no pair with an ace and a king).
#[inline]
pub fn dealer_qualifies(value: HandValue) -> bool {
    const KING: u32 = 1 << 11;
    let primary = (value.raw() >> 13) & 0x1FFF;
    value.category() >= Category::Pair || (primary & u32::from(ACE) != 0 && primary & KING != 0)
}

impl Game for State {
    /// The ante (required, within its limit) and the bonus (optional, exactly the fixed stake).
    fn check_wagers(&self, hand: &Hand, wagers: &[Wager]) -> Result<(), RuleError> {
        let r = rules(hand)?;
        only_bets(GameId::CaribbeanStud, wagers, &[BetId::Ante, BetId::Bonus])?;
        let ante =
            wager_on(wagers, BetId::Ante).ok_or(RuleError::MissingWager { bet: BetId::Ante })?;
        within(hand, BetId::Ante, ante, r.ante)?;
        match wager_on(wagers, BetId::Bonus) {
            Some(amount) if amount != r.bonus_stake => Err(RuleError::FixedStake {
                bet: BetId::Bonus,
                amount,
                required: r.bonus_stake,
                minor_digits: hand.config().currency.minor_digits,
            }),
            _ => Ok(()),
        }
    }

    /// The player's five cards and the dealer's last card (position 9), face up.
    fn deal(&self, out: &mut Emitter) -> Result<(), RuleError> {
        out.show(Seat::Player)?;
        out.show_one(Seat::Dealer, 9)
    }

    /// Raise or fold.
    fn legal(&self, _: &Hand) -> Vec<Action> {
        vec![Action::Raise, Action::Fold]
    }

    /// A raise stakes the raise and shows the dealer's cards; either decision settles.
    fn act(&self, out: &mut Emitter, action: Action, at: Timestamp) -> Result<(), RuleError> {
        let r = rules(&out.hand)?.clone();
        match action {
            Action::Raise => {
                let ante = out
                    .hand
                    .stake(BetId::Ante)
                    .ok_or(RuleError::MissingWager { bet: BetId::Ante })?;
                let amount = ante.checked_mul(u64::from(r.raise_multiple))?;
                out.emit(Event::Acted {
                    action,
                    at,
                    stakes: vec![Wager {
                        bet: BetId::Raise,
                        amount,
                    }],
                })?;
                out.show(Seat::Dealer)?;
                out.finish()
            }
            Action::Fold => {
                out.emit(Event::Acted {
                    action,
                    at,
                    stakes: Vec::new(),
                })?;
                out.finish()
            }
            other => Err(RuleError::ActionNotInGame {
                game: GameId::CaribbeanStud,
                action: other.name(),
            }),
        }
    }

    fn apply(&mut self, event: &Event, _: Dealt<'_>) -> Result<(), RuleError> {
        if let Event::Completed(_) = event {
            if self.decision.is_some() {
                return Err(RuleError::Inconsistent(
                    "the incomplete-game rule after the player's decision".into(),
                ));
            }
            self.decision = Some(Action::Fold);
            self.folded_by_rule = true;
        }
        if let Event::Acted { action, .. } = event {
            if self.decision.is_some() || !matches!(action, Action::Raise | Action::Fold) {
                return Err(RuleError::Inconsistent(format!(
                    "{} in Caribbean Stud",
                    action.name()
                )));
            }
            self.decision = Some(*action);
        }
        Ok(())
    }

    fn view(&self, _: &Hand) -> GameView {
        GameView::default()
    }

    fn settle(&self, hand: &Hand) -> Result<Settlement, RuleError> {
        let r = rules(hand)?;
        let player: [_; 5] = hand
            .seat_cards(Seat::Player)
            .try_into()
            .map_err(|_| ConfigMisfit::NotFiveCards(Seat::Player))?;
        let dealer: [_; 5] = hand
            .seat_cards(Seat::Dealer)
            .try_into()
            .map_err(|_| ConfigMisfit::NotFiveCards(Seat::Dealer))?;
        let p = poker5::evaluate_unchecked(&player);
        let d = poker5::evaluate_unchecked(&dealer);
        let ante = hand
            .stake(BetId::Ante)
            .ok_or(RuleError::MissingWager { bet: BetId::Ante })?;
        let mut lines = SettlementBuilder::new();
        let folded = self.decision == Some(Action::Fold);
        let showdown = format!(
            "player {} vs dealer {}",
            judged(p.category(), &player),
            judged(d.category(), &dealer)
        );
        let fold_words = if self.folded_by_rule {
            "folded by the incomplete-game rule"
        } else {
            "folded"
        };
        if folded {
            lines.line(BetId::Ante, ante, fold_words, "fold", None, None)?;
        } else {
            let raise = hand
                .stake(BetId::Raise)
                .ok_or(RuleError::MissingWager { bet: BetId::Raise })?;
            let raise_row = row_for(&r.raise_paytable, p.category());
            let (ante_pay, raise_pay, rule) = if !dealer_qualifies(d) {
                (
                    Some(r.ante_win),
                    Some(crate::paytable::Pay::Push),
                    DEALER_NOT_QUALIFYING.to_string(),
                )
            } else if p > d {
                (
                    Some(r.ante_win),
                    raise_row.map(|row| row.pay),
                    player_higher_rule(&crate::id_of(&p.category())),
                )
            } else if p < d {
                (None, None, "dealer_higher".to_string())
            } else {
                let push = Some(crate::paytable::Pay::Push);
                (push, push, "stand_off".to_string())
            };
            lines.line(
                BetId::Ante,
                ante,
                showdown.clone(),
                rule.clone(),
                ante_pay,
                None,
            )?;
            lines.line(BetId::Raise, raise, showdown, rule, raise_pay, None)?;
        }
        if let Some(stake) = hand.stake(BetId::Bonus) {
            if folded {
                lines.line(BetId::Bonus, stake, fold_words, "fold", None, None)?;
            } else {
                let row = row_for(&r.bonus_paytable, p.category());
                lines.line(
                    BetId::Bonus,
                    stake,
                    judged(p.category(), &player),
                    crate::id_of(&p.category()),
                    row.map(|row| row.pay),
                    None,
                )?;
            }
        }
        Ok(lines.finish(r.game_cap)?)
    }

    fn incomplete_rule(&self) -> IncompleteRule {
        IncompleteRule::Complete {
            how: "completed by a fold and settled: the ante and the bonus are lost",
        }
    }

    /// The incomplete-game rule's fold (rules version 2): after the `Completed` event, which folded
    /// the hand, the settlement.
    fn complete(&self, out: &mut Emitter, _: Timestamp) -> Result<(), RuleError> {
        out.finish()
    }
}
