//! The randomness derivation of `spec/RNG.md`, step by step: seed → commitment → ChaCha20 word
//! stream → uniform integers by rejection → Fisher–Yates shuffle of the canonical deck, and dice.
//!
//! Every card and die of every hand comes from here, so this is the code a regulator re-implements
//! (`docs/rng.md` describes it in words). The range reduction and the shuffle are written out here on
//! purpose: a library's shuffle or range helper may change its output between versions, and a hand
//! must re-derive identically forever. Only the ChaCha20 block function comes from `rand_chacha`, and
//! the tests hold it to the RFC 8439 test vectors.
//!
//! This module draws nothing from the operating system: a [`Seed`] is given to it. Drawing fresh
//! seeds is I/O and belongs to the service layer.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha256};
use std::fmt;

use super::card::{Card, Deck};
use super::dice::DieFace;

/// A hand's 32-byte seed: the ChaCha20 key of its stream.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Seed([u8; 32]);

/// A seed given as text that is not 64 hex digits.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SeedError {
    #[error("a seed is 64 hexadecimal digits (32 bytes); got {0} characters")]
    Length(usize),
    #[error("a seed is 64 hexadecimal digits; `{0}` is not a hexadecimal digit")]
    NotHex(char),
    #[error("a seed is 32 bytes; got {0}")]
    ByteLength(usize),
}

impl Seed {
    /// The seed with these bytes.
    pub const fn from_bytes(bytes: [u8; 32]) -> Seed {
        Seed(bytes)
    }

    /// From a byte slice that must be exactly 32 bytes long.
    pub fn from_slice(bytes: &[u8]) -> Result<Seed, SeedError> {
        <[u8; 32]>::try_from(bytes)
            .map(Seed)
            .map_err(|_| SeedError::ByteLength(bytes.len()))
    }

    /// From 64 hex digits (either case).
    pub fn from_hex(text: &str) -> Result<Seed, SeedError> {
        if let Some(bad) = text.chars().find(|c| !c.is_ascii_hexdigit()) {
            return Err(SeedError::NotHex(bad));
        }
        if text.len() != 64 {
            return Err(SeedError::Length(text.chars().count()));
        }
        let mut bytes = [0u8; 32];
        hex::decode_to_slice(text, &mut bytes).map_err(|_| SeedError::Length(text.len()))?;
        Ok(Seed(bytes))
    }

    /// The raw bytes.
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// Lower-case hex.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// `SHA-256(seed)`: what the hand's opening event records before the seed is revealed (§2).
    pub fn commitment(&self) -> Commitment {
        Commitment(Sha256::digest(self.0).into())
    }

    /// The hand's word stream, positioned at word 0.
    pub fn stream(&self) -> WordStream {
        WordStream::new(self)
    }
}

impl fmt::Debug for Seed {
    // Never print a seed by accident in logs: a seed is secret until its hand ends.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Seed(commitment {})", self.commitment())
    }
}

/// `SHA-256(seed)`, published when a hand opens.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Commitment([u8; 32]);

impl Commitment {
    /// The digest bytes.
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// From digest bytes (as recorded in an event).
    pub const fn from_bytes(bytes: [u8; 32]) -> Commitment {
        Commitment(bytes)
    }

    /// True if `seed` is the seed committed to.
    pub fn opens_to(&self, seed: &Seed) -> bool {
        seed.commitment() == *self
    }
}

impl fmt::Display for Commitment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

impl fmt::Debug for Commitment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Commitment({self})")
    }
}

/// An upper bound `n` for [`WordStream::uniform`], with `1 ≤ n ≤ 2^32` guaranteed by construction,
/// and its rejection limit `2^32 − (2^32 mod n)` computed once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    n: u64,
    limit: u64,
}

/// A bound outside `1..=2^32`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("uniform(n) needs 1 <= n <= 2^32; got n = {0}")]
pub struct BoundError(pub u64);

const TWO_POW_32: u64 = 1 << 32;

impl Bound {
    /// The bound `n`, if `1 ≤ n ≤ 2^32`.
    pub const fn new(n: u64) -> Result<Bound, BoundError> {
        if n == 0 || n > TWO_POW_32 {
            return Err(BoundError(n));
        }
        Ok(Bound {
            n,
            limit: TWO_POW_32 - (TWO_POW_32 % n),
        })
    }

    /// A bound from a small non-zero count (deck sizes, die faces): cannot fail.
    pub const fn small(n: std::num::NonZeroU32) -> Bound {
        let n = n.get() as u64;
        Bound {
            n,
            limit: TWO_POW_32 - (TWO_POW_32 % n),
        }
    }

    /// `n`.
    pub const fn n(self) -> u64 {
        self.n
    }

    /// Words at or above this are rejected.
    pub const fn limit(self) -> u64 {
        self.limit
    }
}

/// `SHUFFLE_BOUNDS[i]` is the bound `i + 1` of the shuffle's step `i` (1 ≤ i ≤ 52).
const SHUFFLE_BOUNDS: [Bound; 53] = {
    let mut bounds = [Bound::small(std::num::NonZeroU32::MIN); 53];
    let mut i = 1;
    while i < 53 {
        bounds[i] = Bound::small(std::num::NonZeroU32::MIN.saturating_add(i as u32));
        i += 1;
    }
    bounds
};

/// `SHUFFLE_MAGIC[i]` is `⌈2^64 / (i + 1)⌉`, the multiplier of [`remainder`] for the bound `i + 1`.
const SHUFFLE_MAGIC: [u64; 53] = {
    let mut magic = [0u64; 53];
    let mut i = 1;
    while i < 53 {
        magic[i] = u64::MAX / (i as u64 + 1) + 1;
        i += 1;
    }
    magic
};

/// `w mod n` for a 32-bit `w` and `2 ≤ n < 2^32`, given `magic = ⌈2^64 / n⌉`, by multiplication
/// alone (Lemire, Kaser and Kurz, "Faster remainder by direct computation", 2019: exact for every
/// 32-bit `w` and `n` with a 64-bit multiplier; the tests hold it to `%`).
#[inline]
fn remainder(w: u32, n: u64, magic: u64) -> u32 {
    let fraction = magic.wrapping_mul(u64::from(w));
    ((u128::from(fraction) * u128::from(n)) >> 64) as u32
}

/// The six faces of a die.
const DIE: Bound = Bound::small(std::num::NonZeroU32::MIN.saturating_add(5));

/// The ChaCha20 keystream of one seed, read as little-endian `u32` words (RNG.md §3), with a count of
/// the words consumed so far.
#[derive(Clone)]
pub struct WordStream {
    chacha: ChaCha20Rng,
    consumed: u64,
}

impl fmt::Debug for WordStream {
    // The stream's state would reveal the seed: show only the position.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WordStream(at word {})", self.consumed)
    }
}

impl WordStream {
    /// Key = seed, 64-bit nonce 0, 64-bit block counter from 0.
    pub fn new(seed: &Seed) -> WordStream {
        WordStream {
            chacha: ChaCha20Rng::from_seed(seed.0),
            consumed: 0,
        }
    }

    /// The next word: keystream bytes `4i .. 4i+4`, little-endian.
    pub fn next_word(&mut self) -> u32 {
        self.consumed += 1;
        self.chacha.next_u32()
    }

    /// How many words have been consumed (the index of the next word).
    pub const fn words_consumed(&self) -> u64 {
        self.consumed
    }

    /// A uniform integer in `[0, n)` by rejection (RNG.md §4): take words until one is below
    /// `limit = 2^32 − (2^32 mod n)`, and return it `mod n`.
    pub fn uniform(&mut self, bound: Bound) -> u32 {
        loop {
            let w = u64::from(self.next_word());
            if w < bound.limit {
                // w mod n < n ≤ 2^32, and w < 2^32, so the result fits.
                return (w % bound.n) as u32;
            }
        }
    }

    /// Fisher–Yates from the canonical deck (RNG.md §5): for `i` from `n − 1` down to 1,
    /// `j = uniform(i + 1)`, swap positions `i` and `j`. Position 0 is dealt first.
    pub fn shuffle(&mut self, deck: Deck) -> Vec<Card> {
        let mut cards = deck.canonical();
        self.shuffle_in_place(&mut cards);
        cards
    }

    /// The shuffle of [`WordStream::shuffle`] into a caller's array, without allocating: `cards`
    /// is set to `deck`'s canonical order, then shuffled; the first `deck.len()` cards are the
    /// shuffled deck (the rest of the array is left as the canonical indices beyond it). Same
    /// words, same result.
    pub fn shuffle_into<'a>(&mut self, deck: Deck, cards: &'a mut [Card; 53]) -> &'a [Card] {
        for (i, card) in (0u8..).zip(cards.iter_mut()) {
            *card = Card::from_index(i).unwrap_or(Card::JOKER);
        }
        let cards = &mut cards[..deck.len()];
        self.shuffle_in_place(cards);
        cards
    }

    /// Fisher–Yates steps on `cards` as they stand (a deck: at most 53 cards): the draws of
    /// [`WordStream::uniform`] with the bounds and their remainders' multipliers computed at
    /// compile time (a multiplication instead of a division per step; the same numbers).
    fn shuffle_in_place(&mut self, cards: &mut [Card]) {
        for i in (1..cards.len()).rev() {
            // n = i + 1, between 2 and 53.
            let (bound, magic) = (SHUFFLE_BOUNDS[i], SHUFFLE_MAGIC[i]);
            let j = loop {
                let w = self.next_word();
                if u64::from(w) < bound.limit {
                    break remainder(w, bound.n, magic);
                }
            };
            cards.swap(i, j as usize);
        }
    }

    /// One die: `uniform(6) + 1` (RNG.md §7).
    pub fn die(&mut self) -> DieFace {
        DieFace::from_draw(self.uniform(DIE))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shuffle's remainder by multiplication equals `%` for every bound it uses, on the words
    /// at the edges (0, the rejection limit's neighbours, multiples of `n` and their neighbours,
    /// the top word) and on a million words of the stream.
    #[test]
    fn the_shuffles_remainder_is_the_modulo() {
        let mut stream = Seed::from_bytes([7; 32]).stream();
        let words: Vec<u32> = (0..1_000_000).map(|_| stream.next_word()).collect();
        for i in 1..53 {
            let n = SHUFFLE_BOUNDS[i].n;
            assert_eq!(n, i as u64 + 1);
            let limit = SHUFFLE_BOUNDS[i].limit;
            let mut edges = vec![0, 1, u32::MAX, u32::MAX - 1, (limit - 1) as u32];
            if limit < 1 << 32 {
                edges.push(limit as u32);
            }
            for k in [
                1u64,
                2,
                3,
                1000,
                (u64::from(u32::MAX) / n) - 1,
                u64::from(u32::MAX) / n,
            ] {
                for w in [k * n - 1, k * n, k * n + 1] {
                    edges.push(w as u32);
                }
            }
            for &w in edges.iter().chain(&words) {
                assert_eq!(
                    u64::from(remainder(w, n, SHUFFLE_MAGIC[i])),
                    u64::from(w) % n,
                    "{w} mod {n}"
                );
            }
        }
    }

    /// RNG.md §5 word for word: `uniform(i + 1)` by [`WordStream::uniform`] (a division), then a
    /// swap, on a vector of the canonical deck.
    fn reference_shuffle(stream: &mut WordStream, deck: Deck) -> Vec<Card> {
        let mut cards = deck.canonical();
        for i in (1..cards.len()).rev() {
            let j = stream.uniform(Bound::new(i as u64 + 1).unwrap()) as usize;
            cards.swap(i, j);
        }
        cards
    }

    /// The shuffle (into a vector or into an array) deals what RNG.md's steps deal and consumes
    /// the same words: over a thousand shuffles of one stream, and on the first shuffle of seeds
    /// found to draw a rejected word in it (seed bytes 0..8 = 1 359 272 and 4 461 923, little
    /// endian: one more word than steps).
    #[test]
    fn the_shuffle_is_rng_md_step_by_step() {
        let seed_of = |k: u64| {
            let mut bytes = [0u8; 32];
            bytes[..8].copy_from_slice(&k.to_le_bytes());
            Seed::from_bytes(bytes)
        };
        let mut cards = [Card::JOKER; 53];
        for deck in [Deck::Standard52, Deck::WithJoker53] {
            let mut reference = Seed::from_bytes([9; 32]).stream();
            let mut a = reference.clone();
            let mut b = reference.clone();
            for _ in 0..1000 {
                let expected = reference_shuffle(&mut reference, deck);
                assert_eq!(a.shuffle(deck), expected);
                assert_eq!(b.shuffle_into(deck, &mut cards), expected);
                assert_eq!(a.words_consumed(), reference.words_consumed());
                assert_eq!(b.words_consumed(), reference.words_consumed());
            }
        }
        for (k, deck) in [
            (1_359_272, Deck::Standard52),
            (4_461_923, Deck::Standard52),
            (4_461_923, Deck::WithJoker53),
        ] {
            let mut reference = seed_of(k).stream();
            let mut stream = seed_of(k).stream();
            let expected = reference_shuffle(&mut reference, deck);
            assert_eq!(reference.words_consumed(), deck.len() as u64, "a rejection");
            assert_eq!(stream.shuffle_into(deck, &mut cards), expected);
            assert_eq!(stream.words_consumed(), reference.words_consumed());
            assert_eq!(stream.next_word(), reference.next_word());
        }
    }
    use crate::card::format_cards;

    fn zero_seed() -> Seed {
        Seed::from_bytes([0; 32])
    }

    #[test]
    fn bound_limits_follow_the_spec() {
        assert_eq!(Bound::new(0), Err(BoundError(0)));
        assert_eq!(Bound::new(TWO_POW_32 + 1), Err(BoundError(TWO_POW_32 + 1)));
        assert_eq!(Bound::new(1).unwrap().limit(), TWO_POW_32);
        assert_eq!(Bound::new(TWO_POW_32).unwrap().limit(), TWO_POW_32);
        // 2^32 mod 6 = 4.
        assert_eq!(DIE.limit(), TWO_POW_32 - 4);
        assert_eq!(
            Bound::new(52).unwrap().limit(),
            TWO_POW_32 - (TWO_POW_32 % 52)
        );
    }

    #[test]
    fn uniform_rejects_words_at_or_above_the_limit() {
        // n = 2^31 + 1: limit = 2^31 + 1, so about half of all words are rejected.
        let bound = Bound::new((1 << 31) + 1).unwrap();
        let mut words = zero_seed().stream();
        let mut draws = zero_seed().stream();
        for _ in 0..200 {
            let before = draws.words_consumed();
            let x = draws.uniform(bound);
            let used = draws.words_consumed() - before;
            // Replay the same words by hand.
            let mut last = 0;
            for k in 0..used {
                last = words.next_word();
                if k + 1 < used {
                    assert!(
                        u64::from(last) >= bound.limit(),
                        "a rejected word was below the limit"
                    );
                }
            }
            assert!(u64::from(last) < bound.limit());
            assert_eq!(u64::from(x), u64::from(last) % bound.n());
        }
        assert!(
            draws.words_consumed() > 250,
            "n = 2^31+1 must force rejections"
        );
    }

    #[test]
    fn shuffle_is_a_permutation_and_deterministic() {
        let seed = Seed::from_hex(&"ab".repeat(32)).unwrap();
        let a = seed.stream().shuffle(Deck::WithJoker53);
        let b = seed.stream().shuffle(Deck::WithJoker53);
        assert_eq!(a, b);
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, Deck::WithJoker53.canonical());
        assert_ne!(
            format_cards(&a),
            format_cards(&Deck::WithJoker53.canonical())
        );
    }

    #[test]
    fn seed_text_errors_are_specific() {
        assert_eq!(Seed::from_hex("abc"), Err(SeedError::Length(3)));
        assert_eq!(
            Seed::from_hex(&"zz".repeat(32)),
            Err(SeedError::NotHex('z'))
        );
        assert_eq!(Seed::from_slice(&[1, 2]), Err(SeedError::ByteLength(2)));
        let seed = Seed::from_hex(&"0F".repeat(32)).unwrap();
        assert_eq!(seed.to_hex(), "0f".repeat(32));
        assert!(seed.commitment().opens_to(&seed));
        assert!(!seed.commitment().opens_to(&zero_seed()));
        assert!(
            !format!("{seed:?}").contains(&seed.to_hex()),
            "Debug must not leak the seed"
        );
    }
}
