//! The ledger's protobuf messages: the envelope and stored entry it hashes and signs, and the
//! payloads it writes of itself (keys, rotations, repairs), generated from
//! `proto/pitboss/v1/ledger.proto`.
//!
//! Every other payload is opaque bytes here: the ledger stores what it is given and must not
//! decode a game's events.

#![allow(
    missing_docs,
    clippy::all,
    rustdoc::invalid_html_tags,
    rustdoc::bare_urls
)]

include!(concat!(env!("OUT_DIR"), "/pitboss.v1.rs"));

/// The ledger's view of a `pitboss.v1.Payload` (`events.proto`): the kinds it writes itself, with
/// their field numbers there. Encoding one gives the same bytes as the full `Payload` with that
/// kind; decoding a payload of any other kind gives `kind: None`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct LedgerPayload {
    /// The ledger's own kind, if the payload is one.
    #[prost(oneof = "LedgerKind", tags = "10, 11, 14")]
    pub kind: Option<LedgerKind>,
}

/// The payload kinds the ledger writes (`pitboss.v1.Payload.kind` 10, 11 and 14).
#[derive(Clone, PartialEq, ::prost::Oneof)]
pub enum LedgerKind {
    /// The log's first signing key (`key/<id>`, the first entry of an empty log).
    #[prost(message, tag = "10")]
    KeyPublished(KeyPublished),
    /// A rotation to a new signing key.
    #[prost(message, tag = "11")]
    KeyRotated(KeyRotated),
    /// A recorded repair of a damaged data directory.
    #[prost(message, tag = "14")]
    LogRecovered(LogRecovered),
}
