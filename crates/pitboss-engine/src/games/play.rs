//! The game-specific part of a hand's state, [`Play`]: one variant per game, and the one place
//! that dispatches to each game's rules ([`Game`]). Adding a game adds its variant here.

use super::game::Game;
use super::{caribbean, mississippi, nutz, pai_gow};
use crate::game::GameId;

/// The game-specific part of a hand's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Play {
    Mississippi(mississippi::State),
    PaiGow(pai_gow::State),
    Nutz(nutz::State),
    Caribbean(caribbean::State),
}

impl Play {
    /// The state of a hand of `game` not yet opened.
    pub(super) fn new(game: GameId) -> Play {
        match game {
            GameId::MississippiStud => Play::Mississippi(mississippi::State::default()),
            GameId::FortunePaiGow => Play::PaiGow(pai_gow::State::default()),
            GameId::Nutz => Play::Nutz(nutz::State::default()),
            GameId::CaribbeanStud => Play::Caribbean(caribbean::State::default()),
        }
    }

    /// The game's rules over this state.
    pub(super) fn game(&self) -> &dyn Game {
        match self {
            Play::Mississippi(state) => state,
            Play::PaiGow(state) => state,
            Play::Nutz(state) => state,
            Play::Caribbean(state) => state,
        }
    }

    /// The game's rules over this state, to fold an event in.
    pub(super) fn game_mut(&mut self) -> &mut dyn Game {
        match self {
            Play::Mississippi(state) => state,
            Play::PaiGow(state) => state,
            Play::Nutz(state) => state,
            Play::Caribbean(state) => state,
        }
    }
}
