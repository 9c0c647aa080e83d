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
}
