//! Mississippi Stud, exactly: the optimal strategy by backward induction over every card sequence,
//! and its return per ante and per total amount wagered; and the 3-card bonus over all 22 100
//! community hands. From the engine's evaluators and the configuration's paytables.
//!
//! Optimal play maximises the expected return per ante at every decision; where betting and
//! folding are worth exactly the same it bets (GAMES.md), and among bets of equal worth it takes
//! the smallest. All values are exact integers over a common denominator (48 at 5th street,
//! 48 × 49 at 4th, 48 × 49 × 50 at 3rd), so ties are exact.
//!
//! The value of a decision depends only on the set of cards seen (player and community cards are
//! interchangeable in the final hand) and on the total already staked, in antes.

use std::collections::HashMap;

use pitboss_engine::card::Card;
use pitboss_engine::config::{GameConfig, MississippiHand, MississippiRules};
use pitboss_engine::game::GameId;
use pitboss_engine::game::Seat;
use pitboss_engine::games::view::PlayerView;
use pitboss_engine::games::{mississippi_hand, Action, Hand};
use pitboss_engine::hand::{poker5, three_card};
use pitboss_engine::money::Money;
use pitboss_engine::paytable::{row_for, Pay, PayRow};
use pitboss_engine::settlement::{BetId, BetLine, Wager};

use super::analysed::{staked, tables_of, visible, wagers, Analysed, Footprint, Tables};
use super::error::LabError;
use super::par::{ParRow, ParSheet};

/// Mississippi Stud's analysis, as the lab's entry points reach it.
pub(crate) struct Lab;

/// Three-card sets, the 4th-street table's entries per amount staked.
const THREE_CARD_SETS: u64 = 22_100;
/// Bytes per entry: 5th street, estimated as a hash map's at most half full (u64 key, i64 value, a
/// control byte), more than the table's vector of one i64 per four-card set takes: the estimate
/// errs on the large side, and a configuration's verdict does not move with the table's layout;
/// 4th street, a hash map's (a 32-byte key, a 48-byte decision, a control byte).
const FIFTH_ENTRY: u64 = 2 * 17;
const FOURTH_ENTRY: u64 = 2 * 81;

impl Analysed for Lab {
    fn refusal(&self, config: &GameConfig) -> Result<(), (String, LabError)> {
        let rules: &MississippiRules = config.rules_of().map_err(|e| (String::new(), e.into()))?;
        for (i, row) in rules.paytable.iter().enumerate() {
            per_unit(row).map_err(|e| (format!("paytable[{i}].pay"), e))?;
        }
        Ok(())
    }

    fn footprint(&self, config: &GameConfig, _threads: usize) -> Footprint {
        let Ok(r) = config.rules_of::<MississippiRules>() else {
            return Footprint { bytes: 0, steps: 0 };
        };
        let multiples = r.street_multiples.len() as u64;
        let most = u64::from(r.street_multiples.iter().copied().max().unwrap_or(1));
        let fourth_entries = THREE_CARD_SETS.saturating_mul(most);
        Footprint {
            bytes: (FOUR_CARD_SETS as u64 * FIFTH_ENTRY)
                .saturating_add(fourth_entries.saturating_mul(FOURTH_ENTRY)),
            steps: (FOUR_CARD_SETS as u64 * 48).saturating_add(
                fourth_entries
                    .saturating_mul(49)
                    .saturating_mul(multiples.saturating_mul(multiples)),
            ),
        }
    }

    fn exact_par_sheets(
        &self,
        config: &GameConfig,
        _threads: usize,
    ) -> Result<Vec<ParSheet>, LabError> {
        Ok(vec![main_sheet(config)?, bonus_sheet(config)?])
    }

    fn reference_wagers(&self, config: &GameConfig) -> Result<Vec<Wager>, LabError> {
        let r: &MississippiRules = config.rules_of()?;
        Ok(wagers(&[
            (BetId::Ante, r.ante.min),
            (BetId::Bonus, r.bonus.min),
        ]))
    }

    fn row_of(&self, group: &str, hand: &Hand, line: &BetLine) -> Option<String> {
        if group != "main" {
            return None;
        }
        if line.rule == "fold" {
            let streets = hand
                .stakes()
                .iter()
                .filter(|w| matches!(w.bet, BetId::Street3 | BetId::Street4 | BetId::Street5))
                .count();
            let street = ["third", "fourth", "fifth"]
                .get(streets)
                .unwrap_or(&"fifth");
            return Some(format!("fold_on_{street}_street"));
        }
        line.pay.is_none().then(|| "loses".to_string())
    }

    fn advise(
        &self,
        hand: &Hand,
        view: &PlayerView,
        tables: Option<&dyn Tables>,
    ) -> Result<Option<Action>, LabError> {
        let Some(strategy) = tables_of::<Strategy>(tables) else {
            return Ok(None);
        };
        let mut seen = visible(view, Seat::Player);
        seen.extend(visible(view, Seat::Community));
        let ante = staked(hand, Some(BetId::Ante)).max(1);
        Ok(strategy
            .advise(&seen, (staked(hand, None) / ante) as u32)
            .map(|choice| match choice {
                Some(multiple) => Action::Bet { multiple },
                None => Action::Fold,
            }))
    }

    fn build_tables(
        &self,
        config: &GameConfig,
        _threads: usize,
    ) -> Result<Option<Box<dyn Tables>>, LabError> {
        Ok(Some(Box::new(Strategy::build(config.rules_of()?))))
    }

    fn tables_tag(&self) -> Option<u8> {
        Some(TABLES_TAG)
    }

    fn tables_from_bytes(
        &self,
        config: &GameConfig,
        bytes: &[u8],
    ) -> Result<Box<dyn Tables>, String> {
        let rules = config.rules_of().map_err(|e| e.to_string())?;
        Ok(Box::new(Strategy::from_bytes(rules, bytes)?))
    }
}

/// The tag of Mississippi Stud's kept tables.
const TABLES_TAG: u8 = 1;

impl Tables for Strategy {
    fn tag(&self) -> u8 {
        TABLES_TAG
    }

    fn to_bytes(&self) -> Option<Vec<u8>> {
        Strategy::to_bytes(self)
    }
}

/// Net result per unit staked on the ante or a street bet (winnings; 0 for a push; −1 for a loss).
fn net_of(rules: &MississippiRules, cards: &[Card; 5]) -> i64 {
    let value = poker5::evaluate_unchecked(cards);
    match mississippi_hand(value)
        .and_then(|h| row_for(&rules.paytable, h))
        .map(|r| r.pay)
    {
        Some(Pay::Odds(x)) => i64::from(x),
        Some(Pay::Push) => 0,
        Some(Pay::Fixed(m)) => m.0 as i64 - 1,
        None => -1,
    }
}

fn mask(cards: &[Card]) -> u64 {
    cards.iter().fold(0, |m, c| m | 1 << c.index())
}

fn deck() -> Vec<Card> {
    (0..52).filter_map(Card::from_index).collect()
}

/// The exact analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// Σ over all starting pairs of the optimal value, in antes, over `denominator`.
    pub value: i128,
    /// Σ over all starting pairs of the expected total wagered, in antes, over `denominator`.
    pub wagered: i128,
    /// 1 326 × 48 × 49 × 50.
    pub denominator: i128,
    /// How often each street decision is a fold, per starting pair (for the report).
    pub folds_at_third: u32,
}

impl Analysis {
    /// Expected result per ante (negative: the house edge per ante).
    pub fn per_ante(&self) -> f64 {
        self.value as f64 / self.denominator as f64
    }

    /// Expected total wagered per hand, in antes.
    pub fn average_wager(&self) -> f64 {
        self.wagered as f64 / self.denominator as f64
    }

    /// Return per total amount wagered: 1 + value / wagered.
    pub fn return_per_wagered(&self) -> f64 {
        1.0 + self.value as f64 / self.wagered as f64
    }
}

/// The best decision among folding (value and wager `fold`) and betting each multiple (`bets`, in
/// the order of the configuration's multiples); ties go to betting, then to the smaller multiple.
/// Returns the chosen (value, wager) and the index of the chosen multiple (`None`: fold).
fn choose(fold: (i128, i128), bets: impl IntoIterator<Item = (i128, i128)>) -> Decided {
    let mut choice = (fold, None);
    for (k, option) in bets.into_iter().enumerate() {
        if option.0 > choice.0 .0 || (choice.1.is_none() && option.0 == choice.0 .0) {
            choice = (option, Some(k));
        }
    }
    choice
}

/// A decision's (value, wager) and the index of the multiple it bets (`None`: fold).
type Decided = ((i128, i128), Option<usize>);

/// The optimal strategy's tables: the 5th-street sums for every four-card set, and the 4th-street
/// values for every three-card set and amount staked.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Strategy {
    multiples: Vec<i128>,
    /// Σ over the 48 last cards of the net result per unit, by four-card set ([`four_index`]).
    fifth: Vec<i64>,
    fourth: HashMap<(u64, i128), Decided>,
    /// The decision on 3rd street for each starting pair.
    third: HashMap<u64, Option<usize>>,
}

impl Strategy {
    /// Builds the tables (about a quarter of a second: every five-card hand evaluated once).
    pub(crate) fn build(rules: &MississippiRules) -> Strategy {
        let cards = deck();
        // 5th street: A(4 cards) = Σ over the 48 last cards of the net result per unit; each
        // five-card hand evaluated once, its result added to its five four-card sets.
        let mut fifth = vec![0i64; FOUR_CARD_SETS];
        each_five_card_set(&cards, |five, fours| {
            let net = net_of(rules, &five);
            for i in fours {
                fifth[i] += net;
            }
        });
        Strategy::from_fifth(rules, fifth)
    }

    /// The tables as bytes: the 5th-street sums (one `i64` per four-card set), then the 4th-street
    /// decisions (three cards and the antes staked, with their value, wager and choice) and the
    /// 3rd-street ones (two cards and the choice), each in key order; integers little-endian, a
    /// stake and a choice (the multiple's index, or 65 535 to fold) in 16 bits. `None` when a
    /// stake or a choice does not fit them.
    pub(crate) fn to_bytes(&self) -> Option<Vec<u8>> {
        let small = |n: usize| u16::try_from(n).ok().filter(|n| *n != u16::MAX);
        let choice = |c: Option<usize>| c.map_or(Some(u16::MAX), small);
        let mut bytes = Vec::with_capacity(FOUR_CARD_SETS * 8 + self.fourth.len() * 44 + 11 * 1326);
        bytes.extend_from_slice(&(self.fifth.len() as u32).to_le_bytes());
        for sum in &self.fifth {
            bytes.extend_from_slice(&sum.to_le_bytes());
        }
        let mut fourth: Vec<_> = self.fourth.iter().collect();
        fourth.sort_unstable_by_key(|(key, _)| **key);
        bytes.extend_from_slice(&(fourth.len() as u32).to_le_bytes());
        for ((m3, staked), ((value, wager), chosen)) in fourth {
            bytes.extend_from_slice(&m3.to_le_bytes());
            bytes.extend_from_slice(&small(usize::try_from(*staked).ok()?)?.to_le_bytes());
            bytes.extend_from_slice(&value.to_le_bytes());
            bytes.extend_from_slice(&wager.to_le_bytes());
            bytes.extend_from_slice(&choice(*chosen)?.to_le_bytes());
        }
        let mut third: Vec<_> = self.third.iter().collect();
        third.sort_unstable_by_key(|(m2, _)| **m2);
        bytes.extend_from_slice(&(third.len() as u32).to_le_bytes());
        for (m2, chosen) in third {
            bytes.extend_from_slice(&m2.to_le_bytes());
            bytes.extend_from_slice(&choice(*chosen)?.to_le_bytes());
        }
        Some(bytes)
    }

    /// The tables of [`Strategy::to_bytes`], for `rules`: refused unless they hold one sum per
    /// four-card set, one decision per three-card set and stake and one per starting pair — every
    /// key well formed and none twice — each choice one of the rules' multiples or a fold, and
    /// nothing after.
    pub(crate) fn from_bytes(rules: &MississippiRules, bytes: &[u8]) -> Result<Strategy, String> {
        let multiples: Vec<i128> = rules
            .street_multiples
            .iter()
            .map(|&m| i128::from(m))
            .collect();
        let max_multiple = multiples.iter().copied().max().unwrap_or(1);
        let mut rest = bytes;
        let mut take = |n: usize| -> Result<&[u8], String> {
            if rest.len() < n {
                return Err("Mississippi Stud's tables are cut short".to_string());
            }
            let (taken, left) = rest.split_at(n);
            rest = left;
            Ok(taken)
        };
        let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or_default());
        let wide = |b: &[u8]| i128::from_le_bytes(b.try_into().unwrap_or_default());
        let count = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap_or_default()) as usize;
        let short = |b: &[u8]| u16::from_le_bytes(b.try_into().unwrap_or_default());
        let choice = |c: u16| -> Result<Option<usize>, String> {
            match c {
                u16::MAX => Ok(None),
                k if usize::from(k) < multiples.len() => Ok(Some(usize::from(k))),
                k => Err(format!("choice {k} is not one of the rules' multiples")),
            }
        };
        let cards = |m: u64, n: u32| m.count_ones() == n && m >> 52 == 0;
        if count(take(4)?) != FOUR_CARD_SETS {
            return Err("not one 5th-street sum per four-card set".into());
        }
        let fifth = take(FOUR_CARD_SETS * 8)?
            .chunks_exact(8)
            .map(|v| word(v) as i64)
            .collect();
        let stakes = usize::try_from(max_multiple).unwrap_or(0);
        if count(take(4)?) != 22_100 * stakes {
            return Err("not one 4th-street decision per three cards and stake".into());
        }
        let mut fourth = HashMap::with_capacity(22_100 * stakes);
        for _ in 0..22_100 * stakes {
            let m3 = word(take(8)?);
            let staked = i128::from(short(take(2)?));
            let value = wide(take(16)?);
            let wager = wide(take(16)?);
            let chosen = choice(short(take(2)?))?;
            if !cards(m3, 3) || !(2..=1 + max_multiple).contains(&staked) {
                return Err(format!(
                    "a 4th-street decision's key ({m3:#x}, {staked}) is not one"
                ));
            }
            if fourth
                .insert((m3, staked), ((value, wager), chosen))
                .is_some()
            {
                return Err(format!("the 4th-street decision ({m3:#x}, {staked}) twice"));
            }
        }
        if count(take(4)?) != 1326 {
            return Err("not one 3rd-street decision per starting pair".into());
        }
        let mut third = HashMap::with_capacity(1326);
        for _ in 0..1326 {
            let m2 = word(take(8)?);
            let chosen = choice(short(take(2)?))?;
            if !cards(m2, 2) || third.insert(m2, chosen).is_some() {
                return Err(format!(
                    "the 3rd-street decision {m2:#x} is not one, or twice"
                ));
            }
        }
        if !rest.is_empty() {
            return Err(format!(
                "{} bytes after Mississippi Stud's tables",
                rest.len()
            ));
        }
        Ok(Strategy {
            multiples,
            fifth,
            fourth,
            third,
        })
    }

    /// The 4th- and 3rd-street decisions derived from the 5th-street sums.
    fn from_fifth(rules: &MississippiRules, fifth: Vec<i64>) -> Strategy {
        let cards = deck();
        let multiples: Vec<i128> = rules
            .street_multiples
            .iter()
            .map(|&m| i128::from(m))
            .collect();
        let mut strategy = Strategy {
            multiples,
            fifth,
            fourth: HashMap::new(),
            third: HashMap::new(),
        };
        let max_multiple = strategy.multiples.iter().copied().max().unwrap_or(1);
        let mut fourth = HashMap::with_capacity(22_100 * max_multiple as usize);
        for a in 0..52 {
            for b in a + 1..52 {
                for c in b + 1..52 {
                    let m3 = mask(&[cards[a], cards[b], cards[c]]);
                    for staked in 2..=1 + max_multiple {
                        fourth.insert((m3, staked), strategy.at_fourth(m3, staked));
                    }
                }
            }
        }
        strategy.fourth = fourth;
        // 3rd street decisions for every starting pair, so that advice is one lookup per street.
        let mut third = HashMap::with_capacity(1326);
        for a in 0..52u8 {
            for b in a + 1..52 {
                let m2 = 1u64 << a | 1 << b;
                third.insert(m2, strategy.at_third(m2).1);
            }
        }
        strategy.third = third;
        strategy
    }

    /// 5th street, four cards seen, `staked` antes down; values over 48.
    fn at_fifth(&self, m4: u64, staked: i128) -> Decided {
        let a = i128::from(self.fifth[four_index(m4)]);
        let bets = self
            .multiples
            .iter()
            .map(|&k| (a * (staked + k), (staked + k) * 48));
        choose((-staked * 48, staked * 48), bets)
    }

    /// 4th street, three cards seen; values over 48·49.
    fn at_fourth(&self, m3: u64, staked: i128) -> Decided {
        let bets = self.multiples.iter().map(|&k| {
            unseen(m3).fold((0, 0), |acc, e| {
                let (v, w) = self.at_fifth(m3 | 1 << e, staked + k).0;
                (acc.0 + v, acc.1 + w)
            })
        });
        choose((-staked * 48 * 49, staked * 48 * 49), bets)
    }

    /// 3rd street, two cards seen (one ante down); values over 48·49·50.
    fn at_third(&self, m2: u64) -> Decided {
        let bets = self.multiples.iter().map(|&k| {
            unseen(m2).fold((0, 0), |acc, e| {
                let (v, w) = self
                    .fourth
                    .get(&(m2 | 1 << e, 1 + k))
                    .map_or((0, 0), |f| f.0);
                (acc.0 + v, acc.1 + w)
            })
        });
        let d3 = 48 * 49 * 50;
        choose((-d3, d3), bets)
    }

    /// The optimal decision with these cards seen (the player's two and the community cards shown,
    /// two to four in all) and `staked` antes already down (1 on 3rd street): the multiple to bet,
    /// or `None` to fold.
    pub(crate) fn advise(&self, seen: &[Card], staked: u32) -> Option<Option<u32>> {
        let choice = self.choice(mask(seen), seen.len(), i128::from(staked))?;
        Some(choice.map(|k| self.multiples[k] as u32))
    }

    /// The index of the multiple to bet (`None`: fold) with the cards of mask `m` (`seen` of them)
    /// seen and `staked` antes down. The tables hold every decision the induction took; computing
    /// afresh is the fallback for a stake they do not cover.
    fn choice(&self, m: u64, seen: usize, staked: i128) -> Option<Option<usize>> {
        Some(match seen {
            2 => match self.third.get(&m) {
                Some(&choice) => choice,
                None => self.at_third(m).1,
            },
            3 => match self.fourth.get(&(m, staked)) {
                Some(&(_, choice)) => choice,
                None => self.at_fourth(m, staked).1,
            },
            4 => self.at_fifth(m, staked).1,
            _ => return None,
        })
    }
}

/// Four-card sets of 52 cards: C(52, 4).
const FOUR_CARD_SETS: usize = 270_725;

/// `BINOMIAL[n][k]` = C(n, k) for n ≤ 52, k ≤ 4.
const BINOMIAL: [[u32; 5]; 53] = {
    let mut table = [[0u32; 5]; 53];
    let mut n = 0;
    while n < 53 {
        table[n][0] = 1;
        let mut k = 1;
        while k < 5 && k <= n {
            table[n][k] = table[n - 1][k - 1] + table[n - 1][k];
            k += 1;
        }
        n += 1;
    }
    table
};

/// The place of the four-card set with card indices `a < b < c < d` among all of them, in
/// colexicographic order: C(a, 1) + C(b, 2) + C(c, 3) + C(d, 4), below C(52, 4).
fn four_index_of(a: usize, b: usize, c: usize, d: usize) -> usize {
    (BINOMIAL[a][1] + BINOMIAL[b][2] + BINOMIAL[c][3] + BINOMIAL[d][4]) as usize
}

/// [`four_index_of`] the four cards of a mask (exactly four bits below 52).
fn four_index(m: u64) -> usize {
    let mut rest = m;
    let mut next = || {
        let i = rest.trailing_zeros() as usize;
        rest &= rest.wrapping_sub(1);
        i
    };
    let (a, b, c, d) = (next(), next(), next(), next());
    four_index_of(a, b, c, d)
}

/// Calls `f` with every five-card set of the 52 cards, in canonical order, and the
/// [`four_index`]es of its five four-card sets.
fn each_five_card_set(cards: &[Card], mut f: impl FnMut([Card; 5], [usize; 5])) {
    let n = cards.len();
    for a in 0..n {
        for b in a + 1..n {
            for c in b + 1..n {
                for d in c + 1..n {
                    for e in d + 1..n {
                        let five = [cards[a], cards[b], cards[c], cards[d], cards[e]];
                        let fours = [
                            four_index_of(b, c, d, e),
                            four_index_of(a, c, d, e),
                            four_index_of(a, b, d, e),
                            four_index_of(a, b, c, e),
                            four_index_of(a, b, c, d),
                        ];
                        f(five, fours);
                    }
                }
            }
        }
    }
}

/// Indices of the cards not in the mask, lowest first.
fn unseen(m: u64) -> impl Iterator<Item = u8> {
    let mut rest = !m & ((1 << 52) - 1);
    std::iter::from_fn(move || {
        (rest != 0).then(|| {
            let i = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            i
        })
    })
}

/// Backward induction over every card sequence.
pub fn analyse(rules: &MississippiRules) -> Analysis {
    let strategy = Strategy::build(rules);
    let mut value = 0;
    let mut wagered = 0;
    let mut folds = 0;
    for a in 0..52u8 {
        for b in a + 1..52 {
            let ((v, w), bet) = strategy.at_third(1 << a | 1 << b);
            folds += u32::from(bet.is_none());
            value += v;
            wagered += w;
        }
    }
    Analysis {
        value,
        wagered,
        denominator: 1326 * 48 * 49 * 50,
        folds_at_third: folds,
    }
}

/// The paytable row index of five cards (`rules.paytable.len()` for a losing hand).
fn row_index(rules: &MississippiRules, cards: &[Card; 5]) -> usize {
    let value = poker5::evaluate_unchecked(cards);
    mississippi_hand(value)
        .and_then(|h| rules.paytable.iter().position(|r| r.hand == h))
        .unwrap_or(rules.paytable.len())
}

/// The ante and street bets under the optimal strategy, row by row: a forward pass over every
/// card sequence following `Strategy::advise`'s choices, counting where each sequence ends (a
/// fold on some street, or a paytable row at showdown) and what was wagered and paid back there,
/// in antes. Its totals equal [`analyse`]'s backward-induction values exactly (a test holds them
/// together).
pub fn main_sheet(config: &GameConfig) -> Result<ParSheet, LabError> {
    let rules: &MississippiRules = config.rules_of()?;
    let strategy = Strategy::build(rules);
    let cards = deck();
    let rows = rules.paytable.len() + 1;
    // For every four-card set (`rows` counters from `rows × four_index`), how many of the 48 last
    // cards end in each row; each five-card hand evaluated once.
    let mut histograms = vec![0u8; FOUR_CARD_SETS * rows];
    each_five_card_set(&cards, |five, fours| {
        let row = row_index(rules, &five);
        for i in fours {
            histograms[i * rows + row] += 1;
        }
    });
    // How many sequences reach showdown after each four-card set, the antes they stake in all and
    // the sum of the squares of those stakes (the rows are added once per set at the end).
    let mut reached = vec![(0u32, 0u64, 0u64); FOUR_CARD_SETS];
    // Per paytable row (then the loss): count, wagered, wagered squared; then the three folds.
    let mut showdown = vec![(0u128, 0u128, 0u128); rows];
    let mut folds = [(0u128, 0u128, 0u128); 3];
    let multiple = |k: Option<usize>| k.map(|k| strategy.multiples[k]);
    for a in 0..52u8 {
        for b in a + 1..52 {
            let m2 = 1u64 << a | 1 << b;
            let Some(k3) = multiple(strategy.choice(m2, 2, 1).flatten()) else {
                folds[0].0 += 50 * 49 * 48;
                folds[0].1 += 50 * 49 * 48;
                folds[0].2 += 50 * 49 * 48;
                continue;
            };
            let staked3 = 1 + k3;
            for c in unseen(m2) {
                let m3 = m2 | 1 << c;
                let Some(k4) = multiple(strategy.choice(m3, 3, staked3).flatten()) else {
                    folds[1].0 += 49 * 48;
                    folds[1].1 += 49 * 48 * staked3 as u128;
                    folds[1].2 += 49 * 48 * (staked3 * staked3) as u128;
                    continue;
                };
                let staked4 = staked3 + k4;
                for d in unseen(m3) {
                    let m4 = m3 | 1 << d;
                    let Some(k5) = multiple(strategy.choice(m4, 4, staked4).flatten()) else {
                        folds[2].0 += 48;
                        folds[2].1 += 48 * staked4 as u128;
                        folds[2].2 += 48 * (staked4 * staked4) as u128;
                        continue;
                    };
                    let reach = &mut reached[four_index(m4)];
                    let staked = (staked4 + k5) as u64;
                    reach.0 += 1;
                    reach.1 += staked;
                    reach.2 += staked * staked;
                }
            }
        }
    }
    for (histogram, &(times, staked, squares)) in histograms.chunks_exact(rows).zip(&reached) {
        for (row, &n) in histogram.iter().enumerate() {
            let n = u128::from(n);
            showdown[row].0 += n * u128::from(times);
            showdown[row].1 += n * u128::from(staked);
            showdown[row].2 += n * u128::from(squares);
        }
    }
    let mut sheet_rows = Vec::with_capacity(rows + 3);
    for (i, (count, wagered, wagered_sq)) in showdown.iter().enumerate() {
        let (row, per_unit) = match rules.paytable.get(i) {
            Some(r) => (pitboss_engine::id_of(&r.hand), per_unit(r)?),
            None => ("loses".to_string(), 0),
        };
        sheet_rows.push(ParRow {
            row,
            count: *count,
            wagered: *wagered,
            returned: wagered * per_unit,
            wagered_sq: *wagered_sq,
        });
    }
    for (street, (count, wagered, wagered_sq)) in ["third", "fourth", "fifth"].iter().zip(folds) {
        sheet_rows.push(ParRow {
            row: format!("fold_on_{street}_street"),
            count,
            wagered,
            returned: 0,
            wagered_sq,
        });
    }
    Ok(ParSheet {
        title: "mississippi_stud / ante and street bets, optimal strategy".into(),
        bets: "main".into(),
        optimal_play: true,
        config_id: config.id().to_string(),
        rows: sheet_rows,
        denominator: 1326 * 50 * 49 * 48,
        notes: vec![
            "exact: every sequence of two player and three community cards, played by the optimal strategy (backward induction; ties bet, then the smaller bet)".into(),
            "amounts in antes; the house edge is per ante, the element of risk per total wagered".into(),
        ],
    })
}

/// What one unit staked on the ante or a street bet returns on `row`, stake included: the sheet
/// counts in antes, so a fixed-amount row cannot be analysed ([`LabError::FixedAmountRow`]).
pub(crate) fn per_unit(row: &PayRow<MississippiHand>) -> Result<u128, LabError> {
    match row.pay {
        Pay::Odds(x) => Ok(u128::from(x) + 1),
        Pay::Push => Ok(1),
        Pay::Fixed(_) => Err(LabError::FixedAmountRow {
            game: GameId::MississippiStud,
            row: pitboss_engine::id_of(&row.hand),
        }),
    }
}

/// The 3-card bonus over all 22 100 community hands.
pub fn bonus_sheet(config: &GameConfig) -> Result<ParSheet, LabError> {
    let rules: &MississippiRules = config.rules_of()?;
    let cards = deck();
    let mut counts: HashMap<three_card::Category, u128> = HashMap::new();
    for a in 0..52 {
        for b in a + 1..52 {
            for c in b + 1..52 {
                let category =
                    three_card::evaluate_unchecked(&[cards[a], cards[b], cards[c]]).category();
                *counts.entry(category).or_default() += 1;
            }
        }
    }
    let rows = three_card::Category::ALL
        .iter()
        .rev()
        .map(|&category| {
            ParRow::single(
                category.id(),
                counts.get(&category).copied().unwrap_or(0),
                row_for(&rules.bonus_paytable, category)
                    .and_then(|r| r.pay.payout(Money(1)).ok())
                    .map_or(0, |m| u128::from(m.0)),
            )
        })
        .collect();
    Ok(ParSheet {
        title: "mississippi_stud / bonus".into(),
        bets: "bonus".into(),
        optimal_play: false,
        config_id: config.id().to_string(),
        rows,
        denominator: 22_100,
        notes: vec!["exact: all 22 100 three-card community hands".into()],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_engine::card::parse_cards;
    use pitboss_engine::game::GameId;

    /// Every decision the strategy's tables give (3rd street for every pair; 4th street for every
    /// three cards and stake; 5th street for every four cards and stake), pinned by a digest
    /// recorded from the tables as first built (hash maps, every river card evaluated per set):
    /// a change of how the tables are built must not change one decision.
    #[test]
    fn every_decision_is_the_one_first_recorded() {
        use sha2::{Digest, Sha256};
        let config = GameConfig::default_for(GameId::MississippiStud);
        let rules: &MississippiRules = config.rules_of().unwrap();
        let s = Strategy::build(rules);
        let mut digest = Sha256::new();
        let mut record = |m: u64, seen: usize, staked: i128| {
            let choice = s.choice(m, seen, staked).unwrap();
            digest.update(m.to_le_bytes());
            digest.update([staked as u8, choice.map_or(0xFF, |k| k as u8)]);
        };
        for a in 0..52 {
            for b in a + 1..52 {
                record(1 << a | 1 << b, 2, 1);
                for c in b + 1..52 {
                    for staked in 2..=4 {
                        record(1 << a | 1 << b | 1 << c, 3, staked);
                    }
                    for d in c + 1..52 {
                        for staked in 3..=7 {
                            record(1 << a | 1 << b | 1 << c | 1 << d, 4, staked);
                        }
                    }
                }
            }
        }
        let hex: String = digest
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(hex, DECISIONS_DIGEST);
    }

    /// See [`every_decision_is_the_one_first_recorded`].
    const DECISIONS_DIGEST: &str =
        "83a8dd549f0a5350f7aec51217458ec1ab0426cc0c9d1f84f5b66326ba93bad4";

    #[test]
    fn advice_follows_the_well_known_strategy() {
        let config = GameConfig::default_for(GameId::MississippiStud);
        let rules: &MississippiRules = config.rules_of().unwrap();
        let s = Strategy::build(rules);
        let advise = |cards: &str, staked| s.advise(&parse_cards(cards).unwrap(), staked).unwrap();
        assert_eq!(advise("As Ad", 1), Some(3), "any pair: 3x on 3rd street");
        assert_eq!(advise("2c 7d", 1), None, "2-7 offsuit folds");
        assert_eq!(advise("Kc Qd", 1), Some(1), "two high cards: 1x");
        assert_eq!(advise("Kc Kd 7h 7s", 4), Some(3), "two pair made: 3x");
        assert_eq!(advise("2c 7d 9h", 2), None);
        assert_eq!(advise("6c 6d", 1), Some(3), "a low pair: 3x too");
        assert_eq!(
            s.advise(&parse_cards("2c").unwrap(), 1),
            None,
            "no decision with one card seen"
        );
    }
}
