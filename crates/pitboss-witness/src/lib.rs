//! A witness of transparency logs, as C2SP specifies one (`tlog-witness`, `tlog-cosignature`,
//! `signed-note`, `tlog-checkpoint`): a party outside the log's operator that cosigns a checkpoint
//! only when it is consistent with every checkpoint of that log it cosigned before. A log that
//! rewrote history, or showed two different trees of one size, cannot get the witness's
//! cosignature on both; what it tried is kept as evidence.
//!
//! This crate owns the protocol and the witness's state: reading an `add-checkpoint` request
//! ([`request`]), signed notes and verifier keys ([`note`]), checkpoints ([`checkpoint`]), the
//! Ed25519 `cosignature/v1` ([`cosignature`]), the decision ([`Witness::add_checkpoint`]) and the
//! state on disk ([`state`]: the latest cosigned checkpoint of each log, replaced atomically and
//! synced before an answer; refused submissions kept, bounded). It MUST NOT do network I/O, read a
//! clock or know a game: the binary serves it over HTTP and hands it the time.
//!
//! Contract (tlog-witness): a checkpoint is cosigned only if its log is known, one of its
//! signatures is the log's key's and verifies, the old size the client names is the size this
//! witness last cosigned for the log, and the consistency proof from that size (root) to the new
//! one verifies; the new state is on disk before the cosignature leaves. The check and the update
//! are one step under one lock, so no two requests can roll a log's state back.

pub mod checkpoint;
pub mod cosignature;
pub mod cosigned;
pub mod cosigner;
pub mod evidence;
pub mod log_list;
pub mod note;
pub mod policy;
pub mod proof;
pub mod refusal;
pub mod request;
pub mod state;
pub mod subtree;
mod witness;

pub use refusal::{Inconsistency, Refused};
pub use witness::{Witness, WitnessError};
