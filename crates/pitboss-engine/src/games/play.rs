//! The game-specific part of a hand's state, [`Play`]: one variant per game, and the one place
//! that dispatches to each game's rules ([`Game`]) and facts (`GameId::facts`). Adding a game adds its
//! variant and its facts' arm here.

use super::game::Game;
use super::{caribbean, mississippi, nutz, pai_gow};
use crate::facts::GameFacts;
use crate::game::GameId;

/// The game-specific part of a hand's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Play {
    Mississippi(mississippi::State),
    PaiGow(pai_gow::State),
    Nutz(nutz::State),
    Caribbean(caribbean::State),
}

impl GameId {
    /// The game's facts, from its module: its name, bet groups, paytables' words and advice.
    pub const fn facts(self) -> &'static GameFacts {
        match self {
            GameId::MississippiStud => &mississippi::FACTS,
            GameId::FortunePaiGow => &pai_gow::FACTS,
            GameId::Nutz => &nutz::FACTS,
            GameId::CaribbeanStud => &caribbean::FACTS,
        }
    }
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
