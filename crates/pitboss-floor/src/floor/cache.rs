//! The hands in progress kept in memory, so that a decision does not read its hand back from the
//! log and fold it again. Bounded whatever clients do: at most [`CAPACITY`] hands, the least
//! recently used dropped first, and a hand leaves as soon as it ends (an ended hand is read from the
//! log when asked for, which is rare: recall, replay, a void of a settled hand).
//!
//! A cached hand is exactly what the log holds: the floor puts a hand only after its events are
//! durable. This module must not hold its mutex across anything but a map operation.

use std::sync::{Mutex, PoisonError};

use crate::lru::{bounded, Lru};
use pitboss_engine::games::{Hand, Status};

/// The most hands kept (a hand in progress takes about 2 KiB: 20 MiB in all).
pub const CAPACITY: usize = 10_000;

/// Hands in progress by id.
pub(super) struct HandCache {
    hands: Mutex<Lru<String, Hand>>,
}

impl HandCache {
    /// An empty cache of at most `capacity` hands.
    pub(super) fn new(capacity: usize) -> HandCache {
        HandCache {
            hands: Mutex::new(bounded(capacity)),
        }
    }

    fn hands(&self) -> std::sync::MutexGuard<'_, Lru<String, Hand>> {
        self.hands.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The hand, if kept.
    pub(super) fn get(&self, id: &str) -> Option<Hand> {
        self.hands().get(id).cloned()
    }

    /// Keeps the hand as it now stands in the log if it is in progress; forgets it otherwise.
    pub(super) fn put(&self, id: &str, hand: &Hand) {
        let mut hands = self.hands();
        if hand.status() == Status::InProgress {
            hands.put(id.to_string(), hand.clone());
        } else {
            hands.pop(id);
        }
    }

    /// How many hands are kept.
    pub(super) fn len(&self) -> usize {
        self.hands().len()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use pitboss_engine::config::GameConfig;
    use pitboss_engine::game::GameId;
    use pitboss_engine::games::{Command, OpenHand, Timestamp};
    use pitboss_engine::money::Money;
    use pitboss_engine::rng::Seed;
    use pitboss_engine::settlement::{BetId, Wager};

    fn open_hand(seed: u8) -> Hand {
        let hand = Hand::new(
            Seed::from_bytes([seed; 32]),
            Arc::new(GameConfig::default_for(GameId::CaribbeanStud)),
        );
        let events = hand
            .decide(&Command::Open(OpenHand {
                table: "T".into(),
                player: "P".into(),
                wagers: vec![Wager {
                    bet: BetId::Ante,
                    amount: Money(100),
                }],
                at: Timestamp(1),
                rebet_of: None,
            }))
            .unwrap();
        events.iter().fold(hand, |hand, e| hand.evolve(e).unwrap())
    }

    #[test]
    fn keeps_at_most_its_capacity_least_recently_used_out_first() {
        let cache = HandCache::new(3);
        for id in ["a", "b", "c"] {
            cache.put(id, &open_hand(1));
        }
        assert!(
            cache.get("a").is_some(),
            "a used again: b is now the oldest"
        );
        cache.put("d", &open_hand(2));
        assert_eq!(cache.len(), 3);
        assert!(cache.get("b").is_none());
        assert!(cache.get("a").is_some() && cache.get("c").is_some() && cache.get("d").is_some());
        for i in 0..1_000 {
            cache.put(&format!("x{i}"), &open_hand(3));
        }
        assert_eq!(cache.len(), 3);
    }

    #[test]
    fn an_ended_hand_leaves() {
        let cache = HandCache::new(10);
        let hand = open_hand(4);
        cache.put("h", &hand);
        assert_eq!(cache.len(), 1);
        let events = hand
            .decide(&Command::Act {
                action: pitboss_engine::games::Action::Fold,
                at: Timestamp(2),
            })
            .unwrap();
        let ended = events.iter().fold(hand, |h, e| h.evolve(e).unwrap());
        assert_ne!(ended.status(), Status::InProgress);
        cache.put("h", &ended);
        assert_eq!(cache.len(), 0);
        assert!(cache.get("h").is_none());
    }
}
