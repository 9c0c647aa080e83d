//! The floor's returns against the theoretical, live (`docs/returns.md`): the server reads its own
//! log in order, from the start after a restart and then as it grows, and keeps per game, table,
//! dealer, configuration and bet group the totals for the lifetime and for each of the last 30 UTC
//! days (`tally.rs`, fed by `feed.rs`: hands, which have no dealer, and rounds' places); the rows
//! asked for sum them per table (every dealer) or per dealer (every table, hands left out); the
//! theoretical figures of each configuration met, computed beside serving on a thread of their own
//! (`theory.rs`); alerts opened when a table's or a dealer's window leaves its 99 % band (an entry
//! each, closed by a supervisor's investigation); and a signed statement of the totals every period
//! (`statement.rs`), each checked again at every start.
//!
//! Runs beside the writer and never stands in the way of an acknowledgement: it reads entries
//! already durable. MUST NOT hold more than [`MAX_KEYS`] keys (hands beyond are counted as
//! untracked, and said so) nor write anything but its own entries.

pub mod feed;
pub mod page;
pub mod statement;
pub mod tally;
pub mod theory;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pitboss_engine::config::ConfigId;

use crate::floor::Floor;
use crate::proto;
use feed::{Feed, Seen};
pub use page::{Cursor, TokenError};
use statement::Period;
use tally::{Key, Sums};
use theory::Theory;

/// The most keys (game, table, dealer, configuration, bet group) the server keeps totals for: with
/// 30 days each, a few megabytes.
pub const MAX_KEYS: usize = 4096;

/// The windows, in days (0: the lifetime).
pub const WINDOWS: [u32; 4] = [0, 1, 7, 30];

/// The alerts kept in memory (the log keeps them all).
const ALERTS_KEPT: usize = 1000;

const DAY_MS: u64 = 86_400_000;

/// The sequence an alert's window is marked open with between its recording and its reading.
const RECORDED: u64 = u64::MAX;

/// How long the reading rests after the log grows before it reads on (the returns are at most
/// about this far behind a busy log).
const FOLLOW_PAUSE: Duration = Duration::from_millis(100);

/// How the returns are watched (`[returns]` in `pitboss.toml`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// How often the windows are held to their bands.
    pub check_every: Duration,
    /// The fewest hands (net of voids) a window needs before it can open an alert.
    pub min_hands: u64,
    /// How long a statement's period is (aligned to multiples of it since the epoch: daily
    /// statements cover UTC days); `None`: no statements.
    pub statement_every: Option<Duration>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            check_every: Duration::from_secs(60),
            min_hands: 1000,
            statement_every: Some(Duration::from_secs(86_400)),
        }
    }
}

/// The totals of one key: its lifetime and each UTC day of the last 30.
#[derive(Default)]
struct Tracked {
    lifetime: Sums,
    days: VecDeque<(u64, Sums)>,
}

impl Tracked {
    fn add(&mut self, sums: &Sums, day: u64, today: u64) -> Result<(), tally::Overflow> {
        self.lifetime.add(sums)?;
        if day + 30 <= today {
            return Ok(());
        }
        match self.days.iter_mut().find(|(d, _)| *d == day) {
            Some((_, s)) => s.add(sums)?,
            None => {
                let at = self
                    .days
                    .iter()
                    .position(|(d, _)| *d > day)
                    .unwrap_or(self.days.len());
                self.days.insert(at, (day, *sums));
            }
        }
        while self.days.front().is_some_and(|(d, _)| d + 30 <= today) {
            self.days.pop_front();
        }
        Ok(())
    }

    fn window(&self, days: u32, today: u64) -> Sums {
        if days == 0 {
            return self.lifetime;
        }
        let mut total = Sums::default();
        for (_, s) in self
            .days
            .iter()
            .filter(|(d, _)| d + u64::from(days) > today)
        {
            // Within the lifetime's sum, which did not overflow.
            let _ = total.add(s);
        }
        total
    }
}

/// One alert as the log tells it.
#[derive(Clone, Debug)]
pub struct AlertState {
    pub alert: proto::ReturnsAlert,
    pub sequence: u64,
    pub investigation: Option<(proto::ReturnsInvestigated, String)>,
}

/// A configuration's theory: being computed, ready, or why not.
#[derive(Clone, Debug)]
enum Known {
    Computing,
    Ready(BTreeMap<String, Theory>),
    Failed(String),
}

impl From<theory::Computed> for Known {
    fn from(computed: theory::Computed) -> Known {
        computed.map_or_else(Known::Failed, Known::Ready)
    }
}

#[derive(Default)]
struct State {
    /// The next sequence to read.
    through: u64,
    caught_up: bool,
    keys: BTreeMap<Key, Tracked>,
    untracked: u64,
    period: Period,
    /// A statement appended but not read back yet.
    statement_pending: bool,
    alerts: BTreeMap<u64, AlertState>,
    /// (key, window) → the sequence of its open alert.
    open: HashMap<(Key, u32), u64>,
    theories: HashMap<ConfigId, Known>,
    /// Whether the feed stopped (the log could not be read): the reason.
    stopped: Option<String>,
}

/// The returns of one server.
pub struct Returns {
    floor: Arc<Floor>,
    settings: Settings,
    state: Mutex<State>,
    /// Configurations whose theory is wanted, to the theory thread.
    wanted: std::sync::mpsc::SyncSender<(ConfigId, Arc<pitboss_engine::config::GameConfig>)>,
}

/// A page of rows, the alerts and the progress of [`Returns::page`], read at one instant.
#[derive(Clone, Debug)]
pub struct Page {
    pub rows: Vec<Row>,
    /// Where the next page begins; `None` after the last.
    pub next: Option<Cursor>,
    /// The newest alerts the filter matches, newest first, then any older one a row of the
    /// page names, in row order.
    pub alerts: Vec<AlertState>,
    /// The next sequence to read: the totals cover the entries before it.
    pub through: u64,
    pub caught_up: bool,
    /// Hands the reading could not count.
    pub untracked: u64,
}

/// One row of [`Returns::rows`].
#[derive(Clone, Debug)]
pub struct Row {
    pub key: Key,
    pub window_days: u32,
    pub sums: Sums,
    pub theory: Result<Theory, String>,
    pub open_alert: Option<String>,
}

impl Returns {
    /// Starts reading the log (from its start) and watching it, until the runtime ends; the
    /// theories of `pending` are being computed elsewhere (the server's preparation) and handed
    /// over by [`Returns::adopt`], so they are not computed twice.
    pub fn start(floor: Arc<Floor>, settings: Settings, pending: Vec<ConfigId>) -> Arc<Returns> {
        let (wanted, queue) = std::sync::mpsc::sync_channel(MAX_KEYS);
        let mut state = State::default();
        for id in pending {
            state.theories.insert(id, Known::Computing);
        }
        let returns = Arc::new(Returns {
            floor: floor.clone(),
            settings,
            state: Mutex::new(state),
            wanted,
        });
        let weak = Arc::downgrade(&returns);
        // The theory thread: one configuration at a time, one core, beside serving.
        std::thread::Builder::new()
            .name("pitboss-returns-theory".into())
            .spawn(move || {
                // Beside serving, lowered; but never starved: the alerts wait for it.
                crate::priority::lower();
                while let Ok((id, config)) = queue.recv() {
                    let run = pitboss_lab::Run::default();
                    let known = Known::from(theory::of(&config, &run));
                    let Some(returns) = weak.upgrade() else {
                        return;
                    };
                    returns.lock().theories.insert(id, known);
                }
            })
            .ok();
        tokio::spawn(returns.clone().follow());
        tokio::spawn(returns.clone().watch());
        returns
    }

    /// Takes the theories computed elsewhere; one that failed is computed again by the theory
    /// thread (and said in the server's log).
    pub fn adopt(&self, computed: Vec<(ConfigId, theory::Computed)>) {
        for (id, computed) in computed {
            let known = match computed {
                Ok(theory) => Known::Ready(theory),
                Err(e) => {
                    tracing::warn!(config = %id, error = %e, "returns: no theory at start; computing it again");
                    match self.floor.config(&id) {
                        Some(config) if self.wanted.try_send((id, config.clone())).is_ok() => {
                            Known::Computing
                        }
                        _ => Known::Failed(e),
                    }
                }
            };
            self.lock().theories.insert(id, known);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reads the log in order as it grows.
    async fn follow(self: Arc<Self>) {
        let mut head = self.floor.log().subscribe();
        let mut feed = Feed::default();
        loop {
            let size = self.floor.log().size();
            let from = self.lock().through;
            if from >= size {
                self.lock().caught_up = true;
                if head.changed().await.is_err() {
                    return;
                }
                // A pause after each wake: the appends of a busy floor are read in batches, a few
                // times a second, not one small read per group commit.
                tokio::time::sleep(FOLLOW_PAUSE).await;
                continue;
            }
            let floor = self.floor.clone();
            let this = self.clone();
            let (fed, again) = tokio::task::spawn_blocking(move || {
                let read = this.read(&floor, &mut feed, from, size);
                (read, feed)
            })
            .await
            .unwrap_or_else(|e| (Err(e.to_string()), Feed::default()));
            feed = again;
            if let Err(e) = fed {
                tracing::error!(error = %e, "returns: the log could not be read; the returns stop here");
                self.lock().stopped = Some(e);
                return;
            }
        }
    }

    /// Reads entries `from .. size` (a batch at most) into the totals.
    fn read(&self, floor: &Floor, feed: &mut Feed, from: u64, size: u64) -> Result<(), String> {
        let feed::Read { entries, read } =
            feed::Source::entries(floor, from, (size - from).min(1024))?;
        if read == 0 {
            return Err(format!("entry {from} cannot be read"));
        }
        let today = floor.now() / DAY_MS;
        for entry in &entries {
            let sequence = entry.envelope.sequence;
            let seen = feed.see(entry, floor).map_err(|e| e.to_string())?;
            if let Seen::Statement(part) = seen {
                // Checked outside the lock: the range after the statement's end is read again.
                // (The period is out of the state meanwhile; no statement is written then: one
                // is pending until its last part is read, or the server is still catching up.)
                let last = part.part == part.parts;
                let mut period = std::mem::take(&mut self.lock().period);
                let checked = period.statement(sequence, part, floor);
                let mut state = self.lock();
                state.period = period;
                if last {
                    state.statement_pending = false;
                }
                state.through = sequence + 1;
                match checked {
                    Ok(None) => {}
                    Ok(Some(d)) => tracing::error!(
                        sequence = d.sequence,
                        problem = %d.problem,
                        "returns: a statement in the log does not agree with its hands"
                    ),
                    Err(e) => return Err(e.to_string()),
                }
                continue;
            }
            let mut state = self.lock();
            match seen {
                Seen::Totals(added) => {
                    for (key, sums, at_ms) in added {
                        state.period.add(&key, &sums).map_err(|e| e.to_string())?;
                        if !state.keys.contains_key(&key) {
                            if state.keys.len() >= MAX_KEYS {
                                state.untracked += sums.hands;
                                continue;
                            }
                            if let std::collections::hash_map::Entry::Vacant(wanted) =
                                state.theories.entry(key.config_id)
                            {
                                if let Some(config) = floor.config(&key.config_id) {
                                    wanted.insert(
                                        match self.wanted.try_send((key.config_id, config)) {
                                            Ok(()) => Known::Computing,
                                            Err(_) => {
                                                Known::Failed("the theory thread stopped".into())
                                            }
                                        },
                                    );
                                }
                            }
                        }
                        state
                            .keys
                            .entry(key)
                            .or_default()
                            .add(&sums, at_ms / DAY_MS, today)
                            .map_err(|e| e.to_string())?;
                    }
                }
                Seen::Alert(alert) => {
                    if let Some(key) = alert.totals.as_ref().and_then(Sums::from_proto) {
                        state.open.insert((key.0, alert.window_days), sequence);
                    }
                    state.alerts.insert(
                        sequence,
                        AlertState {
                            alert: *alert,
                            sequence,
                            investigation: None,
                        },
                    );
                    // The oldest closed alert goes first; an open one only when all are open
                    // (and then its window may open another).
                    while state.alerts.len() > ALERTS_KEPT {
                        let oldest = state
                            .alerts
                            .iter()
                            .find(|(_, a)| a.investigation.is_some())
                            .or_else(|| state.alerts.iter().next())
                            .map(|(s, _)| *s);
                        let Some(oldest) = oldest else { break };
                        state.alerts.remove(&oldest);
                        state.open.retain(|_, s| *s != oldest);
                    }
                }
                Seen::Investigated(investigation, actor) => {
                    let found = state
                        .alerts
                        .values()
                        .find(|a| a.alert.alert_id == investigation.alert_id)
                        .map(|a| a.sequence);
                    if let Some(at) = found {
                        state.open.retain(|_, s| *s != at);
                        if let Some(a) = state.alerts.get_mut(&at) {
                            a.investigation = Some((investigation, actor));
                        }
                    }
                }
                Seen::Statement(_) | Seen::Nothing => {}
            }
            state.through = sequence + 1;
        }
        // Through the entries passed over after the last one decoded, too.
        self.lock().through = from + read;
        Ok(())
    }

    /// Holds the windows to their bands, and writes the statements, as time passes.
    async fn watch(self: Arc<Self>) {
        loop {
            tokio::time::sleep(self.settings.check_every).await;
            if self.floor.log().read_only() || !self.lock().caught_up {
                continue;
            }
            for alert in self.alerts_due() {
                let id = alert.alert_id.clone();
                let marked = alert
                    .totals
                    .as_ref()
                    .and_then(Sums::from_proto)
                    .map(|(key, _)| (key, alert.window_days));
                match self.floor.record_returns_alert(alert).await {
                    // Open from now, though the reading has not met its entry yet: no second
                    // alert of the same window while the reading catches up.
                    Ok(()) => {
                        if let Some(marked) = marked {
                            self.lock().open.entry(marked).or_insert(RECORDED);
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, alert = %id, "returns: an alert could not be recorded")
                    }
                }
            }
            if let Some(parts) = self.statement_due() {
                match self.floor.record_returns_statement(parts).await {
                    Ok(()) => {}
                    Err(e) => {
                        self.lock().statement_pending = false;
                        tracing::warn!(error = %e, "returns: the statement could not be recorded");
                    }
                }
            }
        }
    }

    /// The alerts to open now: every window out of its band with enough hands and none open.
    /// Read at one instant: each alert's totals are those of the log's first `through_sequence`
    /// entries.
    fn alerts_due(&self) -> Vec<proto::ReturnsAlert> {
        let now = self.floor.now();
        let today = now / DAY_MS;
        let mut due = Vec::new();
        let by_dealer = Filter {
            by: By::Dealer,
            ..Filter::default()
        };
        let state = self.lock();
        let rows = rows_of(&state, &Filter::default(), today)
            .into_iter()
            .chain(rows_of(&state, &by_dealer, today));
        for row in rows {
            let Ok(theory) = row.theory else {
                continue;
            };
            let (hands, staked, paid, _, squares) = row.sums.net();
            let Some(standing) = theory.standing(staked, paid, squares) else {
                continue;
            };
            // Open, or recorded and not read back yet (its marker, `RECORDED`).
            let open = state.open.contains_key(&(row.key.clone(), row.window_days));
            if hands < self.settings.min_hands || !standing.out_of_band || open {
                continue;
            }
            let Some(totals) = row.sums.to_proto(&row.key) else {
                continue;
            };
            let mut id = [0u8; 16];
            if getrandom::fill(&mut id).is_err() {
                continue;
            }
            due.push(proto::ReturnsAlert {
                alert_id: hex::encode(id),
                totals: Some(totals),
                window_days: row.window_days,
                actual: paid as f64 / staked as f64,
                theoretical: theory.return_rate,
                z: standing.z,
                band_low: standing.band_low,
                band_high: standing.band_high,
                at_ms: now,
                through_sequence: state.through,
            });
        }
        due
    }

    /// The statement to write now, if its period has ended: its parts (then pending until read
    /// back). The first period a server sees begins when it first looks.
    fn statement_due(&self) -> Option<Vec<proto::ReturnsStatement>> {
        let every = u64::try_from(self.settings.statement_every?.as_millis())
            .ok()?
            .max(1);
        let now = self.floor.now();
        let mut state = self.lock();
        if state.statement_pending {
            return None;
        }
        if state.period.start_ms == 0 {
            state.period.start_ms = now;
            return None;
        }
        if state.period.start_ms / every >= now / every {
            return None;
        }
        let parts = statement::parts(
            &state.period.totals,
            state.period.from,
            state.through,
            (state.period.start_ms, now),
        )?;
        state.statement_pending = true;
        Some(parts)
    }

    /// The rows `filter` asks for, in key order then window: the totals of the keys it matches,
    /// summed per table (every dealer's, hands' too) or per dealer (every table's, hands left
    /// out: they have no dealer). A row's key names the table, the dealer or both that were summed
    /// apart: its `table` is empty when it sums every table, its `dealer` when it sums every
    /// dealer.
    pub fn rows(&self, filter: &Filter) -> Vec<Row> {
        let today = self.floor.now() / DAY_MS;
        rows_of(&self.lock(), filter, today)
    }

    /// The page of `size` rows `filter` asks for after `token` (from the first without), the
    /// newest `alerts` it matches and any older one a row of the page names, and how far the
    /// reading has come, all read at one instant: a row names an open alert exactly when the
    /// page's alerts hold it.
    pub fn page(
        &self,
        filter: &Filter,
        token: Option<&str>,
        size: usize,
        alerts: usize,
    ) -> Result<Page, TokenError> {
        let after = token.map(Cursor::parse).transpose()?;
        let today = self.floor.now() / DAY_MS;
        let state = self.lock();
        let mut rows = rows_of(&state, filter, today);
        let first = match &after {
            Some(cursor) => cursor.start_in(&rows, filter)?,
            None => 0,
        };
        let all = rows.len();
        let end = first.saturating_add(size.max(1)).min(all);
        rows.truncate(end);
        let rows = rows.split_off(first.min(end));
        let mut alerts = alerts_of(&state, filter, alerts);
        for row in &rows {
            let named = row
                .open_alert
                .as_ref()
                .and_then(|_| state.open.get(&(row.key.clone(), row.window_days)))
                .and_then(|s| state.alerts.get(s));
            if let Some(older) = named {
                if !alerts.iter().any(|a| a.sequence == older.sequence) {
                    alerts.push(older.clone());
                }
            }
        }
        Ok(Page {
            next: rows.last().filter(|_| end < all).map(Cursor::after),
            rows,
            alerts,
            through: state.through,
            caught_up: state.caught_up,
            untracked: state.untracked,
        })
    }

    /// How many alerts are open (recorded and not investigated).
    pub fn open_alerts(&self) -> usize {
        let state = self.lock();
        state
            .open
            .values()
            .filter(|s| state.alerts.contains_key(s))
            .count()
    }

    /// (the next sequence to read, caught up, hands untracked, statements checked, why stopped).
    pub fn progress(&self) -> (u64, bool, u64, u64, Option<String>) {
        let s = self.lock();
        (
            s.through,
            s.caught_up,
            s.untracked,
            s.period.checked,
            s.stopped.clone(),
        )
    }

    /// Whether alert `alert_id` is one the server knows (open or closed).
    pub fn knows_alert(&self, alert_id: &str) -> bool {
        self.lock()
            .alerts
            .values()
            .any(|a| a.alert.alert_id == alert_id)
    }
}

/// The rows `filter` asks for in `state`, `today` being the day number (see [`Returns::rows`]).
fn rows_of(state: &State, filter: &Filter, today: u64) -> Vec<Row> {
    let mut summed: BTreeMap<Key, Vec<Result<Sums, tally::Overflow>>> = BTreeMap::new();
    for (key, tracked) in &state.keys {
        if !filter.matches(key) || (filter.by == By::Dealer && key.dealer.is_empty()) {
            continue;
        }
        let row = filter.row_key(key);
        let sums = summed
            .entry(row)
            .or_insert_with(|| vec![Ok(Sums::default()); filter.windows().len()]);
        for (total, &days) in sums.iter_mut().zip(filter.windows()) {
            if let Ok(sum) = total {
                if let Err(overflow) = sum.add(&tracked.window(days, today)) {
                    *total = Err(overflow);
                }
            }
        }
    }
    let mut rows = Vec::new();
    for (key, sums) in summed {
        let theory = match state.theories.get(&key.config_id) {
            Some(Known::Ready(t)) => t
                .get(&key.bet)
                .copied()
                .ok_or_else(|| "the lab has no sheet for this bet".to_string()),
            Some(Known::Computing) => Err("being computed".into()),
            Some(Known::Failed(e)) => Err(e.clone()),
            None => Err("the configuration is not known to this server".into()),
        };
        for (sums, &window_days) in sums.into_iter().zip(filter.windows()) {
            // Only an alert the filter shows: a dealer's (every table's) is not a scoped one's.
            let open_alert = state
                .open
                .get(&(key.clone(), window_days))
                .and_then(|s| state.alerts.get(s))
                .filter(|a| filter.shows(a))
                .map(|a| a.alert.alert_id.clone());
            let (sums, theory) = match sums {
                Ok(sums) => (sums, theory.clone()),
                Err(e) => (Sums::default(), Err(format!("{e} summing this row"))),
            };
            rows.push(Row {
                key: key.clone(),
                window_days,
                sums,
                theory,
                open_alert,
            });
        }
    }
    rows
}

/// The alerts of `state` whose key `filter` matches, newest first, at most `limit`.
fn alerts_of(state: &State, filter: &Filter, limit: usize) -> Vec<AlertState> {
    state
        .alerts
        .values()
        .rev()
        .filter(|a| filter.shows(a))
        .take(limit)
        .cloned()
        .collect()
}

/// How the rows are summed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum By {
    /// A row per table (game, configuration, bet group): every dealer's rounds and the hands.
    #[default]
    Table,
    /// A row per dealer: every table's rounds of that dealer (hands have no dealer).
    Dealer,
}

/// What rows a caller asks for: each field empty for all.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub game: Option<pitboss_engine::game::GameId>,
    pub table: Option<String>,
    /// Only this dealer's rounds.
    pub dealer: Option<String>,
    pub config_id: Option<ConfigId>,
    pub bet: Option<String>,
    /// Windows in days (empty: all of [`WINDOWS`]).
    pub windows: Vec<u32>,
    /// A row per table or per dealer.
    pub by: By,
    /// The tables and games the caller reaches (`None`: all).
    pub tables: Option<std::collections::BTreeSet<String>>,
    pub games: Option<std::collections::BTreeSet<pitboss_engine::game::GameId>>,
}

impl Filter {
    /// Whether the alert's key is one this filter matches.
    fn shows(&self, alert: &AlertState) -> bool {
        alert
            .alert
            .totals
            .as_ref()
            .and_then(Sums::from_proto)
            .is_some_and(|(k, _)| self.matches(&k))
    }

    fn matches(&self, key: &Key) -> bool {
        self.game.is_none_or(|g| g == key.game)
            && self.table.as_ref().is_none_or(|t| *t == key.table)
            && self.dealer.as_ref().is_none_or(|d| *d == key.dealer)
            && self.config_id.is_none_or(|c| c == key.config_id)
            && self.bet.as_ref().is_none_or(|b| *b == key.bet)
            && self.tables.as_ref().is_none_or(|t| t.contains(&key.table))
            && self.games.as_ref().is_none_or(|g| g.contains(&key.game))
    }

    /// The row a key's totals are summed into: its table kept when the rows are per table or one
    /// table is asked for, its dealer when the rows are per dealer or one dealer is asked for.
    fn row_key(&self, key: &Key) -> Key {
        let keep_table = self.by == By::Table || self.table.is_some();
        let keep_dealer = self.by == By::Dealer || self.dealer.is_some();
        Key {
            game: key.game,
            table: if keep_table {
                key.table.clone()
            } else {
                String::new()
            },
            dealer: if keep_dealer {
                key.dealer.clone()
            } else {
                String::new()
            },
            config_id: key.config_id,
            bet: key.bet.clone(),
        }
    }

    fn windows(&self) -> &[u32] {
        if self.windows.is_empty() {
            &WINDOWS
        } else {
            &self.windows
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use super::*;
    use crate::floor::testing::{floor_in, log_size};
    use crate::floor::{OpenRequest, OpenRoundRequest, RoundCall};
    use pitboss_engine::game::GameId;
    use pitboss_engine::games::{Action, Shaker, Timestamp, VoidKind, VoidOrder};
    use pitboss_engine::money::Money;
    use pitboss_engine::round::{Decide, OpenRound, Phase, PlaceBet, RoundCommand, Shape};
    use pitboss_engine::settlement::{BetId, Wager};

    /// The bet group of a settlement line, written out as `docs/returns.md` states it (not taken
    /// from the engine's facts).
    fn group(bet: &str) -> String {
        match bet {
            "ante" | "raise" | "street_3" | "street_4" | "street_5" => "main".into(),
            other => other.into(),
        }
    }

    /// (hands, staked, paid) net of voids, by (table or dealer, game, group).
    type Expected = BTreeMap<(String, GameId, String), (u64, u128, u128)>;

    fn wager(bet: BetId, amount: u64) -> Wager {
        Wager {
            bet,
            amount: Money(amount),
        }
    }

    /// How a round ends.
    #[derive(Clone, Copy, PartialEq)]
    enum End {
        Showdown,
        /// The first place forfeited, the rest to the showdown.
        Forfeit,
        /// A malfunction before the deal: every bet refunded.
        VoidBefore,
        /// A malfunction after the showdown, approved by a second person: every settlement
        /// reversed.
        VoidAfter,
    }

    struct Played {
        id: String,
        game: GameId,
        table: String,
        dealer: String,
    }

    /// A round of `game` at `table` dealt by `dealer`: each (player, wagers, decision) a place
    /// (a seat in the card games), played to `end`.
    async fn play(
        floor: &Floor,
        game: GameId,
        table: &str,
        dealer: &str,
        places: &[(&str, Vec<Wager>, Action)],
        end: End,
    ) -> Played {
        let shape = match game {
            GameId::Nutz => Shape::OneShake,
            _ => Shape::Seats { seats: 7 },
        };
        let id = floor
            .open_round(
                OpenRoundRequest {
                    game,
                    config_id: None,
                    open: OpenRound {
                        table: table.into(),
                        dealer: dealer.into(),
                        shoe: None,
                        shape,
                        max_players: 7,
                        seats_per_player: 1,
                        decision_window_ms: 600_000,
                        at: Timestamp(0),
                    },
                    actor: "table".into(),
                    request_id: None,
                },
                |_| (),
            )
            .await
            .unwrap()
            .id;
        let call = RoundCall::by("table");
        let seat = |i: usize| (shape != Shape::OneShake).then_some(i as u8 + 1);
        for (i, (player, wagers, _)) in places.iter().enumerate() {
            let bet = PlaceBet {
                seed_digest: None,
                player: player.to_string(),
                seat: seat(i),
                wagers: wagers.clone(),
                at: Timestamp(0),
            };
            floor
                .round_command(
                    &id,
                    |at| RoundCommand::Bet(PlaceBet { at, ..bet.clone() }),
                    &call,
                    |_, _| (),
                )
                .await
                .unwrap();
        }
        let order = |kind, approved_by: Option<&'static str>| {
            move |at| VoidOrder {
                kind,
                reason: "test".into(),
                recorded_by: "super-1".into(),
                approved_by: approved_by.map(str::to_string),
                at,
            }
        };
        if end == End::VoidBefore {
            let order = order(VoidKind::Malfunction, None);
            floor
                .round_command(
                    &id,
                    |at| RoundCommand::VoidRound(order(at)),
                    &call,
                    |_, _| (),
                )
                .await
                .unwrap();
            return Played {
                id,
                game,
                table: table.into(),
                dealer: dealer.into(),
            };
        }
        floor
            .round_command(
                &id,
                |at| RoundCommand::CloseBetting { at, shaker: None },
                &call,
                |_, _| (),
            )
            .await
            .unwrap();
        let mut first = 0;
        if end == End::Forfeit {
            let order = order(VoidKind::ConductForfeit, None);
            let player = places[0].0.to_string();
            floor
                .round_command(
                    &id,
                    |at| RoundCommand::Forfeit {
                        player: player.clone(),
                        seat: seat(0),
                        order: order(at),
                    },
                    &call,
                    |_, _| (),
                )
                .await
                .unwrap();
            first = 1;
        }
        if game == GameId::Nutz {
            // The cup offered to nobody: the dealer shakes until the shaking is done.
            for _ in 0..16 {
                let phase = floor
                    .round_command(
                        &id,
                        |at| {
                            RoundCommand::Decide(Decide {
                                player: dealer.into(),
                                seat: None,
                                action: Action::Shake { by: Shaker::Dealer },
                                at,
                            })
                        },
                        &call,
                        |round, _| round.phase(),
                    )
                    .await
                    .unwrap()
                    .answer;
                if phase == Phase::Ended {
                    break;
                }
            }
        } else {
            for (i, (player, _, action)) in places.iter().enumerate().skip(first) {
                floor
                    .round_command(
                        &id,
                        |at| {
                            RoundCommand::Decide(Decide {
                                player: player.to_string(),
                                seat: seat(i),
                                action: *action,
                                at,
                            })
                        },
                        &call,
                        |_, _| (),
                    )
                    .await
                    .unwrap();
            }
        }
        assert_eq!(floor.load_round(&id).unwrap().phase(), Phase::Ended);
        if end == End::VoidAfter {
            let order = order(VoidKind::Malfunction, Some("super-2"));
            floor
                .round_command(
                    &id,
                    |at| RoundCommand::VoidRound(order(at)),
                    &call,
                    |_, _| (),
                )
                .await
                .unwrap();
        }
        Played {
            id,
            game,
            table: table.into(),
            dealer: dealer.into(),
        }
    }

    /// Adds one settlement's lines (bet, stake, payout) under `owner`, by group.
    fn add(expected: &mut Expected, owner: &str, game: GameId, lines: &[(String, u64, u64)]) {
        let mut groups: BTreeMap<String, (u128, u128)> = BTreeMap::new();
        for (bet, stake, payout) in lines {
            let g = groups.entry(group(bet)).or_default();
            g.0 += u128::from(*stake);
            g.1 += u128::from(*payout);
        }
        for (name, (staked, paid)) in groups {
            let e = expected.entry((owner.to_string(), game, name)).or_default();
            e.0 += 1;
            e.1 += staked;
            e.2 += paid;
        }
    }

    /// Rounds of three dealers at two tables (Caribbean Stud, Mississippi Stud, Nutz), one with a
    /// forfeit, one voided before its deal, one voided after its showdown, and a one-player hand,
    /// all played through the floor: the feed's totals, summed per table and per dealer, and the
    /// rows `Returns` answers by table and by dealer, equal what the test adds up from the places'
    /// own settlements (the hand under its table only; a voided settlement reversed; a place voided
    /// before it settled counted nowhere).
    #[tokio::test(flavor = "multi_thread")]
    async fn rounds_count_per_table_and_per_dealer_as_their_places_settled() {
        let dir = tempfile::tempdir().unwrap();
        let (floor, _clock) = floor_in(dir.path()).await;
        let cs = |ante, bonus| {
            let mut w = vec![wager(BetId::Ante, ante)];
            if bonus > 0 {
                w.push(wager(BetId::Bonus, bonus));
            }
            w
        };
        let mut played = Vec::new();
        let caribbean = GameId::CaribbeanStud;
        played.push(
            play(
                &floor,
                caribbean,
                "T1",
                "d1",
                &[
                    ("p1", cs(500, 100), Action::Raise),
                    ("p2", cs(200, 0), Action::Fold),
                    ("p3", cs(300, 100), Action::Raise),
                ],
                End::Showdown,
            )
            .await,
        );
        played.push(
            play(
                &floor,
                caribbean,
                "T1",
                "d2",
                &[
                    ("p1", cs(400, 0), Action::Raise),
                    ("p4", cs(600, 100), Action::Raise),
                ],
                End::Forfeit,
            )
            .await,
        );
        played.push(
            play(
                &floor,
                caribbean,
                "T2",
                "d1",
                &[
                    ("p2", cs(1000, 100), Action::Raise),
                    ("p5", cs(700, 0), Action::Fold),
                ],
                End::Showdown,
            )
            .await,
        );
        played.push(
            play(
                &floor,
                GameId::MississippiStud,
                "T2",
                "d3",
                &[
                    ("p1", vec![wager(BetId::Ante, 500)], Action::MaxBetAll),
                    ("p6", vec![wager(BetId::Ante, 300)], Action::Fold),
                ],
                End::Showdown,
            )
            .await,
        );
        played.push(
            play(
                &floor,
                GameId::Nutz,
                "T1",
                "d3",
                &[
                    ("p7", vec![wager(BetId::BoxOnePair, 500)], Action::Fold),
                    ("p8", vec![wager(BetId::BoxNutz, 100)], Action::Fold),
                ],
                End::Showdown,
            )
            .await,
        );
        played.push(
            play(
                &floor,
                caribbean,
                "T2",
                "d2",
                &[
                    ("p1", cs(500, 100), Action::Raise),
                    ("p3", cs(500, 0), Action::Raise),
                ],
                End::VoidAfter,
            )
            .await,
        );
        played.push(
            play(
                &floor,
                caribbean,
                "T1",
                "d1",
                &[("p9", cs(900, 0), Action::Raise)],
                End::VoidBefore,
            )
            .await,
        );
        // A one-player hand at T1: it has no dealer.
        let hand = floor
            .open_hand(OpenRequest {
                game: Some(caribbean),
                table: "T1".into(),
                player: "h1".into(),
                wagers: cs(800, 100),
                actor: "table".into(),
                ..Default::default()
            })
            .await
            .unwrap();
        let hand = floor
            .act(&hand.id, Action::Fold, None, None, "table")
            .await
            .unwrap()
            .hand;

        // What the places' own settlements add up to.
        let (mut by_table, mut by_dealer) = (Expected::new(), Expected::new());
        let mut reversed = 0;
        for p in &played {
            let round = floor.load_round(&p.id).unwrap();
            for place in round.places() {
                let hand = place.hand();
                let Some(settlement) = hand.settlement() else {
                    continue;
                };
                if hand.void().is_some() {
                    // Settled and voided after: reversed, net nothing; one reversal per group.
                    let groups: std::collections::BTreeSet<String> =
                        settlement.lines.iter().map(|l| group(l.bet.id())).collect();
                    reversed += groups.len() as u64;
                    continue;
                }
                let lines: Vec<(String, u64, u64)> = settlement
                    .lines
                    .iter()
                    .map(|l| (l.bet.id().to_string(), l.stake.0, l.payout.0))
                    .collect();
                add(&mut by_table, &p.table, p.game, &lines);
                add(&mut by_dealer, &p.dealer, p.game, &lines);
            }
        }
        assert_eq!(
            reversed, 3,
            "the round voided after its showdown: p1's main and bonus, p3's main"
        );
        let settlement = hand.settlement().expect("the hand settled");
        let lines: Vec<(String, u64, u64)> = settlement
            .lines
            .iter()
            .map(|l| (l.bet.id().to_string(), l.stake.0, l.payout.0))
            .collect();
        add(&mut by_table, "T1", caribbean, &lines);
        assert!(by_dealer
            .keys()
            .any(|(d, g, _)| d == "d3" && *g == GameId::Nutz));

        // The feed, read in order as a statement's recomputation reads it.
        let size = log_size(&floor);
        let totals = statement::totals_of(&floor, 0, size).unwrap();
        let summed = |owner: fn(&Key) -> &str, hands: bool| {
            let mut out = Expected::new();
            for (key, sums) in &totals {
                if !hands && key.dealer.is_empty() {
                    continue;
                }
                let (n, staked, paid, _, _) = sums.net();
                if n == 0 {
                    continue;
                }
                let e = out
                    .entry((owner(key).to_string(), key.game, key.bet.clone()))
                    .or_default();
                e.0 += n;
                e.1 += staked;
                e.2 += paid;
            }
            out
        };
        assert_eq!(summed(|k| &k.table, true), by_table);
        assert_eq!(summed(|k| &k.dealer, false), by_dealer);
        let voided: u64 = totals.values().map(|s| s.voided_hands).sum();
        assert_eq!(
            voided, reversed,
            "one reversal per place and group of the round voided after it settled"
        );

        // Read from any entry on, with nothing kept of what came before (a statement's range):
        // the rounds met mid-way are read back from their streams, and the two parts add up to
        // the whole, at every cut.
        for cut in 0..=size {
            let mut parts = statement::totals_of(&floor, 0, cut).unwrap();
            for (key, sums) in statement::totals_of(&floor, cut, size).unwrap() {
                parts.entry(key).or_default().add(&sums).unwrap();
            }
            assert_eq!(parts, totals, "cut at entry {cut}");
        }

        // The returns as the server keeps them: rows per table and per dealer.
        let floor = Arc::new(floor);
        let configs = [caribbean, GameId::MississippiStud, GameId::Nutz]
            .iter()
            .filter_map(|g| floor.default_config(*g))
            .collect();
        let returns = Returns::start(floor.clone(), Settings::default(), configs);
        let waited = std::time::Instant::now();
        loop {
            let (through, caught_up, ..) = returns.progress();
            if caught_up && through >= size {
                break;
            }
            assert!(
                waited.elapsed() < std::time::Duration::from_secs(120),
                "the returns read {through} of {size} entries"
            );
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        let rows = |by: By| {
            let mut out = Expected::new();
            for row in returns.rows(&Filter {
                by,
                windows: vec![0],
                ..Filter::default()
            }) {
                let (n, staked, paid, _, _) = row.sums.net();
                if n == 0 {
                    continue;
                }
                let owner = match by {
                    By::Table => {
                        assert!(row.key.dealer.is_empty(), "{:?}", row.key);
                        row.key.table.clone()
                    }
                    By::Dealer => {
                        assert!(row.key.table.is_empty(), "{:?}", row.key);
                        row.key.dealer.clone()
                    }
                };
                assert!(
                    out.insert(
                        (owner, row.key.game, row.key.bet.clone()),
                        (n, staked, paid)
                    )
                    .is_none(),
                    "one row per owner and bet group of one game and configuration"
                );
            }
            out
        };
        assert_eq!(rows(By::Table), by_table);
        assert_eq!(rows(By::Dealer), by_dealer);
        // One dealer at one table: d1's rounds at T1 only.
        let d1_t1: Vec<Row> = returns.rows(&Filter {
            by: By::Dealer,
            dealer: Some("d1".into()),
            table: Some("T1".into()),
            windows: vec![0],
            ..Filter::default()
        });
        let main = d1_t1
            .iter()
            .find(|r| r.key.bet == "main" && r.key.game == caribbean)
            .unwrap();
        assert_eq!(
            (main.key.table.as_str(), main.key.dealer.as_str()),
            ("T1", "d1")
        );
        assert_eq!(main.sums.net().0, 3, "the three places of d1's round at T1");

        // An alert on d1's main bet, every table's, as the reading keeps one.
        let by_dealer = Filter {
            by: By::Dealer,
            windows: vec![0],
            ..Filter::default()
        };
        let d1 = returns
            .rows(&by_dealer)
            .into_iter()
            .find(|r| r.key.dealer == "d1" && r.key.bet == "main" && r.key.game == caribbean)
            .unwrap();
        let alert = AlertState {
            alert: proto::ReturnsAlert {
                alert_id: "a1".into(),
                totals: d1.sums.to_proto(&d1.key),
                ..Default::default()
            },
            sequence: size + 1000,
            investigation: None,
        };
        {
            let mut state = returns.lock();
            state.alerts.insert(alert.sequence, alert);
            state.open.insert((d1.key.clone(), 0), size + 1000);
        }
        let names = |page: &Page| -> (Vec<String>, Vec<String>) {
            (
                page.rows
                    .iter()
                    .filter_map(|r| r.open_alert.clone())
                    .collect(),
                page.alerts
                    .iter()
                    .map(|a| a.alert.alert_id.clone())
                    .collect(),
            )
        };
        // Asked with no newest alerts, the page still holds the one its row names.
        let all = returns.page(&by_dealer, None, 1000, 0).unwrap();
        assert_eq!(names(&all), (vec!["a1".into()], vec!["a1".into()]));
        // One page at a time, the alert comes with the page of its row only.
        let mut token = None;
        let mut seen = Vec::new();
        loop {
            let page = returns.page(&by_dealer, token.as_deref(), 1, 0).unwrap();
            let (rows, alerts) = names(&page);
            assert_eq!(rows, alerts);
            seen.extend(page.rows.iter().map(|r| r.key.clone()));
            match page.next {
                Some(next) => token = Some(next.token()),
                None => break,
            }
        }
        assert_eq!(
            seen,
            all.rows.iter().map(|r| r.key.clone()).collect::<Vec<_>>()
        );
        // A principal scoped to T1 sees d1's rounds at T1 in the same row, but neither the id nor
        // the alert: it sums tables outside the scope.
        let scoped = Filter {
            tables: Some(["T1".to_string()].into()),
            ..by_dealer.clone()
        };
        let page = returns.page(&scoped, None, 1000, 100).unwrap();
        assert!(page.rows.iter().any(|r| r.key == d1.key), "{:?}", page.rows);
        assert_eq!(names(&page), (vec![], vec![]));
    }
}
