//! Transcripts of whole rounds (`round_transcript`): rounds played by the engine's own `Round`
//! give the claims, and the transcript of the same round — from its seed, or from the cards and
//! dice it dealt — must agree with them place by place; one altered claim is exactly one
//! difference at its place; a deal no shuffle gives (a card at two seats, a wrong count, a seat the
//! table does not have) is refused by name; a one-seat round is checked as the hand of the same
//! material.

use std::sync::Arc;

use pitboss_engine::card::Card;
use pitboss_engine::config::GameConfig;
use pitboss_engine::deal;
use pitboss_engine::game::{GameId, Seat};
use pitboss_engine::games::{Action, RuleError, Shaker, Timestamp};
use pitboss_engine::hand::poker5;
use pitboss_engine::money::Money;
use pitboss_engine::rng::Seed;
use pitboss_engine::round::{
    Decide, OpenRound, Phase, PlaceBet, Round, RoundCommand, RoundError, RoundEvent, Shape,
};
use pitboss_engine::settlement::{BetId, Settlement, Wager};
use pitboss_lab::round_transcript::{
    self, AnyChecked, AnyRefusal, AnyTranscript, CheckedRound, RoundDeal, RoundRefusal,
};
use pitboss_lab::transcript::{self, DecisionRefused, Difference, Refusal};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

fn seed(label: &str, n: u64) -> Seed {
    Seed::from_bytes(Sha256::digest(format!("pitboss round transcript {label} {n}")).into())
}

/// One place of a round: who, where, what they stake and decide.
#[derive(Clone, Debug)]
struct Place {
    player: String,
    seat: Option<u8>,
    wagers: Vec<Wager>,
    actions: Vec<Action>,
}

fn wager(bet: BetId, amount: u64) -> Wager {
    Wager {
        bet,
        amount: Money(amount),
    }
}

/// A round played by the engine's `Round` alone: its settlements (from its `settled` events, in
/// place order) and the dice its shakes rolled.
struct Played {
    settlements: Vec<Settlement>,
    dice: Vec<Vec<u8>>,
}

/// Plays `places` through the engine's round: bets, the deal, then street by street every place
/// still in play decides its next action (a round of one shake: `shaker` shakes until the end).
fn engine_round(
    game: GameId,
    seed: Seed,
    shape: Shape,
    places: &[Place],
    shaker: Option<&str>,
) -> Played {
    let mut round = Round::new(seed, Arc::new(GameConfig::default_for(game)));
    let mut events = Vec::new();
    let mut step = |round: &mut Round, command: RoundCommand| {
        let caused = round
            .step(&command)
            .unwrap_or_else(|e| panic!("{command:?}: {e}"));
        events.extend(caused);
    };
    step(
        &mut round,
        RoundCommand::Open(OpenRound {
            table: "T1".into(),
            dealer: "croupier".into(),
            shoe: None,
            shape,
            max_players: places.len() as u32,
            seats_per_player: 1,
            decision_window_ms: 60_000,
            at: Timestamp(1_000),
        }),
    );
    for p in places {
        step(
            &mut round,
            RoundCommand::Bet(PlaceBet {
                seed_digest: None,
                player: p.player.clone(),
                seat: p.seat,
                wagers: p.wagers.clone(),
                at: Timestamp(2_000),
            }),
        );
    }
    step(
        &mut round,
        RoundCommand::CloseBetting {
            at: Timestamp(3_000),
            shaker: shaker.map(str::to_string),
        },
    );
    let decide = |player: &str, seat, action| {
        RoundCommand::Decide(Decide {
            player: player.into(),
            seat,
            action,
            at: Timestamp(4_000),
        })
    };
    if let Some(shaker) = shaker {
        while round.phase() == Phase::Playing {
            step(
                &mut round,
                decide(shaker, None, Action::Shake { by: Shaker::Player }),
            );
        }
    } else {
        let streets = places.iter().map(|p| p.actions.len()).max().unwrap_or(0);
        for street in 0..streets {
            for (k, p) in places.iter().enumerate() {
                if round.places()[k].in_play() && street < p.actions.len() {
                    step(&mut round, decide(&p.player, p.seat, p.actions[street]));
                }
            }
        }
    }
    assert_eq!(round.phase(), Phase::Ended, "the round played to its end");
    let mut settlements = vec![None; places.len()];
    let mut dice = Vec::new();
    for e in events {
        match e {
            RoundEvent::Settled { place, settlement } => {
                settlements[place as usize] = Some(settlement)
            }
            RoundEvent::Shaken(shake) => dice.push(
                shake
                    .rolled
                    .iter()
                    .map(|&p| shake.faces[usize::from(p)])
                    .collect(),
            ),
            _ => {}
        }
    }
    Played {
        settlements: settlements
            .into_iter()
            .map(|s| s.expect("every place settled"))
            .collect(),
        dice,
    }
}

/// A decision in the transcript grammar.
fn text(action: &Action) -> String {
    match action {
        Action::Bet { multiple } => format!("bet {multiple}"),
        Action::SetHand { low } => format!("set_hand {} {}", low[0], low[1]),
        Action::Shake { by: Shaker::Dealer } => "shake dealer".into(),
        Action::Shake { by: Shaker::Player } => "shake".into(),
        other => other.name().into(),
    }
}

/// What the engine paid a place, as a claim: every line's payout and the total.
fn claim(settlement: &Settlement) -> Value {
    let payouts: serde_json::Map<String, Value> = settlement
        .lines
        .iter()
        .map(|l| (l.bet.id().to_string(), json!(l.payout.0)))
        .collect();
    json!({ "payouts": payouts, "total_paid": settlement.total_paid.0 })
}

/// A round transcript of `places`, dealt by `material` (`("seed", hex)`, `("cards", …)`,
/// `("dice", …)`), each place claiming `claims[k]` when given. In a round of one shake only
/// `cup` gives the shakes (`shakes` of them).
fn transcript(
    game: GameId,
    shape: &str,
    seats: Option<u8>,
    material: (&str, Value),
    places: &[Place],
    claims: Option<&[Settlement]>,
) -> Value {
    let places: Vec<Value> = places
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let wagers: serde_json::Map<String, Value> = p
                .wagers
                .iter()
                .map(|w| (w.bet.id().to_string(), json!(w.amount.0)))
                .collect();
            let mut place = json!({
                "player": p.player,
                "wagers": wagers,
                "decisions": p.actions.iter().map(text).collect::<Vec<_>>(),
            });
            if let Some(seat) = p.seat {
                place["seat"] = json!(seat);
            }
            if let Some(claims) = claims {
                place["claimed"] = claim(&claims[k]);
            }
            place
        })
        .collect();
    let mut t =
        json!({"id": "vendor-round-1", "game": game.to_string(), "shape": shape, "places": places});
    if let Some(seats) = seats {
        t["seats"] = json!(seats);
    }
    t[material.0] = material.1;
    t
}

fn checked(t: &Value) -> CheckedRound {
    let parsed = round_transcript::parse(&t.to_string()).unwrap_or_else(|e| panic!("{e}"));
    round_transcript::check(&parsed).unwrap_or_else(|e| panic!("{e}: {t}"))
}

fn refused(t: &Value) -> RoundRefusal {
    match round_transcript::parse(&t.to_string()) {
        Ok(parsed) => round_transcript::check(&parsed).expect_err("refused"),
        Err(format) => format,
    }
}

/// The cards of a round's deal from the engine's own derivation, by the transcript's seat names:
/// the occupied seats' blocks and the dealer's or community cards.
fn dealt_cards(game: GameId, seed: &Seed, seats: u8, occupied: &[u8]) -> Value {
    let derived = deal::derive_round(game, seed, seats).expect("a round's deal");
    let mut cards = serde_json::Map::new();
    for s in &derived.seats {
        let name = match (s.seat, s.number) {
            (Seat::Player, Some(n)) if occupied.contains(&n) => format!("seat{n}"),
            (Seat::Player, _) => continue,
            (seat, _) => seat.id().to_string(),
        };
        cards.insert(
            name,
            json!(s.cards.iter().map(ToString::to_string).collect::<Vec<_>>()),
        );
    }
    Value::Object(cards)
}

/// Seven Caribbean Stud seats of one shuffle: each raises on a pair or better (seat 4 always
/// raises), otherwise folds; odd seats also bet the bonus.
fn caribbean_table(seed: &Seed) -> Vec<Place> {
    let derived = deal::derive_round(GameId::CaribbeanStud, seed, 7).unwrap();
    (1..=7u8)
        .map(|seat| {
            let cards: [Card; 5] = derived.seats[usize::from(seat) - 1]
                .cards
                .clone()
                .try_into()
                .unwrap();
            let strong = poker5::evaluate_unchecked(&cards).category() >= poker5::Category::Pair;
            let mut wagers = vec![wager(BetId::Ante, 500 * u64::from(seat))];
            if seat % 2 == 1 {
                wagers.push(wager(BetId::Bonus, 100));
            }
            Place {
                player: format!("player-{seat}"),
                seat: Some(seat),
                wagers,
                actions: vec![if strong || seat == 4 {
                    Action::Raise
                } else {
                    Action::Fold
                }],
            }
        })
        .collect()
}

#[test]
fn a_seven_seat_caribbean_round_from_a_seed_agrees_with_the_engines_round() {
    let game = GameId::CaribbeanStud;
    let mut folds = 0;
    let mut raises = 0;
    for n in 0..20 {
        let seed = seed("caribbean7", n);
        let places = caribbean_table(&seed);
        let engine = engine_round(game, seed, Shape::Seats { seats: 7 }, &places, None);
        let t = transcript(
            game,
            "seats",
            Some(7),
            ("seed", json!(seed.to_hex())),
            &places,
            Some(&engine.settlements),
        );
        let c = checked(&t);
        assert!(c.agrees(), "seed {n}: {}", c.json());
        assert_eq!(c.places.len(), 7);
        for (k, place) in c.places.iter().enumerate() {
            assert_eq!(
                place.settlement, engine.settlements[k],
                "seed {n} place {k}"
            );
            assert_eq!(place.seat, Some(k as u8 + 1));
            assert!(place.claimed);
        }
        let out = c.json();
        assert_eq!(out["agrees"], true);
        assert_eq!(out["differing_places"], json!([]));
        let paid: u64 = engine.settlements.iter().map(|s| s.total_paid.0).sum();
        assert_eq!(out["total_paid"], json!(paid));
        folds += places
            .iter()
            .filter(|p| p.actions == [Action::Fold])
            .count();
        raises += places
            .iter()
            .filter(|p| p.actions == [Action::Raise])
            .count();

        // One place's claim altered: exactly that difference, at that place.
        let mut altered = t.clone();
        let ante = altered["places"][3]["claimed"]["payouts"]["ante"]
            .as_u64()
            .unwrap();
        altered["places"][3]["claimed"]["payouts"]["ante"] = json!(ante + 100);
        let c = checked(&altered);
        assert!(!c.agrees());
        assert_eq!(c.differing(), vec![3], "seed {n}");
        assert_eq!(
            c.places[3].differences,
            vec![Difference {
                what: "ante".into(),
                claimed: Some(ante + 100),
                ours: Some(ante),
            }]
        );
        assert_eq!(c.json()["places"][3]["agrees"], false);
        assert_eq!(c.json()["differing_places"], json!([3]));
    }
    assert!(folds > 0 && raises > 0, "both decisions were played");
}

#[test]
fn the_same_round_as_given_cards_settles_as_from_its_seed() {
    for n in 0..8 {
        // Caribbean Stud's full table.
        let game = GameId::CaribbeanStud;
        let seed = seed("given", n);
        let places = caribbean_table(&seed);
        let engine = engine_round(game, seed, Shape::Seats { seats: 7 }, &places, None);
        let by_seed = checked(&transcript(
            game,
            "seats",
            Some(7),
            ("seed", json!(seed.to_hex())),
            &places,
            None,
        ));
        let cards = dealt_cards(game, &seed, 7, &[1, 2, 3, 4, 5, 6, 7]);
        let by_cards = checked(&transcript(
            game,
            "seats",
            Some(7),
            ("cards", cards.clone()),
            &places,
            Some(&engine.settlements),
        ));
        assert!(by_cards.agrees(), "{}", by_cards.json());
        assert_eq!(by_seed.deal, by_cards.deal, "the same deal");
        assert_eq!(by_cards.json()["deal"]["cards"], cards);
        for k in 0..7 {
            assert_eq!(by_seed.places[k].settlement, by_cards.places[k].settlement);
        }

        // Mississippi Stud, four of seven seats taken (the community cards follow the seventh
        // block): a fold on the second street, a max bet on all, bets of each multiple.
        let game = GameId::MississippiStud;
        let occupied = [2u8, 3, 5, 7];
        let plays = [
            vec![Action::Bet { multiple: 1 }, Action::Fold],
            vec![Action::MaxBetAll],
            vec![
                Action::Bet { multiple: 1 },
                Action::Bet { multiple: 2 },
                Action::Bet { multiple: 3 },
            ],
            vec![Action::Bet { multiple: 3 }; 3],
        ];
        let places: Vec<Place> = occupied
            .iter()
            .zip(plays)
            .map(|(&seat, actions)| Place {
                player: format!("p{seat}"),
                seat: Some(seat),
                wagers: vec![
                    wager(BetId::Ante, 100 * u64::from(seat)),
                    wager(BetId::Bonus, 100),
                ],
                actions,
            })
            .collect();
        let engine = engine_round(game, seed, Shape::Seats { seats: 7 }, &places, None);
        let by_seed = checked(&transcript(
            game,
            "seats",
            None,
            ("seed", json!(seed.to_hex())),
            &places,
            Some(&engine.settlements),
        ));
        assert!(by_seed.agrees(), "{}", by_seed.json());
        assert_eq!(
            by_seed.seats,
            Some(7),
            "a table is the game's full table by default"
        );
        let by_cards = checked(&transcript(
            game,
            "seats",
            Some(7),
            ("cards", dealt_cards(game, &seed, 7, &occupied)),
            &places,
            Some(&engine.settlements),
        ));
        assert!(by_cards.agrees(), "{}", by_cards.json());
        assert_eq!(by_seed.deal, by_cards.deal);

        // Fortune Pai Gow's full table, every seat set by the house way against the dealer's
        // hand, set once.
        let game = GameId::FortunePaiGow;
        let places: Vec<Place> = (1..=6u8)
            .map(|seat| Place {
                player: format!("p{seat}"),
                seat: Some(seat),
                wagers: vec![
                    wager(BetId::Main, 500 * u64::from(seat)),
                    wager(BetId::FortuneBonus, 100),
                ],
                actions: vec![Action::AutoSet],
            })
            .collect();
        let engine = engine_round(game, seed, Shape::Seats { seats: 6 }, &places, None);
        let by_cards = checked(&transcript(
            game,
            "seats",
            Some(6),
            ("cards", dealt_cards(game, &seed, 6, &[1, 2, 3, 4, 5, 6])),
            &places,
            Some(&engine.settlements),
        ));
        assert!(by_cards.agrees(), "{}", by_cards.json());
    }
}

#[test]
fn a_shared_hand_from_its_seed_or_its_cards_agrees_with_the_engines_round() {
    let game = GameId::MississippiStud;
    let seed = seed("studio", 1);
    let plays = [
        vec![Action::Fold],
        vec![Action::Bet { multiple: 2 }, Action::Fold],
        vec![Action::MaxBetAll],
        vec![Action::Bet { multiple: 1 }; 3],
    ];
    let places: Vec<Place> = (0..400u64)
        .map(|k| Place {
            player: format!("viewer-{k}"),
            seat: None,
            wagers: vec![wager(BetId::Ante, 100 * (1 + k % 20))],
            actions: plays[(k % 4) as usize].clone(),
        })
        .collect();
    let engine = engine_round(game, seed, Shape::SharedHand, &places, None);
    let by_seed = checked(&transcript(
        game,
        "shared_hand",
        None,
        ("seed", json!(seed.to_hex())),
        &places,
        Some(&engine.settlements),
    ));
    assert!(by_seed.agrees(), "{}", by_seed.json());
    let derived = deal::derive(game, &seed);
    let names = |s: usize| -> Vec<String> {
        derived.seats[s]
            .cards
            .iter()
            .map(ToString::to_string)
            .collect()
    };
    let cards = json!({"player": names(0), "community": names(1)});
    let by_cards = checked(&transcript(
        game,
        "shared_hand",
        None,
        ("cards", cards.clone()),
        &places,
        Some(&engine.settlements),
    ));
    assert!(by_cards.agrees(), "{}", by_cards.json());
    assert_eq!(by_cards.json()["deal"]["cards"], cards);
    assert_eq!(by_seed.deal, by_cards.deal);
    // Those who played on differ from those who folded: the settlements are not all one.
    assert!(by_seed
        .places
        .iter()
        .any(|p| p.settlement.total_staked != by_seed.places[0].settlement.total_staked));
}

#[test]
fn fifty_bettors_play_one_shake_of_given_dice() {
    let game = GameId::Nutz;
    for n in 0..10 {
        let seed = seed("nutz50", n);
        let places: Vec<Place> = (0..50u64)
            .map(|k| Place {
                player: format!("bettor-{k}"),
                seat: None,
                wagers: BetId::NUTZ_BOXES
                    .iter()
                    .enumerate()
                    .filter(|(b, _)| (k + *b as u64).is_multiple_of(3) || *b as u64 == k % 7)
                    .map(|(b, &bet)| wager(bet, 100 * (1 + (k + b as u64) % 4)))
                    .collect(),
                actions: Vec::new(),
            })
            .collect();
        let engine = engine_round(game, seed, Shape::OneShake, &places, Some("bettor-7"));
        // The cup's bettor gives the shakes; every other bettor none.
        let mut places = places;
        places[7].actions = vec![Action::Shake { by: Shaker::Player }; engine.dice.len()];
        let by_dice = checked(&transcript(
            game,
            "one_shake",
            None,
            ("dice", json!(engine.dice)),
            &places,
            Some(&engine.settlements),
        ));
        assert!(by_dice.agrees(), "seed {n}: {}", by_dice.json());
        assert_eq!(by_dice.places.len(), 50);
        for (k, p) in by_dice.places.iter().enumerate() {
            assert_eq!(p.settlement, engine.settlements[k], "seed {n} bettor {k}");
        }
        let RoundDeal::Dice(shakes) = &by_dice.deal else {
            panic!("a shake's deal is its dice")
        };
        let rolled: Vec<Vec<u8>> = shakes
            .iter()
            .map(|s| s.rolled.iter().map(|&p| s.faces[usize::from(p)]).collect())
            .collect();
        assert_eq!(rolled, engine.dice);
        // From the seed, the same.
        let by_seed = checked(&transcript(
            game,
            "one_shake",
            None,
            ("seed", json!(seed.to_hex())),
            &places,
            Some(&engine.settlements),
        ));
        assert!(by_seed.agrees(), "seed {n}: {}", by_seed.json());
        assert_eq!(by_seed.deal, by_dice.deal);

        // A second place giving shakes is refused; so is a die more than the shakes rolled.
        let mut second = places.clone();
        second[9].actions = vec![Action::Shake { by: Shaker::Player }];
        let t = transcript(
            game,
            "one_shake",
            None,
            ("dice", json!(engine.dice)),
            &second,
            None,
        );
        assert_eq!(refused(&t), RoundRefusal::SecondCup { index: 9, first: 7 });
        let mut more = engine.dice.clone();
        more.last_mut().unwrap().push(6);
        let t = transcript(
            game,
            "one_shake",
            None,
            ("dice", json!(more)),
            &places,
            None,
        );
        assert!(
            matches!(
                refused(&t),
                RoundRefusal::Transcript(Refusal::ShakeDice { .. })
            ),
            "seed {n}"
        );
    }
}

/// The documented hand examples, as one-seat rounds (and a shared hand of one player, and a
/// shake of one bettor): the same settlement and the same differences as the hand's transcript.
#[test]
fn a_one_seat_round_is_checked_as_the_hand_of_the_same_material() {
    for game in [
        "mississippi_stud",
        "caribbean_stud",
        "fortune_pai_gow",
        "nutz",
    ] {
        let text = std::fs::read_to_string(format!(
            "{}/../../fixtures/transcripts/{game}.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let hand = transcript::check(&transcript::parse(&text).unwrap()).unwrap();
        let h: Value = serde_json::from_str(&text).unwrap();
        let place = |seat: Option<u8>| {
            let mut p = json!({"player": "p", "wagers": h["wagers"], "decisions": h["decisions"], "claimed": h["claimed"]});
            if let Some(seat) = seat {
                p["seat"] = json!(seat);
            }
            p
        };
        let mut rounds = Vec::new();
        if let Some(dice) = h.get("dice") {
            rounds.push(
                json!({"game": game, "shape": "one_shake", "dice": dice, "places": [place(None)]}),
            );
        } else {
            let mut seat1 = h["cards"].clone();
            let player = seat1.as_object_mut().unwrap().remove("player").unwrap();
            seat1["seat1"] = player;
            rounds.push(json!({"game": game, "shape": "seats", "seats": 1, "cards": seat1, "places": [place(Some(1))]}));
            rounds.push(json!({"game": game, "shape": "shared_hand", "cards": h["cards"], "places": [place(None)]}));
        }
        for r in rounds {
            let round = checked(&r);
            assert_eq!(round.places[0].settlement, hand.settlement, "{r}");
            assert_eq!(round.places[0].differences, hand.differences, "{r}");
            let (ours, theirs) = (round.json(), hand.json());
            assert_eq!(ours["places"][0]["settlement"], theirs["settlement"]);
            assert_eq!(ours["places"][0]["differences"], theirs["differences"]);
            assert_eq!(ours["agrees"], theirs["agrees"]);
            if let Some(shakes) = theirs["deal"].get("shakes") {
                assert_eq!(&ours["deal"]["shakes"], shakes);
            } else {
                let cards = &ours["deal"]["cards"];
                let seat = if r["shape"] == "seats" {
                    "seat1"
                } else {
                    "player"
                };
                assert_eq!(cards[seat], theirs["deal"]["cards"]["player"]);
            }
        }
        // The Caribbean example's claim differs from our rules: so does the round's.
        assert_eq!(hand.differences.is_empty(), game != "caribbean_stud");
    }
    // From a seed, a one-seat round is the hand of that seed.
    for n in 0..10 {
        let seed = seed("one seat", n);
        for (game, shape, wagers, decisions) in [
            (
                "caribbean_stud",
                "seats",
                json!({"ante": 500, "bonus": 100}),
                json!(["raise"]),
            ),
            (
                "mississippi_stud",
                "shared_hand",
                json!({"ante": 500}),
                json!(["bet 1", "bet 2", "bet 3"]),
            ),
            (
                "fortune_pai_gow",
                "seats",
                json!({"main": 1000}),
                json!(["auto_set"]),
            ),
        ] {
            let hand = json!({"game": game, "seed": seed.to_hex(), "wagers": wagers, "decisions": decisions});
            let hand = transcript::check(&transcript::parse(&hand.to_string()).unwrap()).unwrap();
            let mut place = json!({"player": "p", "wagers": wagers, "decisions": decisions});
            let mut round = json!({"game": game, "shape": shape, "seed": seed.to_hex()});
            if shape == "seats" {
                place["seat"] = json!(1);
                round["seats"] = json!(1);
            }
            round["places"] = json!([place]);
            assert_eq!(
                checked(&round).places[0].settlement,
                hand.settlement,
                "{game} {n}"
            );
        }
    }
}

#[test]
fn a_card_dealt_to_two_seats_is_refused_naming_both() {
    let game = GameId::CaribbeanStud;
    let seed = seed("shared card", 0);
    let places = caribbean_table(&seed);
    let cards = dealt_cards(game, &seed, 7, &[1, 2, 3, 4, 5, 6, 7]);
    let with = |cards: Value| transcript(game, "seats", Some(7), ("cards", cards), &places, None);
    // Seat 3's first card is seat 1's third.
    let mut shared = cards.clone();
    let card: Card = shared["seat1"][2].as_str().unwrap().parse().unwrap();
    shared["seat3"][0] = json!(card.to_string());
    let why = refused(&with(shared));
    assert_eq!(
        why,
        RoundRefusal::SharedCard {
            seat: "seat3".into(),
            card,
            also: "seat1".into(),
        }
    );
    assert_eq!(
        why.to_string(),
        format!("cards.seat3: {card} is also dealt to cards.seat1")
    );
    // A seat's card also the dealer's.
    let mut shared = cards.clone();
    let card: Card = shared["seat6"][4].as_str().unwrap().parse().unwrap();
    shared["dealer"][1] = json!(card.to_string());
    assert_eq!(
        refused(&with(shared)).to_string(),
        format!("cards.dealer: {card} is also dealt to cards.seat6")
    );
    // One card twice at one seat.
    let mut twice = cards.clone();
    twice["seat2"][4] = twice["seat2"][0].clone();
    assert!(matches!(
        refused(&with(twice)),
        RoundRefusal::DealtTwice { seat, .. } if seat == "seat2"
    ));
    // The deal as dealt is accepted.
    assert_eq!(checked(&with(cards)).places.len(), 7);
}

#[test]
fn wrong_counts_seats_and_places_are_refused_by_name() {
    let game = GameId::CaribbeanStud;
    let seed = seed("counts", 0);
    let places = caribbean_table(&seed);
    let cards = dealt_cards(game, &seed, 7, &[1, 2, 3, 4, 5, 6, 7]);
    let with = |cards: Value, places: &[Place]| {
        transcript(game, "seats", Some(7), ("cards", cards), places, None)
    };
    // A seat with four cards; a seat with none.
    let mut short = cards.clone();
    short["seat2"].as_array_mut().unwrap().pop();
    let why = refused(&with(short, &places));
    assert_eq!(
        why,
        RoundRefusal::CardCount {
            seat: "seat2".into(),
            given: 4,
            game,
            deals: 5
        }
    );
    assert_eq!(
        why.to_string(),
        "cards.seat2: 4 cards given, caribbean_stud deals 5 there"
    );
    let mut missing = cards.clone();
    missing.as_object_mut().unwrap().remove("seat5");
    assert!(matches!(
        refused(&with(missing, &places)),
        RoundRefusal::CardCount { seat, given: 0, .. } if seat == "seat5"
    ));
    // Cards for a seat nobody is on, and for a seat the table does not have.
    let few = &places[..3];
    let why = refused(&with(cards.clone(), few));
    assert_eq!(why.to_string(), "cards.seat4: no place is on seat 4");
    let mut eighth = cards.clone();
    eighth["seat8"] = cards["seat1"].clone();
    let why = refused(&with(eighth, &places));
    assert!(
        matches!(&why, RoundRefusal::NoSuchCardSeat { key, known, .. } if key == "seat8" && known.len() == 8),
        "{why}"
    );
    // A place beyond the table; a table bigger than the game's.
    let mut beyond = places.clone();
    beyond[6].seat = Some(8);
    let why = refused(&with(cards.clone(), &beyond));
    assert_eq!(
        why,
        RoundRefusal::NoSuchSeat {
            index: 6,
            seat: 8,
            seats: 7
        }
    );
    assert_eq!(
        why.to_string(),
        "places[6].seat: 8 is not a seat of this round (1..=7)"
    );
    let t = transcript(
        game,
        "seats",
        Some(8),
        ("seed", json!(seed.to_hex())),
        &places,
        None,
    );
    let why = refused(&t);
    assert!(
        matches!(why, RoundRefusal::Opening(RoundError::Seats(_))),
        "{why}"
    );
    assert_eq!(
        why.to_string(),
        "seats: caribbean_stud deals 1 to 7 seats from one deck, not 8"
    );
    let pai_gow: Vec<Place> = (1..=7u8)
        .map(|seat| Place {
            player: format!("p{seat}"),
            seat: Some(seat),
            wagers: vec![wager(BetId::Main, 500)],
            actions: vec![Action::AutoSet],
        })
        .collect();
    let t = transcript(
        GameId::FortunePaiGow,
        "seats",
        None,
        ("seed", json!(seed.to_hex())),
        &pai_gow,
        None,
    );
    assert_eq!(
        refused(&t),
        RoundRefusal::NoSuchSeat {
            index: 6,
            seat: 7,
            seats: 6
        },
        "Fortune Pai Gow's table is six seats"
    );
    // A configuration of rules version 1 (older than rounds), from its seed or its cards; a shape
    // the game does not deal.
    let mut first = serde_json::to_value(GameConfig::default_for(game)).unwrap();
    first.as_object_mut().unwrap().remove("rules_version");
    for material in [("cards", cards.clone()), ("seed", json!(seed.to_hex()))] {
        let mut t = transcript(game, "seats", Some(7), material, &places, None);
        t["config"] = first.clone();
        let why = refused(&t);
        assert!(
            matches!(why, RoundRefusal::Opening(RoundError::RulesVersion(_))),
            "{why}"
        );
        assert!(why
            .to_string()
            .starts_with("config: rounds are played under rules version 2"));
    }
    let bettor = Place {
        player: "b".into(),
        seat: Some(1),
        wagers: vec![wager(BetId::BoxOnePair, 100)],
        actions: Vec::new(),
    };
    let t = transcript(
        GameId::Nutz,
        "seats",
        None,
        ("dice", json!([[1, 2, 3, 4, 5]])),
        &[bettor],
        None,
    );
    assert_eq!(refused(&t).to_string(), "shape: nutz is not dealt as seats");
    // Two places on one seat; one player on two places; a seat in a shared hand.
    let mut twice = places.clone();
    twice[4].seat = Some(2);
    assert_eq!(
        refused(&with(cards.clone(), &twice)),
        RoundRefusal::SeatTwice {
            index: 4,
            seat: 2,
            first: 1
        }
    );
    assert_eq!(
        refused(&with(cards.clone(), &twice)).to_string(),
        "places[4].seat: seat 2 is also places[1]'s"
    );
    let mut one = places.clone();
    one[5].player = "player-1".into();
    assert_eq!(
        refused(&with(cards.clone(), &one)).to_string(),
        "places[5].player: player-1 also holds places[0] (one place per player)"
    );
    let t = transcript(
        game,
        "shared_hand",
        None,
        ("seed", json!(seed.to_hex())),
        &places,
        None,
    );
    assert_eq!(
        refused(&t),
        RoundRefusal::SeatNotThisShape {
            index: 0,
            shape: "shared_hand"
        }
    );
    // A decision the game refuses, named at its place; decisions ending before the hand does.
    let mut bad = places.clone();
    bad[2].actions = vec![Action::Bet { multiple: 2 }];
    let why = refused(&with(cards.clone(), &bad));
    assert!(
        matches!(
            &why,
            RoundRefusal::Place {
                index: 2,
                source: Refusal::Decision {
                    index: 1,
                    why: DecisionRefused::Rule(RuleError::ActionNotInGame { .. }),
                    ..
                }
            }
        ),
        "{why}"
    );
    assert_eq!(
        why.to_string(),
        "places[2].decisions[0] (\"bet 2\"): action: bet is not a decision of caribbean_stud"
    );
    let mut unfinished = places.clone();
    unfinished[3].actions.clear();
    for material in [("cards", cards.clone()), ("seed", json!(seed.to_hex()))] {
        let t = transcript(game, "seats", Some(7), material, &unfinished, None);
        let why = refused(&t);
        assert!(
            matches!(&why, RoundRefusal::Place { index: 3, source: Refusal::Unfinished { legal } } if legal.contains(&"raise".to_string())),
            "{why}"
        );
        assert_eq!(
            why.to_string(),
            "places[3].decisions: the decisions end before the hand does; legal next: raise, fold"
        );
    }
    // A stake off the table's limits, named by its field at its place.
    let mut low = places.clone();
    low[1].wagers[0].amount = Money(5);
    let why = refused(&with(cards.clone(), &low));
    assert!(
        why.to_string().starts_with("places[1].wagers.ante: "),
        "{why}"
    );
    // Bounds: decisions, places; unknown fields.
    let mut long = places.clone();
    long[0].actions = vec![Action::Raise; 17];
    assert_eq!(
        refused(&with(cards.clone(), &long)),
        RoundRefusal::TooMany {
            field: "places[0].decisions".into(),
            given: 17,
            max: 16
        }
    );
    let crowd: Vec<Place> = (0..25_001)
        .map(|k| Place {
            player: format!("v{k}"),
            seat: None,
            wagers: vec![wager(BetId::Ante, 500)],
            actions: vec![Action::Fold],
        })
        .collect();
    let t = transcript(
        game,
        "shared_hand",
        None,
        ("seed", json!(seed.to_hex())),
        &crowd,
        None,
    );
    assert_eq!(
        refused(&t).to_string(),
        "places: 25001 given, at most 25000"
    );
    let mut t = with(cards.clone(), &places);
    t["places"][0]["tip"] = json!(5);
    assert!(matches!(refused(&t), RoundRefusal::Format(m) if m.contains("tip")));
}

#[test]
fn parse_any_routes_a_text_to_the_hand_or_the_round() {
    let hand = std::fs::read_to_string(format!(
        "{}/../../fixtures/transcripts/mississippi_stud.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let parsed = round_transcript::parse_any(&hand).unwrap();
    assert!(matches!(parsed, AnyTranscript::Hand(_)));
    let AnyChecked::Hand(c) = parsed.check().unwrap() else {
        panic!("a hand")
    };
    assert_eq!(c.settlement.total_paid.0, 15200);
    let round = json!({"game": "nutz", "shape": "one_shake", "dice": [[3, 3, 3, 5, 1], [3, 6], [2]],
        "places": [{"player": "a", "wagers": {"box_four_of_a_kind": 500}, "decisions": ["shake", "shake", "shake"]},
                   {"player": "b", "wagers": {"box_one_pair": 500}}]});
    let parsed = round_transcript::parse_any(&round.to_string()).unwrap();
    assert!(matches!(parsed, AnyTranscript::Round(_)));
    let checked = parsed.check().unwrap();
    assert!(checked.agrees(), "nothing claimed");
    assert_eq!(
        checked.json()["places"][0]["settlement"]["total_paid"],
        3000
    );
    assert_eq!(checked.json()["places"][1]["settlement"]["total_paid"], 0);
    // Not JSON; a round with a field no round has; a hand with one.
    assert!(matches!(
        round_transcript::parse_any("{"),
        Err(AnyRefusal::Hand(Refusal::Format(_)))
    ));
    let mut bad = round.clone();
    bad["wagers"] = json!({});
    assert!(matches!(
        round_transcript::parse_any(&bad.to_string()),
        Err(AnyRefusal::Round(RoundRefusal::Format(_)))
    ));
    let mut h: Value = serde_json::from_str(&hand).unwrap();
    h["shape"] = json!("seats");
    assert!(matches!(
        round_transcript::parse_any(&h.to_string()),
        Err(AnyRefusal::Hand(Refusal::Format(_)))
    ));
}

/// docs/transcripts.md's round example, as the page shows it, checks as the page says: every
/// place's claim agrees but the third's raise and total.
#[test]
fn the_documented_round_example_checks_as_described() {
    let doc = std::fs::read_to_string(format!(
        "{}/../../docs/transcripts.md",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let blocks: Vec<&str> = doc
        .split("~~~json\n")
        .skip(1)
        .filter_map(|b| b.split("\n~~~").next())
        .collect();
    assert_eq!(blocks.len(), 1, "one round example");
    let c = round_transcript::check(&round_transcript::parse(blocks[0]).unwrap()).unwrap();
    assert_eq!(c.id.as_deref(), Some("vendor-csp-table-0042"));
    assert_eq!(c.differing(), vec![2]);
    let ours = |place: usize, bet: BetId| {
        c.places[place]
            .settlement
            .lines
            .iter()
            .find(|l| l.bet == bet)
            .map(|l| l.payout.0)
    };
    assert_eq!(
        c.places[2].differences,
        vec![
            Difference {
                what: "raise".into(),
                claimed: Some(3000),
                ours: ours(2, BetId::Raise),
            },
            Difference {
                what: "total_paid".into(),
                claimed: Some(4000),
                ours: Some(c.places[2].settlement.total_paid.0),
            },
        ]
    );
    assert_eq!(ours(2, BetId::Raise), Some(2000), "a pair raises at 1 to 1");
    assert_eq!(
        ours(0, BetId::Raise),
        Some(6000),
        "a flush raises at 5 to 1"
    );
    assert_eq!(c.places[1].settlement.total_paid.0, 0, "seat 2 folded");
    // The same table with seat 3's card also at seat 1 is refused, as the page says.
    let mut t: Value = serde_json::from_str(blocks[0]).unwrap();
    t["cards"]["seat3"][0] = t["cards"]["seat1"][0].clone();
    let why = refused(&t);
    assert!(
        doc.lines().any(|line| line == why.to_string()),
        "the page quotes the refusal: {why}"
    );
}
