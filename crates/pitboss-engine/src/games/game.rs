//! What every game provides to the hand's state machine: the [`Game`] trait (`play.rs` holds the
//! game-specific part of a hand's state, which dispatches to it in one place).
//!
//! [`Hand`](super::Hand) owns what all games share: opening, the seed and its stream, the deck and
//! the cards shown, the stakes, times, voids and the incomplete-game rule, settlement and the seed's
//! reveal. A game owns only its own rules:
//!
//! - which wagers open a hand ([`Game::check_wagers`]) and what is shown once it opens
//!   ([`Game::deal`]);
//! - the decisions legal now ([`Game::legal`]) and the events a decision causes ([`Game::act`]);
//! - folding its own events into its state, refusing one that does not follow ([`Game::apply`]);
//! - its part of the player's view ([`Game::view`]);
//! - its settlement ([`Game::settle`]);
//! - what the incomplete-game rule does to its hands ([`Game::incomplete_rule`],
//!   [`Game::complete`]).
//!
//! A game does no I/O, reads no clock and draws no randomness of its own: times come in commands,
//! cards from the hand's deck and dice from the hand's [`DiceSource`], so replay gives the same
//! events, byte for byte. It emits events only through the [`Emitter`], which folds each into the
//! hand as it goes.

use std::fmt;

use super::view::DiceView;
use super::{Action, DiceSource, Emitter, Event, Hand, RuleError, Timestamp};
use crate::card::Card;
use crate::config::GameConfig;
use crate::settlement::{Settlement, Wager};

/// One game's rules over its own state (the state is `Self`, fresh at [`Default`] before the hand
/// opens).
pub(super) trait Game: fmt::Debug {
    /// Refuses opening wagers that are not this game's, miss a required bet or are outside the
    /// configured limits. Called before the `Opened` event; duplicates are already refused.
    fn check_wagers(&self, hand: &Hand, wagers: &[Wager]) -> Result<(), RuleError>;

    /// Emits what the deal shows once the hand has opened (the player's cards, a dealer's up card;
    /// nothing for dice).
    fn deal(&self, out: &mut Emitter) -> Result<(), RuleError>;

    /// The decisions legal now, the hand being in progress.
    fn legal(&self, hand: &Hand) -> Vec<Action>;

    /// Refuses a decision that is not this game's or not legal now, or emits the events it causes,
    /// through to the settlement if it ends the hand. The hand is in progress; `self` is the state
    /// as it was when the command arrived (the emitter's hand moves on as events are emitted).
    fn act(&self, out: &mut Emitter, action: Action, at: Timestamp) -> Result<(), RuleError>;

    /// Folds one event into the game's state (called for every event, after the hand's own
    /// bookkeeping), refusing one that does not follow from it.
    fn apply(&mut self, event: &Event, dealt: Dealt<'_>) -> Result<(), RuleError>;

    /// The game's part of the player's view.
    fn view(&self, hand: &Hand) -> GameView;

    /// The settlement of the finished hand.
    fn settle(&self, hand: &Hand) -> Result<Settlement, RuleError>;

    /// What the incomplete-game rule does to a hand of this game under rules version 2 (under
    /// version 1 it refunds every game's).
    fn incomplete_rule(&self) -> IncompleteRule;

    /// After the `Completed` event, emits the events completing and settling the hand; only for a
    /// game whose [`Game::incomplete_rule`] completes.
    fn complete(&self, out: &mut Emitter, _at: Timestamp) -> Result<(), RuleError> {
        Err(super::ConfigMisfit::NotCompleted(out.hand.game()).into())
    }
}

/// What the hand has dealt, for a game folding an event in.
pub(super) struct Dealt<'a> {
    /// The shuffled deck (empty for dice).
    pub(super) deck: &'a [Card],
    /// The hand's configuration.
    pub(super) config: &'a GameConfig,
    /// The hand's dice.
    pub(super) dice: &'a mut DiceSource,
}

/// A game's part of the player's view.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct GameView {
    /// Nutz: the dice, once shaken.
    pub(super) dice: Option<DiceView>,
    /// Fortune Pai Gow: the house way's low hand, while the player has not set.
    pub(super) suggested_low: Option<[Card; 2]>,
}

/// What the incomplete-game rule does to a game's hand (rules version 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum IncompleteRule {
    /// The hand is void, every stake refunded.
    Refund,
    /// The hand is completed ([`Game::complete`]) and settled; `how` says how, in words.
    Complete { how: &'static str },
}
