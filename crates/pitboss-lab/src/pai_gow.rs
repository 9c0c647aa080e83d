//! The Fortune Pai Gow main bet under the house way, by simulation: the player and the dealer both
//! set by the engine's house way and the bet is settled by the engine's `main_bet` rule, over many
//! rounds on all cores, with the return's 95 % confidence interval. (The exact figure would need
//! every pair of disjoint seven-card hands: about 10^19 rounds.)

use sha2::{Digest, Sha256};

use pitboss_engine::card::{Card, Deck};
use pitboss_engine::config::{FortunePaiGowRules, GameConfig};
use pitboss_engine::games::pai_gow::main_bet;
use pitboss_engine::house_way::{house_way_unchecked, Edition};
use pitboss_engine::paytable::Pay;
use pitboss_engine::rng::Seed;

use super::error::LabError;

/// Totals of a simulation, in units of the main bet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Simulation {
    pub rounds: u64,
    pub wins: u64,
    pub pushes: u64,
    pub losses: u64,
    /// Pushes by the dealer's 9-high rule.
    pub nine_high: u64,
    /// Σ of what each round paid back per unit staked (2 for a win at 1 to 1, 1 for a push).
    pub returned: u64,
    /// Σ of its square, for the variance.
    pub returned_squares: u64,
}

impl Simulation {
    fn add(&mut self, other: &Simulation) {
        self.rounds += other.rounds;
        self.wins += other.wins;
        self.pushes += other.pushes;
        self.losses += other.losses;
        self.nine_high += other.nine_high;
        self.returned += other.returned;
        self.returned_squares += other.returned_squares;
    }

    /// The mean return per unit staked.
    pub fn return_rate(&self) -> f64 {
        self.returned as f64 / self.rounds as f64
    }

    /// The 95 % confidence interval of the return.
    pub fn interval(&self) -> (f64, f64) {
        let mean = self.return_rate();
        let half = 1.959_964 * self.standard_error();
        (mean - half, mean + half)
    }

    /// The standard error of the return (per unit staked).
    pub fn standard_error(&self) -> f64 {
        let n = self.rounds as f64;
        let mean = self.return_rate();
        let variance = (self.returned_squares as f64 / n - mean * mean).max(0.0);
        (variance / n).sqrt()
    }
}

fn round(rules: &FortunePaiGowRules, edition: Edition, deck: &[Card], out: &mut Simulation) {
    let player: [Card; 7] = std::array::from_fn(|i| deck[i]);
    let dealer: [Card; 7] = std::array::from_fn(|i| deck[7 + i]);
    let p = house_way_unchecked(&player, edition).setting;
    let d = house_way_unchecked(&dealer, edition).setting;
    let (pay, rule) = main_bet(rules, &p, &d);
    let back = match pay {
        Some(Pay::Odds(x)) => {
            out.wins += 1;
            u64::from(x) + 1
        }
        Some(Pay::Push) => {
            out.pushes += 1;
            out.nine_high += u64::from(rule == "dealer_nine_high");
            1
        }
        Some(Pay::Fixed(m)) => m.0,
        None => {
            out.losses += 1;
            0
        }
    };
    out.rounds += 1;
    out.returned += back;
    out.returned_squares += back * back;
}

/// Simulates `rounds` rounds on `threads` threads. Each thread shuffles with its own stream of the
/// RNG.md derivation, keyed by `SHA-256(seed ‖ thread)`, so a run is reproducible. Stops early
/// when `run` asks ([`LabError::Stopped`]).
pub fn simulate_main(
    config: &GameConfig,
    rounds: u64,
    seed: &Seed,
    threads: usize,
    run: &super::Run,
) -> Result<Simulation, LabError> {
    let rules: &FortunePaiGowRules = config.rules_of()?;
    let edition = Edition::from_name(&rules.house_way)
        .ok_or_else(|| LabError::UnknownHouseWay(rules.house_way.clone()))?;
    let threads = threads.clamp(1, 64) as u64;
    let parts: Vec<Option<Simulation>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mut key = Sha256::new();
                    key.update(seed.as_bytes());
                    key.update(t.to_be_bytes());
                    let mut stream = Seed::from_bytes(key.finalize().into()).stream();
                    let mut out = Simulation::default();
                    let mut cards = [Card::JOKER; 53];
                    let share = rounds / threads + u64::from(t < rounds % threads);
                    for n in 0..share {
                        if n % super::CHECK_EVERY == 0 && run.stopped() {
                            return None;
                        }
                        let deck = stream.shuffle_into(Deck::WithJoker53, &mut cards);
                        round(rules, edition, deck, &mut out);
                    }
                    Some(out)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut total = Simulation::default();
    for part in &parts {
        total.add(part.as_ref().ok_or(LabError::Stopped)?);
    }
    Ok(total)
}
