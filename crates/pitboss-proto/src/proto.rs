//! The protobuf messages and gRPC service stubs generated from `proto/pitboss/v1/*.proto` by
//! `build.rs`, and the encoded file descriptor set that server reflection publishes.
//!
//! Generated code only; conversions to and from engine types live with their users.

#![allow(
    missing_docs,
    clippy::all,
    clippy::pedantic,
    rustdoc::invalid_html_tags,
    rustdoc::bare_urls
)]

tonic::include_proto!("pitboss.v1");

// The messages of `ledger.proto` are generated in the ledger crate (`build.rs`: one Rust type each).
pub use pitboss_ledger::proto::{Envelope, KeyPublished, KeyRotated, LogRecovered, StoredEntry};

/// The encoded `FileDescriptorSet` of every `pitboss.v1` proto file, for gRPC server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/pitboss_descriptor.bin"));
