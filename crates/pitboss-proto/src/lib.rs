//! pitboss's protobuf: what the log's entries carry and what its gRPC API speaks.
//!
//! - [`proto`]: the messages and service stubs generated from `proto/pitboss/v1/*.proto` (the
//!   ledger's own messages are the ledger crate's), and the file descriptor set reflection
//!   publishes.
//! - [`codec`]: engine events to and from their protobuf payloads, losslessly.
//! - [`methods`]: every RPC's gRPC path as a constant generated from the descriptor
//!   (`methods::play::OPEN_HAND`), for whatever names a method (access, limits, metrics).
//!
//! Knows no storage and no transport beyond the generated stubs; decides no game rule.

pub mod codec;
pub mod proto;

/// Every RPC's gRPC path, generated from the descriptor by `build.rs`: one module per service, one
/// constant per method, and [`methods::ALL`].
pub mod methods {
    include!(concat!(env!("OUT_DIR"), "/methods.rs"));
}
