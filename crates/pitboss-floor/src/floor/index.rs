//! The floor's recall indexes, written in the same atomic batch as a hand's opening entry:
//!
//! | index | key | for |
//! | --- | --- | --- |
//! | `hand_by_player` | player, `0x00`, `u64::MAX − opened_at` (BE), hand id | a player's hands, newest first |
//! | `hand_by_table` | table, `0x00`, `u64::MAX − opened_at` (BE), hand id | a table's hands, newest first; table malfunctions by time range |
//! | `open_hand_by_time` | opened_at (BE), hand id; removed in the batch that settles or voids the hand | the 30-day sweep: only hands still open |
//! | `config` | configuration id (32 bytes) | published configurations |
//! | `round_by_table` | table, `0x00`, `u64::MAX − opened_at` (BE), round id; written with the round's opening | a table's rounds, newest first |
//! | `round_by_dealer` | dealer, `0x00`, `u64::MAX − opened_at` (BE), round id; written with the round's opening, and for a dealer taking over (at the change's time) with the change | a dealer's rounds, newest first |
//! | `round_by_player` | player, `0x00`, `u64::MAX − bet_at` (BE), round id; written with each bet | a player's rounds, newest bet first |
//!
//! Every entry is derived from the one log entry it is written with (a hand's or a round's
//! opening, a round's bet, a dealer's change), so a mirror's copy writes the same ones (`log.rs`).

use std::sync::Arc;

use super::{invalid, Floor, FloorError};
use pitboss_engine::config::Currency;
use pitboss_engine::game::GameId;
use pitboss_engine::games::Status;
use pitboss_ledger::{Ledger, LedgerError};

pub(super) const PLAYER: &str = "hand_by_player";
pub(super) const TABLE: &str = "hand_by_table";
pub(super) const OPEN: &str = "open_hand_by_time";
pub(super) const CONFIG: &str = "config";
pub(super) const ROUND_TABLE: &str = "round_by_table";
pub(super) const ROUND_DEALER: &str = "round_by_dealer";
pub(super) const ROUND_PLAYER: &str = "round_by_player";

fn owner_key(owner: &str, at: u64, hand_id: &str) -> Vec<u8> {
    let mut key = owner.as_bytes().to_vec();
    key.push(0);
    key.extend_from_slice(&(u64::MAX - at).to_be_bytes());
    key.extend_from_slice(hand_id.as_bytes());
    key
}

/// The index entries of a newly opened hand.
pub(super) fn for_opened_hand(
    hand_id: &str,
    table: &str,
    player: &str,
    at: u64,
) -> Vec<(String, Vec<u8>)> {
    vec![
        (PLAYER.to_string(), owner_key(player, at, hand_id)),
        (TABLE.to_string(), owner_key(table, at, hand_id)),
        open_hand_entry(hand_id, at),
    ]
}

/// The index entries of a newly opened round: its table's and its dealer's.
pub(super) fn for_opened_round(
    round_id: &str,
    table: &str,
    dealer: &str,
    at: u64,
) -> Vec<(String, Vec<u8>)> {
    vec![
        (ROUND_TABLE.to_string(), owner_key(table, at, round_id)),
        (ROUND_DEALER.to_string(), owner_key(dealer, at, round_id)),
    ]
}

/// The index entry of a dealer taking over a round, at the change's time.
pub(super) fn for_dealer_change(round_id: &str, dealer: &str, at: u64) -> (String, Vec<u8>) {
    (ROUND_DEALER.to_string(), owner_key(dealer, at, round_id))
}

/// The index entry of a player's bet on a round, at the bet's time.
pub(super) fn for_round_bet(round_id: &str, player: &str, at: u64) -> (String, Vec<u8>) {
    (ROUND_PLAYER.to_string(), owner_key(player, at, round_id))
}

/// The entry of a hand in the index of open hands.
pub(super) fn open_hand_entry(hand_id: &str, at: u64) -> (String, Vec<u8>) {
    let mut key = at.to_be_bytes().to_vec();
    key.extend_from_slice(hand_id.as_bytes());
    (OPEN.to_string(), key)
}

/// (opened_at, hand id) of an owner-index key (without the owner prefix).
pub(super) fn parse_owned(rest: &[u8]) -> Option<(u64, String)> {
    let inv = u64::from_be_bytes(rest.get(..8)?.try_into().ok()?);
    let id = std::str::from_utf8(rest.get(8..)?).ok()?.to_string();
    Some((u64::MAX - inv, id))
}

/// One page of hand ids from an index, and where the next page starts (`None`: the end).
pub(super) struct IdPage {
    pub ids: Vec<String>,
    pub next: Option<Vec<u8>>,
}

/// Index entries read per page by the operations over many hands.
const PAGE: usize = 512;

/// Hands of `table` opened from `from` to `to` (inclusive), newest first: the page starting after
/// `after` (the `next` of the page before; `None` for the first).
pub(super) fn table_hands_page(
    ledger: &Ledger,
    table: &str,
    from: u64,
    to: u64,
    after: Option<&[u8]>,
) -> Result<IdPage, LedgerError> {
    owner_page(ledger, TABLE, table, from, to, after)
}

/// The ids of an owner's index (`hand_by_table`, `round_by_player`, …) whose time is from `from`
/// to `to` (inclusive), newest first: the page starting after `after` (the `next` of the page
/// before; `None` for the first). At most [`PAGE`] index entries are read.
pub(super) fn owner_page(
    ledger: &Ledger,
    index: &str,
    owner: &str,
    from: u64,
    to: u64,
    after: Option<&[u8]>,
) -> Result<IdPage, LedgerError> {
    let mut prefix = owner.as_bytes().to_vec();
    prefix.push(0);
    let start = match after {
        Some(key) => [key, &[0]].concat(),
        None => [&prefix[..], &(u64::MAX - to).to_be_bytes()].concat(),
    };
    let page = ledger.index_page(index, &prefix, &start, PAGE)?;
    let mut ids = Vec::with_capacity(page.len());
    for (key, _) in &page {
        match parse_owned(&key[prefix.len()..]) {
            Some((at, _)) if at < from => return Ok(IdPage { ids, next: None }),
            Some((_, id)) => ids.push(id),
            None => {}
        }
    }
    let next = (page.len() == PAGE)
        .then(|| page.last().map(|(k, _)| k.clone()))
        .flatten();
    Ok(IdPage { ids, next })
}

/// Hands still open that were opened at or before `as_of`, oldest first: the page starting after
/// `after`.
pub(super) fn open_hands_page(
    ledger: &Ledger,
    as_of: u64,
    after: Option<&[u8]>,
) -> Result<IdPage, LedgerError> {
    let start = after.map(|key| [key, &[0]].concat()).unwrap_or_default();
    let page = ledger.index_page(OPEN, &[], &start, PAGE)?;
    let mut ids = Vec::with_capacity(page.len());
    for (key, _) in &page {
        let Some(at) = key
            .get(..8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_be_bytes)
        else {
            continue;
        };
        if at > as_of {
            return Ok(IdPage { ids, next: None });
        }
        if let Ok(id) = std::str::from_utf8(&key[8..]) {
            ids.push(id.to_string());
        }
    }
    let next = (page.len() == PAGE)
        .then(|| page.last().map(|(k, _)| k.clone()))
        .flatten();
    Ok(IdPage { ids, next })
}

/// What to list.
#[derive(Clone, Debug, Default)]
pub struct HandFilter {
    /// A player's hands (this or `table` is required).
    pub player: Option<String>,
    /// A table's hands.
    pub table: Option<String>,
    /// Only this game.
    pub game: Option<GameId>,
    /// Only hands in this state.
    pub status: Option<Status>,
    /// Opened at or after.
    pub from_ms: u64,
    /// Opened at or before (`None`: no bound).
    pub to_ms: Option<u64>,
    /// Only hands the caller reaches: its scopes (`None`: every table, every game). A recall by
    /// player from a scoped principal lists that player's hands at its tables only.
    pub within: Option<Arc<crate::access::Principal>>,
}

/// The most hands in one page of recall.
pub const MAX_PAGE: u32 = 100;

/// A page request: size (0 for 10, at most [`MAX_PAGE`]) and the token of the previous page.
#[derive(Clone, Debug, Default)]
pub struct Page {
    /// Items per page.
    pub size: u32,
    /// Where to continue.
    pub token: String,
}

/// One hand in a recall list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandSummary {
    pub id: String,
    pub game: GameId,
    pub table: String,
    pub player: String,
    pub opened_at_ms: u64,
    pub status: Status,
    pub total_staked: u64,
    pub total_paid: u64,
    pub currency: Currency,
}

/// The most index entries one recall call examines: a filter that matches few hands returns a
/// short page (perhaps empty) and a token to continue, rather than scanning a whole history.
pub const MAX_EXAMINED: usize = 2_000;

/// A page's size: 0 for 10, at most [`MAX_PAGE`].
pub(super) fn page_size(size: u32) -> Result<usize, FloorError> {
    match size {
        0 => Ok(10),
        n if n > MAX_PAGE => Err(invalid(
            "page_size",
            format!("{n} is out of range: 0 to {MAX_PAGE}"),
        )),
        n => Ok(n as usize),
    }
}

/// A page token this service did not issue.
pub(super) fn invalid_page() -> FloorError {
    invalid("page_token", "not a token this service issued")
}

pub(super) fn list(
    floor: &Floor,
    filter: &HandFilter,
    page: &Page,
) -> Result<(Vec<HandSummary>, Option<String>), FloorError> {
    let (index, owner) = match (&filter.player, &filter.table) {
        (Some(player), _) if !player.is_empty() => (PLAYER, player.clone()),
        (_, Some(table)) if !table.is_empty() => (TABLE, table.clone()),
        _ => return Err(invalid("player", "a player or a table is required")),
    };
    let size = page_size(page.size)?;
    let mut prefix = owner.as_bytes().to_vec();
    prefix.push(0);
    let mut start = if page.token.is_empty() {
        let mut s = prefix.clone();
        s.extend_from_slice(&(u64::MAX - filter.to_ms.unwrap_or(u64::MAX)).to_be_bytes());
        s
    } else {
        let mut s = hex::decode(&page.token).map_err(|_| invalid_page())?;
        if !s.starts_with(&prefix) {
            return Err(invalid("page_token", "not a token of this listing"));
        }
        s.push(0);
        s
    };
    let mut out = Vec::new();
    let mut examined = 0;
    let mut last_examined: Vec<u8> = Vec::new();
    loop {
        let batch = floor.ledger.index_page(index, &prefix, &start, size * 2)?;
        let Some((last, _)) = batch.last().cloned() else {
            return Ok((out, None));
        };
        for (key, _) in &batch {
            if examined == MAX_EXAMINED {
                // A short page: the next call continues after the last entry examined.
                return Ok((out, Some(hex::encode(&last_examined))));
            }
            examined += 1;
            last_examined.clone_from(key);
            let Some((at, id)) = parse_owned(&key[prefix.len()..]) else {
                continue;
            };
            if at < filter.from_ms {
                return Ok((out, None));
            }
            let hand = floor.load(&id, None)?;
            let Some(opened) = hand.opened() else {
                continue;
            };
            if filter.game.is_some_and(|g| g != hand.game())
                || filter.status.is_some_and(|s| s != hand.status())
                || filter.within.as_ref().is_some_and(|p| {
                    !p.reaches_table(&opened.table) || !p.reaches_game(hand.game())
                })
            {
                continue;
            }
            let staked = hand.total_staked().map_err(|_| {
                FloorError::Corrupt(format!("hand {id}"), "its stakes overflow".into())
            })?;
            out.push(HandSummary {
                id: id.clone(),
                game: hand.game(),
                table: opened.table.clone(),
                player: opened.player.clone(),
                opened_at_ms: opened.at.0,
                status: hand.status(),
                total_staked: staked.0,
                total_paid: hand.paid().0,
                currency: hand.config().currency.clone(),
            });
            if out.len() == size {
                return Ok((out, Some(hex::encode(key))));
            }
        }
        start = last;
        start.push(0);
    }
}
