//! pitboss's server: the adapter between its clients and the floor.
//!
//! - [`service`]: the gRPC services (authenticate, translate, delegate), their limits, the guard,
//!   the listeners' connections, the side doors (metrics, tiles, a witness), the preparation
//!   before serving.
//! - [`beacons`]: the beacon rounds that mix rounds' deal seeds, fetched, verified and handed to
//!   the rounds that await them.
//! - [`witnessing`]: the log's side of C2SP witnessing; [`tiling`]: the log as C2SP tiles;
//!   [`mirroring`]: a regulator's mirror following another server's log.
//!
//! Holds no game rule and no log format: what a call means is the floor's
//! (`pitboss_floor`), how it is stored the ledger's.

use pitboss_floor::{access, audit, certification, floor, lru, priority, returns, software};
use pitboss_proto::{codec, proto};

pub mod beacons;
pub mod mirroring;
mod plain_http;
pub mod service;
pub mod tiling;
pub mod witnessing;
