//! How a simulated player decides ([`Strategy`]), and which games each strategy can play. A leaf:
//! the simulation, the errors and the service all name it, and it names none of them.

use std::str::FromStr;

use pitboss_engine::game::GameId;

/// A strategy name that is neither `optimal` nor `always`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown strategy {0:?}: optimal, or always (never fold)")]
pub struct UnknownStrategy(pub String);

/// How the simulated player decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// The lab's optimal strategy (Mississippi and Caribbean Stud), the house way (Pai Gow), plain
    /// shaking (Nutz, which has no choice to make).
    Optimal,
    /// Never fold: bet the smallest multiple on every street (Mississippi Stud), always raise
    /// (Caribbean Stud).
    Always,
}

impl FromStr for Strategy {
    type Err = UnknownStrategy;
    fn from_str(s: &str) -> Result<Strategy, UnknownStrategy> {
        match s {
            "optimal" => Ok(Strategy::Optimal),
            "always" => Ok(Strategy::Always),
            other => Err(UnknownStrategy(other.to_string())),
        }
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Strategy::Optimal => "optimal",
            Strategy::Always => "always",
        })
    }
}

/// Whether a game can be played with a strategy (a game without choices has only the optimal one).
pub fn supports(game: GameId, strategy: Strategy) -> bool {
    strategy == Strategy::Optimal || game.facts().has_choices()
}
