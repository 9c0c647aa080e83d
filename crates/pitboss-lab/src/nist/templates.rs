//! 2.7 and 2.8, the template matching tests: how often an m-bit template occurs in each block,
//! without overlap (every aperiodic template of length m) or with overlap (m ones).
//!
//! Owns the templates and both statistics; MUST NOT read anything but the bits given.

use super::{chi_square, igamc, NistError};

/// Every aperiodic ("unbordered") template of `m` bits, in ascending binary order (the order of
/// NIST's template files): no proper prefix equals the suffix of the same length, so two
/// occurrences cannot overlap. 148 of them for m = 9.
pub fn aperiodic_templates(m: usize) -> Vec<Vec<u8>> {
    if !(1..=16).contains(&m) {
        return Vec::new();
    }
    (0u32..1 << m)
        .map(|v| {
            (0..m)
                .rev()
                .map(|i| (v >> i & 1) as u8)
                .collect::<Vec<u8>>()
        })
        .filter(|t| (1..m).all(|k| t[..k] != t[m - k..]))
        .collect()
}

/// The value of `bits` read as a binary number, most significant first.
fn value_of(bits: &[u8]) -> usize {
    bits.iter().fold(0, |acc, &b| acc << 1 | usize::from(b))
}

/// 2.7: the P-value of each template of `templates` (all of one length m ≤ 16), over `blocks`
/// blocks of ⌊n/blocks⌋ bits; an occurrence found, the search goes on after it. One pass over
/// the sequence serves every template: at each position the m-bit window is at most one of them.
pub fn non_overlapping_templates(
    bits: &[u8],
    templates: &[Vec<u8>],
    blocks: usize,
) -> Result<Vec<f64>, NistError> {
    const TEST: &str = "non-overlapping template";
    let Some(m) = templates.first().map(Vec::len) else {
        return Ok(Vec::new());
    };
    if !(1..=16).contains(&m) || templates.iter().any(|t| t.len() != m) {
        return Err(NistError::Parameter {
            test: TEST,
            problem: "the templates are of one length, 1 to 16",
        });
    }
    if blocks == 0 {
        return Err(NistError::Parameter {
            test: TEST,
            problem: "at least one block",
        });
    }
    let block = bits.len() / blocks;
    if block < m {
        return Err(NistError::TooShort {
            test: TEST,
            bits: bits.len(),
            needed: blocks * m,
        });
    }
    // Which template (by index) each m-bit value is.
    let mut index = vec![usize::MAX; 1 << m];
    for (i, t) in templates.iter().enumerate() {
        index[value_of(t)] = i;
    }
    let mask = (1usize << m) - 1;
    let mut counts = vec![vec![0u64; blocks]; templates.len()];
    for (j, chunk) in bits.chunks_exact(block).take(blocks).enumerate() {
        // The position from which each template may next be found (after its last occurrence).
        let mut next = vec![0usize; templates.len()];
        let mut window = value_of(&chunk[..m - 1]);
        for (start, &bit) in chunk[m - 1..].iter().enumerate() {
            window = (window << 1 | usize::from(bit)) & mask;
            let t = index[window];
            if t != usize::MAX && start >= next[t] {
                counts[t][j] += 1;
                next[t] = start + m;
            }
        }
    }
    let (mf, bf) = (m as f64, block as f64);
    let mu = (bf - mf + 1.0) / 2f64.powi(m as i32);
    let sigma2 = bf * (1.0 / 2f64.powi(m as i32) - (2.0 * mf - 1.0) / 2f64.powi(2 * m as i32));
    Ok(counts
        .iter()
        .map(|w| {
            let chi: f64 = w.iter().map(|&w| (w as f64 - mu).powi(2) / sigma2).sum();
            igamc(blocks as f64 / 2.0, chi / 2.0)
        })
        .collect())
}

/// The probability that a block holds `u` overlapping occurrences of m ones (the publication's
/// Pr(u, η), 3.8: a compound Poisson law).
fn occurrences_probability(u: usize, eta: f64) -> f64 {
    if u == 0 {
        return (-eta).exp();
    }
    // Σ_{l=1..u} e^{−η} 2^{−u} η^l / l! · C(u − 1, l − 1), in logarithms as the reference code.
    use statrs::function::gamma::ln_gamma;
    (1..=u)
        .map(|l| {
            let (u, l) = (u as f64, l as f64);
            (-eta - u * std::f64::consts::LN_2 + l * eta.ln() - ln_gamma(l + 1.0) + ln_gamma(u)
                - ln_gamma(l)
                - ln_gamma(u - l + 1.0))
            .exp()
        })
        .sum()
}

/// The number of the template's classes in 2.8: 0 to 4 occurrences, and 5 or more.
const CLASSES: usize = 6;

/// The probabilities of the six classes for m ones in blocks of `block` bits (λ = (M − m + 1)/2^m,
/// η = λ/2).
fn class_probabilities(m: usize, block: usize) -> [f64; CLASSES] {
    let lambda = (block - m + 1) as f64 / 2f64.powi(m as i32);
    let eta = lambda / 2.0;
    let mut pi = [0.0; CLASSES];
    for (u, p) in pi.iter_mut().enumerate().take(CLASSES - 1) {
        *p = occurrences_probability(u, eta);
    }
    pi[CLASSES - 1] = 1.0 - pi[..CLASSES - 1].iter().sum::<f64>();
    pi
}

/// The fewest blocks for which 2.8's chi-square is made as a chi-square should be: every class
/// expects five blocks or more (N·min π ≥ 5).
pub(crate) fn overlapping_least_blocks(m: usize, block: usize) -> usize {
    let least = class_probabilities(m, block)
        .into_iter()
        .fold(1.0f64, f64::min);
    (5.0 / least).ceil() as usize
}

/// The fewest bits for which 2.7's statistic is near its normal law: every block expects five
/// occurrences of a template or more (μ = (M − m + 1)/2^m ≥ 5).
pub(crate) fn non_overlapping_least_bits(m: usize, blocks: usize) -> usize {
    blocks * (5 * (1 << m) + m - 1)
}

/// 2.8: the P-value of the template of `m` ones (2 to 16) over blocks of `block` bits, the
/// occurrences of each block counted with overlap, in six classes (0 to 4, 5 or more).
pub fn overlapping_template(bits: &[u8], m: usize, block: usize) -> Result<f64, NistError> {
    const TEST: &str = "overlapping template";
    if !(2..=16).contains(&m) || block < m {
        return Err(NistError::Parameter {
            test: TEST,
            problem: "m is 2 to 16 and a block at least m bits",
        });
    }
    let blocks = bits.len() / block;
    if blocks == 0 {
        return Err(NistError::TooShort {
            test: TEST,
            bits: bits.len(),
            needed: block,
        });
    }
    let mut nu = [0u64; CLASSES];
    for chunk in bits.chunks_exact(block) {
        let (mut run, mut found) = (0usize, 0usize);
        for &b in chunk {
            run = if b == 1 { run + 1 } else { 0 };
            if run >= m {
                found += 1;
            }
        }
        nu[found.min(CLASSES - 1)] += 1;
    }
    let pi = class_probabilities(m, block);
    let chi = chi_square(&nu, blocks as f64, pi);
    Ok(igamc((CLASSES - 1) as f64 / 2.0, chi / 2.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The counts of unbordered binary words (OEIS A003000): 2, 4, 6, 12, 20, 40, 74, 148 for
    /// lengths 2 to 9, and the templates NIST lists for m = 2 (01, 10) and m = 3.
    #[test]
    fn aperiodic_templates_are_the_unbordered_words() {
        let counts: Vec<usize> = (2..=9).map(|m| aperiodic_templates(m).len()).collect();
        assert_eq!(counts, [2, 4, 6, 12, 20, 40, 74, 148]);
        assert_eq!(aperiodic_templates(2), [vec![0, 1], vec![1, 0]]);
        assert_eq!(
            aperiodic_templates(3),
            [vec![0, 0, 1], vec![0, 1, 1], vec![1, 0, 0], vec![1, 1, 0]]
        );
    }

    /// The probabilities of the publication's small example (2.8.4: η = 1.125).
    #[test]
    fn occurrence_probabilities_are_the_publications() {
        let want = [0.324652, 0.182617, 0.142670, 0.106645, 0.077147];
        for (u, w) in want.iter().enumerate() {
            let got = occurrences_probability(u, 1.125);
            assert!((got - w).abs() < 1e-6, "Pr({u}) = {got}, not {w}");
        }
    }
}
