//! The recall room: hands listed by table, player, time and status from the recall indexes
//! (`index.rs` holds their layout), and a hand's logged entries.
//!
//! Read-only: must not write to the ledger.

use super::{hand_stream, index, Floor, FloorError, HandFilter, HandSummary, Page};

impl Floor {
    /// Recall: hands by player or table, newest first.
    pub fn list_hands(
        &self,
        filter: &HandFilter,
        page: &Page,
    ) -> Result<(Vec<HandSummary>, Option<String>), FloorError> {
        index::list(self, filter, page)
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
