//! The checked-in `SCHEMA.md` is exactly what the crate's schema renders.

use std::path::Path;

#[test]
fn schema_md_is_schema_markdown() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("SCHEMA.md");
    let generated = pitboss_export::schema_markdown();
    if std::env::var_os("PITBOSS_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write SCHEMA.md");
    }
    let checked_in = std::fs::read_to_string(&path).expect("SCHEMA.md is checked in");
    assert!(
        checked_in == generated,
        "{} differs from schema_markdown(); regenerate it with PITBOSS_BLESS=1 cargo test --release -p pitboss-export schema_md",
        path.display()
    );
}

#[test]
fn schema_markdown_lists_every_column_once_per_table() {
    let md = pitboss_export::schema_markdown();
    for table in pitboss_export::Table::ALL {
        assert!(
            md.contains(&format!("\n## `{table}`\n")),
            "no section for {table}"
        );
        for (name, _, _) in crate::support::columns(table) {
            assert!(
                md.contains(&format!("| `{name}` |")),
                "{table}.{name} not documented"
            );
        }
    }
    // 15 + 18 + 11 + 22 column rows.
    assert_eq!(md.lines().filter(|l| l.starts_with("| `")).count(), 66);
}
