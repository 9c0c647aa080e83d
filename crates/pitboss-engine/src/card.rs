//! Playing cards: rank, suit, the joker, the canonical 52- and 53-card decks, and the text forms
//! (`As Td 7c JK`) that every log, fixture, CLI and API uses.
//!
//! A [`Card`] is its index in the canonical deck of `spec/RNG.md` §5: ranks 2,3,…,10,J,Q,K,A, and
//! within each rank the suits clubs, diamonds, hearts, spades; the joker last (index 52). So the
//! canonical deck is simply the indices `0..52` (or `0..53`), and `index = 4 × rank + suit`.
//!
//! This module owns naming and parsing only: it knows nothing of hands, games or randomness.

use std::fmt;
use std::str::FromStr;

/// A card rank, Two (lowest) to Ace. The ace's low role (A-2-3-4-5) is the evaluators' business.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Rank {
    Two = 0,
    Three,
    Four,
    Five,
    Six,
    Seven,
    Eight,
    Nine,
    Ten,
    Jack,
    Queen,
    King,
    Ace,
}

impl Rank {
    /// All ranks, lowest first.
    pub const ALL: [Rank; 13] = [
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
    ];

    /// 0 for Two up to 12 for Ace: the bit a rank occupies in a 13-bit rank mask.
    #[inline]
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// The rank with this index (0 = Two … 12 = Ace).
    #[inline]
    pub const fn from_index(index: u8) -> Option<Rank> {
        if index < 13 {
            Some(Rank::ALL[index as usize])
        } else {
            None
        }
    }

    /// The one-character text form: `2`…`9`, `T`, `J`, `Q`, `K`, `A`.
    pub const fn symbol(self) -> char {
        b"23456789TJQKA"[self as usize] as char
    }

    fn from_symbol(text: &str) -> Option<Rank> {
        match text {
            "10" | "T" | "t" => Some(Rank::Ten),
            "J" | "j" => Some(Rank::Jack),
            "Q" | "q" => Some(Rank::Queen),
            "K" | "k" => Some(Rank::King),
            "A" | "a" => Some(Rank::Ace),
            _ => {
                let mut chars = text.chars();
                match (chars.next(), chars.next()) {
                    (Some(c @ '2'..='9'), None) => Rank::from_index(c as u8 - b'2'),
                    _ => None,
                }
            }
        }
    }
}

/// A suit. Suits never rank; their order only fixes the canonical deck.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Suit {
    Clubs = 0,
    Diamonds,
    Hearts,
    Spades,
}

impl Suit {
    /// All suits in canonical order.
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    /// 0 = clubs … 3 = spades.
    #[inline]
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// The one-character text form: `c`, `d`, `h`, `s`.
    pub const fn symbol(self) -> char {
        b"cdhs"[self as usize] as char
    }

    fn from_symbol(c: char) -> Option<Suit> {
        match c {
            'c' | 'C' => Some(Suit::Clubs),
            'd' | 'D' => Some(Suit::Diamonds),
            'h' | 'H' => Some(Suit::Hearts),
            's' | 'S' => Some(Suit::Spades),
            _ => None,
        }
    }
}

/// One card of the 53-card deck: a natural card or the joker.
///
/// Internally its canonical index (`4 × rank + suit`, joker 52), so equality, hashing and ordering
/// are by canonical position.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card(u8);

impl Card {
    /// The joker (canonical index 52).
    pub const JOKER: Card = Card(52);

    /// The natural card of this rank and suit.
    #[inline]
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card(rank.index() * 4 + suit.index())
    }

    /// The card at this canonical index (0..=52), if any.
    #[inline]
    pub const fn from_index(index: u8) -> Option<Card> {
        if index <= 52 {
            Some(Card(index))
        } else {
            None
        }
    }

    /// The canonical index: 0 (`2c`) … 51 (`As`), 52 for the joker.
    #[inline]
    pub const fn index(self) -> u8 {
        self.0
    }

    /// True for the joker.
    #[inline]
    pub const fn is_joker(self) -> bool {
        self.0 == 52
    }

    /// The rank of a natural card; `None` for the joker.
    #[inline]
    pub const fn rank(self) -> Option<Rank> {
        if self.is_joker() {
            None
        } else {
            Rank::from_index(self.0 / 4)
        }
    }

    /// The suit of a natural card; `None` for the joker.
    #[inline]
    pub const fn suit(self) -> Option<Suit> {
        if self.is_joker() {
            None
        } else {
            Some(Suit::ALL[(self.0 % 4) as usize])
        }
    }

    /// Rank index (0..13) of a natural card, without the `Option`: callers must have excluded the
    /// joker. Used by the evaluators' inner loops.
    pub(crate) const fn rank_bits(self) -> u8 {
        self.0 >> 2
    }

    /// Suit index (0..4) of a natural card; see [`Card::rank_bits`].
    pub(crate) const fn suit_bits(self) -> u8 {
        self.0 & 3
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.rank(), self.suit()) {
            (Some(rank), Some(suit)) => write!(f, "{}{}", rank.symbol(), suit.symbol()),
            _ => f.write_str("JK"),
        }
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl serde::Serialize for Card {
    /// As its text form (`"As"`, `"JK"`).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Card {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Card, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Why a card text could not be read. Each variant names the offending token.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CardParseError {
    #[error("`{token}` is not a card: expected a rank (2-9, T or 10, J, Q, K, A) and a suit (c, d, h, s), or JK for the joker")]
    Malformed { token: String },
    #[error("`{token}` has an unknown rank `{rank}`: expected 2-9, T or 10, J, Q, K or A")]
    BadRank { token: String, rank: String },
    #[error("`{token}` has an unknown suit `{suit}`: expected c, d, h or s")]
    BadSuit { token: String, suit: char },
    #[error("card `{token}` appears more than once")]
    Duplicate { token: String },
    #[error("expected {expected} cards, got {got}")]
    WrongCount { expected: usize, got: usize },
}

impl FromStr for Card {
    type Err = CardParseError;

    /// Reads `As`, `Td`, `10d`, `7c`, `JK` (the joker; `Jk`/`jk` too). Case of the rank and suit
    /// letters is not significant.
    fn from_str(token: &str) -> Result<Card, CardParseError> {
        if token.eq_ignore_ascii_case("JK") {
            return Ok(Card::JOKER);
        }
        let Some(suit_char) = token.chars().last() else {
            return Err(CardParseError::Malformed {
                token: token.to_string(),
            });
        };
        let rank_text = &token[..token.len() - suit_char.len_utf8()];
        if rank_text.is_empty() {
            return Err(CardParseError::Malformed {
                token: token.to_string(),
            });
        }
        let rank = Rank::from_symbol(rank_text).ok_or_else(|| CardParseError::BadRank {
            token: token.to_string(),
            rank: rank_text.to_string(),
        })?;
        let suit = Suit::from_symbol(suit_char).ok_or(CardParseError::BadSuit {
            token: token.to_string(),
            suit: suit_char,
        })?;
        Ok(Card::new(rank, suit))
    }
}

/// Reads whitespace- or comma-separated cards, refusing a card that appears twice.
pub fn parse_cards(text: &str) -> Result<Vec<Card>, CardParseError> {
    let mut seen = 0u64;
    let mut cards = Vec::new();
    for token in text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
    {
        let card: Card = token.parse()?;
        let bit = 1u64 << card.index();
        if seen & bit != 0 {
            return Err(CardParseError::Duplicate {
                token: token.to_string(),
            });
        }
        seen |= bit;
        cards.push(card);
    }
    Ok(cards)
}

/// Reads exactly `N` distinct cards (see [`parse_cards`]).
pub fn parse_exact<const N: usize>(text: &str) -> Result<[Card; N], CardParseError> {
    let cards = parse_cards(text)?;
    let got = cards.len();
    cards
        .try_into()
        .map_err(|_| CardParseError::WrongCount { expected: N, got })
}

/// Prints cards space-separated, as `parse_cards` reads them.
pub fn format_cards(cards: &[Card]) -> String {
    cards
        .iter()
        .map(Card::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The two decks the games use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Deck {
    /// 52 natural cards (Mississippi Stud, Caribbean Stud).
    Standard52,
    /// 52 natural cards and the joker (Fortune Pai Gow).
    WithJoker53,
}

impl Deck {
    /// Number of cards.
    #[inline]
    pub const fn len(self) -> usize {
        match self {
            Deck::Standard52 => 52,
            Deck::WithJoker53 => 53,
        }
    }

    /// Never empty; present for API symmetry with `len`.
    pub const fn is_empty(self) -> bool {
        false
    }

    /// The deck in canonical order (RNG.md §5): `2c 2d 2h 2s 3c … As`, then `JK` for 53 cards.
    pub fn canonical(self) -> Vec<Card> {
        (0..self.len() as u8).map(Card).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_card_round_trips_through_text() {
        for card in Deck::WithJoker53.canonical() {
            assert_eq!(card.to_string().parse::<Card>(), Ok(card));
        }
    }

    #[test]
    fn canonical_order_is_rank_then_suit_then_joker() {
        let deck = Deck::WithJoker53.canonical();
        assert_eq!(
            format_cards(&deck[..6]),
            "2c 2d 2h 2s 3c 3d",
            "ranks ascending, suits c d h s"
        );
        assert_eq!(deck[51].to_string(), "As");
        assert_eq!(deck[52], Card::JOKER);
        assert_eq!(Deck::Standard52.canonical().len(), 52);
        assert!(!Deck::Standard52.canonical().contains(&Card::JOKER));
    }

    #[test]
    fn parse_accepts_tens_and_case() {
        assert_eq!(
            parse_cards("10d td Td").unwrap_err(),
            CardParseError::Duplicate { token: "td".into() }
        );
        assert_eq!("10h".parse::<Card>().unwrap().to_string(), "Th");
        assert_eq!("jk".parse::<Card>(), Ok(Card::JOKER));
    }

    #[test]
    fn errors_name_the_bad_token() {
        let err = parse_cards("As Xd 7c").unwrap_err();
        assert_eq!(
            err,
            CardParseError::BadRank {
                token: "Xd".into(),
                rank: "X".into()
            }
        );
        assert!(err.to_string().contains("`Xd`"));
        assert_eq!(
            parse_cards("As 7x").unwrap_err(),
            CardParseError::BadSuit {
                token: "7x".into(),
                suit: 'x'
            }
        );
        assert!(matches!(
            parse_cards("s").unwrap_err(),
            CardParseError::Malformed { .. }
        ));
        assert_eq!(
            parse_exact::<2>("As Kd Qh").unwrap_err(),
            CardParseError::WrongCount {
                expected: 2,
                got: 3
            }
        );
    }
}
