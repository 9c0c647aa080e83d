//! Raw RNG output for statistical test suites (NIST SP 800-22, Dieharder): stream words exactly as
//! hands consume them, from fresh seeds, little-endian `u32`s; and shuffled decks, one byte a card.

use std::io::Write;

use pitboss_engine::card::Deck;
use pitboss_engine::rng::Seed;

/// Writes `words` words: a fresh seed (from `next_seed`) every `per_seed` words, each stream read
/// from word 0, as hands read theirs.
pub fn write_words(
    out: &mut (impl Write + ?Sized),
    words: u64,
    per_seed: u64,
    mut next_seed: impl FnMut() -> std::io::Result<Seed>,
) -> std::io::Result<()> {
    let per_seed = per_seed.max(1);
    let mut written = 0u64;
    let mut buffer = Vec::with_capacity(64 * 1024);
    while written < words {
        let mut stream = next_seed()?.stream();
        let n = per_seed.min(words - written);
        for _ in 0..n {
            buffer.extend_from_slice(&stream.next_word().to_le_bytes());
            if buffer.len() >= 64 * 1024 {
                out.write_all(&buffer)?;
                buffer.clear();
            }
        }
        written += n;
    }
    out.write_all(&buffer)?;
    out.flush()
}

/// Decks per `write` call of [`write_shuffles`] (a write never splits a deck).
pub(crate) const DECKS_PER_WRITE: u64 = 1_000;

/// Writes `shuffles` decks, each shuffled from a fresh seed exactly as a hand's deck is: one byte
/// per card (its index, `4 × rank + suit`; 52 is the joker), deck after deck, each `write` call
/// holding whole decks.
pub fn write_shuffles(
    out: &mut (impl Write + ?Sized),
    shuffles: u64,
    deck: Deck,
    mut next_seed: impl FnMut() -> std::io::Result<Seed>,
) -> std::io::Result<()> {
    let mut written = 0;
    while written < shuffles {
        let n = DECKS_PER_WRITE.min(shuffles - written);
        let mut buffer = Vec::with_capacity(n as usize * deck.len());
        for _ in 0..n {
            buffer.extend(
                next_seed()?
                    .stream()
                    .shuffle(deck)
                    .iter()
                    .map(|c| c.index()),
            );
        }
        out.write_all(&buffer)?;
        written += n;
    }
    out.flush()
}

/// A fresh seed from the operating system's CSPRNG.
pub fn os_seed() -> std::io::Result<Seed> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(Seed::from_bytes(bytes))
}
