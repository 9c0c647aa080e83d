//! The server's metrics in the OpenMetrics text format (1.0.0; `exposition.rs` makes Prometheus's
//! classic text of it for the scrapers that ask), written by `prometheus-client`, for a floor
//! manager's dashboard: hands opened, settled and voided by game, refused calls by code and
//! method, each listener's connections (kept, and closed by why), the ledger's append latency,
//! group commit sizes and sync times, the log's size, the work pools' running and waiting jobs,
//! the strategy-table builds and the process's resident memory.
//!
//! Owns the refusal counts (fed by the guard layer, `guard.rs`) and what each family says; reads
//! the floor's tally, the ledger's measurements and the pools when scraped (one `Collector`), and
//! leaves the text's syntax to the library. Serves nothing itself (`metrics_http.rs` does) and
//! never holds a lock while rendering anything but its own map. Every label set is bounded: games,
//! pools and codes are fixed lists, and methods are at most [`MAX_METHODS`] distinct paths of
//! gRPC's characters (a client calling made-up or odd paths is counted as `other`), so no label
//! value needs escaping (the library escapes none).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::{Arc, Mutex};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, NoLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Registry, Unit};

use pitboss_engine::game::GameId;
use pitboss_ledger::stats::HistogramSnapshot;

use super::advice::BuildCounts;
use super::connections::{ConnectionCounts, ConnectionStats};
use super::work::Pool;
use crate::floor::{Floor, Happened};

/// The most distinct methods counted by name; later ones count as `other`.
pub const MAX_METHODS: usize = 128;
/// The longest method path counted by name.
const MAX_METHOD_LEN: usize = 100;

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

/// (code, method) → calls answered with that code.
type Refused = Mutex<BTreeMap<(&'static str, String), u64>>;

/// The registry of one server.
pub struct Metrics {
    /// Holds one collector, [`Scrape`], which reads everything when scraped.
    registry: Registry,
    /// Shared with the collector: the guard layer counts here, the scrape reads.
    refused: Arc<Refused>,
    /// Shared with the collector: the listeners' connection counts.
    listeners: Arc<Listeners>,
    /// Shared with the collector: what the start prepared, loaded and computed.
    prepared: Arc<Prepared>,
}

/// What the server's start prepared (`warm.rs`): read from the data directory, and computed.
#[derive(Debug, Default)]
struct Prepared {
    loaded: std::sync::atomic::AtomicU64,
    computed: std::sync::atomic::AtomicU64,
}

/// Each listener's name and its connection counts (a handful: the server's own listeners).
type Listeners = Mutex<Vec<(&'static str, Arc<ConnectionStats>)>>;

/// What a scrape reads.
struct Scrape {
    floor: Arc<Floor>,
    pools: Vec<Pool>,
    /// The strategy tables' builds (`advice.rs`).
    builds: Arc<BuildCounts>,
    refused: Arc<Refused>,
    listeners: Arc<Listeners>,
    prepared: Arc<Prepared>,
    /// The log's side of witnessing, when the server has a witness policy.
    witnessing: Option<Arc<crate::witnessing::Witnessing>>,
    /// The tile directory kept current, when the server keeps one.
    tiling: Option<Arc<crate::tiling::Tiling>>,
    /// The mirror following another server's log, when this server is one.
    mirroring: Option<Arc<crate::mirroring::Mirroring>>,
    /// The floor's returns, when the server keeps them.
    returns: Option<Arc<crate::returns::Returns>>,
}

impl fmt::Debug for Scrape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scrape").finish_non_exhaustive()
    }
}

impl Metrics {
    /// Metrics of the server over `floor` with these work pools.
    pub fn new(
        floor: Arc<Floor>,
        pools: Vec<Pool>,
        builds: Arc<BuildCounts>,
        witnessing: Option<Arc<crate::witnessing::Witnessing>>,
        tiling: Option<Arc<crate::tiling::Tiling>>,
        mirroring: Option<Arc<crate::mirroring::Mirroring>>,
        returns: Option<Arc<crate::returns::Returns>>,
    ) -> Metrics {
        let refused = Arc::new(Mutex::new(BTreeMap::new()));
        let listeners = Arc::new(Mutex::new(Vec::new()));
        let prepared = Arc::new(Prepared::default());
        let mut registry = Registry::default();
        registry.register_collector(Box::new(Scrape {
            floor,
            pools,
            builds,
            refused: refused.clone(),
            listeners: listeners.clone(),
            prepared: prepared.clone(),
            witnessing,
            tiling,
            mirroring,
            returns,
        }));
        Metrics {
            registry,
            refused,
            listeners,
            prepared,
        }
    }

    /// Shows what the start prepared: tables and theories loaded from the data directory, and
    /// computed.
    pub fn prepared(&self, loaded: usize, computed: usize) {
        use std::sync::atomic::Ordering::Relaxed;
        self.prepared.loaded.store(loaded as u64, Relaxed);
        self.prepared.computed.store(computed as u64, Relaxed);
    }

    /// Shows the connection counts of the listener `name` (`grpc`, `metrics`, `tiles`, `witness`).
    pub fn listener(&self, name: &'static str, stats: Arc<ConnectionStats>) {
        if let Ok(mut listeners) = self.listeners.lock() {
            listeners.push((name, stats));
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
                .collect::<BTreeSet<_>>()
                .len()
        };
        let method = if known || (is_method_path(method) && distinct() < MAX_METHODS) {
            method.to_string()
        } else {
            "other".to_string()
        };
        *refused.entry((code, method)).or_insert(0) += 1;
    }

    /// The metrics now, as OpenMetrics text (ending with `# EOF`).
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(8 * 1024);
        // Writing to a String cannot fail, and the collector fails only when its writer does.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

/// Whether `method` may stand as a label value: a path of gRPC's name characters
/// (`/package.Service/Method`), short. Anything else is counted as `other`.
fn is_method_path(method: &str) -> bool {
    method.len() <= MAX_METHOD_LEN && is_plain(method)
}

/// Whether `value` needs no escaping as a label value: letters, digits, `/`, `.`, `_`, `-`.
fn is_plain(value: &str) -> bool {
    value
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'/' | b'.' | b'_' | b'-'))
}

/// `value` as a label value if it is plain, else `instead` (a witness's name in the operator's
/// policy may hold any character but whitespace).
fn plain_or<'a>(value: &'a str, instead: &'a str) -> &'a str {
    if is_plain(value) && value.len() <= MAX_METHOD_LEN {
        value
    } else {
        instead
    }
}

impl Collector for Scrape {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> fmt::Result {
        let tally = self.floor.tally();
        let hands = GameId::ALL.into_iter().flat_map(|game| {
            Happened::ALL.into_iter().map(move |happened| {
                let labels = [("game", game.id()), ("event", happened.name())];
                (labels, tally.count(game, happened))
            })
        });
        counters(
            &mut encoder,
            "pitboss_hands",
            "Hands by game and what happened to them, since the server started.",
            hands,
        )?;
        counters(
            &mut encoder,
            "pitboss_rounds_replayed",
            "Rounds replayed from the log to serve a command or a read (a round kept in memory, in \
             play or ended, is not), since the server started.",
            [([] as [(&str, &str); 0], self.floor.rounds_replayed())],
        )?;
        // Copied out so the lock is not held while writing.
        let refused: Vec<((&str, String), u64)> = self
            .refused
            .lock()
            .map(|r| r.iter().map(|(key, count)| (key.clone(), *count)).collect())
            .unwrap_or_default();
        counters(
            &mut encoder,
            "pitboss_refused",
            "Calls answered with an error, by gRPC code and method, since the server started.",
            refused.iter().map(|((code, method), count)| {
                ([("code", *code), ("method", method.as_str())], *count)
            }),
        )?;
        gauges(
            &mut encoder,
            "pitboss_prepared",
            "Strategy tables and theories the start prepared: read from the data directory \
             (loaded) or computed.",
            [
                ("loaded", &self.prepared.loaded),
                ("computed", &self.prepared.computed),
            ]
            .map(|(how, n)| ([("how", how)], n.load(std::sync::atomic::Ordering::Relaxed))),
        )?;
        let listeners: Vec<(&'static str, ConnectionCounts)> = self
            .listeners
            .lock()
            .map(|l| {
                l.iter()
                    .map(|(name, stats)| (*name, stats.counts()))
                    .collect()
            })
            .unwrap_or_default();
        gauges(
            &mut encoder,
            "pitboss_connections_open",
            "Connections each listener keeps now.",
            listeners
                .iter()
                .map(|(name, counts)| ([("listener", *name)], counts.open)),
        )?;
        counters(
            &mut encoder,
            "pitboss_connections_accepted",
            "Connections each listener kept, since the server started.",
            listeners
                .iter()
                .map(|(name, counts)| ([("listener", *name)], counts.accepted)),
        )?;
        counters(
            &mut encoder,
            "pitboss_connections_closed",
            "Connections the server closed, by listener and why (refused: every connection in the \
             way was busy; handshake, idle, request: past that deadline; evicted: a newcomer took \
             its place), since the server started.",
            listeners.iter().flat_map(|(name, counts)| {
                [
                    ("refused", counts.refused),
                    ("handshake", counts.handshake),
                    ("idle", counts.idle),
                    ("request", counts.request),
                    ("evicted", counts.evicted),
                ]
                .map(|(reason, count)| ([("listener", *name), ("reason", reason)], count))
            }),
        )?;
        let stats = self.floor.log().stats();
        let histograms = [
            (
                "pitboss_ledger_append",
                "From an append's call to its durable answer.",
                &stats.append_latency,
                Some(Unit::Seconds),
            ),
            (
                "pitboss_ledger_group_entries",
                "Entries per group commit.",
                &stats.group_entries,
                None,
            ),
            (
                "pitboss_ledger_wal_sync",
                "The synced write of one group (the write-ahead log's fsync).",
                &stats.wal_sync,
                Some(Unit::Seconds),
            ),
            (
                "pitboss_ledger_anchor_sync",
                "One anchor write with its fdatasync.",
                &stats.anchor_sync,
                Some(Unit::Seconds),
            ),
        ];
        for (name, help, histogram, unit) in histograms {
            let mut metric =
                encoder.encode_descriptor(name, help, unit.as_ref(), MetricType::Histogram)?;
            let (sum, count, buckets) = histogram_values(&histogram.snapshot(), unit.is_some());
            metric.encode_histogram::<NoLabelSet>(sum, count, &buckets, None)?;
        }
        encoder
            .encode_descriptor(
                "pitboss_log_entries",
                "Entries in the log (durable and acknowledged).",
                None,
                MetricType::Gauge,
            )?
            .encode_gauge(&gauge_value(self.floor.log().size()))?;
        gauges(
            &mut encoder,
            "pitboss_work_running",
            "Jobs running in each work pool (lab, strategy tables, audit).",
            self.pools
                .iter()
                .map(|pool| ([("pool", pool.name())], pool.load().0 as u64)),
        )?;
        gauges(
            &mut encoder,
            "pitboss_work_waiting",
            "Jobs waiting for a worker in each work pool.",
            self.pools
                .iter()
                .map(|pool| ([("pool", pool.name())], pool.load().1 as u64)),
        )?;
        for (name, help, count) in [
            (
                "pitboss_strategy_builds_started",
                "Strategy-table builds begun, by game, since the server started (one per configuration).",
                BuildCounts::started as fn(&BuildCounts, GameId) -> u64,
            ),
            (
                "pitboss_strategy_builds_finished",
                "Strategy-table builds completed, by game, since the server started.",
                BuildCounts::finished,
            ),
        ] {
            let per_game = GameId::ALL
                .into_iter()
                .map(|game| ([("game", game.id())], count(&self.builds, game)));
            counters(&mut encoder, name, help, per_game)?;
        }
        if let Some(witnessing) = &self.witnessing {
            let stats = witnessing.stats();
            let log_size = self.floor.log().size();
            gauges(
                &mut encoder,
                "pitboss_cosigned_behind_entries",
                "Entries the newest checkpoint cosigned to the witness policy's quorum is behind the log.",
                [([("log", "main")], log_size.saturating_sub(stats.cosigned_size))],
            )?;
            gauges(
                &mut encoder,
                "pitboss_witness_cosigned_size",
                "The tree size each witness last cosigned.",
                stats
                    .sizes
                    .iter()
                    .map(|(w, size)| ([("witness", plain_or(w, "unnamed"))], *size)),
            )?;
            counters(
                &mut encoder,
                "pitboss_witness_failures",
                "Checkpoints a witness did not cosign (down, refused, or an answer that does not verify).",
                stats
                    .failures
                    .iter()
                    .map(|(w, n)| ([("witness", plain_or(w, "unnamed"))], *n)),
            )?;
        }
        if let Some(returns) = &self.returns {
            returns_metrics(&mut encoder, returns, self.floor.log().size())?;
        }
        if let Some(tiling) = &self.tiling {
            gauges(
                &mut encoder,
                "pitboss_tiles_behind_entries",
                "Entries the checkpoint the tile directory publishes is behind the log.",
                [(
                    [("log", "main")],
                    self.floor.log().size().saturating_sub(tiling.published()),
                )],
            )?;
            counters(
                &mut encoder,
                "pitboss_tiles_failures",
                "Publications of the tile directory that failed (the server's log says why).",
                [([("log", "main")], tiling.failures())],
            )?;
        }
        if let Some(mirror) = &self.mirroring {
            let stats = mirror.stats();
            let size = self.floor.log().size();
            gauges(
                &mut encoder,
                "pitboss_mirror_behind_entries",
                "Entries the mirror's copy is behind the log, as the log's server last said.",
                [([("log", "main")], stats.upstream_size.saturating_sub(size))],
            )?;
            gauges(
                &mut encoder,
                "pitboss_mirror_held_size",
                "The tree size of the log's newest checkpoint the mirror holds.",
                [([("log", "main")], mirror.newest().map_or(0, |p| p.size))],
            )?;
            gauges(
                &mut encoder,
                "pitboss_mirror_stopped",
                "1 when the copy stopped following the log (a fork, an entry that does not verify).",
                [([("log", "main")], u64::from(stats.stopped.is_some()))],
            )?;
            counters(
                &mut encoder,
                "pitboss_mirror_failures",
                "Times the log's server could not be reached or read.",
                [([("log", "main")], stats.failures)],
            )?;
        }
        if let Some(bytes) = resident_bytes() {
            let mut metric = encoder.encode_descriptor(
                "process_resident_memory",
                "Resident memory size in bytes.",
                Some(&Unit::Bytes),
                MetricType::Gauge,
            )?;
            metric.encode_gauge(&bytes)?;
        }
        Ok(())
    }
}

/// One counter family: `name` (the text adds `_total`) with a sample per label set.
fn counters<L: EncodeLabelSet>(
    encoder: &mut DescriptorEncoder<'_>,
    name: &str,
    help: &str,
    samples: impl IntoIterator<Item = (L, u64)>,
) -> fmt::Result {
    let mut metric = encoder.encode_descriptor(name, help, None, MetricType::Counter)?;
    for (labels, value) in samples {
        metric
            .encode_family(&labels)?
            .encode_counter::<NoLabelSet, _, u64>(&value, None)?;
    }
    Ok(())
}

/// The returns' gauges: per game, table, configuration, bet group and window, the hands, the
/// actual and theoretical return, the z-score and whether it is out of its band; the alerts open;
/// how far the returns are behind the log. A table name that is not a plain label value is shown
/// as `other`; the configuration by its first 16 hexadecimal digits.
fn returns_metrics(
    encoder: &mut DescriptorEncoder<'_>,
    returns: &crate::returns::Returns,
    log_size: u64,
) -> fmt::Result {
    let rows = returns.rows(&crate::returns::Filter::default());
    let labels = |row: &crate::returns::Row| {
        let config = row.key.config_id.to_string();
        [
            ("game", row.key.game.id().to_string()),
            ("table", plain_or(&row.key.table, "other").to_string()),
            ("config", config[..16].to_string()),
            ("bet", plain_or(&row.key.bet, "other").to_string()),
            ("window", format!("{}d", row.window_days)),
        ]
    };
    gauges(
        encoder,
        "pitboss_returns_hands",
        "Hands settled in the window, net of voids.",
        rows.iter().map(|r| (labels(r), r.sums.net().0)),
    )?;
    let standing = |r: &crate::returns::Row| {
        let (_, staked, paid, _, squares) = r.sums.net();
        let actual = (staked > 0).then(|| paid as f64 / staked as f64);
        let theory = r.theory.as_ref().ok().copied();
        (
            actual,
            theory,
            theory.and_then(|t| t.standing(staked, paid, squares)),
        )
    };
    float_gauges(
        encoder,
        "pitboss_returns_actual_ratio",
        "Paid back per staked in the window, net of voids (stakes included).",
        rows.iter()
            .filter_map(|r| standing(r).0.map(|a| (labels(r), a))),
    )?;
    float_gauges(
        encoder,
        "pitboss_returns_theoretical_ratio",
        "The theoretical return of the bet group (the lab's exact PAR sheet, or its simulation).",
        rows.iter()
            .filter_map(|r| standing(r).1.map(|t| (labels(r), t.return_rate))),
    )?;
    float_gauges(
        encoder,
        "pitboss_returns_z",
        "Standard deviations between the actual and the theoretical return for these hands and stakes.",
        rows.iter()
            .filter_map(|r| standing(r).2.map(|s| (labels(r), s.z))),
    )?;
    gauges(
        encoder,
        "pitboss_returns_out_of_band",
        "1 when the window's actual return is outside its 99 % band.",
        rows.iter()
            .filter_map(|r| standing(r).2.map(|s| (labels(r), u64::from(s.out_of_band)))),
    )?;
    gauges(
        encoder,
        "pitboss_returns_open_alerts",
        "Returns alerts recorded and not yet investigated.",
        [([("log", "main")], returns.open_alerts() as u64)],
    )?;
    let (through, _, untracked, _, stopped) = returns.progress();
    gauges(
        encoder,
        "pitboss_returns_behind_entries",
        "Entries of the log the returns have not read yet.",
        [(
            [("log", "main")],
            returns_behind(log_size, through, stopped.is_some()),
        )],
    )?;
    counters(
        encoder,
        "pitboss_returns_untracked_hands",
        "Hands not counted because the server tracks its most keys already.",
        [([("log", "main")], untracked)],
    )
}

/// Entries behind; a stopped reading shows as the most a gauge holds.
fn returns_behind(log_size: u64, through: u64, stopped: bool) -> u64 {
    if stopped {
        u64::MAX
    } else {
        log_size.saturating_sub(through)
    }
}

/// One gauge family of floating-point values (statistics, never money).
fn float_gauges<L: EncodeLabelSet>(
    encoder: &mut DescriptorEncoder<'_>,
    name: &str,
    help: &str,
    samples: impl IntoIterator<Item = (L, f64)>,
) -> fmt::Result {
    let mut metric = encoder.encode_descriptor(name, help, None, MetricType::Gauge)?;
    for (labels, value) in samples {
        metric.encode_family(&labels)?.encode_gauge(&value)?;
    }
    Ok(())
}

/// One gauge family with a sample per label set.
fn gauges<L: EncodeLabelSet>(
    encoder: &mut DescriptorEncoder<'_>,
    name: &str,
    help: &str,
    samples: impl IntoIterator<Item = (L, u64)>,
) -> fmt::Result {
    let mut metric = encoder.encode_descriptor(name, help, None, MetricType::Gauge)?;
    for (labels, value) in samples {
        metric
            .encode_family(&labels)?
            .encode_gauge(&gauge_value(value))?;
    }
    Ok(())
}

/// A gauge's value as the library writes it (an `i64`): one beyond is shown as `i64::MAX`, not
/// dropped.
fn gauge_value(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// A histogram as the library takes it: (sum, count, per-bucket counts with `+Inf` last as
/// `f64::MAX`), in seconds when the histogram counts microseconds. Bounds and sums are shown, not
/// added: no money here.
fn histogram_values(h: &HistogramSnapshot, in_seconds: bool) -> (f64, u64, Vec<(f64, u64)>) {
    let unit = |v: u64| {
        if in_seconds {
            v as f64 / 1e6
        } else {
            v as f64
        }
    };
    let mut buckets = Vec::with_capacity(h.cumulative.len() + 1);
    let mut below = 0u64;
    for (bound, cumulative) in &h.cumulative {
        buckets.push((unit(*bound), cumulative.saturating_sub(below)));
        below = *cumulative;
    }
    buckets.push((f64::MAX, h.count.saturating_sub(below)));
    (unit(h.sum), h.count, buckets)
}

/// The process's resident memory, from `/proc/self/status` (Linux); `None` elsewhere.
fn resident_bytes() -> Option<i64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: i64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_labels_are_paths_of_grpc_characters() {
        assert!(is_method_path("/pitboss.v1.Play/OpenHand"));
        assert!(!is_method_path("/a\"b"));
        assert!(!is_method_path("/a\nb"));
        assert!(!is_method_path("/a b"));
        assert!(!is_method_path(&format!("/{}", "x".repeat(MAX_METHOD_LEN))));
    }

    #[test]
    fn histograms_are_given_per_bucket_with_inf_last() {
        let h = HistogramSnapshot {
            cumulative: vec![(100, 1), (1_000, 3)],
            count: 4,
            sum: 2_600,
        };
        let (sum, count, buckets) = histogram_values(&h, true);
        assert_eq!((sum, count), (0.0026, 4));
        assert_eq!(buckets, vec![(0.0001, 1), (0.001, 2), (f64::MAX, 1)]);
        let (sum, _, buckets) = histogram_values(&h, false);
        assert_eq!(sum, 2_600.0);
        assert_eq!(buckets[1], (1_000.0, 2));
    }

    #[tokio::test]
    async fn refusals_are_counted_by_code_and_method_with_bounded_methods() {
        let dir = tempfile::tempdir().unwrap();
        let log = pitboss_ledger::mem::MemoryLog::new();
        let ledger =
            Arc::new(pitboss_ledger::Ledger::open_memory(&log, dir.path(), 0, None).unwrap());
        let floor = Arc::new(
            Floor::open(ledger, Arc::new(crate::floor::system_clock))
                .await
                .unwrap(),
        );
        let metrics = Metrics::new(
            floor,
            Vec::new(),
            Default::default(),
            None,
            None,
            None,
            None,
        );
        metrics.answered("/pitboss.v1.Play/OpenHand", 3);
        metrics.answered("/pitboss.v1.Play/OpenHand", 3);
        metrics.answered("/pitboss.v1.Play/OpenHand", 0);
        metrics.answered("/pitboss.v1.Audit/ReplayHand", 5);
        metrics.answered("/x", 99);
        metrics.answered("/x\"}\n# EOF", 3);
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
        let methods: BTreeSet<&str> = text
            .lines()
            .filter(|l| l.starts_with("pitboss_refused_total{"))
            .filter_map(|l| l.split("method=\"").nth(1)?.split('"').next())
            .collect();
        assert_eq!(
            methods.len(),
            MAX_METHODS,
            "at most MAX_METHODS method labels, `other` among them once used"
        );
        assert!(
            text.contains("pitboss_refused_total{code=\"INVALID_ARGUMENT\",method=\"other\"} 1\n")
        );
        assert!(text.contains("pitboss_refused_total{code=\"UNIMPLEMENTED\",method=\"other\"}"));
        assert_eq!(text.matches("# EOF").count(), 1, "only the end marker");
        assert!(text.ends_with("# EOF\n"), "{text}");
        // The published configurations are in the log: it is not empty.
        assert!(!text.contains("\npitboss_log_entries 0\n"), "{text}");
    }
}
