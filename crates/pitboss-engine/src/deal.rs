//! A game's deal derived from a seed: the commitment, the shuffled deck (or the first dice), and each
//! seat's cards by the game's layout. This is what `pitboss deal` prints and what the Audit API's
//! `DeriveDeal` returns: the regulator's by-hand check of RNG.md.

use super::card::Card;
use super::dice::DieFace;
use super::game::{GameId, Material, Seat};
use super::rng::{Commitment, Seed};

/// How many dice draws a dice game's derived deal lists: three shakes of five dice at most.
pub const DICE_DRAWS_SHOWN: usize = 15;

/// One seat's cards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatCards {
    /// Who receives them.
    pub seat: Seat,
    /// Deck positions, in deal order.
    pub positions: Vec<usize>,
    /// The cards at those positions.
    pub cards: Vec<Card>,
}

/// Everything a seed determines before any decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deal {
    /// The game.
    pub game: GameId,
    /// `SHA-256(seed)`.
    pub commitment: Commitment,
    /// The shuffled deck, position 0 first; empty for dice games.
    pub deck: Vec<Card>,
    /// For dice games, the first [`DICE_DRAWS_SHOWN`] draws of `uniform(6) + 1`; empty otherwise.
    pub dice: Vec<DieFace>,
    /// Each seat's cards in deal order; empty for dice games.
    pub seats: Vec<SeatCards>,
}

/// Derives the deal of `game` from `seed` (RNG.md §3–7).
pub fn derive(game: GameId, seed: &Seed) -> Deal {
    let mut stream = seed.stream();
    let (deck, dice) = match game.material() {
        Material::Cards(deck) => (stream.shuffle(deck), Vec::new()),
        Material::Dice { .. } => (
            Vec::new(),
            (0..DICE_DRAWS_SHOWN).map(|_| stream.die()).collect(),
        ),
    };
    let seats = game
        .layout()
        .iter()
        .map(|layout| SeatCards {
            seat: layout.seat,
            positions: layout.positions.clone().collect(),
            cards: deck[layout.positions.clone()].to_vec(),
        })
        .collect();
    Deal {
        game,
        commitment: seed.commitment(),
        deck,
        dice,
        seats,
    }
}
