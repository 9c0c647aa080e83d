//! The `pitboss` binary as processes on loopback — servers, mirrors, witnesses, replicas and the
//! CLI's commands — driven as their users drive them: one module per concern.
//! Each module's own documentation says what it checks.

mod access;
mod attestation;
mod certify;
mod cli_client;
mod cli_house_way;
mod failover;
mod mirror;
mod replica;
mod report;
mod returns;
mod serve;
mod servers;
mod transcripts_grpc;
mod witness;
