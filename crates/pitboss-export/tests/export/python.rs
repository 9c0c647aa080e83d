//! The export read by other people's readers: pyarrow opens the Parquet files, DuckDB the CSV and
//! JSON Lines files, and `check_export.py` reports row counts, exact sums, nulls and empty strings,
//! which must equal what was written.
//!
//! The Python is `$PITBOSS_PYTHON`, else `/work/main/.venv/bin/python3`, else `python3`, and needs
//! pyarrow and duckdb. Without them the test says it did not run, and fails instead when
//! `PITBOSS_REQUIRE_PYTHON=1`.

use std::path::{Path, PathBuf};
use std::process::Command;

use pitboss_export::{Format, Table};
use serde_json::{json, Value};

use crate::support::{columns, Rows};

fn python() -> Result<PathBuf, String> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os("PITBOSS_PYTHON") {
        candidates.push(p.into());
    } else {
        candidates.push("/work/main/.venv/bin/python3".into());
        candidates.push("python3".into());
    }
    let mut tried = Vec::new();
    for candidate in candidates {
        match Command::new(&candidate)
            .args(["-c", "import pyarrow, duckdb"])
            .output()
        {
            Ok(out) if out.status.success() => return Ok(candidate),
            Ok(out) => tried.push(format!(
                "{}: {}",
                candidate.display(),
                String::from_utf8_lossy(&out.stderr)
                    .trim()
                    .lines()
                    .last()
                    .unwrap_or("failed")
            )),
            Err(e) => tried.push(format!("{}: {e}", candidate.display())),
        }
    }
    Err(tried.join("; "))
}

/// What the script must report for one table, from the rows written.
fn expected(rows: &Rows, table: Table) -> Value {
    let (count, sum, nulls, empty) = match table {
        Table::Hands => (
            rows.hands.len(),
            rows.sum_paid(),
            rows.hands
                .iter()
                .filter(|h| h.closed_at_ms.is_none())
                .count(),
            rows.hands.iter().filter(|h| h.player.is_empty()).count(),
        ),
        Table::Bets => (
            rows.bets.len(),
            rows.sum_payout(),
            rows.bets.iter().filter(|b| b.cap.is_none()).count(),
            rows.bets.iter().filter(|b| b.bet.is_empty()).count(),
        ),
        Table::Events => (
            rows.events.len(),
            rows.events
                .iter()
                .map(|e| u128::from(e.recorded_at_ms))
                .sum(),
            rows.events.iter().filter(|e| e.hand_id.is_none()).count(),
            rows.events.iter().filter(|e| e.stream.is_empty()).count(),
        ),
        Table::Places => (
            rows.places.len(),
            rows.sum_place_paid(),
            rows.places.iter().filter(|p| p.seat.is_none()).count(),
            rows.places.iter().filter(|p| p.dealer.is_empty()).count(),
        ),
    };
    json!({ "rows": count, "sum": sum.to_string(), "nulls": nulls, "empty": empty })
}

#[test]
fn pyarrow_and_duckdb_read_what_was_written() {
    let python = match python() {
        Ok(p) => p,
        Err(why) => {
            let message =
                format!("pyarrow/duckdb check NOT RUN: no Python with pyarrow and duckdb ({why})");
            if std::env::var("PITBOSS_REQUIRE_PYTHON").as_deref() == Ok("1") {
                panic!("{message}; PITBOSS_REQUIRE_PYTHON=1 requires it (set PITBOSS_PYTHON)");
            }
            eprintln!("{message}");
            return;
        }
    };
    let rows = Rows::new(2_000, 5_000, 9_000);
    assert!(
        rows.sum_paid() > u128::from(u64::MAX),
        "the sums must overflow a u64 to test anything"
    );
    let root = tempfile::tempdir().expect("tempdir");
    let dirs: Vec<PathBuf> = Format::ALL
        .iter()
        .map(|f| root.path().join(f.name()))
        .collect();
    for (format, dir) in Format::ALL.iter().zip(&dirs) {
        rows.export(dir, *format);
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/export/check_export.py");
    let out = Command::new(&python)
        .arg(&script)
        .args(&dirs)
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "{} {} failed:\n{}",
        python.display(),
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("the script prints JSON");

    let arrow_type = |t: &arrow_schema::DataType| match t {
        arrow_schema::DataType::Utf8 => "string",
        arrow_schema::DataType::UInt64 => "uint64",
        arrow_schema::DataType::Int64 => "int64",
        arrow_schema::DataType::UInt32 => "uint32",
        arrow_schema::DataType::UInt8 => "uint8",
        other => panic!("unexpected type {other}"),
    };
    for table in Table::ALL {
        let name = table.name();
        let want = expected(&rows, table);
        let schema: Vec<Value> = columns(table)
            .iter()
            .map(|(n, t, nullable)| json!([n, arrow_type(t), nullable]))
            .collect();
        assert_eq!(
            report["schema"][name],
            Value::from(schema),
            "{name}: schema as pyarrow sees it"
        );
        assert_eq!(
            report["metadata"][name],
            json!({ "pitboss.schema": "pitboss-export/3", "pitboss.table": name }),
            "{name}: metadata as pyarrow sees it"
        );
        assert_eq!(report["parquet"][name], want, "{name}: pyarrow");
        let names: Vec<&str> = columns(table).iter().map(|(n, _, _)| *n).collect();
        for format in ["csv", "jsonl"] {
            let mut got = report[format][name].clone();
            let got_columns = got.as_object_mut().and_then(|o| o.remove("columns"));
            assert_eq!(
                got_columns,
                Some(json!(names)),
                "{name}: {format} columns as DuckDB reads them"
            );
            assert_eq!(got, want, "{name}: {format} through DuckDB");
        }
    }
    eprintln!("pyarrow/duckdb check ran with {}", python.display());
}
