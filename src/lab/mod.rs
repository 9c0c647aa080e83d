//! The certification lab: exact theoretical returns (PAR sheets) computed from the engine's own
//! rules and configurations, and raw RNG output for statistical testing. It uses the engine and
//! never touches the ledger.
//!
//! Exact PAR sheets: the Nutz boxes (a Markov chain over the hold rule), the Fortune bonus (all
//! C(53,7) hands), Mississippi Stud's and Caribbean Stud's optimal strategies and bonuses; the Pai
//! Gow main bet under the house way by simulation with its confidence interval. Simulation of
//! whole hands through the engine's own commands (`simulate`), and vendor transcripts checked
//! against the engine's rules (`transcript`).

pub mod advice;
pub mod caribbean;
pub mod fortune;
pub mod mississippi;
pub mod nutz;
pub mod pai_gow;
pub mod par;
pub mod rng_output;
pub mod simulate;
pub mod transcript;

pub use par::{ParRow, ParSheet};

use crate::engine::config::GameConfig;
use crate::engine::game::GameId;

/// Every exact PAR sheet of a configuration, on `threads` threads: Mississippi Stud's ante and
/// streets (optimal play) and bonus; Caribbean Stud's ante and raise (optimal play) and bonus; the
/// Fortune bonus; the seven Nutz boxes. (The Pai Gow main bet is simulated: [`pai_gow`].)
pub fn exact_par_sheets(config: &GameConfig, threads: usize) -> Result<Vec<ParSheet>, String> {
    match config.game {
        GameId::MississippiStud => Ok(vec![
            mississippi::main_sheet(config)?,
            mississippi::bonus_sheet(config)?,
        ]),
        GameId::CaribbeanStud => caribbean::par_sheets(config, threads),
        GameId::FortunePaiGow => Ok(vec![fortune::par_sheet(config, threads)?]),
        GameId::Nutz => nutz::par_sheets(config),
    }
}
