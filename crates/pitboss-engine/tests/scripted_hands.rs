//! Complete scripted hands of every game from `fixtures/hands/*.json`: a fixed seed (re-derived here
//! from the counter the fixture records), the wagers, the decisions and voids in order (some of them
//! refused), and the expected settlement or void, line by line, each figure worked out from the rules
//! in the fixture's `how`. Every hand is also replayed from its events and must come out identical.
//!
//! A fixture plays under its game's default configuration, or under one derived from it as its
//! `config` says (another currency, every amount divided by the same number).

use std::path::Path;
use std::sync::Arc;

use pitboss_engine::card::Card;
use pitboss_engine::deal;
use pitboss_engine::game::{GameId, Seat};
use pitboss_engine::games::{
    Action, Command, Event, Hand, OpenHand, Shaker, Status, Timestamp, VoidOrder,
};
use pitboss_engine::money::Money;
use pitboss_engine::rng::Seed;
use pitboss_testkit::fixture_hands;
use serde_json::Value;
use sha2::{Digest, Sha256};

fn money(v: &Value) -> Money {
    Money(v.as_u64().expect("an amount in minor units"))
}

fn cards(v: &Value) -> Vec<Card> {
    let mut cards: Vec<Card> = serde_json::from_value(v.clone()).expect("cards");
    cards.sort();
    cards
}

struct Played {
    hand: Hand,
    events: Vec<Event>,
}

fn play(fixture: &Value) -> Played {
    let name = fixture["name"].as_str().unwrap();
    let game: GameId = fixture["game"].as_str().unwrap().parse().unwrap();
    let base = name.split('+').next().unwrap();
    let n = fixture["seed_counter"].as_u64().unwrap();
    let seed = Seed::from_bytes(Sha256::digest(format!("pitboss fixture {base} {n}")).into());
    assert_eq!(
        seed.to_hex(),
        fixture["seed"].as_str().unwrap(),
        "{name}: seed re-derived from its counter"
    );

    // The deal: every seat's cards are exactly the fixture's.
    let dealt = deal::derive(game, &seed);
    for seat in &dealt.seats {
        let mut got = seat.cards.clone();
        got.sort();
        assert_eq!(
            got,
            cards(&fixture["cards"][seat.seat.id()]),
            "{name}: {} cards",
            seat.seat.id()
        );
    }

    let config = Arc::new(fixture_hands::configuration(game, fixture.get("config")));
    let mut hand = Hand::new(seed, config);
    let mut events = Vec::new();
    let open = &fixture["open"];
    let wagers = fixture_hands::wagers(open);
    let mut commands = vec![(
        Command::Open(OpenHand {
            table: open["table"].as_str().unwrap().into(),
            player: open["player"].as_str().unwrap().into(),
            wagers,
            at: Timestamp(open["at"].as_u64().unwrap()),
            rebet_of: None,
        }),
        None,
    )];
    for step in fixture["steps"].as_array().unwrap() {
        let command = if let Some(act) = step.get("act") {
            let action: Action = serde_json::from_value(act.clone()).expect("an action");
            Command::Act {
                action,
                at: Timestamp(step["at"].as_u64().unwrap()),
            }
        } else {
            let order: VoidOrder =
                serde_json::from_value(step["void"].clone()).expect("a void order");
            Command::Void(order)
        };
        commands.push((command, step.get("refused").and_then(Value::as_str)));
    }
    for (command, refused) in commands {
        match (hand.decide(&command), refused) {
            (Ok(new), None) => {
                for event in &new {
                    hand = hand.evolve(event).expect("decided events fold in");
                }
                events.extend(new);
            }
            (Err(err), Some(words)) => {
                assert!(
                    err.to_string().contains(words),
                    "{name}: refusal `{err}` should say `{words}`"
                );
            }
            (Ok(_), Some(words)) => panic!("{name}: {command:?} should be refused ({words})"),
            (Err(err), None) => panic!("{name}: {command:?} refused: {err}"),
        }
    }
    Played { hand, events }
}

fn check(fixture: &Value) {
    let name = fixture["name"].as_str().unwrap();
    let Played { hand, events } = play(fixture);
    let expect = &fixture["expect"];

    if let Some(settlement) = expect.get("settlement") {
        let got = hand
            .settlement()
            .unwrap_or_else(|| panic!("{name}: not settled"));
        let lines = settlement["lines"].as_array().unwrap();
        assert_eq!(got.lines.len(), lines.len(), "{name}: number of lines");
        for (line, want) in got.lines.iter().zip(lines) {
            let what = format!("{name}: {} line", line.bet);
            assert_eq!(line.bet.id(), want["bet"].as_str().unwrap(), "{what}");
            assert_eq!(line.stake, money(&want["stake"]), "{what}: stake");
            assert_eq!(line.rule, want["rule"].as_str().unwrap(), "{what}: rule");
            assert_eq!(
                serde_json::to_value(line.outcome).unwrap(),
                want["outcome"],
                "{what}: outcome"
            );
            assert_eq!(line.uncapped, money(&want["uncapped"]), "{what}: uncapped");
            assert_eq!(line.cut, money(&want["cut"]), "{what}: cut");
            assert_eq!(line.payout, money(&want["payout"]), "{what}: payout");
            assert_eq!(line.cap, want.get("cap").map(money), "{what}: cap");
        }
        match (got.game_cap, settlement.get("game_cap")) {
            (Some(cap), Some(want)) => {
                assert_eq!(
                    cap.total_before,
                    money(&want["total_before"]),
                    "{name}: cap total before"
                );
                assert_eq!(cap.cap, money(&want["cap"]), "{name}: cap");
                assert_eq!(cap.cut, money(&want["cut"]), "{name}: cap cut");
                assert_eq!(
                    cap.total_after,
                    money(&want["total_after"]),
                    "{name}: cap total after"
                );
            }
            (None, None) => {}
            (got, want) => panic!("{name}: game cap line {got:?}, expected {want:?}"),
        }
        assert_eq!(
            got.total_staked,
            money(&settlement["total_staked"]),
            "{name}: staked"
        );
        assert_eq!(
            got.total_paid,
            money(&settlement["total_paid"]),
            "{name}: paid"
        );
    }
    if let Some(void) = expect.get("void") {
        let got = hand.void().unwrap_or_else(|| panic!("{name}: not voided"));
        let lines = void["lines"].as_array().unwrap();
        assert_eq!(got.lines.len(), lines.len(), "{name}: void lines");
        for (line, want) in got.lines.iter().zip(lines) {
            assert_eq!(line.bet.id(), want["bet"].as_str().unwrap());
            assert_eq!(
                line.stake,
                money(&want["stake"]),
                "{name}: {} stake",
                line.bet
            );
            assert_eq!(
                line.paid_before,
                money(&want["paid_before"]),
                "{name}: {} paid before",
                line.bet
            );
            assert_eq!(
                line.paid_now,
                money(&want["paid_now"]),
                "{name}: {} paid now",
                line.bet
            );
        }
        match (&got.game_cap, void.get("game_cap")) {
            (Some(cap), Some(want)) => {
                assert_eq!(cap.total_before, money(&want["total_before"]), "{name}");
                assert_eq!(cap.cap, money(&want["cap"]), "{name}");
                assert_eq!(cap.cut, money(&want["cut"]), "{name}");
                assert_eq!(cap.total_after, money(&want["total_after"]), "{name}");
                // The lines add up to the total the void reverses.
                let lines = Money::sum(got.lines.iter().map(|l| l.paid_before)).unwrap();
                assert_eq!(
                    lines, cap.total_before,
                    "{name}: bet lines against the cap line"
                );
                assert_eq!(
                    cap.total_after, got.paid_before,
                    "{name}: cap line against the total"
                );
            }
            (None, None) => {
                let lines = Money::sum(got.lines.iter().map(|l| l.paid_before)).unwrap();
                assert_eq!(lines, got.paid_before, "{name}: void lines add up");
            }
            (got, want) => panic!("{name}: void game cap line {got:?}, expected {want:?}"),
        }
        assert_eq!(got.total_staked, money(&void["total_staked"]));
        assert_eq!(got.paid_before, money(&void["paid_before"]));
        assert_eq!(got.paid_now, money(&void["paid_now"]));
        assert_eq!(
            got.adjustment(),
            void["adjustment"].as_i64().unwrap() as i128,
            "{name}: adjustment"
        );
        assert_eq!(
            hand.net(),
            void["net"].as_i64().unwrap() as i128,
            "{name}: net after void"
        );
        assert_eq!(hand.status(), Status::Voided);
    }
    match (hand.completion(), expect.get("completed")) {
        (Some(_), Some(want)) => {
            // After the rule's `Completed` event only the dealer shakes, then the hand settles.
            let at = events
                .iter()
                .position(|e| matches!(e, Event::Completed(_)))
                .expect("a completed event");
            let dealer_shakes = events[at + 1..]
                .iter()
                .filter(|e| {
                    matches!(
                        e,
                        Event::DiceShaken {
                            by: Shaker::Dealer,
                            ..
                        }
                    )
                })
                .count();
            assert_eq!(
                dealer_shakes as u64,
                want["dealer_shakes"].as_u64().unwrap(),
                "{name}: dealer shakes"
            );
            assert!(
                !events[at + 1..].iter().any(|e| matches!(
                    e,
                    Event::Acted { .. }
                        | Event::DiceShaken {
                            by: Shaker::Player,
                            ..
                        }
                )),
                "{name}: no player decision after the rule completed the hand"
            );
            assert_eq!(hand.status(), Status::Settled, "{name}");
        }
        (None, None) => {}
        (got, want) => panic!("{name}: completion {got:?}, expected {want:?}"),
    }
    for (seat, key) in [(Seat::Player, "player_low"), (Seat::Dealer, "dealer_low")] {
        if let Some(want) = expect.get(key) {
            let set = events.iter().find_map(|e| match e {
                Event::HandSet {
                    seat: s, setting, ..
                } if *s == seat => Some(setting.low),
                _ => None,
            });
            let mut low = set.unwrap_or_else(|| panic!("{name}: no {key}")).to_vec();
            low.sort();
            assert_eq!(low, cards(want), "{name}: {key}");
        }
    }
    if let Some(shakes) = fixture["cards"].get("shakes") {
        let got: Vec<Vec<u8>> = events
            .iter()
            .filter_map(|e| match e {
                Event::DiceShaken { faces, .. } => Some(faces.to_vec()),
                _ => None,
            })
            .collect();
        let want: Vec<Vec<u8>> = serde_json::from_value(shakes.clone()).unwrap();
        assert_eq!(got, want, "{name}: shakes");
    }

    // Every ended hand reveals its seed exactly once, when it ends: only a later void may follow.
    let reveal = events
        .iter()
        .position(|e| matches!(e, Event::SeedRevealed { .. }));
    let reveal = reveal.unwrap_or_else(|| panic!("{name}: seed never revealed"));
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, Event::SeedRevealed { .. }))
            .count(),
        1
    );
    assert!(
        events[reveal + 1..]
            .iter()
            .all(|e| matches!(e, Event::Voided(_))),
        "{name}: events after the reveal"
    );
    assert!(
        matches!(events[reveal - 1], Event::Settled(_) | Event::Voided(_)),
        "{name}: revealed at the end"
    );
    // Replay: folding the recorded events into a fresh hand gives the same hand.
    let mut replayed = Hand::new(
        hand.revealed_seed().expect("revealed"),
        Arc::new(hand.config().clone()),
    );
    for event in &events {
        replayed = replayed.evolve(event).expect("recorded events replay");
    }
    assert_eq!(replayed.settlement(), hand.settlement());
    assert_eq!(replayed.void(), hand.void());
    assert_eq!(replayed.net(), hand.net());
}

#[test]
fn every_scripted_hand_settles_as_worked_out() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/hands");
    let mut names = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    for path in paths {
        let fixture: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        check(&fixture);
        names.push(fixture["name"].as_str().unwrap().to_string());
    }
    for required in [
        "ms_royal_akq_max_bets",
        "ms_fold_bonus_pays",
        "ms_max_bet_all",
        "ms_push_pair_of_sixes_to_tens",
        "pg_copy_goes_to_dealer",
        "pg_dealer_nine_high_pushes_a_loss",
        "pg_foul_refused",
        "nutz_first_shake_nutz",
        "nutz_later_nutz",
        "nutz_one_pair_after_three_shakes",
        "cs_dealer_not_qualifying",
        "cs_stand_off",
        "cs_fold_forfeits_bonus",
        // The incomplete-game rule, forfeits, malfunction voids, the ace-joker exception and a
        // currency without minor digits.
        "cs_fold_forfeits_bonus+incomplete_after_30_days",
        "cs_dealer_not_qualifying+conduct_forfeit",
        "ms_royal_akq_max_bets+malfunction_void",
        "ms_push_pair_of_sixes_to_tens+incomplete_boundary",
        "nutz_incomplete_completed_by_dealer",
        "pg_royal_ace_joker_exception",
        "cs_fold_forfeits_bonus+raise_in_a_currency_without_minor_digits",
    ] {
        assert!(
            names.iter().any(|n| n == required),
            "fixture {required} missing"
        );
    }
}
