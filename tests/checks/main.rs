//! Independent checks: the lab's exact figures and the RNG against implementations nobody here
//! wrote, the engines' properties over random seeds and decisions, and vendor transcripts: one
//! module per concern.
//! Each module's own documentation says what it checks.

mod beacon;
mod lab;
mod nist;
mod properties;
mod rng;
mod transcripts;
