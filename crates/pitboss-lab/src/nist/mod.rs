//! The fifteen tests of NIST SP 800-22 Rev. 1a over a sequence of bits, each as the publication
//! defines it (its section, its statistic, its P-value): frequency (2.1), frequency within a
//! block (2.2), runs (2.3), the longest run of ones in a block (2.4), binary matrix rank (2.5,
//! `rank`), the discrete Fourier transform (2.6, `spectral`), non-overlapping and overlapping
//! template matching (2.7, 2.8, `templates`), Maurer's universal statistical test (2.9,
//! `universal`), linear complexity (2.10, `linear_complexity`), serial (2.11), approximate entropy
//! (2.12), cumulative sums (2.13) and the random excursions and their variant (2.14, 2.15,
//! `excursions`). Each reproduces the publication's worked examples
//! (`crates/pitboss-lab/tests/checks/nist.rs`) and agrees with an independent implementation (Python's
//! `nistrng`) on the same bits; where the publication and NIST's reference code differ, the
//! choice is named where it is made and in docs/rng-battery.md.
//!
//! Owns the statistics and the publication's assessment of many sequences: bits in (`0`/`1`
//! bytes), P-values out. MUST NOT draw randomness or read anything; the special functions are
//! `statrs`' (erfc, the regularized upper incomplete gamma function that the publication calls
//! igamc) and the Fourier transform `rustfft`'s.

mod excursions;
mod linear_complexity;
mod rank;
mod spectral;
mod templates;
mod universal;

pub use excursions::{
    random_excursions, random_excursions_variant, EXCURSION_STATES, VARIANT_STATES,
};
pub use linear_complexity::{linear_complexity, linear_complexity_of};
pub use rank::rank;
pub use spectral::spectral;
pub use templates::{aperiodic_templates, non_overlapping_templates, overlapping_template};
pub use universal::{universal, universal_with, Universal};

use statrs::function::erf::erfc;
use statrs::function::gamma::checked_gamma_ur;

/// The publication's significance level: a P-value below it fails.
pub const ALPHA: f64 = 0.01;

/// Why a test cannot be run on these bits.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NistError {
    /// Fewer bits than the test needs.
    #[error("{test}: {bits} bits, at least {needed} needed")]
    TooShort {
        test: &'static str,
        bits: usize,
        needed: usize,
    },
    /// A random walk with too few cycles for the random excursions tests (the publication's
    /// max(0.005·√n, 500)): the test does not apply to this sequence.
    #[error("{test}: {cycles} cycles, at least {needed} needed")]
    TooFewCycles {
        test: &'static str,
        cycles: u64,
        needed: u64,
    },
    /// A parameter outside the test's range.
    #[error("{test}: {problem}")]
    Parameter {
        test: &'static str,
        problem: &'static str,
    },
}

/// igamc(a, x), the publication's name: 1 at x = 0, as `statrs` defines it for a > 0, x ≥ 0.
pub(crate) fn igamc(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    checked_gamma_ur(a, x).unwrap_or(f64::NAN)
}

/// Pearson's statistic of class counts `observed` out of `total` against the classes'
/// `probabilities`: Σ (ν − N·π)²/(N·π), the statistic of every test that sorts blocks or cycles
/// into classes.
fn chi_square(observed: &[u64], total: f64, probabilities: impl IntoIterator<Item = f64>) -> f64 {
    observed
        .iter()
        .zip(probabilities)
        .map(|(&v, p)| (v as f64 - total * p).powi(2) / (total * p))
        .sum()
}

fn ones(bits: &[u8]) -> usize {
    bits.iter().filter(|&&b| b == 1).count()
}

/// 2.1: the proportion of ones over the whole sequence.
pub fn frequency(bits: &[u8]) -> Result<f64, NistError> {
    let n = bits.len();
    if n == 0 {
        return Err(NistError::TooShort {
            test: "frequency",
            bits: n,
            needed: 1,
        });
    }
    let sum = 2.0 * ones(bits) as f64 - n as f64;
    let s_obs = sum.abs() / (n as f64).sqrt();
    Ok(erfc(s_obs / std::f64::consts::SQRT_2))
}

/// 2.2: the proportion of ones within each block of `m` bits (the bits beyond the last whole
/// block are left out).
pub fn block_frequency(bits: &[u8], m: usize) -> Result<f64, NistError> {
    if m == 0 {
        return Err(NistError::Parameter {
            test: "block frequency",
            problem: "the block size is at least 1",
        });
    }
    let blocks = bits.len() / m;
    if blocks == 0 {
        return Err(NistError::TooShort {
            test: "block frequency",
            bits: bits.len(),
            needed: m,
        });
    }
    let chi: f64 = bits
        .chunks_exact(m)
        .map(|block| {
            let pi = ones(block) as f64 / m as f64;
            (pi - 0.5) * (pi - 0.5)
        })
        .sum::<f64>()
        * 4.0
        * m as f64;
    Ok(igamc(blocks as f64 / 2.0, chi / 2.0))
}

/// 2.3: the number of runs. A sequence that fails the frequency prerequisite (|π − ½| ≥ 2/√n)
/// gets 0, as the publication says.
pub fn runs(bits: &[u8]) -> Result<f64, NistError> {
    let n = bits.len();
    if n < 2 {
        return Err(NistError::TooShort {
            test: "runs",
            bits: n,
            needed: 2,
        });
    }
    let pi = ones(bits) as f64 / n as f64;
    if (pi - 0.5).abs() >= 2.0 / (n as f64).sqrt() {
        return Ok(0.0);
    }
    let v = 1 + bits.windows(2).filter(|w| w[0] != w[1]).count();
    let nf = n as f64;
    let x =
        (v as f64 - 2.0 * nf * pi * (1.0 - pi)).abs() / (2.0 * (2.0 * nf).sqrt() * pi * (1.0 - pi));
    Ok(erfc(x))
}

/// 2.4: the longest run of ones within blocks, with the publication's block size, classes and
/// their probabilities by the sequence's length (at least 128 bits), over every whole block
/// (N = ⌊n/M⌋, as NIST's reference code counts them; the publication's table gives the least N
/// for each M).
pub fn longest_run(bits: &[u8]) -> Result<f64, NistError> {
    let n = bits.len();
    // (M, N, the class of a longest run v: index = clamp(v - lowest, 0, classes - 1), π).
    // (M, the least N the table names for it, the lowest class, π).
    let (m, _least, lowest, pi): (usize, usize, usize, &[f64]) = if n < 128 {
        return Err(NistError::TooShort {
            test: "longest run",
            bits: n,
            needed: 128,
        });
    } else if n < 6272 {
        // Exact (the publication's table rounds them to four places; its worked example, and
        // NIST's reference code, use these).
        (8, 16, 1, &[0.21484375, 0.3671875, 0.23046875, 0.1875])
    } else if n < 750_000 {
        // As NIST's reference code has them (the table rounds them to four places).
        (
            128,
            49,
            4,
            &[
                0.1174035788,
                0.242955959,
                0.249363483,
                0.17517706,
                0.102701071,
                0.112398847,
            ],
        )
    } else {
        (
            10_000,
            75,
            10,
            &[0.0882, 0.2092, 0.2483, 0.1933, 0.1208, 0.0675, 0.0727],
        )
    };
    let blocks = n / m;
    let mut counts = vec![0u64; pi.len()];
    for block in bits.chunks_exact(m) {
        let (mut run, mut longest) = (0usize, 0usize);
        for &b in block {
            run = if b == 1 { run + 1 } else { 0 };
            longest = longest.max(run);
        }
        counts[longest.saturating_sub(lowest).min(pi.len() - 1)] += 1;
    }
    let chi = chi_square(&counts, blocks as f64, pi.iter().copied());
    Ok(igamc((pi.len() - 1) as f64 / 2.0, chi / 2.0))
}

/// How often each `m`-bit pattern starts at each of the n positions, the sequence wrapped around.
fn pattern_counts(bits: &[u8], m: usize) -> Vec<u64> {
    let n = bits.len();
    let mut counts = vec![0u64; 1 << m];
    for start in 0..n {
        let mut pattern = 0usize;
        for k in 0..m {
            pattern = pattern << 1 | usize::from(bits[(start + k) % n]);
        }
        counts[pattern] += 1;
    }
    counts
}

/// 2.11: the frequency of every overlapping `m`-bit pattern: its two P-values (∇ψ²m, ∇²ψ²m).
pub fn serial(bits: &[u8], m: usize) -> Result<(f64, f64), NistError> {
    let n = bits.len();
    if !(2..=16).contains(&m) {
        return Err(NistError::Parameter {
            test: "serial",
            problem: "the pattern length is 2 to 16",
        });
    }
    if n < m {
        return Err(NistError::TooShort {
            test: "serial",
            bits: n,
            needed: m,
        });
    }
    let psi = |m: usize| -> f64 {
        if m == 0 {
            return 0.0;
        }
        let sum: f64 = pattern_counts(bits, m)
            .iter()
            .map(|&c| (c * c) as f64)
            .sum();
        sum * (1u64 << m) as f64 / n as f64 - n as f64
    };
    let (p0, p1, p2) = (psi(m), psi(m - 1), psi(m - 2));
    let del1 = p0 - p1;
    let del2 = p0 - 2.0 * p1 + p2;
    Ok((
        igamc((1u64 << (m - 2)) as f64, del1 / 2.0),
        if m >= 3 {
            igamc((1u64 << (m - 3)) as f64, del2 / 2.0)
        } else {
            // 2^(m−3) degrees is ½ at m = 2, as the publication's formula gives.
            igamc(0.5, del2 / 2.0)
        },
    ))
}

/// 2.12: the approximate entropy of overlapping `m`- and (`m` + 1)-bit patterns.
pub fn approximate_entropy(bits: &[u8], m: usize) -> Result<f64, NistError> {
    let n = bits.len();
    if !(1..=16).contains(&m) {
        return Err(NistError::Parameter {
            test: "approximate entropy",
            problem: "the block length is 1 to 16",
        });
    }
    if n <= m {
        return Err(NistError::TooShort {
            test: "approximate entropy",
            bits: n,
            needed: m + 1,
        });
    }
    let phi = |m: usize| -> f64 {
        pattern_counts(bits, m)
            .iter()
            .filter(|&&c| c > 0)
            .map(|&c| {
                let p = c as f64 / n as f64;
                p * p.ln()
            })
            .sum()
    };
    let apen = phi(m) - phi(m + 1);
    let chi = 2.0 * n as f64 * (std::f64::consts::LN_2 - apen);
    Ok(igamc((1u64 << (m - 1)) as f64, chi / 2.0))
}

/// The standard normal distribution function.
fn normal(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// 2.13: the largest excursion of the cumulative sum of ±1, forward (`false`) or backward.
pub fn cumulative_sums(bits: &[u8], backward: bool) -> Result<f64, NistError> {
    let n = bits.len();
    if n == 0 {
        return Err(NistError::TooShort {
            test: "cumulative sums",
            bits: n,
            needed: 1,
        });
    }
    let mut sum = 0i64;
    let mut z = 0i64;
    let mut step = |b: u8| {
        sum += if b == 1 { 1 } else { -1 };
        z = z.max(sum.abs());
    };
    if backward {
        bits.iter().rev().for_each(|&b| step(b));
    } else {
        bits.iter().for_each(|&b| step(b));
    }
    // The sums' bounds in integers, truncated towards zero as NIST's reference code computes them
    // (the publication's worked example, 0.4116588, is that code's; a floor instead adds terms
    // below 10⁻⁴ for short sequences and nothing measurable for long ones).
    let (ni, zi) = (n as i64, z);
    let (n, z) = (n as f64, z as f64);
    let root = n.sqrt();
    let first: f64 = ((-ni / zi + 1) / 4..=(ni / zi - 1) / 4)
        .map(|k| {
            let k = k as f64;
            normal((4.0 * k + 1.0) * z / root) - normal((4.0 * k - 1.0) * z / root)
        })
        .sum();
    let second: f64 = ((-ni / zi - 3) / 4..=(ni / zi - 1) / 4)
        .map(|k| {
            let k = k as f64;
            normal((4.0 * k + 3.0) * z / root) - normal((4.0 * k + 1.0) * z / root)
        })
        .sum();
    Ok(1.0 - first + second)
}

/// The bits of `bytes`, most significant bit of each byte first.
pub fn bits_of(bytes: &[u8]) -> Vec<u8> {
    bytes
        .iter()
        .flat_map(|byte| (0..8).rev().map(move |i| byte >> i & 1))
        .collect()
}

/// `text` of `0` and `1` characters (anything else left out) as bits.
pub fn bits_of_text(text: &str) -> Vec<u8> {
    text.bytes()
        .filter_map(|c| match c {
            b'0' => Some(0),
            b'1' => Some(1),
            _ => None,
        })
        .collect()
}

/// The publication's verdict on one test over many sequences (4.2): the proportion that passed
/// against its acceptable range `p̂ − 3·√(p̂(1 − p̂)/m)` with p̂ = 1 − α, and the uniformity of the
/// P-values over ten bins (a chi-square; P-valueT ≥ 0.0001).
#[derive(Clone, Debug, PartialEq)]
pub struct Assessment {
    pub sequences: usize,
    pub passed: usize,
    /// The least proportion the publication accepts for this many sequences.
    pub least_proportion: f64,
    pub uniformity: f64,
}

impl Assessment {
    /// The P-values of one test over `p_values.len()` sequences.
    pub fn of(p_values: &[f64]) -> Assessment {
        let m = p_values.len();
        let passed = p_values.iter().filter(|&&p| p >= ALPHA).count();
        let p_hat = 1.0 - ALPHA;
        let least = p_hat - 3.0 * (p_hat * (1.0 - p_hat) / m.max(1) as f64).sqrt();
        let mut bins = [0usize; 10];
        for &p in p_values {
            bins[((p * 10.0) as usize).min(9)] += 1;
        }
        let expected = m as f64 / 10.0;
        let chi: f64 = if m == 0 {
            0.0
        } else {
            bins.iter()
                .map(|&f| (f as f64 - expected).powi(2) / expected)
                .sum()
        };
        Assessment {
            sequences: m,
            passed,
            least_proportion: least,
            uniformity: igamc(4.5, chi / 2.0),
        }
    }

    /// Whether the proportion is within range and the P-values uniform (the latter asked of 55
    /// sequences or more, as the publication advises).
    pub fn holds(&self) -> bool {
        let proportion = self.passed as f64 / self.sequences.max(1) as f64;
        proportion >= self.least_proportion && (self.sequences < 55 || self.uniformity >= 0.0001)
    }
}

/// One test of the battery on one sequence.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The test's name (`frequency`, `rank`, …).
    pub test: &'static str,
    /// Each P-value with its label within the test (empty when the test gives one): the serial
    /// and cumulative sums tests' `0`, `1`; a template's bits; a random excursion's state.
    pub result: Result<Vec<(String, f64)>, NistError>,
}

impl Outcome {
    fn one(test: &'static str, p: Result<f64, NistError>) -> Outcome {
        Outcome {
            test,
            result: p.map(|p| vec![(String::new(), p)]),
        }
    }

    fn numbered(test: &'static str, p: Result<Vec<f64>, NistError>) -> Outcome {
        Outcome {
            test,
            result: p.map(|p| {
                p.into_iter()
                    .enumerate()
                    .map(|(i, p)| (i.to_string(), p))
                    .collect()
            }),
        }
    }
}

/// The block of the frequency-within-a-block test in the battery.
pub const BATTERY_BLOCK: usize = 128;
/// The template length of both template tests in the battery.
pub const BATTERY_TEMPLATE: usize = 9;
/// The blocks of the non-overlapping template test in the battery.
pub const BATTERY_TEMPLATE_BLOCKS: usize = 8;
/// The block of the overlapping template test in the battery.
pub const BATTERY_OVERLAPPING_BLOCK: usize = 1032;
/// The block of the linear complexity test in the battery.
pub const BATTERY_LFSR_BLOCK: usize = 500;

/// The fewest bits the battery runs the spectral test on (the publication's recommendation).
pub const SPECTRAL_LEAST_BITS: usize = 1000;

/// `needed` bits or more, or the test `test` is too short to run.
fn at_least(test: &'static str, bits: usize, needed: usize) -> Result<(), NistError> {
    if bits < needed {
        return Err(NistError::TooShort { test, bits, needed });
    }
    Ok(())
}

/// Every test of the publication on one sequence, with the parameters of NIST's reference code
/// where it has them: blocks of 128 bits (2.2), templates of 9 bits (2.7: all 148, in 8 blocks;
/// 2.8: blocks of 1 032 bits), L by the length (2.9), blocks of 500 bits (2.10); for the serial
/// test m = ⌊log₂ n⌋ − 3 (2 to 16) and for the approximate entropy test m = ⌊log₂ n⌋ − 6 (1 to
/// 10), within the publication's advice. A test the sequence is too short for says so, as one
/// whose statistic would not follow its law yet: the spectral test under 1 000 bits, the
/// non-overlapping templates until a block expects five occurrences, the overlapping template
/// until each class expects five blocks.
pub fn battery(bits: &[u8]) -> Vec<Outcome> {
    let n = bits.len();
    // The publication's advice: m < ⌊log2 n⌋ − 2 (serial), m < ⌊log2 n⌋ − 5 (entropy).
    let log2 = (usize::BITS - n.max(1).leading_zeros() - 1) as usize;
    let serial_m = log2.saturating_sub(3).clamp(2, 16);
    let entropy_m = log2.saturating_sub(6).clamp(1, 10);
    let templates = aperiodic_templates(BATTERY_TEMPLATE);
    let labelled = |p: Result<(Vec<f64>, u64), NistError>, states: &[i64]| {
        p.map(|(p, _)| {
            states
                .iter()
                .zip(p)
                .map(|(x, p)| (format!("{x:+}"), p))
                .collect()
        })
    };
    vec![
        Outcome::one("frequency", frequency(bits)),
        Outcome::one("block_frequency", block_frequency(bits, BATTERY_BLOCK)),
        Outcome::one("runs", runs(bits)),
        Outcome::one("longest_run", longest_run(bits)),
        Outcome::one("rank", rank(bits)),
        Outcome::one(
            "spectral",
            at_least("spectral", n, SPECTRAL_LEAST_BITS).and_then(|()| spectral(bits)),
        ),
        Outcome {
            test: "non_overlapping_template",
            result: at_least(
                "non-overlapping template",
                n,
                templates::non_overlapping_least_bits(BATTERY_TEMPLATE, BATTERY_TEMPLATE_BLOCKS),
            )
            .and_then(|()| non_overlapping_templates(bits, &templates, BATTERY_TEMPLATE_BLOCKS))
            .map(|p| {
                templates
                    .iter()
                    .zip(p)
                    .map(|(t, p)| (t.iter().map(|b| char::from(b'0' + b)).collect(), p))
                    .collect()
            }),
        },
        Outcome::one(
            "overlapping_template",
            at_least(
                "overlapping template",
                n,
                templates::overlapping_least_blocks(BATTERY_TEMPLATE, BATTERY_OVERLAPPING_BLOCK)
                    * BATTERY_OVERLAPPING_BLOCK,
            )
            .and_then(|()| overlapping_template(bits, BATTERY_TEMPLATE, BATTERY_OVERLAPPING_BLOCK)),
        ),
        Outcome::one("universal", universal(bits).map(|u| u.p_value)),
        Outcome::one(
            "linear_complexity",
            linear_complexity(bits, BATTERY_LFSR_BLOCK),
        ),
        Outcome::numbered("serial", serial(bits, serial_m).map(|(a, b)| vec![a, b])),
        Outcome::one("approximate_entropy", approximate_entropy(bits, entropy_m)),
        Outcome::numbered("cumulative_sums", {
            match (cumulative_sums(bits, false), cumulative_sums(bits, true)) {
                (Ok(a), Ok(b)) => Ok(vec![a, b]),
                (Err(e), _) | (_, Err(e)) => Err(e),
            }
        }),
        Outcome {
            test: "random_excursions",
            result: labelled(random_excursions(bits), &EXCURSION_STATES),
        },
        Outcome {
            test: "random_excursions_variant",
            result: labelled(random_excursions_variant(bits), &VARIANT_STATES),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// P-values spread evenly pass; all of them at 0.005 fail both rules.
    #[test]
    fn the_assessment_reads_proportion_and_uniformity() {
        let even: Vec<f64> = (0..1000).map(|i| (i as f64 + 0.5) / 1000.0).collect();
        let a = Assessment::of(&even);
        assert_eq!(a.passed, 990);
        assert!(a.holds() && a.uniformity > 0.99, "{a:?}");
        let bad = Assessment::of(&vec![0.005; 100]);
        assert_eq!(bad.passed, 0);
        assert!(!bad.holds() && bad.uniformity < 1e-10, "{bad:?}");
        // 100 sequences: at least 0.96015 must pass (the publication's example, 4.2.1).
        assert!((Assessment::of(&vec![0.5; 100]).least_proportion - 0.960150).abs() < 1e-5);
    }
}
