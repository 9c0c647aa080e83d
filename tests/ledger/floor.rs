//! The floor through its library API with a clock the test controls: the incomplete-game sweep ends
//! exactly the hands still in progress more than 30 days after they opened (voided with refunds in
//! Mississippi Stud, completed and settled in Nutz and Caribbean Stud), a decision after the
//! deadline is refused, and replay shows why.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use pitboss::floor::{Floor, FloorError, OpenRequest, Script};
use pitboss_engine::game::GameId;
use pitboss_engine::games::{Action, RuleError, Shaker, Status, DAY_MS};
use pitboss_engine::money::Money;
use pitboss_engine::settlement::{BetId, Wager};
use pitboss_ledger::Ledger;

const T0: u64 = 1_790_000_000_000;

fn open(game: GameId, bets: &[BetId]) -> OpenRequest {
    OpenRequest {
        actor: "test".into(),
        game: Some(game),
        table: "T".into(),
        player: "P".into(),
        wagers: bets
            .iter()
            .map(|&bet| Wager {
                bet,
                amount: Money(if bet == BetId::Bonus && game == GameId::CaribbeanStud {
                    100
                } else {
                    500
                }),
            })
            .collect(),
        ..Default::default()
    }
}

/// A floor on a new ledger in `dir`, with a clock the test moves (starting at `T0`).
async fn floor_at(dir: &std::path::Path) -> (Floor, Arc<AtomicU64>) {
    let now = Arc::new(AtomicU64::new(T0));
    let clock = now.clone();
    let log = pitboss_ledger::mem::MemoryLog::new();
    let ledger = Arc::new(Ledger::open_memory(&log, dir, T0, None).unwrap());
    let floor = Floor::open(ledger, Arc::new(move || clock.load(Ordering::SeqCst)))
        .await
        .unwrap();
    (floor, now)
}

fn sorted(mut ids: Vec<String>) -> Vec<String> {
    ids.sort();
    ids
}

#[tokio::test(flavor = "multi_thread")]
async fn the_sweep_ends_exactly_the_hands_in_progress_more_than_30_days() {
    let dir = tempfile::tempdir().unwrap();
    let (floor, now) = floor_at(dir.path()).await;

    let stale_ms = floor
        .open_hand(open(GameId::MississippiStud, &[BetId::Ante]))
        .await
        .unwrap()
        .id;
    let stale_cs = floor
        .open_hand(open(GameId::CaribbeanStud, &[BetId::Ante, BetId::Bonus]))
        .await
        .unwrap()
        .id;
    // A Nutz hand whose round goes on after the player's first shake.
    let stale_nutz = loop {
        let id = floor
            .open_hand(open(GameId::Nutz, &[BetId::BoxOnePair]))
            .await
            .unwrap()
            .id;
        let after = floor
            .act(
                &id,
                Action::Shake { by: Shaker::Player },
                None,
                None,
                "test",
            )
            .await
            .unwrap();
        if after.hand.status() == Status::InProgress {
            break id;
        }
    };
    let finished = floor
        .open_hand(open(GameId::Nutz, &[BetId::BoxOnePair]))
        .await
        .unwrap()
        .id;
    while floor.load(&finished, None).unwrap().status() == Status::InProgress {
        floor
            .act(
                &finished,
                Action::Shake { by: Shaker::Player },
                None,
                None,
                "test",
            )
            .await
            .unwrap();
    }
    // Opened and played in one append: one ended there (never indexed as open), one left open.
    let follow = Script {
        decisions: Vec::new(),
        follow_advice: true,
    };
    let played = floor
        .play_hand(open(GameId::Nutz, &[BetId::BoxOnePair]), &follow, |hand| {
            Ok((hand.status() == Status::InProgress)
                .then_some(Action::Shake { by: Shaker::Player }))
        })
        .await
        .unwrap()
        .id;
    let one_bet = Script {
        decisions: vec![Action::Bet { multiple: 1 }],
        follow_advice: false,
    };
    let half = floor
        .play_hand(
            open(GameId::MississippiStud, &[BetId::Ante]),
            &one_bet,
            |_| unreachable!("no advice is followed"),
        )
        .await
        .unwrap()
        .id;
    assert_eq!(
        floor.load(&half, None).unwrap().status(),
        Status::InProgress
    );
    now.store(T0 + 10 * DAY_MS, Ordering::SeqCst);
    let recent = floor
        .open_hand(open(GameId::MississippiStud, &[BetId::Ante]))
        .await
        .unwrap()
        .id;

    // At exactly 30 days the hands are not yet incomplete: the sweep ends none, and a decision is
    // still taken.
    now.store(T0 + 30 * DAY_MS, Ordering::SeqCst);
    let at_30_days = floor.sweep(T0 + 30 * DAY_MS, "sweep", None).await.unwrap();
    assert!(at_30_days.voided.is_empty() && at_30_days.completed.is_empty());
    floor
        .act(&half, Action::Bet { multiple: 1 }, None, None, "test")
        .await
        .unwrap();

    // One millisecond later they are: no decision is taken any more...
    now.store(T0 + 30 * DAY_MS + 1, Ordering::SeqCst);
    let late = floor
        .act(&half, Action::Bet { multiple: 1 }, None, None, "test")
        .await
        .unwrap_err();
    assert!(
        matches!(late, FloorError::Rule(RuleError::Expired { .. })),
        "{late}"
    );
    // ...and the sweep ends each by its game's rule.
    let swept = floor
        .sweep(T0 + 30 * DAY_MS + 1, "sweep", None)
        .await
        .unwrap();
    assert_eq!(
        sorted(swept.voided),
        sorted(vec![stale_ms.clone(), half.clone()])
    );
    assert_eq!(
        sorted(swept.completed),
        sorted(vec![stale_cs.clone(), stale_nutz.clone()])
    );
    assert!(swept.skipped.is_empty());
    for id in [&stale_ms, &half] {
        let hand = floor.load(id, None).unwrap();
        assert_eq!(hand.status(), Status::Voided);
        assert_eq!(hand.net(), 0, "every stake refunded");
        let report = pitboss::audit::replay(&floor, id).unwrap();
        assert!(report.consistent, "{:#?}", report.report);
        assert!(report
            .report
            .iter()
            .any(|l| l.contains("VOID (incomplete)") && l.contains("more than 30 days")));
    }
    // Caribbean Stud: folded by the rule, the ante and the bonus lost.
    let cs = floor.load(&stale_cs, None).unwrap();
    assert_eq!(cs.status(), Status::Settled);
    assert!(cs.completion().is_some());
    assert_eq!(cs.net(), -600);
    assert!(cs
        .settlement()
        .unwrap()
        .lines
        .iter()
        .all(|l| l.rule == "fold" && l.payout == Money::ZERO));
    // Nutz: the dealer shook to the end of the round, and the hand settled by the paytable.
    let nutz = floor.load(&stale_nutz, None).unwrap();
    assert_eq!(nutz.status(), Status::Settled);
    assert!(nutz.completion().is_some());
    for id in [&stale_cs, &stale_nutz] {
        let report = pitboss::audit::replay(&floor, id).unwrap();
        assert!(report.consistent, "{:#?}", report.report);
        assert!(report
            .report
            .iter()
            .any(|l| l.starts_with("COMPLETED BY RULE (incomplete)")));
    }
    for id in [&finished, &played] {
        assert_eq!(floor.load(id, None).unwrap().status(), Status::Settled);
    }
    assert_eq!(
        floor.load(&recent, None).unwrap().status(),
        Status::InProgress
    );
    // Ended hands left the index of open hands: a second sweep finds nothing.
    let again = floor
        .sweep(T0 + 30 * DAY_MS + 1, "sweep", None)
        .await
        .unwrap();
    assert!(again.voided.is_empty() && again.completed.is_empty());
    // The recent hand's turn comes more than 30 days after it opened.
    now.store(T0 + 40 * DAY_MS + 1, Ordering::SeqCst);
    assert_eq!(
        floor
            .sweep(T0 + 40 * DAY_MS + 1, "sweep", None)
            .await
            .unwrap()
            .voided,
        vec![recent]
    );
    assert!(floor.log().verify_range(0, None).ok());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_clock_stepped_back_never_backdates_a_decision() {
    let dir = tempfile::tempdir().unwrap();
    let (floor, now) = floor_at(dir.path()).await;
    let id = floor
        .open_hand(open(GameId::MississippiStud, &[BetId::Ante]))
        .await
        .unwrap()
        .id;
    now.store(T0 + 5_000, Ordering::SeqCst);
    floor
        .act(&id, Action::Bet { multiple: 1 }, None, None, "test")
        .await
        .unwrap();
    // The system clock steps back a second: the decision is dated at the hand's last event, not
    // before it (the engine would refuse a backdated one).
    now.store(T0 + 4_000, Ordering::SeqCst);
    let after = floor
        .act(&id, Action::Bet { multiple: 1 }, None, None, "test")
        .await
        .unwrap();
    assert_eq!(after.hand.last_at().0, T0 + 5_000);
    assert!(floor.log().verify_range(0, None).ok());
}

/// Request records of the previous release (24 bytes: the first result, no fingerprint) still
/// answer retries of what they recorded, and the id is refused for anything the log shows to be
/// another target: an opening's id for a decision, a decision's for another hand or an opening,
/// an operation's (kept then in its own stream only) for a decision or another operation.
#[tokio::test(flavor = "multi_thread")]
async fn request_records_of_the_previous_release_are_still_read() {
    use pitboss::floor::FloorError;
    use pitboss_ledger::tamper::Tamper;

    let dir = tempfile::tempdir().unwrap();
    let ledger = Arc::new(Ledger::open(dir.path(), T0).unwrap());
    let floor = Floor::open(ledger.clone(), Arc::new(|| T0)).await.unwrap();
    let with_id = |id: &str| OpenRequest {
        request_id: Some(id.into()),
        ..open(GameId::MississippiStud, &[BetId::Ante])
    };
    let bet = Action::Bet { multiple: 1 };
    let opened = floor.open_hand(with_id("old-open")).await.unwrap();
    let other = floor.open_hand(with_id("other-open")).await.unwrap();
    let acted = floor
        .act(&opened.id, bet, Some("old-act".into()), None, "test")
        .await
        .unwrap();
    floor.sweep(T0, "sweep", Some("old-sweep")).await.unwrap();

    // Rewrite the records as the previous release wrote them.
    let store = Tamper::ledger(&ledger);
    for id in ["old-open", "old-act"] {
        let bytes = store.request(id).unwrap().unwrap();
        assert_eq!(bytes.len(), 56, "a record with its fingerprint");
        store.put_request(id, &bytes[..24]).unwrap();
    }
    // It kept an operation's result in its stream only.
    store.delete_request("old-sweep").unwrap();
    let head = floor.log().head().unwrap();

    let again = floor.open_hand(with_id("old-open")).await.unwrap();
    assert!(again.duplicate);
    assert_eq!(again.id, opened.id);
    assert_eq!(again.hand.version(), opened.hand.version());
    let again = floor
        .act(&opened.id, bet, Some("old-act".into()), None, "test")
        .await
        .unwrap();
    assert!(again.duplicate);
    assert_eq!(
        (again.id.as_str(), again.hand.version()),
        (opened.id.as_str(), acted.hand.version())
    );
    let swept = floor.sweep(T0, "sweep", Some("old-sweep")).await.unwrap();
    assert!(swept.duplicate);

    let reused = |result: Result<_, FloorError>, id: &str| match result {
        Err(FloorError::RequestReused { id: named }) => assert_eq!(named, id),
        other => panic!("`{id}` reused: {other:?}"),
    };
    reused(
        floor
            .act(&other.id, bet, Some("old-act".into()), None, "test")
            .await
            .map(|_| ()),
        "old-act",
    );
    reused(
        floor
            .act(&opened.id, bet, Some("old-open".into()), None, "test")
            .await
            .map(|_| ()),
        "old-open",
    );
    reused(
        floor.open_hand(with_id("old-act")).await.map(|_| ()),
        "old-act",
    );
    reused(
        floor
            .act(&opened.id, bet, Some("old-sweep".into()), None, "test")
            .await
            .map(|_| ()),
        "old-sweep",
    );
    reused(
        floor
            .void_table(
                "T",
                0,
                T0,
                "r",
                pitboss::floor::Attribution::by("o"),
                Some("old-sweep"),
            )
            .await
            .map(|_| ()),
        "old-sweep",
    );
    reused(
        floor.sweep(T0, "sweep", Some("old-open")).await.map(|_| ()),
        "old-open",
    );
    assert_eq!(floor.log().head().unwrap(), head, "nothing written");
    assert!(floor.log().verify_range(0, None).ok());
    assert_eq!(
        floor.hands_locked(),
        0,
        "no lock is kept for a hand nobody works on"
    );
}

/// Only hands in progress are kept in memory, and never more than the cache's capacity: ended
/// hands are read back from the log when asked for.
#[tokio::test(flavor = "multi_thread")]
async fn only_hands_in_progress_are_kept_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let log = pitboss_ledger::mem::MemoryLog::new();
    let ledger = Arc::new(Ledger::open_memory(&log, dir.path(), T0, None).unwrap());
    let floor = Floor::open(ledger, Arc::new(pitboss::floor::system_clock))
        .await
        .unwrap();
    let follow = Script {
        decisions: Vec::new(),
        follow_advice: true,
    };
    let mut ended = Vec::new();
    for _ in 0..300 {
        let played = floor
            .play_hand(open(GameId::Nutz, &[BetId::BoxOnePair]), &follow, |hand| {
                Ok((hand.status() == Status::InProgress)
                    .then_some(Action::Shake { by: Shaker::Player }))
            })
            .await
            .unwrap();
        ended.push(played.id);
    }
    assert_eq!(floor.hands_cached(), 0, "ended hands are not kept");
    let mut open_ids = Vec::new();
    for _ in 0..20 {
        open_ids.push(
            floor
                .open_hand(open(GameId::MississippiStud, &[BetId::Ante]))
                .await
                .unwrap()
                .id,
        );
    }
    assert_eq!(floor.hands_cached(), 20);
    // Ended hands read back (recall, replay) are not kept either.
    for id in &ended {
        assert_eq!(floor.load(id, None).unwrap().status(), Status::Settled);
    }
    assert_eq!(floor.hands_cached(), 20);
    // A hand that ends leaves.
    floor
        .act(&open_ids[0], Action::Fold, None, None, "test")
        .await
        .unwrap();
    assert_eq!(floor.hands_cached(), 19);
}

/// A proposal not approved within its time cannot be approved; the sweep records it as expired
/// (once: a second sweep records nothing), and a proposal decided before its time stays decided.
#[tokio::test(flavor = "multi_thread")]
async fn a_proposal_past_its_time_is_refused_and_the_sweep_records_its_expiry() {
    use pitboss::floor::{FloorError as F, ProposalProblem, PROPOSAL_TTL_MS};
    use pitboss::proto::proposed_action::Kind;
    let dir = tempfile::tempdir().unwrap();
    let (floor, now) = floor_at(dir.path()).await;
    let malfunction = |table: &str| {
        Kind::TableMalfunction(pitboss::proto::ProposedTableMalfunction {
            table: table.into(),
            from_ms: 0,
            to_ms: T0,
            reason: "r".into(),
        })
    };
    let late = floor
        .propose(malfunction("T1"), "alice", None)
        .await
        .unwrap();
    let decided = floor
        .propose(malfunction("T2"), "alice", None)
        .await
        .unwrap();
    let decided_id = decided.recorded.proposal_id.clone();
    floor.reject(&decided_id, "bob", "no").await.unwrap();
    let late_id = late.recorded.proposal_id.clone();
    now.store(T0 + PROPOSAL_TTL_MS + 1, Ordering::SeqCst);
    assert_eq!(
        floor.proposal(&late_id).unwrap().state(floor.now()),
        "expired"
    );
    match floor.approve(&late_id, "bob").await {
        Err(F::Proposal {
            problem: ProposalProblem::Expired { .. },
            ..
        }) => {}
        other => panic!("approved past its time: {other:?}"),
    }
    let head = floor.log().head().unwrap();
    floor.sweep(T0, "sweep", None).await.unwrap();
    let recorded = floor.proposal(&late_id).unwrap().decided.expect("recorded");
    assert_eq!(recorded.outcome, "expired");
    assert_eq!(
        floor
            .proposal(&decided_id)
            .unwrap()
            .decided
            .unwrap()
            .outcome,
        "rejected"
    );
    assert_eq!(
        floor.log().head().unwrap().unwrap().0,
        head.unwrap().0 + 1,
        "one entry: the expiry"
    );
    let head = floor.log().head().unwrap();
    floor.sweep(T0, "sweep", None).await.unwrap();
    assert_eq!(floor.log().head().unwrap(), head, "recorded once");
}
