//! Rounds (issue 39): a live studio's shared hand of 10 000 players opened, bet, dealt, decided
//! and settled through the engine's `Round`, against the two-core signing rate measured in the same
//! run; a 7-seat Caribbean Stud table's rounds/s beside one-player hands/s; resident memory per
//! place. Run: `cargo bench --bench rounds` (numbers in `docs/PERFORMANCE.md`).
//!
//! The engine alone: no log, no gRPC. Every event a round gives is one the service signs and
//! appends, so events/s here against the signing rate says whether the engine or the signature
//! bounds a round.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

mod support;

use support::seed;

use pitboss_engine::config::GameConfig;
use pitboss_engine::game::GameId;
use pitboss_engine::games::{Action, Timestamp};
use pitboss_engine::money::Money;
use pitboss_engine::round::{Decide, OpenRound, PlaceBet, Round, RoundCommand, Shape};
use pitboss_engine::settlement::{BetId, Wager};

/// The system allocator, counting the bytes held now and the most held since the last reset.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc`, passed on to the system allocator.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = HELD.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc`, passed on to the system allocator.
        unsafe { System.dealloc(ptr, layout) };
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Bytes held now.
fn held() -> usize {
    HELD.load(Ordering::Relaxed)
}

/// Starts a new peak from what is held now.
fn reset_peak() {
    PEAK.store(held(), Ordering::Relaxed);
}

/// A status line of `/proc/self/status`, in kB (0 where there is none).
fn status_kb(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

fn open(shape: Shape, players: u32) -> RoundCommand {
    RoundCommand::Open(OpenRound {
        table: "studio-1".into(),
        dealer: "dealer-1".into(),
        shoe: None,
        shape,
        max_players: players,
        seats_per_player: 1,
        decision_window_ms: 60_000,
        at: Timestamp(1),
    })
}

fn ante(amount: u64) -> Vec<Wager> {
    opening(GameId::CaribbeanStud, amount)
}

/// The game's one required wager (the Pai Gow main bet, the others' ante) at `amount`.
fn opening(game: GameId, amount: u64) -> Vec<Wager> {
    let bet = if game == GameId::FortunePaiGow {
        BetId::Main
    } else {
        BetId::Ante
    };
    vec![Wager {
        bet,
        amount: Money(amount),
    }]
}

/// One shared-hand round of `players`, timed by phase.
fn shared_hand(game: GameId, players: u32, n: u64) {
    let config = Arc::new(GameConfig::default_for(game));
    let before = held();
    reset_peak();
    let started = Instant::now();
    let mut round = Round::new(seed(n), config);
    let mut events = round.step(&open(Shape::SharedHand, players)).unwrap().len();
    for k in 0..players {
        events += round
            .step(&RoundCommand::Bet(PlaceBet {
                seed_digest: None,
                player: format!("viewer-{k}"),
                seat: None,
                wagers: opening(game, 100 + u64::from(k % 40) * 100),
                at: Timestamp(2),
            }))
            .unwrap()
            .len();
    }
    let bet = started.elapsed().as_secs_f64();
    let after_bets = held() - before;
    events += round
        .step(&RoundCommand::CloseBetting {
            at: Timestamp(3),
            shaker: None,
        })
        .unwrap()
        .len();
    let decided = Instant::now();
    let mut last = 0.0;
    let mut street = 0u64;
    while round.phase() == pitboss_engine::round::Phase::Playing {
        street += 1;
        let ready: Vec<u32> = (0..players)
            .filter(|&k| {
                let place = &round.places()[k as usize];
                place.in_play() && place.waiting().is_empty()
            })
            .collect();
        for k in ready {
            let place = &round.places()[k as usize];
            let legal = place.hand().legal_actions();
            // Every fourth player folds where a fold is offered; the others play on.
            let fold = legal.contains(&Action::Fold) && k % 4 == 0;
            let action = if fold {
                Action::Fold
            } else {
                *legal.iter().find(|a| **a != Action::Fold).unwrap()
            };
            let step = Instant::now();
            let caused = round
                .step(&RoundCommand::Decide(Decide {
                    player: format!("viewer-{k}"),
                    seat: None,
                    action,
                    at: Timestamp(4 + street),
                }))
                .unwrap();
            if round.phase() != pitboss_engine::round::Phase::Playing {
                last = step.elapsed().as_secs_f64();
            }
            events += caused.len();
        }
    }
    let decide = decided.elapsed().as_secs_f64();
    let total = started.elapsed().as_secs_f64();
    let at_end = held() - before;
    let peak = PEAK.load(Ordering::Relaxed) - before;
    drop(round);
    println!(
        "{game}: shared hand of {players}: {events} events in {total:.3} s = {:.0} events/s; bets {bet:.3} s, decisions {decide:.3} s, the showdown (settling {players}) {last:.3} s; held {:.1} MB after bets ({:.0} B/place), {:.1} MB settled ({:.0} B/place), peak {:.1} MB",
        events as f64 / total,
        after_bets as f64 / 1e6,
        after_bets as f64 / f64::from(players),
        at_end as f64 / 1e6,
        at_end as f64 / f64::from(players),
        peak as f64 / 1e6,
    );
}

/// Full 7-seat Caribbean Stud rounds per second, and one-player hands per second, `n` of each.
fn table_against_hands(n: u64) {
    let game = GameId::CaribbeanStud;
    let config = Arc::new(GameConfig::default_for(game));
    let started = Instant::now();
    for i in 0..n {
        let mut round = Round::new(seed(i), config.clone());
        round.step(&open(Shape::Seats { seats: 7 }, 7)).unwrap();
        for seat in 1..=7u8 {
            round
                .step(&RoundCommand::Bet(PlaceBet {
                    seed_digest: None,
                    player: format!("p{seat}"),
                    seat: Some(seat),
                    wagers: ante(500),
                    at: Timestamp(2),
                }))
                .unwrap();
        }
        round
            .step(&RoundCommand::CloseBetting {
                at: Timestamp(3),
                shaker: None,
            })
            .unwrap();
        for seat in 1..=7u8 {
            round
                .step(&RoundCommand::Decide(Decide {
                    player: format!("p{seat}"),
                    seat: Some(seat),
                    action: if seat % 3 == 0 {
                        Action::Fold
                    } else {
                        Action::Raise
                    },
                    at: Timestamp(4),
                }))
                .unwrap();
        }
    }
    let rounds = n as f64 / started.elapsed().as_secs_f64();
    let hands = support::caribbean_hands(n * 7);
    println!(
        "caribbean_stud: 7-seat rounds {rounds:.0}/s ({:.0} seat-hands/s); one-player hands {hands:.0}/s; seat-hands at a table {:.2}x one-player hands",
        rounds * 7.0,
        rounds * 7.0 / hands
    );
}

fn main() {
    // `cargo test --benches` runs this without `--bench`: keep it short then.
    let quick = !std::env::args().any(|a| a == "--bench");
    let players = if quick { 500 } else { 10_000 };
    let signing = pitboss_ledger::keys::signing_rate(2, if quick { 500 } else { 20_000 });
    println!("signing, two threads: {signing:.0} signatures/s");
    for (n, game) in [
        GameId::CaribbeanStud,
        GameId::MississippiStud,
        GameId::FortunePaiGow,
    ]
    .into_iter()
    .enumerate()
    {
        shared_hand(game, players, n as u64);
    }
    table_against_hands(if quick { 50 } else { 5_000 });
    let signing_after = pitboss_ledger::keys::signing_rate(2, if quick { 500 } else { 20_000 });
    println!(
        "signing again, two threads: {signing_after:.0} signatures/s; peak RSS {} kB",
        status_kb("VmHWM:")
    );
}
