//! The RNG battery over pitboss's own RNG: S sequences of N bits of its raw output (the words
//! `pitboss rng` writes, a fresh seed every 1 024 words as hands draw them), every SP 800-22 test
//! of [`crate::nist`] on each, and with each sequence the table-game tests of
//! [`crate::deal_tests`] on as many deals and dice (N/64 shuffles of each deck, N/32 dice, N/256
//! seeds one bit apart), judged as the publication judges a generator (4.2): for each P-value of
//! each test, the proportion of sequences that pass and the uniformity of the P-values. The seeds
//! derive from one master seed, SHA-256(master ‖ sequence ‖ chunk) for the words and
//! SHA-256(master ‖ sequence ‖ test ‖ i) for the deals, so a run is reproduced exactly by its
//! [`Plan::command`].
//!
//! Any other generator's bits are judged the same way ([`run_input`]): read in order from a stream
//! (a file, standard input), raw bytes or the ASCII `0`/`1` NIST's STS reads, each sequence's N
//! bits in turn — the SP 800-22 tests only, the table-game tests dealing from pitboss's own seeds.
//!
//! Owns the plan's bounds, the seeds' derivation and the judgement; `pitboss rng-test` and
//! `Lab.TestRng` print or send what it returns. MUST NOT read anything but the plan; it stops
//! between sequences when its [`Run`] is stopped.

use sha2::{Digest, Sha256};

use pitboss_engine::rng::Seed;

use crate::deal_tests;
use crate::nist::{self, Assessment, NistError};
use crate::{LabError, Run};

/// The most sequences one run tests.
pub const MAX_SEQUENCES: u32 = 10_000;
/// The fewest bits per sequence.
pub const MIN_BITS: u64 = 128;
/// The most bits per sequence (2^23: the spectral test's transform holds 16 bytes a bit, 128 MiB).
pub const MAX_BITS: u64 = 1 << 23;
/// The most bits one run tests in all (5 × 10^9, about 15 minutes here).
pub const MAX_TOTAL_BITS: u64 = 5_000_000_000;
/// The memory one run's sequences may hold at once, across its threads.
pub const MEMORY_BUDGET: u64 = 512 * 1024 * 1024;
/// What one sequence in flight holds, per bit: the bits as bytes, and the spectral test's
/// transform and its scratch (16 bytes a bit each), with room to spare.
const BYTES_PER_BIT: u64 = 40;

/// Words drawn from each seed, as a hand draws them.
pub const WORDS_PER_SEED: u64 = 1024;

/// A plan's field out of bounds, named.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {problem}")]
pub struct PlanError {
    /// The field (`sequences`, `bits`, `seed`).
    pub field: &'static str,
    pub problem: &'static str,
}

/// What one run tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The master seed every sequence's seeds derive from.
    pub master: [u8; 32],
    pub sequences: u32,
    /// Bits per sequence: a multiple of 32 (whole words).
    pub bits: u64,
}

impl Plan {
    /// A plan within bounds: 1 to [`MAX_SEQUENCES`] sequences of [`MIN_BITS`] to [`MAX_BITS`]
    /// bits (a multiple of 32), at most [`MAX_TOTAL_BITS`] in all.
    pub fn new(master: [u8; 32], sequences: u32, bits: u64) -> Result<Plan, PlanError> {
        if sequences == 0 || sequences > MAX_SEQUENCES {
            return Err(PlanError {
                field: "sequences",
                problem: "1 to 10000",
            });
        }
        if !(MIN_BITS..=MAX_BITS).contains(&bits) || !bits.is_multiple_of(32) {
            return Err(PlanError {
                field: "bits",
                problem: "a multiple of 32 from 128 to 8388608",
            });
        }
        if u64::from(sequences) * bits > MAX_TOTAL_BITS {
            return Err(PlanError {
                field: "bits",
                problem: "sequences × bits at most 5000000000",
            });
        }
        Ok(Plan {
            master,
            sequences,
            bits,
        })
    }

    /// The command that runs this plan again, exactly.
    pub fn command(&self) -> String {
        format!(
            "pitboss rng-test --sequences {} --bits {} --seed {}",
            self.sequences,
            self.bits,
            hex::encode(self.master)
        )
    }

    /// The command that runs this plan again over the same bits of another generator, written in
    /// `format`, from `source` (a file's name).
    pub fn input_command(&self, source: &str, format: InputFormat) -> String {
        format!(
            "pitboss rng-test --input {source} --format {} --sequences {} --bits {}",
            format.name(),
            self.sequences,
            self.bits
        )
    }

    /// Sequence `sequence`'s bits: its words, a seed SHA-256(master ‖ sequence ‖ chunk) for each
    /// chunk of [`WORDS_PER_SEED`] words, most significant bit of each byte first.
    pub fn sequence_bits(&self, sequence: u32) -> Vec<u8> {
        let mut chunk = 0u64;
        let mut words = Vec::with_capacity(self.bits as usize / 8);
        crate::rng_output::write_words(&mut words, self.bits / 32, WORDS_PER_SEED, || {
            let digest: [u8; 32] = Sha256::new()
                .chain_update(self.master)
                .chain_update(sequence.to_be_bytes())
                .chain_update(chunk.to_be_bytes())
                .finalize()
                .into();
            chunk += 1;
            Ok(Seed::from_bytes(digest))
        })
        .expect("writing to a Vec cannot fail");
        nist::bits_of(&words)
    }

    /// `count` seeds for the table-game test `test` of sequence `sequence`.
    fn deal_seeds(
        &self,
        sequence: u32,
        test: &'static str,
        count: u64,
    ) -> impl Iterator<Item = Seed> + '_ {
        (0..count).map(move |i| {
            Seed::from_bytes(
                Sha256::new()
                    .chain_update(self.master)
                    .chain_update(sequence.to_be_bytes())
                    .chain_update(test.as_bytes())
                    .chain_update(i.to_be_bytes())
                    .finalize()
                    .into(),
            )
        })
    }

    /// The table-game tests of sequence `sequence`: (name, P-value or why not).
    fn deal_outcomes(&self, sequence: u32) -> Vec<(&'static str, Result<f64, String>)> {
        use pitboss_engine::card::Deck;
        let n = self.bits;
        let cards = |deck: Deck, tag: &'static str| {
            deal_tests::cards_by_position(deck, self.deal_seeds(sequence, tag, n / 64))
                .map(|c| c.p_value)
                .map_err(|e| e.to_string())
        };
        let (faces, pairs) = match deal_tests::dice(
            self.deal_seeds(sequence, "dice", n / (32 * DICE_PER_SEED as u64)),
            DICE_PER_SEED,
        ) {
            Ok((faces, pairs)) => (Ok(faces.p_value), Ok(pairs.p_value)),
            Err(e) => (Err(e.to_string()), Err(e.to_string())),
        };
        vec![
            ("cards_by_position[52]", cards(Deck::Standard52, "cards52")),
            ("cards_by_position[53]", cards(Deck::WithJoker53, "cards53")),
            ("die_faces", faces),
            ("dice_pairs", pairs),
            (
                "seed_avalanche",
                deal_tests::seed_avalanche(
                    Deck::Standard52,
                    self.deal_seeds(sequence, "avalanche", n / 256),
                )
                .map_err(|e| e.to_string()),
            ),
        ]
    }
}

/// Dice thrown from each seed in the dice tests (a Nutz shake throws up to six).
const DICE_PER_SEED: usize = 6;

/// One P-value of one test over every sequence it applied to, judged.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    /// `test` or `test[label]` (`serial[1]`, `random_excursions[+1]`, a template's bits).
    pub name: String,
    pub assessment: Assessment,
}

/// A test that gave no P-value on some sequences, and why (the first reason met).
#[derive(Clone, Debug, PartialEq)]
pub struct NotRun {
    pub test: &'static str,
    /// Sequences it did not apply to.
    pub sequences: u32,
    pub reason: String,
}

/// A whole run.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub plan: Plan,
    pub judged: Vec<Judged>,
    pub not_run: Vec<NotRun>,
    /// The rows that fail the publication's rules.
    pub failing: u32,
    /// How many rows a perfect generator fails by chance, on average: the sum of each row's own
    /// chance (its proportion under the least, a binomial tail; from 55 sequences, its uniformity
    /// under 0.0001).
    pub expected_failing: f64,
    /// The most failing rows chance explains: the largest F with P(Poisson(expected) ≥ F) ≥
    /// 0.0001.
    pub allowed_failing: u32,
    /// Each sequence's own P-values by row, in sequence order, when [`Detail::PValues`] asked
    /// for them (to set beside another implementation's on the same bits); empty otherwise.
    pub p_values: Vec<Vec<(String, f64)>>,
}

/// What a run keeps besides its judgement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Detail {
    /// The rows only.
    #[default]
    Rows,
    /// Also each sequence's P-values ([`Report::p_values`]): some 200 a sequence.
    PValues,
}

impl Report {
    /// The run's verdict: no more rows fail than chance explains. With some two hundred rows a
    /// perfect generator fails a few (a row of 100 sequences fails 1.8 % of the time); each
    /// failing row is still shown, and the publication's advice for one is to test again with
    /// more sequences. A test not run is said so, and does not fail the run.
    pub fn holds(&self) -> bool {
        self.failing <= self.allowed_failing
    }
}

/// The chance that a row over `sequences` sequences fails the publication's rules under the
/// hypothesis of randomness.
fn chance_of_failing(sequences: usize, least_proportion: f64) -> f64 {
    use statrs::distribution::{Binomial, DiscreteCDF};
    let m = sequences as u64;
    // It fails when passed < least·m, i.e. passed ≤ ⌈least·m⌉ − 1.
    let least_passed = (least_proportion * m as f64).ceil() as u64;
    let proportion = match (least_passed, Binomial::new(1.0 - nist::ALPHA, m)) {
        (0, _) | (_, Err(_)) => 0.0,
        (least, Ok(binomial)) => binomial.cdf(least - 1),
    };
    let uniformity = if sequences >= 55 { 0.0001 } else { 0.0 };
    (proportion + uniformity).min(1.0)
}

/// The largest count F with P(Poisson(`expected`) ≥ F) ≥ 0.0001.
fn allowed_by_chance(expected: f64) -> u32 {
    use statrs::distribution::{DiscreteCDF, Poisson};
    let Ok(poisson) = Poisson::new(expected) else {
        return 0;
    };
    let mut allowed = 0u32;
    // P(X ≥ F + 1) = 1 − P(X ≤ F).
    while allowed < 10_000 && 1.0 - poisson.cdf(u64::from(allowed)) >= 0.0001 {
        allowed += 1;
    }
    allowed
}

/// Runs `plan`; `run.done` counts the sequences tested. [`LabError::Stopped`] when `run` is
/// stopped first.
pub fn run(plan: &Plan, run: &Run) -> Result<Report, LabError> {
    judge(plan, run, true, Detail::Rows, |sequence| {
        (sequence, plan.sequence_bits(sequence))
    })
}

/// How a stream of bits is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// Raw bytes, each byte's most significant bit first (NIST STS's "binary").
    Raw,
    /// The characters `0` and `1` (NIST STS's "ASCII"); whitespace between them is skipped.
    Ascii,
}

impl InputFormat {
    /// As `pitboss rng-test --format` names it.
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Raw => "raw",
            InputFormat::Ascii => "ascii",
        }
    }
}

/// The SP 800-22 battery over `plan.sequences` sequences of `plan.bits` bits read in order from
/// `input` (any generator's output, judged exactly as the RNG's own; `plan.master` is unused). The
/// stream is read one sequence at a time, never more than the plan's bits in all; one shorter
/// than that, or with a character that is not a bit, is refused ([`LabError::Input`]) saying how
/// far it went.
pub fn run_input(
    plan: &Plan,
    input: &mut (dyn std::io::Read + Send),
    format: InputFormat,
    detail: Detail,
    run: &Run,
) -> Result<Report, LabError> {
    // The stream's sequences are numbered as they are read, whichever thread reads them.
    struct Reader<'a> {
        input: &'a mut (dyn std::io::Read + Send),
        sequences_read: u32,
        failed: Option<String>,
    }
    let reader = std::sync::Mutex::new(Reader {
        input,
        sequences_read: 0,
        failed: None,
    });
    let report = judge(plan, run, false, detail, |_| {
        let mut state = reader
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let sequence = state.sequences_read;
        if state.failed.is_some() {
            return (sequence, Vec::new());
        }
        match read_sequence(&mut *state.input, format, plan.bits) {
            Ok(bits) => {
                state.sequences_read += 1;
                (sequence, bits)
            }
            Err(problem) => {
                let read = u64::from(sequence) * plan.bits;
                state.failed = Some(format!("after {read} bits: {problem}"));
                (sequence, Vec::new())
            }
        }
    });
    let state = reader
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match state.failed {
        Some(problem) => Err(LabError::Input { problem }),
        None => report,
    }
}

/// One sequence of `bits` bits (one byte each, as [`nist::bits_of`] gives them) from `input`.
fn read_sequence(
    input: &mut dyn std::io::Read,
    format: InputFormat,
    bits: u64,
) -> Result<Vec<u8>, String> {
    let short = |got: u64| {
        format!(
            "the stream ended {got} bits into a sequence of {bits} (sequences × bits are needed)"
        )
    };
    match format {
        InputFormat::Raw => {
            let mut bytes = vec![0u8; (bits / 8) as usize];
            let mut filled = 0;
            while filled < bytes.len() {
                match input.read(&mut bytes[filled..]) {
                    Ok(0) => return Err(short(filled as u64 * 8)),
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e.to_string()),
                }
            }
            Ok(nist::bits_of(&bytes))
        }
        InputFormat::Ascii => {
            let mut out = Vec::with_capacity(bits as usize);
            let mut buffer = [0u8; 8192];
            while (out.len() as u64) < bits {
                let want = ((bits - out.len() as u64) as usize).min(buffer.len());
                let n = match input.read(&mut buffer[..want]) {
                    Ok(0) => return Err(short(out.len() as u64)),
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e.to_string()),
                };
                for &c in &buffer[..n] {
                    match c {
                        b'0' | b'1' => out.push(c - b'0'),
                        c if c.is_ascii_whitespace() => {}
                        c => {
                            return Err(format!("byte 0x{c:02x} is not a bit (0, 1 or whitespace)"))
                        }
                    }
                }
            }
            Ok(out)
        }
    }
}

/// What one sequence gave: each P-value by its row, or why a test gave none.
type SequenceOutcome = Vec<Result<(String, f64), (&'static str, String)>>;

/// Every test on sequence `sequence`, its bits `bits`; the table-game tests with `deals`.
fn sequence_outcome(plan: &Plan, sequence: u32, bits: &[u8], deals: bool) -> SequenceOutcome {
    let mut out = Vec::new();
    for outcome in nist::battery(bits) {
        match outcome.result {
            Ok(values) => out.extend(values.into_iter().map(|(label, p)| {
                let name = if label.is_empty() {
                    outcome.test.to_string()
                } else {
                    format!("{}[{label}]", outcome.test)
                };
                Ok((name, p))
            })),
            Err(e) => out.push(Err((outcome.test, reason(&e)))),
        }
    }
    let dealt = if deals {
        plan.deal_outcomes(sequence)
    } else {
        Vec::new()
    };
    for (test, outcome) in dealt {
        out.push(match outcome {
            Ok(p) => Ok((test.to_string(), p)),
            Err(reason) => Err((test, format!("not run: {reason}"))),
        });
    }
    out
}

/// The battery with the bits of each sequence from `bits_of` (the RNG's own in [`run`]; a
/// generator built to fail in the tests), the table-game tests from the plan's seeds; the
/// sequences shared among [`crate::threads`] threads, fewer when [`MEMORY_BUDGET`] would not hold
/// them, their outcomes gathered in sequence order (so the report is the same whatever the
/// threads).
fn judge(
    plan: &Plan,
    run: &Run,
    deals: bool,
    detail: Detail,
    bits_of: impl Fn(u32) -> (u32, Vec<u8>) + Sync,
) -> Result<Report, LabError> {
    use std::sync::atomic::{AtomicU32, Ordering};
    let next = AtomicU32::new(0);
    // As many threads as the cores, the sequences and the memory budget allow: one for the
    // longest sequences.
    let by_memory = (MEMORY_BUDGET / (plan.bits * BYTES_PER_BIT)).max(1) as usize;
    let threads = crate::threads()
        .min(by_memory)
        .clamp(1, plan.sequences as usize);
    let mut outcomes: Vec<(u32, SequenceOutcome)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let sequence = next.fetch_add(1, Ordering::Relaxed);
                        if sequence >= plan.sequences || run.stopped() {
                            return mine;
                        }
                        let (sequence, bits) = bits_of(sequence);
                        mine.push((sequence, sequence_outcome(plan, sequence, &bits, deals)));
                        run.done.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| {
                w.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    if run.stopped() {
        return Err(LabError::Stopped);
    }
    outcomes.sort_by_key(|(sequence, _)| *sequence);
    let mut columns: Vec<(String, Vec<f64>)> = Vec::new();
    let mut not_run: Vec<NotRun> = Vec::new();
    let mut p_values = Vec::new();
    for (_, outcome) in outcomes {
        let mut mine = Vec::new();
        for value in outcome {
            match value {
                Ok((name, p)) => {
                    if detail == Detail::PValues {
                        mine.push((name.clone(), p));
                    }
                    push(&mut columns, name, p);
                }
                Err((test, reason)) => not_applied(&mut not_run, test, reason),
            }
        }
        if detail == Detail::PValues {
            p_values.push(mine);
        }
    }
    let judged: Vec<Judged> = columns
        .into_iter()
        .map(|(name, values)| Judged {
            name,
            assessment: Assessment::of(&values),
        })
        .collect();
    let failing = judged.iter().filter(|j| !j.assessment.holds()).count() as u32;
    let expected_failing: f64 = judged
        .iter()
        .map(|j| chance_of_failing(j.assessment.sequences, j.assessment.least_proportion))
        .sum();
    Ok(Report {
        plan: plan.clone(),
        judged,
        not_run,
        failing,
        expected_failing,
        allowed_failing: allowed_by_chance(expected_failing),
        p_values,
    })
}

fn push(columns: &mut Vec<(String, Vec<f64>)>, name: String, p: f64) {
    match columns.iter_mut().find(|(c, _)| *c == name) {
        Some((_, values)) => values.push(p),
        None => columns.push((name, vec![p])),
    }
}

fn not_applied(not_run: &mut Vec<NotRun>, test: &'static str, reason: String) {
    match not_run.iter_mut().find(|n| n.test == test) {
        Some(n) => n.sequences += 1,
        None => not_run.push(NotRun {
            test,
            sequences: 1,
            reason,
        }),
    }
}

fn reason(e: &NistError) -> String {
    match e {
        NistError::TooFewCycles { .. } => format!("not applicable: {e}"),
        _ => format!("not run: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of 100 sequences fails when fewer than 97 pass (0.99 − 3·√(0.0099/100) = 0.96015):
    /// P(Binomial(100, 0.99) ≤ 96) = 0.018374, and its uniformity one time in 10 000.
    #[test]
    fn a_rows_chance_of_failing() {
        let least = Assessment::of(&[0.5; 100]).least_proportion;
        let chance = chance_of_failing(100, least);
        assert!((chance - (0.018_374 + 0.0001)).abs() < 2e-6, "{chance}");
        // Under 55 sequences the uniformity is not asked.
        let least = Assessment::of(&[0.5; 20]).least_proportion;
        assert!(chance_of_failing(20, least) < 0.02);
    }

    /// The RNG's own bits hold over 60 sequences (a fixed seed); bits with one in ten forced to
    /// one, from the same RNG, fail the run.
    #[test]
    fn the_rng_holds_and_a_biased_generator_fails_the_run() {
        let plan = Plan::new([3; 32], 60, 65_536).unwrap();
        let fair = run(&plan, &Run::default()).unwrap();
        assert!(
            fair.holds(),
            "{} failing of {}",
            fair.failing,
            fair.allowed_failing
        );
        assert!(fair.expected_failing > 0.5 && fair.judged.len() > 150);
        let biased = judge(&plan, &Run::default(), true, Detail::Rows, |sequence| {
            let mut bits = plan.sequence_bits(sequence);
            bits.iter_mut().step_by(10).for_each(|b| *b = 1);
            (sequence, bits)
        })
        .unwrap();
        assert!(!biased.holds(), "{biased:?}");
        assert!(biased.failing > biased.allowed_failing);
        let frequency = biased
            .judged
            .iter()
            .find(|j| j.name == "frequency")
            .unwrap();
        assert_eq!(frequency.assessment.passed, 0);
    }

    /// Any stream is judged as the RNG is: SHA-256 in counter mode (a good generator nobody here
    /// wrote) holds, raw or as NIST's ASCII with the same verdict row for row; planted bad
    /// generators fail — a biased bit, a short period (every sequence the same bits), a repeated
    /// block (each sequence's second half its first); a stream too short, or a character that is
    /// not a bit, is refused saying where.
    #[test]
    fn any_stream_is_judged_and_planted_bad_generators_fail() {
        let plan = Plan::new([0; 32], 60, 65_536).unwrap();
        let total = (60 * 65_536 / 8) as usize;
        let good: Vec<u8> = (0..(total / 32) as u64)
            .flat_map(|i| Sha256::digest(i.to_be_bytes()).to_vec())
            .collect();
        let judged = |bytes: &[u8], format| {
            let mut stream = bytes;
            run_input(&plan, &mut stream, format, Detail::Rows, &Run::default())
        };
        let fair = judged(&good, InputFormat::Raw).unwrap();
        assert!(fair.holds(), "{} failing", fair.failing);
        assert!(fair.p_values.is_empty());
        // Each sequence's P-values, when kept, are the tests' on that sequence's slice of the
        // stream, in the stream's order whichever thread read it.
        let kept = run_input(
            &plan,
            &mut &good[..],
            InputFormat::Raw,
            Detail::PValues,
            &Run::default(),
        )
        .unwrap();
        assert_eq!(kept.judged, fair.judged);
        assert_eq!(kept.p_values.len(), 60);
        for (i, values) in kept.p_values.iter().enumerate().step_by(17) {
            let slice = &good[i * 8192..(i + 1) * 8192];
            let frequency = nist::frequency(&nist::bits_of(slice)).unwrap();
            assert!(
                values.contains(&("frequency".to_string(), frequency)),
                "{i}"
            );
        }
        assert!(fair.not_run.iter().all(|n| !n.test.contains("cards")));
        let mut ascii = Vec::new();
        for (i, bit) in nist::bits_of(&good).into_iter().enumerate() {
            ascii.push(b'0' + bit);
            if i % 64 == 63 {
                ascii.push(b'\n');
            }
        }
        assert_eq!(
            judged(&ascii, InputFormat::Ascii).unwrap().judged,
            fair.judged
        );
        let mut biased = good.clone();
        biased.iter_mut().step_by(3).for_each(|b| *b |= 1);
        let period: Vec<u8> = good[..4096].iter().cycle().take(total).copied().collect();
        let repeated: Vec<u8> = good
            .chunks(4096)
            .step_by(2)
            .flat_map(|half| [half, half].concat())
            .take(total)
            .collect();
        for (name, bad) in [
            ("biased", biased),
            ("period", period),
            ("repeated", repeated),
        ] {
            let report = judged(&bad, InputFormat::Raw).unwrap();
            assert!(
                !report.holds(),
                "{name}: {} failing, {} allowed",
                report.failing,
                report.allowed_failing
            );
        }
        let short = judged(&good[..total - 1], InputFormat::Raw).unwrap_err();
        assert!(
            matches!(&short, LabError::Input { problem } if problem.contains("after 3866624 bits")),
            "{short}"
        );
        ascii[100] = b'2';
        let stray = judged(&ascii, InputFormat::Ascii).unwrap_err();
        assert!(
            matches!(&stray, LabError::Input { problem } if problem.contains("0x32")),
            "{stray}"
        );
    }

    /// At 128 bits the tests whose statistic cannot follow its law yet are said not run rather
    /// than failed (every template row would fail a perfect generator there), and the run holds.
    #[test]
    fn short_sequences_run_only_what_they_can() {
        let tiny = run(&Plan::new([4; 32], 60, 128).unwrap(), &Run::default()).unwrap();
        for test in [
            "spectral",
            "non_overlapping_template",
            "overlapping_template",
            "cards_by_position[52]",
        ] {
            assert!(
                tiny.not_run
                    .iter()
                    .any(|n| n.test == test && n.sequences == 60),
                "{test}: {:?}",
                tiny.not_run
            );
        }
        assert!(tiny.judged.iter().any(|j| j.name == "frequency"));
        assert!(tiny.holds(), "{} failing", tiny.failing);
    }

    /// With λ = 0.8 expected, P(X ≥ 6) = 0.00018 and P(X ≥ 7) = 0.000021: six rows are chance,
    /// seven are not.
    #[test]
    fn failing_rows_allowed_by_chance() {
        assert_eq!(allowed_by_chance(0.8), 6);
        assert_eq!(allowed_by_chance(0.0), 0);
    }
}
