//! Hand evaluators: standard five-card poker, the three-card bonus hand, Pai Gow's five-card and
//! two-card hands with the semi-wild joker, and the Fortune bonus's seven-card categories.
//!
//! Each evaluator turns cards into an ordered value or a category, and nothing more: which category
//! pays what lives in the game configuration, and who wins is the game engine's decision.
//!
//! Values are `u32`s laid out as `category << 26 | primary << 13 | secondary`, where `primary` and
//! `secondary` are 13-bit rank masks (bit 0 = Two … bit 12 = Ace). For sets of ranks of equal size,
//! comparing masks as numbers is the same as comparing the ranks highest first, so one integer
//! comparison orders hands exactly by poker rules, ties included.

pub mod fortune;
pub mod pai_gow;
pub mod poker5;
pub(crate) mod rank_masks;
pub mod three_card;

use super::card::Card;

/// Cards that cannot form the hand asked for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HandError {
    #[error("the joker is not part of this game's deck")]
    JokerNotAllowed,
    #[error("card {0} appears more than once in the hand")]
    DuplicateCard(Card),
}

/// Packs a value as described in the module documentation.
pub(crate) const fn pack(category: u8, primary: u16, secondary: u16) -> u32 {
    (category as u32) << 26 | (primary as u32) << 13 | secondary as u32
}

/// Refuses a hand that repeats a card, and (unless `joker_allowed`) one holding the joker.
pub(crate) fn check_cards(cards: &[Card], joker_allowed: bool) -> Result<(), HandError> {
    let mut seen = 0u64;
    for &card in cards {
        if card.is_joker() && !joker_allowed {
            return Err(HandError::JokerNotAllowed);
        }
        let bit = 1u64 << card.index();
        if seen & bit != 0 {
            return Err(HandError::DuplicateCard(card));
        }
        seen |= bit;
    }
    Ok(())
}
