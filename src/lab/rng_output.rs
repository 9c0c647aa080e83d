//! Raw RNG output for statistical test suites (NIST SP 800-22, Dieharder): stream words exactly as
//! hands consume them, from fresh seeds, little-endian `u32`s.

use std::io::Write;

use crate::engine::rng::Seed;

/// Writes `words` words: a fresh seed (from `next_seed`) every `per_seed` words, each stream read
/// from word 0, as hands read theirs.
pub fn write_words(
    out: &mut impl Write,
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

/// A fresh seed from the operating system's CSPRNG.
pub fn os_seed() -> std::io::Result<Seed> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(Seed::from_bytes(bytes))
}
