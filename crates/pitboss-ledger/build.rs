//! Compiles the ledger's own messages, `proto/pitboss/v1/ledger.proto` at the workspace's top (the
//! envelope, the stored entry, and the payloads the ledger writes of itself), with the pure-Rust
//! `protox`. The root crate compiles every file of `proto/` and takes these types from here, so
//! there is one Rust type per message.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let file = "../../proto/pitboss/v1/ledger.proto";
    let fds = protox::compile([file], ["../../proto"])?;
    prost_build::Config::new().compile_fds(fds)?;
    println!("cargo:rerun-if-changed={file}");
    Ok(())
}
