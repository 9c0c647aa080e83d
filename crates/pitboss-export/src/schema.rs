//! The one description of the three tables' columns: name, type, nullability and meaning.
//!
//! This module owns the column lists. Every format is built from them: the Arrow schema of the
//! Parquet files, the CSV header and the JSON Lines keys, so the three formats have the same columns
//! in the same order; [`schema_markdown`] renders the same lists for the documentation (the
//! checked-in `SCHEMA.md` is compared with it by a test). It must not know how a column is
//! encoded in any one format, nor where a value comes from.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema};

/// The key of the Parquet file metadata entry naming this export's schema version.
pub(crate) const SCHEMA_KEY: &str = "pitboss.schema";
/// The value of [`SCHEMA_KEY`]: bumped whenever a column is added, removed, renamed or retyped.
pub(crate) const SCHEMA_VERSION: &str = "pitboss-export/3";
/// The key of the Parquet file metadata entry naming the file's table (`hands`, `bets`, `events`,
/// `places`).
pub(crate) const TABLE_KEY: &str = "pitboss.table";

/// One of the export's four tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Table {
    /// One row per hand.
    Hands,
    /// One row per settled or voided bet line.
    Bets,
    /// One row per log entry.
    Events,
    /// One row per place of a table's round.
    Places,
}

impl Table {
    /// The four tables, in the order the export writes and documents them.
    pub const ALL: [Table; 4] = [Table::Hands, Table::Bets, Table::Events, Table::Places];

    /// The table's name: its file's stem and the `pitboss.table` metadata value.
    pub fn name(self) -> &'static str {
        match self {
            Table::Hands => "hands",
            Table::Bets => "bets",
            Table::Events => "events",
            Table::Places => "places",
        }
    }

    /// One sentence on what a row of the table is.
    pub(crate) fn description(self) -> &'static str {
        match self {
            Table::Hands => "One row per hand: who played it where, under which configuration, and what it staked and paid.",
            Table::Bets => "One row per bet line settled or voided: the rule that judged it, the pay, any cap, and the payout.",
            Table::Events => "One row per log entry of the exported hands and rounds: its place in the log and in its stream, who recorded it, and its hash and signature.",
            Table::Places => "One row per place of a table's round (docs/rounds.md): its player and seat, the round's table, dealer and configuration, and what the place staked and paid.",
        }
    }

    /// The table's columns, in file order.
    pub(crate) fn columns(self) -> &'static [Column] {
        match self {
            Table::Hands => HANDS,
            Table::Bets => BETS,
            Table::Events => EVENTS,
            Table::Places => PLACES,
        }
    }

    /// The table's Arrow schema, with the `pitboss.schema` and `pitboss.table` metadata.
    pub(crate) fn arrow_schema(self) -> Arc<Schema> {
        let fields: Vec<Field> = self
            .columns()
            .iter()
            .map(|c| Field::new(c.name, c.ty.arrow(), c.nullable))
            .collect();
        let metadata: HashMap<String, String> = [
            (SCHEMA_KEY.to_owned(), SCHEMA_VERSION.to_owned()),
            (TABLE_KEY.to_owned(), self.name().to_owned()),
        ]
        .into_iter()
        .collect();
        Arc::new(Schema::new_with_metadata(fields, metadata))
    }
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A column's type. Integers only: money in minor units, times in milliseconds; no floats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ColumnType {
    Utf8,
    UInt64,
    Int64,
    UInt32,
    UInt8,
}

impl ColumnType {
    pub(crate) fn arrow(self) -> DataType {
        match self {
            ColumnType::Utf8 => DataType::Utf8,
            ColumnType::UInt64 => DataType::UInt64,
            ColumnType::Int64 => DataType::Int64,
            ColumnType::UInt32 => DataType::UInt32,
            ColumnType::UInt8 => DataType::UInt8,
        }
    }

    /// The Arrow name of the type, as the documentation shows it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            ColumnType::Utf8 => "Utf8",
            ColumnType::UInt64 => "UInt64",
            ColumnType::Int64 => "Int64",
            ColumnType::UInt32 => "UInt32",
            ColumnType::UInt8 => "UInt8",
        }
    }
}

/// One column of a table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Column {
    pub(crate) name: &'static str,
    pub(crate) ty: ColumnType,
    pub(crate) nullable: bool,
    pub(crate) meaning: &'static str,
}

const fn col(name: &'static str, ty: ColumnType, meaning: &'static str) -> Column {
    Column {
        name,
        ty,
        nullable: false,
        meaning,
    }
}

const fn opt(name: &'static str, ty: ColumnType, meaning: &'static str) -> Column {
    Column {
        name,
        ty,
        nullable: true,
        meaning,
    }
}

use ColumnType::{Int64, UInt32, UInt64, UInt8, Utf8};

const HANDS: &[Column] = &[
    col("hand_id", Utf8, "The hand's id, as the log names it."),
    col("game", Utf8, "The game: `mississippi_stud`, `fortune_pai_gow`, `nutz` or `caribbean_stud`."),
    col("table", Utf8, "The table the hand was played at."),
    col("player", Utf8, "The player who played the hand."),
    col(
        "opened_at_ms",
        UInt64,
        "When the hand was opened: milliseconds since the Unix epoch, UTC.",
    ),
    opt(
        "closed_at_ms",
        UInt64,
        "When the hand's last entry was recorded, once it has ended (milliseconds since the Unix epoch, UTC); null while it is in progress.",
    ),
    col(
        "config_id",
        Utf8,
        "The id of the game configuration the hand was dealt under.",
    ),
    col("config_name", Utf8, "That configuration's name."),
    col("config_version", UInt32, "That configuration's version."),
    col(
        "currency",
        Utf8,
        "The currency of every amount of the hand (ISO 4217 code or house code).",
    ),
    col(
        "minor_digits",
        UInt8,
        "How many minor digits the currency has: an amount of 1234 with 2 digits is 12.34.",
    ),
    col(
        "status",
        Utf8,
        "The hand's status when exported: `in_progress`, `settled` or `voided`.",
    ),
    col(
        "staked",
        UInt64,
        "The total staked on the hand, in minor units.",
    ),
    col(
        "paid",
        UInt64,
        "What the hand pays in all, after every cap (stakes returned included; a void's refunds), in minor units: the figure recall and replay give.",
    ),
    col(
        "net",
        Int64,
        "`paid` minus `staked`, in minor units: positive when the player won.",
    ),
];

const BETS: &[Column] = &[
    opt(
        "hand_id",
        Utf8,
        "The hand the bet belongs to; null for a line of a round's place (`round_id`, `place`).",
    ),
    col(
        "sequence",
        UInt64,
        "The log sequence number of the settlement or void that decided this line.",
    ),
    col("kind", Utf8, "`settlement` or `void`."),
    col("line", UInt32, "The line's index within its settlement or void, from 0."),
    col(
        "bet",
        Utf8,
        "The bet, as the game names it (e.g. `ante`, `street_3`, `box_nutz`).",
    ),
    col(
        "stake",
        UInt64,
        "The amount staked on the line, in minor units.",
    ),
    col(
        "judged_on",
        Utf8,
        "The hand it was judged on, in words and cards; empty for a void line.",
    ),
    col(
        "rule",
        Utf8,
        "The paytable row or rule that decided it (e.g. `royal_flush`, `dealer_nine_high`); for a void line, the void's kind (`malfunction`, …).",
    ),
    col(
        "pay",
        Utf8,
        "The pay the rule gives: `35 to 1`, `push`, `fixed 2500`, or empty when none.",
    ),
    opt(
        "odds",
        UInt32,
        "x of a pay of `x to 1`; null for any other pay.",
    ),
    col(
        "outcome",
        Utf8,
        "`win`, `push`, `lose`, or `void` for a void line.",
    ),
    col(
        "uncapped",
        UInt64,
        "The payout before any cap, in minor units.",
    ),
    opt(
        "cap",
        UInt64,
        "The cap on the payout in minor units; null when no cap applies.",
    ),
    col(
        "cut",
        UInt64,
        "The amount the cap cut from the payout, in minor units.",
    ),
    col(
        "payout",
        UInt64,
        "What the line pays after its own cap (stake returned included; for a void line, what it pays now), in minor units. The per-game cap is not spread over lines: a hand's `paid` is its total.",
    ),
    col("currency", Utf8, "The currency of the line's amounts."),
    opt(
        "round_id",
        Utf8,
        "The round whose place the line belongs to; null for a hand's line.",
    ),
    opt(
        "place",
        UInt32,
        "The place, in its round (the `places` table's `place`); null for a hand's line.",
    ),
];

const EVENTS: &[Column] = &[
    col(
        "sequence",
        UInt64,
        "The entry's sequence number in the log.",
    ),
    col(
        "stream",
        Utf8,
        "The stream the entry belongs to (`hand/<id>`, `round/<id>`).",
    ),
    col(
        "stream_position",
        UInt64,
        "The entry's position within its stream.",
    ),
    col(
        "kind",
        Utf8,
        "The event: a hand's `opened`, `cards_shown`, `acted`, `dice_shaken`, `hand_set`, `settled`, `voided`, `completed` or `seed_revealed`; a round's `opened`, `bet_placed`, `betting_closed`, `beacon_arrived`, `beacon_late`, `dealt`, `revealed`, `decided`, `shaken`, `window_closed`, `dealer_set`, `dealer_changed`, `settled`, `round_voided`, `place_voided` or `seed_revealed`.",
    ),
    opt(
        "hand_id",
        Utf8,
        "The hand the entry concerns; null when it concerns none (a round's entry).",
    ),
    col(
        "recorded_at_ms",
        UInt64,
        "When the entry was recorded: milliseconds since the Unix epoch, UTC.",
    ),
    col("actor", Utf8, "Who caused it: the authenticated principal in the signed envelope."),
    col("hash", Utf8, "The entry's hash, lowercase hex."),
    col("signature", Utf8, "The entry's signature, lowercase hex; empty when the next signed entry seals it (the log signs each group of entries once, by its last)."),
    col("key_id", Utf8, "The id of the key that signed the entry (hex)."),
    opt(
        "round_id",
        Utf8,
        "The round the entry concerns; null when it concerns none (a hand's entry).",
    ),
];

const PLACES: &[Column] = &[
    col("round_id", Utf8, "The round's id, as the log names it."),
    col(
        "place",
        UInt32,
        "The place's number in its round, from 0 in the order bets were placed.",
    ),
    opt(
        "seat",
        UInt8,
        "The place's seat, in a round of seats; null in a shared hand or a shake.",
    ),
    col("player", Utf8, "The player who holds the place."),
    col("table", Utf8, "The table the round was played at."),
    col(
        "dealer",
        Utf8,
        "The round's dealer at its end: the opening's, or the last who took over (a `dealer_changed` event).",
    ),
    col("game", Utf8, "The game: `mississippi_stud`, `fortune_pai_gow`, `nutz` or `caribbean_stud`."),
    col("shape", Utf8, "The round's shape: `seats`, `shared_hand` or `one_shake`."),
    col(
        "config_id",
        Utf8,
        "The id of the game configuration every place of the round is played under.",
    ),
    col("config_name", Utf8, "That configuration's name."),
    col("config_version", UInt32, "That configuration's version."),
    col(
        "currency",
        Utf8,
        "The currency of every amount of the round (ISO 4217 code or house code).",
    ),
    col(
        "minor_digits",
        UInt8,
        "How many minor digits the currency has: an amount of 1234 with 2 digits is 12.34.",
    ),
    col(
        "opened_at_ms",
        UInt64,
        "When the round was opened: milliseconds since the Unix epoch, UTC.",
    ),
    opt(
        "ended_at_ms",
        UInt64,
        "When the round ended, at its showdown or its void (milliseconds since the Unix epoch, UTC); null while it is in play.",
    ),
    col(
        "bet_at_ms",
        UInt64,
        "When the place's bet was placed: milliseconds since the Unix epoch, UTC.",
    ),
    col(
        "round_phase",
        Utf8,
        "The round's phase when exported: `betting`, `playing`, `ended` or `voided`.",
    ),
    col(
        "status",
        Utf8,
        "The place's status when exported: `in_progress` (until the showdown announces its settlement), `settled` or `voided`.",
    ),
    col(
        "staked",
        UInt64,
        "The total staked on the place (its bet and its decisions), in minor units.",
    ),
    col(
        "paid",
        UInt64,
        "What the place pays in all, after every cap (stakes returned included; a void's refunds), in minor units.",
    ),
    col(
        "net",
        Int64,
        "`paid` minus `staked`, in minor units: positive when the player won.",
    ),
    opt(
        "void_kind",
        Utf8,
        "The rule that voided the place (`malfunction`, `incomplete`, `conduct_forfeit`); null when it was not voided.",
    ),
];

/// The export's schema as Markdown: a section per table with a table of its columns (name, type,
/// nullability, meaning), in file order. The crate's checked-in `SCHEMA.md` is this text.
pub fn schema_markdown() -> String {
    let mut out = String::new();
    out.push_str("# The export's tables\n\n");
    out.push_str(
        "Generated from `crates/pitboss-export/src/schema.rs` by `pitboss_export::schema_markdown()`; \
         a test keeps this file equal to it.\n\n",
    );
    out.push_str(&format!(
        "Every format (Parquet, CSV, JSON Lines) has these columns in this order. Money is in integer \
         minor units, times are milliseconds since the Unix epoch (UTC); there are no floats. \
         Parquet files carry the metadata `{SCHEMA_KEY}` = `{SCHEMA_VERSION}` and `{TABLE_KEY}` = \
         the table's name. In CSV (RFC 4180, CRLF line ends) a null is an empty field and an empty \
         string is `\"\"` (DuckDB keeps the two apart with `allow_quoted_nulls = false`); in JSON \
         Lines a null is `null` and every integer is a JSON number written exactly (a reader holding numbers as doubles loses \
         precision above 2^53).\n"
    ));
    for table in Table::ALL {
        out.push_str(&format!(
            "\n## `{}`\n\n{}\n\n",
            table.name(),
            table.description()
        ));
        out.push_str("| column | type | nullable | meaning |\n");
        out.push_str("| --- | --- | --- | --- |\n");
        for c in table.columns() {
            out.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                c.name,
                c.ty.name(),
                if c.nullable { "yes" } else { "no" },
                c.meaning.replace('|', "\\|"),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn column_names_are_unique_snake_case_and_documented() {
        for table in Table::ALL {
            let mut seen = HashSet::new();
            for c in table.columns() {
                assert!(seen.insert(c.name), "{table}: column {} twice", c.name);
                assert!(
                    c.name
                        .chars()
                        .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_'),
                    "{table}: column {} is not snake_case",
                    c.name
                );
                assert!(
                    c.meaning.ends_with('.'),
                    "{table}.{}: meaning is not a sentence",
                    c.name
                );
            }
        }
    }

    #[test]
    fn arrow_schema_follows_the_columns() {
        for table in Table::ALL {
            let schema = table.arrow_schema();
            assert_eq!(schema.fields().len(), table.columns().len());
            for (field, c) in schema.fields().iter().zip(table.columns()) {
                assert_eq!(field.name(), c.name);
                assert_eq!(field.data_type(), &c.ty.arrow());
                assert_eq!(field.is_nullable(), c.nullable);
            }
            assert_eq!(
                schema.metadata().get(SCHEMA_KEY).map(String::as_str),
                Some(SCHEMA_VERSION)
            );
            assert_eq!(
                schema.metadata().get(TABLE_KEY).map(String::as_str),
                Some(table.name())
            );
        }
    }

    #[test]
    fn nullable_columns_are_exactly_the_options() {
        let nullable: Vec<String> = Table::ALL
            .iter()
            .flat_map(|t| {
                t.columns()
                    .iter()
                    .filter(|c| c.nullable)
                    .map(move |c| format!("{t}.{}", c.name))
            })
            .collect();
        assert_eq!(
            nullable,
            [
                "hands.closed_at_ms",
                "bets.hand_id",
                "bets.odds",
                "bets.cap",
                "bets.round_id",
                "bets.place",
                "events.hand_id",
                "events.round_id",
                "places.seat",
                "places.ended_at_ms",
                "places.void_kind"
            ]
        );
    }
}
