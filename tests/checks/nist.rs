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

    // 10⁶ bits: the rank and spectral tests, as both define them; Maurer's statistic fₙ, which
    // nistrng turns into a P-value with σ = √variance (the publication's small example does
    // too) where the publication's general formula takes c·√(variance/K); and the random
    // excursions variant's counts, which nistrng reports as |ξ − J|/√(2J(4|x| − 2)) without the
    // erfc, for the states the walk reached (docs/rng-battery.md lists nistrng's departures).
    let million = rng_bits(1_000_000 / 32);
    let theirs = nistrng(&million, &["long"]);
    agree("rank", nist::rank(&million).unwrap(), &theirs["rank"][0]);
    agree(
        "spectral",
        nist::spectral(&million).unwrap(),
        &theirs["spectral"][0],
    );
    agree(
        "universal (fₙ, with nistrng's σ)",
        nist::universal(&million).unwrap().p_value_uncorrected(),
        &theirs["universal"][0],
    );
    let (ours, _) = nist::random_excursions_variant(&million).unwrap();
    let reported = theirs["random_excursions_variant"].as_array().unwrap();
    assert!(!reported.is_empty() && reported.len() <= ours.len());
    let reached: Vec<f64> = reported
        .iter()
        .map(|r| statrs::function::erf::erfc(r.as_f64().unwrap()))
        .collect();
    // The states nistrng reports are those visited, in order: every P-value it gives (after the
    // erfc) is ours for one state, in the same order.
    let mut mine = ours.iter();
    for (i, theirs) in reached.iter().enumerate() {
        assert!(
            mine.any(|p| (p - theirs).abs() < 1e-6),
            "variant state {i}: nistrng's {theirs} is none of ours {ours:?}"
        );
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
            .args(["rng-test", "--sequences", "20", "--bits", "131072"])
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
    // Every test of the publication is judged, or said not to apply at this length (the
    // universal test needs 387 840 bits; the random excursions need 500 cycles, which a walk of
    // 131 072 steps reaches about one time in six).
    let judged = |name: &str| {
        first.lines().any(|l| {
            l.split_whitespace().next() == Some(name)
                && (l.ends_with("holds") || l.ends_with("FAILS"))
        })
    };
    for test in [
        "frequency",
        "block_frequency",
        "runs",
        "longest_run",
        "rank",
        "spectral",
        "non_overlapping_template[000000001]",
        "non_overlapping_template[111111110]",
        "overlapping_template",
        "linear_complexity",
        "serial[0]",
        "serial[1]",
        "approximate_entropy",
        "cumulative_sums[0]",
        "cumulative_sums[1]",
    ] {
        assert!(judged(test), "{test} not judged:\n{first}");
    }
    let templates = first
        .lines()
        .filter(|l| l.starts_with("non_overlapping_template["))
        .count();
    assert_eq!(templates, 148, "every nine-bit aperiodic template");
    assert!(
        first.lines().any(|l| l.starts_with("universal")
            && l.contains("not run:")
            && l.contains("of 20 sequences")),
        "universal said not run:\n{first}"
    );
    for test in ["random_excursions", "random_excursions_variant"] {
        assert!(
            judged(&format!("{test}[+1]"))
                || first
                    .lines()
                    .any(|l| l.starts_with(&format!("{test} ")) && l.contains("not applicable")),
            "{test}:\n{first}"
        );
    }
    let (code, _) = run(&["--seed", "zz"]);
    assert_ne!(code, Some(0));
}

/// `Lab.TestRng` over gRPC: the same battery as `pitboss rng-test` with the same seed, row for
/// row (both judge through `pitboss_lab::rng_battery`), with the command that reproduces it; a
/// fresh seed when none is given, returned; and the run's fields bounded.
#[tokio::test(flavor = "multi_thread")]
async fn test_rng_over_grpc_is_the_command_lines_battery() {
    use pitboss::proto::{self, lab_client::LabClient};
    let dirs = tempfile::tempdir().unwrap();
    let server = pitboss_testkit::server::Server::in_process(&dirs.path().join("log"));
    let mut lab = LabClient::new(server.channel().await);
    let seed = [0x5au8; 32];
    let report = lab
        .test_rng(proto::TestRngRequest {
            sequences: 6,
            bits: 131_072,
            seed: seed.to_vec(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(report.seed, seed);
    assert_eq!(
        report.command,
        format!(
            "pitboss rng-test --sequences 6 --bits 131072 --seed {}",
            hex::encode(seed)
        )
    );
    // Every test either judged or said not run; the table-game tests judged at this length.
    let names: Vec<&str> = report.rows.iter().map(|r| r.test.as_str()).collect();
    for test in [
        "frequency",
        "rank",
        "spectral",
        "overlapping_template",
        "cards_by_position[52]",
        "cards_by_position[53]",
        "die_faces",
        "dice_pairs",
        "seed_avalanche",
    ] {
        assert!(names.contains(&test), "{test} not judged: {names:?}");
    }
    assert!(report
        .not_run
        .iter()
        .any(|n| n.test == "universal" && n.sequences == 6 && n.reason.contains("387840")));
    assert!(report
        .rows
        .iter()
        .all(|r| r.sequences <= 6 && r.passed <= r.sequences));
    let failing = report.rows.iter().filter(|r| !r.holds).count() as u32;
    assert_eq!(report.failing_rows, failing);
    assert!(report.expected_failing_rows > 0.0);
    assert_eq!(
        report.holds,
        report.failing_rows <= report.allowed_failing_rows
    );

    // The command it names prints the same rows, passed counts and verdicts.
    let out = std::process::Command::new(pitboss_testkit::binary())
        .args(report.command.split(' ').skip(1))
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.success(), report.holds, "{printed}");
    for row in &report.rows {
        let line = printed
            .lines()
            .find(|l| l.split_whitespace().next() == Some(row.test.as_str()))
            .unwrap_or_else(|| panic!("{} not printed:\n{printed}", row.test));
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            fields[1],
            format!("{}/{}", row.passed, row.sequences),
            "{line}"
        );
        assert_eq!(
            *fields.last().unwrap(),
            if row.holds { "holds" } else { "FAILS" },
            "{line}"
        );
    }

    let summary = printed
        .lines()
        .find(|l| l.starts_with("rows failing: "))
        .unwrap_or_else(|| panic!("{printed}"));
    assert!(
        summary.starts_with(&format!(
            "rows failing: {} of {}; chance explains up to {} ",
            report.failing_rows,
            report.rows.len(),
            report.allowed_failing_rows
        )),
        "{summary}"
    );

    // No seed: a fresh one, returned; and a plan out of bounds named.
    let fresh = lab
        .test_rng(proto::TestRngRequest {
            sequences: 1,
            bits: 128,
            seed: Vec::new(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(fresh.seed.len(), 32);
    let refused = lab
        .test_rng(proto::TestRngRequest {
            sequences: 2,
            bits: 100,
            seed: Vec::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    assert_eq!(
        pitboss_testkit::refusal::field(&refused).as_deref(),
        Some("bits"),
        "{refused:?}"
    );
}

/// `pitboss rng-test --input`: another generator's output judged exactly as the RNG's — Python's
/// `secrets` (the operating system's CSPRNG, nobody here wrote it) from a file holds; the same bytes
/// with a biased bit, read from standard input, fail; a stream shorter than the plan asks is
/// refused, saying how far it went.
#[test]
fn rng_test_judges_any_stream_from_a_file_or_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("secrets.bin");
    let bytes = 60 * 65_536 / 8;
    let made = std::process::Command::new(pitboss_testkit::python())
        .args([
            "-c",
            &format!(
                "import secrets, sys; open(sys.argv[1], 'wb').write(secrets.token_bytes({bytes}))"
            ),
        ])
        .arg(&good)
        .status()
        .unwrap();
    assert!(made.success());
    let run = |input: &str, stdin: Option<Vec<u8>>| {
        use std::io::Write;
        let mut child = std::process::Command::new(pitboss_testkit::binary())
            .args([
                "rng-test",
                "--sequences",
                "60",
                "--bits",
                "65536",
                "--input",
                input,
            ])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut pipe = child.stdin.take().unwrap();
        if let Some(bytes) = stdin {
            pipe.write_all(&bytes).unwrap();
        }
        drop(pipe);
        let out = child.wait_with_output().unwrap();
        (
            out.status.code(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
        )
    };
    let (code, said) = run(good.to_str().unwrap(), None);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("reproduce: pitboss rng-test --input "),
        "{said}"
    );
    assert!(
        !said.contains("cards_by_position"),
        "no table-game tests: {said}"
    );
    let mut biased = std::fs::read(&good).unwrap();
    biased.iter_mut().step_by(3).for_each(|b| *b |= 1);
    let (code, said) = run("-", Some(biased.clone()));
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("FAILS"), "{said}");
    let (code, said) = run("-", Some(biased[..bytes / 2].to_vec()));
    assert_ne!(code, Some(0), "{said}");
    assert!(said.contains("the stream ended"), "{said}");
}

/// `len` bytes from Python's `secrets` (the operating system's CSPRNG; nobody here wrote it).
fn secrets(len: usize) -> Vec<u8> {
    let out = std::process::Command::new(pitboss_testkit::python())
        .args([
            "-c",
            &format!("import secrets, sys; sys.stdout.buffer.write(secrets.token_bytes({len}))"),
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout.len(), len);
    out.stdout
}

/// `Lab.TestRngStream`: a client's bits over gRPC, judged as the command line judges the same
/// bytes, row for row — Python's `secrets` holds, the same bytes with a biased bit fail, a
/// short period fails — sent in messages of any size, raw or as NIST's ASCII; a stream that ends
/// short is refused naming `bits`, and the command the response names reads the same file.
#[tokio::test(flavor = "multi_thread")]
async fn test_rng_stream_judges_a_clients_bits_over_grpc() {
    use pitboss::proto::{self, lab_client::LabClient, test_rng_stream_request::Part};
    let dirs = tempfile::tempdir().unwrap();
    let server = pitboss_testkit::server::Server::in_process(&dirs.path().join("log"));
    let lab = LabClient::new(server.channel().await);
    let (sequences, bits) = (60u32, 65_536u64);
    let total = sequences as usize * bits as usize / 8;
    let good = secrets(total);
    let send = |bytes: Vec<u8>, format: proto::BitFormat, chunk: usize| {
        let mut lab = lab.clone();
        async move {
            let header = proto::TestRngStreamRequest {
                part: Some(Part::Header(proto::TestRngStreamHeader {
                    sequences,
                    bits,
                    format: format as i32,
                    source: "secrets.bin".into(),
                })),
            };
            let messages: Vec<_> = std::iter::once(header)
                .chain(bytes.chunks(chunk).map(|c| proto::TestRngStreamRequest {
                    part: Some(Part::Bits(c.to_vec())),
                }))
                .collect();
            lab.test_rng_stream(tokio_stream::iter(messages))
                .await
                .map(tonic::Response::into_inner)
        }
    };
    let fair = send(good.clone(), proto::BitFormat::Raw, 65_000)
        .await
        .unwrap();
    assert!(fair.holds, "{} failing rows", fair.failing_rows);
    assert!(fair.seed.is_empty());
    assert_eq!(
        fair.command,
        "pitboss rng-test --input secrets.bin --format raw --sequences 60 --bits 65536"
    );
    assert!(!fair.rows.iter().any(|r| r.test.starts_with("cards")));

    // The command it names, on the same bytes in that file, prints the same rows.
    std::fs::write(dirs.path().join("secrets.bin"), &good).unwrap();
    let out = std::process::Command::new(pitboss_testkit::binary())
        .current_dir(dirs.path())
        .args(fair.command.split(' ').skip(1))
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{printed}");
    for row in &fair.rows {
        assert!(
            printed.lines().any(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                f.first() == Some(&row.test.as_str())
                    && f.get(1) == Some(&format!("{}/{}", row.passed, row.sequences).as_str())
            }),
            "{} {}/{} not printed:\n{printed}",
            row.test,
            row.passed,
            row.sequences
        );
    }

    // The same bits as ASCII, in small messages: the same judgement.
    let ascii: Vec<u8> = nist::bits_of(&good)
        .chunks(64)
        .flat_map(|line| line.iter().map(|b| b'0' + b).chain([b'\n']))
        .collect();
    let as_text = send(ascii, proto::BitFormat::Ascii, 4_096).await.unwrap();
    assert_eq!(as_text.rows, fair.rows);

    // Planted bad generators fail: a biased bit, a short period.
    let mut biased = good.clone();
    biased.iter_mut().step_by(3).for_each(|b| *b |= 1);
    let period: Vec<u8> = good[..4096].iter().cycle().take(total).copied().collect();
    for (name, bad) in [("biased", biased), ("period", period)] {
        let judged = send(bad, proto::BitFormat::Raw, 60_000).await.unwrap();
        assert!(
            !judged.holds && judged.failing_rows > judged.allowed_failing_rows,
            "{name}: {} failing",
            judged.failing_rows
        );
    }

    // Short: refused, naming the field and how far it went; nothing else changed.
    let short = send(good[..total - 1].to_vec(), proto::BitFormat::Raw, 60_000)
        .await
        .unwrap_err();
    assert_eq!(short.code(), tonic::Code::InvalidArgument, "{short:?}");
    assert_eq!(
        pitboss_testkit::refusal::field(&short).as_deref(),
        Some("bits")
    );
    assert!(short.message().contains("the stream ended"), "{short:?}");
}

/// The battery over a stream agrees with `nistrng` on the same bits where both compute the same
/// statistic: two sequences of 2^20 bits of Python's `secrets` (the rank and spectral tests on the
/// first), through `pitboss rng-test --input
/// --p-values` and, unpacked by numpy, through nistrng.
#[test]
fn the_battery_over_a_stream_agrees_with_nistrng() {
    let bits = 1u64 << 20;
    let bytes = secrets(2 * bits as usize / 8);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("secrets.bin");
    std::fs::write(&input, &bytes).unwrap();
    let values = dir.path().join("p.jsonl");
    let out = std::process::Command::new(pitboss_testkit::binary())
        .args(["rng-test", "--sequences", "2", "--bits", &bits.to_string()])
        .arg("--input")
        .arg(&input)
        .arg("--p-values")
        .arg(&values)
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = std::fs::read_to_string(&values)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line["sequence"], i);
        let ours = &line["p_values"];
        // nistrng over the i-th 2^20 bits of the file, unpacked by numpy (not by our code).
        let slice = dir.path().join(format!("seq{i}.txt"));
        let unpacked = std::process::Command::new(pitboss_testkit::python())
            .args([
                "-c",
                "import numpy, sys; b = numpy.fromfile(sys.argv[1], dtype=numpy.uint8); \
                 i, n = int(sys.argv[2]), int(sys.argv[3]); \
                 bits = numpy.unpackbits(b)[i * n:(i + 1) * n]; \
                 open(sys.argv[4], 'wb').write((bits + ord('0')).astype(numpy.uint8).tobytes())",
            ])
            .arg(&input)
            .arg(i.to_string())
            .arg(bits.to_string())
            .arg(&slice)
            .status()
            .unwrap();
        assert!(unpacked.success());
        let file_bits: Vec<u8> = std::fs::read(&slice)
            .unwrap()
            .iter()
            .map(|c| c - b'0')
            .collect();
        let theirs = nistrng(&file_bits, &[]);
        let mut compared = vec![
            ("frequency", theirs["frequency"][0].clone()),
            ("runs", theirs["runs"][0].clone()),
            ("cumulative_sums[0]", theirs["cumulative_sums"][0].clone()),
            ("cumulative_sums[1]", theirs["cumulative_sums"][1].clone()),
        ];
        // nistrng's long tests take most of a minute: the first sequence's only.
        if i == 0 {
            let long = nistrng(&file_bits, &["long"]);
            compared.push(("rank", long["rank"][0].clone()));
            compared.push(("spectral", long["spectral"][0].clone()));
        }
        for (name, their) in &compared {
            let mine = ours[*name]
                .as_f64()
                .unwrap_or_else(|| panic!("{name} not in {ours}"));
            agree(&format!("sequence {i}: {name}"), mine, their);
        }
    }
}
