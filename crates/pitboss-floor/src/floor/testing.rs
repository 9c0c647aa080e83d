//! For the rooms' unit tests: a floor on a ledger in memory (durability is not what they test)
//! with a clock the test moves, and the requests they make. No gRPC: the rooms are driven through
//! their own methods.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use pitboss_engine::game::GameId;
use pitboss_engine::money::Money;
use pitboss_engine::settlement::{BetId, Wager};
use pitboss_ledger::mem::MemoryLog;
use pitboss_ledger::Ledger;

use super::{Floor, OpenRequest};

/// When the tests' clock starts (2026-09-21).
pub(crate) const T0: u64 = 1_790_000_000_000;

/// A floor on a new log in memory, its key in `dir`, its clock at `T0` until the test moves it.
pub(crate) async fn floor_in(dir: &std::path::Path) -> (Floor, Arc<AtomicU64>) {
    floor_on(&MemoryLog::new(), dir).await
}

/// A floor on the log `log` holds (new, or opened again), its key in `dir`, its clock at `T0`.
pub(crate) async fn floor_on(log: &MemoryLog, dir: &std::path::Path) -> (Floor, Arc<AtomicU64>) {
    let now = Arc::new(AtomicU64::new(T0));
    let clock = now.clone();
    let ledger = Arc::new(Ledger::open_memory(log, dir, T0, None).expect("a ledger in memory"));
    let floor = Floor::open(ledger, Arc::new(move || clock.load(Ordering::SeqCst)))
        .await
        .expect("the floor opens");
    (floor, now)
}

/// Opening a Mississippi Stud hand of 5.00 ante at table `table` for `player`.
pub(crate) fn mississippi(table: &str, player: &str, request_id: Option<&str>) -> OpenRequest {
    OpenRequest {
        request_id: request_id.map(str::to_string),
        game: Some(GameId::MississippiStud),
        table: table.into(),
        player: player.into(),
        wagers: vec![Wager {
            bet: BetId::Ante,
            amount: Money(500),
        }],
        actor: "tester".into(),
        ..Default::default()
    }
}

/// The number of entries in the log.
pub(crate) fn log_size(floor: &Floor) -> u64 {
    floor
        .log()
        .head()
        .expect("the head reads")
        .map_or(0, |(sequence, _)| sequence + 1)
}
