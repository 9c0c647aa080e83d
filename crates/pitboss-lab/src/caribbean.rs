//! Caribbean Stud, exactly: the optimal raise-or-fold decision for every player hand against every
//! dealer up card, and the return of the ante and raise under it, over every player hand, up card
//! and dealer hand (52 × C(51,5) × C(46,4) ≈ 2 × 10^13 deals), with no sampling; and the bonus.
//!
//! Counting, not dealing: for one up card `u`, the dealer's hand is `u` and four of the other 51
//! cards. Every five-card hand is sorted once by value; one sweep per up card walks them from the
//! lowest, adding each dealer hand (one holding `u`) to a counter per subset of its four other cards
//! (16 subsets), and asking for each player hand how many dealer hands seen so far avoid its five
//! cards — by inclusion–exclusion over the 31 subsets of those cards with at most four of them.
//! Asked before and after the dealer hands of the player's own value, and once at the qualifying
//! threshold, that gives exactly how many of the 163 185 completions do not qualify, lose to the
//! player, tie, or beat the player. Suits are symmetric, so one up card per rank is enough (×4);
//! and the player hands that differ by a permutation of the other three suits have the same
//! counts, so each is asked once per orbit.
//!
//! The decision: raise when its expected net is at least folding's (ties raise, as for Mississippi
//! Stud), compared as exact integers. [`advise`] decides one hand by plain enumeration of its
//! 163 185 dealer completions; the tests hold the sweep to it.
//!
//! Pure: no I/O. Uses the engine's evaluator, qualification rule and paytables.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};

use pitboss_engine::card::Card;
use pitboss_engine::config::{CaribbeanRules, GameConfig};
use pitboss_engine::game::GameId;
use pitboss_engine::game::Seat;
use pitboss_engine::games::view::PlayerView;
use pitboss_engine::games::{dealer_qualifies, Action, Hand};
use pitboss_engine::hand::poker5::{self, Category, HandValue};
use pitboss_engine::money::Money;
use pitboss_engine::paytable::{row_for, Pay, PayRow};
use pitboss_engine::settlement::{BetId, BetLine, Wager};

use super::analysed::{tables_of, visible, wagers, Analysed, Footprint, Tables};
use super::error::LabError;
use super::par::{ParRow, ParSheet};

/// Caribbean Stud's analysis, as the lab's entry points reach it.
pub(crate) struct Lab;

/// Caribbean Stud's decision table (a bit per player hand, per up-card rank) and the counters of
/// the counting sweep on each thread.
const DECISION_TABLE_BYTES: u64 = 13 * 2_598_960 / 8;
const SWEEP_BYTES_PER_THREAD: u64 = 272_052 * 4;

impl Analysed for Lab {
    fn refusal(&self, config: &GameConfig) -> Result<(), (String, LabError)> {
        let rules: &CaribbeanRules = config.rules_of().map_err(|e| (String::new(), e.into()))?;
        per_unit(Some(rules.ante_win), 1, "ante").map_err(|e| ("ante_win".to_string(), e))?;
        for (i, row) in rules.raise_paytable.iter().enumerate() {
            per_unit(Some(row.pay), 1, row.hand.id())
                .map_err(|e| (format!("raise_paytable[{i}].pay"), e))?;
        }
        for (i, row) in rules.bonus_paytable.iter().enumerate() {
            bonus_multiple(row, rules.bonus_stake, config.currency.minor_digits)
                .map_err(|e| (format!("bonus_paytable[{i}].pay"), e))?;
        }
        Ok(())
    }

    fn footprint(&self, _config: &GameConfig, threads: usize) -> Footprint {
        Footprint {
            bytes: DECISION_TABLE_BYTES + SWEEP_BYTES_PER_THREAD * threads.clamp(1, 64) as u64,
            steps: 0,
        }
    }

    fn exact_par_sheets(
        &self,
        config: &GameConfig,
        threads: usize,
    ) -> Result<Vec<ParSheet>, LabError> {
        par_sheets(config, threads)
    }

    fn reference_wagers(&self, config: &GameConfig) -> Result<Vec<Wager>, LabError> {
        let r: &CaribbeanRules = config.rules_of()?;
        Ok(wagers(&[
            (BetId::Ante, r.ante.min),
            (BetId::Bonus, r.bonus_stake),
        ]))
    }

    fn row_of(&self, group: &str, _hand: &Hand, line: &BetLine) -> Option<String> {
        (group == "bonus" && line.pay.is_none()).then(|| "loses_or_folded".to_string())
    }

    fn advise(
        &self,
        hand: &Hand,
        view: &PlayerView,
        tables: Option<&dyn Tables>,
    ) -> Result<Option<Action>, LabError> {
        let dealer = visible(view, Seat::Dealer);
        let (Ok(player), [up]) = (
            <[Card; 5]>::try_from(visible(view, Seat::Player)),
            &dealer[..],
        ) else {
            return Ok(None);
        };
        let decision = match tables_of::<DecisionTable>(tables) {
            Some(table) => table.decide(&player, *up),
            None => advise(hand.config().rules_of()?, &player, *up)?,
        };
        Ok(Some(match decision {
            Decision::Raise => Action::Raise,
            Decision::Fold => Action::Fold,
        }))
    }

    fn build_tables(
        &self,
        config: &GameConfig,
        threads: usize,
    ) -> Result<Option<Box<dyn Tables>>, LabError> {
        Ok(Some(Box::new(analyse(config.rules_of()?, threads)?.1)))
    }

    fn tables_tag(&self) -> Option<u8> {
        Some(TABLES_TAG)
    }

    fn tables_from_bytes(
        &self,
        _config: &GameConfig,
        bytes: &[u8],
    ) -> Result<Box<dyn Tables>, String> {
        Ok(Box::new(DecisionTable::from_bytes(bytes)?))
    }
}

/// The tag of Caribbean Stud's kept decision table.
const TABLES_TAG: u8 = 2;

impl Tables for DecisionTable {
    fn tag(&self) -> u8 {
        TABLES_TAG
    }

    fn to_bytes(&self) -> Option<Vec<u8>> {
        Some(DecisionTable::to_bytes(self))
    }
}

/// How many dealer hands complete one player hand and up card: C(46,4).
pub const COMPLETIONS: u64 = 163_185;

/// 52 × C(51,5): the (player hand, up card) pairs, equally likely.
pub(crate) const PLAYER_SITUATIONS: u64 = 122_151_120;

/// Where the dealer completions of one player hand and up card fall.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// The dealer does not qualify.
    pub not_qualifying: u64,
    /// The dealer qualifies and the player's hand is higher.
    pub player_higher: u64,
    /// The dealer qualifies and the hands are equal.
    pub stand_off: u64,
    /// The dealer qualifies and is higher.
    pub dealer_higher: u64,
}

/// The player's decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Raise the configured multiple of the ante.
    Raise,
    /// Fold, losing the ante (and the bonus).
    Fold,
}

/// What the ante and the raise pay back, stake included, in antes; from the configuration.
#[derive(Clone, Debug)]
pub struct Payouts {
    raise_multiple: i128,
    ante_win: i128,
    raise_win: [i128; 10],
}

/// What `units` staked on a row paying `pay` return, stake included; `row` names it in the error.
pub(crate) fn per_unit(pay: Option<Pay>, units: i128, row: &str) -> Result<i128, LabError> {
    match pay {
        Some(Pay::Odds(x)) => Ok(units * (i128::from(x) + 1)),
        Some(Pay::Push) => Ok(units),
        Some(Pay::Fixed(_)) => Err(LabError::FixedAmountRow {
            game: GameId::CaribbeanStud,
            row: row.to_string(),
        }),
        None => Ok(0),
    }
}

impl Payouts {
    /// From a Caribbean Stud configuration's rules.
    pub fn of(rules: &CaribbeanRules) -> Result<Payouts, LabError> {
        let m = i128::from(rules.raise_multiple);
        let mut raise_win = [0; 10];
        for (slot, category) in raise_win.iter_mut().zip(Category::ALL) {
            let pay = row_for(&rules.raise_paytable, category).map(|r| r.pay);
            *slot = per_unit(pay, m, category.id())?;
        }
        Ok(Payouts {
            raise_multiple: m,
            ante_win: per_unit(Some(rules.ante_win), 1, "ante")?,
            raise_win,
        })
    }

    /// Ante plus raise.
    fn wagered(&self) -> i128 {
        1 + self.raise_multiple
    }

    /// Σ over the completions of the net result of raising, in antes.
    pub fn raise_net(&self, player: Category, c: &Counts) -> i128 {
        let w = self.wagered();
        i128::from(c.not_qualifying) * (self.ante_win + self.raise_multiple - w)
            + i128::from(c.player_higher) * (self.ante_win + self.raise_win[player as usize] - w)
            - i128::from(c.dealer_higher) * w
    }

    /// Σ over the completions of the net result of folding, in antes.
    pub fn fold_net(&self) -> i128 {
        -i128::from(COMPLETIONS)
    }

    /// The optimal decision: raise unless folding is worth strictly more.
    pub fn decide(&self, player: Category, c: &Counts) -> Decision {
        if self.raise_net(player, c) >= self.fold_net() {
            Decision::Raise
        } else {
            Decision::Fold
        }
    }
}

/// Where the dealer completions of this player hand and up card fall, by plain enumeration of all
/// 163 185 of them (about a millisecond).
pub fn dealer_counts(player: &[Card; 5], up: Card) -> Counts {
    let p = poker5::evaluate_unchecked(player);
    let used = player
        .iter()
        .fold(1u64 << up.index(), |m, c| m | 1 << c.index());
    let rest: Vec<Card> = (0..52u8)
        .filter(|i| used & 1 << i == 0)
        .filter_map(Card::from_index)
        .collect();
    let mut counts = Counts::default();
    for a in 0..rest.len() {
        for b in a + 1..rest.len() {
            for c in b + 1..rest.len() {
                for d in c + 1..rest.len() {
                    let dealer =
                        poker5::evaluate_unchecked(&[up, rest[a], rest[b], rest[c], rest[d]]);
                    let slot = if !dealer_qualifies(dealer) {
                        &mut counts.not_qualifying
                    } else if p > dealer {
                        &mut counts.player_higher
                    } else if p == dealer {
                        &mut counts.stand_off
                    } else {
                        &mut counts.dealer_higher
                    };
                    *slot += 1;
                }
            }
        }
    }
    counts
}

/// The optimal decision for this player hand against this up card.
pub fn advise(rules: &CaribbeanRules, player: &[Card; 5], up: Card) -> Result<Decision, LabError> {
    let payouts = Payouts::of(rules)?;
    let category = poker5::evaluate_unchecked(player).category();
    Ok(payouts.decide(category, &dealer_counts(player, up)))
}

/// What a bonus row pays per unit of the fixed `stake` (`digits`: the currency's, for the error):
/// the sheet counts in stakes, so the payout must be a whole multiple of it.
pub(crate) fn bonus_multiple(
    row: &PayRow<Category>,
    stake: Money,
    digits: u8,
) -> Result<u128, LabError> {
    let payout = row.pay.payout(stake)?;
    if stake.0 == 0 || payout.0 % stake.0 != 0 {
        return Err(LabError::BonusNotWholeMultiple {
            row: row.hand.id().to_string(),
            payout,
            stake,
            minor_digits: digits,
        });
    }
    Ok(u128::from(payout.0 / stake.0))
}

/// Every five-card hand, sorted by value: (value, card indices ascending).
pub struct SortedHands(Vec<(u32, [u8; 5])>);

impl SortedHands {
    /// All 2 598 960 hands, evaluated and sorted (a fraction of a second).
    pub fn build() -> SortedHands {
        let cards: Vec<Card> = (0..52).filter_map(Card::from_index).collect();
        let mut hands = Vec::with_capacity(2_598_960);
        for a in 0..52u8 {
            for b in a + 1..52 {
                for c in b + 1..52 {
                    for d in c + 1..52 {
                        for e in d + 1..52 {
                            let set = [a, b, c, d, e];
                            let value =
                                poker5::evaluate_unchecked(&set.map(|i| cards[usize::from(i)]));
                            hands.push((value.raw(), set));
                        }
                    }
                }
            }
        }
        hands.sort_unstable_by_key(|h| h.0);
        SortedHands(hands)
    }
}

/// Subsets of at most four of the 51 cards other than the up card, numbered: all sizes in one
/// array, each size from its offset by the colexicographic rank.
const OFFSETS: [u32; 5] = [0, 1, 52, 52 + 1_275, 52 + 1_275 + 20_825];
const SUBSETS: usize = 52 + 1_275 + 20_825 + 249_900;

/// The 31 subsets of a five-card set with at most four cards (and the 16 of a four-card set),
/// numbered from C(n, k) for n < 51, k ≤ 4.
struct Subsets {
    binom: [[u32; 5]; 51],
}

/// For each bit mask of five positions: its size.
const SUBSET_SIZE: [u8; 32] = {
    let mut size = [0u8; 32];
    let mut m = 0;
    while m < 32 {
        size[m] = (m as u32).count_ones() as u8;
        m += 1;
    }
    size
};

/// For each non-empty bit mask of five positions: its highest position.
const SUBSET_HIGH: [u8; 32] = {
    let mut high = [0u8; 32];
    let mut m = 1;
    while m < 32 {
        high[m] = (31 - (m as u32).leading_zeros()) as u8;
        m += 1;
    }
    high
};

impl Subsets {
    fn new() -> Subsets {
        // Pascal's triangle: C(n, k) for n < 51, k ≤ 4 (C(n, k) = 0 for k > n).
        let mut binom = [[0u32; 5]; 51];
        for n in 0..51 {
            binom[n][0] = 1;
            for k in 1..5 {
                binom[n][k] = if n == 0 {
                    0
                } else {
                    binom[n - 1][k - 1] + binom[n - 1][k]
                };
            }
        }
        Subsets { binom }
    }

    /// The numbers of the subsets of `set` (ascending, 4 or 5 cards) with at most four cards,
    /// indexed by bit mask over `set`'s positions; returns how many masks are filled. (The sizes
    /// are constants, so the loop unrolls with every mask's size and highest position known.)
    #[inline(always)]
    fn numbers<const N: usize>(&self, set: &[u8; N], out: &mut [u32; 32]) -> usize {
        let masks = if N == 5 { 31 } else { 16 };
        let mut colex = [0u32; 32];
        out[0] = 0;
        for m in 1..masks {
            let high = SUBSET_HIGH[m];
            let size = SUBSET_SIZE[m];
            colex[m] = colex[m & !(1 << high)]
                + self.binom[usize::from(set[usize::from(high)])][usize::from(size)];
            out[m] = OFFSETS[usize::from(size)] + colex[m];
        }
        masks
    }

    /// How many counted four-card sets avoid every card of the player's set: inclusion–exclusion
    /// (the subsets of even size added, those of odd size taken away; the empty one first).
    fn avoiding(&self, counted: &Counted, numbers: &[u32; 32]) -> u64 {
        let sum = |masks: &[u8]| -> i64 {
            masks
                .iter()
                .map(|&m| i64::from(counted.holding[numbers[usize::from(m)] as usize]))
                .sum()
        };
        (i64::from(counted.all) + sum(&EVEN_SUBSETS[1..]) - sum(&ODD_SUBSETS)) as u64
    }
}

/// The sweep's counters: how many of the dealer hands counted so far hold each subset of cards
/// (numbered as by [`Subsets::numbers`]). The empty subset's (every dealer hand, up to C(51,4))
/// apart in a `u32`; any other is held by at most C(50,3) = 19 600 dealer hands, a `u16`, so the
/// 272 052 counters take 532 KiB and stay in a core's cache next to the threshold's copy.
#[derive(Clone)]
struct Counted {
    all: u32,
    /// By subset number; the empty subset's place (0) unused.
    holding: Vec<u16>,
}

impl Counted {
    fn new() -> Counted {
        Counted {
            all: 0,
            holding: vec![0; SUBSETS],
        }
    }

    /// Counts one dealer hand, given its subsets' numbers (the empty one first).
    fn add(&mut self, numbers: &[u32]) {
        self.all += 1;
        for &number in &numbers[1..] {
            self.holding[number as usize] += 1;
        }
    }
}

/// The masks below 31 (subsets of five positions, all five excepted) of even size: 0, 2 or 4.
const EVEN_SUBSETS: [u8; 16] = subsets_of_parity(0);
/// Those of odd size: 1 or 3.
const ODD_SUBSETS: [u8; 15] = subsets_of_parity(1);

/// The masks below 31 whose size has this parity, ascending.
const fn subsets_of_parity<const N: usize>(parity: u32) -> [u8; N] {
    let mut masks = [0u8; N];
    let (mut m, mut n) = (0u8, 0);
    while m < 31 {
        if m.count_ones() % 2 == parity {
            masks[n] = m;
            n += 1;
        }
        m += 1;
    }
    masks
}

/// The 51 other cards numbered 0..51 with the up card taken out.
fn without(set: &[u8], up: u8, out: &mut [u8; 5]) -> usize {
    let mut n = 0;
    for &c in set {
        if c != up {
            out[n] = if c > up { c - 1 } else { c };
            n += 1;
        }
    }
    n
}

/// Calls `visit` with every player hand (card indices ascending), its value and where its dealer
/// completions fall against `up` (a card index), in ascending order of value for the qualifying
/// hands (the others first, at the threshold).
pub fn sweep(hands: &SortedHands, up: u8, mut visit: impl FnMut(&[u8; 5], HandValue, Counts)) {
    let subsets = Subsets::new();
    let mut counted = Counted::new();
    let mut at_threshold: Option<Counted> = None;
    let mut below: Vec<u32> = Vec::new();
    // A value group's player hands, one entry per orbit (see `orbit`): its subsets' numbers, the
    // completions not qualifying, and those lower than the player; then every hand's orbit entry.
    let mut group: Vec<([u32; 32], u64, u64)> = Vec::new();
    let mut members: Vec<(u32, u32)> = Vec::new();
    let mut orbits: HashMap<u64, u32, BuildHasherDefault<KeyHasher>> = HashMap::default();
    let hands = &hands.0;
    let mut numbers = [0u32; 32];
    let mut other = [0u8; 5];
    let mut i = 0;
    while i < hands.len() {
        let raw = hands[i].0;
        let mut j = i;
        while j < hands.len() && hands[j].0 == raw {
            j += 1;
        }
        let value = value_of(raw);
        let qualifies = dealer_qualifies(value);
        if qualifies && at_threshold.is_none() {
            // The hands below are in order of value, and an orbit's hands share theirs: one
            // value's orbits at a time keeps the map small.
            let mut not_qualifying_by_orbit: HashMap<u64, u64, BuildHasherDefault<KeyHasher>> =
                HashMap::default();
            let mut of_value = None;
            for &k in &below {
                let (raw, set) = hands[k as usize];
                if of_value != Some(raw) {
                    not_qualifying_by_orbit.clear();
                    of_value = Some(raw);
                }
                let not_qualifying = *not_qualifying_by_orbit
                    .entry(orbit(&set, up))
                    .or_insert_with(|| {
                        without(&set, up, &mut other);
                        subsets.numbers(&other, &mut numbers);
                        subsets.avoiding(&counted, &numbers)
                    });
                visit(
                    &set,
                    value_of(raw),
                    Counts {
                        not_qualifying,
                        dealer_higher: COMPLETIONS - not_qualifying,
                        ..Counts::default()
                    },
                );
            }
            below = Vec::new();
            at_threshold = Some(counted.clone());
        }
        group.clear();
        members.clear();
        orbits.clear();
        for (k, (_, set)) in hands.iter().enumerate().take(j).skip(i) {
            if set.contains(&up) {
                continue;
            }
            if let Some(threshold) = &at_threshold {
                let entry = *orbits.entry(orbit(set, up)).or_insert_with(|| {
                    without(set, up, &mut other);
                    subsets.numbers(&other, &mut numbers);
                    let not_qualifying = subsets.avoiding(threshold, &numbers);
                    let lower = subsets.avoiding(&counted, &numbers);
                    group.push((numbers, not_qualifying, lower));
                    (group.len() - 1) as u32
                });
                members.push((k as u32, entry));
            } else {
                below.push(k as u32);
            }
        }
        let mut dealer_hands = 0;
        for (_, set) in &hands[i..j] {
            if set.contains(&up) {
                without(set, up, &mut other);
                let four = [other[0], other[1], other[2], other[3]];
                let filled = subsets.numbers(&four, &mut numbers);
                counted.add(&numbers[..filled]);
                dealer_hands += 1;
            }
        }
        let counts: Vec<Counts> = group
            .iter()
            .map(|(numbers, not_qualifying, lower)| {
                // No dealer hand of this value (the up card's rank is not among its ranks):
                // nothing was counted since `lower`, and none ties.
                let at_most = if dealer_hands == 0 {
                    *lower
                } else {
                    subsets.avoiding(&counted, numbers)
                };
                Counts {
                    not_qualifying: *not_qualifying,
                    player_higher: lower - not_qualifying,
                    stand_off: at_most - lower,
                    dealer_higher: COMPLETIONS - at_most,
                }
            })
            .collect();
        for &(k, entry) in &members {
            visit(&hands[k as usize].1, value, counts[entry as usize]);
        }
        i = j;
    }
}

/// The orbit of a player hand (card indices) under the permutations of the three suits other than
/// the up card's: its up-card suit's rank mask, then the other three suits' masks in descending
/// order, in one integer. Such a permutation fixes the up card and maps the dealer hands holding
/// it onto themselves, values kept, so every hand of an orbit has the same [`Counts`]: the sweep
/// computes them once per orbit (up to six hands) and value group.
fn orbit(set: &[u8; 5], up: u8) -> u64 {
    // Four 16-bit lanes, one rank mask per suit.
    let lanes = set
        .iter()
        .fold(0u64, |l, &card| l | 1 << (card / 4 + 16 * (card % 4)));
    let lane = |suit: u8| lanes >> (16 * (suit % 4)) & 0x1FFF;
    let fixed = up % 4;
    let (a, b, c) = (lane(fixed + 1), lane(fixed + 2), lane(fixed + 3));
    let (high, low) = (a.max(b), a.min(b));
    let (top, middle, bottom) = (high.max(c), low.max(high.min(c)), low.min(c));
    lane(fixed) | top << 13 | middle << 26 | bottom << 39
}

/// A hasher for [`orbit`] keys: one multiplication and a fold of the halves.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0 ^ u64::from(b));
        }
    }

    fn write_u64(&mut self, key: u64) {
        let x = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = x ^ x >> 32;
    }
}

/// The sorted list holds values the evaluator produced, so they need no re-evaluation.
fn value_of(raw: u32) -> HandValue {
    HandValue::from_raw(raw)
}

/// Totals of the exact analysis, in antes (weights: deals, i.e. situations × completions).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Folded deals.
    pub fold: u128,
    /// Raised deals where the dealer did not qualify.
    pub not_qualifying: u128,
    /// Raised deals won, by the player's category.
    pub player_higher: [u128; 10],
    /// Raised deals tied.
    pub stand_off: u128,
    /// Raised deals lost.
    pub dealer_higher: u128,
    /// (player hand, up card) situations raised, by the player's category; and folded.
    pub raised_situations: [u128; 10],
    /// Situations folded.
    pub folded_situations: u128,
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.fold += other.fold;
        self.not_qualifying += other.not_qualifying;
        self.stand_off += other.stand_off;
        self.dealer_higher += other.dealer_higher;
        self.folded_situations += other.folded_situations;
        for k in 0..10 {
            self.player_higher[k] += other.player_higher[k];
            self.raised_situations[k] += other.raised_situations[k];
        }
    }

    fn scaled(mut self, by: u128) -> Tally {
        self.fold *= by;
        self.not_qualifying *= by;
        self.stand_off *= by;
        self.dealer_higher *= by;
        self.folded_situations *= by;
        for k in 0..10 {
            self.player_higher[k] *= by;
            self.raised_situations[k] *= by;
        }
        self
    }
}

/// The optimal decision of every (player hand, up card), one bit each (4 MB): built by the same
/// sweep as the analysis, read in constant time (for simulation of millions of hands).
#[derive(Debug, PartialEq, Eq)]
pub struct DecisionTable {
    /// Per up-card rank (the up card taken in the first suit), a bit per player hand numbered by
    /// its colexicographic rank among all five-card sets: set means raise.
    raise: Vec<Vec<u64>>,
}

/// The colexicographic rank of an ascending five-card set among all C(52,5).
fn colex5(set: &[u8; 5]) -> usize {
    set.iter()
        .enumerate()
        .map(|(i, &c)| BINOMIAL52[usize::from(c)][i + 1] as usize)
        .sum()
}

/// `BINOMIAL52[n][k]` = C(n, k) for n < 52, k ≤ 5 (0 for k > n).
const BINOMIAL52: [[u32; 6]; 52] = {
    let mut table = [[0u32; 6]; 52];
    let mut n = 0;
    while n < 52 {
        table[n][0] = 1;
        let mut k = 1;
        while k < 6 && k <= n {
            table[n][k] = table[n - 1][k - 1] + table[n - 1][k];
            k += 1;
        }
        n += 1;
    }
    table
};

impl DecisionTable {
    /// The optimal decision for this player hand and up card.
    pub fn decide(&self, player: &[Card; 5], up: Card) -> Decision {
        // Swap the up card's suit with the first suit, in the player's hand too (suits are symmetric).
        let suit = up.index() % 4;
        let swap = |c: Card| -> u8 {
            let i = c.index();
            let s = i % 4;
            let t = if s == suit {
                0
            } else if s == 0 {
                suit
            } else {
                s
            };
            i - s + t
        };
        let mut set = player.map(swap);
        set.sort_unstable();
        let rank = usize::from(up.index() / 4);
        let n = colex5(&set);
        match self.raise.get(rank).and_then(|bits| bits.get(n / 64)) {
            Some(word) if word >> (n % 64) & 1 == 1 => Decision::Raise,
            _ => Decision::Fold,
        }
    }
}

/// One up-card rank's decision bits.
type RankBits = (usize, Vec<u64>);

/// The words of one up-card rank's decision bits: a bit per five-card set.
const WORDS: usize = 2_598_960usize.div_ceil(64);

impl DecisionTable {
    /// The table's bytes: each up-card rank's words in order, little-endian.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(13 * WORDS * 8);
        for rank in &self.raise {
            for word in rank {
                bytes.extend_from_slice(&word.to_le_bytes());
            }
        }
        bytes
    }

    /// A table from [`DecisionTable::to_bytes`]: refused unless it holds exactly every rank's
    /// words and no bit past the last five-card set.
    pub(crate) fn from_bytes(bytes: &[u8]) -> Result<DecisionTable, String> {
        if bytes.len() != 13 * WORDS * 8 {
            return Err(format!(
                "Caribbean Stud's decision table is {} bytes, not {}",
                bytes.len(),
                13 * WORDS * 8
            ));
        }
        let words: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().unwrap_or([0; 8])))
            .collect();
        let raise: Vec<Vec<u64>> = words.chunks_exact(WORDS).map(<[u64]>::to_vec).collect();
        let spare = 64 * WORDS - 2_598_960;
        if raise
            .iter()
            .any(|rank| rank[WORDS - 1] >> (64 - spare) != 0)
        {
            return Err("Caribbean Stud's decision table sets a bit past the last hand".into());
        }
        Ok(DecisionTable { raise })
    }
}

/// The optimal strategy's totals over every deal, on `threads` threads (up cards shared out), and
/// its decision table.
pub fn analyse(rules: &CaribbeanRules, threads: usize) -> Result<(Tally, DecisionTable), LabError> {
    let payouts = Payouts::of(rules)?;
    let hands = SortedHands::build();
    let next = AtomicUsize::new(0);
    let partials: Vec<(Tally, Vec<RankBits>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.clamp(1, 13))
            .map(|_| {
                scope.spawn(|| {
                    let mut tally = Tally::default();
                    let mut tables = Vec::new();
                    loop {
                        let rank = next.fetch_add(1, Ordering::Relaxed);
                        if rank >= 13 {
                            break (tally, tables);
                        }
                        let mut bits = vec![0u64; WORDS];
                        // The up card of this rank in the first suit; the other suits are symmetric.
                        sweep(&hands, 4 * rank as u8, |set, value, counts| {
                            let category = value.category();
                            match payouts.decide(category, &counts) {
                                Decision::Fold => {
                                    tally.fold += u128::from(COMPLETIONS);
                                    tally.folded_situations += 1;
                                }
                                Decision::Raise => {
                                    let n = colex5(set);
                                    bits[n / 64] |= 1 << (n % 64);
                                    tally.not_qualifying += u128::from(counts.not_qualifying);
                                    tally.player_higher[category as usize] +=
                                        u128::from(counts.player_higher);
                                    tally.stand_off += u128::from(counts.stand_off);
                                    tally.dealer_higher += u128::from(counts.dealer_higher);
                                    tally.raised_situations[category as usize] += 1;
                                }
                            }
                        });
                        tables.push((rank, bits));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_default())
            .collect()
    });
    let mut total = Tally::default();
    let mut raise = vec![Vec::new(); 13];
    for (partial, tables) in partials {
        total.add(&partial);
        for (rank, bits) in tables {
            raise[rank] = bits;
        }
    }
    Ok((total.scaled(4), DecisionTable { raise }))
}

/// The PAR sheets of a Caribbean Stud configuration: the ante and raise under the optimal
/// strategy, and the bonus (paid on the hands that raise).
pub fn par_sheets(config: &GameConfig, threads: usize) -> Result<Vec<ParSheet>, LabError> {
    let rules: &CaribbeanRules = config.rules_of()?;
    let payouts = Payouts::of(rules)?;
    let (tally, _) = analyse(rules, threads)?;
    let w = payouts.wagered() as u128;
    let ante_win = payouts.ante_win as u128;
    let m = payouts.raise_multiple as u128;
    let mut rows = vec![
        ParRow::uniform("fold", tally.fold, 1, 0),
        ParRow::uniform(
            "dealer_not_qualifying",
            tally.not_qualifying,
            w,
            ante_win + m,
        ),
    ];
    for category in Category::ALL.iter().rev() {
        rows.push(ParRow::uniform(
            pitboss_engine::games::player_higher_rule(category.id()),
            tally.player_higher[*category as usize],
            w,
            ante_win + payouts.raise_win[*category as usize] as u128,
        ));
    }
    rows.push(ParRow::uniform("stand_off", tally.stand_off, w, w));
    rows.push(ParRow::uniform("dealer_higher", tally.dealer_higher, w, 0));
    let raised: u128 = tally.raised_situations.iter().sum();
    let main = ParSheet {
        title: "caribbean_stud / ante and raise, optimal strategy".into(),
        bets: "main".into(),
        optimal_play: true,
        config_id: config.id().to_string(),
        rows,
        denominator: u128::from(PLAYER_SITUATIONS) * u128::from(COMPLETIONS),
        notes: vec![
            "exact: every player hand, dealer up card and dealer hand (52 × C(51,5) × C(46,4) deals), by counting".into(),
            format!(
                "the optimal strategy raises in {raised} of {PLAYER_SITUATIONS} (hand, up card) situations ({:.4} %); ties raise",
                raised as f64 * 100.0 / PLAYER_SITUATIONS as f64
            ),
            "amounts in antes; the house edge is per ante, the element of risk per total wagered".into(),
        ],
    };
    // The bonus: a fixed stake, paid on the player's hand unless the player folded.
    let stake = rules.bonus_stake;
    let digits = config.currency.minor_digits;
    let mut bonus_rows = Vec::new();
    let mut losing = tally.folded_situations;
    for category in Category::ALL.iter().rev() {
        let raised = tally.raised_situations[*category as usize];
        match row_for(&rules.bonus_paytable, *category) {
            Some(row) => {
                bonus_rows.push(ParRow::single(
                    category.id(),
                    raised,
                    bonus_multiple(&row, stake, digits)?,
                ));
            }
            None => losing += raised,
        }
    }
    bonus_rows.push(ParRow::single("loses_or_folded", losing, 0));
    let bonus = ParSheet {
        title: "caribbean_stud / bonus".into(),
        bets: "bonus".into(),
        optimal_play: true,
        config_id: config.id().to_string(),
        rows: bonus_rows,
        denominator: u128::from(PLAYER_SITUATIONS),
        notes: vec![format!(
            "exact: every player hand and up card, the bonus lost where the optimal strategy folds; amounts per {} {} staked",
            stake.display(digits),
            config.currency.code
        )],
    };
    Ok(vec![main, bonus])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sweep (orbits of hands asked once) against plain enumeration of the 163 185 dealer
    /// completions: up cards of the three suits the analysis does not sweep (a permutation then
    /// fixes another suit), every 50 000th player hand and the first 30 that can tie.
    #[test]
    fn the_sweep_counts_what_enumeration_counts() {
        let hands = SortedHands::build();
        let card = |i: u8| Card::from_index(i).unwrap_or(Card::JOKER);
        for up in [4 * 3 + 1, 4 * 9 + 2, 4 * 12 + 3] {
            let (mut visited, mut checked, mut ties) = (0u64, 0, 0);
            sweep(&hands, up, |set, value, counts| {
                visited += 1;
                let tie_prone = ties < 30 && counts.stand_off > 0;
                if visited.is_multiple_of(50_000) || tie_prone {
                    ties += usize::from(tie_prone);
                    let player = set.map(card);
                    assert_eq!(poker5::evaluate_unchecked(&player), value);
                    assert_eq!(
                        counts,
                        dealer_counts(&player, card(up)),
                        "{player:?} against {}",
                        card(up)
                    );
                    checked += 1;
                }
            });
            assert_eq!(visited, 2_349_060, "C(51,5) player hands");
            assert!(checked >= 70, "{checked} checked");
        }
    }

    /// Every bit of the default configuration's decision table (what the server's advice and
    /// simulation read), pinned by a digest recorded from a plain sweep (every hand asked, not once
    /// per orbit; three inclusion–exclusions each): how the table is built must not change a bit.
    #[test]
    fn the_decision_table_is_the_one_first_recorded() {
        use sha2::{Digest, Sha256};
        let config = GameConfig::default_for(GameId::CaribbeanStud);
        let rules: &CaribbeanRules = config.rules_of().unwrap();
        let (_, table) = analyse(rules, 2).unwrap();
        let mut digest = Sha256::new();
        for bits in &table.raise {
            for word in bits {
                digest.update(word.to_le_bytes());
            }
        }
        let hex: String = digest
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            hex,
            "7e9cbe9438042facef591cbc499751753d963502450e9aa362b2b80626bdc7c4"
        );
    }

    /// Hands that differ by a permutation of the suits other than the up card's share an orbit;
    /// a hand whose up-card suit holds other cards does not share it with one that moves them.
    #[test]
    fn orbits_are_the_permutations_fixing_the_up_cards_suit() {
        let set = |cards: &str| -> [u8; 5] {
            let mut set = pitboss_engine::card::parse_exact::<5>(cards)
                .unwrap()
                .map(Card::index);
            set.sort_unstable();
            set
        };
        let up = 4 * 12; // Ac
        let hand = orbit(&set("2c 7d 7h Ks 9d"), up);
        assert_eq!(hand, orbit(&set("2c 7h 7s Kd 9h"), up));
        assert_eq!(hand, orbit(&set("2c 7s 7d Kh 9s"), up));
        assert_ne!(hand, orbit(&set("2d 7c 7h Ks 9c"), up));
        assert_ne!(hand, orbit(&set("2c 7d 7h Ks 9s"), up));
    }
}
