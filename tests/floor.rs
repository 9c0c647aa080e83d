//! The floor through its library API with a clock the test controls: the 30-day sweep voids
//! exactly the hands still open 30 days after they opened, and replay shows why.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use pitboss::engine::game::GameId;
use pitboss::engine::games::{Action, Shaker, Status, DAY_MS};
use pitboss::engine::money::Money;
use pitboss::engine::settlement::{BetId, Wager};
use pitboss::floor::{Floor, OpenRequest};
use pitboss::ledger::Ledger;

const T0: u64 = 1_790_000_000_000;

fn open(game: GameId, bet: BetId) -> OpenRequest {
    OpenRequest {
        game: Some(game),
        table: "T".into(),
        player: "P".into(),
        wagers: vec![Wager {
            bet,
            amount: Money(500),
        }],
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_sweep_voids_exactly_the_hands_open_for_30_days() {
    let dir = tempfile::tempdir().unwrap();
    let now = Arc::new(AtomicU64::new(T0));
    let clock = now.clone();
    let ledger = Arc::new(Ledger::open(dir.path(), T0).unwrap());
    let floor = Floor::open(ledger, Arc::new(move || clock.load(Ordering::SeqCst)))
        .await
        .unwrap();

    let stale_ms = floor
        .open_hand(open(GameId::MississippiStud, BetId::Ante))
        .await
        .unwrap()
        .id;
    let stale_cs = floor
        .open_hand(open(GameId::CaribbeanStud, BetId::Ante))
        .await
        .unwrap()
        .id;
    let finished = floor
        .open_hand(open(GameId::Nutz, BetId::BoxOnePair))
        .await
        .unwrap()
        .id;
    while floor.load(&finished, None).unwrap().status() == Status::InProgress {
        floor
            .act(&finished, Action::Shake { by: Shaker::Player }, None, None)
            .await
            .unwrap();
    }
    // Opened and played in one append: one ended there (never indexed as open), one left open.
    let played = floor
        .open_and_play(open(GameId::Nutz, BetId::BoxOnePair), |hand, _| {
            Ok((hand.status() == Status::InProgress)
                .then_some(Action::Shake { by: Shaker::Player }))
        })
        .await
        .unwrap()
        .id;
    let half = floor
        .open_and_play(open(GameId::MississippiStud, BetId::Ante), |_, n| {
            Ok((n == 0).then_some(Action::Bet { multiple: 1 }))
        })
        .await
        .unwrap()
        .id;
    assert_eq!(
        floor.load(&half, None).unwrap().status(),
        Status::InProgress
    );
    now.store(T0 + 10 * DAY_MS, Ordering::SeqCst);
    let recent = floor
        .open_hand(open(GameId::MississippiStud, BetId::Ante))
        .await
        .unwrap()
        .id;

    now.store(T0 + 30 * DAY_MS - 1, Ordering::SeqCst);
    assert!(
        floor
            .sweep(T0 + 30 * DAY_MS - 1, "sweep", None)
            .await
            .unwrap()
            .voided
            .is_empty(),
        "one ms early"
    );

    now.store(T0 + 30 * DAY_MS, Ordering::SeqCst);
    let mut voided = floor
        .sweep(T0 + 30 * DAY_MS, "sweep", None)
        .await
        .unwrap()
        .voided;
    voided.sort();
    let mut expected = vec![stale_ms.clone(), stale_cs.clone(), half.clone()];
    expected.sort();
    assert_eq!(voided, expected);
    for id in [&stale_ms, &stale_cs, &half] {
        let hand = floor.load(id, None).unwrap();
        assert_eq!(hand.status(), Status::Voided);
        assert_eq!(hand.net(), 0, "every stake refunded");
        let report = pitboss::audit::replay(floor.ledger(), |c| floor.config(c), id).unwrap();
        assert!(report.consistent, "{:#?}", report.report);
        assert!(report
            .report
            .iter()
            .any(|l| l.contains("VOID (incomplete)") && l.contains("at least 30 days")));
    }
    for id in [&finished, &played] {
        assert_eq!(floor.load(id, None).unwrap().status(), Status::Settled);
    }
    assert_eq!(
        floor.load(&recent, None).unwrap().status(),
        Status::InProgress
    );
    // Voided hands left the index of open hands: a second sweep finds nothing.
    assert!(floor
        .sweep(T0 + 30 * DAY_MS, "sweep", None)
        .await
        .unwrap()
        .voided
        .is_empty());
    // The recent hand's turn comes 30 days after it opened.
    now.store(T0 + 40 * DAY_MS, Ordering::SeqCst);
    assert_eq!(
        floor
            .sweep(T0 + 40 * DAY_MS, "sweep", None)
            .await
            .unwrap()
            .voided,
        vec![recent]
    );
    assert!(floor.ledger().verify().ok());
}
