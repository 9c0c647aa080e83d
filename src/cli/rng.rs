//! `pitboss rng --words N` / `--shuffles N`: raw stream words (little-endian u32), or shuffled
//! decks (one byte a card), on standard output, from fresh seeds drawn from the operating system,
//! for NIST SP 800-22, Dieharder or a lab's own card-position tests.

use anyhow::bail;
use clap::Args;

use pitboss_engine::card::Deck;
use pitboss_lab::rng_output;

#[derive(Debug, Args)]
pub struct RngArgs {
    /// How many 32-bit words.
    #[arg(long, conflicts_with = "shuffles")]
    words: Option<u64>,
    /// A fresh seed every this many words (each stream read from its word 0, as hands do).
    #[arg(long, default_value_t = 1024)]
    per_seed: u64,
    /// How many shuffled decks instead: each from a fresh seed, one byte per card (4 × rank + suit;
    /// 52 is the joker).
    #[arg(long)]
    shuffles: Option<u64>,
    /// Shuffle the 53-card deck with the joker (Fortune Pai Gow).
    #[arg(long, requires = "shuffles")]
    joker: bool,
}

pub fn run(args: RngArgs) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match (args.words, args.shuffles) {
        (Some(words), None) => {
            rng_output::write_words(&mut out, words, args.per_seed, rng_output::os_seed)?
        }
        (None, Some(shuffles)) => {
            let deck = if args.joker {
                Deck::WithJoker53
            } else {
                Deck::Standard52
            };
            rng_output::write_shuffles(&mut out, shuffles, deck, rng_output::os_seed)?
        }
        _ => bail!("give --words N or --shuffles N"),
    }
    Ok(())
}
