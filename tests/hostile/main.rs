//! Hostile input, one class per module: everything from outside — requests, and the
//! bytes of a data directory — is refused with a reason that names what and where, writes nothing
//! and takes nothing down. Each test drives the real binary, and ends by showing that the server
//! answers health, that refused input wrote nothing (the log's head unchanged) where it could have,
//! and that the log verifies.

mod support;

mod bounds;
mod bundles;
mod connections;
mod disk;
mod heavy;
mod keys;
mod request_ids;
