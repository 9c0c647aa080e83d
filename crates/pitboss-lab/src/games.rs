//! The one place the lab picks a game's module ([`of`]): the lab's entry points (`analysable`,
//! `budget`, `exact_par_sheets`, `simulate`) dispatch through it and keep no table keyed by game.

use pitboss_engine::game::GameId;

use super::analysed::Analysed;
use super::{caribbean, fortune, mississippi, nutz};

/// The lab module of `game`.
pub(crate) fn of(game: GameId) -> &'static dyn Analysed {
    match game {
        GameId::MississippiStud => &mississippi::Lab,
        GameId::FortunePaiGow => &fortune::Lab,
        GameId::Nutz => &nutz::Lab,
        GameId::CaribbeanStud => &caribbean::Lab,
    }
}
