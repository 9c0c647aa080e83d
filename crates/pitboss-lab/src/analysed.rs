//! What each game's lab module provides to the lab's entry points ([`Analysed`]): the rules the
//! analysis cannot handle, the cost of the strategy tables ([`Footprint`]), the exact PAR sheets,
//! how a simulation stakes and names a hand's outcome, and how a player is advised, with the
//! strategy tables ([`Tables`]) the advice reads. `games.rs` picks the module for a game.
//!
//! Must not hold a game's analysis itself: that is its module's.

use std::any::Any;
use std::fmt::Debug;

use pitboss_engine::card::Card;
use pitboss_engine::config::GameConfig;
use pitboss_engine::game::Seat;
use pitboss_engine::games::view::PlayerView;
use pitboss_engine::games::{Action, Hand};
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

    /// The decision the strategy takes now in `hand` (in progress), from what the player sees
    /// (`view`) and the configuration's tables when built (`None`: advise without them, or not at
    /// all). `None` when the hand awaits no decision this strategy advises.
    fn advise(
        &self,
        hand: &Hand,
        view: &PlayerView,
        tables: Option<&dyn Tables>,
    ) -> Result<Option<Action>, LabError>;

    /// The strategy tables of `config` built on `threads` threads (`None`: the game's advice
    /// reads none). The configuration has passed `analysable::check`.
    fn build_tables(
        &self,
        config: &GameConfig,
        threads: usize,
    ) -> Result<Option<Box<dyn Tables>>, LabError> {
        let _ = (config, threads);
        Ok(None)
    }

    /// The tag the game's kept tables start with (`None` for a game without tables; 0 is no
    /// tables, and each game's tag is its own).
    fn tables_tag(&self) -> Option<u8> {
        None
    }

    /// The game's tables of `config` from their kept bytes (after the tag), or why they do not
    /// read back.
    fn tables_from_bytes(
        &self,
        config: &GameConfig,
        bytes: &[u8],
    ) -> Result<Box<dyn Tables>, String> {
        let _ = bytes;
        Err(format!("{} keeps no tables", config.game.id()))
    }
}

/// A game's strategy tables, built once per configuration and shared by every advice. Its module
/// reads them back from a `&dyn Tables` as its own type (`tables_of`).
pub(crate) trait Tables: Any + Debug + Send + Sync + SameTables {
    /// The tag its kept bytes start with (its game's `Analysed::tables_tag`).
    fn tag(&self) -> u8;

    /// The tables' own bytes, or `None` when they cannot be kept.
    fn to_bytes(&self) -> Option<Vec<u8>>;
}

/// Whether two tables are the same, for any tables that compare.
pub(crate) trait SameTables {
    /// Whether `other` holds the same tables.
    fn same(&self, other: &dyn Tables) -> bool;
}

impl<T: Tables + PartialEq> SameTables for T {
    fn same(&self, other: &dyn Tables) -> bool {
        tables_of::<T>(Some(other)) == Some(self)
    }
}

/// `tables` as `T`, if they are `T`'s.
pub(crate) fn tables_of<T: Tables>(tables: Option<&dyn Tables>) -> Option<&T> {
    let any: &dyn Any = tables?;
    any.downcast_ref::<T>()
}

/// The cards of `seat` the player sees.
pub(crate) fn visible(view: &PlayerView, seat: Seat) -> Vec<Card> {
    view.seats
        .iter()
        .filter(|s| s.seat == seat)
        .flat_map(|s| s.cards.iter().flatten().copied())
        .collect()
}

/// The stakes on `bet`, or on every bet but the side bonus (`None`), in minor units.
pub(crate) fn staked(hand: &Hand, bet: Option<BetId>) -> u64 {
    hand.stakes()
        .iter()
        .filter(|w| bet.map_or(w.bet != BetId::Bonus, |b| w.bet == b))
        .map(|w| w.amount.0)
        .sum()
}

/// Wagers of these bets at these stakes.
pub(crate) fn wagers(stakes: &[(BetId, Money)]) -> Vec<Wager> {
    stakes
        .iter()
        .map(|&(bet, amount)| Wager { bet, amount })
        .collect()
}
