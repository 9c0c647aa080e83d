//! Simulation through the real engine: whole hands opened, decided and settled by the engine's own
//! [`Hand::decide`]/[`Hand::evolve`] and settlement (not a separate model of the game), each from
//! its own seed, on all cores. The result per bet group: the return with its 95 % interval, how
//! often every row hit, and — where the lab has the exact PAR sheet for the strategy played — a
//! chi-square test of the row frequencies against it, with its p-value.
//!
//! Hand `i` of a run is dealt from `SHA-256("pitboss simulate" ‖ seed ‖ i)`, so a run is the same
//! whatever the number of threads. Money is summed in integer minor units; only the statistics are
//! floating point.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use sha2::{Digest, Sha256};

use pitboss_engine::config::{GameConfig, Identified};
use pitboss_engine::game::GameId;
use pitboss_engine::games::{Action, Command, Hand, OpenHand, Status, Timestamp};
use pitboss_engine::rng::Seed;
use pitboss_engine::settlement::{BetLine, Wager};

use super::advice::StrategyTables;
use super::error::LabError;
use super::par::ParSheet;

pub use crate::strategy::{supports, Strategy};

/// What a run is asked to do.
#[derive(Clone, Debug)]
pub struct Request {
    /// The configuration played.
    pub config: GameConfig,
    /// How many hands.
    pub hands: u64,
    /// The player's strategy.
    pub strategy: Strategy,
    /// The run's seed.
    pub seed: Seed,
    /// Worker threads.
    pub threads: usize,
}

/// One group of bets reported together ("main": the ante and what follows it; "bonus"; a Nutz box).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupTally {
    /// Hands counted.
    pub hands: u64,
    /// Σ wagered per hand, minor units.
    pub wagered: u128,
    /// Σ paid back per hand (stakes included), minor units.
    pub returned: u128,
    /// Σ of the squares of the per-hand wagers (for the interval).
    pub wagered_sq: u128,
    /// Σ of the squares of the per-hand returns.
    pub returned_sq: u128,
    /// Σ of wagered × returned per hand.
    pub cross: u128,
    /// Hits per row id.
    pub rows: BTreeMap<String, u64>,
    /// Per row id: Σ wagered and Σ wagered² of the hands that ended there (what an exact sheet's
    /// `wagered` and `wagered_sq` count, in minor units).
    pub row_wagers: BTreeMap<String, (u128, u128)>,
}

impl GroupTally {
    fn add(&mut self, wagered: u64, returned: u64, row: String) {
        let (w, r) = (u128::from(wagered), u128::from(returned));
        self.hands += 1;
        self.wagered += w;
        self.returned += r;
        self.wagered_sq += w * w;
        self.returned_sq += r * r;
        self.cross += w * r;
        let moments = self.row_wagers.entry(row.clone()).or_default();
        moments.0 += w;
        moments.1 += w * w;
        *self.rows.entry(row).or_default() += 1;
    }

    pub(crate) fn merge(&mut self, other: &GroupTally) {
        self.hands += other.hands;
        self.wagered += other.wagered;
        self.returned += other.returned;
        self.wagered_sq += other.wagered_sq;
        self.returned_sq += other.returned_sq;
        self.cross += other.cross;
        for (row, n) in &other.rows {
            *self.rows.entry(row.clone()).or_default() += n;
        }
        for (row, (w, w2)) in &other.row_wagers {
            let moments = self.row_wagers.entry(row.clone()).or_default();
            moments.0 += w;
            moments.1 += w2;
        }
    }

    /// Return per total wagered.
    pub fn return_rate(&self) -> f64 {
        self.returned as f64 / self.wagered as f64
    }

    /// The 95 % interval of the return per total wagered (a ratio of means: the delta method).
    pub fn interval(&self) -> (f64, f64) {
        self.interval_at(1.959_964)
    }

    /// The interval of the return per total wagered at `z` standard errors.
    pub fn interval_at(&self, z: f64) -> (f64, f64) {
        let rate = self.return_rate();
        let half = z * self.standard_error();
        (rate - half, rate + half)
    }

    /// The standard error of the return per total wagered (a ratio of means: the delta method).
    pub fn standard_error(&self) -> f64 {
        let n = self.hands as f64;
        let rate = self.return_rate();
        let mean_w = self.wagered as f64 / n;
        // Var(r − R·w) = E[r²] − 2R·E[rw] + R²·E[w²] − (E[r] − R·E[w])², the last term zero at R.
        let variance = (self.returned_sq as f64 - 2.0 * rate * self.cross as f64
            + rate * rate * self.wagered_sq as f64)
            / n;
        (variance.max(0.0) / n).sqrt() / mean_w
    }
}

/// The chi-square test of a group's row frequencies against an exact PAR sheet.
#[derive(Clone, Debug, PartialEq)]
pub struct ChiSquare {
    /// The statistic.
    pub statistic: f64,
    /// Degrees of freedom (bins − 1, after pooling bins expected fewer than 5 times).
    pub degrees_of_freedom: u32,
    /// P(χ² ≥ statistic) under the exact probabilities.
    pub p_value: f64,
    /// Rows the simulation hit that the exact sheet does not have (always a failure).
    pub unknown_rows: Vec<String>,
}

/// One group's report.
#[derive(Clone, Debug)]
pub struct GroupReport {
    /// "main", "bonus", or a Nutz box.
    pub name: String,
    /// The simulated totals.
    pub tally: GroupTally,
    /// The exact sheet held against it, when the strategy is the one the sheet assumes.
    pub exact: Option<ParSheet>,
    /// The test against it.
    pub chi_square: Option<ChiSquare>,
}

/// A whole run's report.
#[derive(Clone, Debug)]
pub struct Report {
    /// The game.
    pub game: GameId,
    /// Its configuration id.
    pub config_id: String,
    /// The strategy.
    pub strategy: Strategy,
    /// The run's seed.
    pub seed: Seed,
    /// Hands played.
    pub hands: u64,
    /// Per bet group.
    pub groups: Vec<GroupReport>,
    /// Wall-clock seconds of the hands themselves (not the strategy's tables nor the exact sheets).
    pub seconds: f64,
}

/// A decision maker for one game and strategy, shared by the threads.
pub(crate) enum Player {
    /// The lab's strategy, with the tables it needs built once.
    Optimal(StrategyTables),
    /// Never fold.
    Always,
}

impl Player {
    pub(crate) fn new(
        config: &GameConfig,
        strategy: Strategy,
        threads: usize,
    ) -> Result<Player, LabError> {
        if !supports(config.game, strategy) {
            return Err(LabError::UnsupportedStrategy {
                game: config.game,
                strategy,
            });
        }
        Ok(match strategy {
            Strategy::Always => Player::Always,
            Strategy::Optimal => Player::Optimal(StrategyTables::build(config, threads)?),
        })
    }

    pub(crate) fn choose(&self, hand: &Hand) -> Result<Action, LabError> {
        let legal = hand.legal_actions();
        let action = match self {
            Player::Optimal(tables) => tables.advisor().advise(hand)?.ok_or(LabError::NoAdvice)?,
            // The smallest bet (Mississippi Stud), else a raise (Caribbean Stud).
            Player::Always => legal
                .iter()
                .filter_map(|a| match a {
                    Action::Bet { multiple } => Some(*multiple),
                    _ => None,
                })
                .min()
                .map_or(Action::Raise, |multiple| Action::Bet { multiple }),
        };
        if legal.contains(&action) {
            Ok(action)
        } else {
            Err(LabError::IllegalChoice { action, legal })
        }
    }
}

/// The wagers every simulated hand places: the smallest stake of each bet the game has (all
/// seven Nutz boxes; the Caribbean bonus at its fixed stake).
pub(crate) fn reference_wagers(config: &GameConfig) -> Result<Vec<Wager>, LabError> {
    super::games::of(config.game).reference_wagers(config)
}

/// The row a group's first line ended in, named as the exact PAR sheet names it.
fn row_of(game: GameId, group: &str, hand: &Hand, line: &BetLine) -> String {
    super::games::of(game)
        .row_of(group, hand, line)
        .unwrap_or_else(|| line.rule.clone())
}

/// Hand `number` of a run from its seed to its settlement, through the engine's commands.
fn play(
    number: u64,
    seed: Seed,
    config: &Identified,
    wagers: &[Wager],
    player: &Player,
) -> Result<Hand, LabError> {
    let refused = |source| LabError::Rule {
        hand: number,
        source,
    };
    let mut hand = Hand::new(seed, config.clone());
    let mut command = Command::Open(OpenHand {
        table: "lab".into(),
        player: "simulation".into(),
        wagers: wagers.to_vec(),
        at: Timestamp(0),
        rebet_of: None,
    });
    loop {
        for event in hand.decide(&command).map_err(refused)? {
            hand = hand.evolve(&event).map_err(refused)?;
        }
        if hand.status() != Status::InProgress {
            return Ok(hand);
        }
        command = Command::Act {
            action: player.choose(&hand)?,
            at: Timestamp(0),
        };
    }
}

/// The seed of hand `i` of a run.
pub(crate) fn hand_seed(run: &Seed, i: u64) -> Seed {
    let mut h = Sha256::new();
    h.update(b"pitboss simulate");
    h.update(run.as_bytes());
    h.update(i.to_le_bytes());
    Seed::from_bytes(h.finalize().into())
}

/// Runs the simulation; `run` counts hands played as they finish (for a progress bar) and stops it
/// early when asked ([`LabError::Stopped`]).
pub fn run(request: &Request, run: &super::Run) -> Result<Report, LabError> {
    let config = Arc::new(request.config.clone());
    let game = config.game;
    let player = Player::new(&config, request.strategy, request.threads)?;
    let started = std::time::Instant::now();
    let wagers = reference_wagers(&config)?;
    let groups = game.facts().groups;
    // Its id is computed once, not for each hand.
    let identified = Identified::new(config.clone());
    let totals = spread(
        request,
        run,
        || vec![GroupTally::default(); groups.len()],
        |i, tallies| {
            let hand = play(
                i,
                hand_seed(&request.seed, i),
                &identified,
                &wagers,
                &player,
            )?;
            tally(game, &hand, tallies)?.ok_or(LabError::Unsettled { hand: i })
        },
        |total, part| {
            for (total, part) in total.iter_mut().zip(part) {
                total.merge(&part);
            }
        },
    )?;
    let seconds = started.elapsed().as_secs_f64();
    let sheets = exact_sheets(&config, request.strategy, request.threads)?;
    let reports = group_reports(game, totals, &sheets);
    Ok(Report {
        game,
        config_id: config.id().to_string(),
        strategy: request.strategy,
        seed: request.seed,
        hands: request.hands,
        groups: reports,
        seconds,
    })
}

/// Items `0..request.hands` (hands, or a table's rounds) spread over the request's threads: each
/// thread folds its share into an accumulator from `fresh` with `work`, and the accumulators are
/// merged in thread order. Stops early when the run is stopped; counts each item done.
pub(crate) fn spread<T: Send>(
    request: &Request,
    run: &super::Run,
    fresh: impl Fn() -> T + Sync,
    work: impl Fn(u64, &mut T) -> Result<(), LabError> + Sync,
    merge: impl Fn(&mut T, T),
) -> Result<T, LabError> {
    let threads = request.threads.max(1) as u64;
    let per_thread = request.hands.div_ceil(threads);
    let partials: Vec<Result<T, LabError>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let (fresh, work) = (&fresh, &work);
                scope.spawn(move || {
                    let mut acc = fresh();
                    let end = ((t + 1) * per_thread).min(request.hands);
                    for i in t * per_thread..end {
                        if i % super::CHECK_EVERY == 0 && run.stopped() {
                            return Err(LabError::Stopped);
                        }
                        work(i, &mut acc)?;
                        run.done.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(acc)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or(Err(LabError::WorkerPanicked)))
            .collect()
    });
    let mut total = fresh();
    for partial in partials {
        merge(&mut total, partial?);
    }
    Ok(total)
}

/// Adds a finished hand's settlement to its groups' tallies; `None` for a hand that did not settle.
pub(crate) fn tally(
    game: GameId,
    hand: &Hand,
    tallies: &mut [GroupTally],
) -> Result<Option<()>, LabError> {
    let Some(settlement) = hand.settlement() else {
        return Ok(None);
    };
    for (group, tally) in game.facts().groups.iter().zip(tallies.iter_mut()) {
        let lines: Vec<&BetLine> = settlement
            .lines
            .iter()
            .filter(|l| group.bets.contains(&l.bet))
            .collect();
        let Some(first) = lines.first() else {
            continue;
        };
        let wagered = lines.iter().map(|l| l.stake.0).sum();
        let returned = lines.iter().map(|l| l.payout.0).sum();
        tally.add(wagered, returned, row_of(game, group.name, hand, first));
    }
    Ok(Some(()))
}

/// Each group's report: its tally, the exact sheet held against it and the chi-square.
pub(crate) fn group_reports(
    game: GameId,
    totals: Vec<GroupTally>,
    sheets: &BTreeMap<String, ParSheet>,
) -> Vec<GroupReport> {
    game.facts()
        .groups
        .iter()
        .zip(totals)
        .map(|(group, tally)| {
            let exact = sheets.get(group.name).cloned();
            let chi_square = exact.as_ref().map(|sheet| chi_square(&tally, sheet));
            GroupReport {
                name: group.name.to_string(),
                tally,
                exact,
                chi_square,
            }
        })
        .collect()
}

/// The exact sheets the groups are held against, by group name: those that assume a strategy
/// only when that strategy is played (the Pai Gow main bet has no exact sheet).
pub(crate) fn exact_sheets(
    config: &GameConfig,
    strategy: Strategy,
    threads: usize,
) -> Result<BTreeMap<String, ParSheet>, LabError> {
    Ok(super::exact_par_sheets(config, threads)?
        .into_iter()
        .filter(|sheet| strategy == Strategy::Optimal || !sheet.optimal_play)
        .map(|sheet| (sheet.bets.clone(), sheet))
        .collect())
}

/// Pearson's chi-square of the simulated row counts against the sheet's exact probabilities;
/// bins expected fewer than 5 times are pooled (and a pool still under 5 joins the smallest bin).
pub fn chi_square(tally: &GroupTally, sheet: &ParSheet) -> ChiSquare {
    let n = tally.hands as f64;
    let unknown_rows: Vec<String> = tally
        .rows
        .keys()
        .filter(|row| sheet.row(row).is_none())
        .cloned()
        .collect();
    let mut bins: Vec<(f64, f64)> = Vec::new();
    let mut pool = (0.0, 0.0);
    for row in &sheet.rows {
        let expected = n * row.count as f64 / sheet.denominator as f64;
        let observed = tally.rows.get(&row.row).copied().unwrap_or(0) as f64;
        if expected < 5.0 {
            pool.0 += observed;
            pool.1 += expected;
        } else {
            bins.push((observed, expected));
        }
    }
    if pool.1 > 0.0 || pool.0 > 0.0 {
        if pool.1 >= 5.0 || bins.is_empty() {
            bins.push(pool);
        } else if let Some(smallest) = bins
            .iter_mut()
            .min_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal))
        {
            smallest.0 += pool.0;
            smallest.1 += pool.1;
        }
    }
    let statistic: f64 = bins
        .iter()
        .map(|&(o, e)| {
            if e > 0.0 {
                (o - e) * (o - e) / e
            } else {
                f64::INFINITY
            }
        })
        .sum();
    let degrees_of_freedom = bins.len().saturating_sub(1) as u32;
    let p_value = if unknown_rows.is_empty() {
        chi_square_survival(statistic, degrees_of_freedom)
    } else {
        0.0
    };
    ChiSquare {
        statistic,
        degrees_of_freedom,
        p_value,
        unknown_rows,
    }
}

/// P(χ²_k ≥ x): the chi-squared distribution's survival function, by `statrs` (its regularized
/// upper incomplete gamma function Q(k/2, x/2)). No degree of freedom: certain below any positive
/// statistic; a statistic that is not finite: 0.
pub(crate) fn chi_square_survival(x: f64, k: u32) -> f64 {
    use statrs::distribution::{ChiSquared, ContinuousCDF};
    if k == 0 {
        return if x > 0.0 { 0.0 } else { 1.0 };
    }
    if !x.is_finite() {
        return 0.0;
    }
    ChiSquared::new(f64::from(k)).map_or(0.0, |chi| chi.sf(x).clamp(0.0, 1.0))
}

impl GroupReport {
    /// As JSON (money sums as exact strings).
    pub fn json(&self) -> serde_json::Value {
        use serde_json::json;
        let g = self;
        let (low, high) = g.tally.interval();
        json!({
            "name": g.name,
            "wagered_minor": g.tally.wagered.to_string(),
            "returned_minor": g.tally.returned.to_string(),
            "return": g.tally.return_rate(),
            "interval_95": [low, high],
            "exact_return": g.exact.as_ref().map(ParSheet::return_rate),
            "rows": g.rows().into_iter().map(|(row, hits, frequency, exact)| json!({
                "row": row, "hits": hits, "frequency": frequency, "exact_probability": exact,
            })).collect::<Vec<_>>(),
            "chi_square": g.chi_square.as_ref().map(|c| json!({
                "statistic": c.statistic,
                "degrees_of_freedom": c.degrees_of_freedom,
                "p_value": c.p_value,
                "unknown_rows": c.unknown_rows,
            })),
        })
    }
    /// The group's return, interval, exact figure, rows and chi-square, as Markdown (under a
    /// heading the caller writes).
    pub fn markdown(&self) -> String {
        let g = self;
        let (low, high) = g.tally.interval();
        let mut out = format!(
            "return **{:.4} %** of the total wagered, 95 % interval {:.4} – {:.4} %",
            g.tally.return_rate() * 100.0,
            low * 100.0,
            high * 100.0
        );
        if let Some(exact) = &g.exact {
            let inside = (low..=high).contains(&exact.return_rate());
            out += &format!(
                "; exact {:.4} % ({})",
                exact.return_rate() * 100.0,
                if inside { "inside" } else { "OUTSIDE" }
            );
        }
        out += "\n\n| row | hits | frequency | exact |\n| --- | ---: | ---: | ---: |\n";
        for (row, hits, frequency, exact) in g.rows() {
            out += &format!(
                "| {row} | {hits} | {frequency:.8} | {} |\n",
                exact.map_or("–".to_string(), |p| format!("{p:.8}"))
            );
        }
        match &g.chi_square {
            Some(c) => {
                out += &format!(
                    "\nchi-square {:.2} on {} degrees of freedom: p = {:.4}",
                    c.statistic, c.degrees_of_freedom, c.p_value
                );
                if !c.unknown_rows.is_empty() {
                    out += &format!(
                        " — rows the exact sheet does not have: {}",
                        c.unknown_rows.join(", ")
                    );
                }
                out += "\n";
            }
            None => out += "\nno exact sheet for this strategy: no chi-square\n",
        }
        out
    }
    /// Every row seen or expected: (row, hits, simulated frequency, exact probability if known).
    pub fn rows(&self) -> Vec<(String, u64, f64, Option<f64>)> {
        let n = self.tally.hands.max(1) as f64;
        let mut ids: Vec<String> = self
            .exact
            .iter()
            .flat_map(|s| s.rows.iter().map(|r| r.row.clone()))
            .collect();
        for row in self.tally.rows.keys() {
            if !ids.contains(row) {
                ids.push(row.clone());
            }
        }
        ids.into_iter()
            .map(|id| {
                let hits = self.tally.rows.get(&id).copied().unwrap_or(0);
                let exact = self
                    .exact
                    .as_ref()
                    .and_then(|s| s.row(&id).map(|r| r.count as f64 / s.denominator as f64));
                (id, hits, hits as f64 / n, exact)
            })
            .collect()
    }
}

impl Report {
    /// Hands per second.
    pub fn rate(&self) -> f64 {
        self.hands as f64 / self.seconds.max(1e-9)
    }

    /// As JSON (money sums as exact strings).
    pub fn json(&self) -> serde_json::Value {
        use serde_json::json;
        json!({
            "game": self.game.to_string(),
            "config_id": self.config_id,
            "strategy": self.strategy.to_string(),
            "seed": self.seed.to_hex(),
            "hands": self.hands,
            "seconds": self.seconds,
            "hands_per_second": self.rate(),
            "groups": self.groups.iter().map(GroupReport::json).collect::<Vec<_>>(),
        })
    }

    /// As Markdown.
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "# {} simulated, strategy {}: {} hands in {:.1} s ({:.0} hands/s)\n\nconfiguration `{}`, seed `{}`\n",
            self.game,
            self.strategy,
            self.hands,
            self.seconds,
            self.rate(),
            self.config_id,
            self.seed.to_hex()
        );
        for g in &self.groups {
            out += &format!("\n## {}\n\n", g.name);
            out += &g.markdown();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chi_square_survival_matches_known_quantiles() {
        // Table values: P(χ²_1 ≥ 3.841) = 0.05, P(χ²_10 ≥ 18.307) = 0.05, P(χ²_2 ≥ x) = e^(−x/2).
        assert!((chi_square_survival(3.841_459, 1) - 0.05).abs() < 1e-6);
        assert!((chi_square_survival(18.307_04, 10) - 0.05).abs() < 1e-6);
        assert!((chi_square_survival(23.209_25, 10) - 0.01).abs() < 1e-6);
        for x in [0.1, 1.0, 5.0, 30.0] {
            assert!((chi_square_survival(x, 2) - (-x / 2.0f64).exp()).abs() < 1e-12);
        }
        assert_eq!(chi_square_survival(f64::INFINITY, 4), 0.0);
    }
}
