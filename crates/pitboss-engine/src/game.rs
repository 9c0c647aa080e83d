//! The four games' ids and deal layouts: which deck each uses and which deck positions each seat
//! receives, in the documented deal order (RNG.md §6). The game engines and `pitboss deal` both
//! read the layout from here, so there is one deal order per game. The rest of what is known of a
//! game is its facts (`facts.rs`, reached by `GameId::facts`).

use std::fmt;
use std::ops::Range;
use std::str::FromStr;

use super::card::Deck;

/// A game id, as in `spec/GAMES.md`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum GameId {
    MississippiStud,
    FortunePaiGow,
    Nutz,
    CaribbeanStud,
}

/// A game id that is not one of the four.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game `{0}`: expected {ids}", ids = GameId::listed(GameId::id))]
pub struct UnknownGame(pub String);

impl GameId {
    /// All games.
    pub const ALL: [GameId; 4] = [
        GameId::MississippiStud,
        GameId::FortunePaiGow,
        GameId::Nutz,
        GameId::CaribbeanStud,
    ];

    /// Every game named by `name`, for people: `a, b, c or d`.
    pub fn listed(name: fn(GameId) -> &'static str) -> String {
        let names: Vec<&str> = GameId::ALL.into_iter().map(name).collect();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.concat(),
        }
    }

    /// The stable id string.
    pub const fn id(self) -> &'static str {
        match self {
            GameId::MississippiStud => "mississippi_stud",
            GameId::FortunePaiGow => "fortune_pai_gow",
            GameId::Nutz => "nutz",
            GameId::CaribbeanStud => "caribbean_stud",
        }
    }

    /// What the game's randomness draws: a shuffled deck, or dice.
    pub const fn material(self) -> Material {
        match self {
            GameId::MississippiStud | GameId::CaribbeanStud => Material::Cards(Deck::Standard52),
            GameId::FortunePaiGow => Material::Cards(Deck::WithJoker53),
            GameId::Nutz => Material::Dice { count: 5 },
        }
    }

    /// The seats of a card game in deal order, each with the deck positions it receives. Empty for
    /// dice games.
    pub const fn layout(self) -> &'static [SeatLayout] {
        match self {
            GameId::MississippiStud => &MISSISSIPPI_STUD_LAYOUT,
            GameId::FortunePaiGow => &FORTUNE_PAI_GOW_LAYOUT,
            GameId::CaribbeanStud => &CARIBBEAN_STUD_LAYOUT,
            GameId::Nutz => &[],
        }
    }
}

const MISSISSIPPI_STUD_LAYOUT: [SeatLayout; 2] = [
    SeatLayout::new(Seat::Player, 0..2, "both face up"),
    SeatLayout::new(
        Seat::Community,
        2..5,
        "face down; revealed one by one after the 3rd, 4th and 5th street decisions",
    ),
];

const FORTUNE_PAI_GOW_LAYOUT: [SeatLayout; 2] = [
    SeatLayout::new(Seat::Player, 0..7, "the player's seven cards"),
    SeatLayout::new(Seat::Dealer, 7..14, "the dealer's seven cards"),
];

const CARIBBEAN_STUD_LAYOUT: [SeatLayout; 2] = [
    SeatLayout::new(Seat::Player, 0..5, "the player's five cards"),
    SeatLayout::new(
        Seat::Dealer,
        5..10,
        "the dealer's five cards; the last (position 9) is face up",
    ),
];

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
