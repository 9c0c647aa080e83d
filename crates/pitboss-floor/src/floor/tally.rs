//! The floor's counts of what it recorded since it opened: hands opened, settled and voided, by
//! game, counted once each entry is durable (a retry answered from the log counts nothing).
//!
//! Owns plain counters read by the server's metrics; must not be mistaken for the log's totals
//! (they start at zero at every start: the log, replayed, is the record).

use std::sync::atomic::{AtomicU64, Ordering};

use pitboss_engine::game::GameId;
use pitboss_engine::games::Event;

/// What happened to a hand, as counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Happened {
    Opened,
    Settled,
    Voided,
}

impl Happened {
    pub const ALL: [Happened; 3] = [Happened::Opened, Happened::Settled, Happened::Voided];

    /// The stable name (a metrics label).
    pub const fn name(self) -> &'static str {
        match self {
            Happened::Opened => "opened",
            Happened::Settled => "settled",
            Happened::Voided => "voided",
        }
    }

    fn of(event: &Event) -> Option<Happened> {
        match event {
            Event::Opened(_) => Some(Happened::Opened),
            Event::Settled(_) => Some(Happened::Settled),
            Event::Voided(_) => Some(Happened::Voided),
            _ => None,
        }
    }
}

/// Counts by game and by what happened.
#[derive(Debug, Default)]
pub struct Tally {
    counts: [[AtomicU64; 3]; 4],
}

fn slot(game: GameId) -> usize {
    GameId::ALL.iter().position(|g| *g == game).unwrap_or(0)
}

fn column(happened: Happened) -> usize {
    Happened::ALL
        .iter()
        .position(|h| *h == happened)
        .unwrap_or(0)
}

impl Tally {
    /// Counts the events of `game` just made durable.
    pub(super) fn record(&self, game: GameId, events: &[Event]) {
        for happened in events.iter().filter_map(Happened::of) {
            self.counts[slot(game)][column(happened)].fetch_add(1, Ordering::Relaxed);
        }
    }

    /// How many hands of `game` had this happen since the floor opened.
    pub fn count(&self, game: GameId, happened: Happened) -> u64 {
        self.counts[slot(game)][column(happened)].load(Ordering::Relaxed)
    }
}
