//! The ledger and the floor in process, on a data directory or a database of their own: one module
//! per concern.
//! Each module's own documentation says what it checks.

mod configurations;
mod copy;
mod floor;
mod legacy;
mod log;
mod tiles;
