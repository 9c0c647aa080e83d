//! Compiles `proto/pitboss/v1/*.proto` with the pure-Rust `protox` (no `protoc` binary needed) and
//! generates the tonic service code, plus a file descriptor set for gRPC server reflection. The
//! messages of `ledger.proto` are the pitboss-ledger crate's (its own build compiles them).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protos = std::fs::read_dir("proto/pitboss/v1")?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .filter(|p| p.extension().is_some_and(|ext| ext == "proto"))
        .collect::<Vec<_>>();
    let mut protos = protos;
    protos.sort();
    let fds = protox::compile(&protos, ["proto"])?;
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
    println!("cargo:rerun-if-changed=proto");
    // The build's identity, recorded in SoftwareAttested entries: the commit and the compiler.
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    let rustc =
        std::process::Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
            .arg("--version")
            .output()
            .ok()
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
            .unwrap_or_else(|| "rustc unknown".into());
    println!("cargo:rustc-env=PITBOSS_BUILD=commit {commit}, {rustc}");
    for head in [".git/HEAD", ".git/refs/heads"] {
        if std::path::Path::new(head).exists() {
            println!("cargo:rerun-if-changed={head}");
        }
    }
    println!("cargo:rerun-if-changed=proto/pitboss/v1");
    for proto in &protos {
        println!("cargo:rerun-if-changed={}", proto.display());
    }
    Ok(())
}
