//! The rows the server fills, one struct per table (hands, bets, events, places), and their values in column order.
//!
//! This module owns the row types and the one mapping from a row to its values in the order of
//! [`crate::schema`]'s columns. It must not format or encode anything: each writer turns the values
//! into its own format. Money is integer minor units (`u64`; the signed `net` is `i64`), times are
//! milliseconds since the Unix epoch, UTC (`u64`); there are no floats.

use serde::{Deserialize, Serialize};

use crate::schema::{ColumnType, Table};

/// One hand: a row of the `hands` table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandRow {
    /// The hand's id, as the log names it.
    pub hand_id: String,
    /// The game played (e.g. `roulette`).
    pub game: String,
    /// The table the hand was played at.
    pub table: String,
    /// The player who played the hand.
    pub player: String,
    /// When the hand was opened: milliseconds since the Unix epoch, UTC.
    pub opened_at_ms: u64,
    /// When the hand was closed (milliseconds since the Unix epoch, UTC); `None` while it is open.
    pub closed_at_ms: Option<u64>,
    /// The id of the game configuration the hand was dealt under.
    pub config_id: String,
    /// That configuration's name.
    pub config_name: String,
    /// That configuration's version.
    pub config_version: u32,
    /// The currency of every amount of the hand.
    pub currency: String,
    /// How many minor digits the currency has.
    pub minor_digits: u8,
    /// The hand's status when the log was exported.
    pub status: String,
    /// The total staked on the hand, in minor units.
    pub staked: u64,
    /// The total paid to the player (stakes returned included), in minor units.
    pub paid: u64,
    /// `paid` minus `staked`, in minor units: positive when the player won.
    pub net: i64,
}

/// One bet line settled or voided: a row of the `bets` table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BetRow {
    /// The hand the bet belongs to; `None` for a round's place (`round_id`, `place`).
    pub hand_id: Option<String>,
    /// The log sequence number of the settlement or void that decided this line.
    pub sequence: u64,
    /// `"settlement"` or `"void"`.
    pub kind: String,
    /// The bet line's index within the hand.
    pub line: u32,
    /// The bet, as the game names it.
    pub bet: String,
    /// The amount staked on the line, in minor units.
    pub stake: u64,
    /// What the line was judged on.
    pub judged_on: String,
    /// The rule of the paytable that decided the line.
    pub rule: String,
    /// The pay the rule gives: `"35 to 1"`, `"push"`, `"fixed 2500"`, or `""` when none.
    pub pay: String,
    /// x of a pay of `"x to 1"`; `None` for any other pay.
    pub odds: Option<u32>,
    /// The line's outcome.
    pub outcome: String,
    /// The payout before any cap, in minor units.
    pub uncapped: u64,
    /// The cap on the payout in minor units; `None` when no cap applies.
    pub cap: Option<u64>,
    /// The amount the cap cut from the payout, in minor units.
    pub cut: u64,
    /// The amount paid for the line (stake returned included), in minor units.
    pub payout: u64,
    /// The currency of the line's amounts.
    pub currency: String,
    /// The round whose place the bet belongs to; `None` for a hand's.
    pub round_id: Option<String>,
    /// The place, in its round; `None` for a hand's.
    pub place: Option<u32>,
}

/// One log entry: a row of the `events` table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventRow {
    /// The entry's sequence number in the log.
    pub sequence: u64,
    /// The stream the entry belongs to.
    pub stream: String,
    /// The entry's position within its stream.
    pub stream_position: u64,
    /// The entry's kind.
    pub kind: String,
    /// The hand the entry concerns; `None` when it concerns none.
    pub hand_id: Option<String>,
    /// When the entry was recorded: milliseconds since the Unix epoch, UTC.
    pub recorded_at_ms: u64,
    /// Who recorded the entry.
    pub actor: String,
    /// The entry's hash, lowercase hex.
    pub hash: String,
    /// The entry's signature, lowercase hex; empty when a later entry's signature seals it.
    pub signature: String,
    /// The id of the key that signed the entry.
    pub key_id: String,
    /// The round the entry concerns; `None` when it concerns none.
    pub round_id: Option<String>,
}

/// One place of a table's round: a row of the `places` table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaceRow {
    /// The round's id, as the log names it.
    pub round_id: String,
    /// The place's number in its round, from 0.
    pub place: u32,
    /// The place's seat, in a round of seats.
    pub seat: Option<u8>,
    /// The player who holds the place.
    pub player: String,
    /// The table the round was played at.
    pub table: String,
    /// The round's dealer.
    pub dealer: String,
    /// The game played.
    pub game: String,
    /// The round's shape (`seats`, `shared_hand`, `one_shake`).
    pub shape: String,
    /// The id of the configuration the round is played under.
    pub config_id: String,
    /// That configuration's name.
    pub config_name: String,
    /// That configuration's version.
    pub config_version: u32,
    /// The currency of every amount of the round.
    pub currency: String,
    /// How many minor digits the currency has.
    pub minor_digits: u8,
    /// When the round was opened: milliseconds since the Unix epoch, UTC.
    pub opened_at_ms: u64,
    /// When the round ended; `None` while it is in play.
    pub ended_at_ms: Option<u64>,
    /// When the place's bet was placed.
    pub bet_at_ms: u64,
    /// The round's phase when the log was exported.
    pub round_phase: String,
    /// The place's status when the log was exported.
    pub status: String,
    /// The total staked on the place, in minor units.
    pub staked: u64,
    /// The total paid for the place (stakes returned included), in minor units.
    pub paid: u64,
    /// `paid` minus `staked`, in minor units.
    pub net: i64,
    /// The rule that voided the place; `None` when it was not voided.
    pub void_kind: Option<String>,
}

/// One cell of a row, borrowed from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Value<'a> {
    Str(&'a str),
    U64(u64),
    I64(i64),
    U32(u32),
    U8(u8),
    Null,
}

impl Value<'_> {
    /// The column type the value belongs in; `None` for a null, which fits any nullable column.
    pub(crate) fn column_type(self) -> Option<ColumnType> {
        match self {
            Value::Str(_) => Some(ColumnType::Utf8),
            Value::U64(_) => Some(ColumnType::UInt64),
            Value::I64(_) => Some(ColumnType::Int64),
            Value::U32(_) => Some(ColumnType::UInt32),
            Value::U8(_) => Some(ColumnType::UInt8),
            Value::Null => None,
        }
    }
}

fn opt_u64(v: Option<u64>) -> Value<'static> {
    v.map_or(Value::Null, Value::U64)
}

/// A row of one of the tables: its values in the order of the table's columns.
pub(crate) trait Row {
    const TABLE: Table;
    fn values(&self) -> Vec<Value<'_>>;
}

impl Row for HandRow {
    const TABLE: Table = Table::Hands;
    fn values(&self) -> Vec<Value<'_>> {
        vec![
            Value::Str(&self.hand_id),
            Value::Str(&self.game),
            Value::Str(&self.table),
            Value::Str(&self.player),
            Value::U64(self.opened_at_ms),
            opt_u64(self.closed_at_ms),
            Value::Str(&self.config_id),
            Value::Str(&self.config_name),
            Value::U32(self.config_version),
            Value::Str(&self.currency),
            Value::U8(self.minor_digits),
            Value::Str(&self.status),
            Value::U64(self.staked),
            Value::U64(self.paid),
            Value::I64(self.net),
        ]
    }
}

impl Row for BetRow {
    const TABLE: Table = Table::Bets;
    fn values(&self) -> Vec<Value<'_>> {
        vec![
            self.hand_id.as_deref().map_or(Value::Null, Value::Str),
            Value::U64(self.sequence),
            Value::Str(&self.kind),
            Value::U32(self.line),
            Value::Str(&self.bet),
            Value::U64(self.stake),
            Value::Str(&self.judged_on),
            Value::Str(&self.rule),
            Value::Str(&self.pay),
            self.odds.map_or(Value::Null, Value::U32),
            Value::Str(&self.outcome),
            Value::U64(self.uncapped),
            opt_u64(self.cap),
            Value::U64(self.cut),
            Value::U64(self.payout),
            Value::Str(&self.currency),
            self.round_id.as_deref().map_or(Value::Null, Value::Str),
            self.place.map_or(Value::Null, Value::U32),
        ]
    }
}

impl Row for EventRow {
    const TABLE: Table = Table::Events;
    fn values(&self) -> Vec<Value<'_>> {
        vec![
            Value::U64(self.sequence),
            Value::Str(&self.stream),
            Value::U64(self.stream_position),
            Value::Str(&self.kind),
            self.hand_id.as_deref().map_or(Value::Null, Value::Str),
            Value::U64(self.recorded_at_ms),
            Value::Str(&self.actor),
            Value::Str(&self.hash),
            Value::Str(&self.signature),
            Value::Str(&self.key_id),
            self.round_id.as_deref().map_or(Value::Null, Value::Str),
        ]
    }
}

impl Row for PlaceRow {
    const TABLE: Table = Table::Places;
    fn values(&self) -> Vec<Value<'_>> {
        vec![
            Value::Str(&self.round_id),
            Value::U32(self.place),
            self.seat.map_or(Value::Null, Value::U8),
            Value::Str(&self.player),
            Value::Str(&self.table),
            Value::Str(&self.dealer),
            Value::Str(&self.game),
            Value::Str(&self.shape),
            Value::Str(&self.config_id),
            Value::Str(&self.config_name),
            Value::U32(self.config_version),
            Value::Str(&self.currency),
            Value::U8(self.minor_digits),
            Value::U64(self.opened_at_ms),
            opt_u64(self.ended_at_ms),
            Value::U64(self.bet_at_ms),
            Value::Str(&self.round_phase),
            Value::Str(&self.status),
            Value::U64(self.staked),
            Value::U64(self.paid),
            Value::I64(self.net),
            self.void_kind.as_deref().map_or(Value::Null, Value::Str),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The serde field names are the schema's column names, in the same order: the structs, the
    /// schema and the values can't drift apart without this failing.
    fn assert_matches_schema<R: Row + Serialize>(row: &R) {
        let table = R::TABLE;
        let json = serde_json::to_value(row).expect("row serializes");
        let object = json.as_object().expect("row is an object");
        let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
        let mut names: Vec<&str> = table.columns().iter().map(|c| c.name).collect();
        keys.sort_unstable();
        names.sort_unstable();
        assert_eq!(
            keys, names,
            "{table}: struct fields differ from the schema's columns"
        );

        let values = row.values();
        assert_eq!(values.len(), table.columns().len(), "{table}: value count");
        for (value, column) in values.iter().zip(table.columns()) {
            match value.column_type() {
                Some(ty) => assert_eq!(ty, column.ty, "{table}.{}: value type", column.name),
                None => assert!(
                    column.nullable,
                    "{table}.{}: null in a non-null column",
                    column.name
                ),
            }
            // The value at this position is the struct field of the column's name.
            let field = &object[column.name];
            let expected = match *value {
                Value::Str(s) => serde_json::Value::from(s),
                Value::U64(n) => serde_json::Value::from(n),
                Value::I64(n) => serde_json::Value::from(n),
                Value::U32(n) => serde_json::Value::from(n),
                Value::U8(n) => serde_json::Value::from(n),
                Value::Null => serde_json::Value::Null,
            };
            assert_eq!(
                field, &expected,
                "{table}.{}: value is another field's",
                column.name
            );
        }
    }

    #[test]
    fn rows_follow_the_schema() {
        // Distinct values everywhere, so a swapped pair of columns is caught.
        assert_matches_schema(&HandRow {
            hand_id: "h".into(),
            game: "g".into(),
            table: "t".into(),
            player: "p".into(),
            opened_at_ms: 1,
            closed_at_ms: Some(2),
            config_id: "ci".into(),
            config_name: "cn".into(),
            config_version: 3,
            currency: "EUR".into(),
            minor_digits: 4,
            status: "s".into(),
            staked: 5,
            paid: 6,
            net: -7,
        });
        for (odds, cap, hand, round, place) in [
            (Some(8), Some(9), Some("h"), None, None),
            (None, None, None, Some("r"), Some(16)),
        ] {
            assert_matches_schema(&BetRow {
                hand_id: hand.map(str::to_owned),
                sequence: 10,
                kind: "settlement".into(),
                line: 11,
                bet: "b".into(),
                stake: 12,
                judged_on: "j".into(),
                rule: "r".into(),
                pay: "8 to 1".into(),
                odds,
                outcome: "o".into(),
                uncapped: 13,
                cap,
                cut: 14,
                payout: 15,
                currency: "c".into(),
                round_id: round.map(str::to_owned),
                place,
            });
        }
        for (seat, ended, void) in [(Some(19), Some(20), Some("v")), (None, None, None)] {
            assert_matches_schema(&PlaceRow {
                round_id: "r".into(),
                place: 21,
                seat,
                player: "p".into(),
                table: "t".into(),
                dealer: "d".into(),
                game: "g".into(),
                shape: "sh".into(),
                config_id: "ci".into(),
                config_name: "cn".into(),
                config_version: 22,
                currency: "EUR".into(),
                minor_digits: 23,
                opened_at_ms: 24,
                ended_at_ms: ended,
                bet_at_ms: 25,
                round_phase: "ph".into(),
                status: "s".into(),
                staked: 26,
                paid: 27,
                net: -28,
                void_kind: void.map(str::to_owned),
            });
        }
        for (hand_id, round_id) in [(Some("h".to_owned()), None), (None, Some("r".to_owned()))] {
            assert_matches_schema(&EventRow {
                sequence: 16,
                stream: "s".into(),
                stream_position: 17,
                kind: "k".into(),
                hand_id,
                recorded_at_ms: 18,
                actor: "a".into(),
                hash: "ab".into(),
                signature: "cd".into(),
                key_id: "key".into(),
                round_id,
            });
        }
    }
}
