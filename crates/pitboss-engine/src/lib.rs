//! The engine: cards, dice, the RNG derivation of `spec/RNG.md`, hand evaluation, the games' deal
//! layouts and paytables.
//!
//! Pure code only. The engine does no I/O, reads no clock, knows nothing of storage, protobuf or
//! async, and never draws its own randomness: a seed is handed to it. Given the same inputs it gives
//! the same outputs, byte for byte, forever; the live service and replay both run it.

pub mod card;
pub mod config;
pub mod deal;
pub mod dice;
pub mod facts;
pub mod field;
pub mod game;
pub mod games;
pub mod hand;
pub mod house_way;
pub mod ids;
pub mod mix;
pub mod money;
pub mod paytable;
pub mod rng;
mod roster;
pub mod round;
pub mod settlement;
pub use field::FieldPath;
pub use ids::id_of;
