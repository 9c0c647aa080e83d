//! Nutz, exactly: the distribution of the final hand (and, for Nutz, the shake it was made on) by a
//! Markov chain over the hold rule, from the engine's own rules (`nutz_hand`, `held_positions`,
//! `round_over`), memoized by the multiset of held dice. Weights are integers over 6^(5 × shakes),
//! so every probability is an exact fraction.

use std::collections::HashMap;

use pitboss_engine::config::{GameConfig, NutzRow, NutzRules};
use pitboss_engine::game::GameId;
use pitboss_engine::games::view::PlayerView;
use pitboss_engine::games::{held_positions, nutz_hand, paying_row, round_over, NutzHand};
use pitboss_engine::games::{Action, Hand, Shaker};
use pitboss_engine::paytable::row_for;
use pitboss_engine::settlement::BetId;
use pitboss_engine::settlement::{BetLine, Wager};

use super::analysed::{Analysed, Tables};
use super::error::LabError;
use super::par::{ParRow, ParSheet};

/// Nutz's analysis, as the lab's entry points reach it.
pub(crate) struct Lab;

impl Analysed for Lab {
    fn refusal(&self, config: &GameConfig) -> Result<(), (String, LabError)> {
        config
            .rules_of::<NutzRules>()
            .map(|_| ())
            .map_err(|e| (String::new(), e.into()))
    }

    fn exact_par_sheets(
        &self,
        config: &GameConfig,
        _threads: usize,
    ) -> Result<Vec<ParSheet>, LabError> {
        par_sheets(config)
    }

    fn reference_wagers(&self, config: &GameConfig) -> Result<Vec<Wager>, LabError> {
        let r: &NutzRules = config.rules_of()?;
        Ok(BetId::NUTZ_BOXES
            .iter()
            .map(|&bet| Wager {
                bet,
                amount: r.box_limit.min,
            })
            .collect())
    }

    fn row_of(&self, _group: &str, _hand: &Hand, line: &BetLine) -> Option<String> {
        line.pay.is_none().then(|| "loses".to_string())
    }

    fn advise(
        &self,
        _hand: &Hand,
        _view: &PlayerView,
        _tables: Option<&dyn Tables>,
    ) -> Result<Option<Action>, LabError> {
        // The one decision: shake (the hold rule does the rest).
        Ok(Some(Action::Shake { by: Shaker::Player }))
    }
}

/// Final outcomes: (final hand, the shake the round ended on) → weight.
pub type Outcomes = HashMap<(NutzHand, u8), u128>;

fn pow6(k: u32) -> u128 {
    6u128.pow(k)
}

/// The total weight of a round of `max_shakes` shakes: 6^(5 × max_shakes).
pub fn denominator(max_shakes: u8) -> u128 {
    pow6(5 * u32::from(max_shakes))
}

/// The exact distribution of final outcomes, weights over [`denominator`].
pub fn outcomes(max_shakes: u8) -> Outcomes {
    let mut memo: HashMap<(Vec<u8>, u8), Outcomes> = HashMap::new();
    from_state(&[], 1, max_shakes, &mut memo)
}

/// The distribution from a state (held faces, next shake), weights summing to
/// 6^(5 × (max_shakes − shake + 1)).
fn from_state(
    held: &[u8],
    shake: u8,
    max_shakes: u8,
    memo: &mut HashMap<(Vec<u8>, u8), Outcomes>,
) -> Outcomes {
    let key = (held.to_vec(), shake);
    if let Some(done) = memo.get(&key) {
        return done.clone();
    }
    let k = 5 - held.len() as u32;
    let mut out = Outcomes::new();
    for roll in 0..pow6(k) as u32 {
        let mut faces = [0u8; 5];
        faces[..held.len()].copy_from_slice(held);
        let mut r = roll;
        for face in faces.iter_mut().skip(held.len()) {
            *face = (r % 6) as u8 + 1;
            r /= 6;
        }
        let hand = nutz_hand(faces);
        if round_over(shake, hand, max_shakes) {
            // This roll's share of the subtree: 6^(5 × remaining shakes) / 6^k.
            *out.entry((hand, shake)).or_default() +=
                pow6(5 * u32::from(max_shakes - shake + 1) - k);
        } else {
            let mut next: Vec<u8> = held_positions(faces)
                .iter()
                .map(|&p| faces[usize::from(p)])
                .collect();
            next.sort_unstable();
            let scale = pow6(5 - k);
            for (outcome, weight) in from_state(&next, shake + 1, max_shakes, memo) {
                *out.entry(outcome).or_default() += weight * scale;
            }
        }
    }
    memo.insert(key, out.clone());
    out
}

/// One PAR sheet per box, for a Nutz configuration.
pub fn par_sheets(config: &GameConfig) -> Result<Vec<ParSheet>, LabError> {
    let rules: &NutzRules = config.rules_of()?;
    if config.game != GameId::Nutz {
        return Err(LabError::NotNutz { game: config.game });
    }
    let all = outcomes(rules.max_shakes);
    let denominator = denominator(rules.max_shakes);
    let mut sheets = Vec::new();
    for bet in BetId::NUTZ_BOXES {
        let mut by_row: HashMap<NutzRow, u128> = HashMap::new();
        let mut losing = 0u128;
        for (&(hand, shake), &weight) in &all {
            match paying_row(bet, hand, shake).and_then(|r| row_for(&rules.paytable, r)) {
                Some(row) => *by_row.entry(row.hand).or_default() += weight,
                None => losing += weight,
            }
        }
        let mut rows: Vec<ParRow> = rules
            .paytable
            .iter()
            .filter_map(|row| {
                by_row.get(&row.hand).map(|&count| {
                    ParRow::single(
                        pitboss_engine::id_of(&row.hand),
                        count,
                        row.pay
                            .payout(pitboss_engine::money::Money(1))
                            .map_or(0, |m| u128::from(m.0)),
                    )
                })
            })
            .collect();
        rows.push(ParRow::single("loses", losing, 0));
        sheets.push(ParSheet {
            title: format!("nutz / {bet}"),
            bets: bet.to_string(),
            optimal_play: false,
            config_id: config.id().to_string(),
            rows,
            denominator,
            notes: vec![format!(
                "exact: every dice outcome over {} shakes, with the hold rule",
                rules.max_shakes
            )],
        });
    }
    Ok(sheets)
}
