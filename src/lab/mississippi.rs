//! Mississippi Stud, exactly: the optimal strategy by backward induction over every card sequence,
//! and its return per ante and per total amount wagered; and the 3-card bonus over all 22 100
//! community hands. From the engine's evaluators and the configuration's paytables.
//!
//! Optimal play maximises the expected return per ante at every decision; where betting and
//! folding are worth exactly the same it bets (GAMES.md), and among bets of equal worth it takes
//! the smallest. All values are exact integers over a common denominator (48 at 5th street,
//! 48 × 49 at 4th, 48 × 49 × 50 at 3rd), so ties are exact.
//!
//! The value of a decision depends only on the set of cards seen (player and community cards are
//! interchangeable in the final hand) and on the total already staked, in antes.

use std::collections::HashMap;

use crate::engine::card::Card;
use crate::engine::config::{GameConfig, MississippiRules, Rules};
use crate::engine::games::mississippi_hand;
use crate::engine::hand::{poker5, three_card};
use crate::engine::money::Money;
use crate::engine::paytable::{row_for, Pay};

use super::par::{ParRow, ParSheet};

/// Net result per unit staked on the ante or a street bet (winnings; 0 for a push; −1 for a loss).
fn net_of(rules: &MississippiRules, cards: &[Card; 5]) -> i64 {
    let value = poker5::evaluate_unchecked(cards);
    match mississippi_hand(value)
        .and_then(|h| row_for(&rules.paytable, h))
        .map(|r| r.pay)
    {
        Some(Pay::Odds(x)) => i64::from(x),
        Some(Pay::Push) => 0,
        Some(Pay::Fixed(m)) => m.0 as i64 - 1,
        None => -1,
    }
}

fn mask(cards: &[Card]) -> u64 {
    cards.iter().fold(0, |m, c| m | 1 << c.index())
}

fn deck() -> Vec<Card> {
    (0..52).filter_map(Card::from_index).collect()
}

/// The exact analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// Σ over all starting pairs of the optimal value, in antes, over `denominator`.
    pub value: i128,
    /// Σ over all starting pairs of the expected total wagered, in antes, over `denominator`.
    pub wagered: i128,
    /// 1 326 × 48 × 49 × 50.
    pub denominator: i128,
    /// How often each street decision is a fold, per starting pair (for the report).
    pub folds_at_third: u32,
}

impl Analysis {
    /// Expected result per ante (negative: the house edge per ante).
    pub fn per_ante(&self) -> f64 {
        self.value as f64 / self.denominator as f64
    }

    /// Expected total wagered per hand, in antes.
    pub fn average_wager(&self) -> f64 {
        self.wagered as f64 / self.denominator as f64
    }

    /// Return per total amount wagered: 1 + value / wagered.
    pub fn return_per_wagered(&self) -> f64 {
        1.0 + self.value as f64 / self.wagered as f64
    }
}

/// (value, wagered) of the best decision among folding (value `fold`, wager `staked`) and betting
/// each multiple; ties go to betting, then to the smaller multiple.
fn best(fold: (i128, i128), bets: impl Iterator<Item = (i128, i128)>) -> ((i128, i128), bool) {
    let mut choice = fold;
    let mut bet = false;
    for option in bets {
        if option.0 > choice.0 || (!bet && option.0 == choice.0) {
            choice = option;
            bet = true;
        }
    }
    (choice, bet)
}

/// Backward induction over every card sequence.
pub fn analyse(rules: &MississippiRules) -> Analysis {
    let cards = deck();
    let multiples: Vec<i128> = rules
        .street_multiples
        .iter()
        .map(|&m| i128::from(m))
        .collect();
    // 5th street: A(4 cards) = Σ over the 48 last cards of the net result per unit.
    let mut fifth: HashMap<u64, i64> = HashMap::with_capacity(270_725);
    for a in 0..52 {
        for b in a + 1..52 {
            for c in b + 1..52 {
                for d in c + 1..52 {
                    let four = [cards[a], cards[b], cards[c], cards[d]];
                    let m = mask(&four);
                    let sum: i64 = cards
                        .iter()
                        .filter(|e| m & 1 << e.index() == 0)
                        .map(|&e| net_of(rules, &[four[0], four[1], four[2], four[3], e]))
                        .sum();
                    fifth.insert(m, sum);
                }
            }
        }
    }
    // V5(4 cards, staked S) over 48: fold −S·48; bet m: A·(S + m).
    let v5 = |m: u64, staked: i128| -> (i128, i128) {
        let a = i128::from(fifth[&m]);
        best(
            (-staked * 48, staked * 48),
            multiples
                .iter()
                .map(|&k| (a * (staked + k), (staked + k) * 48)),
        )
        .0
    };
    // V4(3 cards, S) over 48·49.
    let mut fourth: HashMap<(u64, i128), (i128, i128)> = HashMap::new();
    let max_multiple = multiples.iter().copied().max().unwrap_or(1);
    for a in 0..52 {
        for b in a + 1..52 {
            for c in b + 1..52 {
                let m3 = mask(&[cards[a], cards[b], cards[c]]);
                for staked in 2..=1 + max_multiple {
                    let bets = multiples.iter().map(|&k| {
                        cards
                            .iter()
                            .filter(|e| m3 & 1 << e.index() == 0)
                            .fold((0, 0), |acc, e| {
                                let (v, w) = v5(m3 | 1 << e.index(), staked + k);
                                (acc.0 + v, acc.1 + w)
                            })
                    });
                    let (value, _) = best(
                        (-staked * 48 * 49, staked * 48 * 49),
                        bets.collect::<Vec<_>>().into_iter(),
                    );
                    fourth.insert((m3, staked), value);
                }
            }
        }
    }
    // V3(2 cards) over 48·49·50.
    let mut value = 0;
    let mut wagered = 0;
    let mut folds = 0;
    for a in 0..52 {
        for b in a + 1..52 {
            let m2 = mask(&[cards[a], cards[b]]);
            let bets: Vec<(i128, i128)> = multiples
                .iter()
                .map(|&k| {
                    cards
                        .iter()
                        .filter(|e| m2 & 1 << e.index() == 0)
                        .fold((0, 0), |acc, e| {
                            let (v, w) = fourth[&(m2 | 1 << e.index(), 1 + k)];
                            (acc.0 + v, acc.1 + w)
                        })
                })
                .collect();
            let d3 = 48 * 49 * 50;
            let ((v, w), bet) = best((-d3, d3), bets.into_iter());
            folds += u32::from(!bet);
            value += v;
            wagered += w;
        }
    }
    Analysis {
        value,
        wagered,
        denominator: 1326 * 48 * 49 * 50,
        folds_at_third: folds,
    }
}

/// The 3-card bonus over all 22 100 community hands.
pub fn bonus_sheet(config: &GameConfig) -> Result<ParSheet, String> {
    let Rules::MississippiStud(rules) = &config.rules else {
        return Err("not a Mississippi Stud configuration".into());
    };
    let cards = deck();
    let mut counts: HashMap<three_card::Category, u128> = HashMap::new();
    for a in 0..52 {
        for b in a + 1..52 {
            for c in b + 1..52 {
                let category =
                    three_card::evaluate_unchecked(&[cards[a], cards[b], cards[c]]).category();
                *counts.entry(category).or_default() += 1;
            }
        }
    }
    let rows = three_card::Category::ALL
        .iter()
        .rev()
        .map(|&category| ParRow {
            row: category.id().to_string(),
            count: counts.get(&category).copied().unwrap_or(0),
            pays_per_unit: row_for(&rules.bonus_paytable, category)
                .and_then(|r| r.pay.payout(Money(1)).ok())
                .map_or(0, |m| u128::from(m.0)),
        })
        .collect();
    Ok(ParSheet {
        title: "mississippi_stud / bonus".into(),
        config_id: config.id().to_string(),
        rows,
        denominator: 22_100,
    })
}
