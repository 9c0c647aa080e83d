//! pitboss's protobuf: what the log's entries carry and what its gRPC API speaks.
//!
//! - [`proto`]: the messages and service stubs generated from `proto/pitboss/v1/*.proto` (the
//!   ledger's own messages are the ledger crate's), and the file descriptor set reflection
//!   publishes.
//! - [`codec`]: engine events to and from their protobuf payloads, losslessly.
//!
//! Knows no storage and no transport beyond the generated stubs; decides no game rule.

pub mod codec;
pub mod proto;
