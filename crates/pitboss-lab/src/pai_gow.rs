//! The Fortune Pai Gow main bet under the house way, by simulation: the player and the dealer both
//! set by the engine's house way and the bet is settled by the engine's `main_bet` rule and paid
//! as the engine pays it (`Pay::payout` of the smallest stake), over many rounds on all cores,
//! with the return's 95 % confidence interval. (The exact figure would need
//! every pair of disjoint seven-card hands: about 10^19 rounds.)

use sha2::{Digest, Sha256};

use pitboss_engine::card::{Card, Deck};
use pitboss_engine::config::{FortunePaiGowRules, GameConfig};
use pitboss_engine::games::main_bet;
use pitboss_engine::house_way::{house_way_unchecked, Edition};
use pitboss_engine::money::Money;
use pitboss_engine::paytable::Outcome;
use pitboss_engine::rng::Seed;

use super::error::LabError;

/// Totals of a simulation, the main bet staked at its smallest amount every round.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Simulation {
    pub rounds: u64,
    pub wins: u64,
    pub pushes: u64,
    pub losses: u64,
    /// Pushes by the dealer's 9-high rule.
    pub nine_high: u64,
    /// The stake of every round, in minor units (the configuration's `main.min`).
    pub stake: u64,
    /// Σ of what each round paid back, stake included where the row returns it, in minor units.
    pub returned: u128,
    /// Σ of its square, for the variance.
    pub returned_squares: u128,
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
        self.returned as f64 / (self.rounds as f64 * self.stake.max(1) as f64)
    }

    /// The standard deviation of one round's return per unit staked.
    pub fn standard_deviation(&self) -> f64 {
        let n = self.rounds.max(1) as f64;
        let stake = self.stake.max(1) as f64;
        let mean = self.return_rate();
        (self.returned_squares as f64 / (n * stake * stake) - mean * mean)
            .max(0.0)
            .sqrt()
    }

    /// The standard error of the return per unit staked.
    pub fn standard_error(&self) -> f64 {
        self.standard_deviation() / (self.rounds.max(1) as f64).sqrt()
    }

    /// The 95 % confidence interval of the return.
    pub fn interval(&self) -> (f64, f64) {
        let mean = self.return_rate();
        let half = 1.959_964 * self.standard_error();
        (mean - half, mean + half)
    }
}

fn round(
    rules: &FortunePaiGowRules,
    edition: Edition,
    deck: &[Card],
    out: &mut Simulation,
) -> Result<(), LabError> {
    let player: [Card; 7] = std::array::from_fn(|i| deck[i]);
    let dealer: [Card; 7] = std::array::from_fn(|i| deck[7 + i]);
    let p = house_way_unchecked(&player, edition).setting;
    let d = house_way_unchecked(&dealer, edition).setting;
    let (pay, rule) = main_bet(rules, &p, &d);
    let stake = Money(out.stake);
    let back = match pay {
        Some(pay) => {
            match pay.outcome() {
                Outcome::Win => out.wins += 1,
                Outcome::Push => {
                    out.pushes += 1;
                    out.nine_high += u64::from(rule == "dealer_nine_high");
                }
                Outcome::Lose => out.losses += 1,
            }
            pay.payout(stake)?.0
        }
        None => {
            out.losses += 1;
            0
        }
    };
    out.rounds += 1;
    out.returned += u128::from(back);
    out.returned_squares += u128::from(back) * u128::from(back);
    Ok(())
}

/// The streams a simulation is cut into, whatever the threads: the totals of a seed and a number
/// of rounds are the same on every machine.
pub const STREAMS: u64 = 64;

/// Simulates `rounds` rounds on `threads` threads. The rounds are cut into [`STREAMS`] streams of
/// the RNG.md derivation, stream `s` keyed by `SHA-256(seed ‖ s)` (`s` a big-endian u64) and
/// playing `rounds / 64` rounds, one more for the first `rounds % 64`; the threads share the
/// streams. So a run is reproducible from its seed and rounds alone. Stops early when `run` asks
/// ([`LabError::Stopped`]).
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
    let threads = (threads.clamp(1, 64) as u64).min(STREAMS);
    let stake = rules.main.min.0;
    let parts: Vec<Result<Simulation, LabError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mut out = Simulation {
                        stake,
                        ..Simulation::default()
                    };
                    let mut cards = [Card::JOKER; 53];
                    for s in (t..STREAMS).step_by(threads as usize) {
                        let mut key = Sha256::new();
                        key.update(seed.as_bytes());
                        key.update(s.to_be_bytes());
                        let mut stream = Seed::from_bytes(key.finalize().into()).stream();
                        let share = rounds / STREAMS + u64::from(s < rounds % STREAMS);
                        for n in 0..share {
                            if n % super::CHECK_EVERY == 0 && run.stopped() {
                                return Err(LabError::Stopped);
                            }
                            let deck = stream.shuffle_into(Deck::WithJoker53, &mut cards);
                            round(rules, edition, deck, &mut out)?;
                        }
                    }
                    Ok(out)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(Err(LabError::WorkerPanicked)))
            .collect()
    });
    let mut total = Simulation {
        stake,
        ..Simulation::default()
    };
    for part in parts {
        total.add(&part?);
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_engine::game::GameId;
    use pitboss_engine::paytable::Pay;

    fn fortune() -> GameConfig {
        GameConfig::default_for(GameId::FortunePaiGow)
    }

    /// A seed and a number of rounds give the same totals on one thread as on three or on
    /// sixty-four: what a certificate's command reproduces on another machine.
    #[test]
    fn the_totals_do_not_depend_on_the_threads() {
        let seed = Seed::from_bytes([7; 32]);
        let run = crate::Run::default();
        let one = simulate_main(&fortune(), 10_001, &seed, 1, &run).unwrap();
        assert_eq!(one.rounds, 10_001);
        assert_eq!(one.wins + one.pushes + one.losses, one.rounds);
        for threads in [2, 3, 64] {
            assert_eq!(
                simulate_main(&fortune(), 10_001, &seed, threads, &run).unwrap(),
                one
            );
        }
        assert_ne!(
            simulate_main(&fortune(), 10_001, &Seed::from_bytes([8; 32]), 2, &run).unwrap(),
            one
        );
    }

    /// A fixed-amount win is paid as the engine pays it, per unit of the smallest stake: a win of
    /// a fixed three stakes returns what an even-money win (two stakes back) returns plus one
    /// stake per win, on the same deals.
    #[test]
    fn a_fixed_amount_win_is_on_the_scale_of_the_stake() {
        let seed = Seed::from_bytes([7; 32]);
        let run = crate::Run::default();
        let even = simulate_main(&fortune(), 20_000, &seed, 2, &run).unwrap();
        let mut config = fortune();
        let pitboss_engine::config::Rules::FortunePaiGow(rules) = &mut config.rules else {
            unreachable!()
        };
        assert_eq!(rules.main_win, Pay::Odds(1));
        rules.main_win = Pay::Fixed(Money(rules.main.min.0 * 3));
        let fixed = simulate_main(&config, 20_000, &seed, 2, &run).unwrap();
        assert_eq!((fixed.wins, fixed.pushes), (even.wins, even.pushes));
        let extra = fixed.return_rate() - even.return_rate();
        assert!(
            (extra - even.wins as f64 / 20_000.0).abs() < 1e-12,
            "{extra}"
        );
    }
}
