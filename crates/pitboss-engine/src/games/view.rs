//! What the player may see of a hand at any point: never a face-down card, never the seed before the
//! hand has ended. Also the decisions legal now, and for Fortune Pai Gow the house way's suggested
//! low hand.

use super::{Action, Hand, Status};
use crate::card::Card;
use crate::game::{GameId, Seat};
use crate::rng::{Commitment, Seed};
use crate::settlement::{Settlement, Wager};

use super::Void;

/// One seat's cards as the player sees them: `None` for a card still face down.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatView {
    /// Whose cards.
    pub seat: Seat,
    /// In deal order.
    pub cards: Vec<Option<Card>>,
}

/// The dice as the player sees them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiceView {
    /// Faces after the last shake.
    pub faces: [u8; 5],
    /// Positions held for the next shake.
    pub held: Vec<u8>,
    /// Shakes made.
    pub shakes: u8,
}

/// The player's view of a hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerView {
    /// The game.
    pub game: GameId,
    /// Where the hand stands.
    pub status: Status,
    /// Every stake placed.
    pub stakes: Vec<Wager>,
    /// The commitment to the seed.
    pub commitment: Option<Commitment>,
    /// Cards by seat (card games).
    pub seats: Vec<SeatView>,
    /// Dice (Nutz), once shaken.
    pub dice: Option<DiceView>,
    /// Decisions legal now.
    pub legal: Vec<Action>,
    /// Fortune Pai Gow: the house way's low hand, while the player has not set.
    pub suggested_low: Option<[Card; 2]>,
    /// The settlement, once settled.
    pub settlement: Option<Settlement>,
    /// The void, once voided.
    pub void: Option<Void>,
    /// The seed, once the hand has ended.
    pub seed: Option<Seed>,
}

/// The player's view of `hand`.
pub fn player_view(hand: &Hand) -> PlayerView {
    let shown = |p: usize| {
        hand.shown
            .iter()
            .find(|&&(_, q, _)| usize::from(q) == p)
            .map(|&(_, _, c)| c)
    };
    let seats = if hand.status == Status::Pending {
        Vec::new()
    } else {
        hand.game()
            .layout()
            .iter()
            .map(|layout| SeatView {
                seat: layout.seat,
                cards: layout.positions.clone().map(shown).collect(),
            })
            .collect()
    };
    let game = hand.play.game().view(hand);
    PlayerView {
        game: hand.game(),
        status: hand.status,
        stakes: hand.stakes.clone(),
        commitment: hand.opened.as_ref().map(|o| o.commitment),
        seats,
        dice: game.dice,
        legal: hand.legal_actions(),
        suggested_low: game.suggested_low,
        settlement: hand.settlement.clone(),
        void: hand.void.clone(),
        seed: hand.revealed_seed(),
    }
}
