//! The service end to end over real gRPC on loopback, served in the test's process on the data
//! directory (or database) a `pitboss serve` would open (`Server::in_process`); a real `pitboss`
//! process only where the process is the point (killed mid-hand, a tampered directory it refuses).
//! One module per concern:
//!
//! - `play.rs`: every game played and replayed, a restart in the middle of a hand, many clients on
//!   one hand, the strategy's advice in the view, and `PlayHand` (a whole hand in one call);
//! - `audit.rs`: tampering named by the server and by verification, the event stream (catch-up
//!   then live), checkpoints and inclusion proofs;
//! - `operations.rs`: a table malfunction over a time range, and retries of operations answering
//!   the first result;
//! - `refusals.rs`: bad input on every write refused with the right code and nothing written, one
//!   test per RPC or group of RPCs (`OpenHand`, `Act`, `VoidHand`, `PublishConfig`, malfunctions
//!   and sweeps, `PlayHand`);
//! - `dispute.rs`: dispute packets of recorded hands rendered by headless Chromium;
//! - `metrics.rs`: the metrics endpoint scraped after a few hands;
//! - `rounds.rs`: a table's rounds — seats from one shuffle, one shake, a shared hand, voids;
//! - `round_beacon.rs`: rounds whose deal seed the players' seeds and a beacon round mix, the
//!   beacon fetched from a local source, a bad one meeting the late rule;
//! - `round_feeds.rs`: rounds in the returns (per table and per dealer), in recall (`ListRounds`)
//!   and in the export (the `places` table);
//! - `lab.rs`: the Lab service — PAR sheets, simulations, RNG words and shuffles, bad requests;
//! - `support.rs`: the helpers they share (clients, request builders, playing a hand to its end,
//!   replaying it, the log's head).

mod support;

mod advice;
mod audit;
mod dispute;
mod export;
mod lab;
mod metrics;
mod operations;
mod play;
mod refusals;
mod round_beacon;
mod round_feeds;
mod rounds;
