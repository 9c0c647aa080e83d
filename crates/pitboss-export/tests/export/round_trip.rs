//! Every format written and read back, every value compared.

use pitboss_export::{BetRow, EventRow, Format, HandRow, PlaceRow, Table, Written};

use crate::read;
use crate::support::{assert_same, columns, Rows};

/// Hands in one batch, bets over several batches, events over two row groups (65,536 rows each).
fn rows() -> Rows {
    Rows::new(3_000, 9_000, 70_000)
}

fn assert_written(written: &Written, dir: &std::path::Path, format: Format, rows: &Rows) {
    assert_eq!(written.dir, dir);
    assert_eq!(written.format, format);
    let counts = [
        rows.hands.len(),
        rows.bets.len(),
        rows.events.len(),
        rows.places.len(),
    ];
    for ((t, table), count) in written.tables().into_iter().zip(Table::ALL).zip(counts) {
        assert_eq!(t.table, table);
        assert_eq!(t.path, dir.join(format!("{table}.{}", format.extension())));
        assert_eq!(t.rows, u64::try_from(count).expect("fits"), "{table} count");
    }
}

#[test]
fn parquet_round_trip_keeps_every_value_the_schema_and_the_metadata() {
    let rows = rows();
    let dir = tempfile::tempdir().expect("tempdir");
    let written = rows.export(dir.path(), Format::Parquet);
    assert_written(&written, dir.path(), Format::Parquet, &rows);

    let hands = read::parquet::<HandRow>(&written.hands.path);
    let bets = read::parquet::<BetRow>(&written.bets.path);
    let events = read::parquet::<EventRow>(&written.events.path);
    let places = read::parquet::<PlaceRow>(&written.places.path);
    assert_same(&hands.rows, &rows.hands, "hands");
    assert_same(&bets.rows, &rows.bets, "bets");
    assert_same(&events.rows, &rows.events, "events");
    assert_same(&places.rows, &rows.places, "places");
    assert_eq!(
        events.row_groups, 2,
        "70,000 rows make two row groups of at most 65,536"
    );
    assert_eq!(hands.row_groups, 1);

    for (table, fields, metadata) in [
        (Table::Hands, &hands.fields, &hands.metadata),
        (Table::Bets, &bets.fields, &bets.metadata),
        (Table::Events, &events.fields, &events.metadata),
        (Table::Places, &places.fields, &places.metadata),
    ] {
        let expected: Vec<(String, arrow_schema::DataType, bool)> = columns(table)
            .iter()
            .map(|(n, t, null)| ((*n).to_owned(), t.clone(), *null))
            .collect();
        assert_eq!(fields, &expected, "{table}: schema");
        let get = |key: &str| {
            metadata
                .iter()
                .find(|(k, _)| k == key)
                .and_then(|(_, v)| v.clone())
        };
        assert_eq!(
            get("pitboss.schema").as_deref(),
            Some("pitboss-export/3"),
            "{table}"
        );
        assert_eq!(
            get("pitboss.table").as_deref(),
            Some(table.name()),
            "{table}"
        );
    }
}

#[test]
fn csv_round_trip_keeps_every_value_and_tells_null_from_empty() {
    let rows = rows();
    let dir = tempfile::tempdir().expect("tempdir");
    let written = rows.export(dir.path(), Format::Csv);
    assert_written(&written, dir.path(), Format::Csv, &rows);

    let hands: Vec<HandRow> = read::csv(&written.hands.path, columns(Table::Hands));
    let bets: Vec<BetRow> = read::csv(&written.bets.path, columns(Table::Bets));
    let events: Vec<EventRow> = read::csv(&written.events.path, columns(Table::Events));
    let places: Vec<PlaceRow> = read::csv(&written.places.path, columns(Table::Places));
    assert_same(&hands, &rows.hands, "hands");
    assert_same(&bets, &rows.bets, "bets");
    assert_same(&events, &rows.events, "events");
    assert_same(&places, &rows.places, "places");
    // The fixtures do hold both: an empty string and a null in the same column.
    assert!(rows.events.iter().any(|e| e.hand_id.as_deref() == Some("")));
    assert!(rows.events.iter().any(|e| e.hand_id.is_none()));
}

#[test]
fn jsonl_round_trip_keeps_every_value_keys_in_column_order() {
    let rows = rows();
    let dir = tempfile::tempdir().expect("tempdir");
    let written = rows.export(dir.path(), Format::Jsonl);
    assert_written(&written, dir.path(), Format::Jsonl, &rows);

    let hands: Vec<HandRow> = read::jsonl(&written.hands.path, columns(Table::Hands));
    let bets: Vec<BetRow> = read::jsonl(&written.bets.path, columns(Table::Bets));
    let events: Vec<EventRow> = read::jsonl(&written.events.path, columns(Table::Events));
    let places: Vec<PlaceRow> = read::jsonl(&written.places.path, columns(Table::Places));
    assert_same(&hands, &rows.hands, "hands");
    assert_same(&bets, &rows.bets, "bets");
    assert_same(&events, &rows.events, "events");
    assert_same(&places, &rows.places, "places");

    // Integers are JSON numbers, written exactly, and a null is `null`.
    let text = std::fs::read_to_string(&written.hands.path).expect("read");
    let first = text.lines().next().expect("a line");
    assert!(first.contains("\"paid\":18446744073709551615,"), "{first}");
    assert!(first.contains("\"net\":-9223372036854775808}"), "{first}");
    assert!(first.contains("\"closed_at_ms\":null,"), "{first}");
}
