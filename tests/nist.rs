//! The SP 800-22 tests of `pitboss_lab::nist` against an independent implementation, Python's
//! `nistrng`, on the same bits: the raw output of pitboss's own RNG derivation (`pitboss rng`'s
//! words, from fixed seeds), with nistrng's parameters. Where nistrng departs from the
//! publication — the longest-run test's probabilities for 8- and 128-bit blocks, and its fixed
//! number of blocks — the comparison is made where both agree (75 blocks of 10 000 bits), and the
//! departure is written in docs/rng-battery.md.

use pitboss_engine::rng::Seed;
use pitboss_lab::nist;
use serde_json::Value;

/// `words` words of the RNG's output from seeds 0, 1, 2… (1 024 words each), as bits.
fn rng_bits(words: u64) -> Vec<u8> {
    let mut out = Vec::new();
    let mut next = 0u8;
    pitboss_lab::rng_output::write_words(&mut out, words, 1024, || {
        next += 1;
        Ok(Seed::from_bytes([next; 32]))
    })
    .unwrap();
    nist::bits_of(&out)
}

fn nistrng(bits: &[u8], extra: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bits.txt");
    std::fs::write(&file, bits.iter().map(|b| b'0' + b).collect::<Vec<u8>>()).unwrap();
    let out = std::process::Command::new(pitboss_testkit::python())
        .arg(pitboss_testkit::root().join("fixtures/reference/nist_tests.py"))
        .arg(&file)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "nistrng: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn agree(name: &str, ours: f64, theirs: &Value) {
    let theirs = theirs.as_f64().unwrap();
    assert!(
        (ours - theirs).abs() < 1e-6,
        "{name}: ours {ours}, nistrng {theirs}"
    );
}

#[test]
fn the_battery_agrees_with_nistrng_on_the_rngs_own_bits() {
    let bits = rng_bits(100_000 / 32);
    assert_eq!(bits.len(), 100_000);
    let theirs = nistrng(&bits, &[]);
    agree(
        "frequency",
        nist::frequency(&bits).unwrap(),
        &theirs["frequency"][0],
    );
    let block = theirs["block_size"].as_u64().unwrap() as usize;
    agree(
        "block frequency",
        nist::block_frequency(&bits, block).unwrap(),
        &theirs["block_frequency"][0],
    );
    agree("runs", nist::runs(&bits).unwrap(), &theirs["runs"][0]);
    agree(
        "cumulative sums, forward",
        nist::cumulative_sums(&bits, false).unwrap(),
        &theirs["cumulative_sums"][0],
    );
    agree(
        "cumulative sums, backward",
        nist::cumulative_sums(&bits, true).unwrap(),
        &theirs["cumulative_sums"][1],
    );
    let (p1, p2) = nist::serial(&bits, 4).unwrap();
    agree("serial ∇ψ²", p1, &theirs["serial"][0]);
    agree("serial ∇²ψ²", p2, &theirs["serial"][1]);
    agree(
        "approximate entropy",
        nist::approximate_entropy(&bits, 2).unwrap(),
        &theirs["approximate_entropy"][0],
    );
    // And the RNG passes each at the publication's level.
    for (name, p) in [
        ("frequency", nist::frequency(&bits).unwrap()),
        ("runs", nist::runs(&bits).unwrap()),
        (
            "approximate entropy",
            nist::approximate_entropy(&bits, 2).unwrap(),
        ),
    ] {
        assert!(p >= nist::ALPHA, "{name}: {p}");
    }

    // 750 016 bits: 75 blocks of 10 000, the number nistrng always takes.
    let long = rng_bits(750_016 / 32);
    let theirs = nistrng(&long, &["longest"]);
    agree(
        "longest run (10 000-bit blocks)",
        nist::longest_run(&long).unwrap(),
        &theirs["longest_run"][0],
    );
}

/// `pitboss rng-test`: every test judged, and the run reproduced exactly by its printed command.
#[test]
fn rng_test_judges_every_test_and_reproduces_by_its_seed() {
    let run = |extra: &[&str]| {
        let out = std::process::Command::new(pitboss_testkit::binary())
            .args(["rng-test", "--sequences", "20", "--bits", "65536"])
            .args(extra)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, first) = run(&[]);
    let reproduce = first
        .lines()
        .find_map(|l| l.strip_prefix("reproduce: pitboss "))
        .unwrap_or_else(|| panic!("{first}"));
    let seed = reproduce.split(' ').next_back().unwrap();
    assert_eq!(seed.len(), 64);
    let (again_code, again) = run(&["--seed", seed]);
    assert_eq!(
        (again_code, &again),
        (code, &first),
        "the same seed, the same run"
    );
    for test in [
        "frequency",
        "block_frequency",
        "runs",
        "longest_run",
        "serial[0]",
        "serial[1]",
        "approximate_entropy",
        "cumulative_sums[0]",
        "cumulative_sums[1]",
    ] {
        assert!(
            first.lines().any(|l| l.starts_with(&format!("{test} "))
                && (l.ends_with("holds") || l.ends_with("FAILS"))),
            "{test} not judged:\n{first}"
        );
    }
    let (code, _) = run(&["--seed", "zz"]);
    assert_ne!(code, Some(0));
}
