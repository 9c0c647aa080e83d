//! Audit: replay of a hand from its recorded events, and the proof report a regulator reads; offline
//! bundles of one hand's evidence, checked with nothing but the log's public key. It reads the log
//! and never changes it. A table's round is replayed by `round_replay`.

pub mod bundle;
pub mod deal_inputs;
pub mod dispute;
pub mod replay;
pub mod round_dispute;
pub mod round_replay;
pub mod significant;
pub mod tlog_proofs;

pub use replay::{replay, EventCheck, Mismatch, ProofReport, ReplayError};
