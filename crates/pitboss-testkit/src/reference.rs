//! Combination enumeration and deliberately plain reference implementations of the ranking rules,
//! written independently of `crates/pitboss-engine/src/hand` (sorting and counting, no bit tricks)
//! so the fast evaluators can be checked against them (the engine's and the lab's tests).

use pitboss_engine::card::Card;

/// Calls `f` with every k-subset of `0..n`, in lexicographic order.
pub fn for_each_combination<const K: usize>(n: u8, mut f: impl FnMut(&[u8; K])) {
    let mut idx: [u8; K] = std::array::from_fn(|i| i as u8);
    if K as u8 > n {
        return;
    }
    loop {
        f(&idx);
        // Advance: find the rightmost index that can still move right.
        let mut i = K;
        loop {
            if i == 0 {
                return;
            }
            i -= 1;
            if idx[i] < n - (K - i) as u8 {
                break;
            }
            if i == 0 {
                return;
            }
        }
        idx[i] += 1;
        for j in i + 1..K {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

/// Cards from canonical indices.
pub fn cards<const K: usize>(idx: &[u8; K]) -> [Card; K] {
    idx.map(|i| Card::from_index(i).expect("index below 53"))
}

/// An ordered key for a hand: category, then ranks (doubled, plus one, so that the Pai Gow wheel can
/// sit between a king and an ace) in order of significance; 0 pads, so a hand with fewer cards in a
/// tie-break compares lower than one with further kickers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    pub category: u8,
    pub ranks: [u8; 5],
}

// Category numbers by the rule books' ranking, lowest first.
pub const HIGH_CARD: u8 = 0;
pub const PAIR: u8 = 1;
pub const TWO_PAIR: u8 = 2;
pub const TRIPS: u8 = 3;
pub const STRAIGHT: u8 = 4;
pub const FLUSH: u8 = 5;
pub const FULL_HOUSE: u8 = 6;
pub const QUADS: u8 = 7;
pub const STRAIGHT_FLUSH: u8 = 8;
pub const ROYAL_FLUSH: u8 = 9;
pub const FIVE_ACES: u8 = 10;

fn weight(rank: u8) -> u8 {
    2 * (rank + 1)
}

/// Five cards as (rank 0..13, suit) pairs; ranks may repeat up to five times (five aces).
/// `wheel_second`: Pai Gow's A-2-3-4-5, second only to A-K-Q-J-T, instead of the lowest straight.
pub fn five_card_key(cards: [(u8, u8); 5], wheel_second: bool) -> Key {
    let mut counts = [0u8; 13];
    for (rank, _) in cards {
        counts[rank as usize] += 1;
    }
    let flush = cards.iter().all(|c| c.1 == cards[0].1);
    // Groups by count descending, then rank descending.
    let mut groups: Vec<(u8, u8)> = (0..13u8)
        .filter(|&r| counts[r as usize] > 0)
        .map(|r| (counts[r as usize], r))
        .collect();
    groups.sort_by(|a, b| b.cmp(a));
    let shape: Vec<u8> = groups.iter().map(|g| g.0).collect();
    let mut ranks = [0u8; 5];
    for (slot, g) in ranks.iter_mut().zip(&groups) {
        *slot = weight(g.1);
    }
    if shape == [5] {
        return Key {
            category: FIVE_ACES,
            ranks,
        };
    }
    if shape.len() == 5 {
        let desc: Vec<u8> = groups.iter().map(|g| g.1).collect();
        let top = if desc[0] - desc[4] == 4 {
            Some(weight(desc[0]))
        } else if desc == [12, 3, 2, 1, 0] {
            Some(if wheel_second {
                weight(11) + 1
            } else {
                weight(3)
            })
        } else {
            None
        };
        if let Some(top) = top {
            let category = match (flush, desc[0] == 12 && desc[1] == 11) {
                (true, true) => ROYAL_FLUSH,
                (true, false) => STRAIGHT_FLUSH,
                (false, _) => STRAIGHT,
            };
            return Key {
                category,
                ranks: [top, 0, 0, 0, 0],
            };
        }
        return Key {
            category: if flush { FLUSH } else { HIGH_CARD },
            ranks,
        };
    }
    let category = match shape.as_slice() {
        [4, 1] => QUADS,
        [3, 2] => FULL_HOUSE,
        [3, 1, 1] => TRIPS,
        [2, 2, 1] => TWO_PAIR,
        [2, 1, 1, 1] => PAIR,
        other => panic!("impossible shape {other:?}"),
    };
    Key { category, ranks }
}

fn rank_suit(card: Card) -> (u8, u8) {
    (
        card.rank().expect("natural card").index(),
        card.suit().expect("natural card").index(),
    )
}

/// Standard poker key of five natural cards.
pub fn poker5_key(hand: &[Card; 5]) -> Key {
    five_card_key(hand.map(rank_suit), false)
}

/// Pai Gow high-hand key by brute force: the joker is tried as every natural card not in the hand,
/// kept only where it makes a straight, flush or straight flush, and otherwise counts as an ace.
pub fn pai_gow_high_key(hand: &[Card; 5]) -> Key {
    let naturals: Vec<(u8, u8)> = hand
        .iter()
        .filter(|c| !c.is_joker())
        .map(|&c| rank_suit(c))
        .collect();
    if naturals.len() == 5 {
        return five_card_key(
            [
                naturals[0],
                naturals[1],
                naturals[2],
                naturals[3],
                naturals[4],
            ],
            true,
        );
    }
    // As an ace, in a suit of its own (it makes no flush this way).
    let mut best = five_card_key(
        [naturals[0], naturals[1], naturals[2], naturals[3], (12, 9)],
        true,
    );
    for index in 0..52u8 {
        let card = Card::from_index(index).expect("natural");
        if hand.contains(&card) {
            continue;
        }
        let key = five_card_key(
            [
                naturals[0],
                naturals[1],
                naturals[2],
                naturals[3],
                rank_suit(card),
            ],
            true,
        );
        if matches!(
            key.category,
            STRAIGHT | FLUSH | STRAIGHT_FLUSH | ROYAL_FLUSH
        ) && key > best
        {
            best = key;
        }
    }
    best
}

/// Pai Gow low-hand key: the joker is an ace; a pair or the two ranks, highest first.
pub fn pai_gow_low_key(hand: &[Card; 2]) -> Key {
    let rank = |c: Card| c.rank().map_or(12, |r| r.index());
    let (a, b) = (
        rank(hand[0]).max(rank(hand[1])),
        rank(hand[0]).min(rank(hand[1])),
    );
    if a == b {
        Key {
            category: PAIR,
            ranks: [weight(a), 0, 0, 0, 0],
        }
    } else {
        Key {
            category: HIGH_CARD,
            ranks: [weight(a), weight(b), 0, 0, 0],
        }
    }
}

/// Checks that `fast` orders the items exactly as `reference` does: sorted by reference key, equal
/// keys have equal fast values and increasing keys strictly increasing fast values.
pub fn assert_same_order<R: Ord + Copy + std::fmt::Debug, F: Ord + Copy + std::fmt::Debug>(
    mut pairs: Vec<(R, F, u64)>,
    describe: impl Fn(u64) -> String,
) {
    pairs.sort_unstable();
    for w in pairs.windows(2) {
        let (r0, f0, h0) = w[0];
        let (r1, f1, h1) = w[1];
        if r0 == r1 {
            assert_eq!(
                f0,
                f1,
                "equal hands valued differently: {} vs {}",
                describe(h0),
                describe(h1)
            );
        } else {
            assert!(
                f0 < f1,
                "order differs: {} ({r0:?}) < {} ({r1:?}) but fast {f0:?} >= {f1:?}",
                describe(h0),
                describe(h1)
            );
        }
    }
}
