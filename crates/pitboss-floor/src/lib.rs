//! pitboss's domain: the engine and the ledger together, and what is judged of them.
//!
//! - [`access`]: principals, roles and scopes: who may call what.
//! - [`floor`]: hands, configurations, operations, proposals, recall, certifications; the only
//!   door to the log.
//! - [`audit`]: replay, proofs, bundles, dispute packets and the significant events, read from
//!   the log.
//! - [`returns`]: the floor's returns against the theoretical, and their signed statements.
//! - [`certification`]: a lab's certificate of a configuration as its page and its note.
//! - [`software`]: the executable that runs, hashed and authenticated.
//!
//! Knows no transport: no gRPC service, no HTTP, no listener (the server crate is the adapter).
//! Its values are the engine's and its own; the protobuf it names is the log's payload schema
//! (`pitboss_proto`), never an API request or answer.

use pitboss_proto::{codec, proto};

pub mod access;
pub mod audit;
pub mod certification;
pub mod floor;
pub mod lru;
pub mod priority;
pub mod returns;
pub mod software;
