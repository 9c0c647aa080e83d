//! The one shape of every in-memory cache of the server (hands in progress, strategy tables, PAR
//! sheets): the `lru` crate's map of bounded size, dropping its least recently used entry first,
//! so that none grows with what clients do. Not synchronised: callers hold it behind their own
//! mutex, for one map operation at a time.

use std::hash::Hash;
use std::num::NonZeroUsize;

/// A least-recently-used map; `get` and `put` count as uses.
pub type Lru<K, V> = lru::LruCache<K, V>;

/// An empty map of at most `capacity` entries (at least one).
pub fn bounded<K: Hash + Eq, V>(capacity: usize) -> Lru<K, V> {
    lru::LruCache::new(NonZeroUsize::new(capacity).unwrap_or(NonZeroUsize::MIN))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bound this crate relies on: at most `capacity` entries, the least recently used out
    /// first, a use by `get` counting; a capacity of 0 keeps one.
    #[test]
    fn keeps_at_most_its_capacity_least_recently_used_out_first() {
        let mut lru = bounded(3);
        for key in ["a", "b", "c"] {
            lru.put(key, key.len());
        }
        assert!(lru.get("a").is_some());
        lru.put("d", 1);
        assert_eq!(lru.len(), 3);
        assert!(lru.get("b").is_none(), "b was the least recently used");
        assert!(lru.get("a").is_some() && lru.get("c").is_some() && lru.get("d").is_some());
        let mut one = bounded::<&str, u8>(0);
        one.put("x", 1);
        one.put("y", 2);
        assert_eq!((one.len(), one.get("y")), (1, Some(&2)));
    }
}
