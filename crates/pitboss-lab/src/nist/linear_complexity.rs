//! 2.10, the linear complexity test: the length of the shortest LFSR that generates each block
//! (Berlekamp–Massey over GF(2)), against its distribution for random blocks.
//!
//! Owns Berlekamp–Massey and the statistic; MUST NOT read anything but the bits given.

use super::{chi_square, igamc, NistError};

/// The probabilities of the seven classes of T as NIST's reference code has them, and as its
/// worked example (2.10.8: χ² = 2.700348, P = 0.845406) needs them: the first is 0.01047 there,
/// where the publication's table (3.10) gives 1/96 = 0.010417. Labs compare against that code,
/// so its value is kept; docs/rng-battery.md says so.
const PI: [f64; 7] = [0.01047, 0.03125, 0.125, 0.5, 0.25, 0.0625, 0.020833];

/// The linear complexity of `bits`: the length of the shortest linear feedback shift register
/// that generates them (Berlekamp–Massey), the polynomials kept as words of 64 bits.
pub fn linear_complexity_of(bits: &[u8]) -> usize {
    let n = bits.len();
    let words = n / 64 + 2;
    // The block reversed, packed: bit j of `reversed` is s[n − 1 − j], so that the sum
    // Σ c_i·s[N − i] (i = 0..=L) is the parity of C AND (reversed shifted right by n − 1 − N).
    let mut reversed = vec![0u64; words];
    for (j, &b) in bits.iter().rev().enumerate() {
        reversed[j / 64] |= u64::from(b) << (j % 64);
    }
    let mut c = vec![0u64; words];
    let mut b = vec![0u64; words];
    c[0] = 1;
    b[0] = 1;
    let (mut l, mut m) = (0usize, -1isize);
    let mut t = vec![0u64; words];
    for step in 0..n {
        // The discrepancy: parity of the taps against s[step], s[step − 1], … s[step − L].
        let shift = n - 1 - step;
        let d = (0..=l / 64).fold(0u32, |acc, w| {
            acc ^ (c[w] & shifted_word(&reversed, shift, w)).count_ones()
        }) & 1;
        if d == 1 {
            t.copy_from_slice(&c);
            // C ^= B · x^(step − m)
            let by = (step as isize - m) as usize;
            xor_shifted(&mut c, &b, by);
            if l <= step / 2 {
                l = step + 1 - l;
                m = step as isize;
                b.copy_from_slice(&t);
            }
        }
    }
    l
}

/// Word `w` of `bits` shifted right by `shift` bits.
fn shifted_word(bits: &[u64], shift: usize, w: usize) -> u64 {
    let (words, rest) = (shift / 64, shift % 64);
    let low = bits.get(w + words).copied().unwrap_or(0);
    if rest == 0 {
        return low;
    }
    let high = bits.get(w + words + 1).copied().unwrap_or(0);
    low >> rest | high << (64 - rest)
}

/// `target ^= source << by`, within `target`'s words.
fn xor_shifted(target: &mut [u64], source: &[u64], by: usize) {
    let (words, rest) = (by / 64, by % 64);
    for i in (words..target.len()).rev() {
        let low = source[i - words];
        let moved = if rest == 0 {
            low
        } else {
            let below = if i > words { source[i - words - 1] } else { 0 };
            low << rest | below >> (64 - rest)
        };
        target[i] ^= moved;
    }
}

/// 2.10: the P-value over every whole block of `m` bits (500 to 5 000), at least 200 blocks.
pub fn linear_complexity(bits: &[u8], m: usize) -> Result<f64, NistError> {
    const TEST: &str = "linear complexity";
    if !(500..=5000).contains(&m) {
        return Err(NistError::Parameter {
            test: TEST,
            problem: "the block length is 500 to 5 000",
        });
    }
    let blocks = bits.len() / m;
    if blocks < 200 {
        return Err(NistError::TooShort {
            test: TEST,
            bits: bits.len(),
            needed: 200 * m,
        });
    }
    let mf = m as f64;
    let sign = if m.is_multiple_of(2) { 1.0 } else { -1.0 };
    // μ = M/2 + (9 + (−1)^(M+1))/36 − (M/3 + 2/9)/2^M
    let mu = mf / 2.0 + (9.0 - sign) / 36.0 - (mf / 3.0 + 2.0 / 9.0) / 2f64.powf(mf);
    let mut nu = [0u64; 7];
    for block in bits.chunks_exact(m) {
        let t = sign * (linear_complexity_of(block) as f64 - mu) + 2.0 / 9.0;
        let class = match t {
            t if t <= -2.5 => 0,
            t if t <= -1.5 => 1,
            t if t <= -0.5 => 2,
            t if t <= 0.5 => 3,
            t if t <= 1.5 => 4,
            t if t <= 2.5 => 5,
            _ => 6,
        };
        nu[class] += 1;
    }
    let chi = chi_square(&nu, blocks as f64, PI);
    Ok(igamc(3.0, chi / 2.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain quadratic Berlekamp–Massey, one bit at a time, as the publication writes it.
    fn plain(s: &[u8]) -> usize {
        let n = s.len();
        let (mut c, mut b) = (vec![0u8; n + 1], vec![0u8; n + 1]);
        c[0] = 1;
        b[0] = 1;
        let (mut l, mut m) = (0usize, -1isize);
        for step in 0..n {
            let d = (0..=l).fold(0, |acc, i| acc ^ (c[i] & s[step - i]));
            if d == 1 {
                let t = c.clone();
                let by = (step as isize - m) as usize;
                for i in 0..=n - by {
                    c[i + by] ^= b[i];
                }
                if l <= step / 2 {
                    l = step + 1 - l;
                    m = step as isize;
                    b = t;
                }
            }
        }
        l
    }

    /// The packed form agrees with the plain one on every length across word boundaries, and
    /// both give the publication's small example (2.10.4: 1101011110001 has complexity 4).
    #[test]
    fn packed_berlekamp_massey_agrees_with_the_plain_one() {
        let example = super::super::bits_of_text("1101011110001");
        assert_eq!(linear_complexity_of(&example), 4);
        assert_eq!(plain(&example), 4);
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for n in [1, 2, 63, 64, 65, 127, 128, 129, 500, 1000] {
            for _ in 0..20 {
                let bits: Vec<u8> = (0..n)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        (state >> 11 & 1) as u8
                    })
                    .collect();
                assert_eq!(linear_complexity_of(&bits), plain(&bits), "n = {n}");
            }
        }
        // An LFSR's output has its length as complexity: s[i] = s[i−3] ^ s[i−5].
        let mut lfsr = vec![1u8, 0, 0, 1, 1];
        for i in 5..300 {
            let next = lfsr[i - 3] ^ lfsr[i - 5];
            lfsr.push(next);
        }
        assert_eq!(linear_complexity_of(&lfsr), 5);
    }
}
