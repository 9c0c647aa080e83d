//! 2.5, the binary matrix rank test: the rank over GF(2) of disjoint 32 × 32 matrices filled row
//! by row from the sequence, against the probabilities of full rank, rank 31 and less.
//!
//! Owns the ranks and their statistic only; MUST NOT read anything but the bits given.

use super::{chi_square, NistError};

/// The least number of matrices the publication asks for.
const LEAST_MATRICES: usize = 38;

/// The rank of `rows` (each a row of 32 bits) over GF(2), by Gaussian elimination.
fn rank_of(mut rows: [u32; 32]) -> u32 {
    let mut rank = 0;
    for column in (0..32).rev() {
        let bit = 1u32 << column;
        let Some(pivot) = (rank as usize..32).find(|&r| rows[r] & bit != 0) else {
            continue;
        };
        rows.swap(rank as usize, pivot);
        let pivot_row = rows[rank as usize];
        for (r, row) in rows.iter_mut().enumerate() {
            if r != rank as usize && *row & bit != 0 {
                *row ^= pivot_row;
            }
        }
        rank += 1;
    }
    rank
}

/// The probability that a random `m` × `q` matrix over GF(2) has rank `r` (the publication's
/// formula, 3.5).
fn probability_of_rank(r: i32, m: i32, q: i32) -> f64 {
    let product: f64 = (0..r)
        .map(|i| (1.0 - 2f64.powi(i - q)) * (1.0 - 2f64.powi(i - m)) / (1.0 - 2f64.powi(i - r)))
        .product();
    2f64.powi(r * (q + m - r) - m * q) * product
}

/// 2.5: the P-value over every whole 1 024-bit matrix (at least 38 of them, as the publication
/// asks).
pub fn rank(bits: &[u8]) -> Result<f64, NistError> {
    const SIDE: usize = 32;
    let matrices = bits.len() / (SIDE * SIDE);
    if matrices < LEAST_MATRICES {
        return Err(NistError::TooShort {
            test: "rank",
            bits: bits.len(),
            needed: LEAST_MATRICES * SIDE * SIDE,
        });
    }
    let (mut full, mut one_less) = (0u64, 0u64);
    for matrix in bits.chunks_exact(SIDE * SIDE) {
        let mut rows = [0u32; SIDE];
        for (row, chunk) in rows.iter_mut().zip(matrix.chunks_exact(SIDE)) {
            *row = chunk.iter().fold(0, |acc, &b| acc << 1 | u32::from(b));
        }
        match rank_of(rows) {
            32 => full += 1,
            31 => one_less += 1,
            _ => {}
        }
    }
    let p_full = probability_of_rank(32, 32, 32);
    let p_one_less = probability_of_rank(31, 32, 32);
    let p_rest = 1.0 - p_full - p_one_less;
    let rest = matrices as u64 - full - one_less;
    let chi = chi_square(
        &[full, one_less, rest],
        matrices as f64,
        [p_full, p_one_less, p_rest],
    );
    Ok((-chi / 2.0).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The publication's probabilities (3.5): 0.2888, 0.5776 and 0.1336 to four places.
    #[test]
    fn the_probabilities_of_rank_are_the_publications() {
        assert!((probability_of_rank(32, 32, 32) - 0.2888).abs() < 5e-5);
        assert!((probability_of_rank(31, 32, 32) - 0.5776).abs() < 5e-5);
        let rest = 1.0 - probability_of_rank(32, 32, 32) - probability_of_rank(31, 32, 32);
        assert!((rest - 0.1336).abs() < 5e-5);
    }

    /// The identity has full rank; a matrix with a repeated row and a zero row has rank 30.
    #[test]
    fn ranks_over_gf2() {
        let identity: [u32; 32] = std::array::from_fn(|i| 1 << i);
        assert_eq!(rank_of(identity), 32);
        let mut short = identity;
        short[3] = short[4];
        short[7] = 0;
        assert_eq!(rank_of(short), 30);
        // Rows that sum to another (over GF(2)) are dependent.
        let mut sum = identity;
        sum[0] = sum[1] ^ sum[2];
        assert_eq!(rank_of(sum), 31);
    }
}
