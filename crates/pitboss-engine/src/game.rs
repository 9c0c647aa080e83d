//! The games' ids ([`GameId`], from the roster in `roster.rs`) and the words of a deal: what a game
//! draws ([`Material`]) and which deck positions each seat receives ([`SeatLayout`]), in the
//! documented deal order (RNG.md §6). Each game declares its own material and layout in its facts
//! (`GameId::facts`), which the game engines and `pitboss deal` both read, so there is one deal
//! order per game.

use std::fmt;
use std::ops::Range;
use std::str::FromStr;

use super::card::Deck;

/// Declares [`GameId`] from the roster (`roster.rs`).
macro_rules! game_ids {
    ($($variant:ident $id:literal $module:ident $rules:ident;)*) => {
        /// A game id, as in `spec/GAMES.md`.
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize,
            serde::Deserialize,
        )]
        pub enum GameId {
            $(#[serde(rename = $id)] $variant,)*
        }

        impl GameId {
            /// All games, in the roster's order.
            pub const ALL: [GameId; [$($id),*].len()] = [$(GameId::$variant),*];

            /// The stable id string.
            pub const fn id(self) -> &'static str {
                match self {
                    $(GameId::$variant => $id,)*
                }
            }
        }
    };
}

crate::roster::roster!(game_ids);

/// A game id that is not one of the four.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game `{0}`: expected {ids}", ids = GameId::listed(GameId::id))]
pub struct UnknownGame(pub String);

impl GameId {
    /// Every game named by `name`, for people: `a, b, c or d`.
    pub fn listed(name: fn(GameId) -> &'static str) -> String {
        let names: Vec<&str> = GameId::ALL.into_iter().map(name).collect();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.concat(),
        }
    }

    /// What the game's randomness draws: a shuffled deck, or dice (its facts').
    pub const fn material(self) -> Material {
        self.facts().material
    }

    /// The seats of a card game in deal order, each with the deck positions it receives (its
    /// facts'). Empty for dice games.
    pub const fn layout(self) -> &'static [SeatLayout] {
        self.facts().layout
    }

    /// The deck positions of a round of `seats` player seats dealt from one shuffle, in deal
    /// order (`spec/GAMES.md`, *Rounds*; `docs/rng.md`): each player seat's block in seat order
    /// — seat `k` (from 1) receives the positions one player's hand receives, moved on by
    /// `(k − 1) × n`, `n` the cards of one player — then the dealer's or the community cards,
    /// moved on by `(seats − 1) × n`. A one-seat round deals exactly [`GameId::layout`].
    pub fn round_layout(self, seats: u8) -> Result<Vec<RoundSeat>, SeatsRefused> {
        let facts = self.facts();
        let max = facts
            .max_seats
            .ok_or(SeatsRefused::NoSeats { game: self })?;
        if seats == 0 || seats > max {
            return Err(SeatsRefused::Outside {
                game: self,
                seats,
                max,
            });
        }
        let player = facts
            .layout
            .iter()
            .find(|l| l.seat == Seat::Player)
            .map_or(0..0, |l| l.positions.clone());
        let per_player = player.len();
        let moved = |range: &Range<usize>, by: usize| range.start + by..range.end + by;
        let mut out: Vec<RoundSeat> = (0..seats)
            .map(|k| RoundSeat {
                seat: Seat::Player,
                number: Some(k + 1),
                positions: moved(&player, usize::from(k) * per_player),
            })
            .collect();
        let others = usize::from(seats - 1) * per_player;
        out.extend(
            facts
                .layout
                .iter()
                .filter(|l| l.seat != Seat::Player)
                .map(|l| RoundSeat {
                    seat: l.seat,
                    number: None,
                    positions: moved(&l.positions, others),
                }),
        );
        Ok(out)
    }
}

/// One place of a round's deal: a player seat (numbered from 1) or the dealer's or community
/// cards, and the deck positions it receives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundSeat {
    /// Who.
    pub seat: Seat,
    /// The player seat's number, from 1 (`None` for the dealer and the community cards).
    pub number: Option<u8>,
    /// Deck positions, in deal order.
    pub positions: Range<usize>,
}

/// A round's number of seats that the game does not deal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SeatsRefused {
    /// A game that deals no seat (its round is one shake every bettor plays).
    #[error("{game} deals no seats: its round is one shake, which every bettor plays")]
    NoSeats { game: GameId },
    /// Fewer than one seat, or more than the game deals from one deck.
    #[error("{game} deals 1 to {max} seats from one deck, not {seats}")]
    Outside { game: GameId, seats: u8, max: u8 },
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for GameId {
    type Err = UnknownGame;

    fn from_str(text: &str) -> Result<GameId, UnknownGame> {
        GameId::ALL
            .into_iter()
            .find(|g| g.id() == text)
            .ok_or_else(|| UnknownGame(text.to_string()))
    }
}

/// What a game draws from its stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Material {
    /// One shuffle of this deck per hand.
    Cards(Deck),
    /// Dice, `count` of them in the cup.
    Dice { count: usize },
}

/// Who receives cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Seat {
    Player,
    Dealer,
    Community,
}

impl Seat {
    /// The stable name.
    pub const fn id(self) -> &'static str {
        match self {
            Seat::Player => "player",
            Seat::Dealer => "dealer",
            Seat::Community => "community",
        }
    }
}

/// One seat's share of the shuffled deck.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatLayout {
    /// Who.
    pub seat: Seat,
    /// Deck positions, in deal order.
    pub positions: Range<usize>,
    /// How the cards are shown, in words.
    pub note: &'static str,
}

impl SeatLayout {
    pub(crate) const fn new(seat: Seat, positions: Range<usize>, note: &'static str) -> SeatLayout {
        SeatLayout {
            seat,
            positions,
            note,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_layouts_fit_their_decks() {
        for game in GameId::ALL {
            assert_eq!(game.id().parse::<GameId>(), Ok(game));
            if let Material::Cards(deck) = game.material() {
                let mut next = 0;
                for seat in game.layout() {
                    assert_eq!(
                        seat.positions.start, next,
                        "{game}: seats deal consecutively"
                    );
                    next = seat.positions.end;
                }
                assert!(next <= deck.len());
                assert!(next > 0);
            } else {
                assert!(game.layout().is_empty());
            }
        }
        assert_eq!(
            "poker".parse::<GameId>().unwrap_err().to_string(),
            "unknown game `poker`: expected mississippi_stud, fortune_pai_gow, nutz or caribbean_stud"
        );
    }

    /// Every round a game deals: each seat's positions in blocks, every position once, within
    /// the deck; one seat is one player's hand exactly; the seat counts outside are refused.
    #[test]
    fn a_rounds_seats_are_dealt_in_blocks_from_one_deck() {
        for game in GameId::ALL {
            let Some(max) = game.facts().max_seats else {
                assert!(game.layout().is_empty(), "{game}: seats without a deck");
                assert_eq!(game.round_layout(1), Err(SeatsRefused::NoSeats { game }));
                continue;
            };
            let Material::Cards(deck) = game.material() else {
                panic!("{game}: seats without cards");
            };
            let one: Vec<(Seat, Range<usize>)> = game
                .round_layout(1)
                .unwrap()
                .into_iter()
                .map(|s| (s.seat, s.positions))
                .collect();
            let hand: Vec<(Seat, Range<usize>)> = game
                .layout()
                .iter()
                .map(|l| (l.seat, l.positions.clone()))
                .collect();
            assert_eq!(one, hand, "{game}: one seat is one player's hand");
            for seats in 1..=max {
                let round = game.round_layout(seats).unwrap();
                let mut next = 0;
                for (k, place) in round.iter().enumerate() {
                    assert_eq!(place.positions.start, next, "{game} {seats}: consecutive");
                    next = place.positions.end;
                    if k < usize::from(seats) {
                        assert_eq!(place.seat, Seat::Player);
                        assert_eq!(place.number, Some(k as u8 + 1));
                    } else {
                        assert_ne!(place.seat, Seat::Player);
                        assert_eq!(place.number, None);
                    }
                }
                assert!(next <= deck.len(), "{game} {seats}: {next} cards");
            }
            for seats in [0, max + 1, u8::MAX] {
                assert_eq!(
                    game.round_layout(seats),
                    Err(SeatsRefused::Outside { game, seats, max })
                );
            }
        }
        // The table sizes of `spec/GAMES.md`.
        assert_eq!(GameId::CaribbeanStud.facts().max_seats, Some(7));
        assert_eq!(GameId::FortunePaiGow.facts().max_seats, Some(6));
        assert_eq!(GameId::MississippiStud.facts().max_seats, Some(7));
        // Fortune Pai Gow's six seats and the dealer take 49 of the 53 cards.
        let full = GameId::FortunePaiGow.round_layout(6).unwrap();
        assert_eq!(full.last().map(|p| p.positions.clone()), Some(42..49));
    }
}
