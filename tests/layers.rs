//! The layers, held by Cargo and by this tidy test (in the manner of rust-analyzer's `tidy.rs`):
//!
//! - **The crate graph** (`cargo metadata`) is exactly the one ARCHITECTURE.md draws: a new edge
//!   between the workspace's crates, upward or not, fails here until the map says it; and the
//!   crates that must stay free of a kind of dependency (the engine of I/O and async, the ledger
//!   of games, the floor of transports) are.
//! - **What the graph cannot say:** the server and the audit reach the log only through the
//!   floor's methods (no `.ledger()`, no `Ledger` handle before a file's tests); the floor names no
//!   gRPC request, answer, client or server (the protobuf it knows is the log's payloads); no
//!   import circle between the modules of any folder of any crate.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

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
    out.sort();
    out
}

/// A file's code before its test module.
fn code_before_tests(text: &str) -> &str {
    text.find("#[cfg(test)]\nmod tests")
        .map_or(text, |at| &text[..at])
}

/// `cargo metadata` of the workspace, without the registry's packages.
fn metadata() -> serde_json::Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata's JSON")
}

/// Each workspace crate's normal (not dev, not build) dependencies: (workspace crates, others).
type Graph = BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)>;

fn graph() -> Graph {
    let metadata = metadata();
    let packages = metadata["packages"].as_array().expect("packages");
    let ours: BTreeSet<String> = packages
        .iter()
        .map(|p| p["name"].as_str().expect("a name").to_string())
        .collect();
    packages
        .iter()
        .map(|p| {
            let mut inside = BTreeSet::new();
            let mut outside = BTreeSet::new();
            for dependency in p["dependencies"].as_array().expect("dependencies") {
                if !dependency["kind"].is_null() {
                    continue;
                }
                let name = dependency["name"].as_str().expect("a name").to_string();
                if ours.contains(&name) {
                    inside.insert(name);
                } else {
                    outside.insert(name);
                }
            }
            (p["name"].as_str().unwrap().to_string(), (inside, outside))
        })
        .collect()
}

/// The graph ARCHITECTURE.md draws: the fenced block under "The crate graph", a line per crate,
/// `crate → dependency, dependency`.
fn drawn() -> BTreeMap<String, BTreeSet<String>> {
    let map = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let section = map
        .split("### The crate graph")
        .nth(1)
        .expect("ARCHITECTURE.md has a section \"The crate graph\"");
    let block = section
        .split("```text\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a text block");
    block
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let (name, dependencies) = line.split_once('→').expect("`crate → …`");
            (
                name.trim().to_string(),
                dependencies
                    .split(',')
                    .map(|d| d.trim().to_string())
                    .filter(|d| !d.is_empty())
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn the_crate_graph_is_the_one_the_map_draws() {
    let actual: BTreeMap<String, BTreeSet<String>> = graph()
        .into_iter()
        .map(|(name, (inside, _))| (name, inside))
        .collect();
    assert!(actual.len() >= 11, "the workspace's crates are read");
    assert_eq!(
        actual,
        drawn(),
        "the crates' dependencies (cargo metadata) differ from ARCHITECTURE.md's crate graph"
    );
}

/// The layers never depend upward: each crate's rank (its longest path down the graph) is above
/// every crate it depends on — which holds for any acyclic graph — and the ranks are those the
/// layers have: the engine, the ledger, the client and the export at the bottom; the lab, the
/// packet, the witness and the protobuf on them; the floor on those; the server on the floor;
/// the binary on top.
#[test]
fn the_layers_stand_in_their_order() {
    let graph = graph();
    fn rank(name: &str, graph: &Graph, seen: &mut Vec<String>) -> usize {
        assert!(
            !seen.iter().any(|s| s == name),
            "a circle of crates: {seen:?} → {name}"
        );
        seen.push(name.to_string());
        let below = graph[name]
            .0
            .iter()
            .map(|d| rank(d, graph, seen) + 1)
            .max()
            .unwrap_or(0);
        seen.pop();
        below
    }
    let ranks: BTreeMap<&str, usize> = graph
        .keys()
        .map(|name| (name.as_str(), rank(name, &graph, &mut Vec::new())))
        .collect();
    let order = [
        "pitboss-engine",
        "pitboss-proto",
        "pitboss-floor",
        "pitboss-server",
        "pitboss",
    ];
    for pair in order.windows(2) {
        assert!(
            ranks[pair[0]] < ranks[pair[1]],
            "{} stands below {}: {ranks:?}",
            pair[0],
            pair[1]
        );
    }
    assert!(
        ranks["pitboss-floor"] > ranks["pitboss-ledger"]
            && ranks["pitboss-floor"] > ranks["pitboss-lab"]
    );
    assert!(ranks["pitboss-client"] < ranks["pitboss-server"]);
}

/// Kinds of dependency some crates must not have, named by their crates.
#[test]
fn the_pure_crates_stay_pure() {
    let graph = graph();
    let forbidden: [(&str, &[&str]); 5] = [
        // Pure: the same inputs give the same outputs; no I/O, clock, async, storage or protobuf.
        (
            "pitboss-engine",
            &[
                "tokio",
                "prost",
                "tonic",
                "rocksdb",
                "getrandom",
                "pitboss-ledger",
            ],
        ),
        // The lab computes from the engine alone.
        (
            "pitboss-lab",
            &["tokio", "tonic", "rocksdb", "pitboss-ledger"],
        ),
        // The log knows no game.
        (
            "pitboss-ledger",
            &["pitboss-engine", "pitboss-lab", "pitboss-proto"],
        ),
        // The domain knows no transport.
        (
            "pitboss-floor",
            &[
                "tonic",
                "hyper",
                "http",
                "tonic-health",
                "pitboss-server",
                "pitboss-client",
            ],
        ),
        // The page is a string from a model.
        ("pitboss-packet", &["tokio", "pitboss-ledger", "rocksdb"]),
    ];
    for (krate, names) in forbidden {
        let (inside, outside) = &graph[krate];
        for name in names {
            assert!(
                !inside.contains(*name) && !outside.contains(*name),
                "{krate} depends on {name}"
            );
        }
    }
}

/// What the server and the audit must not write: a ledger reached around the floor.
const REACH_AROUND: [&str; 4] = [".ledger()", "Ledger::", "&Ledger", "Arc<Ledger>"];

/// Lines of `files` before their tests that contain one of `patterns` (comments aside).
fn found_in(files: &[PathBuf], patterns: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).expect("a readable source file");
        for (number, line) in code_before_tests(&text).lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            if patterns.iter().any(|pattern| code.contains(pattern)) {
                found.push(format!(
                    "{}:{}: {}",
                    file.display(),
                    number + 1,
                    line.trim()
                ));
            }
        }
    }
    found
}

#[test]
fn the_service_and_the_audit_reach_the_log_only_through_the_floor() {
    let mut files = sources(&root().join("crates/pitboss-server/src/service"));
    files.extend(sources(&root().join("crates/pitboss-floor/src/audit")));
    assert!(
        files.len() > 10,
        "the service's and the audit's files are read"
    );
    let found = found_in(&files, &REACH_AROUND);
    assert!(
        found.is_empty(),
        "the ledger reached around the floor:\n{}",
        found.join("\n")
    );
}

/// The floor crate names no gRPC request, answer, client or server: the protobuf it knows is what
/// the log's entries carry (`events.proto`).
#[test]
fn the_floor_names_no_api_message() {
    let files = sources(&root().join("crates/pitboss-floor/src"));
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a readable source file");
        for (number, line) in code_before_tests(&text).lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            for (at, _) in code.match_indices("proto::") {
                let name: String = code[at + "proto::".len()..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if name.ends_with("Request")
                    || name.ends_with("Response")
                    || name.ends_with("_client")
                    || name.ends_with("_server")
                    || name == "SignificantEvent"
                {
                    found.push(format!("{}:{}: {name}", file.display(), number + 1));
                }
            }
        }
    }
    assert!(files.len() > 30, "the floor's files are read");
    assert!(
        found.is_empty(),
        "API messages in the floor:\n{}",
        found.join("\n")
    );
}

/// The checks above find what they look for (a check that cannot fail proves nothing).
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

/// The modules a file names through `prefixes` (`super::m`, `crate::folder::m`, and
/// `use super::{m, …}`), whatever follows; only those in `known` count.
fn imports(text: &str, prefixes: &[String], known: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for prefix in prefixes {
        for (at, _) in text.match_indices(prefix.as_str()) {
            // `crate::x` must not match inside `pitboss_crate::x` or `super::super::x`'s tail.
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
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
fn cycle(edges: &BTreeMap<String, Vec<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, Vec<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
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
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|node| visit(node, edges, &mut Vec::new(), &mut done))
}

/// Every module folder of the workspace: each crate's `src` and every directory under it.
fn folders() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root().join("crates"))
        .expect("crates/")
        .map(|e| e.expect("a crate").path().join("src"))
        .filter(|src| src.is_dir())
        .collect();
    crates.push(root().join("src"));
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        out.push(dir.to_path_buf());
        for entry in std::fs::read_dir(dir).expect("a directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                walk(&path, out);
            }
        }
    }
    for src in &crates {
        walk(src, &mut out);
    }
    out.sort();
    out
}

/// `code` without its comments (doc comments included: a doc link is no dependency).
fn without_comments(code: &str) -> String {
    code.lines()
        .map(|line| match line.find("//") {
            // A `//` inside a string literal (a URL) is rare in these crates' imports; the
            // line's code before it is what can name a module.
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A folder's modules, and for each the code of its files, each with the `super::` prefix that
/// names the folder from that file (`super::` from `m.rs` or `m/mod.rs`, `super::super::` from
/// `m/x.rs`, …).
fn modules(folder: &Path) -> BTreeMap<String, Vec<(String, String)>> {
    let mut out = BTreeMap::new();
    let coded = |file: &Path| {
        let text = std::fs::read_to_string(file).expect("a readable source file");
        without_comments(code_before_tests(&text))
    };
    for entry in std::fs::read_dir(folder).expect("a folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let files = sources(&path)
                .into_iter()
                .map(|file| {
                    // How many modules below the folder the file's module is.
                    let below = file.strip_prefix(&path).unwrap().components().count();
                    let depth = if file.file_name().is_some_and(|n| n == "mod.rs") {
                        below
                    } else {
                        below + 1
                    };
                    (coded(&file), "super::".repeat(depth))
                })
                .collect();
            out.insert(name, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            if !matches!(stem.as_str(), "mod" | "lib" | "main") {
                out.insert(stem, vec![(coded(&path), "super::".to_string())]);
            }
        }
    }
    out
}

/// The module path of a folder below its crate's `src` (`""` for `src`, `service::warm`).
fn module_path(folder: &Path) -> String {
    let mut parts = Vec::new();
    for part in folder.components().rev() {
        let part = part.as_os_str().to_string_lossy();
        if part == "src" {
            break;
        }
        parts.push(part.into_owned());
    }
    parts.reverse();
    parts.join("::")
}

/// Folders whose circles are still to be resolved, named so that no new one joins them unseen:
/// the folder, relative to the workspace (none now).
const CIRCLES_LEFT: [&str; 0] = [];

/// No import circle between the modules of one folder (a crate's top-level modules, or a module
/// folder's), in any crate. A module's own tests do not count.
#[test]
fn no_folder_has_an_import_circle() {
    let folders = folders();
    assert!(folders.len() > 15, "the crates' folders are read");
    let mut circles = Vec::new();
    for folder in &folders {
        let relative = folder
            .strip_prefix(root())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let path = module_path(folder);
        let by_crate = if path.is_empty() {
            "crate::".to_string()
        } else {
            format!("crate::{path}::")
        };
        let modules = modules(folder);
        let names: Vec<String> = modules.keys().cloned().collect();
        let edges: BTreeMap<String, Vec<String>> = modules
            .iter()
            .map(|(module, files)| {
                let mut used = Vec::new();
                for (code, up) in files {
                    for name in imports(code, &[up.clone(), by_crate.clone()], &names) {
                        if name != *module && !used.contains(&name) {
                            used.push(name);
                        }
                    }
                }
                (module.clone(), used)
            })
            .collect();
        if let Some(circle) = cycle(&edges) {
            if !CIRCLES_LEFT.contains(&relative.as_str()) {
                circles.push(format!("{relative}: {}", circle.join(" → ")));
            }
        } else {
            assert!(
                !CIRCLES_LEFT.contains(&relative.as_str()),
                "{relative} has no circle left: take it off CIRCLES_LEFT"
            );
        }
    }
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

/// The circle check finds a circle, and the import reader reads both forms of `use`.
#[test]
fn an_import_circle_is_found() {
    let known: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
    let prefixes = ["super::".to_string()];
    assert_eq!(
        imports(
            "use super::{a, b::x};\nlet _ = super::c::f();",
            &prefixes,
            &known
        ),
        vec!["a", "b", "c"]
    );
    assert_eq!(
        imports(
            "use crate::a::x; pitboss_crate::b::y",
            &["crate::".to_string()],
            &known
        ),
        vec!["a"],
        "another crate's path is not this crate's module"
    );
    let mut edges = BTreeMap::new();
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
    let map = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut files = sources(&root().join("src"));
    for krate in std::fs::read_dir(root().join("crates")).expect("crates/") {
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

/// The games of the engine's roster (`roster.rs`): each line's variant name and module name.
fn roster() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root().join("crates/pitboss-engine/src/roster.rs"))
        .expect("the roster");
    let list = text
        .split("$then! {")
        .nth(1)
        .and_then(|rest| rest.split('}').next())
        .expect("the roster's list");
    list.lines()
        .filter_map(|line| {
            let words: Vec<&str> = line.trim().trim_end_matches(';').split(' ').collect();
            match words[..] {
                [variant, _id, module, _rules] => Some((variant.to_string(), module.to_string())),
                _ => None,
            }
        })
        .collect()
}

/// The files that may name every game: the lab's one dispatch to its game modules. (The engine's
/// own dispatches are generated from the roster and name no game.)
const GAME_TABLES: [&str; 1] = ["crates/pitboss-lab/src/games.rs"];

/// No hand-written table keyed by game: outside the games' own modules, their tests and
/// `GAME_TABLES`, no source file names every game of the roster (as `GameId::X` or `Rules::X`),
/// so a fifth game is the roster's line, its modules and the lines ARCHITECTURE.md counts.
#[test]
fn no_table_is_keyed_by_game() {
    let games = roster();
    assert!(games.len() >= 4, "the roster is read: {games:?}");
    let mut files = sources(&root().join("src"));
    for krate in std::fs::read_dir(root().join("crates")).expect("crates/") {
        files.extend(sources(&krate.expect("a crate").path().join("src")));
    }
    let mut tables = Vec::new();
    for file in &files {
        let relative = file
            .strip_prefix(root())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(file).expect("a readable source file");
        let code = without_comments(code_before_tests(&text));
        let names_every_game = games.iter().all(|(variant, _)| {
            code.contains(&format!("GameId::{variant}"))
                || code.contains(&format!("Rules::{variant}"))
        });
        if names_every_game && !GAME_TABLES.contains(&relative.as_str()) {
            tables.push(relative);
        }
    }
    assert!(
        tables.is_empty(),
        "tables keyed by game outside the roster (generate them from `roster!`, or move the \
         game's part into its module):\n{}",
        tables.join("\n")
    );
    // Every game's two engine modules are where the roster says.
    for (_, module) in &games {
        for folder in ["config", "games"] {
            let path = root().join(format!("crates/pitboss-engine/src/{folder}/{module}.rs"));
            assert!(path.is_file(), "{} is missing", path.display());
        }
    }
}
