//! 2.14 and 2.15, the random excursions tests: the random walk of the cumulative sum of ±1 cut
//! into cycles at its returns to zero; how many times each cycle visits the states −4 … +4
//! (2.14), and how many times the whole walk visits −9 … +9 (2.15).
//!
//! Owns both statistics; MUST NOT read anything but the bits given.

use statrs::function::erf::erfc;

use super::{chi_square, igamc, NistError};

/// The states of 2.14, in the publication's order.
pub const EXCURSION_STATES: [i64; 8] = [-4, -3, -2, -1, 1, 2, 3, 4];

/// The states of 2.15, in the publication's order.
pub const VARIANT_STATES: [i64; 18] = [
    -9, -8, -7, -6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6, 7, 8, 9,
];

/// The walk's cycles: J, and for 2.14 the visits to each state within each cycle.
struct Walk {
    cycles: u64,
    /// By state of `EXCURSION_STATES`: how many cycles visited it 0, 1, … 4, 5 or more times.
    per_cycle: [[u64; 6]; 8],
    /// By state of `VARIANT_STATES`: the visits over the whole walk.
    visits: [u64; 18],
}

/// The publication's least number of cycles for the tests to apply: max(0.005·√n, 500).
fn least_cycles(n: usize) -> u64 {
    ((0.005 * (n as f64).sqrt()) as u64).max(500)
}

fn walk(bits: &[u8]) -> Walk {
    let mut w = Walk {
        cycles: 0,
        per_cycle: [[0; 6]; 8],
        visits: [0; 18],
    };
    let mut in_cycle = [0u64; 8];
    let end_cycle = |in_cycle: &mut [u64; 8], w: &mut Walk| {
        w.cycles += 1;
        for (state, count) in in_cycle.iter_mut().enumerate() {
            w.per_cycle[state][(*count).min(5) as usize] += 1;
            *count = 0;
        }
    };
    let mut sum = 0i64;
    for &b in bits {
        sum += if b == 1 { 1 } else { -1 };
        if sum == 0 {
            end_cycle(&mut in_cycle, &mut w);
        } else if (-9..=9).contains(&sum) {
            let v = if sum < 0 { sum + 9 } else { sum + 8 };
            w.visits[v as usize] += 1;
            if (-4..=4).contains(&sum) {
                let e = if sum < 0 { sum + 4 } else { sum + 3 };
                in_cycle[e as usize] += 1;
            }
        }
    }
    // The walk is closed by a return to zero after its last step (S' ends with 0).
    if sum != 0 {
        end_cycle(&mut in_cycle, &mut w);
    }
    w
}

/// The probability that a cycle visits state `x` exactly `k` times (5: five or more), 3.14.
fn visit_probability(x: i64, k: usize) -> f64 {
    let a = 1.0 / (2.0 * x.unsigned_abs() as f64);
    match k {
        0 => 1.0 - a,
        1..=4 => a * a * (1.0 - a).powi(k as i32 - 1),
        _ => a * (1.0 - a).powi(4),
    }
}

/// The walk of `bits`, if it has the cycles the random excursions tests ask for (test `test`).
fn applicable_walk(bits: &[u8], test: &'static str) -> Result<Walk, NistError> {
    let w = walk(bits);
    let needed = least_cycles(bits.len());
    if w.cycles < needed {
        return Err(NistError::TooFewCycles {
            test,
            cycles: w.cycles,
            needed,
        });
    }
    Ok(w)
}

/// 2.14: a P-value for each state of `EXCURSION_STATES`, and J. Not applicable (an error that
/// says so) with fewer than max(0.005·√n, 500) cycles.
pub fn random_excursions(bits: &[u8]) -> Result<(Vec<f64>, u64), NistError> {
    let w = applicable_walk(bits, "random excursions")?;
    let j = w.cycles as f64;
    let p = EXCURSION_STATES
        .iter()
        .zip(&w.per_cycle)
        .map(|(&x, nu)| {
            let chi = chi_square(nu, j, (0..6).map(|k| visit_probability(x, k)));
            igamc(2.5, chi / 2.0)
        })
        .collect();
    Ok((p, w.cycles))
}

/// 2.15: a P-value for each state of `VARIANT_STATES`, and J; applicable as 2.14.
pub fn random_excursions_variant(bits: &[u8]) -> Result<(Vec<f64>, u64), NistError> {
    let w = applicable_walk(bits, "random excursions variant")?;
    let j = w.cycles as f64;
    let p = VARIANT_STATES
        .iter()
        .zip(&w.visits)
        .map(|(&x, &xi)| {
            let spread = (2.0 * j * (4.0 * x.unsigned_abs() as f64 - 2.0)).sqrt();
            erfc((xi as f64 - j).abs() / spread)
        })
        .collect();
    Ok((p, w.cycles))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The publication's small example (2.14.4): ε = 0110110101, the walk −1 0 1 0 1 2 1 2 1 2,
    /// has J = 3 cycles: the state −1 is visited once in the first; +1 once in the second and
    /// three times in the third; +2 three times in the third.
    #[test]
    fn the_small_examples_walk() {
        let w = walk(&super::super::bits_of_text("0110110101"));
        assert_eq!(w.cycles, 3);
        assert_eq!(w.per_cycle[3], [2, 1, 0, 0, 0, 0]);
        assert_eq!(w.per_cycle[4], [1, 1, 0, 1, 0, 0]);
        assert_eq!(w.per_cycle[5], [2, 0, 0, 1, 0, 0]);
        assert_eq!(w.per_cycle[2], [3, 0, 0, 0, 0, 0]);
        // Every row sums to J.
        assert!(w.per_cycle.iter().all(|row| row.iter().sum::<u64>() == 3));
    }

    /// The probabilities of each state's row sum to one; the publication's table (3.14) for
    /// x = 1: ½, ¼, ⅛, 1/16, 1/32, 1/32.
    #[test]
    fn visit_probabilities() {
        for x in EXCURSION_STATES {
            let total: f64 = (0..6).map(|k| visit_probability(x, k)).sum();
            assert!((total - 1.0).abs() < 1e-12);
        }
        let row: Vec<f64> = (0..6).map(|k| visit_probability(1, k)).collect();
        assert_eq!(row, [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.03125]);
    }
}
