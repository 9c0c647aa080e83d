//! The floor is the only door from the service and the audit to the log (issue 24): their code
//! never names the ledger — no `.ledger()` reach-around, no `Ledger` handle — and reads the log
//! through the floor's methods (`src/floor/log.rs`). Their unit tests (the `#[cfg(test)]` module
//! at the end of a file) may open a ledger to build a floor; nothing before it may.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, recursively.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("a source directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// A file's code before its test module.
fn code_before_tests(text: &str) -> &str {
    text.find("#[cfg(test)]\nmod tests")
        .map_or(text, |at| &text[..at])
}

/// What the layer above the floor must not write: a ledger reached around the floor.
const REACH_AROUND: [&str; 4] = [".ledger()", "Ledger::", "&Ledger", "Arc<Ledger>"];

#[test]
fn the_service_and_the_audit_reach_the_log_only_through_the_floor() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for layer in ["service", "audit"] {
        files.extend(sources(&root.join(layer)));
    }
    assert!(
        files.len() > 10,
        "the service's and the audit's files are read"
    );
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a readable source file");
        for (number, line) in code_before_tests(&text).lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            if REACH_AROUND.iter().any(|pattern| code.contains(pattern)) {
                found.push(format!(
                    "{}:{}: {}",
                    file.display(),
                    number + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the ledger reached around the floor:\n{}",
        found.join("\n")
    );
}

/// The check above finds what it looks for (a check that cannot fail proves nothing).
#[test]
fn a_reach_around_is_found() {
    let text = "fn f(floor: &Floor) {\n    floor.ledger().entry(0);\n}\n#[cfg(test)]\nmod tests {\n    fn g() { Ledger::open(); }\n}\n";
    let code = code_before_tests(text);
    assert!(code.contains(".ledger()"));
    assert!(
        !code.contains("Ledger::"),
        "the test module is not held to it"
    );
    assert!(REACH_AROUND.iter().any(|p| code.contains(p)));
}
