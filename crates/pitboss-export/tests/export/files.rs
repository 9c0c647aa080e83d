//! The life of an export's files: refusal to overwrite, the `.partial` names, empty exports.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use pitboss_export::{
    BetRow, EventRow, ExportError, ExportWriter, Format, HandRow, PlaceRow, Table,
};

use crate::read;
use crate::support::{assert_same, columns, Rows};

fn listing(dir: &Path) -> BTreeSet<String> {
    fs::read_dir(dir)
        .expect("read dir")
        .map(|e| {
            e.expect("entry")
                .file_name()
                .into_string()
                .expect("UTF-8 name")
        })
        .collect()
}

fn names(format: Format, suffix: &str) -> BTreeSet<String> {
    Table::ALL
        .iter()
        .map(|t| format!("{t}.{}{suffix}", format.extension()))
        .collect()
}

#[test]
fn files_are_partial_until_finish_then_take_their_final_names() {
    for format in Format::ALL {
        let root = tempfile::tempdir().expect("tempdir");
        // A directory that is not there yet, two levels deep: created.
        let dir = root.path().join("exports").join("2024-06-01");
        let rows = Rows::new(10, 20, 30);
        let mut writer = ExportWriter::create(&dir, format).expect("create");
        assert_eq!(
            listing(&dir),
            names(format, ".partial"),
            "{format}: right after create"
        );
        for h in &rows.hands {
            writer.hand(h).expect("hand");
        }
        for b in &rows.bets {
            writer.bet(b).expect("bet");
        }
        for e in &rows.events {
            writer.event(e).expect("event");
        }
        for p in &rows.places {
            writer.place(p).expect("place");
        }
        assert_eq!(
            listing(&dir),
            names(format, ".partial"),
            "{format}: before finish"
        );
        let written = writer.finish().expect("finish");
        assert_eq!(listing(&dir), names(format, ""), "{format}: after finish");
        assert_eq!(
            [
                written.hands.rows,
                written.bets.rows,
                written.events.rows,
                written.places.rows
            ],
            [10, 20, 30, 10],
            "{format}: counts"
        );
        for t in written.tables() {
            assert!(t.path.is_file(), "{}", t.path.display());
        }
    }
}

#[test]
fn dropping_an_unfinished_export_leaves_no_file() {
    for format in Format::ALL {
        let dir = tempfile::tempdir().expect("tempdir");
        let rows = Rows::new(5, 5, 5);
        {
            let mut writer = ExportWriter::create(dir.path(), format).expect("create");
            writer.hand(&rows.hands[0]).expect("hand");
            assert_eq!(listing(dir.path()).len(), 4);
        }
        assert!(
            listing(dir.path()).is_empty(),
            "{format}: {:?}",
            listing(dir.path())
        );
    }
}

#[test]
fn an_existing_file_is_never_overwritten() {
    for format in Format::ALL {
        let dir = tempfile::tempdir().expect("tempdir");
        let theirs = dir.path().join(format!("bets.{}", format.extension()));
        fs::write(&theirs, "an analyst's own file").expect("write");
        let err = match ExportWriter::create(dir.path(), format) {
            Ok(_) => panic!("{format}: create went ahead over {}", theirs.display()),
            Err(e) => e,
        };
        assert!(
            matches!(&err, ExportError::Exists { path } if path == &theirs),
            "{format}: {err:?}"
        );
        assert!(
            err.to_string().contains(&theirs.display().to_string()),
            "{err}"
        );
        assert_eq!(
            fs::read_to_string(&theirs).expect("read"),
            "an analyst's own file"
        );
        // Nothing else was created.
        assert_eq!(
            listing(dir.path()),
            BTreeSet::from([format!("bets.{}", format.extension())])
        );
    }

    // A finished export is not overwritten by the next one either; another format may go beside it.
    let dir = tempfile::tempdir().expect("tempdir");
    let rows = Rows::new(3, 3, 3);
    let first = rows.export(dir.path(), Format::Csv);
    let before = fs::read(&first.hands.path).expect("read");
    let err = ExportWriter::create(dir.path(), Format::Csv).expect_err("second export refused");
    assert!(
        matches!(&err, ExportError::Exists { path } if path == &first.hands.path),
        "{err:?}"
    );
    assert_eq!(fs::read(&first.hands.path).expect("read"), before);
    rows.export(dir.path(), Format::Jsonl);
    assert_eq!(listing(dir.path()).len(), 8);
}

#[test]
fn a_file_appearing_during_the_export_is_not_replaced() {
    let dir = tempfile::tempdir().expect("tempdir");
    let writer = ExportWriter::create(dir.path(), Format::Jsonl).expect("create");
    let theirs = dir.path().join("events.jsonl");
    fs::write(&theirs, "arrived meanwhile").expect("write");
    let err = writer.finish().expect_err("finish refused");
    assert!(
        matches!(&err, ExportError::Exists { path } if path == &theirs),
        "{err:?}"
    );
    assert_eq!(
        fs::read_to_string(&theirs).expect("read"),
        "arrived meanwhile"
    );
    // The files published before the refusal are taken back; the temporary ones removed.
    assert_eq!(
        listing(dir.path()),
        BTreeSet::from(["events.jsonl".to_owned()])
    );
}

#[test]
fn a_leftover_partial_file_is_refused_and_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let leftover = dir.path().join("events.parquet.partial");
    fs::write(&leftover, "half an export").expect("write");
    let err = ExportWriter::create(dir.path(), Format::Parquet).expect_err("refused");
    assert!(
        matches!(&err, ExportError::PartialExists { path } if path == &leftover),
        "{err:?}"
    );
    assert!(err.to_string().contains("events.parquet.partial"), "{err}");
    assert_eq!(
        fs::read_to_string(&leftover).expect("read"),
        "half an export"
    );
    // The temporary files this attempt had opened are gone again.
    assert_eq!(
        listing(dir.path()),
        BTreeSet::from(["events.parquet.partial".to_owned()])
    );
}

#[test]
fn an_empty_export_still_has_its_schema_and_headers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rows = Rows::new(0, 0, 0);
    for format in Format::ALL {
        let written = rows.export(dir.path(), format);
        assert_eq!(
            [
                written.hands.rows,
                written.bets.rows,
                written.events.rows,
                written.places.rows
            ],
            [0, 0, 0, 0]
        );
    }
    for table in Table::ALL {
        let cols = columns(table);
        // Parquet: a valid file with the full schema and no rows.
        let path = dir.path().join(format!("{table}.parquet"));
        let (fields, row_count) = match table {
            Table::Hands => {
                let f = read::parquet::<HandRow>(&path);
                (f.fields, f.rows.len())
            }
            Table::Bets => {
                let f = read::parquet::<BetRow>(&path);
                (f.fields, f.rows.len())
            }
            Table::Events => {
                let f = read::parquet::<EventRow>(&path);
                (f.fields, f.rows.len())
            }
            Table::Places => {
                let f = read::parquet::<PlaceRow>(&path);
                (f.fields, f.rows.len())
            }
        };
        assert_eq!(row_count, 0);
        let expected: Vec<_> = cols
            .iter()
            .map(|(n, t, null)| ((*n).to_owned(), t.clone(), *null))
            .collect();
        assert_eq!(fields, expected, "{table}: empty parquet schema");
        // CSV: exactly the header row.
        let header: Vec<&str> = cols.iter().map(|(n, _, _)| *n).collect();
        let csv = fs::read_to_string(dir.path().join(format!("{table}.csv"))).expect("read");
        assert_eq!(
            csv,
            format!("{}\r\n", header.join(",")),
            "{table}: empty CSV"
        );
        // JSON Lines: no line at all.
        let jsonl = fs::read_to_string(dir.path().join(format!("{table}.jsonl"))).expect("read");
        assert_eq!(jsonl, "", "{table}: empty JSON Lines");
    }
    assert_same::<HandRow>(
        &read::csv(&dir.path().join("hands.csv"), columns(Table::Hands)),
        &[],
        "hands",
    );
}
