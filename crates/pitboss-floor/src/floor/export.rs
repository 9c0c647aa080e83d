//! The walk over the hands and rounds an export takes, a page at a time. Which walk is the
//! selection's ([`ExportSelection`]): one round by its id; a player's hands then rounds, a
//! dealer's rounds, a table's hands then rounds — each an index, newest first, the time range read
//! from the index itself; or, with none of those, the log from its first entry (each hand's and
//! round's opening entry whose recording time is in the range; an opening is recorded at its
//! time). The caller stops and resumes between pages, so a long export never holds the floor, and
//! reports how far the walk has come.
//!
//! Owns the cursor, the paging and which of a found round's places the selection keeps; builds no
//! rows (the service's export does) and loads no hand.

use pitboss_engine::game::GameId;
use pitboss_ledger::Ledger;

use super::index;
use super::round_records::RoundRecord;
use super::{Floor, FloorError};

/// Log entries examined per page of a walk over the whole log.
const LOG_PAGE: u64 = 4_096;

/// What an export takes: hands and rounds opened in the range, narrowed by each filter given.
/// Hands have no dealer and no round: a selection by `dealer` or `round_id` takes rounds only.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportSelection {
    /// Opened at or after (a round walked by player: the player's bet at or after).
    pub from_ms: u64,
    /// Opened (bet) at or before, inclusive; `u64::MAX` for no bound.
    pub to_ms: u64,
    /// Only this table's.
    pub table: Option<String>,
    /// Only this game's.
    pub game: Option<GameId>,
    /// Only this player's hands and places.
    pub player: Option<String>,
    /// Only this dealer's rounds.
    pub dealer: Option<String>,
    /// Only this round.
    pub round_id: Option<String>,
    /// Only the places at this seat (rounds of seats; no hands).
    pub seat: Option<u8>,
}

/// What the walk found: a hand or a round, by id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exported {
    Hand(String),
    Round(String),
}

/// Where an export's walk stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExportCursor {
    /// In the selection's `step`-th index, after this key (`None`: from the newest).
    Index { step: usize, after: Option<Vec<u8>> },
    /// In the log, at this sequence.
    Log(u64),
    /// At the one round the selection names.
    Round,
}

/// One page of the walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandsPage {
    /// The hands and rounds found on this page, in the walk's order.
    pub found: Vec<Exported>,
    /// Where the next page starts; `None` once the walk has ended.
    pub next: Option<ExportCursor>,
    /// How far the walk has come: log entries examined, or index entries read.
    pub scanned: u64,
    /// Out of (the log's size when walking the log; 0 when not known).
    pub total: u64,
}

/// One index a selection walks: its name, the owner whose entries are read, what its ids are.
struct IndexWalk {
    index: &'static str,
    owner: String,
    found: fn(String) -> Exported,
}

/// How a selection is walked.
enum Walk {
    Round(String),
    /// Indexes in turn.
    Indexes(Vec<IndexWalk>),
    Log {
        hands: bool,
    },
}

impl ExportSelection {
    fn given(name: &Option<String>) -> Option<String> {
        name.clone().filter(|n| !n.is_empty())
    }

    /// Whether hands can be in the selection (not when it names a dealer, a round or a seat).
    fn takes_hands(&self) -> bool {
        Self::given(&self.dealer).is_none()
            && Self::given(&self.round_id).is_none()
            && self.seat.is_none()
    }

    fn walk(&self) -> Walk {
        let hands = self.takes_hands();
        let mut indexes = Vec::new();
        let mut walk = |index: &'static str, owner: String, found: fn(String) -> Exported| {
            indexes.push(IndexWalk {
                index,
                owner,
                found,
            })
        };
        if let Some(round) = Self::given(&self.round_id) {
            return Walk::Round(round);
        }
        if let Some(player) = Self::given(&self.player) {
            if hands {
                walk(index::PLAYER, player.clone(), Exported::Hand);
            }
            walk(index::ROUND_PLAYER, player, Exported::Round);
        } else if let Some(dealer) = Self::given(&self.dealer) {
            walk(index::ROUND_DEALER, dealer, Exported::Round);
        } else if let Some(table) = Self::given(&self.table) {
            walk(index::TABLE, table.clone(), Exported::Hand);
            walk(index::ROUND_TABLE, table, Exported::Round);
        } else {
            return Walk::Log { hands };
        }
        Walk::Indexes(indexes)
    }

    /// Where the walk of this selection begins.
    pub fn start(&self) -> ExportCursor {
        match self.walk() {
            Walk::Round(_) => ExportCursor::Round,
            Walk::Indexes(_) => ExportCursor::Index {
                step: 0,
                after: None,
            },
            Walk::Log { .. } => ExportCursor::Log(0),
        }
    }

    /// Whether a hand of this game, table and player is in the selection.
    pub fn keeps_hand(&self, game: GameId, table: &str, player: &str) -> bool {
        self.takes_hands()
            && self.game.is_none_or(|g| g == game)
            && Self::given(&self.table).is_none_or(|t| t == table)
            && Self::given(&self.player).is_none_or(|p| p == player)
    }

    /// The round as the selection keeps it: `None` when left out (another game, table or dealer;
    /// opened outside the range when named by its id; no place of the player), else with only the
    /// player's places when the selection names a player.
    pub fn keep_round(&self, mut round: RoundRecord) -> Option<RoundRecord> {
        let opened = &round.opened;
        let within = self.game.is_none_or(|g| g == opened.game)
            && Self::given(&self.table).is_none_or(|t| t == opened.table)
            && Self::given(&self.dealer).is_none_or(|d| round.dealt_by(&d));
        let dated = Self::given(&self.round_id).is_none()
            || (opened.at.0 >= self.from_ms && opened.at.0 <= self.to_ms);
        if !within || !dated {
            return None;
        }
        let player = Self::given(&self.player);
        if player.is_some() || self.seat.is_some() {
            round.places.retain(|p| {
                player.as_ref().is_none_or(|name| p.player == *name)
                    && self.seat.is_none_or(|s| p.seat == Some(s))
            });
            if round.places.is_empty() {
                return None;
            }
        }
        Some(round)
    }
}

impl Floor {
    /// The page of the walk of `selection` at `cursor` (its start: [`ExportSelection::start`]).
    pub fn export_page(
        &self,
        selection: &ExportSelection,
        cursor: &ExportCursor,
        scanned: u64,
    ) -> Result<HandsPage, FloorError> {
        let (from_ms, to_ms) = (selection.from_ms, selection.to_ms);
        match (selection.walk(), cursor) {
            (Walk::Round(id), ExportCursor::Round) => {
                let found = if self.round_version(&id)? > 0 {
                    vec![Exported::Round(id)]
                } else {
                    Vec::new()
                };
                Ok(HandsPage {
                    found,
                    next: None,
                    scanned: scanned.saturating_add(1),
                    total: 1,
                })
            }
            (Walk::Indexes(indexes), ExportCursor::Index { step, after }) => {
                let Some(IndexWalk {
                    index: name,
                    owner,
                    found: kind,
                }) = indexes.get(*step)
                else {
                    return Ok(HandsPage {
                        found: Vec::new(),
                        next: None,
                        scanned,
                        total: 0,
                    });
                };
                let page =
                    index::owner_page(&self.ledger, name, owner, from_ms, to_ms, after.as_deref())?;
                let scanned = scanned.saturating_add(page.ids.len() as u64);
                let mut found: Vec<Exported> = Vec::with_capacity(page.ids.len());
                for id in page.ids {
                    let item = kind(id);
                    // A player's second bet on a round (a second seat): the round once a page.
                    if !found.contains(&item) {
                        found.push(item);
                    }
                }
                let next = match page.next {
                    Some(key) => Some(ExportCursor::Index {
                        step: *step,
                        after: Some(key),
                    }),
                    None if step + 1 < indexes.len() => Some(ExportCursor::Index {
                        step: step + 1,
                        after: None,
                    }),
                    None => None,
                };
                Ok(HandsPage {
                    found,
                    next,
                    scanned,
                    total: 0,
                })
            }
            (Walk::Log { hands }, ExportCursor::Log(at)) => {
                log_page(&self.ledger, hands, from_ms, to_ms, *at)
            }
            _ => Err(FloorError::Corrupt(
                "export".into(),
                "a cursor of another kind of walk".into(),
            )),
        }
    }
}

/// Hands (when `hands`) and rounds whose opening entry, from sequence `at` on (one page), was
/// recorded in the range.
fn log_page(
    ledger: &Ledger,
    hands: bool,
    from_ms: u64,
    to_ms: u64,
    at: u64,
) -> Result<HandsPage, FloorError> {
    let total = ledger.size();
    let end = at.saturating_add(LOG_PAGE).min(total);
    let mut found = Vec::new();
    for sequence in at..end {
        let Some(entry) = ledger.entry(sequence)? else {
            return Err(FloorError::Corrupt(
                format!("entry {sequence}"),
                "missing from the log".into(),
            ));
        };
        let envelope = &entry.envelope;
        if envelope.stream_position != 0
            || envelope.recorded_at_ms < from_ms
            || envelope.recorded_at_ms > to_ms
        {
            continue;
        }
        if let Some(id) = super::hands::hand_of_stream(&envelope.stream).filter(|_| hands) {
            found.push(Exported::Hand(id.to_string()));
        } else if let Some(id) = super::round_of_stream(&envelope.stream) {
            found.push(Exported::Round(id.to_string()));
        }
    }
    Ok(HandsPage {
        found,
        next: (end < total).then_some(ExportCursor::Log(end)),
        scanned: end,
        total,
    })
}
