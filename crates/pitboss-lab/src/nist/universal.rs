//! 2.9, Maurer's "universal statistical" test: the mean log₂ distance between occurrences of
//! each L-bit block, against its expected value for a random sequence.
//!
//! Owns the statistic and the publication's table of expected values and variances; MUST NOT
//! read anything but the bits given.

use statrs::function::erf::erfc;

use super::NistError;

/// The expected value of the statistic for L = 1 to 16 (the publication's table, 2.9.7, to the
/// places of NIST's reference code).
const EXPECTED: [f64; 17] = [
    0.0, 0.7326495, 1.5374383, 2.4016068, 3.3112247, 4.2534266, 5.2177052, 6.1962507, 7.1836656,
    8.1764248, 9.1723243, 10.170032, 11.168765, 12.168070, 13.167693, 14.167488, 15.167379,
];

/// Its variance for L = 1 to 16.
const VARIANCE: [f64; 17] = [
    0.0, 0.690, 1.338, 1.901, 2.358, 2.705, 2.954, 3.125, 3.238, 3.311, 3.356, 3.384, 3.401, 3.410,
    3.416, 3.419, 3.421,
];

/// One run of the test: its parameters, statistic and P-value.
#[derive(Clone, Debug, PartialEq)]
pub struct Universal {
    /// The block length.
    pub l: usize,
    /// The blocks that initialise the table.
    pub q: usize,
    /// The blocks tested.
    pub k: usize,
    /// fₙ: the mean log₂ distance to the block's previous occurrence.
    pub statistic: f64,
    /// Its expected value for a random sequence.
    pub expected: f64,
    /// σ = c·√(variance/K), c the publication's correction for a finite K.
    pub sigma: f64,
    pub p_value: f64,
}

/// 2.9 with the publication's L for the sequence's length (6 from 387 840 bits to 16 from
/// 1 059 061 760) and Q = 10·2^L.
pub fn universal(bits: &[u8]) -> Result<Universal, NistError> {
    // The least n for L = 6, 7, … 16 (the publication's table, 2.9.7).
    const LEAST: [usize; 11] = [
        387_840,
        904_960,
        2_068_480,
        4_654_080,
        10_342_400,
        22_753_280,
        49_643_520,
        107_560_960,
        231_669_760,
        496_435_200,
        1_059_061_760,
    ];
    let Some(steps) = LEAST.iter().rposition(|&least| bits.len() >= least) else {
        return Err(NistError::TooShort {
            test: "universal",
            bits: bits.len(),
            needed: LEAST[0],
        });
    };
    let l = 6 + steps;
    universal_with(bits, l, 10 << l)
}

/// 2.9 with a block length `l` (1 to 16) and `q` initialising blocks chosen by the caller (the
/// publication's small example takes L = 2, Q = 4).
pub fn universal_with(bits: &[u8], l: usize, q: usize) -> Result<Universal, NistError> {
    const TEST: &str = "universal";
    if !(1..=16).contains(&l) || q == 0 {
        return Err(NistError::Parameter {
            test: TEST,
            problem: "L is 1 to 16 and Q at least 1",
        });
    }
    let blocks = bits.len() / l;
    if blocks <= q {
        return Err(NistError::TooShort {
            test: TEST,
            bits: bits.len(),
            needed: q.saturating_add(1).saturating_mul(l),
        });
    }
    let k = blocks - q;
    // The last (1-based) block at which each L-bit value was seen; 0 if never.
    let mut last = vec![0usize; 1 << l];
    let mut sum = 0.0;
    for (i, block) in bits.chunks_exact(l).take(blocks).enumerate() {
        let value = block.iter().fold(0, |acc, &b| acc << 1 | usize::from(b));
        let i = i + 1;
        if i > q {
            sum += ((i - last[value]) as f64).log2();
        }
        last[value] = i;
    }
    let (lf, kf) = (l as f64, k as f64);
    let statistic = sum / kf;
    let c = 0.7 - 0.8 / lf + (4.0 + 32.0 / lf) * kf.powf(-3.0 / lf) / 15.0;
    let sigma = c * (VARIANCE[l] / kf).sqrt();
    let p_value = erfc(((statistic - EXPECTED[l]) / (std::f64::consts::SQRT_2 * sigma)).abs());
    Ok(Universal {
        l,
        q,
        k,
        statistic,
        expected: EXPECTED[l],
        sigma,
        p_value,
    })
}

impl Universal {
    /// The P-value with σ = √variance, without the correction for a finite K: what the
    /// publication's small example (2.9.4) computes, and Python's `nistrng` always.
    pub fn p_value_uncorrected(&self) -> f64 {
        let sigma = VARIANCE[self.l].sqrt();
        erfc(((self.statistic - self.expected) / (std::f64::consts::SQRT_2 * sigma)).abs())
    }
}
