//! A map of bounded size that drops its least recently used entry first: the one shape of every
//! in-memory cache of the server (hands in progress, strategy tables, PAR sheets), so that none
//! grows with what clients do. Not synchronised: callers hold it behind their own mutex, for one
//! map operation at a time.

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

/// At most `capacity` entries; `get` and `put` count as uses.
#[derive(Debug)]
pub(crate) struct Lru<K, V> {
    entries: HashMap<K, (V, u64)>,
    by_use: BTreeMap<u64, K>,
    tick: u64,
    capacity: usize,
}

impl<K: Hash + Eq + Clone, V> Lru<K, V> {
    /// An empty map of at most `capacity` entries (at least one).
    pub(crate) fn new(capacity: usize) -> Lru<K, V> {
        Lru {
            entries: HashMap::new(),
            by_use: BTreeMap::new(),
            tick: 0,
            capacity: capacity.max(1),
        }
    }

    fn touch(&mut self, key: &K) -> u64 {
        self.tick += 1;
        if let Some((_, last)) = self.entries.get_mut(key) {
            self.by_use.remove(last);
            *last = self.tick;
        }
        self.by_use.insert(self.tick, key.clone());
        self.tick
    }

    /// The entry, if kept.
    pub(crate) fn get(&mut self, key: &K) -> Option<&V> {
        if !self.entries.contains_key(key) {
            return None;
        }
        self.touch(key);
        self.entries.get(key).map(|(value, _)| value)
    }

    /// Keeps `value` under `key`, dropping the least recently used entries beyond the capacity.
    pub(crate) fn put(&mut self, key: K, value: V) {
        let tick = self.touch(&key);
        self.entries.insert(key, (value, tick));
        while self.entries.len() > self.capacity {
            let Some((_, oldest)) = self.by_use.pop_first() else {
                break;
            };
            self.entries.remove(&oldest);
        }
    }

    /// Forgets `key`.
    pub(crate) fn remove(&mut self, key: &K) {
        if let Some((_, last)) = self.entries.remove(key) {
            self.by_use.remove(&last);
        }
    }

    /// How many entries are kept.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_at_most_its_capacity_least_recently_used_out_first() {
        let mut lru = Lru::new(3);
        for key in ["a", "b", "c"] {
            lru.put(key, key.len());
        }
        assert!(lru.get(&"a").is_some(), "a used again: b is now the oldest");
        lru.put("d", 1);
        assert_eq!(lru.len(), 3);
        assert!(lru.get(&"b").is_none());
        assert!(lru.get(&"a").is_some() && lru.get(&"c").is_some() && lru.get(&"d").is_some());
        lru.put("a", 2);
        assert_eq!(lru.get(&"a"), Some(&2), "a second put replaces");
        for i in 0..1_000 {
            lru.put(Box::leak(format!("x{i}").into_boxed_str()), i);
        }
        assert_eq!(lru.len(), 3);
        assert_eq!(
            lru.by_use.len(),
            lru.entries.len(),
            "one use per entry kept"
        );
        lru.remove(&"x999");
        assert_eq!(lru.len(), 2);
        assert_eq!(lru.by_use.len(), 2);
    }
}
