//! The certification lab: exact theoretical returns (PAR sheets) computed from the engine's own
//! rules and configurations, and raw RNG output for statistical testing. It uses the engine and
//! never touches the ledger.
//!
//! Done so far: the Nutz boxes (exact, by a Markov chain over the hold rule), the Fortune bonus
//! (exact, over all C(53,7) hands), Mississippi Stud's optimal strategy and 3-card bonus (exact),
//! the Pai Gow main bet under the house way (simulated, with its confidence interval). To come: the
//! Caribbean Stud optimal strategy, simulation of whole hands through the engine's commands,
//! vendor transcripts, a Lab gRPC service.

pub mod fortune;
pub mod mississippi;
pub mod nutz;
pub mod pai_gow;
pub mod par;
pub mod rng_output;

pub use par::{ParRow, ParSheet};
