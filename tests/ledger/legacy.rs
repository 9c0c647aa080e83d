//! Hands recorded by an earlier release, under rules version 1 (`fixtures/legacy/`): the current
//! code opens that data directory, the log verifies, and every hand replays consistently under the
//! rules it was recorded with, although the current rules decide the same commands differently.
//! A hand of rules version 1 still in progress goes on under those rules; no new hand opens under
//! them.

use pitboss::codec::EntryPayload;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use pitboss::floor::{Floor, FloorError, OpenRequest};
use pitboss_engine::config::{GameConfig, RulesVersion, RULES_VERSION};
use pitboss_engine::games::{Action, Command, Event, Hand, OpenHand, Status, VoidKind, DAY_MS};
use pitboss_engine::money::Money;
use pitboss_engine::settlement::BetId;
use pitboss_ledger::Ledger;
use serde_json::Value;

/// A copy of the legacy data directory (git keeps no file modes: the key goes back to 0600).
fn legacy_copy() -> (tempfile::TempDir, Value) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/legacy");
    let dir = tempfile::tempdir().unwrap();
    for file in std::fs::read_dir(from.join("data")).unwrap() {
        let file = file.unwrap();
        std::fs::copy(file.path(), dir.path().join(file.file_name())).unwrap();
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            dir.path().join("signing.key"),
            std::fs::Permissions::from_mode(0o600),
        )
        .unwrap();
    }
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(from.join("hands.json")).unwrap()).unwrap();
    (dir, manifest)
}

/// The recorded commands of a hand, in order, read back from its events.
fn commands(events: &[Event]) -> Vec<Command> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::Opened(o) => Some(Command::Open(OpenHand {
                table: o.table.clone(),
                player: o.player.clone(),
                wagers: o.wagers.clone(),
                at: o.at,
                rebet_of: o.rebet_of.clone(),
            })),
            Event::Acted { action, at, .. } => Some(Command::Act {
                action: *action,
                at: *at,
            }),
            Event::DiceShaken { by, at, .. } => Some(Command::Act {
                action: Action::Shake { by: *by },
                at: *at,
            }),
            Event::Voided(v) => Some(Command::Void(v.order.clone())),
            _ => None,
        })
        .collect()
}

/// The same commands, played from the same seed under the current rules version of the same
/// numbers: the events they give, or the first refusal.
fn under_current_rules(hand: &Hand, events: &[Event]) -> Result<Vec<Event>, String> {
    let mut config: GameConfig = hand.config().clone();
    config.rules_version = RULES_VERSION;
    if let pitboss_engine::config::Rules::FortunePaiGow(r) = &mut config.rules {
        r.house_way = pitboss_engine::config::HOUSE_WAY_DEFAULT.into();
    }
    // The structure only: a configuration of the earlier release may be outside today's bounds
    // (the low-cap one is), which matters for opening hands, not for comparing rules.
    config.validate().unwrap();
    let seed = hand.revealed_seed().expect("an ended hand");
    let mut now = Hand::new(seed, Arc::new(config));
    let mut out = Vec::new();
    for command in commands(events) {
        let new = now.decide(&command).map_err(|e| e.to_string())?;
        for event in &new {
            now = now.evolve(event).unwrap();
        }
        out.extend(new);
    }
    Ok(out)
}

#[tokio::test(flavor = "multi_thread")]
async fn hands_recorded_under_rules_version_1_still_verify_and_replay() {
    let (dir, manifest) = legacy_copy();
    let hands = manifest["hands"].as_object().unwrap();
    let id = |name: &str| hands[name].as_str().unwrap().to_string();
    let now = Arc::new(AtomicU64::new(1_790_000_000_000));
    let clock = now.clone();
    let ledger = Arc::new(Ledger::open(dir.path(), now.load(Ordering::SeqCst)).unwrap());
    assert!(ledger.verify().ok(), "the legacy log verifies as it was");
    let floor = Floor::open(ledger, Arc::new(move || clock.load(Ordering::SeqCst)))
        .await
        .unwrap();

    // Every hand replays consistently, under rules version 1.
    for (name, hand_id) in hands {
        if name.ends_with("_config") {
            continue;
        }
        let hand_id = hand_id.as_str().unwrap();
        let report = pitboss::audit::replay(&floor, hand_id).unwrap();
        assert!(report.consistent, "{name}: {:#?}", report.report);
        assert!(
            report.report.iter().any(|l| l.contains("rules version 1")),
            "{name}: {:#?}",
            report.report
        );
        let hand = floor.load(hand_id, None).unwrap();
        assert_eq!(hand.rules_version(), RulesVersion::FIRST, "{name}");
    }

    // Each scenario is one the current rules decide differently.
    let load = |name: &str| {
        let hand_id = id(name);
        let hand = floor.load(&hand_id, None).unwrap();
        let events: Vec<Event> = floor
            .hand_entries(&hand_id, 0)
            .unwrap()
            .iter()
            .filter_map(|e| pitboss::codec::payload_to_event(&Floor::payload(e).unwrap()).unwrap())
            .collect();
        (hand, events)
    };
    for name in [
        "cs_incomplete_at_exactly_30_days",
        "nutz_incomplete_refunded",
    ] {
        let (hand, events) = load(name);
        let void = hand.void().unwrap();
        assert_eq!(void.order.kind, VoidKind::Incomplete);
        assert_eq!(hand.net(), 0, "{name}: refunded under version 1");
        let refused = under_current_rules(&hand, &events).unwrap_err();
        assert!(
            refused.contains("is not incomplete at"),
            "{name}: {refused}"
        );
    }
    let (hand, events) = load("cs_conduct_forfeit_bonus_returned");
    let bonus = hand
        .void()
        .unwrap()
        .lines
        .iter()
        .find(|l| l.bet == BetId::Bonus)
        .copied()
        .unwrap();
    assert_eq!(bonus.paid_now, bonus.stake, "version 1 returned the bonus");
    let now_events = under_current_rules(&hand, &events).unwrap();
    let Some(Event::Voided(now_void)) = now_events.iter().find(|e| matches!(e, Event::Voided(_)))
    else {
        panic!("a void");
    };
    assert_eq!(
        now_void.paid_now,
        Money::ZERO,
        "version 2 loses the bonus too"
    );

    let (hand, events) = load("ms_capped_then_voided");
    let void = hand.void().unwrap();
    assert!(void.game_cap.is_none());
    let lines = Money::sum(void.lines.iter().map(|l| l.paid_before)).unwrap();
    assert!(lines > void.paid_before, "version 1's lines did not add up");
    let now_events = under_current_rules(&hand, &events).unwrap();
    let Some(Event::Voided(now_void)) = now_events.iter().find(|e| matches!(e, Event::Voided(_)))
    else {
        panic!("a void");
    };
    let cap = now_void.game_cap.expect("version 2 repeats the cap line");
    assert_eq!(lines, cap.total_before);
    assert_eq!(cap.total_after, now_void.paid_before);

    for name in [
        "ms_decision_after_deadline",
        "ms_sweep_before_last_decision",
    ] {
        let (hand, events) = load(name);
        let refused = under_current_rules(&hand, &events).unwrap_err();
        assert!(
            refused.contains("takes no decision"),
            "{name}: the late decision is refused now: {refused}"
        );
    }
    let (hand, _) = load("ms_sweep_before_last_decision");
    let last_decision = hand.stakes().len();
    assert!(last_decision > 1);
    assert!(
        hand.void().unwrap().order.at < hand.last_at(),
        "version 1 voided it at a time before its last decision"
    );

    // Ordinary hands come out the same under the current rules.
    for name in ["ms_ordinary", "pg_ordinary", "nutz_ordinary", "cs_ordinary"] {
        let (hand, events) = load(name);
        let now_events = under_current_rules(&hand, &events).unwrap();
        let settled = |events: &[Event]| {
            events.iter().find_map(|e| match e {
                Event::Settled(s) => Some(s.clone()),
                _ => None,
            })
        };
        assert_eq!(settled(&events), settled(&now_events), "{name}");
    }

    // A hand of version 1 in progress goes on under version 1: past its deadline (version 1:
    // from the last millisecond of the period) a sweep dated before its last decision skips it,
    // one dated after voids it with refunds.
    let open_id = id("ms_in_progress_after_deadline");
    let open_hand = floor.load(&open_id, None).unwrap();
    assert_eq!(open_hand.status(), Status::InProgress);
    let deadline = open_hand.incomplete_deadline().unwrap().0;
    let last = open_hand.last_at().0;
    assert!(last > deadline);
    now.store(last + DAY_MS, Ordering::SeqCst);
    let swept = floor
        .sweep(deadline + 1, "legacy-test", None)
        .await
        .unwrap();
    assert_eq!(swept.skipped, vec![open_id.clone()]);
    assert!(swept.voided.is_empty());
    let swept = floor.sweep(last, "legacy-test", None).await.unwrap();
    assert_eq!(swept.voided, vec![open_id.clone()]);
    let voided = floor.load(&open_id, None).unwrap();
    assert_eq!(voided.net(), 0);
    let report = pitboss::audit::replay(&floor, &open_id).unwrap();
    assert!(report.consistent, "{:#?}", report.report);

    // No new hand opens under a configuration of version 1; the current defaults were published.
    let mut low_cap = [0u8; 32];
    hex::decode_to_slice(
        manifest["hands"]["low_cap_config"].as_str().unwrap(),
        &mut low_cap,
    )
    .unwrap();
    let low_cap = pitboss_engine::config::ConfigId(low_cap);
    let log_before = floor.log().size();
    // Twice: the floor judges a configuration's playability once and keeps the judgement, which
    // refuses the second opening alike.
    let mut refusals = Vec::new();
    for _ in 0..2 {
        let refused = floor
            .open_hand(OpenRequest {
                game: Some(pitboss_engine::game::GameId::MississippiStud),
                config_id: Some(low_cap),
                table: "T".into(),
                player: "P".into(),
                wagers: vec![pitboss_engine::settlement::Wager {
                    bet: BetId::Ante,
                    amount: Money(500),
                }],
                actor: "test".into(),
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert!(
            matches!(&refused, FloorError::ConfigNotPlayable { problem, .. } if problem.field() == Some("rules_version")),
            "{refused}"
        );
        refusals.push(refused.to_string());
    }
    assert_eq!(refusals[0], refusals[1]);
    assert_eq!(
        floor.log().size(),
        log_before,
        "a refused opening writes nothing"
    );
    // That configuration is also outside today's bounds (its per-game cap is below what a hand
    // can stake): its hands replayed above all the same.
    let low_cap_config = floor.config(&low_cap).unwrap();
    assert_eq!(
        low_cap_config.check_limits().unwrap_err().field(),
        Some("rules.mississippi_stud.game_cap")
    );
    for game in pitboss_engine::game::GameId::ALL {
        let default = floor.config(&floor.default_config(game).unwrap()).unwrap();
        assert_eq!(default.rules_version, RULES_VERSION);
    }
    assert!(floor.log().verify_range(0, None).ok());
    drop(dir);
}

#[test]
fn configurations_of_version_1_keep_their_ids() {
    // The configurations the earlier release published, as their canonical bytes are in the log:
    // read back and written again, byte for byte, so their ids (which hands name) are unchanged.
    let (dir, _) = legacy_copy();
    let ledger = Ledger::open(dir.path(), 1_790_000_000_000).unwrap();
    let mut found = 0;
    for sequence in 0..=ledger.head().unwrap().unwrap().0 {
        let entry = ledger.entry(sequence).unwrap().unwrap();
        let payload = entry.payload().unwrap();
        if let Some(pitboss::proto::payload::Kind::ConfigPublished(p)) = &payload.kind {
            let config = GameConfig::from_json(&p.canonical_json).unwrap();
            assert_eq!(config.rules_version, RulesVersion::FIRST);
            assert_eq!(config.canonical_bytes(), p.canonical_json);
            assert_eq!(config.id().0.to_vec(), p.config_id);
            assert!(config.check_current().is_err(), "retired for new hands");
            found += 1;
        }
    }
    assert_eq!(found, 5, "four defaults and the low-cap configuration");
}
