//! The recall room: hands listed by table, player, time and status, and a table's rounds by table,
//! dealer and player, from the recall indexes (`index.rs` holds their layout); a hand's logged
//! entries.
//!
//! Read-only: must not write to the ledger. A listing's work is bounded by the floor, not by the
//! request: at most `index::MAX_EXAMINED` index entries and, for rounds, at most
//! `ROUND_ENTRIES_READ` round entries read per call (the first round of a page is always read:
//! a round is bounded by its own bounds).

use std::sync::Arc;

use pitboss_engine::game::GameId;
use pitboss_engine::round::Phase;

use super::index::{self, invalid_page};
use super::round_records::RoundRecord;
use super::{hand_stream, invalid, Floor, FloorError, HandFilter, HandSummary, Page};

/// What rounds to list: one of `player`, `dealer` or `table` is required (the index read, in that
/// order of preference); the others, and the rest, filter.
#[derive(Clone, Debug, Default)]
pub struct RoundFilter {
    /// A player's rounds: those the player bet on, dated by the bet.
    pub player: Option<String>,
    /// A dealer's rounds, dated by their opening.
    pub dealer: Option<String>,
    /// A table's rounds, dated by their opening.
    pub table: Option<String>,
    /// Only this game.
    pub game: Option<GameId>,
    /// Only rounds in this phase.
    pub phase: Option<Phase>,
    /// Dated at or after.
    pub from_ms: u64,
    /// Dated at or before (`None`: no bound).
    pub to_ms: Option<u64>,
    /// Only rounds the caller reaches: its scopes (`None`: every table, every game).
    pub within: Option<Arc<crate::access::Principal>>,
}

/// The most round entries one listing reads: a page of large rounds ends short, with a token.
pub const ROUND_ENTRIES_READ: u64 = 200_000;

impl Floor {
    /// Recall: hands by player or table, newest first.
    pub fn list_hands(
        &self,
        filter: &HandFilter,
        page: &Page,
    ) -> Result<(Vec<HandSummary>, Option<String>), FloorError> {
        index::list(self, filter, page)
    }

    /// Recall: rounds by player, dealer or table, newest first, each as its stream records it.
    pub fn list_rounds(
        &self,
        filter: &RoundFilter,
        page: &Page,
    ) -> Result<(Vec<RoundRecord>, Option<String>), FloorError> {
        let given = |name: &Option<String>| name.clone().filter(|n| !n.is_empty());
        let (name, owner) = match (
            given(&filter.player),
            given(&filter.dealer),
            given(&filter.table),
        ) {
            (Some(player), _, _) => (index::ROUND_PLAYER, player),
            (None, Some(dealer), _) => (index::ROUND_DEALER, dealer),
            (None, None, Some(table)) => (index::ROUND_TABLE, table),
            (None, None, None) => {
                return Err(invalid(
                    "table",
                    "a table, a dealer or a player is required",
                ))
            }
        };
        let size = index::page_size(page.size)?;
        let mut prefix = owner.as_bytes().to_vec();
        prefix.push(0);
        let mut start = if page.token.is_empty() {
            let to = filter.to_ms.unwrap_or(u64::MAX);
            [&prefix[..], &(u64::MAX - to).to_be_bytes()].concat()
        } else {
            let mut s = hex::decode(&page.token).map_err(|_| invalid_page())?;
            if !s.starts_with(&prefix) {
                return Err(invalid("page_token", "not a token of this listing"));
            }
            s.push(0);
            s
        };
        let mut out: Vec<RoundRecord> = Vec::new();
        let (mut examined, mut read) = (0usize, 0u64);
        let mut last_examined: Vec<u8> = Vec::new();
        loop {
            let batch = self.ledger.index_page(name, &prefix, &start, size * 2)?;
            let Some((last, _)) = batch.last().cloned() else {
                return Ok((out, None));
            };
            for (key, _) in &batch {
                if examined == index::MAX_EXAMINED {
                    return Ok((out, Some(hex::encode(&last_examined))));
                }
                let Some((at, id)) = index::parse_owned(&key[prefix.len()..]) else {
                    examined += 1;
                    last_examined.clone_from(key);
                    continue;
                };
                if at < filter.from_ms {
                    return Ok((out, None));
                }
                // A player's second bet on the same round (a second seat) lists it once a page.
                if out.iter().any(|r| r.id == id) {
                    examined += 1;
                    last_examined.clone_from(key);
                    continue;
                }
                let entries = self.round_version(&id)?;
                if !out.is_empty() && read.saturating_add(entries) > ROUND_ENTRIES_READ {
                    return Ok((out, Some(hex::encode(&last_examined))));
                }
                examined += 1;
                last_examined.clone_from(key);
                read = read.saturating_add(entries);
                let round = self.round_record(&id)?;
                if !keeps(filter, &round) {
                    continue;
                }
                out.push(round);
                if out.len() == size {
                    return Ok((out, Some(hex::encode(key))));
                }
            }
            start = last;
            start.push(0);
        }
    }

    /// The recorded entries of a hand from `position` on.
    pub fn hand_entries(
        &self,
        hand_id: &str,
        position: u64,
    ) -> Result<Vec<pitboss_ledger::Entry>, FloorError> {
        self.load(hand_id, None)?;
        Ok(self.ledger.read_stream(&hand_stream(hand_id), position)?)
    }
}

/// A filter's name when given (not empty).
fn given(name: &Option<String>) -> Option<&str> {
    name.as_deref().filter(|n| !n.is_empty())
}

/// Whether a round read from an index passes the rest of the filter.
fn keeps(filter: &RoundFilter, round: &RoundRecord) -> bool {
    let opened = &round.opened;
    filter.game.is_none_or(|g| g == opened.game)
        && filter.phase.is_none_or(|p| p == round.phase)
        && given(&filter.table).is_none_or(|t| t == opened.table)
        && given(&filter.dealer).is_none_or(|d| d == opened.dealer)
        && given(&filter.player).is_none_or(|p| round.has_player(p))
        && filter
            .within
            .as_ref()
            .is_none_or(|p| p.reaches_table(&opened.table) && p.reaches_game(opened.game))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{floor_in, mississippi};
    use super::*;
    use std::sync::atomic::Ordering;

    /// Recall by table lists that table's hands, newest first, and pages through them.
    #[tokio::test(flavor = "multi_thread")]
    async fn recall_by_table_lists_newest_first_in_pages() {
        let dir = tempfile::tempdir().unwrap();
        let (floor, clock) = floor_in(dir.path()).await;
        let mut opened = Vec::new();
        for player in ["P1", "P2", "P3"] {
            clock.fetch_add(1_000, Ordering::SeqCst);
            opened.push(
                floor
                    .open_hand(mississippi("T1", player, None))
                    .await
                    .unwrap()
                    .id,
            );
        }
        floor
            .open_hand(mississippi("T2", "P1", None))
            .await
            .unwrap();
        let filter = HandFilter {
            table: Some("T1".into()),
            ..Default::default()
        };
        let mut listed = Vec::new();
        let mut page = Page {
            size: 2,
            token: String::new(),
        };
        loop {
            let (hands, next) = floor.list_hands(&filter, &page).unwrap();
            assert!(hands.len() <= 2);
            listed.extend(hands.into_iter().map(|h| (h.id, h.table)));
            match next {
                Some(token) => page.token = token,
                None => break,
            }
        }
        opened.reverse();
        let expected: Vec<(String, String)> = opened
            .into_iter()
            .map(|id| (id, "T1".to_string()))
            .collect();
        assert_eq!(listed, expected);
        assert_eq!(
            floor.hand_entries(&listed[0].0, 0).unwrap().len() as u64,
            floor.load(&listed[0].0, None).unwrap().version()
        );
    }
}
