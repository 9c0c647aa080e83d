//! The server's metrics in the Prometheus text format (version 0.0.4), for a floor manager's
//! dashboard: hands opened, settled and voided by game, refused calls by code and method, the
//! ledger's append latency, group commit sizes and sync times, the log's size, the work pools'
//! running and waiting jobs, and the process's resident memory.
//!
//! Owns the refusal counts (fed by the guard layer, `guard.rs`) and the rendering; reads the
//! floor's tally, the ledger's measurements and the pools when scraped. Serves nothing itself
//! (`metrics_http.rs` does) and never holds a lock while rendering anything but its own map.
//! Every label set is bounded: games, pools and codes are fixed lists, and methods are at most
//! [`MAX_METHODS`] distinct paths (a client calling made-up paths is counted as `other`).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::{Arc, Mutex};

use pitboss_engine::game::GameId;
use pitboss_ledger::stats::HistogramSnapshot;

use super::advice::BuildCounts;
use super::work::Pool;
use crate::floor::{Floor, Happened};

/// The most distinct methods counted by name; later ones count as `other`.
pub const MAX_METHODS: usize = 128;

/// The gRPC status codes' names, by number.
const CODES: [&str; 17] = [
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
];

/// The registry of one server.
pub struct Metrics {
    floor: Arc<Floor>,
    pools: Vec<Pool>,
    /// The strategy tables' builds (`advice.rs`).
    builds: Arc<BuildCounts>,
    /// (code, method) → calls answered with that code.
    refused: Mutex<BTreeMap<(&'static str, String), u64>>,
}

impl Metrics {
    /// Metrics of the server over `floor` with these work pools.
    pub fn new(floor: Arc<Floor>, pools: Vec<Pool>, builds: Arc<BuildCounts>) -> Metrics {
        Metrics {
            floor,
            pools,
            builds,
            refused: Mutex::new(BTreeMap::new()),
        }
    }

    /// Counts a call to `method` (its path) answered with the gRPC status `code` (its number, as
    /// in the `grpc-status` header); 0 (OK) counts nothing.
    pub fn answered(&self, method: &str, code: u32) {
        if code == 0 {
            return;
        }
        let code = usize::try_from(code)
            .ok()
            .and_then(|c| CODES.get(c))
            .copied()
            .unwrap_or("UNKNOWN");
        let Ok(mut refused) = self.refused.lock() else {
            return;
        };
        let known = refused.keys().any(|(_, m)| m == method);
        let distinct = || {
            refused
                .keys()
                .map(|(_, m)| m.as_str())
                .collect::<std::collections::BTreeSet<_>>()
                .len()
        };
        let method = if known || (method.len() <= 100 && distinct() < MAX_METHODS) {
            method.to_string()
        } else {
            "other".to_string()
        };
        *refused.entry((code, method)).or_insert(0) += 1;
    }

    /// The metrics now, as Prometheus text.
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(8 * 1024);
        let tally = self.floor.tally();
        family(
            &mut out,
            "pitboss_hands_total",
            "counter",
            "Hands by game and what happened to them, since the server started.",
        );
        for game in GameId::ALL {
            for happened in Happened::ALL {
                let labels = [("game", game.id()), ("event", happened.name())];
                sample(
                    &mut out,
                    "pitboss_hands_total",
                    &labels,
                    tally.count(game, happened),
                );
            }
        }
        family(
            &mut out,
            "pitboss_refused_total",
            "counter",
            "Calls answered with an error, by gRPC code and method, since the server started.",
        );
        if let Ok(refused) = self.refused.lock() {
            for ((code, method), count) in refused.iter() {
                let labels = [("code", *code), ("method", method.as_str())];
                sample(&mut out, "pitboss_refused_total", &labels, *count);
            }
        }
        let stats = self.floor.writer_stats();
        let histograms = [
            (
                "pitboss_ledger_append_seconds",
                "From an append's call to its durable answer.",
                &stats.append_latency,
                true,
            ),
            (
                "pitboss_ledger_group_entries",
                "Entries per group commit.",
                &stats.group_entries,
                false,
            ),
            (
                "pitboss_ledger_wal_sync_seconds",
                "The synced write of one group (the write-ahead log's fsync).",
                &stats.wal_sync,
                true,
            ),
            (
                "pitboss_ledger_anchor_sync_seconds",
                "One anchor write with its fdatasync.",
                &stats.anchor_sync,
                true,
            ),
        ];
        for (name, help, histogram, in_seconds) in histograms {
            family(&mut out, name, "histogram", help);
            histogram_samples(&mut out, name, &histogram.snapshot(), in_seconds);
        }
        family(
            &mut out,
            "pitboss_log_entries",
            "gauge",
            "Entries in the log (durable and acknowledged).",
        );
        sample(&mut out, "pitboss_log_entries", &[], self.floor.log_size());
        family(
            &mut out,
            "pitboss_work_running",
            "gauge",
            "Jobs running in each work pool (lab, strategy tables, audit).",
        );
        for pool in &self.pools {
            let labels = [("pool", pool.name())];
            sample(
                &mut out,
                "pitboss_work_running",
                &labels,
                pool.load().0 as u64,
            );
        }
        family(
            &mut out,
            "pitboss_work_waiting",
            "gauge",
            "Jobs waiting for a worker in each work pool.",
        );
        for pool in &self.pools {
            let labels = [("pool", pool.name())];
            sample(
                &mut out,
                "pitboss_work_waiting",
                &labels,
                pool.load().1 as u64,
            );
        }
        for (name, help, count) in [
            (
                "pitboss_strategy_builds_started_total",
                "Strategy-table builds begun, by game, since the server started (one per configuration).",
                BuildCounts::started as fn(&BuildCounts, GameId) -> u64,
            ),
            (
                "pitboss_strategy_builds_finished_total",
                "Strategy-table builds completed, by game, since the server started.",
                BuildCounts::finished,
            ),
        ] {
            family(&mut out, name, "counter", help);
            for game in GameId::ALL {
                sample(&mut out, name, &[("game", game.id())], count(&self.builds, game));
            }
        }
        if let Some(bytes) = resident_bytes() {
            family(
                &mut out,
                "process_resident_memory_bytes",
                "gauge",
                "Resident memory size in bytes.",
            );
            sample(&mut out, "process_resident_memory_bytes", &[], bytes);
        }
        out
    }
}

fn family(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

fn sample(out: &mut String, name: &str, labels: &[(&str, &str)], value: u64) {
    out.push_str(name);
    if !labels.is_empty() {
        out.push('{');
        for (i, (key, value)) in labels.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{key}=\"{}\"", escape_label(value));
        }
        out.push('}');
    }
    let _ = writeln!(out, " {value}");
}

/// A histogram's `_bucket`, `_sum` and `_count` lines; bounds and sum in seconds when the
/// histogram counts microseconds.
fn histogram_samples(out: &mut String, name: &str, h: &HistogramSnapshot, in_seconds: bool) {
    let unit = |v: u64| {
        if in_seconds {
            seconds(v)
        } else {
            v.to_string()
        }
    };
    for (bound, count) in &h.cumulative {
        let _ = writeln!(out, "{name}_bucket{{le=\"{}\"}} {count}", unit(*bound));
    }
    let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {}", h.count);
    let _ = writeln!(out, "{name}_sum {}", unit(h.sum));
    let _ = writeln!(out, "{name}_count {}", h.count);
}

/// Microseconds as decimal seconds, exactly (no float): 2500 → "0.0025".
fn seconds(micros: u64) -> String {
    let whole = micros / 1_000_000;
    let fraction = micros % 1_000_000;
    if fraction == 0 {
        return whole.to_string();
    }
    let digits = format!("{fraction:06}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

/// A label value as the text format wants it: backslash, quote and newline escaped.
fn escape_label(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// The process's resident memory, from `/proc/self/status` (Linux); `None` elsewhere.
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_exact_decimals() {
        assert_eq!(seconds(0), "0");
        assert_eq!(seconds(100), "0.0001");
        assert_eq!(seconds(2_500), "0.0025");
        assert_eq!(seconds(1_000_000), "1");
        assert_eq!(seconds(5_250_000), "5.25");
        assert_eq!(seconds(u64::MAX), "18446744073709.551615");
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape_label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }

    #[test]
    fn histogram_lines_are_cumulative_with_inf() {
        let mut out = String::new();
        let h = HistogramSnapshot {
            cumulative: vec![(100, 1), (1_000, 3)],
            count: 4,
            sum: 2_600,
        };
        histogram_samples(&mut out, "x_seconds", &h, true);
        assert_eq!(
            out,
            "x_seconds_bucket{le=\"0.0001\"} 1\nx_seconds_bucket{le=\"0.001\"} 3\n\
             x_seconds_bucket{le=\"+Inf\"} 4\nx_seconds_sum 0.0026\nx_seconds_count 4\n"
        );
    }

    #[tokio::test]
    async fn refusals_are_counted_by_code_and_method_with_bounded_methods() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Arc::new(pitboss_ledger::Ledger::open(dir.path(), 0).unwrap());
        let floor = Arc::new(
            Floor::open(ledger, Arc::new(crate::floor::system_clock))
                .await
                .unwrap(),
        );
        let metrics = Metrics::new(floor, Vec::new(), Default::default());
        metrics.answered("/pitboss.v1.Play/OpenHand", 3);
        metrics.answered("/pitboss.v1.Play/OpenHand", 3);
        metrics.answered("/pitboss.v1.Play/OpenHand", 0);
        metrics.answered("/pitboss.v1.Audit/ReplayHand", 5);
        metrics.answered("/x", 99);
        for i in 0..(2 * MAX_METHODS) {
            metrics.answered(&format!("/made.up/M{i}"), 12);
        }
        let text = metrics.render();
        assert!(text.contains(
            "pitboss_refused_total{code=\"INVALID_ARGUMENT\",method=\"/pitboss.v1.Play/OpenHand\"} 2\n"
        ));
        assert!(text.contains(
            "pitboss_refused_total{code=\"NOT_FOUND\",method=\"/pitboss.v1.Audit/ReplayHand\"} 1\n"
        ));
        assert!(text.contains("pitboss_refused_total{code=\"UNKNOWN\",method=\"/x\"} 1\n"));
        let lines = text
            .lines()
            .filter(|l| l.starts_with("pitboss_refused_total{"))
            .count();
        assert_eq!(
            lines,
            MAX_METHODS + 1,
            "at most MAX_METHODS methods, then `other`"
        );
        assert!(text.contains("method=\"other\"}"));
        // The published configurations are in the log: it is not empty.
        assert!(!text.contains("\npitboss_log_entries 0\n"), "{text}");
    }
}
