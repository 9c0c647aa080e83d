//! Vendor transcripts (`pitboss check`): the example of each game against figures worked out by
//! hand, the seed path and the given-material path agreeing on the same deal, every kind of
//! refusal, and the command's exit status and JSON Lines mode.

use std::process::Command;

use pitboss_engine::config::GameConfig;
use pitboss_engine::deal;
use pitboss_engine::game::{GameId, Seat};
use pitboss_engine::games::{Event, RuleError};
use pitboss_engine::money::Money;
use pitboss_engine::rng::Seed;
use pitboss_engine::settlement::BetId;
use pitboss_lab::transcript::{self, DecisionRefused, Refusal};
use serde_json::{json, Value};

fn fixture(game: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/fixtures/transcripts/{game}.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn payouts(checked: &transcript::Checked) -> Vec<(String, u64)> {
    checked
        .settlement
        .lines
        .iter()
        .map(|l| (l.bet.id().to_string(), l.payout.0))
        .collect()
}

fn owned(pairs: &[(&str, u64)]) -> Vec<(String, u64)> {
    pairs.iter().map(|(b, p)| (b.to_string(), *p)).collect()
}

#[test]
fn the_documented_examples_settle_as_worked_out_by_hand() {
    // Mississippi Stud: A♠A♦ with K♣K♦7♥ is two pair, 2 to 1 on the ante (500 → 1 500) and on each
    // 3× street bet (1 500 → 4 500); the bonus sees K K 7, a pair, 1 to 1 (100 → 200).
    let ms = transcript::check(&transcript::parse(&fixture("mississippi_stud")).unwrap()).unwrap();
    assert_eq!(
        payouts(&ms),
        owned(&[
            ("ante", 1500),
            ("street_3", 4500),
            ("street_4", 4500),
            ("street_5", 4500),
            ("bonus", 200)
        ])
    );
    assert_eq!(ms.settlement.total_staked.0, 500 + 3 * 1500 + 100);
    assert!(ms.differences.is_empty());
    // Caribbean Stud: a heart flush against a pair of twos (qualifies): ante 1 to 1 (1 000), raise
    // 5 to 1 on 1 000 (6 000), the bonus's fixed 150.00 for a flush (15 000), not the claimed 10 000.
    let csp = transcript::check(&transcript::parse(&fixture("caribbean_stud")).unwrap()).unwrap();
    assert_eq!(
        payouts(&csp),
        owned(&[("ante", 1000), ("raise", 6000), ("bonus", 15000)])
    );
    let diffs: Vec<(String, Option<u64>, Option<u64>)> = csp
        .differences
        .iter()
        .map(|d| (d.what.clone(), d.claimed, d.ours))
        .collect();
    assert_eq!(
        diffs,
        vec![
            ("bonus".to_string(), Some(10000), Some(15000)),
            ("total_paid".to_string(), Some(17000), Some(22000))
        ]
    );
    // Fortune Pai Gow: high A A 7 3 2 beats the dealer's Q Q 8 6 4 (or any setting of its cards),
    // low K K beats anything the dealer can put low: both hands win, 1 to 1 on 1 000. Two pair is no
    // Fortune hand: the bonus loses.
    let fpg = transcript::check(&transcript::parse(&fixture("fortune_pai_gow")).unwrap()).unwrap();
    assert_eq!(
        payouts(&fpg),
        owned(&[("main", 2000), ("fortune_bonus", 0)])
    );
    // Nutz: 3 3 3 5 1 holds the threes; 3 6 makes four threes, held; 2 on the last shake: four of a
    // kind, 5 to 1 on 500 (3 000); the one-pair box loses.
    let nutz = transcript::check(&transcript::parse(&fixture("nutz")).unwrap()).unwrap();
    assert_eq!(
        payouts(&nutz),
        owned(&[("box_four_of_a_kind", 3000), ("box_one_pair", 0)])
    );
    let shakes = nutz
        .events
        .iter()
        .filter(|e| matches!(e, Event::DiceShaken { .. }))
        .count();
    assert_eq!(shakes, 3);
}

/// A hand dealt from a seed, and the same hand given as the cards (or dice) it dealt, settle alike.
#[test]
fn a_seed_and_the_cards_it_deals_settle_alike() {
    for (game, wagers, decisions) in [
        (
            GameId::MississippiStud,
            json!({"ante": 500, "bonus": 500}),
            json!(["bet 1", "bet 2", "bet 3"]),
        ),
        (
            GameId::CaribbeanStud,
            json!({"ante": 1000, "bonus": 100}),
            json!(["raise"]),
        ),
        (
            GameId::FortunePaiGow,
            json!({"main": 1000, "fortune_bonus": 500}),
            json!(["auto_set"]),
        ),
    ] {
        for n in 0..20u8 {
            let seed = Seed::from_bytes([n; 32]);
            let by_seed = json!({"game": game.to_string(), "seed": seed.to_hex(), "wagers": wagers, "decisions": decisions});
            let a = transcript::check(&transcript::parse(&by_seed.to_string()).unwrap()).unwrap();
            let dealt = deal::derive(game, &seed);
            let mut cards = serde_json::Map::new();
            for seat in game.layout() {
                let given: Vec<String> = dealt.deck[seat.positions.clone()]
                    .iter()
                    .map(ToString::to_string)
                    .collect();
                cards.insert(seat.seat.id().to_string(), json!(given));
            }
            let by_cards = json!({"game": game.to_string(), "cards": cards, "wagers": wagers, "decisions": decisions});
            let b = transcript::check(&transcript::parse(&by_cards.to_string()).unwrap()).unwrap();
            assert_eq!(a.settlement, b.settlement, "{game} seed {n}");
            assert_eq!(
                a.hand.seat_cards(Seat::Player),
                b.hand.seat_cards(Seat::Player)
            );
        }
    }
    // Nutz: the dice each shake of a seeded round rolled, given back as dice.
    for n in 0..50u8 {
        let seed = Seed::from_bytes([n; 32]);
        let wagers = json!({"box_one_pair": 100, "box_two_pairs": 100, "box_nutz": 100});
        let shake = json!(["shake", "shake", "shake"]);
        let mut a = None;
        for k in 1..=3 {
            let t = json!({"game": "nutz", "seed": seed.to_hex(), "wagers": wagers, "decisions": shake.as_array().unwrap()[..k]});
            if let Ok(c) = transcript::check(&transcript::parse(&t.to_string()).unwrap()) {
                a = Some((c, k));
                break;
            }
        }
        let (a, k) = a.expect("a round ends within three shakes");
        let dice: Vec<Vec<u8>> = a
            .events
            .iter()
            .filter_map(|e| match e {
                Event::DiceShaken { rolled, faces, .. } => {
                    Some(rolled.iter().map(|&p| faces[usize::from(p)]).collect())
                }
                _ => None,
            })
            .collect();
        let t = json!({"game": "nutz", "dice": dice, "wagers": wagers, "decisions": shake.as_array().unwrap()[..k]});
        let b = transcript::check(&transcript::parse(&t.to_string()).unwrap()).unwrap();
        assert_eq!(a.settlement, b.settlement, "nutz seed {n}");
    }
}

#[test]
fn transcripts_that_break_the_rules_are_refused_with_the_reason() {
    let base = |game: &str| -> Value { serde_json::from_str(&fixture(game)).unwrap() };
    let refused = |t: &Value| -> Refusal {
        match transcript::parse(&t.to_string()).and_then(|t| transcript::check(&t)) {
            Ok(_) => panic!("accepted: {t}"),
            Err(e) => e,
        }
    };
    let ms = GameId::MississippiStud;
    let mut t = base("mississippi_stud");
    t["decisions"] = json!(["bet 4", "bet 3", "bet 3"]);
    let why = refused(&t);
    assert!(
        matches!(&why, Refusal::Decision { index: 1, text, why: DecisionRefused::Rule(RuleError::BadMultiple { multiple: 4, .. }) } if text == "bet 4"),
        "{why:?}"
    );
    // The words a person reads are made from those values.
    assert!(
        why.to_string().starts_with("decision 1 (\"bet 4\"):"),
        "{why}"
    );
    let mut t = base("mississippi_stud");
    t["wagers"]["ante"] = json!(5);
    let why = refused(&t);
    assert!(
        matches!(
            why,
            Refusal::Open(RuleError::OutsideLimit {
                bet: BetId::Ante,
                amount: Money(5),
                ..
            })
        ),
        "{why:?}"
    );
    let mut t = base("mississippi_stud");
    t["cards"]["player"] = json!(["As"]);
    let why = refused(&t);
    assert_eq!(
        why,
        Refusal::CardCount {
            seat: "player",
            given: 1,
            game: ms,
            deals: 2
        }
    );
    assert_eq!(
        why.to_string(),
        "cards.player: 1 cards given, mississippi_stud deals 2 there"
    );
    let mut t = base("mississippi_stud");
    t["cards"]["community"] = json!(["As", "Kd", "7h"]);
    let why = refused(&t);
    assert!(
        matches!(&why, Refusal::DealtTwice { seat: "community", card } if card.to_string() == "As"),
        "{why:?}"
    );
    let mut t = base("mississippi_stud");
    t["cards"]["community"] = json!(["JK", "Kd", "7h"]);
    assert_eq!(
        refused(&t),
        Refusal::Joker {
            seat: "community",
            game: ms
        }
    );
    let mut t = base("mississippi_stud");
    t["cards"]["dealer"] = json!(["2c"]);
    let why = refused(&t);
    assert!(
        matches!(&why, Refusal::NoSuchSeat { seat, game: GameId::MississippiStud, known } if seat == "dealer" && known.contains(&"player")),
        "{why:?}"
    );
    let mut t = base("mississippi_stud");
    t["seed"] = json!("00".repeat(32));
    assert_eq!(refused(&t), Refusal::SeedOrMaterial { material: "cards" });
    let mut t = base("mississippi_stud");
    t["decisions"] = json!(["bet 3", "bet 3"]);
    let why = refused(&t);
    assert!(
        matches!(&why, Refusal::Unfinished { legal } if !legal.is_empty()),
        "{why:?}"
    );
    let mut t = base("mississippi_stud");
    t["decisions"] = json!(["bet 3", "bet 3", "bet 3", "fold"]);
    let why = refused(&t);
    assert!(
        matches!(
            &why,
            Refusal::Decision {
                index: 4,
                why: DecisionRefused::Rule(_),
                ..
            }
        ),
        "{why:?}"
    );
    let mut t = base("caribbean_stud");
    t["decisions"] = json!(["bet 1"]);
    let why = refused(&t);
    assert!(
        matches!(
            &why,
            Refusal::Decision {
                index: 1,
                why: DecisionRefused::Rule(RuleError::ActionNotInGame {
                    game: GameId::CaribbeanStud,
                    action: "bet"
                }),
                ..
            }
        ),
        "{why:?}"
    );
    let mut t = base("caribbean_stud");
    t["wagers"]["bonus"] = json!(500);
    let why = refused(&t);
    assert!(
        matches!(
            why,
            Refusal::Open(RuleError::FixedStake {
                bet: BetId::Bonus,
                amount: Money(500),
                ..
            })
        ),
        "{why:?}"
    );
    let mut t = base("fortune_pai_gow");
    t["decisions"] = json!(["set_hand As Ad"]);
    let why = refused(&t);
    assert!(
        matches!(&why, Refusal::Decision { index: 1, .. }),
        "{why:?}"
    );
    // Dice: too few for the round, too many, a face that is not one, the wrong count in a shake.
    let mut t = base("nutz");
    t["dice"] = json!([[3, 3, 3, 5, 1], [3, 6]]);
    let why = refused(&t);
    assert!(
        matches!(
            why,
            Refusal::Decision {
                why: DecisionRefused::Rule(RuleError::DiceUsedUp { given: 7 }),
                ..
            }
        ),
        "{why:?}"
    );
    let mut t = base("nutz");
    t["dice"] = json!([[3, 3, 3, 5, 1], [3, 6], [2], [4]]);
    assert_eq!(refused(&t), Refusal::ShakeCount { given: 4, took: 3 });
    let mut t = base("nutz");
    t["dice"] = json!([[3, 3, 3, 5, 7], [3, 6], [2]]);
    assert_eq!(refused(&t), Refusal::NotADieFace { shake: 1, face: 7 });
    let mut t = base("nutz");
    t["dice"] = json!([[3, 3, 3, 5, 1], [3], [6, 2]]);
    assert_eq!(
        refused(&t),
        Refusal::ShakeDice {
            shake: 2,
            given: 1,
            rolled: 2
        }
    );
    let mut t = base("nutz");
    t["wagers"] = json!({"ante": 100});
    let why = refused(&t);
    assert!(
        matches!(
            why,
            Refusal::Open(RuleError::NotThisGame {
                game: GameId::Nutz,
                bet: BetId::Ante
            })
        ),
        "{why:?}"
    );
    let mut t = base("nutz");
    t["surprise"] = json!(1);
    assert!(matches!(
        transcript::parse(&t.to_string()),
        Err(Refusal::Format(_))
    ));
    let mut t = base("nutz");
    t["config"] = serde_json::to_value(
        serde_json::from_slice::<Value>(
            &GameConfig::default_for(GameId::MississippiStud).canonical_bytes(),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        refused(&t),
        Refusal::ConfigOfGame {
            config: GameId::MississippiStud,
            game: GameId::Nutz
        }
    );
}

#[test]
fn check_command_exit_status_and_json_lines() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pitboss"))
            .args(args)
            .output()
            .unwrap()
    };
    let path = |game: &str| {
        format!(
            "{}/fixtures/transcripts/{game}.json",
            env!("CARGO_MANIFEST_DIR")
        )
    };
    let agrees = run(&["check", &path("mississippi_stud")]);
    assert_eq!(agrees.status.code(), Some(0));
    let out: Value = serde_json::from_slice(&agrees.stdout).unwrap();
    assert_eq!(out["settlement"]["total_paid"], 15200);
    assert_eq!(out["deal"]["cards"]["community"], json!(["Kc", "Kd", "7h"]));
    let differs = run(&["check", &path("caribbean_stud")]);
    assert_eq!(differs.status.code(), Some(1));
    let err = String::from_utf8_lossy(&differs.stderr);
    assert!(
        err.contains("bonus: claimed 10000, our rules pay 15000"),
        "{err}"
    );
    let mut lines = String::new();
    for game in ["nutz", "caribbean_stud", "fortune_pai_gow"] {
        let t: Value = serde_json::from_str(&fixture(game)).unwrap();
        lines += &format!("{t}\n");
    }
    lines += "{\"game\": \"nutz\"}\n";
    let file = dir.path().join("many.jsonl");
    std::fs::write(&file, lines).unwrap();
    let many = run(&["check", "--jsonl", file.to_str().unwrap()]);
    assert_eq!(many.status.code(), Some(2), "a refused transcript");
    let results: Vec<Value> = String::from_utf8_lossy(&many.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(results.len(), 4);
    assert_eq!(results[0]["agrees"], true);
    assert_eq!(results[1]["agrees"], false);
    assert_eq!(results[3]["line"], 4);
    assert!(results[3]["refused"].as_str().unwrap().contains("wagers"));
    assert!(String::from_utf8_lossy(&many.stderr)
        .contains("4 transcripts: 2 agree, 1 differ, 1 refused"));
}

/// docs/transcripts.md shows every example file as it is.
#[test]
fn the_documentation_shows_the_example_files() {
    let doc = std::fs::read_to_string(format!(
        "{}/docs/transcripts.md",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let blocks: Vec<Value> = doc
        .split("```json\n")
        .skip(1)
        .filter_map(|b| b.split("\n```").next())
        .map(|b| serde_json::from_str(b).unwrap())
        .collect();
    assert_eq!(blocks.len(), 4);
    for game in [
        "mississippi_stud",
        "caribbean_stud",
        "fortune_pai_gow",
        "nutz",
    ] {
        let file: Value = serde_json::from_str(&fixture(game)).unwrap();
        assert!(blocks.contains(&file), "{game} example missing or changed");
    }
}
