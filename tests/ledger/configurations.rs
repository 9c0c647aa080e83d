//! Random configurations are either refused, naming a field of the configuration, or every
//! operation on them works: a hand at the largest stakes opens, plays to its end and settles, is
//! voided and refunded, is listed by recall, replays, and the lab's tables fit their budget. The
//! configurations are the defaults with numbers replaced by extremes (0, 1, 2^32 − 1, 2^64 − 1, the
//! bounds and one past them) and by random values.

use std::sync::Arc;

use pitboss_engine::config::{GameConfig, Rules, MAX_ODDS, MAX_STAKE, MAX_TOTAL};
use pitboss_engine::game::GameId;
use pitboss_engine::games::{
    Action, Command, Hand, OpenHand, Status, Timestamp, VoidKind, VoidOrder,
};
use pitboss_engine::rng::Seed;
use pitboss_engine::settlement::{BetId, Wager};
use proptest::prelude::*;
use serde_json::Value;

const T0: u64 = 1_700_000_000_000;

/// The paths of every number in a JSON value.
fn numbers(value: &Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match value {
        Value::Number(_) => out.push(path.clone()),
        Value::Object(fields) => {
            for (key, field) in fields {
                path.push(key.clone());
                numbers(field, path, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(i.to_string());
                numbers(item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn at_path<'a>(value: &'a mut Value, path: &[String]) -> &'a mut Value {
    path.iter().fold(value, |v, key| match v {
        Value::Array(items) => &mut items[key.parse::<usize>().unwrap()],
        other => &mut other[key.as_str()],
    })
}

/// Whether a refusal's field path names something in the configuration's JSON (`a.b[2].c`).
fn names_a_field(config: &Value, field: &str) -> bool {
    let mut here = config;
    for part in field.split('.') {
        let (key, index) = match part.split_once('[') {
            Some((key, rest)) => (key, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (part, None),
        };
        let Some(next) = here.get(key) else {
            return false;
        };
        here = match index {
            Some(i) => match next.get(i) {
                Some(item) => item,
                None => return false,
            },
            None => next,
        };
    }
    true
}

/// A default configuration with `edits` numbers replaced: (which number, which value).
fn mutated(game: GameId, edits: &[(usize, u64)]) -> (Value, Vec<u8>) {
    let mut value = serde_json::to_value(GameConfig::default_for(game)).unwrap();
    let mut paths = Vec::new();
    numbers(&value, &mut Vec::new(), &mut paths);
    for &(which, number) in edits {
        let path = &paths[which % paths.len()];
        *at_path(&mut value, path) = Value::from(number);
    }
    let bytes = serde_json::to_vec(&value).unwrap();
    (value, bytes)
}

/// The interesting numbers: extremes, the bounds and one past them, and plain ones.
fn number() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        Just(1),
        Just(2),
        Just(3),
        Just(u64::from(u32::MAX)),
        Just(u64::MAX),
        Just(MAX_STAKE),
        Just(MAX_STAKE + 1),
        Just(u64::from(MAX_ODDS)),
        Just(u64::from(MAX_ODDS) + 1),
        Just(MAX_TOTAL),
        1u64..1_000,
        1u64..100_000_000,
        any::<u64>(),
    ]
}

/// The largest wagers the configuration admits.
fn largest_wagers(config: &GameConfig) -> Vec<Wager> {
    let w = |bet, amount| Wager { bet, amount };
    match &config.rules {
        Rules::MississippiStud(r) => vec![w(BetId::Ante, r.ante.max), w(BetId::Bonus, r.bonus.max)],
        Rules::FortunePaiGow(r) => vec![
            w(BetId::Main, r.main.max),
            w(BetId::FortuneBonus, r.bonus.max),
        ],
        Rules::Nutz(r) => BetId::NUTZ_BOXES
            .iter()
            .map(|&b| w(b, r.box_limit.max))
            .collect(),
        Rules::CaribbeanStud(r) => vec![w(BetId::Ante, r.ante.max), w(BetId::Bonus, r.bonus_stake)],
    }
}

/// Plays a hand at the largest stakes, each decision the largest legal bet (else the first legal
/// one), then voids it: every step must work.
fn play_at_the_largest_stakes(config: GameConfig, seed: [u8; 32]) -> Result<(), String> {
    let config = Arc::new(config);
    let mut hand = Hand::new(Seed::from_bytes(seed), config.clone());
    let step = |hand: &mut Hand, command: Command| -> Result<(), String> {
        for event in hand
            .decide(&command)
            .map_err(|e| format!("{command:?}: {e}"))?
        {
            *hand = hand.clone().evolve(&event).map_err(|e| e.to_string())?;
        }
        Ok(())
    };
    step(
        &mut hand,
        Command::Open(OpenHand {
            table: "T".into(),
            player: "P".into(),
            wagers: largest_wagers(&config),
            at: Timestamp(T0),
            rebet_of: None,
        }),
    )?;
    let mut k = 0;
    while hand.status() == Status::InProgress {
        let legal = hand.legal_actions();
        let action = legal
            .iter()
            .copied()
            .filter(|a| matches!(a, Action::Bet { .. } | Action::MaxBetAll | Action::Raise))
            .max_by_key(|a| match a {
                Action::Bet { multiple } => u64::from(*multiple),
                _ => u64::MAX,
            })
            .or_else(|| legal.first().copied())
            .ok_or("no legal action")?;
        k += 1;
        step(
            &mut hand,
            Command::Act {
                action,
                at: Timestamp(T0 + k),
            },
        )?;
    }
    let settlement = hand.settlement().ok_or("not settled")?.clone();
    for line in &settlement.lines {
        if line.uncapped.0 > MAX_TOTAL || line.payout > line.uncapped {
            return Err(format!("line {line:?}"));
        }
    }
    let staked = hand.total_staked().map_err(|e| e.to_string())?;
    if staked.0 > MAX_TOTAL || settlement.total_paid.0 > MAX_TOTAL {
        return Err("a total over the bound".into());
    }
    let at = hand.last_at();
    step(
        &mut hand,
        Command::Void(VoidOrder {
            kind: VoidKind::Malfunction,
            reason: "test".into(),
            recorded_by: "test".into(),
            approved_by: None,
            at,
        }),
    )?;
    if hand.net() != 0 || hand.paid() != staked {
        return Err(format!("void net {} paid {:?}", hand.net(), hand.paid()));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn a_configuration_is_refused_by_field_or_works(
        game in 0usize..4,
        edits in prop::collection::vec((any::<usize>(), number()), 1..4),
        seed in any::<[u8; 32]>(),
    ) {
        let game = GameId::ALL[game];
        let (value, bytes) = mutated(game, &edits);
        let config = match GameConfig::from_json(&bytes) {
            Ok(config) => config,
            // A number its field cannot hold: refused by the parser, naming it.
            Err(refused) => {
                prop_assert!(refused.field().is_none_or(|f| names_a_field(&value, f)), "{refused}");
                return Ok(());
            }
        };
        let checked = config
            .check_current()
            .and_then(|()| pitboss_lab::analysable::check(&config, 2));
        match checked {
            Err(refused) => {
                let field = refused.field().unwrap_or_default();
                prop_assert!(names_a_field(&value, field), "{refused} names no field of {value}");
            }
            Ok(()) => {
                let played = play_at_the_largest_stakes(config, seed);
                prop_assert!(played.is_ok(), "{:?} for {}", played, value);
            }
        }
    }
}

/// Accepted random configurations through the floor, as a client would use them: published, a hand
/// at the largest stakes played in one call, voided, recalled, replayed.
#[tokio::test(flavor = "multi_thread")]
async fn accepted_configurations_work_through_the_floor() {
    use pitboss::floor::{Floor, HandFilter, OpenRequest, Page, Script};
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    let dir = tempfile::tempdir().unwrap();
    let log = pitboss_ledger::mem::MemoryLog::new();
    let ledger = Arc::new(pitboss_ledger::Ledger::open_memory(&log, dir.path(), T0, None).unwrap());
    let floor = Floor::open(ledger, Arc::new(pitboss::floor::system_clock))
        .await
        .unwrap();
    let mut runner = TestRunner::deterministic();
    let edits = prop::collection::vec((any::<usize>(), number()), 1..3);
    let (mut accepted, mut refused) = (0, 0);
    let mut analysed_once = Vec::new();
    for round in 0..400 {
        let game = GameId::ALL[round % 4];
        let (value, bytes) = mutated(game, &edits.new_tree(&mut runner).unwrap().current());
        let Ok(config) = GameConfig::from_json(&bytes) else {
            refused += 1;
            continue;
        };
        let wagers = largest_wagers(&config);
        let analysed = config.clone();
        let (id, _) = match floor.publish(config, None, "test").await {
            Ok(published) => published,
            Err(pitboss::floor::FloorError::Invalid { field, .. }) => {
                let inner = field.strip_prefix("config_json.").unwrap_or(&field);
                assert!(
                    names_a_field(&value, inner) || field == "config_json",
                    "{field}"
                );
                refused += 1;
                continue;
            }
            Err(other) => panic!("{other}"),
        };
        accepted += 1;
        // Analysed: Nutz's exact sheets every time (milliseconds); the first accepted Mississippi
        // Stud and Caribbean Stud configurations' strategy tables and exact sheets (seconds):
        // what a hand under an accepted configuration needs works for it.
        match game {
            GameId::Nutz => {
                pitboss_lab::exact_par_sheets(&analysed, 2)
                    .unwrap_or_else(|e| panic!("{value}: {e}"));
            }
            GameId::MississippiStud | GameId::CaribbeanStud if !analysed_once.contains(&game) => {
                pitboss_lab::advice::StrategyTables::build(&analysed, 2)
                    .unwrap_or_else(|e| panic!("{value}: {e}"));
                pitboss_lab::exact_par_sheets(&analysed, 2)
                    .unwrap_or_else(|e| panic!("{value}: {e}"));
                analysed_once.push(game);
            }
            _ => {}
        }
        let table = format!("random-{round}");
        let played = floor
            .play_hand(
                OpenRequest {
                    game: Some(game),
                    config_id: Some(id),
                    table: table.clone(),
                    player: "P".into(),
                    wagers,
                    actor: "test".into(),
                    ..Default::default()
                },
                &Script {
                    decisions: Vec::new(),
                    follow_advice: true,
                },
                |hand| Ok(hand.legal_actions().first().copied()),
            )
            .await
            .unwrap_or_else(|e| panic!("{value}: {e}"));
        assert_eq!(played.hand.status(), Status::Settled, "{value}");
        let voided = floor
            .void(
                &played.id,
                VoidKind::Malfunction,
                "test",
                pitboss::floor::Attribution {
                    by: "test",
                    approved_by: Some("second"),
                },
                None,
            )
            .await
            .unwrap();
        assert_eq!(voided.hand.net(), 0);
        let (listed, _) = floor
            .list_hands(
                &HandFilter {
                    table: Some(table),
                    ..Default::default()
                },
                &Page::default(),
            )
            .unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].total_paid, listed[0].total_staked);
        let report = pitboss::audit::replay(&floor, &played.id).unwrap();
        assert!(report.consistent, "{:#?}", report.report);
    }
    assert!(
        accepted > 10 && refused > 10,
        "{accepted} accepted, {refused} refused"
    );
    assert!(floor.log().verify_range(0, None).ok());
}
