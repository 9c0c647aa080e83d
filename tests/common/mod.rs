//! What the root crate's integration tests share: starting the real server (`server.rs`), the list
//! of every RPC (`rpcs.rs`), and the currency conversions of the engine's test support
//! (`crates/pitboss-engine/tests/common/currency.rs`, shared rather than copied).

#![allow(dead_code)]

#[path = "../../crates/pitboss-engine/tests/common/currency.rs"]
pub mod currency;
pub mod load;
pub mod postgres;
pub mod rpcs;
pub mod server;
