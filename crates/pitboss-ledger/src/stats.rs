//! What the writer measures about itself, for whoever watches the service (the server's metrics
//! endpoint): how many entries each group commit took, how long an append waited for its answer,
//! how long the synced WAL write and the anchor's `fdatasync` took.
//!
//! Owns plain counters (atomics, no lock, nothing allocated per observation); renders nothing and
//! knows no metrics format. Recording never fails and never blocks the writer.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A histogram of fixed buckets: the count of observations at most each bound, their sum and
/// their count. Bounds are in the unit the histogram documents (microseconds or entries).
#[derive(Debug)]
pub struct Histogram {
    bounds: &'static [u64],
    /// One counter per bound, plus one for observations above the last.
    buckets: Box<[AtomicU64]>,
    sum: AtomicU64,
    count: AtomicU64,
}

/// One reading of a [`Histogram`]: cumulative counts per bound, as Prometheus expects them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistogramSnapshot {
    /// (upper bound, observations at most that bound), bounds increasing.
    pub cumulative: Vec<(u64, u64)>,
    /// All observations (the `+Inf` bucket).
    pub count: u64,
    /// Their sum (saturating).
    pub sum: u64,
}

impl Histogram {
    /// An empty histogram over `bounds` (increasing).
    pub fn new(bounds: &'static [u64]) -> Histogram {
        Histogram {
            bounds,
            buckets: (0..=bounds.len()).map(|_| AtomicU64::new(0)).collect(),
            sum: AtomicU64::new(0),
            count: AtomicU64::new(0),
        }
    }

    /// Counts one observation of `value`.
    pub fn observe(&self, value: u64) {
        let slot = self.bounds.partition_point(|&bound| bound < value);
        if let Some(bucket) = self.buckets.get(slot) {
            bucket.fetch_add(1, Ordering::Relaxed);
        }
        // Saturating: a sum that would wrap stays at its largest value.
        let _ = self
            .sum
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |s| {
                Some(s.saturating_add(value))
            });
        self.count.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one duration, in microseconds.
    pub fn observe_duration(&self, elapsed: Duration) {
        self.observe(u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX));
    }

    /// The counts now. Read while others record, a bucket may run one observation ahead of the
    /// count; the snapshot is made monotone (no bucket above the total).
    pub fn snapshot(&self) -> HistogramSnapshot {
        let count = self.count.load(Ordering::Relaxed);
        let mut running = 0u64;
        let cumulative = self
            .bounds
            .iter()
            .zip(self.buckets.iter())
            .map(|(&bound, bucket)| {
                running = running.saturating_add(bucket.load(Ordering::Relaxed));
                (bound, running.min(count))
            })
            .collect();
        HistogramSnapshot {
            cumulative,
            count,
            sum: self.sum.load(Ordering::Relaxed),
        }
    }
}

/// Bounds of the latency histograms, in microseconds: 100 µs to 5 s.
pub const LATENCY_BOUNDS_US: &[u64] = &[
    100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
    1_000_000, 2_500_000, 5_000_000,
];

/// Bounds of the group size histogram, in entries.
pub const GROUP_BOUNDS: &[u64] = &[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1_024, 4_096, 16_384];

/// The writer's measurements.
#[derive(Debug)]
pub struct WriterStats {
    /// From an append's call to its answer (queued, built, signed, synced, anchored), in µs.
    pub append_latency: Histogram,
    /// Entries per group commit.
    pub group_entries: Histogram,
    /// The synced write of one group's batch (RocksDB's WAL `fsync`), in µs.
    pub wal_sync: Histogram,
    /// One anchor write with its `fdatasync`, in µs.
    pub anchor_sync: Histogram,
}

impl Default for WriterStats {
    fn default() -> WriterStats {
        WriterStats {
            append_latency: Histogram::new(LATENCY_BOUNDS_US),
            group_entries: Histogram::new(GROUP_BOUNDS),
            wal_sync: Histogram::new(LATENCY_BOUNDS_US),
            anchor_sync: Histogram::new(LATENCY_BOUNDS_US),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_land_in_the_first_bucket_whose_bound_holds_them() {
        static BOUNDS: &[u64] = &[1, 10, 100];
        let h = Histogram::new(BOUNDS);
        for v in [0, 1, 2, 10, 11, 100, 101, u64::MAX] {
            h.observe(v);
        }
        let s = h.snapshot();
        assert_eq!(s.cumulative, vec![(1, 2), (10, 4), (100, 6)]);
        assert_eq!(s.count, 8);
        assert_eq!(s.sum, u64::MAX, "the sum saturates instead of wrapping");
        h.observe_duration(Duration::from_millis(2));
        assert_eq!(h.snapshot().count, 9);
        assert_eq!(
            h.snapshot().cumulative[2],
            (100, 6),
            "2 000 µs is above 100"
        );
    }
}
