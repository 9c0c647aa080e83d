//! Pictures of cards and dice, drawn here as inline SVG: a card face (rank, suit symbol in its
//! colour), the joker, a face-down card's patterned back, and a die face with its pips.
//!
//! This module owns the drawings only. It must not load anything (no fonts, no images, no external
//! references: every picture is complete in the markup it returns) and must not decide what a card
//! means or when it was seen; the page says that beside the picture. The SVG carries no `xmlns`:
//! inline SVG in HTML needs none, and the page holds no URL at all. Every picture is a `maud`
//! template; its only values are this module's fixed labels and numbers, escaped by maud all the
//! same.

use std::fmt::Write;

use maud::{html, Markup, PreEscaped};
use pitboss_engine::card::{Card, Rank, Suit};

/// The ink of spades and clubs.
pub(crate) const BLACK: &str = "#000000";
/// The ink of hearts and diamonds.
pub(crate) const RED: &str = "#c00000";
/// The joker's own ink, unlike either suit colour.
pub(crate) const JOKER_INK: &str = "#6a1b9a";

/// An SVG element without content, closed by `/>`. Maud writes an element without a body as
/// HTML's void elements are written (`<rect …>`), which inside `<svg>` would open an element that
/// nothing closes; this turns the `>` that ends maud's tag into `/>`. Every attribute value in
/// `element` was escaped by maud, so that `>` is the tag's own.
fn closed(element: Markup) -> Markup {
    let mut tag = element.into_string();
    debug_assert!(tag.starts_with('<') && tag.ends_with('>') && !tag.ends_with("/>"));
    tag.insert(tag.len() - 1, '/');
    PreEscaped(tag)
}

/// The rank as printed on a card: `A`, `K`, `Q`, `J`, `10` … `2`.
pub(crate) fn rank_label(rank: Rank) -> &'static str {
    match rank {
        Rank::Ace => "A",
        Rank::King => "K",
        Rank::Queen => "Q",
        Rank::Jack => "J",
        Rank::Ten => "10",
        Rank::Nine => "9",
        Rank::Eight => "8",
        Rank::Seven => "7",
        Rank::Six => "6",
        Rank::Five => "5",
        Rank::Four => "4",
        Rank::Three => "3",
        Rank::Two => "2",
    }
}

/// The suit's symbol: ♠ ♥ ♦ ♣.
pub(crate) fn suit_symbol(suit: Suit) -> &'static str {
    match suit {
        Suit::Spades => "♠",
        Suit::Hearts => "♥",
        Suit::Diamonds => "♦",
        Suit::Clubs => "♣",
    }
}

/// Red for hearts and diamonds, black for spades and clubs.
pub(crate) fn suit_ink(suit: Suit) -> &'static str {
    match suit {
        Suit::Hearts | Suit::Diamonds => RED,
        Suit::Spades | Suit::Clubs => BLACK,
    }
}

/// The card's name in words: "Ace of spades", "Ten of hearts", "Joker".
pub(crate) fn card_name(card: Card) -> String {
    match (card.rank(), card.suit()) {
        (Some(rank), Some(suit)) => {
            let rank = match rank {
                Rank::Ace => "Ace",
                Rank::King => "King",
                Rank::Queen => "Queen",
                Rank::Jack => "Jack",
                Rank::Ten => "Ten",
                Rank::Nine => "Nine",
                Rank::Eight => "Eight",
                Rank::Seven => "Seven",
                Rank::Six => "Six",
                Rank::Five => "Five",
                Rank::Four => "Four",
                Rank::Three => "Three",
                Rank::Two => "Two",
            };
            let suit = match suit {
                Suit::Spades => "spades",
                Suit::Hearts => "hearts",
                Suit::Diamonds => "diamonds",
                Suit::Clubs => "clubs",
            };
            format!("{rank} of {suit}")
        }
        _ => "Joker".to_string(),
    }
}

/// A card face up. Every piece of text in it is one of this module's fixed labels.
pub(crate) fn card_face(card: Card) -> Markup {
    let name = card_name(card);
    html! {
        svg.card.face data-card=(card) role="img" aria-label=(name)
            viewBox="0 0 100 140" width="18mm" height="25.2mm" {
            title { (name) }
            @if let (Some(rank), Some(suit)) = (card.rank(), card.suit()) {
                (suited_body(rank, suit))
            } @else {
                (joker_body())
            }
        }
    }
}

/// A card's white rounded outline, in `ink`, `width` units wide.
fn card_outline(ink: &str, width: u8) -> Markup {
    closed(html! {
        rect x="2" y="2" width="96" height="136" rx="9" fill="#ffffff" stroke=(ink)
            stroke-width=(width);
    })
}

/// A suited card's face: the rank and suit in the corners and a large suit symbol, in the suit's
/// ink.
fn suited_body(rank: Rank, suit: Suit) -> Markup {
    let ink = suit_ink(suit);
    let rank = rank_label(rank);
    let symbol = suit_symbol(suit);
    html! {
        (card_outline(BLACK, 2))
        text x="9" y="27" font-family="sans-serif" font-size="24" font-weight="bold" fill=(ink) {
            (rank)
        }
        text x="9" y="50" font-family="sans-serif" font-size="22" fill=(ink) { (symbol) }
        text x="50" y="95" font-family="sans-serif" font-size="54" text-anchor="middle"
            fill=(ink) { (symbol) }
        text x="91" y="130" font-family="sans-serif" font-size="24" font-weight="bold"
            text-anchor="end" fill=(ink) { (rank) }
    }
}

/// The joker's face: the word JOKER and a five-pointed star, in the joker's own ink.
fn joker_body() -> Markup {
    // A five-pointed star centred at (50, 78), outer radius 26, inner 10.5: points every 36°.
    const STAR: &str =
        "50,52 56.2,69.5 74.7,70 60,81.3 65.3,99 50,88.5 34.7,99 40,81.3 25.3,70 43.8,69.5";
    html! {
        (card_outline(JOKER_INK, 4))
        text x="50" y="30" font-family="sans-serif" font-size="19" font-weight="bold"
            text-anchor="middle" fill=(JOKER_INK) { "JOKER" }
        (closed(html! { polygon.star points=(STAR) fill=(JOKER_INK); }))
        text x="50" y="128" font-family="sans-serif" font-size="19" font-weight="bold"
            text-anchor="middle" fill=(JOKER_INK) { "JOKER" }
    }
}

/// A face-down card: a patterned back, the same for every card.
pub(crate) fn card_back() -> Markup {
    let mut lattice = String::new();
    // Diagonal lines both ways across the inner panel (10..90 × 10..130), every 10 units.
    let mut offset = -120;
    while offset <= 80 {
        let _ = write!(lattice, "M{},10 L{},130 ", 10 + offset, 130 + offset);
        let _ = write!(lattice, "M{},10 L{},130 ", 90 - offset, -30 - offset);
        offset += 10;
    }
    html! {
        svg.card.back role="img" aria-label="face-down card"
            viewBox="0 0 100 140" width="18mm" height="25.2mm" {
            title { "face-down card" }
            (card_outline(BLACK, 2))
            svg x="10" y="10" width="80" height="120" viewBox="10 10 80 120" {
                (closed(html! {
                    path d=(lattice.trim_end()) stroke="#1f3a93" stroke-width="2" fill="none";
                }))
            }
            (closed(html! {
                rect x="10" y="10" width="80" height="120" rx="4" fill="none" stroke="#1f3a93"
                    stroke-width="3";
            }))
        }
    }
}

/// Pip centres of each face 1–6 on a 100 × 100 die.
fn pips(face: u8) -> &'static [(u8, u8)] {
    const L: u8 = 27;
    const C: u8 = 50;
    const R: u8 = 73;
    match face {
        1 => &[(C, C)],
        2 => &[(L, L), (R, R)],
        3 => &[(L, L), (C, C), (R, R)],
        4 => &[(L, L), (R, L), (L, R), (R, R)],
        5 => &[(L, L), (R, L), (C, C), (L, R), (R, R)],
        6 => &[(L, L), (R, L), (L, C), (R, C), (L, R), (R, R)],
        _ => &[],
    }
}

/// A die showing `face`, with a heavy border when it is `held`. A value outside 1–6 (which the
/// engine never records) is drawn as a blank die marked `?`, never refused.
pub(crate) fn die(face: u8, held: bool) -> Markup {
    let (class, label, stroke) = if held {
        ("die held", format!("die showing {face}, held"), 8)
    } else {
        ("die", format!("die showing {face}"), 3)
    };
    let drawn = pips(face);
    html! {
        svg class=(class) data-face=(face) role="img" aria-label=(label)
            viewBox="0 0 100 100" width="12mm" height="12mm" {
            title { (label) }
            (closed(html! {
                rect x="4" y="4" width="92" height="92" rx="16" fill="#ffffff" stroke=(BLACK)
                    stroke-width=(stroke);
            }))
            @for (x, y) in drawn {
                (closed(html! { circle.pip cx=(x) cy=(y) r="9" fill=(BLACK); }))
            }
            @if drawn.is_empty() {
                text x="50" y="66" font-family="sans-serif" font-size="44" text-anchor="middle"
                    fill=(BLACK) { "?" }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(text: &str) -> Card {
        text.parse().unwrap()
    }

    fn card_face(card: Card) -> String {
        super::card_face(card).into_string()
    }

    fn card_back() -> String {
        super::card_back().into_string()
    }

    fn die(face: u8, held: bool) -> String {
        super::die(face, held).into_string()
    }

    #[test]
    fn empty_elements_are_closed_the_svg_way() {
        let back = card_back();
        assert!(
            back.contains(r##"stroke="#000000" stroke-width="2"/><svg x="10""##),
            "{back}"
        );
        assert!(back.contains(r##"fill="none"/></svg>"##), "{back}");
        assert!(die(1, false)
            .contains(r##"<circle class="pip" cx="50" cy="50" r="9" fill="#000000"/>"##));
        assert!(!back.contains("</rect>") && !back.contains("</path>"));
    }

    #[test]
    fn faces_show_rank_suit_and_colour() {
        let ace = card_face(card("As"));
        assert!(ace.contains(">A</text>"), "{ace}");
        assert!(ace.contains(">♠</text>"));
        assert!(ace.contains(r##"fill="#000000">A<"##), "spades are black");
        assert!(!ace.contains(RED));
        let ten = card_face(card("Th"));
        assert!(ten.contains(">10</text>"), "ten is printed 10, not T");
        assert!(ten.contains(r##"fill="#c00000">♥<"##), "hearts are red");
        assert!(card_face(card("2d")).contains(r##"fill="#c00000">♦<"##));
        assert!(card_face(card("Kc")).contains(r##"fill="#000000">♣<"##));
    }

    #[test]
    fn the_joker_is_its_own_card() {
        let joker = card_face(Card::JOKER);
        assert!(joker.contains("JOKER"));
        assert!(joker.contains("class=\"star\""));
        assert!(joker.contains(JOKER_INK));
        assert!(!joker.contains(RED) && !joker.contains(r##"fill="#000000""##));
        assert!(joker.contains("data-card=\"JK\""));
    }

    #[test]
    fn a_back_shows_nothing_of_the_card() {
        let back = card_back();
        assert!(back.contains("class=\"card back\""));
        assert!(!back.contains("<text"));
        assert_eq!(back.matches("<svg").count(), back.matches("</svg>").count());
    }

    #[test]
    fn dice_have_as_many_pips_as_their_face() {
        for face in 1..=6u8 {
            let svg = die(face, false);
            assert_eq!(svg.matches("class=\"pip\"").count(), usize::from(face));
            assert!(svg.contains(&format!("data-face=\"{face}\"")));
        }
        assert!(die(4, true).contains("class=\"die held\""));
        assert!(!die(4, false).contains("held"));
        let odd = die(9, false);
        assert_eq!(odd.matches("class=\"pip\"").count(), 0);
        assert!(odd.contains(">?</text>"));
    }
}
