//! The certification lab: exact theoretical returns (PAR sheets) computed from the engine's own
//! rules and configurations, and raw RNG output for statistical testing. It uses the engine and
//! never touches the ledger.
//!
//! Exact PAR sheets: the Nutz boxes (a Markov chain over the hold rule), the Fortune bonus (all
//! C(53,7) hands), Mississippi Stud's and Caribbean Stud's optimal strategies and bonuses; the Pai
//! Gow main bet under the house way by simulation with its confidence interval. Simulation of
//! whole hands through the engine's own commands (`simulate`), and vendor transcripts of hands and
//! of whole rounds checked against the engine's rules (`transcript`, `round_transcript`).

pub mod advice;
pub mod analysable;
mod analysed;
pub mod budget;
pub mod caribbean;
pub mod certificate;
pub mod deal_tests;
pub mod error;
pub mod fortune;
mod games;
pub mod mississippi;
pub mod nist;
pub mod nutz;
pub mod pai_gow;
pub mod par;
pub mod rng_battery;
pub mod rng_output;
pub mod round_transcript;
pub mod simulate;
pub mod strategy;
pub mod table;
pub mod transcript;
pub mod vendor_deals;

pub use error::LabError;

/// The lab's revision as what it computes: raised whenever a figure or a table it computes for the
/// same configuration — an exact sheet, a simulation's seed or rounds, a strategy's tables — or the
/// bytes tables are kept in ([`advice::StrategyTables::to_bytes`]) would change. Whatever keeps
/// the lab's results between runs keys them by it, with the configuration's id.
pub const REVISION: u32 = 1;
pub use par::{ParRow, ParSheet};

use pitboss_engine::config::GameConfig;

/// A long computation's progress, and whether whoever asked for it still wants it: the loops of
/// simulations check [`Run::stopped`] every few thousand hands and give up with
/// [`LabError::Stopped`] once it is set (a client gone, a deadline passed, the server stopping).
#[derive(Debug, Default)]
pub struct Run {
    /// Hands or rounds done so far (for a progress bar).
    pub done: std::sync::atomic::AtomicU64,
    stop: std::sync::atomic::AtomicBool,
    /// A second reason to stop, shared by many runs (the server shutting down).
    also: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// What a stopped computation answers: [`LabError::Stopped`]'s message (also the server's, for its
/// own long jobs that stop).
pub const STOPPED: &str = "stopped before the end: nobody waits for the result any more";

impl Run {
    /// A run that also stops when `also` is set.
    pub fn stopping_with(also: std::sync::Arc<std::sync::atomic::AtomicBool>) -> Run {
        Run {
            also: Some(also),
            ..Run::default()
        }
    }

    /// Asks the computation to stop.
    pub fn stop(&self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether it should stop.
    pub fn stopped(&self) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        self.stop.load(Relaxed) || self.also.as_ref().is_some_and(|a| a.load(Relaxed))
    }
}

/// How often (in hands or rounds) a simulation's loop looks at [`Run::stopped`].
const CHECK_EVERY: u64 = 4_096;

/// The threads the lab's computations use: the machine's cores, read once per process (the
/// standard library reads the cgroup files on every call: asked at every hand's opening, that
/// costs about a tenth of a busy server's CPU).
pub fn threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
}

/// Every exact PAR sheet of a configuration, on `threads` threads: Mississippi Stud's ante and
/// streets (optimal play) and bonus; Caribbean Stud's ante and raise (optimal play) and bonus; the
/// Fortune bonus; the seven Nutz boxes. (The Pai Gow main bet is simulated: [`pai_gow`].)
pub fn exact_par_sheets(config: &GameConfig, threads: usize) -> Result<Vec<ParSheet>, LabError> {
    analysable::check(config, threads)?;
    games::of(config.game).exact_par_sheets(config, threads)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_engine::game::GameId;
    use pitboss_engine::rng::Seed;

    /// A run asked to stop before it starts answers the `Stopped` variant, not a message to
    /// compare: the Pai Gow simulation and the simulation of whole hands alike.
    #[test]
    fn a_stopped_run_reports_the_stopped_variant() {
        let run = Run::default();
        run.stop();
        let config = GameConfig::default_for(GameId::FortunePaiGow);
        let seed = Seed::from_bytes([3; 32]);
        let stopped = pai_gow::simulate_main(&config, 10_000, &seed, 2, &run).unwrap_err();
        assert_eq!(stopped, LabError::Stopped);
        assert_eq!(stopped.to_string(), STOPPED);
        let request = simulate::Request {
            config: GameConfig::default_for(GameId::Nutz),
            hands: 10_000,
            strategy: simulate::Strategy::Optimal,
            seed,
            threads: 2,
        };
        assert!(matches!(
            simulate::run(&request, &run),
            Err(LabError::Stopped)
        ));
        // Stopped by the shared flag (the server stopping) as well as by its own.
        let also = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let shared = Run::stopping_with(also);
        assert!(matches!(
            simulate::run(&request, &shared),
            Err(LabError::Stopped)
        ));
        // Not stopped: the same request runs to the end.
        assert!(simulate::run(&request, &Run::default()).is_ok());
    }
}
