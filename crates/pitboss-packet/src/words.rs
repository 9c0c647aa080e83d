//! Plain-language words for the page: ids made readable, amounts in a currency,
//! what a paytable row pays, and one sentence for each recorded event.
//!
//! This module owns wording only. Everything it returns is plain text, not HTML: the page escapes
//! it like any other text. It must not judge anything (the verdict is the model's) and must never
//! panic on what a log holds: odd card counts, unknown ids and out-of-range values all get words.

use pitboss_engine::card::Card;
use pitboss_engine::config::Currency;
use pitboss_engine::game::Seat;
use pitboss_engine::games::{Action, Event, Opened, Shaker, VoidKind};
use pitboss_engine::money::{Money, SignedMinor};
use pitboss_engine::paytable::{Outcome, Pay};
use pitboss_engine::settlement::{BetId, Wager};

use crate::svg::{rank_label, suit_symbol};

/// A snake_case id made readable: `"royal_flush"` → `"Royal flush"`.
pub(crate) fn readable(id: &str) -> String {
    let spaced = id.replace('_', " ");
    let mut chars = spaced.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A bet's name: "Ante", "3rd street", "Box: full house".
pub(crate) fn bet_name(bet: BetId) -> String {
    match bet {
        BetId::Street3 => "3rd street".to_string(),
        BetId::Street4 => "4th street".to_string(),
        BetId::Street5 => "5th street".to_string(),
        other => {
            let id = other.id();
            match id.strip_prefix("box_") {
                Some(rest) => format!("Box: {}", rest.replace('_', " ")),
                None => readable(id),
            }
        }
    }
}

/// An amount as `Money::display` gives it, then the currency code: `"250.00 EUR"`.
pub(crate) fn money(amount: Money, currency: &Currency) -> String {
    format!(
        "{} {}",
        amount.display(currency.minor_digits),
        currency.code
    )
}

/// A signed amount (a net result, an adjustment): `"+12.50"`, `"-3.00"`, `"0.00"`.
pub(crate) fn signed(amount: SignedMinor, minor_digits: u8) -> String {
    let magnitude = Money(u64::try_from(amount.unsigned_abs()).unwrap_or(u64::MAX));
    let text = magnitude.display(minor_digits);
    match amount.signum() {
        1 => format!("+{text}"),
        -1 => format!("-{text}"),
        _ => text,
    }
}

/// What a row pays: "500 to 1", "push", "fixed 25.00 EUR".
pub(crate) fn pay_words(pay: Pay, currency: &Currency) -> String {
    match pay {
        Pay::Odds(x) => format!("{x} to 1"),
        Pay::Push => "push".to_string(),
        Pay::Fixed(amount) => format!("fixed {}", money(amount, currency)),
    }
}

/// A settled bet's outcome.
pub(crate) fn outcome_words(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Win => "win",
        Outcome::Push => "push",
        Outcome::Lose => "lose",
    }
}

/// A void's kind.
pub(crate) fn void_kind_words(kind: VoidKind) -> &'static str {
    match kind {
        VoidKind::Malfunction => "malfunction",
        VoidKind::Incomplete => "incomplete game",
        VoidKind::ConductForfeit => "conduct forfeit",
    }
}

/// A card as people write it: `A♠`, `10♥`, `Joker`.
pub(crate) fn card_text(card: Card) -> String {
    match (card.rank(), card.suit()) {
        (Some(rank), Some(suit)) => format!("{}{}", rank_label(rank), suit_symbol(suit)),
        _ => "Joker".to_string(),
    }
}

/// Cards space-separated, as people write them.
pub(crate) fn cards_text(cards: &[Card]) -> String {
    cards
        .iter()
        .map(|&c| card_text(c))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whose cards: "the player's", "the dealer's", "the community".
pub(crate) fn seat_words(seat: Seat) -> &'static str {
    match seat {
        Seat::Player => "the player",
        Seat::Dealer => "the dealer",
        Seat::Community => "the community (shared) cards",
    }
}

/// A seat's heading.
pub(crate) fn seat_title(seat: Seat) -> &'static str {
    match seat {
        Seat::Player => "Player",
        Seat::Dealer => "Dealer",
        Seat::Community => "Community cards",
    }
}

/// Who shook.
pub(crate) fn shaker_words(by: Shaker) -> &'static str {
    match by {
        Shaker::Player => "the player",
        Shaker::Dealer => "the dealer",
    }
}

/// Die positions (0-based in the log) as people count them: "dice 1, 2 and 5".
pub(crate) fn dice_positions(positions: &[u8]) -> String {
    let names: Vec<String> = positions
        .iter()
        .map(|p| (u16::from(*p) + 1).to_string())
        .collect();
    match names.as_slice() {
        [] => "no dice".to_string(),
        [one] => format!("die {one}"),
        [init @ .., last] => format!("dice {} and {last}", init.join(", ")),
    }
}

/// The dice held after a shake: "Held for the next shake: dice 2 and 5", or after the last shake
/// "Held: dice 2 and 5".
pub(crate) fn held_words(held: &[u8], last: bool) -> String {
    if last {
        format!("Held: {}", dice_positions(held))
    } else {
        format!("Held for the next shake: {}", dice_positions(held))
    }
}

/// Wagers with their amounts: "ante 50.00 EUR, bonus 10.00 EUR".
fn wagers_words(wagers: &[Wager], currency: &Currency) -> String {
    if wagers.is_empty() {
        return "none".to_string();
    }
    wagers
        .iter()
        .map(|w| format!("{} {}", bet_name(w.bet), money(w.amount, currency)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a player decision was, in words.
/// A decision in words, as every page and listing of decisions says it.
pub fn action_words(action: &Action) -> String {
    match action {
        Action::Bet { multiple } => format!("bet {multiple}× the ante"),
        Action::MaxBetAll => {
            "max bet all: the largest bet on this and every remaining street".into()
        }
        Action::Fold => "fold".into(),
        Action::Raise => "raise".into(),
        Action::SetHand { low } => format!("set hand, low hand {}", cards_text(low)),
        Action::AutoSet => "auto-set: asked the house way to set the hand".into(),
        Action::Shake { by } => format!("shake, by {}", shaker_words(*by)),
    }
}

fn opened_words(opened: &Opened, currency: &Currency) -> String {
    let mut text = format!(
        "Hand opened at table {} for player {}, wagers: {}. Commitment to the seed: {}.",
        opened.table,
        opened.player,
        wagers_words(&opened.wagers, currency),
        opened.commitment
    );
    if let Some(earlier) = &opened.rebet_of {
        text.push_str(&format!(" A rebet of hand {earlier}."));
    }
    text
}

/// One recorded event in a sentence.
pub(crate) fn event_words(event: &Event, currency: &Currency) -> String {
    match event {
        Event::Opened(opened) => opened_words(opened, currency),
        Event::CardsShown { seat, cards, .. } => format!(
            "Cards shown face up, {}: {}.",
            seat_words(*seat),
            if cards.is_empty() {
                "none".to_string()
            } else {
                cards_text(cards)
            }
        ),
        Event::Acted { action, stakes, .. } => {
            let mut text = format!("Player acted: {}", action_words(action));
            if !stakes.is_empty() {
                text.push_str(&format!(", staking {}", wagers_words(stakes, currency)));
            }
            text.push('.');
            text
        }
        Event::DiceShaken {
            shake,
            by,
            rolled,
            faces,
            held,
            last,
            ..
        } => {
            let faces = faces.map(|f| f.to_string()).join(" ");
            let mut text = format!(
                "Shake {shake} by {}: rolled {}; the dice show {faces}; {}.",
                shaker_words(*by),
                dice_positions(rolled),
                held_words(held, *last).to_lowercase(),
            );
            if *last {
                text.push_str(" The round is over.");
            }
            text
        }
        Event::HandSet {
            seat,
            setting,
            house_way_rule,
        } => {
            let how = match (seat, house_way_rule) {
                (Seat::Dealer, Some(rule)) => format!(" by the house way ({rule})"),
                (_, Some(rule)) => format!(" by the house way on auto-set ({rule})"),
                (_, None) => " by the player".to_string(),
            };
            format!(
                "Hand set for {}{how}: high five {}, low two {}.",
                seat_words(*seat),
                cards_text(&setting.high),
                cards_text(&setting.low)
            )
        }
        Event::Settled(settlement) => format!(
            "Settled: {} staked, {} paid in all (net {} {}).",
            money(settlement.total_staked, currency),
            money(settlement.total_paid, currency),
            signed(settlement.net(), currency.minor_digits),
            currency.code
        ),
        Event::Voided(void) => format!(
            "Voided ({}): {} Recorded by {}. Paid now {} in all.",
            void_kind_words(void.order.kind),
            void.order.reason,
            void.order.recorded_by,
            money(void.paid_now, currency)
        ),
        Event::Completed(completion) => format!(
            "Completed by the incomplete-game rule: {} Recorded by {}.",
            completion.allowed_because, completion.order.recorded_by
        ),
        Event::SeedRevealed { seed } => format!("Seed revealed: {}.", seed.to_hex()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_amounts_read_as_words() {
        assert_eq!(readable("royal_flush"), "Royal flush");
        assert_eq!(readable(""), "");
        assert_eq!(bet_name(BetId::Street4), "4th street");
        assert_eq!(bet_name(BetId::BoxFullHouse), "Box: full house");
        assert_eq!(bet_name(BetId::FortuneBonus), "Fortune bonus");
        let eur = Currency {
            code: "EUR".into(),
            minor_digits: 2,
        };
        assert_eq!(pay_words(Pay::Odds(500), &eur), "500 to 1");
        assert_eq!(pay_words(Pay::Push, &eur), "push");
        assert_eq!(pay_words(Pay::Fixed(Money(2_500)), &eur), "fixed 25.00 EUR");
        assert_eq!(signed(-300, 2), "-3.00");
        assert_eq!(signed(1_250, 2), "+12.50");
        assert_eq!(signed(0, 0), "0");
        assert_eq!(signed(-i128::from(u64::MAX), 0), format!("-{}", u64::MAX));
        assert_eq!(dice_positions(&[0, 1, 4]), "dice 1, 2 and 5");
        assert_eq!(dice_positions(&[3]), "die 4");
        assert_eq!(dice_positions(&[]), "no dice");
        assert_eq!(card_text("Th".parse().unwrap()), "10♥");
        assert_eq!(card_text(Card::JOKER), "Joker");
    }
}
