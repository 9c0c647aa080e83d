//! Compiles `proto/pitboss/v1/*.proto` with the pure-Rust `protox` (no `protoc` binary needed) and
//! generates the messages and the tonic service code, a file descriptor set for gRPC server
//! reflection, and every method's gRPC path as a constant (`methods.rs`). The messages of `ledger.proto` are the pitboss-ledger crate's (its own build compiles
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
    write_methods(&fds, &out)?;
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

/// Writes `methods.rs`: a module per service with its full name (`play::SERVICE`) and a constant
/// per method holding its gRPC path (`play::OPEN_HAND` = `"/pitboss.v1.Play/OpenHand"`), and `ALL`
/// in the descriptor's order, so
/// that what names a method names it by a generated constant, and a misspelt one does not compile.
fn write_methods(
    fds: &prost_types::FileDescriptorSet,
    out: &std::path::Path,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut text = String::new();
    let mut all = Vec::new();
    for file in &fds.file {
        let package = file.package();
        for service in &file.service {
            let module = snake(service.name()).to_lowercase();
            text.push_str(&format!(
                "/// The methods of `{package}.{name}`.\npub mod {module} {{\n    \
                 /// The service's full name.\n    pub const SERVICE: &str = \"{package}.{name}\";\n",
                name = service.name()
            ));
            for method in &service.method {
                let constant = snake(method.name()).to_uppercase();
                let path = format!("/{package}.{}/{}", service.name(), method.name());
                text.push_str(&format!(
                    "    /// `{path}`.\n    pub const {constant}: &str = \"{path}\";\n"
                ));
                all.push(format!("{module}::{constant}"));
            }
            text.push_str("}\n\n");
        }
    }
    text.push_str("/// Every method, in the descriptor's order.\npub const ALL: &[&str] = &[\n");
    for name in all {
        text.push_str(&format!("    {name},\n"));
    }
    text.push_str("];\n");
    std::fs::write(out.join("methods.rs"), text)?;
    Ok(())
}

/// `OpenHand` → `Open_Hand`: an underscore before each inner capital.
fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if i > 0 && c.is_ascii_uppercase() {
            out.push('_');
        }
        out.push(c);
    }
    out
}
