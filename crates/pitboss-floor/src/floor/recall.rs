//! The recall room: hands listed by table, player, time and status, and a table's rounds by table,
//! dealer and player, from the recall indexes (`index.rs` holds their layout); a hand's logged
//! entries.
//!
//! Read-only: must not write to the ledger. A listing's work is bounded by the floor, not by the
//! request: at most `index::MAX_EXAMINED` index entries and, for rounds, at most
//! `ROUND_ENTRIES_READ` round entries read per call (the first round a call reads is always
//! read: a round is bounded by its own bounds).

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
    /// A dealer's rounds (those they opened or took over), dated by their opening or the change.
    pub dealer: Option<String>,
    /// A table's rounds, dated by their opening.
    pub table: Option<String>,
    /// Only this game.
    pub game: Option<GameId>,
    /// Only rounds of seats whose seat this was occupied.
    pub seat: Option<u8>,
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
        self.list_rounds_reading(filter, page, ROUND_ENTRIES_READ)
    }

    /// [`Floor::list_rounds`], reading at most `budget` round entries (the first round always).
    fn list_rounds_reading(
        &self,
        filter: &RoundFilter,
        page: &Page,
        budget: u64,
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
                // Rounds read, listed or not, count: a call that read one already ends here
                // rather than pass its budget (each call reads at least one: it goes on).
                let entries = self.round_version(&id)?;
                if read > 0 && read.saturating_add(entries) > budget {
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
        && given(&filter.dealer).is_none_or(|d| round.dealt_by(d))
        && (given(&filter.player).is_none() && filter.seat.is_none()
            || round.places.iter().any(|p| {
                given(&filter.player).is_none_or(|name| p.player == name)
                    && filter.seat.is_none_or(|s| p.seat == Some(s))
            }))
        && filter
            .within
            .as_ref()
            .is_none_or(|p| p.reaches_table(&opened.table) && p.reaches_game(opened.game))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{floor_in, mississippi};
    use super::super::{OpenRoundRequest, RoundCall};
    use super::*;
    use pitboss_engine::money::Money;
    use pitboss_engine::round::{OpenRound, PlaceBet, RoundCommand, Shape};
    use pitboss_engine::settlement::{BetId, Wager};
    use std::sync::atomic::Ordering;

    /// Opens a Caribbean Stud round at `table` dealt by `dealer` with a bet of each player, at
    /// the clock's time: its id.
    async fn round(floor: &Floor, table: &str, dealer: &str, players: &[&str]) -> String {
        let id = floor
            .open_round(
                OpenRoundRequest {
                    game: GameId::CaribbeanStud,
                    config_id: None,
                    open: OpenRound {
                        table: table.into(),
                        dealer: dealer.into(),
                        shoe: None,
                        shape: Shape::Seats { seats: 7 },
                        max_players: 7,
                        seats_per_player: 1,
                        decision_window_ms: 60_000,
                        at: pitboss_engine::games::Timestamp(0),
                    },
                    actor: "table".into(),
                    request_id: None,
                },
                |_| (),
            )
            .await
            .unwrap()
            .id;
        for (seat, player) in players.iter().enumerate() {
            floor
                .round_command(
                    &id,
                    |at| {
                        RoundCommand::Bet(PlaceBet {
                            seed_digest: None,
                            player: player.to_string(),
                            seat: Some(seat as u8 + 1),
                            wagers: vec![Wager {
                                bet: BetId::Ante,
                                amount: Money(100 * (seat as u64 + 1)),
                            }],
                            at,
                        })
                    },
                    &RoundCall::by("table"),
                    |_, _| (),
                )
                .await
                .unwrap();
        }
        id
    }

    /// Every page of a listing: the rounds' ids, and how many calls it took.
    fn pages(floor: &Floor, filter: &RoundFilter, size: u32, budget: u64) -> (Vec<String>, usize) {
        let mut page = Page {
            size,
            token: String::new(),
        };
        let (mut ids, mut calls) = (Vec::new(), 0);
        loop {
            calls += 1;
            let (rounds, next) = floor.list_rounds_reading(filter, &page, budget).unwrap();
            assert!(rounds.len() <= size as usize);
            ids.extend(rounds.into_iter().map(|r| r.id));
            match next {
                Some(token) => page.token = token,
                None => return (ids, calls),
            }
        }
    }

    /// Rounds by dealer across tables, by table and by player, newest first, with their places;
    /// the same listing under a budget of round entries that lets one round be read per call takes
    /// a call per round and lists the same rounds once each, in order; a token of another listing
    /// is refused.
    #[tokio::test]
    async fn rounds_are_listed_by_dealer_table_and_player_within_the_entries_read() {
        let dir = tempfile::tempdir().unwrap();
        let (floor, clock) = floor_in(dir.path()).await;
        let mut opened = Vec::new();
        for (table, dealer, players) in [
            ("T1", "ann", &["p1", "p2"][..]),
            ("T2", "ann", &["p2"][..]),
            ("T1", "bob", &["p1", "p3", "p4"][..]),
            ("T2", "ann", &["p4"][..]),
        ] {
            clock.fetch_add(1_000, Ordering::SeqCst);
            opened.push((
                round(&floor, table, dealer, players).await,
                table,
                dealer,
                players,
            ));
        }
        let newest = |keep: &dyn Fn(&str, &str, &[&str]) -> bool| -> Vec<String> {
            opened
                .iter()
                .rev()
                .filter(|(_, t, d, p)| keep(t, d, p))
                .map(|(id, ..)| id.clone())
                .collect()
        };
        let by_dealer = RoundFilter {
            dealer: Some("ann".into()),
            ..Default::default()
        };
        let ann = newest(&|_, d, _| d == "ann");
        assert_eq!(ann.len(), 3);
        assert_eq!(
            pages(&floor, &by_dealer, 10, ROUND_ENTRIES_READ),
            (ann.clone(), 1)
        );
        assert_eq!(pages(&floor, &by_dealer, 2, ROUND_ENTRIES_READ).0, ann);
        // One round's entries at most: a round a call, the same rounds (the last call finds none).
        let (one_by_one, calls) = pages(&floor, &by_dealer, 10, 1);
        assert_eq!(one_by_one, ann);
        assert_eq!(calls, 3);
        let by_table = RoundFilter {
            table: Some("T1".into()),
            ..Default::default()
        };
        assert_eq!(
            pages(&floor, &by_table, 10, 1).0,
            newest(&|t, _, _| t == "T1")
        );
        let by_player = RoundFilter {
            player: Some("p1".into()),
            ..Default::default()
        };
        let p1 = pages(&floor, &by_player, 10, ROUND_ENTRIES_READ).0;
        assert_eq!(p1, newest(&|_, _, p| p.contains(&"p1")));
        // A round's record: its places, their stakes.
        let (rounds, _) = floor
            .list_rounds(
                &RoundFilter {
                    dealer: Some("bob".into()),
                    ..Default::default()
                },
                &Page::default(),
            )
            .unwrap();
        assert_eq!(rounds.len(), 1);
        let bob = &rounds[0];
        assert_eq!(
            bob.places
                .iter()
                .map(|p| (p.player.as_str(), p.seat, p.staked))
                .collect::<Vec<_>>(),
            [
                ("p1", Some(1), 100),
                ("p3", Some(2), 200),
                ("p4", Some(3), 300)
            ]
        );
        assert_eq!(bob.staked().unwrap(), 600);
        assert_eq!(bob.phase, pitboss_engine::round::Phase::Betting);
        // A token of the dealer's listing given to a table's is refused.
        let (_, token) = floor
            .list_rounds(
                &by_dealer,
                &Page {
                    size: 1,
                    token: String::new(),
                },
            )
            .unwrap();
        let refused = floor
            .list_rounds(
                &by_table,
                &Page {
                    size: 1,
                    token: token.unwrap(),
                },
            )
            .unwrap_err();
        assert!(
            matches!(&refused, FloorError::Invalid { field, .. } if field == "page_token"),
            "{refused}"
        );
    }

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
