//! Audit: replay of a hand from its recorded events, and the proof report a regulator reads. It
//! reads the log and never changes it.

pub mod replay;

pub use replay::{replay, EventCheck, Mismatch, ProofReport, ReplayError};
