//! What a table game needs on top of SP 800-22: chi-square tests of the cards and dice as the
//! engine deals and throws them from seeds (spec/RNG.md §5–7), not of raw words: each card at
//! each position of the shuffled deck (52 and 53 cards), each die face, each ordered pair of
//! consecutive dice of one stream, and the deal's derivation from the seed (seeds one bit apart
//! deal unrelated decks).
//!
//! Owns the counts and their statistics; each test takes its seeds from the caller. MUST NOT
//! draw randomness of its own or read anything.

use statrs::function::erf::erfc;

use pitboss_engine::card::{Card, Deck};
use pitboss_engine::rng::Seed;

/// The least expected count of a cell for a chi-square test to be made.
pub const LEAST_EXPECTED: f64 = 5.0;

/// Too few draws for a test: the expected count of a cell would be under [`LEAST_EXPECTED`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{test}: {draws} draws, at least {needed} needed")]
pub struct TooFewDraws {
    pub test: &'static str,
    pub draws: u64,
    pub needed: u64,
}

/// A chi-square statistic, its degrees of freedom and its P-value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChiSquare {
    pub statistic: f64,
    pub degrees: u32,
    pub p_value: f64,
}

impl ChiSquare {
    /// Pearson's statistic of `observed` against one `expected` count for every cell.
    fn of(observed: impl IntoIterator<Item = u64>, expected: f64, degrees: u32) -> ChiSquare {
        let statistic: f64 = observed
            .into_iter()
            .map(|o| (o as f64 - expected).powi(2) / expected)
            .sum();
        ChiSquare::with(statistic, degrees)
    }

    /// A statistic with its P-value: igamc(degrees/2, statistic/2).
    fn with(statistic: f64, degrees: u32) -> ChiSquare {
        ChiSquare {
            statistic,
            degrees,
            p_value: crate::nist::igamc(f64::from(degrees) / 2.0, statistic / 2.0),
        }
    }
}

fn enough(test: &'static str, draws: u64, cells: u64) -> Result<(), TooFewDraws> {
    let needed = (LEAST_EXPECTED as u64) * cells;
    if draws < needed {
        return Err(TooFewDraws {
            test,
            draws,
            needed,
        });
    }
    Ok(())
}

/// Every card at every position of `deck` shuffled from each of `seeds` (one shuffle a seed, as a
/// hand's): the position × card table against uniform. Each shuffle is a permutation matrix: its
/// cells span (k − 1)² dimensions (every row and column sums to one) and vary there k/(k − 1)
/// times as much as a multinomial's would, so Pearson's statistic is scaled by (k − 1)/k and has
/// (k − 1)² degrees of freedom (one shuffle alone gives exactly (k − 1)², its mean).
pub fn cards_by_position(
    deck: Deck,
    seeds: impl IntoIterator<Item = Seed>,
) -> Result<ChiSquare, TooFewDraws> {
    position_table(
        deck.len(),
        seeds.into_iter().map(|seed| seed.stream().shuffle(deck)),
    )
}

/// The position × card table of `decks` (each a permutation of `k` cards) against uniform.
fn position_table(
    k: usize,
    decks: impl Iterator<Item = Vec<Card>>,
) -> Result<ChiSquare, TooFewDraws> {
    let mut counts = vec![0u64; k * k];
    let mut shuffles = 0u64;
    for deck in decks {
        for (position, card) in deck.iter().enumerate().take(k) {
            counts[position * k + usize::from(card.index())] += 1;
        }
        shuffles += 1;
    }
    enough("cards_by_position", shuffles, k as u64)?;
    Ok(permutation_table(&counts, shuffles, k))
}

/// The statistic of a position × card table of `shuffles` permutations of `k` cards.
fn permutation_table(counts: &[u64], shuffles: u64, k: usize) -> ChiSquare {
    let degrees = ((k - 1) * (k - 1)) as u32;
    let expected = shuffles as f64 / k as f64;
    let pearson: f64 = counts
        .iter()
        .map(|&o| (o as f64 - expected).powi(2) / expected)
        .sum();
    ChiSquare::with(pearson * (k - 1) as f64 / k as f64, degrees)
}

/// `per_seed` dice thrown from each of `seeds` (as a shake draws them, continuing one stream): the
/// six faces (5 degrees of freedom) and the 36 ordered pairs of dice 1–2, 3–4, … of each stream
/// (35 degrees; the pairs do not overlap, so they are independent under the hypothesis).
pub fn dice(
    seeds: impl IntoIterator<Item = Seed>,
    per_seed: usize,
) -> Result<(ChiSquare, ChiSquare), TooFewDraws> {
    let mut faces = [0u64; 6];
    let mut pairs = [0u64; 36];
    let (mut thrown, mut paired) = (0u64, 0u64);
    for seed in seeds {
        let mut stream = seed.stream();
        let mut previous: Option<usize> = None;
        for _ in 0..per_seed {
            let face = usize::from(stream.die().value()) - 1;
            faces[face] += 1;
            thrown += 1;
            previous = match previous {
                None => Some(face),
                Some(first) => {
                    pairs[first * 6 + face] += 1;
                    paired += 1;
                    None
                }
            };
        }
    }
    enough("die_faces", thrown, 6)?;
    enough("dice_pairs", paired, 36)?;
    Ok((
        ChiSquare::of(faces, thrown as f64 / 6.0, 5),
        ChiSquare::of(pairs, paired as f64 / 36.0, 35),
    ))
}

/// The deal's derivation from the seed: for each seed of `seeds`, the deck shuffled from it and
/// from the seed with one bit flipped (bit i mod 256 for the i-th seed); the cards at the same
/// position in both are counted. Unrelated decks agree at one position on average, with variance
/// one (the fixed points of a random permutation), so over S seeds the count is S ± √S: the
/// P-value of its normal z (two-sided).
pub fn seed_avalanche(
    deck: Deck,
    seeds: impl IntoIterator<Item = Seed>,
) -> Result<f64, TooFewDraws> {
    let mut same = 0u64;
    let mut pairs = 0u64;
    for (i, seed) in seeds.into_iter().enumerate() {
        let mut flipped = *seed.as_bytes();
        let bit = i % 256;
        flipped[bit / 8] ^= 1 << (bit % 8);
        let a = seed.stream().shuffle(deck);
        let b = Seed::from_bytes(flipped).stream().shuffle(deck);
        same += a.iter().zip(&b).filter(|(x, y)| x == y).count() as u64;
        pairs += 1;
    }
    // A normal approximation of a sum of fixed-point counts: asked of 256 seeds or more.
    if pairs < 256 {
        return Err(TooFewDraws {
            test: "seed_avalanche",
            draws: pairs,
            needed: 256,
        });
    }
    let z = (same as f64 - pairs as f64) / (pairs as f64).sqrt();
    Ok(erfc(z.abs() / std::f64::consts::SQRT_2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seeds(n: u64, salt: u8) -> impl Iterator<Item = Seed> {
        (0..n).map(move |i| {
            let mut bytes = [salt; 32];
            bytes[..8].copy_from_slice(&i.to_le_bytes());
            Seed::from_bytes(bytes)
        })
    }

    /// The engine's deal passes; a deal that favours one card at position 0 (one shuffle in ten
    /// swapped to put the ace of spades first) fails; too few shuffles are refused.
    #[test]
    fn cards_by_position_passes_the_engine_and_fails_a_bias() {
        let fair = cards_by_position(Deck::Standard52, seeds(20_000, 1)).unwrap();
        assert_eq!(fair.degrees, 51 * 51);
        assert!(fair.p_value > 0.001, "{fair:?}");
        // The engine's decks, one in ten with the ace of spades swapped to the top.
        let biased = position_table(
            52,
            seeds(20_000, 1).enumerate().map(|(i, seed)| {
                let mut deck = seed.stream().shuffle(Deck::Standard52);
                if i % 10 == 0 {
                    let ace = deck.iter().position(|c| c.index() == 51).unwrap();
                    deck.swap(0, ace);
                }
                deck
            }),
        )
        .unwrap();
        assert!(biased.p_value < 1e-6, "{biased:?}");
        assert!(cards_by_position(Deck::WithJoker53, seeds(100, 2)).is_err());
    }

    /// One permutation's table, whichever it is, scores exactly (k − 1)², the mean of a
    /// chi-square with (k − 1)² degrees: the scaling makes the statistic's mean right.
    #[test]
    fn one_permutation_scores_its_degrees_of_freedom() {
        for k in [4usize, 52, 53] {
            for shift in [0, 1, k / 2] {
                // p ↦ 7p + shift is a permutation: 7 is prime to 4, 52 and 53.
                let mut counts = vec![0u64; k * k];
                for position in 0..k {
                    counts[position * k + (position * 7 + shift) % k] += 1;
                }
                let chi = permutation_table(&counts, 1, k);
                assert!(
                    (chi.statistic - ((k - 1) * (k - 1)) as f64).abs() < 1e-9,
                    "{k}: {chi:?}"
                );
            }
        }
    }

    /// Over many batches of the engine's shuffles the P-values are uniform and the proportion
    /// that passes is the publication's (the unscaled statistic's mean is k(k − 1), not
    /// (k − 1)², and its P-values lean towards 0).
    #[test]
    fn the_engines_shuffles_give_uniform_p_values() {
        let p: Vec<f64> = (0..100u8)
            .map(|batch| {
                cards_by_position(Deck::Standard52, seeds(52 * 6, batch))
                    .unwrap()
                    .p_value
            })
            .collect();
        let judged = crate::nist::Assessment::of(&p);
        assert!(judged.holds() && judged.uniformity > 0.01, "{judged:?}");
    }

    /// Fair dice pass both tests; the statistic of faces that are all sixes is the largest there
    /// is, and its P-value nothing.
    #[test]
    fn dice_pass_and_a_loaded_die_fails() {
        let (faces, pairs) = dice(seeds(5_000, 3), 6).unwrap();
        assert!(
            faces.p_value > 0.001 && pairs.p_value > 0.001,
            "{faces:?} {pairs:?}"
        );
        let loaded = ChiSquare::of([0, 0, 0, 0, 0, 600], 100.0, 5);
        assert!((loaded.statistic - 3000.0).abs() < 1e-9 && loaded.p_value < 1e-100);
    }

    /// The engine's seeds one bit apart deal unrelated decks.
    #[test]
    fn seeds_one_bit_apart_deal_unrelated_decks() {
        let p = seed_avalanche(Deck::Standard52, seeds(4_096, 4)).unwrap();
        assert!(p > 0.001, "{p}");
    }
}
