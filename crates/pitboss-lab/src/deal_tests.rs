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
    dealt_table(k, k, &counts, shuffles)
}

/// The place × card table of `deals` deals of `m` distinct cards each from a deck of `k`
/// (`counts[place × k + card]`; m = k for whole shuffles) against a fair shuffle, under which the
/// cards at any m places are a uniform arrangement of m distinct cards.
///
/// One deal's m × k indicators have covariance R ⊗ C, R = (I − J/k)/(k − 1) over the places (J
/// all ones) and C = I − J/k over the cards. Split the deviations D = O − deals/k into the card
/// totals (each column's mean over the places) and what is left within the places: Pearson's
/// statistic on the left part, times (k − 1)/k, is χ² with (m − 1)(k − 1) degrees; on the totals,
/// times (k − 1)/(k − m), χ² with k − 1 (none when m = k: every card is dealt once a deal). The
/// two are independent, so their sum is χ² with the degrees summed. For m = k this is the scaled
/// statistic of a permutation matrix; for m = 1 it is Pearson's.
pub fn dealt_table(
    k: usize,
    m: usize,
    counts: &[u64],
    deals: u64,
) -> Result<ChiSquare, TooFewDraws> {
    enough("cards_by_position", deals, k as u64)?;
    Ok(dealt_statistic(k, m, counts, deals))
}

/// [`dealt_table`]'s statistic, however few the deals.
fn dealt_statistic(k: usize, m: usize, counts: &[u64], deals: u64) -> ChiSquare {
    let expected = deals as f64 / k as f64;
    let squares: f64 = counts.iter().map(|&o| (o as f64 - expected).powi(2)).sum();
    let totals: f64 = (0..k)
        .map(|card| {
            let total: u64 = (0..m).map(|place| counts[place * k + card]).sum();
            (total as f64 - expected * m as f64).powi(2)
        })
        .sum::<f64>()
        / m as f64;
    let within = (squares - totals).max(0.0);
    let (kf, mf) = (k as f64, m as f64);
    let mut statistic = within / expected * (kf - 1.0) / kf;
    let mut degrees = ((m - 1) * (k - 1)) as u32;
    if m < k {
        statistic += totals / expected * (kf - 1.0) / (kf - mf);
        degrees += (k - 1) as u32;
    }
    ChiSquare::with(statistic, degrees)
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
    debug_assert_eq!(
        (faces.iter().sum::<u64>(), pairs.iter().sum()),
        (thrown, paired)
    );
    let (faces, pairs) = dice_tables(&faces, &pairs);
    Ok((faces?, pairs?))
}

/// The faces counted (one to six) and the ordered pairs (`pairs[6 × (first − 1) + second − 1]`)
/// against fair dice: 5 and 35 degrees of freedom.
pub fn dice_tables(
    faces: &[u64; 6],
    pairs: &[u64; 36],
) -> (
    Result<ChiSquare, TooFewDraws>,
    Result<ChiSquare, TooFewDraws>,
) {
    let (thrown, paired) = (faces.iter().sum::<u64>(), pairs.iter().sum::<u64>());
    (
        enough("die_faces", thrown, 6)
            .map(|()| ChiSquare::of(faces.iter().copied(), thrown as f64 / 6.0, 5)),
        enough("dice_pairs", paired, 36)
            .map(|()| ChiSquare::of(pairs.iter().copied(), paired as f64 / 36.0, 35)),
    )
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

    /// One deal's table, whichever cards it deals to however many places, scores exactly its
    /// degrees of freedom, the mean of its chi-square: (k − 1)² for a whole permutation, m(k − 1)
    /// for m < k places. The scaling of both parts makes the statistic's mean right.
    #[test]
    fn one_deal_scores_its_degrees_of_freedom() {
        for k in [4usize, 52, 53] {
            for m in [1, 2, k - 1, k] {
                for shift in [0, 1, k / 2] {
                    // p ↦ 7p + shift is a permutation: 7 is prime to 4, 52 and 53.
                    let mut counts = vec![0u64; m * k];
                    for place in 0..m {
                        counts[place * k + (place * 7 + shift) % k] += 1;
                    }
                    let chi = dealt_statistic(k, m, &counts, 1);
                    let degrees = if m == k {
                        (k - 1) * (k - 1)
                    } else {
                        m * (k - 1)
                    };
                    assert_eq!(chi.degrees as usize, degrees);
                    assert!(
                        (chi.statistic - degrees as f64).abs() < 1e-9,
                        "{k} {m}: {chi:?}"
                    );
                }
            }
        }
    }

    /// Over batches of the engine's shuffles, a partial deal's statistic (the first five and the
    /// first fourteen cards) averages its degrees and its P-values hold as the publication
    /// judges them; left unscaled, the card totals' part would lean the mean off.
    #[test]
    fn partial_deals_of_the_engines_shuffles_give_uniform_p_values() {
        for (deck, m) in [(Deck::Standard52, 5usize), (Deck::WithJoker53, 14)] {
            let k = deck.len();
            let (mut p, mut sum) = (Vec::new(), 0.0);
            for batch in 0..100u8 {
                let mut counts = vec![0u64; m * k];
                for seed in seeds(k as u64 * 6, batch.wrapping_add(100)) {
                    let dealt = seed.stream().shuffle(deck);
                    for (place, card) in dealt.iter().take(m).enumerate() {
                        counts[place * k + usize::from(card.index())] += 1;
                    }
                }
                let chi = dealt_table(k, m, &counts, k as u64 * 6).unwrap();
                p.push(chi.p_value);
                sum += chi.statistic;
            }
            let degrees = (m * (k - 1)) as f64;
            // The mean of 100 χ²(d) is d ± √(2d/100): within five of those.
            let mean = sum / 100.0;
            assert!(
                (mean - degrees).abs() < 5.0 * (2.0 * degrees / 100.0).sqrt(),
                "{m} of {k}: mean {mean}, degrees {degrees}"
            );
            let judged = crate::nist::Assessment::of(&p);
            assert!(judged.holds() && judged.uniformity > 0.001, "{judged:?}");
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
