//! pitboss: the trusted, auditable core of four casino table games.
//!
//! Read `ARCHITECTURE.md` first. The layers, each depending only on those listed before it:
//!
//! - [`engine`]: cards, dice, the RNG derivation, hand evaluation, games: pure, no I/O.
//! - [`proto`]: the generated protobuf and gRPC types of `proto/pitboss/v1`.
//! - [`codec`]: engine events to and from their protobuf payloads.
//! - [`ledger`]: the durable store (RocksDB); later the signed, hash-chained event log.
//! - [`access`]: principals, roles and scopes: who may call what.
//! - [`service`]: the gRPC transport: authenticates, translates requests and delegates.

pub mod access;
pub mod audit;
pub mod codec;
pub mod engine;
pub mod floor;
pub mod lab;
pub mod ledger;
mod lru;
pub mod proto;
pub mod service;
