//! drand beacon rounds against an implementation nobody here wrote: `fixtures/reference/
//! verify_beacon.py` checks quicknet rounds' BLS signatures with `py_ecc` (pure-Python
//! BLS12-381) — the published rounds of `fixtures/beacon/quicknet.json`, and the beacon every
//! mixed deal seed of `fixtures/rng-vectors.json` names — and refuses a round given another
//! round's signature, naming it. `pitboss-beacon`'s own tests hold the Rust side to the same
//! rounds.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn checker(args: &[&Path]) -> Output {
    Command::new(pitboss_testkit::python())
        .arg(root().join("fixtures/reference/verify_beacon.py"))
        .args(args)
        .output()
        .expect("the test venv's Python (scripts/test installs py_ecc)")
}

fn quicknet() -> PathBuf {
    root().join("fixtures/beacon/quicknet.json")
}

#[test]
fn py_ecc_verifies_published_rounds_and_the_deal_seeds_beacon() {
    // A few rounds (py_ecc takes about a second each): the first, one the vectors use, a late one.
    let output = checker(&[
        &quicknet(),
        Path::new("1"),
        Path::new("1000"),
        Path::new("9367912"),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("checked 3 beacon round(s): all verify"),
        "{stdout}"
    );
    let vectors = root().join("fixtures/rng-vectors.json");
    let output = checker(&[&quicknet(), Path::new("--vectors"), &vectors]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("deal seed both 1000: verified"), "{stdout}");
    assert!(
        stdout.contains("checked 2 beacon round(s): all verify"),
        "{stdout}"
    );
}

#[test]
fn py_ecc_refuses_a_round_with_another_rounds_signature() {
    let text = std::fs::read_to_string(quicknet()).expect("the fixture");
    let mut chain: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let rounds = chain["rounds"].as_array_mut().expect("rounds");
    let next = rounds[1]["signature"].clone();
    let first = rounds[0]["round"].as_u64().expect("a round");
    rounds[0]["signature"] = next;
    let dir = tempfile::tempdir().expect("a directory");
    let altered = dir.path().join("quicknet.json");
    std::fs::write(&altered, chain.to_string()).expect("written");
    let output = checker(&[&altered, Path::new(&first.to_string())]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success(), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "REFUSED round {first}: the signature does not verify against the chain's public key"
        )),
        "{stdout}"
    );
}
