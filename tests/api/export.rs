//! The analysts' export end to end: hands of every kind played on a server (settled, voided, still
//! in progress, on two tables), exported by `pitboss export` in each format, and read back by
//! readers nobody here wrote (pyarrow for Parquet, DuckDB for CSV and JSON Lines,
//! `tests/python/export_totals.py`): the counts and sums equal the server's own totals (recall,
//! replay, the hands' events). The filters (table, game) and the refusal to overwrite are checked
//! on the way.

use std::path::Path;

use crate::support::*;
use pitboss::proto;
use pitboss_testkit::server::Server;

/// The totals the Python readers find in an export.
fn read_back(dir: &Path, format: &str) -> serde_json::Value {
    python_reads("export_totals.py", dir, format)
}

#[tokio::test(flavor = "multi_thread")]
async fn exports_read_back_by_pyarrow_and_duckdb_equal_the_servers_totals() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
    let plays = [
        (
            proto::Game::Nutz,
            "T-A",
            vec![wager("box_nutz", 100), wager("box_one_pair", 200)],
        ),
        (proto::Game::Nutz, "T-A", vec![wager("box_one_pair", 300)]),
        (proto::Game::Nutz, "T-B", vec![wager("box_nutz", 500)]),
        (
            proto::Game::MississippiStud,
            "T-B",
            vec![wager("ante", 500), wager("bonus", 100)],
        ),
        (
            proto::Game::MississippiStud,
            "T-A",
            vec![wager("ante", 1000)],
        ),
        (
            proto::Game::CaribbeanStud,
            "T-A",
            vec![wager("ante", 500), wager("bonus", 100)],
        ),
        (
            proto::Game::FortunePaiGow,
            "T-B",
            vec![wager("main", 1000), wager("fortune_bonus", 100)],
        ),
    ];
    let mut ids = Vec::new();
    for (game, table, wagers) in plays {
        let played = c
            .play
            .play_hand(proto::PlayHandRequest {
                open: Some(open(game, table, "p1", wagers)),
                decisions: vec![],
                follow_advice: true,
            })
            .await
            .unwrap()
            .into_inner();
        ids.push(played.hand.unwrap().hand_id);
    }
    // One voided in play, one still in progress.
    let voided = opened(
        &mut c,
        open(
            proto::Game::MississippiStud,
            "T-B",
            "p2",
            vec![wager("ante", 700)],
        ),
    )
    .await;
    void_for_malfunction(&mut c, &voided.hand_id).await;
    let live = opened(
        &mut c,
        open(
            proto::Game::MississippiStud,
            "T-A",
            "p3",
            vec![wager("ante", 300)],
        ),
    )
    .await;
    ids.push(voided.hand_id.clone());
    ids.push(live.hand_id.clone());

    // The server's own totals: recall for the hands, replay for the bet lines, the events.
    let (mut hands, mut staked, mut paid, mut voided_count) = (0u64, 0u64, 0u64, 0u64);
    let mut by_table = std::collections::BTreeMap::<String, u64>::new();
    for table in ["T-A", "T-B"] {
        let listed = c
            .audit
            .list_hands(proto::ListHandsRequest {
                table: table.into(),
                page_size: 100,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert!(listed.next_page_token.is_empty());
        for h in &listed.hands {
            hands += 1;
            staked += h.total_staked;
            paid += h.total_paid;
            voided_count += u64::from(h.status == "voided");
        }
        by_table.insert(table.into(), listed.hands.len() as u64);
    }
    assert_eq!(hands, ids.len() as u64);
    let (mut settlement_lines, mut void_lines, mut events) = (0u64, 0u64, 0u64);
    for id in &ids {
        let report = replay(&mut c, id).await;
        settlement_lines += report.settlement.map_or(0, |s| s.lines.len() as u64);
        void_lines += report.void.map_or(0, |v| v.lines.len() as u64);
        let logged = c
            .audit
            .get_hand_events(proto::GetHandEventsRequest {
                hand_id: id.clone(),
                page_size: 1000,
                page_token: String::new(),
            })
            .await
            .unwrap()
            .into_inner();
        events += logged.events.len() as u64;
    }
    assert!(void_lines > 0 && settlement_lines > 0);
    let expected = serde_json::json!({
        "hands": hands,
        "staked": staked,
        "paid": paid,
        "net": paid as i64 - staked as i64,
        "voided": voided_count,
        "bets": settlement_lines + void_lines,
        "settlement_lines": settlement_lines,
        "void_lines": void_lines,
        "events": events,
        "hands_with_events": hands,
    });

    let out = tempfile::tempdir().unwrap();
    for format in ["parquet", "csv", "jsonl"] {
        let dir = out.path().join(format);
        let (ok, stdout, stderr) = export(
            &server,
            &[
                "--from",
                "2020-01-01",
                "--format",
                format,
                "--out",
                dir.to_str().unwrap(),
            ],
        );
        assert!(ok, "{format}: {stderr}");
        assert_eq!(stdout.lines().count(), 4, "a line per table: {stdout}");
        assert_eq!(read_back(&dir, format), expected, "{format}");
    }

    // Filters: one table, one game.
    let table_dir = out.path().join("table");
    let (ok, _, stderr) = export(
        &server,
        &[
            "--from",
            "0",
            "--table",
            "T-A",
            "--format",
            "parquet",
            "--out",
            table_dir.to_str().unwrap(),
        ],
    );
    assert!(ok, "{stderr}");
    assert_eq!(read_back(&table_dir, "parquet")["hands"], by_table["T-A"]);
    let game_dir = out.path().join("game");
    let (ok, _, stderr) = export(
        &server,
        &[
            "--from",
            "0",
            "--game",
            "nutz",
            "--format",
            "jsonl",
            "--out",
            game_dir.to_str().unwrap(),
        ],
    );
    assert!(ok, "{stderr}");
    assert_eq!(read_back(&game_dir, "jsonl")["hands"], 3);
    // A time range before every hand: empty tables, still readable.
    let empty_dir = out.path().join("empty");
    let (ok, _, stderr) = export(
        &server,
        &[
            "--from",
            "0",
            "--to",
            "1970-01-02",
            "--format",
            "parquet",
            "--out",
            empty_dir.to_str().unwrap(),
        ],
    );
    assert!(ok, "{stderr}");
    assert_eq!(read_back(&empty_dir, "parquet")["hands"], 0);

    // An analyst's files are never replaced.
    let csv = out.path().join("csv");
    let before = std::fs::read(csv.join("hands.csv")).unwrap();
    let (ok, _, stderr) = export(
        &server,
        &[
            "--from",
            "0",
            "--format",
            "csv",
            "--out",
            csv.to_str().unwrap(),
        ],
    );
    assert!(!ok, "a second export into the same files is refused");
    assert!(stderr.contains("hands.csv"), "{stderr}");
    assert_eq!(std::fs::read(csv.join("hands.csv")).unwrap(), before);
}
