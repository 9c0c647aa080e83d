//! Command-line parsing and dispatch. A command module reads its arguments, calls the library and
//! prints; it holds no logic that `engine`, `ledger` or `service` already has.

mod deal;
mod house_way;
mod serve;
mod vectors;

use clap::{Parser, Subcommand};

/// pitboss: the auditable core of four casino table games.
///
/// Deals from seeds, settles by versioned paytables and records every step in a signed,
/// hash-chained log that regulators can verify and replay.
#[derive(Debug, Parser)]
#[command(name = "pitboss", version, about, long_about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the gRPC service (health, reflection, Audit) on a local data directory.
    Serve(serve::ServeArgs),
    /// Re-derive one game's deal from a seed, as `docs/rng.md` describes, and print it as JSON.
    Deal(deal::DealArgs),
    /// Set seven Pai Gow cards by the house way and say which rule fired.
    HouseWay(house_way::HouseWayArgs),
    /// Print the RNG test vectors (the content of `fixtures/rng-vectors.json`) as JSON.
    RngVectors,
}

impl Cli {
    /// Runs the chosen command.
    pub fn run(self) -> anyhow::Result<()> {
        match self.command {
            Command::Serve(args) => serve::run(args),
            Command::Deal(args) => deal::run(args),
            Command::HouseWay(args) => house_way::run(args),
            Command::RngVectors => vectors::run(),
        }
    }
}
