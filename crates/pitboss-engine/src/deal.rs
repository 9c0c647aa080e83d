//! A game's deal derived from a seed: the commitment, the shuffled deck (or the first dice), and each
//! seat's cards by the game's layout — one player's hand, or a round's seats dealt from the one
//! shuffle. This is what `pitboss deal` prints and what the Audit API's
//! `DeriveDeal` returns: the regulator's by-hand check of RNG.md.

use super::card::Card;
use super::dice::DieFace;
use std::ops::Range;

use super::game::{GameId, Material, Seat, SeatsRefused};
use super::rng::{Commitment, Seed};

/// How many dice draws a dice game's derived deal lists: three shakes of five dice at most.
pub const DICE_DRAWS_SHOWN: usize = 15;

/// One seat's cards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatCards {
    /// Who receives them.
    pub seat: Seat,
    /// A round's player seat number, from 1 (`None` for one player's hand, the dealer and the
    /// community cards).
    pub number: Option<u8>,
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

/// Derives the deal of `game` from `seed` (RNG.md §3–7): one player's hand.
pub fn derive(game: GameId, seed: &Seed) -> Deal {
    let places = game
        .layout()
        .iter()
        .map(|layout| (layout.seat, None, layout.positions.clone()))
        .collect();
    dealt(game, seed, places)
}

/// Derives the deal of a round of `game` with `seats` player seats from `seed`: one shuffle, each
/// seat's block of it in seat order, then the dealer's or the community cards
/// ([`GameId::round_layout`]). Refused for a game that deals no seats, and for a number of seats
/// it does not deal.
pub fn derive_round(game: GameId, seed: &Seed, seats: u8) -> Result<Deal, SeatsRefused> {
    let places = game
        .round_layout(seats)?
        .into_iter()
        .map(|place| (place.seat, place.number, place.positions))
        .collect();
    Ok(dealt(game, seed, places))
}

/// The deal of `game` from `seed` to `places`: who, which seat number, which deck positions.
fn dealt(game: GameId, seed: &Seed, places: Vec<(Seat, Option<u8>, Range<usize>)>) -> Deal {
    let mut stream = seed.stream();
    let (deck, dice) = match game.material() {
        Material::Cards(deck) => (stream.shuffle(deck), Vec::new()),
        Material::Dice { .. } => (
            Vec::new(),
            (0..DICE_DRAWS_SHOWN).map(|_| stream.die()).collect(),
        ),
    };
    let seats = places
        .into_iter()
        .map(|(seat, number, positions)| SeatCards {
            seat,
            number,
            cards: deck.get(positions.clone()).unwrap_or_default().to_vec(),
            positions: positions.collect(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// A round deals every seat from the one shuffle a hand of the same seed shuffles: a one-seat
    /// round is the hand, seat by seat; with more seats no card is dealt twice, and each seat's
    /// cards are the deck's at its positions.
    #[test]
    fn a_round_deals_every_seat_from_the_hands_shuffle() {
        for game in GameId::ALL {
            let Some(max) = game.facts().max_seats else {
                continue;
            };
            for byte in 0..8u8 {
                let seed = Seed::from_bytes([byte; 32]);
                let hand = derive(game, &seed);
                let one = derive_round(game, &seed, 1).unwrap();
                assert_eq!(one.deck, hand.deck);
                let cards = |d: &Deal| -> Vec<(Seat, Vec<Card>)> {
                    d.seats.iter().map(|s| (s.seat, s.cards.clone())).collect()
                };
                assert_eq!(cards(&one), cards(&hand), "{game}");
                for seats in 1..=max {
                    let round = derive_round(game, &seed, seats).unwrap();
                    assert_eq!(round.deck, hand.deck, "{game}: one shuffle");
                    let mut seen = BTreeSet::new();
                    for place in &round.seats {
                        for (position, card) in place.positions.iter().zip(&place.cards) {
                            assert_eq!(round.deck[*position], *card);
                            assert!(seen.insert(card.index()), "{game}: {card} twice");
                        }
                    }
                    // Seat 1 holds what the one-player hand's player holds.
                    assert_eq!(round.seats[0].cards, hand.seats[0].cards);
                }
            }
        }
        let refused = derive_round(GameId::Nutz, &Seed::from_bytes([0; 32]), 2);
        assert_eq!(refused, Err(SeatsRefused::NoSeats { game: GameId::Nutz }));
    }
}
