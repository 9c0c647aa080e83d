//! What each game's lab module provides to the lab's entry points ([`Analysed`]): the rules the
//! analysis cannot handle, the cost of the strategy tables ([`Footprint`]), the exact PAR sheets,
//! and how a simulation stakes and names a hand's outcome. `games.rs` picks the module for a game.
//!
//! Must not hold a game's analysis itself: that is its module's.

use pitboss_engine::config::GameConfig;
use pitboss_engine::games::Hand;
use pitboss_engine::money::Money;
use pitboss_engine::settlement::{BetId, BetLine, Wager};

use super::error::LabError;
use super::par::ParSheet;

/// The estimated cost of a configuration's strategy tables (`budget.rs` holds it to the budget).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footprint {
    /// Memory, in bytes.
    pub bytes: u64,
    /// Steps of the induction (the counting sweep and the simulations are fixed work).
    pub steps: u64,
}

/// One game's analysis. Every method is given a configuration of the game (`config.game` picked
/// the module, `games::of`); one of another game is a [`LabError::WrongGame`].
pub(crate) trait Analysed: Sync {
    /// Refuses a configuration whose figures the analysis cannot compute, naming the field (as a
    /// path under the game's rules, `paytable[3].pay`) and why.
    fn refusal(&self, config: &GameConfig) -> Result<(), (String, LabError)>;

    /// What the strategy tables of `config` cost, built on up to `threads` threads (nothing for
    /// a game without them).
    fn footprint(&self, config: &GameConfig, threads: usize) -> Footprint {
        let _ = (config, threads);
        Footprint { bytes: 0, steps: 0 }
    }

    /// Every exact PAR sheet of `config`, on `threads` threads.
    fn exact_par_sheets(
        &self,
        config: &GameConfig,
        threads: usize,
    ) -> Result<Vec<ParSheet>, LabError>;

    /// The wagers every simulated hand places: the smallest stake of each bet the game has.
    fn reference_wagers(&self, config: &GameConfig) -> Result<Vec<Wager>, LabError>;

    /// The row of `group` a hand's first line in it ended in, where the exact sheet names it
    /// otherwise than the line's rule (`None`: the rule is the row).
    fn row_of(&self, group: &str, hand: &Hand, line: &BetLine) -> Option<String> {
        let _ = (group, hand, line);
        None
    }
}

/// Wagers of these bets at these stakes.
pub(crate) fn wagers(stakes: &[(BetId, Money)]) -> Vec<Wager> {
    stakes
        .iter()
        .map(|&(bet, amount)| Wager { bet, amount })
        .collect()
}
