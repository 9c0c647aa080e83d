//! Every request's limits, in one place: the longest string, the most entries of a repeated field
//! and the range of each number that each RPC accepts, with why, and the check each handler runs
//! on its request before any other work — before a lock, a cache or map entry, an allocation sized
//! by the request, or a read of the log — so that a refused request costs nothing and writes
//! nothing. A refusal is `INVALID_ARGUMENT` with a `BadRequest` field violation naming the field as
//! the client wrote it (`open.wagers[1].bet`, `decisions[3].low`) and saying the limit.
//!
//! Limits that depend on the log (a sequence or a tree size beyond it: `OUT_OF_RANGE`) are checked
//! by the handlers against the log's size with [`within_log`]; limits that depend on a
//! configuration (stakes, bet multiples) are the engine's.
//!
//! Also the transport's limits of each service (message sizes both ways, the deadline of a unary
//! call) and of each connection ([`Transport`]), and the server's pools. `docs/limits.md` is the
//! same table for clients.
//!
//! One file per job: the kinds of limit and their checks (`kinds.rs`), each field's limit
//! (`fields.rs`), each request's check (`bounded.rs`), and the transport's and the server's
//! resources (`transport.rs`).
//!
//! Must not: do the work of a request, or hold game rules.

mod bounded;
mod fields;
mod kinds;
mod transport;

pub use bounded::Bounded;
pub use fields::*;
pub use kinds::within_log;
pub use transport::*;
