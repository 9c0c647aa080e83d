//! Rows to export, hostile ones included, and the tables' expected columns written out again here
//! (not taken from the crate) so that the tests check the crate's schema rather than repeat it.

use arrow_schema::DataType;
use pitboss_export::{BetRow, EventRow, ExportWriter, Format, HandRow, PlaceRow, Table, Written};
use std::path::Path;

/// Strings a careless writer gets wrong.
pub const HOSTILE: &[&str] = &[
    "plain",
    "",
    "a,b",
    "say \"hi\"",
    "\"",
    "\"\"",
    ",",
    "line\nbreak",
    "carriage\rreturn",
    "crlf\r\nend\r\n",
    "é ü ß 漢字 🂡 ♠",
    " leading and trailing ",
    "tab\there",
    "back\\slash",
    "NULL",
    "null",
    "\u{0}nul",
    "=1+1",
];

pub fn s(i: usize) -> String {
    HOSTILE[i % HOSTILE.len()].to_owned()
}

/// Column by column: name, Arrow type, nullable.
pub type Columns = &'static [(&'static str, DataType, bool)];

pub const HANDS: Columns = &[
    ("hand_id", DataType::Utf8, false),
    ("game", DataType::Utf8, false),
    ("table", DataType::Utf8, false),
    ("player", DataType::Utf8, false),
    ("opened_at_ms", DataType::UInt64, false),
    ("closed_at_ms", DataType::UInt64, true),
    ("config_id", DataType::Utf8, false),
    ("config_name", DataType::Utf8, false),
    ("config_version", DataType::UInt32, false),
    ("currency", DataType::Utf8, false),
    ("minor_digits", DataType::UInt8, false),
    ("status", DataType::Utf8, false),
    ("staked", DataType::UInt64, false),
    ("paid", DataType::UInt64, false),
    ("net", DataType::Int64, false),
];

pub const BETS: Columns = &[
    ("hand_id", DataType::Utf8, true),
    ("sequence", DataType::UInt64, false),
    ("kind", DataType::Utf8, false),
    ("line", DataType::UInt32, false),
    ("bet", DataType::Utf8, false),
    ("stake", DataType::UInt64, false),
    ("judged_on", DataType::Utf8, false),
    ("rule", DataType::Utf8, false),
    ("pay", DataType::Utf8, false),
    ("odds", DataType::UInt32, true),
    ("outcome", DataType::Utf8, false),
    ("uncapped", DataType::UInt64, false),
    ("cap", DataType::UInt64, true),
    ("cut", DataType::UInt64, false),
    ("payout", DataType::UInt64, false),
    ("currency", DataType::Utf8, false),
    ("round_id", DataType::Utf8, true),
    ("place", DataType::UInt32, true),
];

pub const EVENTS: Columns = &[
    ("sequence", DataType::UInt64, false),
    ("stream", DataType::Utf8, false),
    ("stream_position", DataType::UInt64, false),
    ("kind", DataType::Utf8, false),
    ("hand_id", DataType::Utf8, true),
    ("recorded_at_ms", DataType::UInt64, false),
    ("actor", DataType::Utf8, false),
    ("hash", DataType::Utf8, false),
    ("signature", DataType::Utf8, false),
    ("key_id", DataType::Utf8, false),
    ("round_id", DataType::Utf8, true),
];

pub const PLACES: Columns = &[
    ("round_id", DataType::Utf8, false),
    ("place", DataType::UInt32, false),
    ("seat", DataType::UInt8, true),
    ("player", DataType::Utf8, false),
    ("table", DataType::Utf8, false),
    ("dealer", DataType::Utf8, false),
    ("game", DataType::Utf8, false),
    ("shape", DataType::Utf8, false),
    ("config_id", DataType::Utf8, false),
    ("config_name", DataType::Utf8, false),
    ("config_version", DataType::UInt32, false),
    ("currency", DataType::Utf8, false),
    ("minor_digits", DataType::UInt8, false),
    ("opened_at_ms", DataType::UInt64, false),
    ("ended_at_ms", DataType::UInt64, true),
    ("bet_at_ms", DataType::UInt64, false),
    ("round_phase", DataType::Utf8, false),
    ("status", DataType::Utf8, false),
    ("staked", DataType::UInt64, false),
    ("paid", DataType::UInt64, false),
    ("net", DataType::Int64, false),
    ("void_kind", DataType::Utf8, true),
];

pub fn columns(table: Table) -> Columns {
    match table {
        Table::Hands => HANDS,
        Table::Bets => BETS,
        Table::Events => EVENTS,
        Table::Places => PLACES,
    }
}

/// Picks among extreme and ordinary amounts.
fn amount(i: usize) -> u64 {
    match i % 7 {
        0 => u64::MAX,
        1 => 0,
        2 => 1,
        3 => u64::MAX - 1,
        _ => u64::try_from(i).expect("small") * 1_000 + 7,
    }
}

fn small(i: usize) -> u64 {
    u64::try_from(i).expect("fits")
}

pub fn hand(i: usize) -> HandRow {
    HandRow {
        hand_id: format!("hand-{i}-{}", s(i)),
        game: s(i + 1),
        table: s(i + 2),
        player: s(i + 3),
        opened_at_ms: 1_700_000_000_000 + small(i),
        closed_at_ms: if i.is_multiple_of(5) {
            None
        } else {
            Some(if i.is_multiple_of(11) {
                u64::MAX
            } else {
                1_700_000_000_500 + small(i)
            })
        },
        config_id: s(i + 4),
        config_name: s(i + 5),
        config_version: match i % 3 {
            0 => u32::MAX,
            1 => 0,
            _ => u32::try_from(i).expect("fits"),
        },
        currency: if i.is_multiple_of(2) {
            "EUR".into()
        } else {
            s(i + 6)
        },
        minor_digits: u8::try_from(i % 256).expect("fits"),
        status: s(i + 7),
        staked: amount(i + 1),
        paid: amount(i),
        net: match i % 4 {
            0 => i64::MIN,
            1 => i64::MAX,
            2 => 0,
            _ => -i64::try_from(i).expect("fits"),
        },
    }
}

pub fn bet(i: usize) -> BetRow {
    // Every fifth line a round's place's: no hand, a round and a place.
    let of_round = i % 5 == 4;
    BetRow {
        hand_id: (!of_round).then(|| format!("hand-{}", i / 3)),
        round_id: of_round.then(|| format!("round-{}", i / 5)),
        place: of_round.then(|| u32::try_from(i % 7).expect("fits")),
        sequence: if i.is_multiple_of(13) {
            u64::MAX
        } else {
            small(i) * 2
        },
        kind: if i.is_multiple_of(9) {
            "void".into()
        } else {
            "settlement".into()
        },
        line: u32::try_from(i % 3).expect("fits"),
        bet: s(i),
        stake: amount(i + 2),
        judged_on: s(i + 1),
        rule: s(i + 2),
        pay: ["35 to 1", "push", "fixed 2500", ""][i % 4].into(),
        odds: match i % 4 {
            0 => Some(35),
            _ if i % 10 == 1 => Some(u32::MAX),
            _ => None,
        },
        outcome: s(i + 3),
        uncapped: amount(i + 3),
        cap: if i.is_multiple_of(3) {
            Some(amount(i + 4))
        } else {
            None
        },
        cut: amount(i + 5),
        payout: amount(i),
        currency: s(i + 4),
    }
}

pub fn event(i: usize) -> EventRow {
    EventRow {
        sequence: small(i),
        stream: s(i),
        stream_position: if i.is_multiple_of(17) {
            u64::MAX
        } else {
            small(i / 2)
        },
        kind: s(i + 1),
        hand_id: if i.is_multiple_of(4) {
            None
        } else {
            Some(s(i + 2))
        },
        recorded_at_ms: 1_700_000_000_000 + small(i),
        actor: s(i + 3),
        hash: format!("{:064x}", i),
        signature: format!("{:0128x}", i * 31),
        key_id: s(i + 5),
        round_id: match i % 4 {
            0 => Some(s(i + 6)),
            _ => None,
        },
    }
}

pub fn place(i: usize) -> PlaceRow {
    PlaceRow {
        round_id: format!("round-{}-{}", i / 7, s(i)),
        place: match i % 5 {
            0 => u32::MAX,
            _ => u32::try_from(i % 7).expect("fits"),
        },
        seat: match i % 3 {
            0 => None,
            1 => Some(u8::MAX),
            _ => Some(u8::try_from(i % 7).expect("fits")),
        },
        player: s(i + 1),
        table: s(i + 2),
        dealer: s(i + 3),
        game: s(i + 4),
        shape: s(i + 5),
        config_id: s(i + 6),
        config_name: s(i + 7),
        config_version: u32::try_from(i).expect("fits"),
        currency: s(i + 8),
        minor_digits: u8::try_from(i % 256).expect("fits"),
        opened_at_ms: 1_700_000_000_000 + small(i),
        ended_at_ms: if i.is_multiple_of(4) {
            None
        } else {
            Some(amount(i + 9))
        },
        bet_at_ms: amount(i + 10),
        round_phase: s(i + 9),
        status: s(i + 10),
        staked: amount(i + 1),
        paid: amount(i),
        net: match i % 3 {
            0 => i64::MIN,
            1 => i64::MAX,
            _ => -i64::try_from(i).expect("fits"),
        },
        void_kind: match i % 6 {
            0 => None,
            _ => Some(s(i + 11)),
        },
    }
}

/// The rows of one export.
pub struct Rows {
    pub hands: Vec<HandRow>,
    pub bets: Vec<BetRow>,
    pub events: Vec<EventRow>,
    pub places: Vec<PlaceRow>,
}

impl Rows {
    /// `hands` hands, `bets` bets, `events` events, and as many places as hands.
    pub fn new(hands: usize, bets: usize, events: usize) -> Rows {
        Rows {
            hands: (0..hands).map(hand).collect(),
            bets: (0..bets).map(bet).collect(),
            events: (0..events).map(event).collect(),
            places: (0..hands).map(place).collect(),
        }
    }

    /// Writes them, interleaved as a server would, and finishes the export.
    pub fn export(&self, dir: &Path, format: Format) -> Written {
        let mut writer = ExportWriter::create(dir, format).expect("create");
        let longest = self.hands.len().max(self.bets.len()).max(self.events.len());
        for i in 0..longest {
            if let Some(row) = self.events.get(i) {
                writer.event(row).expect("event");
            }
            if let Some(row) = self.hands.get(i) {
                writer.hand(row).expect("hand");
            }
            if let Some(row) = self.bets.get(i) {
                writer.bet(row).expect("bet");
            }
            if let Some(row) = self.places.get(i) {
                writer.place(row).expect("place");
            }
        }
        writer.finish().expect("finish")
    }

    pub fn sum_paid(&self) -> u128 {
        self.hands.iter().map(|h| u128::from(h.paid)).sum()
    }

    pub fn sum_place_paid(&self) -> u128 {
        self.places.iter().map(|p| u128::from(p.paid)).sum()
    }

    pub fn sum_payout(&self) -> u128 {
        self.bets.iter().map(|b| u128::from(b.payout)).sum()
    }
}

/// The same rows in the same order; on a difference, the first differing row.
pub fn assert_same<T: PartialEq + std::fmt::Debug>(got: &[T], want: &[T], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: row count");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        panic!(
            "{what}: row {i} differs:\n got {:?}\nwant {:?}",
            got[i], want[i]
        );
    }
}
