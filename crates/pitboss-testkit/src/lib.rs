//! What pitboss's tests share, in one crate instead of files included by path into each suite.
//!
//! Always: [`mod@reference`] (combinations and plain reference rankers the fast evaluators are
//! checked against), [`currency`] (a configuration moved to another currency) and
//! [`fixture_hands`] (the scripted hands of `fixtures/hands/` played through the engine), and
//! [`python()`] (the interpreter with the outside clients). With the `server` feature, for the
//! server's suites: `server` (a real `pitboss serve`), `postgres` (a private cluster), `load`
//! (clients playing against servers), `rpcs` (every RPC, from the descriptor), `refusal` (a
//! refusal's typed details), `binary()` (the `pitboss` binary cargo built), `witness` (a real
//! `pitboss witness`), `mirror` (a real `pitboss mirror`), `http` (plain HTTP/1.1 to the side doors) and `tiles` (a log's tiles read
//! as an outside client reads them, by the `tlog_tiles` and `signed_note` crates).
//!
//! It must stay a dev-dependency: nothing here is part of the product, and nothing here may
//! assert what a test should assert itself (helpers return values; the tests judge them).

#[cfg(feature = "server")]
pub mod beacon;
pub mod currency;
pub mod fixture_hands;
pub mod reference;

#[cfg(feature = "server")]
pub mod clients;
#[cfg(feature = "server")]
pub mod forge;
#[cfg(feature = "server")]
pub mod http;
#[cfg(feature = "server")]
mod in_process;
#[cfg(feature = "server")]
pub mod load;
#[cfg(feature = "server")]
pub mod mirror;
#[cfg(feature = "server")]
pub mod postgres;
#[cfg(feature = "server")]
pub mod refusal;
#[cfg(feature = "server")]
pub mod rpcs;
#[cfg(feature = "server")]
pub mod server;
#[cfg(feature = "server")]
pub mod tiles;
#[cfg(feature = "server")]
pub mod witness;

use std::path::{Path, PathBuf};

/// The workspace's root directory (where `fixtures/`, `proto/` and `.venv/` are).
pub fn root() -> &'static Path {
    // This crate is crates/pitboss-testkit.
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The `pitboss` binary cargo built for the running test: beside the test's own executable
/// (`target/<profile>/deps/<test>` → `target/<profile>/pitboss`), as cargo lays them out.
#[cfg(feature = "server")]
pub fn binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("a test runs from target/<profile>/deps");
    let binary = dir.join(format!("pitboss{}", std::env::consts::EXE_SUFFIX));
    assert!(
        binary.exists(),
        "no pitboss binary at {}: the root crate's integration tests build it",
        binary.display()
    );
    binary
}

/// The Python interpreter with grpcio, pyarrow, duckdb, prometheus_client, nistrng and py_ecc:
/// `PITBOSS_PYTHON`, else the venv `scripts/test` makes.
pub fn python() -> PathBuf {
    let path = std::env::var_os("PITBOSS_PYTHON")
        .map_or_else(|| root().join(".venv/bin/python3"), PathBuf::from);
    assert!(
        path.exists(),
        "no Python with the test clients at {}: run scripts/test (it makes .venv), or set \
         PITBOSS_PYTHON",
        path.display()
    );
    path
}
