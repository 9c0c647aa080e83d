//! The certification lab: exact theoretical returns (PAR sheets) computed from the engine's own
//! rules and configurations, and raw RNG output for statistical testing. It uses the engine and
//! never touches the ledger.
//!
//! Done so far: the Nutz boxes (exact, by a Markov chain over the hold rule), the Fortune bonus
//! (exact, over all C(53,7) hands), Mississippi Stud's optimal strategy and 3-card bonus (exact).
//! To come: the Caribbean Stud optimal strategy, the Pai Gow main bet by simulation, simulation
//! through the engine, vendor transcripts.

pub mod fortune;
pub mod mississippi;
pub mod nutz;
pub mod par;
pub mod rng_output;

pub use par::{ParRow, ParSheet};
