//! The Fortune Pai Gow house way of `spec/HOUSE_WAY.md` (the Bally's Atlantic City family, completed
//! and made deterministic): how the dealer sets seven cards into a two-card low hand and a five-card
//! high hand, how "auto set" sets the player's, and where the suggested low hand comes from.
//!
//! The algorithm works on the 21 possible settings of the seven cards, each evaluated at most once
//! (and only when a rule looks at it). Every
//! rule of HOUSE_WAY.md picks a set of candidate settings; "best-of" then keeps the legal ones and
//! takes the highest low hand, then the highest high hand, then the first in a canonical order (the
//! cards sorted by canonical index, lows enumerated lexicographically), so the result never depends
//! on the order the cards were given in. Which rule fired is returned with the setting: it is what
//! an operator shows a player who disputes the dealer's setting. A hand in which no five cards can
//! make a straight or a flush (most hands) is decided by its ranks alone: its answer is read from a
//! table of the 68 952 rank shapes, which the same algorithm fills once, on first use.
//!
//! The algorithm has editions ([`Edition`]): a Pai Gow configuration names the one its hands are set
//! by, so a hand recorded under an earlier edition is re-derived by that edition forever.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::card::{Card, Rank, Suit};
use super::hand::pai_gow::{self, Category, HighValue, LowValue};
use super::hand::rank_masks::{highest, RankCounts, SuitLanes};
use super::hand::{check_cards, HandError};

/// An edition of the house way. Editions differ only where `HOUSE_WAY.md` was corrected; each is
/// named in configurations by [`Edition::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Edition {
    /// `bally-atlantic-city-2026.1` (rules version 1): rule 9's ace-joker exception looked at an
    /// ace-high straight or straight flush but not at a royal flush, which stayed high.
    AtlanticCity2026_1,
    /// `bally-atlantic-city-2026.2` (rules version 2): the exception covers a royal flush, an
    /// ace-high straight flush (`As Ks Qs Js JK 5d 3c`: low K-Q, high the pair of aces).
    AtlanticCity2026_2,
}

impl Edition {
    /// The edition of the current rules version.
    pub const CURRENT: Edition = Edition::AtlanticCity2026_2;

    /// Every edition, oldest first.
    pub const ALL: [Edition; 2] = [Edition::AtlanticCity2026_1, Edition::AtlanticCity2026_2];

    /// The name configurations use.
    pub const fn name(self) -> &'static str {
        match self {
            Edition::AtlanticCity2026_1 => "bally-atlantic-city-2026.1",
            Edition::AtlanticCity2026_2 => "bally-atlantic-city-2026.2",
        }
    }

    /// The edition of that name.
    pub fn from_name(name: &str) -> Option<Edition> {
        Edition::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Whether rule 9's exception sees a royal flush as the ace-high straight flush it is.
    fn royal_is_ace_high(self) -> bool {
        self != Edition::AtlanticCity2026_1
    }
}

impl fmt::Display for Edition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A split of seven cards into a low and a high hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Setting {
    /// The two-card low hand.
    pub low: [Card; 2],
    /// The five-card high hand.
    pub high: [Card; 5],
}

impl Setting {
    /// The low hand's value.
    #[inline]
    pub fn low_value(&self) -> LowValue {
        pai_gow::evaluate_low_unchecked(&self.low)
    }

    /// The high hand's value.
    #[inline]
    pub fn high_value(&self) -> HighValue {
        pai_gow::evaluate_high_unchecked(&self.high)
    }

    /// True if the high hand outranks the low hand.
    pub fn is_legal(&self) -> bool {
        pai_gow::is_legal_setting(self.high_value(), self.low_value())
    }

    /// The setting of `hand` that puts `low` in the low hand: refused if a low card is not in the
    /// hand (or appears twice).
    pub(crate) fn from_low(hand: &[Card; 7], low: [Card; 2]) -> Result<Setting, SettingError> {
        if low[0] == low[1] {
            return Err(SettingError::NotTheHand(low[0]));
        }
        for card in low {
            if !hand.contains(&card) {
                return Err(SettingError::NotTheHand(card));
            }
        }
        let mut high = [Card::JOKER; 5];
        let rest = hand.iter().filter(|c| !low.contains(c));
        for (slot, &card) in high.iter_mut().zip(rest) {
            *slot = card;
        }
        Ok(Setting { low, high })
    }
}

/// A setting that cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SettingError {
    #[error("{0} is not one of the player's cards (or is named twice)")]
    NotTheHand(Card),
}

/// The rule of HOUSE_WAY.md that decided a setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    FiveAcesKingsLow,
    FiveAcesSplit,
    QuadsWithTrips,
    QuadsWithPair,
    QuadsLowKeptTogether,
    QuadsMiddleKeptWithAce,
    QuadsMiddleSplit,
    QuadsHighSplit,
    TwoTrips,
    TripsWithTwoPairs,
    TripsWithPair,
    TripsWithPairOfTwosAceKing,
    TripsCompleteHand,
    ThreeAces,
    Trips,
    ThreePairs,
    TwoPairsSplit,
    TwoPairsKeptTogether,
    OnePairCompleteHand,
    OnePairAceJokerOtherCompleteHand,
    OnePairAceJokerKept,
    OnePair,
    NoPairCompleteHand,
    NoPair,
}

impl Rule {
    /// The rule number and its words, as an operator reads them to a player.
    pub fn describe(self) -> &'static str {
        match self {
            Rule::FiveAcesKingsLow => "rule 1: five aces with a pair of kings: the kings low, the five aces high",
            Rule::FiveAcesSplit => "rule 1: five aces: two aces low",
            Rule::QuadsWithTrips => "rule 2: four of a kind with three of a kind: two of the three of a kind low",
            Rule::QuadsWithPair => "rule 2: four of a kind with a pair: the pair low",
            Rule::QuadsLowKeptTogether => "rule 2: four of a kind 2-6: kept together, the two highest singletons low",
            Rule::QuadsMiddleKeptWithAce => "rule 2: four of a kind 7-10 with an ace or the joker: kept together, the two highest singletons low",
            Rule::QuadsMiddleSplit => "rule 2: four of a kind 7-10 without an ace: split, two of the four low",
            Rule::QuadsHighSplit => "rule 2: four of a kind J-A: split, two of the four low",
            Rule::TwoTrips => "rule 3: two sets of three of a kind: two cards of the higher set low",
            Rule::TripsWithTwoPairs => "rule 4: three of a kind with two pairs: the higher pair low",
            Rule::TripsWithPair => "rule 5: full house: the pair low",
            Rule::TripsWithPairOfTwosAceKing => "rule 5: full house with a pair of 2s and an ace and a king: A-K low, the full house high",
            Rule::TripsCompleteHand => "rule 6: three of a kind: two of the three low, a straight or flush high (best-of)",
            Rule::ThreeAces => "rule 6: three aces: an ace and the highest singleton low, a pair of aces high",
            Rule::Trips => "rule 6: three of a kind: kept high, the two highest singletons low",
            Rule::ThreePairs => "rule 7: three pairs: the highest pair low",
            Rule::TwoPairsSplit => "rule 8: two pairs: split, the smaller pair low",
            Rule::TwoPairsKeptTogether => "rule 8: two pairs kept together, the two highest singletons low",
            Rule::OnePairCompleteHand => "rule 9: one pair with a straight or flush available: a complete hand high (best-of)",
            Rule::OnePairAceJokerOtherCompleteHand => "rule 9: ace and joker pair: another complete hand high than the ace-high straight using both (best-of)",
            Rule::OnePairAceJokerKept => "rule 9: ace and joker pair: the pair of aces high, the next two highest cards low",
            Rule::OnePair => "rule 9: one pair: the pair high, the two highest singletons low",
            Rule::NoPairCompleteHand => "rule 10: no pair, a straight or flush available: a complete hand high (best-of)",
            Rule::NoPair => "rule 10: no pair: the highest card high, the second and third highest low",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// The house way's answer for one hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HouseWay {
    /// The setting.
    pub setting: Setting,
    /// The rule that fired.
    pub rule: Rule,
}

/// The 21 lows, as position pairs into the sorted hand, in lexicographic order.
const LOWS: [(usize, usize); 21] = {
    let mut lows = [(0, 0); 21];
    let mut k = 0;
    let mut a = 0;
    while a < 7 {
        let mut b = a + 1;
        while b < 7 {
            lows[k] = (a, b);
            k += 1;
            b += 1;
        }
        a += 1;
    }
    lows
};

/// The high hand's five positions of each of the 21 settings, ascending.
const HIGHS: [[u8; 5]; 21] = {
    let mut highs = [[0u8; 5]; 21];
    let mut k = 0;
    while k < 21 {
        let (a, b) = LOWS[k];
        let (mut p, mut i) = (0, 0);
        while p < 7 {
            if p != a && p != b {
                highs[k][i] = p as u8;
                i += 1;
            }
            p += 1;
        }
        k += 1;
    }
    highs
};

const ACE: u8 = 12;
const KING: u8 = 11;

/// The 21 settings of a hand. A setting's hands are evaluated when a rule looks at them (a low
/// hand is a few instructions from the two ranks; a high hand's suit lanes are the seven cards'
/// less two bits), except when the seven cards could hold a straight or a flush: then all 21 high
/// hands are evaluated up front, since rules 6, 9 and 10 look at every one of them. Most hands
/// have no straight or flush to make, and their rule names one to six candidate settings: only
/// those are evaluated, each once.
struct Settings {
    /// The cards in canonical order.
    cards: [Card; 7],
    /// The seven cards' suit lanes: a high hand's lanes are these without its low hand's two
    /// cards' bits.
    lanes: u64,
    /// Effective rank of each card: the joker counts as an ace.
    rank: [u8; 7],
    /// Every setting's high value, when some five of the cards might make a straight or a flush;
    /// otherwise `None`, and [`Settings::high`] evaluates the ones asked for.
    highs: Option<[HighValue; 21]>,
}

impl Settings {
    fn new(hand: &[Card; 7]) -> Settings {
        let cards = sorted(hand);
        let rank = cards.map(|c| c.rank().map_or(ACE, |r| r.index()));
        let lanes = SuitLanes::of(&cards).0;
        let mut settings = Settings {
            cards,
            lanes,
            rank,
            highs: None,
        };
        if may_complete(SuitLanes(lanes)) {
            settings.highs = Some(std::array::from_fn(|k| settings.evaluate_high(k)));
        }
        settings
    }

    /// Evaluates setting `k`'s high hand.
    #[inline]
    fn evaluate_high(&self, k: usize) -> HighValue {
        let (a, b) = LOWS[k];
        let low = SuitLanes::of(&[self.cards[a], self.cards[b]]).0;
        pai_gow::evaluate_high_lanes(SuitLanes(self.lanes ^ low))
    }

    /// The low hand's value of setting `k`.
    #[inline]
    fn low(&self, k: usize) -> LowValue {
        let (a, b) = LOWS[k];
        pai_gow::low_of_ranks(self.rank[a], self.rank[b])
    }

    /// The high hand's value of setting `k`.
    #[inline]
    fn high(&self, k: usize) -> HighValue {
        match &self.highs {
            Some(highs) => highs[k],
            None => self.evaluate_high(k),
        }
    }

    fn setting(&self, k: usize) -> Setting {
        let (a, b) = LOWS[k];
        Setting {
            low: [self.cards[a], self.cards[b]],
            high: HIGHS[k].map(|p| self.cards[usize::from(p)]),
        }
    }

    /// Whether setting `k`'s high hand is a straight or a flush (never, when no five of the cards
    /// can make one).
    fn complete(&self, k: usize) -> bool {
        self.highs.as_ref().is_some_and(|highs| {
            matches!(
                highs[k].category(),
                Category::Straight
                    | Category::Flush
                    | Category::StraightFlush
                    | Category::RoyalFlush
            )
        })
    }

    /// Best-of among the candidate settings: legal ones only; highest low, then highest high, then
    /// the first in canonical order.
    fn best_of(&self, candidate: impl Fn(usize) -> bool) -> Option<usize> {
        let mut best: Option<(usize, LowValue, HighValue)> = None;
        for k in 0..21 {
            if !candidate(k) {
                continue;
            }
            let (low, high) = (self.low(k), self.high(k));
            if !pai_gow::is_legal_setting(high, low) {
                continue;
            }
            if best.is_none_or(|(_, best_low, best_high)| (low, high) > (best_low, best_high)) {
                best = Some((k, low, high));
            }
        }
        best.map(|(k, _, _)| k)
    }

    /// [`Settings::best_of`], with the rule it fired for.
    fn pick(&self, candidate: impl Fn(usize) -> bool, rule: Rule) -> Option<(usize, Rule)> {
        self.best_of(candidate).map(|k| (k, rule))
    }

    /// Ranks of the low hand's two cards.
    fn low_ranks(&self, k: usize) -> (u8, u8) {
        let (a, b) = LOWS[k];
        (self.rank[a], self.rank[b])
    }

    /// The setting whose low is exactly the cards at positions `x` and `y`.
    fn low_is(&self, k: usize, x: usize, y: usize) -> bool {
        let (a, b) = LOWS[k];
        (a, b) == (x.min(y), x.max(y))
    }
}

/// Seven distinct cards in canonical order (their indices are distinct bits of a mask, read back
/// lowest first).
fn sorted(hand: &[Card; 7]) -> [Card; 7] {
    let mut mask = hand.iter().fold(0u64, |m, c| m | 1 << c.index());
    let mut cards = *hand;
    for slot in &mut cards {
        // Seven distinct cards set seven bits; the index is below 64, a card's index below 53.
        *slot = Card::from_index(mask.trailing_zeros() as u8).unwrap_or(Card::JOKER);
        mask &= mask.wrapping_sub(1);
    }
    cards
}

/// Whether some five of the seven cards with these suit lanes might make a straight or a flush:
/// five natural cards of one suit or of five consecutive ranks (the wheel included), or four and
/// the joker. Never false when a straight or flush can be made, which is all [`Settings`] relies
/// on.
fn may_complete(lanes: SuitLanes) -> bool {
    let need = 5 - u8::from(lanes.has_joker());
    let suits = lanes.suits();
    let ranks = suits[0] | suits[1] | suits[2] | suits[3];
    suits.iter().any(|&suit| RANKS_IN[suit as usize] >= need)
        || MOST_IN_A_STRAIGHT[ranks as usize] >= need
}

/// How many ranks a 13-bit rank mask holds (no population count instruction on the baseline
/// x86-64 target).
static RANKS_IN: [u8; 8192] = {
    let mut table = [0u8; 8192];
    let mut mask = 0;
    while mask < 8192 {
        table[mask] = (mask as u16).count_ones() as u8;
        mask += 1;
    }
    table
};

/// The most ranks of a 13-bit rank mask inside one straight's five ranks (the wheel A-2-3-4-5,
/// then 2-6 up to T-A).
static MOST_IN_A_STRAIGHT: [u8; 8192] = {
    let mut table = [0u8; 8192];
    let mut mask = 0;
    while mask < 8192 {
        let mut most = ((mask as u16) & (1 << ACE | 0b1111)).count_ones();
        let mut low = 0;
        while low < 9 {
            let n = ((mask as u16) & (0b11111 << low)).count_ones();
            if n > most {
                most = n;
            }
            low += 1;
        }
        table[mask] = most as u8;
        mask += 1;
    }
    table
};

/// The ranks of a 13-bit rank mask, highest first.
fn highest_first(mut mask: u16) -> Few<u8> {
    let mut ranks = Few::new();
    while mask != 0 {
        let rank = highest(mask);
        ranks.push(rank);
        mask ^= 1 << rank;
    }
    ranks
}

/// Up to seven small items (ranks or positions) in a fixed array: the shapes [`choose`] reads,
/// without allocating. Reads as a slice.
#[derive(Clone, Copy)]
struct Few<T> {
    items: [T; 7],
    len: usize,
}

impl<T: Copy + Default> Few<T> {
    fn new() -> Few<T> {
        Few {
            items: [T::default(); 7],
            len: 0,
        }
    }

    fn push(&mut self, item: T) {
        self.items[self.len] = item;
        self.len += 1;
    }
}

impl<T> std::ops::Deref for Few<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        &self.items[..self.len]
    }
}

/// Sets `hand` by an edition of the house way. Refuses a hand with a repeated card.
pub fn house_way(hand: &[Card; 7], edition: Edition) -> Result<HouseWay, HandError> {
    check_cards(hand, true)?;
    Ok(house_way_unchecked(hand, edition))
}

/// Sets seven distinct cards by an edition of the house way.
pub fn house_way_unchecked(hand: &[Card; 7], edition: Edition) -> HouseWay {
    let s = Settings::new(hand);
    // Every shape names at least one legal candidate (checked over all 154 143 080 hands by the
    // test suite through `try_house_way`); should a future edit break that, the best legal setting
    // is still played rather than a foul.
    let (k, rule) =
        decide(&s, edition).unwrap_or_else(|| (s.best_of(|_| true).unwrap_or(0), Rule::NoPair));
    HouseWay {
        setting: s.setting(k),
        rule,
    }
}

/// The house way, or `None` if the rule that fits the hand's shape named no legal setting (which
/// the exhaustive test shows never happens).
pub fn try_house_way(hand: &[Card; 7], edition: Edition) -> Option<HouseWay> {
    let s = Settings::new(hand);
    decide(&s, edition).map(|(k, rule)| HouseWay {
        setting: s.setting(k),
        rule,
    })
}

/// The chosen setting's index and the rule: from the table of rank shapes when no five of the
/// cards can make a straight or a flush, otherwise by [`choose`].
fn decide(s: &Settings, edition: Edition) -> Option<(usize, Rule)> {
    if s.highs.is_none() {
        let joker = s.cards[6] == Card::JOKER;
        let naturals = &s.rank[..7 - usize::from(joker)];
        if let Some((k, rule)) = shapes()[shape_index(naturals, joker)] {
            return Some((usize::from(k), rule));
        }
    }
    choose(s, edition)
}

/// What [`choose`] answers for a hand in which no five cards can make a straight or a flush,
/// by its shape: the ranks of its natural cards in canonical order, and whether it holds the
/// joker (`None` where some shape's ranks make a straight possible, or no legal candidate is
/// named: there [`choose`] runs). Indexed by [`shape_index`]; built once, on first use, by
/// [`choose`] itself on one hand of each shape.
///
/// Why a shape decides such a hand: with no straight or flush to make, every value `choose` reads
/// (a low hand; a high hand, a pair or less up to five aces; the ranks and their multiplicities;
/// the cards' positions in canonical order, which follow the ranks) is a function of the ranks in
/// canonical order and of the joker's presence, and the edition is read only where a complete
/// hand exists. The hand each entry is computed on deals its cards' suits round the four suits in
/// canonical order, so it holds at most two cards of a suit: no flush either. (The exhaustive
/// test's fingerprint holds the table to `choose` on every hand.)
fn shapes() -> &'static [Option<(u8, Rule)>] {
    static SHAPES: std::sync::OnceLock<Vec<Option<(u8, Rule)>>> = std::sync::OnceLock::new();
    SHAPES.get_or_init(|| {
        let mut table = vec![None; SHAPES_WITHOUT_JOKER + SHAPES_WITH_JOKER];
        for joker in [false, true] {
            let naturals = 7 - usize::from(joker);
            let mut ranks = [0u8; 7];
            loop {
                // One hand of this shape: suits round the four suits, the joker last.
                let mut hand = [Card::JOKER; 7];
                for (i, &rank) in ranks[..naturals].iter().enumerate() {
                    let card = Card::new(Rank::ALL[usize::from(rank)], Suit::ALL[i % 4]);
                    hand[i] = card;
                }
                let fits =
                    (0..13).all(|r| ranks[..naturals].iter().filter(|&&x| x == r).count() <= 4);
                if fits {
                    let s = Settings::new(&hand);
                    if s.highs.is_none() {
                        table[shape_index(&ranks[..naturals], joker)] =
                            choose(&s, Edition::CURRENT).map(|(k, rule)| (k as u8, rule));
                    }
                }
                // The next non-decreasing sequence of ranks.
                let Some(i) = (0..naturals).rev().find(|&i| ranks[i] < 12) else {
                    break;
                };
                let next = ranks[i] + 1;
                ranks[i..naturals].fill(next);
            }
        }
        table
    })
}

/// Shapes of seven natural cards: multisets of 7 ranks of 13, C(19, 7).
const SHAPES_WITHOUT_JOKER: usize = 50_388;
/// Shapes of six natural cards and the joker: C(18, 6).
const SHAPES_WITH_JOKER: usize = 18_564;

/// `BINOMIAL[n][k]` = C(n, k) for n < 20, k ≤ 7.
const BINOMIAL: [[u32; 8]; 20] = {
    let mut table = [[0u32; 8]; 20];
    let mut n = 0;
    while n < 20 {
        table[n][0] = 1;
        let mut k = 1;
        while k < 8 && k <= n {
            table[n][k] = table[n - 1][k - 1] + if k < n { table[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    table
};

/// The place of a shape in [`shapes`]: non-decreasing ranks `r₀ ≤ … ≤ rₙ₋₁` (seven naturals, or six
/// and the joker) are the strictly increasing `rᵢ + i`, ranked among the sets of their size in
/// colexicographic order (Σ C(rᵢ + i, i + 1)); shapes with the joker come after the others.
fn shape_index(ranks: &[u8], joker: bool) -> usize {
    let mut index = 0;
    for (i, &rank) in ranks.iter().enumerate() {
        index += BINOMIAL[usize::from(rank) + i][i + 1] as usize;
    }
    if joker {
        index + SHAPES_WITHOUT_JOKER
    } else {
        index
    }
}

/// Applies the first rule whose shape fits; returns the chosen setting's index and the rule.
fn choose(s: &Settings, edition: Edition) -> Option<(usize, Rule)> {
    // Which ranks occur once, twice, … five times (the joker counts as an ace).
    let lanes = SuitLanes(s.lanes);
    let natural = RankCounts::from_suits(lanes.suits());
    let mut counts = natural;
    let five_aces = if lanes.has_joker() {
        counts.add(ACE);
        natural.at_least_4 & 1 << ACE
    } else {
        0
    };
    // Ranks with each multiplicity, highest first.
    let singles = highest_first(counts.singles());
    let pairs = highest_first(counts.at_least_2 & !counts.at_least_3);
    let threes = highest_first(counts.at_least_3 & !counts.at_least_4);
    let fours = highest_first(counts.at_least_4 & !five_aces);
    let fives = highest_first(five_aces);
    // Positions of the singletons, highest rank first: the cards are in canonical order, so ranks
    // rise with the position (the joker, an ace, comes last) and singletons' ranks differ.
    let mut single_pos = Few::<usize>::new();
    for p in (0..7).rev() {
        if counts.singles() & 1 << s.rank[p] != 0 {
            single_pos.push(p);
        }
    }
    let both_of = |rank: u8| move |k: usize| s.low_ranks(k) == (rank, rank);
    let top_two_singles = |k: usize| s.low_is(k, single_pos[0], single_pos[1]);
    let any_complete = (0..21).any(|k| s.complete(k));

    let chosen = if !fives.is_empty() {
        // Rule 1: AAAA + joker and two others.
        if singles.is_empty() && *pairs == [KING] {
            s.pick(both_of(KING), Rule::FiveAcesKingsLow)
        } else {
            s.pick(both_of(ACE), Rule::FiveAcesSplit)
        }
    } else if let Some(&q) = fours.first() {
        // Rule 2.
        if let Some(&t) = threes.first() {
            s.pick(both_of(t), Rule::QuadsWithTrips)
        } else if let Some(&p) = pairs.first() {
            s.pick(both_of(p), Rule::QuadsWithPair)
        } else {
            let highest_single = singles[0];
            match q {
                0..=4 => s.pick(top_two_singles, Rule::QuadsLowKeptTogether),
                5..=8 if highest_single == ACE => {
                    s.pick(top_two_singles, Rule::QuadsMiddleKeptWithAce)
                }
                5..=8 => s.pick(both_of(q), Rule::QuadsMiddleSplit),
                _ => s.pick(both_of(q), Rule::QuadsHighSplit),
            }
        }
    } else if threes.len() == 2 {
        // Rule 3.
        s.pick(both_of(threes[0]), Rule::TwoTrips)
    } else if let Some(&t) = threes.first() {
        if pairs.len() == 2 {
            // Rule 4.
            s.pick(both_of(pairs[0]), Rule::TripsWithTwoPairs)
        } else if let Some(&p) = pairs.first() {
            // Rule 5.
            if p == 0 && *singles == [ACE, KING] {
                s.pick(top_two_singles, Rule::TripsWithPairOfTwosAceKing)
            } else {
                s.pick(both_of(p), Rule::TripsWithPair)
            }
        } else {
            // Rule 6.
            s.pick(|k| both_of(t)(k) && s.complete(k), Rule::TripsCompleteHand)
                .or_else(|| {
                    if t == ACE {
                        let one_ace_and_top_single = |k: usize| {
                            let (a, b) = LOWS[k];
                            let with_single = a == single_pos[0] || b == single_pos[0];
                            let (ra, rb) = s.low_ranks(k);
                            with_single && (ra == ACE) != (rb == ACE)
                        };
                        s.pick(one_ace_and_top_single, Rule::ThreeAces)
                    } else {
                        s.pick(top_two_singles, Rule::Trips)
                    }
                })
        }
    } else if pairs.len() == 3 {
        // Rule 7.
        s.pick(both_of(pairs[0]), Rule::ThreePairs)
    } else if pairs.len() == 2 {
        // Rule 8 (straights and flushes ignored).
        let (big, small) = (pairs[0], pairs[1]);
        let class = |r: u8| match r {
            0..=4 => 0,  // 2-6
            5..=8 => 1,  // 7-10
            9..=11 => 2, // J-K
            _ => 3,      // aces
        };
        let top = singles[0];
        let split = match (class(big), class(small)) {
            (3, _) => true,
            (0, 0) | (1, 0) => top < KING,
            (2, 0) | (1, 1) => top < ACE,
            _ => true,
        };
        if split {
            s.pick(both_of(small), Rule::TwoPairsSplit)
        } else {
            s.pick(top_two_singles, Rule::TwoPairsKeptTogether)
        }
    } else if let Some(&p) = pairs.first() {
        // Rule 9.
        if any_complete {
            let best = s.best_of(|k| s.complete(k));
            let ace_joker_pair = p == ACE && s.cards.contains(&Card::JOKER);
            let uses_both_in_ace_high = |k: usize| {
                let (a, b) = LOWS[k];
                // Both aces (the natural one and the joker) in the high hand...
                let aces_low = usize::from(s.rank[a] == ACE) + usize::from(s.rank[b] == ACE);
                // ...making an ace-high straight or straight flush (a royal flush is one; the first
                // edition missed it: its value records the broadway ranks, not the top card).
                let high = s.high(k);
                let ace_high = match high.category() {
                    Category::Straight | Category::StraightFlush => {
                        (high.raw() >> 13) & 0x1FFF == 1 << ACE
                    }
                    Category::RoyalFlush => edition.royal_is_ace_high(),
                    _ => false,
                };
                aces_low == 0 && ace_high
            };
            match best {
                Some(k) if ace_joker_pair && uses_both_in_ace_high(k) => s
                    .pick(
                        |k| s.complete(k) && !uses_both_in_ace_high(k),
                        Rule::OnePairAceJokerOtherCompleteHand,
                    )
                    .or_else(|| s.pick(top_two_singles, Rule::OnePairAceJokerKept)),
                Some(k) => Some((k, Rule::OnePairCompleteHand)),
                None => s.pick(top_two_singles, Rule::OnePair),
            }
        } else {
            s.pick(top_two_singles, Rule::OnePair)
        }
    } else {
        // Rule 10.
        s.pick(|k| s.complete(k), Rule::NoPairCompleteHand)
            .or_else(|| s.pick(|k| s.low_is(k, single_pos[1], single_pos[2]), Rule::NoPair))
    };
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::{format_cards, parse_exact};

    fn set(text: &str) -> HouseWay {
        house_way(&parse_exact::<7>(text).unwrap(), Edition::CURRENT).unwrap()
    }

    fn low(text: &str) -> String {
        let mut low = set(text).setting.low;
        low.sort();
        format_cards(&low)
    }

    /// The examples table of HOUSE_WAY.md.
    #[test]
    fn house_way_examples() {
        let hw = set("Kd Qh Jc Ts 9d JK 3c");
        assert_eq!(low("Kd Qh Jc Ts 9d JK 3c"), "3c JK");
        assert_eq!(hw.setting.high_value().category(), Category::Straight);
        assert_eq!(
            hw.setting.high_value(),
            pai_gow::evaluate_high(&parse_exact("Kd Qh Jc Ts 9d").unwrap()).unwrap()
        );

        let hw = set("JK 2c 3d 4h 5s 9c Kd");
        assert_eq!(low("JK 2c 3d 4h 5s 9c Kd"), "9c Kd");
        assert_eq!(
            hw.setting.high_value(),
            pai_gow::evaluate_high(&parse_exact("As 2c 3d 4h 5s").unwrap()).unwrap(),
            "the wheel"
        );

        let hw = set("Ks Qs Js Ts JK 3d 2c");
        assert_eq!(low("Ks Qs Js Ts JK 3d 2c"), "2c 3d");
        assert_eq!(hw.setting.high_value().category(), Category::RoyalFlush);

        // Rule 9's exception with a royal flush (edition 2026.2); the first edition kept the
        // royal high with 5-3 low.
        let hw = set("As Ks Qs Js JK 5d 3c");
        assert_eq!(low("As Ks Qs Js JK 5d 3c"), "Qs Ks");
        assert_eq!(hw.rule, Rule::OnePairAceJokerKept);
        assert_eq!(hw.setting.high_value().category(), Category::Pair);
        let first = house_way(
            &parse_exact::<7>("As Ks Qs Js JK 5d 3c").unwrap(),
            Edition::AtlanticCity2026_1,
        )
        .unwrap();
        assert_eq!(first.rule, Rule::OnePairCompleteHand);
        assert_eq!(first.setting.high_value().category(), Category::RoyalFlush);
        assert_eq!(format_cards(&first.setting.low), "3c 5d");

        let hw = set("As Ah Ad Ac JK Kd Kh");
        assert_eq!(low("As Ah Ad Ac JK Kd Kh"), "Kd Kh");
        assert_eq!(hw.setting.high_value().category(), Category::FiveAces);
        assert_eq!(hw.rule, Rule::FiveAcesKingsLow);

        assert_eq!(low("7c 7d Jh Jd 2s 2h 9c"), "Jd Jh");
        assert_eq!(set("7c 7d Jh Jd 2s 2h 9c").rule, Rule::ThreePairs);
        assert_eq!(low("9c 9d 9h 9s Kd Kh 3c"), "Kd Kh");
        let hw = set("8c 8d 8h 8s Kh 7d 3c");
        assert_eq!(hw.rule, Rule::QuadsMiddleSplit);
        assert!(hw
            .setting
            .low
            .iter()
            .all(|c| c.rank() == Some(crate::card::Rank::Eight)));
        let hw = set("Tc Td 4h 4s Kh 9d 2c");
        assert_eq!(low("Tc Td 4h 4s Kh 9d 2c"), "9d Kh");
        assert_eq!(hw.rule, Rule::TwoPairsKeptTogether);
    }

    #[test]
    fn more_rules() {
        // Rule 5 exception: pair of 2s with an ace and a king.
        assert_eq!(low("9c 9d 9h 2s 2h Ac Kd"), "Kd Ac");
        assert_eq!(low("9c 9d 9h 3s 3h Ac Kd"), "3h 3s");
        // Rule 6: three aces without a complete hand.
        let hw = set("Ac Ad Ah 9s 7h 4c 2d");
        assert_eq!(hw.rule, Rule::ThreeAces);
        assert!(hw.setting.low.iter().any(|c| c.to_string() == "9s"));
        // Rule 10 without a complete hand.
        assert_eq!(low("Ac Kd 9h 7s 5c 3d 2h"), "9h Kd");
        // Rule 8: aces with any pair split.
        assert_eq!(low("Ac Ad 3h 3s Kc 9d 2h"), "3h 3s");
        // Input order does not matter.
        assert_eq!(set("3c 2h 9d Ac Kd 5c 7s"), set("Ac Kd 9d 7s 5c 3c 2h"));
    }

    #[test]
    fn from_low_refuses_cards_not_in_the_hand() {
        let hand = parse_exact::<7>("Ac Kd 9h 7s 5c 3d 2h").unwrap();
        let low = parse_exact::<2>("Ac Qs").unwrap();
        assert_eq!(
            Setting::from_low(&hand, low),
            Err(SettingError::NotTheHand(low[1]))
        );
        let ok = Setting::from_low(&hand, parse_exact::<2>("Kd 9h").unwrap()).unwrap();
        assert_eq!(format_cards(&ok.high), "Ac 7s 5c 3d 2h");
        assert!(ok.is_legal());
    }
}
