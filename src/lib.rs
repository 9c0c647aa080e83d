//! pitboss: the trusted, auditable core of four casino table games.
//!
//! Read `ARCHITECTURE.md` first. This crate is the server and its tools; the layers under it are
//! crates of their own, so that the compiler keeps each one inside its limits:
//!
//! - `pitboss-engine`: cards, dice, the RNG derivation, hand evaluation, games: pure, no I/O.
//! - `pitboss-lab`: exact PAR sheets, strategies, simulation; the engine only.
//! - `pitboss-ledger`: the signed, hash-chained event log in RocksDB; knows no game.
//!
//! Here, each depending only on those listed before it:
//!
//! - [`proto`]: the generated protobuf and gRPC types of `proto/pitboss/v1`.
//! - [`codec`]: engine events to and from their protobuf payloads.
//! - [`access`]: principals, roles and scopes: who may call what.
//! - [`floor`]: the engine and the ledger together: hands, configurations, operations, recall.
//! - [`audit`]: replay, proofs and bundles read from the log.
//! - [`service`]: the gRPC transport: authenticates, translates requests and delegates.
//! - [`witnessing`]: the log's side of C2SP witnessing; [`tiling`]: the log as C2SP tiles;
//!   [`mirroring`]: a regulator's mirror following another server's log; [`software`]: the
//!   executable that runs, hashed and authenticated.
//! - [`certification`]: a lab's certificate of a configuration as its page.

pub mod access;
pub mod audit;
pub mod certification;
pub mod codec;
pub mod floor;
mod lru;
pub mod mirroring;
mod priority;
pub mod proto;
pub mod returns;
pub mod service;
pub mod software;
pub mod tiling;
pub mod witnessing;
