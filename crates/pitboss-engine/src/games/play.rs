//! The game-specific part of a hand's state, [`Play`]: one variant per game of the roster
//! (`roster.rs`), and the one place that dispatches to each game's rules ([`Game`]) and facts
//! (`GameId::facts`). Both are generated from the roster: nothing here is written per game.

use super::game::Game;
use crate::facts::GameFacts;
use crate::game::GameId;

/// Declares [`Play`] and `GameId::facts` from the roster.
macro_rules! plays {
    ($($variant:ident $id:literal $module:ident $rules:ident;)*) => {
        /// The game-specific part of a hand's state.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub(super) enum Play {
            $($variant(super::$module::State),)*
        }

        impl GameId {
            /// The game's facts, from its module: its name, deal, bet groups, paytables' words and
            /// advice.
            pub const fn facts(self) -> &'static GameFacts {
                match self {
                    $(GameId::$variant => &super::$module::FACTS,)*
                }
            }
        }

        impl Play {
            /// The state of a hand of `game` not yet opened.
            pub(super) fn new(game: GameId) -> Play {
                match game {
                    $(GameId::$variant => Play::$variant(Default::default()),)*
                }
            }

            /// The game's rules over this state.
            pub(super) fn game(&self) -> &dyn Game {
                match self {
                    $(Play::$variant(state) => state,)*
                }
            }

            /// The game's rules over this state, to fold an event in.
            pub(super) fn game_mut(&mut self) -> &mut dyn Game {
                match self {
                    $(Play::$variant(state) => state,)*
                }
            }
        }
    };
}

crate::roster::roster!(plays);
