//! The walk over the hands an export takes, a page at a time: with a table, its index of hands
//! (newest first, the time range read from the index itself); without one, the log from its first
//! entry (each hand stream's opening entry whose recording time is in the range; the opening is
//! recorded at the hand's opening time). The caller stops and resumes between pages, so a long
//! export never holds the floor, and reports how far the walk has come.
//!
//! Owns the cursor and the paging; builds no rows (the audit's export does) and loads no hand.

use pitboss_ledger::Ledger;

use super::index;
use super::{Floor, FloorError};

/// Log entries examined per page of a walk over the whole log.
const LOG_PAGE: u64 = 4_096;

/// Where an export's walk stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExportCursor {
    /// In a table's index, after this key (`None`: from the newest).
    Table(Option<Vec<u8>>),
    /// In the log, at this sequence.
    Log(u64),
}

/// One page of the walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandsPage {
    /// The hands found on this page, in the walk's order.
    pub ids: Vec<String>,
    /// Where the next page starts; `None` once the walk has ended.
    pub next: Option<ExportCursor>,
    /// How far the walk has come: log entries examined, or a table's hands read.
    pub scanned: u64,
    /// Out of (the log's size when walking the log; 0 when not known).
    pub total: u64,
}

impl Floor {
    /// The page of hands opened from `from_ms` to `to_ms` (inclusive) at `cursor`: of `table` only
    /// when given (the cursor is then a [`ExportCursor::Table`]).
    pub fn export_page(
        &self,
        table: Option<&str>,
        from_ms: u64,
        to_ms: u64,
        cursor: &ExportCursor,
        scanned: u64,
    ) -> Result<HandsPage, FloorError> {
        match (table, cursor) {
            (Some(table), ExportCursor::Table(after)) => {
                let page =
                    index::table_hands_page(&self.ledger, table, from_ms, to_ms, after.as_deref())?;
                let scanned = scanned.saturating_add(page.ids.len() as u64);
                Ok(HandsPage {
                    ids: page.ids,
                    next: page.next.map(|key| ExportCursor::Table(Some(key))),
                    scanned,
                    total: 0,
                })
            }
            (None, ExportCursor::Log(at)) => log_page(&self.ledger, from_ms, to_ms, *at),
            _ => Err(FloorError::Corrupt(
                "export".into(),
                "a cursor of the other kind of walk".into(),
            )),
        }
    }
}

/// Hands whose opening entry, from sequence `at` on (one page), was recorded in the range.
fn log_page(ledger: &Ledger, from_ms: u64, to_ms: u64, at: u64) -> Result<HandsPage, FloorError> {
    let total = ledger.size();
    let end = at.saturating_add(LOG_PAGE).min(total);
    let mut ids = Vec::new();
    for sequence in at..end {
        let Some(entry) = ledger.entry(sequence)? else {
            return Err(FloorError::Corrupt(
                format!("entry {sequence}"),
                "missing from the log".into(),
            ));
        };
        let envelope = &entry.envelope;
        let Some(id) = super::hands::hand_of_stream(&envelope.stream) else {
            continue;
        };
        if envelope.stream_position == 0
            && envelope.recorded_at_ms >= from_ms
            && envelope.recorded_at_ms <= to_ms
        {
            ids.push(id.to_string());
        }
    }
    Ok(HandsPage {
        ids,
        next: (end < total).then_some(ExportCursor::Log(end)),
        scanned: end,
        total,
    })
}
