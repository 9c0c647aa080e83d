//! The table-game tests over another system's deals: the cards and dice a vendor's transcripts
//! (`docs/transcripts.md`, hands or rounds) say it dealt, counted as [`crate::deal_tests`] counts
//! the engine's own — every card at every dealt place (a seat's i-th card, the dealer's or the
//! community's), each die face, each ordered pair of dice 1–2, 3–4 of a shake — and judged by one
//! P-value a test.
//!
//! A transcript counts only when the rules can play it ([`crate::round_transcript::parse_any`] and
//! its check): a deal that breaks them (a card twice, a wrong count) is refused and named, not
//! counted. Deals of one game and one layout (the same seats, each with its number of cards) make
//! one table: under a fair shuffle the cards at any m fixed places of the deck are a uniform
//! arrangement of m distinct cards, whatever order the vendor dealt them in.
//!
//! Owns the counts and the verdict; the caller reads the transcripts. MUST NOT deal or draw
//! anything itself.

use std::collections::BTreeMap;

use pitboss_engine::card::{Card, Deck};
use pitboss_engine::game::{GameId, Material};

use crate::deal_tests::{self, ChiSquare, TooFewDraws};
use crate::round_transcript::{self, AnyTranscript};

/// A test fails when its P-value is under this (one P-value a test, with a handful of tests a
/// run: about one fair run in a thousand per test fails by chance).
pub const ALPHA: f64 = 0.001;
/// The most layouts (game, seats and their cards) one run counts; a transcript of another is
/// refused.
pub const MAX_LAYOUTS: usize = 64;
/// The refusals kept with their reason (the others are counted).
pub const REFUSALS_KEPT: usize = 20;

/// The places a deal fills: its game, and each seat (in name order) with its number of cards.
type Layout = (GameId, Vec<(String, usize)>);

/// One layout's table: every card at every place.
#[derive(Clone, Debug)]
struct Table {
    deck: Deck,
    /// `counts[place × k + card]`.
    counts: Vec<u64>,
    deals: u64,
}

/// The counts of every transcript added so far.
#[derive(Clone, Debug)]
pub struct VendorDeals {
    tables: BTreeMap<Layout, Table>,
    faces: [u64; 6],
    pairs: [u64; 36],
    /// Transcripts counted.
    pub counted: u64,
    /// Transcripts refused, and the first [`REFUSALS_KEPT`] (their number in the input from 1,
    /// and why).
    pub refused: u64,
    pub refusals: Vec<(u64, String)>,
}

/// One test's outcome over the vendor's deals.
#[derive(Clone, Debug, PartialEq)]
pub struct DealRow {
    /// `cards_by_position[<game> <seat>×<cards> …]`, `die_faces`, `dice_pairs`.
    pub test: String,
    /// Deals (or dice, or pairs) counted.
    pub draws: u64,
    /// The statistic, or why it was not made.
    pub outcome: Result<ChiSquare, TooFewDraws>,
}

impl DealRow {
    /// Made, and its P-value at least [`ALPHA`].
    pub fn holds(&self) -> bool {
        matches!(&self.outcome, Ok(chi) if chi.p_value >= ALPHA)
    }
}

impl Default for VendorDeals {
    fn default() -> VendorDeals {
        VendorDeals {
            tables: BTreeMap::new(),
            faces: [0; 6],
            pairs: [0; 36],
            counted: 0,
            refused: 0,
            refusals: Vec::new(),
        }
    }
}

impl VendorDeals {
    /// Counts the transcript `text` (the `number`-th of the input), or refuses it saying why.
    pub fn add(&mut self, number: u64, text: &str) {
        if let Err(why) = self.count(text) {
            self.refused += 1;
            if self.refusals.len() < REFUSALS_KEPT {
                self.refusals.push((number, why));
            }
        }
    }

    fn count(&mut self, text: &str) -> Result<(), String> {
        let transcript = round_transcript::parse_any(text).map_err(|e| e.to_string())?;
        transcript.check().map_err(|e| e.to_string())?;
        let (game, cards, dice) = match &transcript {
            AnyTranscript::Hand(t) => (t.game, &t.cards, &t.dice),
            AnyTranscript::Round(r) => (r.game, &r.cards, &r.dice),
        };
        match (game.material(), cards, dice) {
            (Material::Cards(deck), Some(cards), _) => self.count_cards(game, deck, cards)?,
            (Material::Dice { .. }, _, Some(dice)) => self.count_dice(dice),
            _ => return Err("dealt from a seed, not by the vendor: nothing to test".into()),
        }
        self.counted += 1;
        Ok(())
    }

    fn count_cards(
        &mut self,
        game: GameId,
        deck: Deck,
        seats: &BTreeMap<String, Vec<String>>,
    ) -> Result<(), String> {
        let layout: Layout = (
            game,
            seats.iter().map(|(s, c)| (s.clone(), c.len())).collect(),
        );
        let k = deck.len();
        if !self.tables.contains_key(&layout) && self.tables.len() >= MAX_LAYOUTS {
            return Err(format!(
                "a deal of a new layout, and {MAX_LAYOUTS} are counted already"
            ));
        }
        let dealt: Vec<Card> = seats
            .values()
            .flatten()
            .map(|text| text.parse::<Card>().map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?;
        let table = self.tables.entry(layout).or_insert_with(|| Table {
            deck,
            counts: vec![0; dealt.len() * k],
            deals: 0,
        });
        for (place, card) in dealt.iter().enumerate() {
            table.counts[place * k + usize::from(card.index())] += 1;
        }
        table.deals += 1;
        Ok(())
    }

    fn count_dice(&mut self, shakes: &[Vec<u8>]) {
        for shake in shakes {
            for face in shake {
                self.faces[usize::from(face - 1)] += 1;
            }
            for pair in shake.chunks_exact(2) {
                self.pairs[usize::from(pair[0] - 1) * 6 + usize::from(pair[1] - 1)] += 1;
            }
        }
    }

    /// Every test the counts allow: one table per layout, the dice when there were any.
    pub fn rows(&self) -> Vec<DealRow> {
        let mut rows: Vec<DealRow> = self
            .tables
            .iter()
            .map(|((game, seats), table)| {
                let places: usize = seats.iter().map(|(_, n)| n).sum();
                let named: Vec<String> = seats.iter().map(|(s, n)| format!("{s}×{n}")).collect();
                DealRow {
                    test: format!("cards_by_position[{} {}]", game.id(), named.join(" ")),
                    draws: table.deals,
                    outcome: deal_tests::dealt_table(
                        table.deck.len(),
                        places,
                        &table.counts,
                        table.deals,
                    ),
                }
            })
            .collect();
        let thrown: u64 = self.faces.iter().sum();
        if thrown > 0 {
            let (faces, pairs) = deal_tests::dice_tables(&self.faces, &self.pairs);
            rows.push(DealRow {
                test: "die_faces".into(),
                draws: thrown,
                outcome: faces,
            });
            rows.push(DealRow {
                test: "dice_pairs".into(),
                draws: self.pairs.iter().sum(),
                outcome: pairs,
            });
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_engine::rng::Seed;

    fn seed(i: u64, salt: u8) -> Seed {
        let mut bytes = [salt; 32];
        bytes[..8].copy_from_slice(&i.to_le_bytes());
        Seed::from_bytes(bytes)
    }

    /// A Mississippi Stud hand's transcript with the cards `deck[..5]` (two the player's, three
    /// community) and no decision but folding.
    fn mississippi(deck: &[Card]) -> String {
        let names: Vec<String> = deck.iter().take(5).map(Card::to_string).collect();
        serde_json::json!({
            "game": "mississippi_stud",
            "cards": {"player": &names[..2], "community": &names[2..5]},
            "wagers": {"ante": 100},
            "decisions": ["fold"],
        })
        .to_string()
    }

    /// A Nutz hand's transcript: the dice each shake rolls from `roll`, held as the rules hold
    /// them, until the round is over.
    fn nutz(mut roll: impl FnMut() -> u8) -> String {
        use pitboss_engine::games::{held_positions, nutz_hand, round_over};
        let (mut faces, mut held, mut shakes) = ([0u8; 5], Vec::new(), Vec::new());
        for shake in 1..=3u8 {
            let rolled: Vec<u8> = (0..5u8)
                .filter(|p| !held.contains(p))
                .map(|p| {
                    faces[usize::from(p)] = roll();
                    faces[usize::from(p)]
                })
                .collect();
            shakes.push(rolled);
            if round_over(shake, nutz_hand(faces), 3) {
                break;
            }
            held = held_positions(faces);
        }
        serde_json::json!({
            "game": "nutz",
            "dice": &shakes,
            "wagers": {"box_one_pair": 100},
            "decisions": vec!["shake"; shakes.len()],
        })
        .to_string()
    }

    /// Deals from the engine's own shuffles hold; the same deals with one card favoured at the
    /// first place (one deal in eight moved the ace of spades there) fail; a deal the rules refuse
    /// is named and not counted.
    #[test]
    fn fair_deals_hold_and_a_favoured_card_fails() {
        let fair: Vec<Vec<Card>> = (0..3000)
            .map(|i| seed(i, 7).stream().shuffle(Deck::Standard52))
            .collect();
        let mut deals = VendorDeals::default();
        for (i, deck) in fair.iter().enumerate() {
            deals.add(i as u64 + 1, &mississippi(deck));
        }
        deals.add(3001, &mississippi(&[fair[0][0]; 5]));
        assert_eq!((deals.counted, deals.refused), (3000, 1));
        assert_eq!(deals.refusals[0].0, 3001);
        let rows = deals.rows();
        assert_eq!(rows.len(), 1);
        assert_eq!(
            rows[0].test,
            "cards_by_position[mississippi_stud community×3 player×2]"
        );
        assert!(rows[0].holds(), "{rows:?}");
        assert_eq!(rows[0].outcome.as_ref().unwrap().degrees, 4 * 51 + 51);

        let ace: Card = "As".parse().unwrap();
        let mut biased = VendorDeals::default();
        for (i, deck) in fair.iter().enumerate() {
            let mut deck = deck.clone();
            if i % 8 == 0 {
                let at = deck.iter().position(|c| *c == ace).unwrap();
                deck.swap(0, at);
            }
            biased.add(i as u64 + 1, &mississippi(&deck));
        }
        let rows = biased.rows();
        assert!(!rows[0].holds(), "{rows:?}");
    }

    /// The engine's dice hold; dice that show six a little too often fail; a run of too few
    /// deals says so rather than judging.
    #[test]
    fn fair_dice_hold_and_loaded_dice_fail() {
        let shakes = |load: bool| {
            let mut deals = VendorDeals::default();
            for i in 0..2000u64 {
                let mut stream = seed(i, 9).stream();
                let mut thrown = 0;
                deals.add(
                    i + 1,
                    &nutz(|| {
                        thrown += 1;
                        match stream.die().value() {
                            _ if load && i % 5 == 0 && thrown == 1 => 6,
                            face => face,
                        }
                    }),
                );
            }
            assert_eq!(deals.refused, 0, "{:?}", deals.refusals);
            deals.rows()
        };
        let fair = shakes(false);
        assert_eq!(
            fair.iter().map(|r| r.test.as_str()).collect::<Vec<_>>(),
            ["die_faces", "dice_pairs"]
        );
        assert!(fair.iter().all(DealRow::holds), "{fair:?}");
        let loaded = shakes(true);
        assert!(!loaded[0].holds(), "{loaded:?}");

        let mut few = VendorDeals::default();
        let mut faces = [1, 2, 3, 4, 6].into_iter();
        few.add(1, &nutz(|| faces.next().unwrap_or(1)));
        assert_eq!(few.counted, 1, "{:?}", few.refusals);
        let rows = few.rows();
        assert!(rows.iter().all(|r| r.outcome.is_err() && !r.holds()));
    }
}
