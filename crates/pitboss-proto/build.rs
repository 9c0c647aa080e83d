//! Compiles `proto/pitboss/v1/*.proto` with the pure-Rust `protox` (no `protoc` binary needed) and
//! generates the messages and the tonic service code, plus a file descriptor set for gRPC server
//! reflection. The messages of `ledger.proto` are the pitboss-ledger crate's (its own build compiles
//! them).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::path::Path::new("../../proto");
    let mut protos = std::fs::read_dir(root.join("pitboss/v1"))?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .filter(|p| p.extension().is_some_and(|ext| ext == "proto"))
        .collect::<Vec<_>>();
    protos.sort();
    let fds = protox::compile(&protos, [root])?;
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out.join("pitboss_descriptor.bin"),
        prost::Message::encode_to_vec(&fds),
    )?;
    // The ledger's own messages are generated once, in the pitboss-ledger crate: one Rust type each.
    let mut builder = tonic_prost_build::configure();
    for message in [
        "Envelope",
        "StoredEntry",
        "KeyPublished",
        "KeyRotated",
        "LogRecovered",
    ] {
        builder = builder.extern_path(
            format!(".pitboss.v1.{message}"),
            format!("::pitboss_ledger::proto::{message}"),
        );
    }
    builder.compile_fds(fds)?;
    println!("cargo:rerun-if-changed=../../proto/pitboss/v1");
    for proto in &protos {
        println!("cargo:rerun-if-changed={}", proto.display());
    }
    Ok(())
}
