//! The floor is the only door from the service and the audit to the log (issue 24): their code
//! never names the ledger — no `.ledger()` reach-around, no `Ledger` handle — and reads the log
//! through the floor's methods (`src/floor/log.rs`). Their unit tests (the `#[cfg(test)]` module
//! at the end of a file) may open a ledger to build a floor; nothing before it may. And no import
//! circle between the modules of the service, the audit or the floor.

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

/// The modules a file names: `super::m`, `crate::<layer>::m` and `use super::{m, …}`, whatever
/// follows; only those in `known` count.
fn imports(text: &str, layer: &str, known: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let prefixes = [
        "super::".to_string(),
        format!("crate::{layer}::"),
        format!("pitboss::{layer}::"),
    ];
    for prefix in &prefixes {
        for (at, _) in text.match_indices(prefix.as_str()) {
            let rest = &text[at + prefix.len()..];
            let names: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => group
                    .split('}')
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .map(|n| n.trim().split("::").next().unwrap_or_default())
                    .collect(),
                None => vec![rest
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or_default()],
            };
            for name in names {
                if known.iter().any(|k| k == name) && !out.iter().any(|o| o == name) {
                    out.push(name.to_string());
                }
            }
        }
    }
    out
}

/// A cycle in `edges` (module → the modules it imports), if there is one.
fn cycle(edges: &std::collections::BTreeMap<String, Vec<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &std::collections::BTreeMap<String, Vec<String>>,
        path: &mut Vec<String>,
        done: &mut std::collections::BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_string());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, edges, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = std::collections::BTreeSet::new();
    edges
        .keys()
        .find_map(|node| visit(node, edges, &mut Vec::new(), &mut done))
}

/// No import circle between the service's modules (issue 24: `convert` and `limits` imported
/// each other; the statuses now live in `status.rs`, which imports neither), nor between the
/// audit's or the floor's. A module's own tests do not count.
#[test]
fn the_service_and_the_audit_have_no_import_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for layer in ["service", "audit", "floor"] {
        let files = sources(&root.join(layer));
        let names: Vec<String> = files
            .iter()
            .filter_map(|f| f.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .filter(|n| n != "mod")
            .collect();
        let mut edges = std::collections::BTreeMap::new();
        for file in &files {
            let name = file.file_stem().unwrap().to_string_lossy().into_owned();
            if name == "mod" {
                continue;
            }
            let text = std::fs::read_to_string(file).expect("a readable source file");
            let mut used = imports(code_before_tests(&text), layer, &names);
            used.retain(|n| *n != name);
            edges.insert(name, used);
        }
        assert!(edges.len() >= 3, "{layer}: its modules are read");
        assert_eq!(cycle(&edges), None, "{layer}: an import circle");
    }
}

/// The circle check finds a circle, and the import reader reads both forms of `use`.
#[test]
fn an_import_circle_is_found() {
    let known: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
    assert_eq!(
        imports(
            "use super::{a, b::x};\nlet _ = super::c::f();",
            "service",
            &known
        ),
        vec!["a", "b", "c"]
    );
    let mut edges = std::collections::BTreeMap::new();
    edges.insert("a".to_string(), vec!["b".to_string()]);
    edges.insert("b".to_string(), vec!["c".to_string()]);
    edges.insert("c".to_string(), vec![]);
    assert_eq!(cycle(&edges), None);
    edges.insert("c".to_string(), vec!["a".to_string()]);
    assert!(cycle(&edges).is_some_and(|c| c.first() == c.last()));
}

/// ARCHITECTURE.md is the map: every source file of the workspace is named there (as `file.rs`,
/// `dir/file.rs` or its module's name in backticks), so a file added without a place on the map
/// fails here.
#[test]
fn every_source_file_is_on_the_map() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let map = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut files = sources(&root.join("src"));
    for krate in std::fs::read_dir(root.join("crates")).expect("crates/") {
        files.extend(sources(&krate.expect("a crate").path().join("src")));
    }
    assert!(files.len() > 100, "the workspace's sources are read");
    let unnamed: Vec<String> = files
        .iter()
        .filter_map(|file| {
            let name = file.file_name()?.to_str()?;
            if matches!(name, "mod.rs" | "lib.rs" | "main.rs") {
                return None;
            }
            let stem = name.strip_suffix(".rs")?;
            let dir = file.parent()?.file_name()?.to_str()?;
            let named = map.contains(&format!("`{name}`"))
                || map.contains(&format!("{dir}/{name}"))
                || map.contains(&format!("`{stem}`"));
            (!named).then(|| file.display().to_string())
        })
        .collect();
    assert!(
        unnamed.is_empty(),
        "source files ARCHITECTURE.md does not name:\n{}",
        unnamed.join("\n")
    );
}
