//! The Fortune bonus, exactly: every one of the C(53,7) = 154 143 080 seven-card hands classified
//! by the engine's Fortune classifier, on all cores (nested loops updating suit masks
//! incrementally; the outer card split over threads), then weighed by the configuration's
//! paytable.

use pitboss_engine::card::Card;
use pitboss_engine::config::{FortunePaiGowRules, GameConfig};
use pitboss_engine::games::view::PlayerView;
use pitboss_engine::games::{Action, Hand};
use pitboss_engine::hand::fortune::{classify_masks, FortuneCategory, SuitMasks};
use pitboss_engine::house_way::Edition;
use pitboss_engine::money::Money;
use pitboss_engine::paytable::row_for;
use pitboss_engine::settlement::{BetId, Wager};

use super::analysed::{wagers, Analysed, Tables};
use super::error::LabError;
use super::par::{ParRow, ParSheet};

/// Fortune Pai Gow Poker's analysis, as the lab's entry points reach it (the main bet is
/// simulated: [`crate::pai_gow`]).
pub(crate) struct Lab;

impl Analysed for Lab {
    fn refusal(&self, config: &GameConfig) -> Result<(), (String, LabError)> {
        let rules: &FortunePaiGowRules =
            config.rules_of().map_err(|e| (String::new(), e.into()))?;
        if Edition::from_name(&rules.house_way).is_none() {
            return Err((
                "house_way".to_string(),
                LabError::UnknownHouseWay(rules.house_way.clone()),
            ));
        }
        Ok(())
    }

    fn exact_par_sheets(
        &self,
        config: &GameConfig,
        threads: usize,
    ) -> Result<Vec<ParSheet>, LabError> {
        Ok(vec![par_sheet(config, threads)?])
    }

    fn reference_wagers(&self, config: &GameConfig) -> Result<Vec<Wager>, LabError> {
        let r: &FortunePaiGowRules = config.rules_of()?;
        Ok(wagers(&[
            (BetId::Main, r.main.min),
            (BetId::FortuneBonus, r.bonus.min),
        ]))
    }

    fn advise(
        &self,
        _hand: &Hand,
        view: &PlayerView,
        _tables: Option<&dyn Tables>,
    ) -> Result<Option<Action>, LabError> {
        // The house way's setting, which the engine puts in the player's view.
        Ok(view.suggested_low.map(|low| Action::SetHand { low }))
    }
}

/// C(53,7).
pub(crate) const HANDS: u64 = 154_143_080;

/// How many of the C(53,7) hands fall in each category (indexed by `FortuneCategory as usize`).
pub fn category_counts(threads: usize) -> [u64; 12] {
    let threads = threads.clamp(1, 64);
    let cards: Vec<Card> = (0..53).filter_map(Card::from_index).collect();
    let partials: Vec<[u64; 12]> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let cards = &cards;
                scope.spawn(move || {
                    let mut counts = [0u64; 12];
                    let mut m = SuitMasks::default();
                    for a in (t..47).step_by(threads) {
                        m.toggle(cards[a]);
                        for b in a + 1..48 {
                            m.toggle(cards[b]);
                            for c in b + 1..49 {
                                m.toggle(cards[c]);
                                for d in c + 1..50 {
                                    m.toggle(cards[d]);
                                    for e in d + 1..51 {
                                        m.toggle(cards[e]);
                                        for f in e + 1..52 {
                                            m.toggle(cards[f]);
                                            for &card in &cards[f + 1..] {
                                                m.toggle(card);
                                                counts[classify_masks(m) as usize] += 1;
                                                m.toggle(card);
                                            }
                                            m.toggle(cards[f]);
                                        }
                                        m.toggle(cards[e]);
                                    }
                                    m.toggle(cards[d]);
                                }
                                m.toggle(cards[c]);
                            }
                            m.toggle(cards[b]);
                        }
                        m.toggle(cards[a]);
                    }
                    counts
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or([0; 12]))
            .collect()
    });
    let mut total = [0u64; 12];
    for partial in partials {
        for (t, p) in total.iter_mut().zip(partial) {
            *t += p;
        }
    }
    total
}

/// The Fortune bonus PAR sheet of a Fortune Pai Gow configuration.
pub fn par_sheet(config: &GameConfig, threads: usize) -> Result<ParSheet, LabError> {
    let rules: &FortunePaiGowRules = config.rules_of()?;
    let counts = category_counts(threads);
    let rows = FortuneCategory::ALL
        .iter()
        .map(|&category| {
            ParRow::single(
                category.id(),
                u128::from(counts[category as usize]),
                row_for(&rules.bonus_paytable, category)
                    .and_then(|row| row.pay.payout(Money(1)).ok())
                    .map_or(0, |m| u128::from(m.0)),
            )
        })
        .collect();
    Ok(ParSheet {
        title: "fortune_pai_gow / fortune_bonus".into(),
        bets: "fortune_bonus".into(),
        optimal_play: false,
        config_id: config.id().to_string(),
        rows,
        denominator: u128::from(HANDS),
        notes: vec!["exact: every one of the C(53,7) hands, by its best paying category".into()],
    })
}
