//! The metrics endpoint scraped as Prometheus would: after a few hands settled, one voided and one
//! refused request, its text holds those counts, the ledger's histograms and the log's size. It
//! answers in the format the scraper's `Accept` asks for — OpenMetrics, or Prometheus's classic
//! text (also without a header) — and each is read by the parser of its format that nobody here
//! wrote (Python's `prometheus_client`), which finds the same hand counts in both.

use std::collections::BTreeMap;
use std::io::Write;

use crate::support::*;
use pitboss::proto;
use pitboss_testkit::server::Server;

/// The samples of a scrape: `name{labels}` → value. Every line that is not a descriptor must be a
/// sample with a number for its value.
fn samples(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        if ["# HELP ", "# TYPE ", "# UNIT "]
            .iter()
            .any(|d| line.starts_with(d))
            || line == "# EOF"
        {
            continue;
        }
        let (series, value) = line.rsplit_once(' ').expect(line);
        assert!(value.parse::<f64>().is_ok(), "not a value: {line}");
        let name_end = series.find('{').unwrap_or(series.len());
        assert!(
            series[..name_end]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "not a metric name: {line}"
        );
        out.insert(series.to_string(), value.to_string());
    }
    out
}

fn number(samples: &BTreeMap<String, String>, series: &str) -> u64 {
    samples
        .get(series)
        .unwrap_or_else(|| panic!("no {series}"))
        .parse()
        .unwrap_or_else(|_| panic!("{series} is not an integer"))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_metrics_endpoint_counts_hands_refusals_and_appends() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start_with(data.path(), &["--metrics", "127.0.0.1:0"]);
    let address = server
        .metrics
        .clone()
        .expect("the ready line names the endpoint");
    let mut c = clients(&server).await;
    for _ in 0..3 {
        c.play
            .play_hand(proto::PlayHandRequest {
                open: Some(open(
                    proto::Game::Nutz,
                    "T-M",
                    "p1",
                    vec![wager("box_nutz", 100)],
                )),
                decisions: vec![],
                follow_advice: true,
            })
            .await
            .unwrap();
    }
    let live = opened(
        &mut c,
        open(
            proto::Game::MississippiStud,
            "T-M",
            "p2",
            vec![wager("ante", 500)],
        ),
    )
    .await;
    void_for_malfunction(&mut c, &live.hand_id).await;
    let refused = c
        .play
        .open_hand(open(proto::Game::Nutz, "", "p", vec![]))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);

    // What Prometheus sends: OpenMetrics first.
    let (status, content_type, body) = pitboss_testkit::http::get_accepting(
        &address,
        "/metrics",
        "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;\
         q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
    );
    assert_eq!(status, 200);
    assert!(
        content_type.starts_with("application/openmetrics-text; version=1.0.0"),
        "{content_type}"
    );
    assert!(
        body.ends_with("# EOF\n"),
        "an OpenMetrics text ends with its marker"
    );
    read_by_python(&body, "openmetrics", 8);
    // What many agents send, and what a plain client gets: the classic text.
    for accept in [Some("text/plain; version=0.0.4"), None] {
        let (status, content_type, classic) = match accept {
            Some(accept) => pitboss_testkit::http::get_accepting(&address, "/metrics", accept),
            None => pitboss_testkit::http::get(&address, "/metrics"),
        };
        assert_eq!(status, 200);
        assert!(
            content_type.starts_with("text/plain; version=0.0.4"),
            "{accept:?}: {content_type}"
        );
        assert!(!classic.contains("# EOF") && !classic.contains("# UNIT"));
        assert!(classic.contains("# TYPE pitboss_hands_total counter"));
        read_by_python(&classic, "classic", 8);
        assert_eq!(
            samples(&classic)["pitboss_log_entries"],
            samples(&body)["pitboss_log_entries"]
        );
    }
    let s = samples(&body);
    let hands = |game: &str, event: &str| {
        number(
            &s,
            &format!("pitboss_hands_total{{game=\"{game}\",event=\"{event}\"}}"),
        )
    };
    assert_eq!(hands("nutz", "opened"), 3);
    assert_eq!(hands("nutz", "settled"), 3);
    assert_eq!(hands("mississippi_stud", "opened"), 1);
    assert_eq!(hands("mississippi_stud", "voided"), 1);
    assert_eq!(hands("mississippi_stud", "settled"), 0);
    assert_eq!(
        number(
            &s,
            "pitboss_refused_total{code=\"INVALID_ARGUMENT\",method=\"/pitboss.v1.Play/OpenHand\"}"
        ),
        1
    );
    // Five appends at least (three hands in one call each, an opening, a void); each was timed.
    let appends = number(&s, "pitboss_ledger_append_seconds_count");
    assert!(appends >= 5, "{appends}");
    assert_eq!(
        number(&s, "pitboss_ledger_append_seconds_bucket{le=\"+Inf\"}"),
        appends
    );
    assert!(number(&s, "pitboss_ledger_group_entries_count") >= 5);
    assert!(number(&s, "pitboss_ledger_wal_sync_seconds_count") >= 5);
    // On PostgreSQL the commit is the anchor (its time is the WAL sync's): no anchor file.
    let anchors = number(&s, "pitboss_ledger_anchor_sync_seconds_count");
    if pitboss_testkit::server::on_postgres() {
        assert_eq!(anchors, 0);
    } else {
        assert!(anchors >= 1, "{anchors}");
    }
    let (head, _) = head(&mut c).await;
    assert_eq!(
        number(&s, "pitboss_log_entries"),
        head.expect("entries") + 1,
        "the log's size is the head's sequence plus one"
    );
    for pool in ["lab", "audit", "strategy tables"] {
        number(&s, &format!("pitboss_work_running{{pool=\"{pool}\"}}"));
        number(&s, &format!("pitboss_work_waiting{{pool=\"{pool}\"}}"));
    }
    assert!(number(&s, "process_resident_memory_bytes") > 1 << 20);

    assert_eq!(pitboss_testkit::http::get(&address, "/").0, 404);
}

/// The parser of `format` (`openmetrics` or `classic`) of Python's `prometheus_client` (in the
/// venv `scripts/test` makes) reads the whole text, finds the families this server promises under
/// their names and types, and counts `hands` hand events in all.
fn read_by_python(text: &str, format: &str, hands: u64) {
    let python = pitboss_testkit::python();
    let script = r#"
import sys
if sys.argv[1] == "openmetrics":
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
else:
    from prometheus_client.parser import text_string_to_metric_families
families = {f.name: f for f in text_string_to_metric_families(sys.stdin.read())}
for name, kind in [("pitboss_hands", "counter"), ("pitboss_refused", "counter"),
                   ("pitboss_ledger_append_seconds", "histogram"),
                   ("pitboss_ledger_group_entries", "histogram"),
                   ("pitboss_log_entries", "gauge"), ("pitboss_work_running", "gauge"),
                   ("pitboss_strategy_builds_finished", "counter"),
                   ("pitboss_connections_closed", "counter"),
                   ("process_resident_memory_bytes", "gauge")]:
    assert families.get(name) is not None and families[name].type == kind, \
        (name, families.get(name) and families[name].type)
hands = sum(s.value for s in families["pitboss_hands"].samples if s.name == "pitboss_hands_total")
print(len(families), int(hands))
"#;
    let mut child = std::process::Command::new(&python)
        .args(["-c", script, format])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", python.display()));
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("the text to Python");
    let out = child.wait_with_output().expect("Python's answer");
    assert!(
        out.status.success(),
        "Python's {format} parser refused the text: {}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answer = String::from_utf8_lossy(&out.stdout);
    let (families, counted) = answer.trim().split_once(' ').expect("two counts");
    let families: usize = families.parse().expect("a count");
    assert!(families >= 12, "{format}: {families} families");
    assert_eq!(
        counted.parse::<u64>().expect("a count"),
        hands,
        "{format}: hand events"
    );
}
