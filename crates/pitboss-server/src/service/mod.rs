//! The gRPC transport: each handler checks and translates its request, delegates to the engine or
//! the ledger, and translates the answer back. No game or ledger logic lives here.
//!
//! Errors are `tonic::Status` values with `google.rpc` details naming the offending field.

pub mod advice;
pub mod audit;
mod auth;
mod bit_stream;

mod connections;
mod convert;
mod export;
mod exposition;
pub mod guard;
mod http;
pub mod lab;
mod limits;
mod metrics;
mod metrics_http;
pub mod operations;
pub mod play;
mod returns;
mod rounds;
mod scope;
mod server;
mod status;
mod tiles_http;
pub mod tls;
mod transcripts;
mod transport;
pub mod warm;
mod witness_http;
pub mod work;

pub use connections::{listen, Deadlines};
/// The protobuf `Game` of an engine game, for the clients that fill requests.
pub use convert::game_to_proto;
pub use server::{serve, MirrorServing, ServeError, ServerLimits, Serving, TilesServing};
pub use transport::Peer;
pub use witness_http::{serve_witness, Gate};
