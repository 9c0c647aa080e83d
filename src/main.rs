//! The `pitboss` binary: `serve` runs the gRPC service; the other commands are tools for people
//! (regulators, operators, labs). Each command lives in its own module under `src/cli/`.

mod cli;

use clap::Parser;

fn main() -> anyhow::Result<std::process::ExitCode> {
    cli::Cli::parse().run()
}
