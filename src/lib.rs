//! pitboss: the trusted, auditable core of four casino table games.
//!
//! Read `ARCHITECTURE.md` first. The layers are crates of their own, so that the compiler keeps
//! each one inside its limits; this crate is the `pitboss` binary's command line (`cli/`, in the
//! binary) and, for the binary, the tests and the tools, one place that names the layers' modules:
//!
//! - `pitboss-engine`: cards, dice, the RNG derivation, hand evaluation, games: pure, no I/O.
//! - `pitboss-lab`: exact PAR sheets, strategies, simulation; the engine only.
//! - `pitboss-ledger`: the signed, hash-chained event log; knows no game.
//! - `pitboss-proto`: [`proto`] (the generated protobuf and gRPC types) and [`codec`] (engine
//!   events to and from their payloads).
//! - `pitboss-floor`: [`access`], [`floor`], [`audit`], [`returns`], [`certification`],
//!   [`software`]: the domain.
//! - `pitboss-server`: [`service`] (the gRPC transport and the side doors), [`witnessing`],
//!   [`mirroring`], [`tiling`].
//! - `pitboss-client`: [`client`], a channel that carries the bearer token.

pub use pitboss_client as client;
pub use pitboss_floor::{access, audit, certification, floor, returns, software};
pub use pitboss_proto::{codec, proto};
pub use pitboss_server::{beacons, mirroring, service, tiling, witnessing};
