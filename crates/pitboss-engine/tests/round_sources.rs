//! Rounds whose deal seed is mixed (`docs/rng.md` §1a; issue 40): the players' seeds sent with
//! their bets and a beacon round named when the round opens. The deal is the mixed seed's, not the
//! server's; betting closes before the beacon round's time; nothing is dealt until the beacon
//! arrives or its wait is over, and then the configured rule applies; a player's seed is taken only
//! where the configuration takes it and within its bound; every round replays from its events.

use std::collections::BTreeMap;
use std::sync::Arc;

use pitboss_engine::config::{BeaconRule, GameConfig, LateBeacon, SeedSources};
use pitboss_engine::deal;
use pitboss_engine::game::GameId;
use pitboss_engine::games::{Action, Command, Hand, OpenHand, Shaker, Status, Timestamp};
use pitboss_engine::mix::{self, BeaconValue, Sources};
use pitboss_engine::money::Money;
use pitboss_engine::rng::Seed;
use pitboss_engine::round::{
    BeaconArrival, Decide, OpenRound, Phase, PlaceBet, Round, RoundCommand, RoundError, RoundEvent,
    Shape,
};
use pitboss_engine::settlement::{BetId, Wager};
use sha2::{Digest, Sha256};

/// Opened at this instant: quicknet round 1000's time is genesis + 999 × 3 s.
const GENESIS_MS: u64 = 1_692_803_367_000;
const OPEN_AT: u64 = GENESIS_MS + 2_990_000;
const BETTING_MS: u64 = 5_000;

fn server_seed(n: u64) -> Seed {
    Seed::from_bytes(Sha256::digest(format!("pitboss sources test {n}")).into())
}

fn config(game: GameId, players: bool, late: Option<LateBeacon>) -> Arc<GameConfig> {
    let mut config = GameConfig::default_for(game);
    config.seed_sources = SeedSources {
        players,
        beacon: late.map(|late| BeaconRule {
            late,
            ..BeaconRule::quicknet(BETTING_MS)
        }),
    };
    config.check_current().expect("a valid configuration");
    Arc::new(config)
}

/// A signature and the beacon value it gives (randomness = SHA-256(signature)); the engine does
/// not verify BLS (the beacon crate does, before the command), so any bytes stand for one here.
fn beacon(round: u64, signature: &[u8]) -> (BeaconValue, Vec<u8>) {
    let value = BeaconValue {
        chain: BeaconRule::quicknet(BETTING_MS).chain(),
        round,
        randomness: Sha256::digest(signature).into(),
    };
    (value, signature.to_vec())
}

struct Table {
    round: Round,
    events: Vec<RoundEvent>,
    seed: Seed,
    config: Arc<GameConfig>,
}

impl Table {
    fn open(config: Arc<GameConfig>, seed: Seed, shape: Shape) -> Table {
        let mut t = Table {
            round: Round::new(seed, config.clone()),
            events: Vec::new(),
            seed,
            config,
        };
        t.ok(RoundCommand::Open(OpenRound {
            table: "T9".into(),
            dealer: "dealer-1".into(),
            shoe: None,
            shape,
            max_players: 50,
            seats_per_player: 1,
            decision_window_ms: 60_000,
            at: Timestamp(OPEN_AT),
        }));
        t
    }

    fn ok(&mut self, command: RoundCommand) -> Vec<RoundEvent> {
        let events = self
            .round
            .step(&command)
            .unwrap_or_else(|e| panic!("{command:?}: {e}"));
        self.events.extend(events.iter().cloned());
        events
    }

    fn refused(&mut self, command: RoundCommand) -> RoundError {
        let (version, phase) = (self.round.version(), self.round.phase());
        let error = self.round.step(&command).expect_err("refused");
        assert_eq!(self.round.version(), version, "{error}: nothing recorded");
        assert_eq!(self.round.phase(), phase, "{error}: phase unchanged");
        error
    }

    fn bet(&mut self, player: &str, seat: Option<u8>, seed: Option<&[u8]>, at: u64) -> PlaceBet {
        let bet = PlaceBet {
            player: player.into(),
            seat,
            wagers: vec![Wager {
                bet: if self.round.game() == GameId::Nutz {
                    BetId::BoxOnePair
                } else {
                    BetId::Ante
                },
                amount: Money(500),
            }],
            seed_digest: seed
                .map(|s| pitboss_engine::round::player_seed(s).expect("within the bound")),
            at: Timestamp(at),
        };
        self.ok(RoundCommand::Bet(bet.clone()));
        bet
    }

    fn replayed(&self) {
        let again = Round::replay(self.seed, self.config.clone(), &self.events)
            .unwrap_or_else(|e| panic!("replay: {e}"));
        assert_eq!(again.phase(), self.round.phase());
        assert_eq!(again.version(), self.round.version());
        assert_eq!(again.sources(), self.round.sources());
        for (a, b) in again.places().iter().zip(self.round.places()) {
            assert_eq!(a.hand().settlement(), b.hand().settlement());
            assert_eq!(a.hand().void(), b.hand().void());
        }
    }
}

fn dealt_seats(events: &[RoundEvent]) -> Vec<pitboss_engine::round::SeatDealt> {
    events
        .iter()
        .find_map(|e| match e {
            RoundEvent::Dealt { seats } => Some(seats.clone()),
            _ => None,
        })
        .expect("dealt")
}

/// The operator's seed alone would deal one hand; mixed with the players' seeds and the beacon it
/// deals another — exactly the shuffle of the mixed seed, re-derived here from the recorded
/// inputs alone.
#[test]
fn the_mixed_seed_deals_and_the_servers_seed_alone_would_not() {
    let game = GameId::CaribbeanStud;
    let seed = server_seed(1);
    let mut t = Table::open(
        config(game, true, Some(LateBeacon::DealWithout)),
        seed,
        Shape::Seats { seats: 3 },
    );
    let RoundEvent::Opened(opened) = &t.events[0] else {
        panic!("opened")
    };
    let named = opened.beacon.expect("a beacon named at the opening");
    assert!(opened.player_seeds);
    // The first round at least one period (3 s) after betting closes: 2 995 s after genesis,
    // so the first after 2 998 s, round 1001 (3 000 s; round 1000 is at 2 997 s).
    assert_eq!(named.round, 1001);
    assert_eq!(named.betting_closes, Timestamp(OPEN_AT + BETTING_MS));
    assert!(named.round_at.0 >= named.betting_closes.0 + 3_000);
    assert_eq!(named.awaited_until.0, named.round_at.0 + 30_000);

    t.bet("ann", Some(1), Some(b"ann's lucky seed"), OPEN_AT + 100);
    t.bet("bob", Some(2), None, OPEN_AT + 200);
    t.bet("cy", Some(3), Some(&[0xff; 64]), OPEN_AT + 300);
    // Betting closes at the deadline: the beacon round does not exist yet.
    let late = t.refused(RoundCommand::Bet(PlaceBet {
        player: "dee".into(),
        seat: None,
        wagers: vec![],
        seed_digest: None,
        at: named.betting_closes,
    }));
    assert!(matches!(late, RoundError::BettingDeadline { .. }), "{late}");
    assert_eq!(late.field().unwrap().to_string(), "at");

    let closed = t.ok(RoundCommand::CloseBetting {
        at: Timestamp(OPEN_AT + 4_000),
        shaker: None,
    });
    assert_eq!(closed.len(), 1, "betting closed, nothing dealt: {closed:?}");
    assert_eq!(t.round.phase(), Phase::AwaitingBeacon);
    let early = t.refused(RoundCommand::Decide(Decide {
        player: "ann".into(),
        seat: Some(1),
        action: Action::Raise,
        at: Timestamp(OPEN_AT + 4_500),
    }));
    assert_eq!(early, RoundError::AwaitingBeacon);

    // The wrong round, the wrong chain, a randomness that is not the signature's digest.
    let (value, signature) = beacon(1001, b"a signature of round 1001");
    let arrival = |value, signature: &[u8]| {
        RoundCommand::Beacon(BeaconArrival {
            value,
            signature: signature.to_vec(),
            at: Timestamp(named.round_at.0 + 500),
        })
    };
    for (spoilt, field) in [
        (
            BeaconValue {
                round: 1002,
                ..value
            },
            "beacon.round",
        ),
        (
            BeaconValue {
                chain: [7; 32],
                ..value
            },
            "beacon.chain",
        ),
        (
            BeaconValue {
                randomness: [0; 32],
                ..value
            },
            "beacon.randomness",
        ),
    ] {
        let error = t.refused(arrival(spoilt, &signature));
        assert_eq!(error.field().unwrap().to_string(), field, "{error}");
    }
    let too_late = t.refused(RoundCommand::Beacon(BeaconArrival {
        value,
        signature: signature.clone(),
        at: Timestamp(named.awaited_until.0 + 1),
    }));
    assert!(
        matches!(too_late, RoundError::BeaconTooLate { .. }),
        "{too_late}"
    );
    let dealt = t.ok(arrival(value, &signature));
    assert!(matches!(dealt[0], RoundEvent::BeaconArrived(_)));
    assert_eq!(t.round.phase(), Phase::Playing);

    // Re-derived from the recorded inputs: the players' digests by place, the beacon.
    let mut players = BTreeMap::new();
    players.insert(0, Sha256::digest(b"ann's lucky seed").into());
    players.insert(2, Sha256::digest([0xff; 64]).into());
    let sources = Sources {
        players: Some(players),
        beacon: Some(value),
    };
    assert_eq!(t.round.sources(), sources);
    let mixed = mix::deal_seed(&seed, &sources);
    assert_ne!(mixed, seed);
    let by_mixed = deal::derive_round(game, &mixed, 3).unwrap();
    let by_server = deal::derive_round(game, &seed, 3).unwrap();
    let seats = dealt_seats(&dealt);
    for s in &seats {
        assert_eq!(s.cards, by_mixed.seats[usize::from(s.seat) - 1].cards);
    }
    assert!(
        seats
            .iter()
            .any(|s| s.cards != by_server.seats[usize::from(s.seat) - 1].cards),
        "the server's seed alone deals otherwise"
    );
    // Every place plays the mixed deal's cards to the end, settled as one-player hands of them.
    for (seat, player) in [(1, "ann"), (2, "bob"), (3, "cy")] {
        t.ok(RoundCommand::Decide(Decide {
            player: player.into(),
            seat: Some(seat),
            action: Action::Raise,
            at: Timestamp(named.round_at.0 + 1_000),
        }));
    }
    assert_eq!(t.round.phase(), Phase::Ended);
    assert_eq!(t.events.last(), Some(&RoundEvent::SeedRevealed { seed }));
    for place in t.round.places() {
        let seat = place.seat().unwrap();
        let expected: Vec<_> = by_mixed.seats[usize::from(seat) - 1].cards.clone();
        assert_eq!(
            place
                .hand()
                .seat_cards(pitboss_engine::game::Seat::Player)
                .to_vec(),
            expected
        );
        assert_eq!(place.hand().status(), Status::Settled);
    }
    t.replayed();
}

/// One shake under a beacon: the dice are the mixed seed's stream, exactly a one-player hand of
/// that seed's.
#[test]
fn one_shake_rolls_the_mixed_seeds_dice() {
    let game = GameId::Nutz;
    let seed = server_seed(2);
    let mut t = Table::open(
        config(game, false, Some(LateBeacon::DealWithout)),
        seed,
        Shape::OneShake,
    );
    let bet = t.bet("ann", None, None, OPEN_AT + 1);
    t.bet("bob", None, None, OPEN_AT + 2);
    t.ok(RoundCommand::CloseBetting {
        at: Timestamp(OPEN_AT + 3),
        shaker: Some("ann".into()),
    });
    let named = t.round.opened().unwrap().beacon.unwrap();
    let (value, signature) = beacon(named.round, b"round signature");
    t.ok(RoundCommand::Beacon(BeaconArrival {
        value,
        signature,
        at: named.round_at,
    }));
    let mixed = mix::deal_seed(
        &seed,
        &Sources {
            players: None,
            beacon: Some(value),
        },
    );
    let mut alone = Hand::new(mixed, Arc::new(GameConfig::default_for(game)));
    let mut alone_faces = Vec::new();
    let mut apply = |hand: Hand, command: Command| {
        let events = hand.decide(&command).unwrap();
        for e in &events {
            if let pitboss_engine::games::Event::DiceShaken { faces, .. } = e {
                alone_faces.push(*faces);
            }
        }
        events.iter().fold(hand, |h, e| h.evolve(e).unwrap())
    };
    alone = apply(
        alone,
        Command::Open(OpenHand {
            table: "T9".into(),
            player: "ann".into(),
            wagers: bet.wagers.clone(),
            at: bet.at,
            rebet_of: None,
        }),
    );
    let mut at = named.round_at.0 + 10;
    let mut round_faces = Vec::new();
    while t.round.phase() == Phase::Playing {
        let shaken = t.ok(RoundCommand::Decide(Decide {
            player: "ann".into(),
            seat: None,
            action: Action::Shake { by: Shaker::Player },
            at: Timestamp(at),
        }));
        alone = apply(
            alone,
            Command::Act {
                action: Action::Shake { by: Shaker::Player },
                at: Timestamp(at),
            },
        );
        round_faces.extend(shaken.iter().filter_map(|e| match e {
            RoundEvent::Shaken(shake) => Some(shake.faces),
            _ => None,
        }));
        at += 10;
    }
    assert!(!round_faces.is_empty());
    assert_eq!(round_faces, alone_faces, "the mixed seed's dice");
    assert_eq!(t.round.places()[0].hand().settlement(), alone.settlement());
    t.replayed();
}

/// A late beacon under each rule: refused before the wait is over; then dealt without it (from
/// the server's and the players' seeds), or every bet voided and refunded.
#[test]
fn a_late_beacon_deals_without_it_or_voids_the_round_by_the_configured_rule() {
    for rule in [LateBeacon::DealWithout, LateBeacon::Void] {
        let game = GameId::MississippiStud;
        let seed = server_seed(3);
        let mut t = Table::open(config(game, true, Some(rule)), seed, Shape::SharedHand);
        t.bet("ann", None, Some(b"x"), OPEN_AT + 1);
        t.bet("bob", None, None, OPEN_AT + 2);
        t.ok(RoundCommand::CloseBetting {
            at: Timestamp(OPEN_AT + 3),
            shaker: None,
        });
        let named = t.round.opened().unwrap().beacon.unwrap();
        let why = "the source served no round 1000 within the wait".to_string();
        let early = t.refused(RoundCommand::BeaconLate {
            at: Timestamp(named.awaited_until.0 - 1),
            why: why.clone(),
        });
        assert!(matches!(early, RoundError::BeaconNotLate { .. }), "{early}");
        let events = t.ok(RoundCommand::BeaconLate {
            at: named.awaited_until,
            why: why.clone(),
        });
        let RoundEvent::BeaconLate(missed) = &events[0] else {
            panic!("{events:?}")
        };
        assert_eq!((missed.rule, missed.why.as_str()), (rule, why.as_str()));
        assert_eq!(t.round.beacon(), None);
        match rule {
            LateBeacon::DealWithout => {
                assert_eq!(t.round.phase(), Phase::Playing);
                // Dealt from the server's seed and ann's: the beacon is not a source.
                let mut players = BTreeMap::new();
                players.insert(0, Sha256::digest(b"x").into());
                let mixed = mix::deal_seed(
                    &seed,
                    &Sources {
                        players: Some(players),
                        beacon: None,
                    },
                );
                let expected = deal::derive(game, &mixed);
                assert_eq!(
                    t.round.places()[1]
                        .hand()
                        .seat_cards(pitboss_engine::game::Seat::Player),
                    &expected.seats[0].cards[..]
                );
            }
            LateBeacon::Void => {
                assert_eq!(t.round.phase(), Phase::Voided);
                for place in t.round.places() {
                    let void = place.hand().void().expect("voided");
                    assert_eq!(void.paid_now, void.total_staked, "refunded");
                }
                assert_eq!(t.events.last(), Some(&RoundEvent::SeedRevealed { seed }));
                let after = t.refused(RoundCommand::Beacon(BeaconArrival {
                    value: beacon(named.round, b"s").0,
                    signature: b"s".to_vec(),
                    at: Timestamp(named.awaited_until.0 + 1),
                }));
                assert!(matches!(after, RoundError::Ended(_)), "{after}");
            }
        }
        t.replayed();
    }
}

/// A player's seed where the configuration takes none, or outside its bound: refused by its field,
/// nothing recorded.
#[test]
fn a_players_seed_is_taken_only_where_configured_and_within_its_bound() {
    let seed = server_seed(4);
    let mut t = Table::open(
        config(GameId::CaribbeanStud, false, None),
        seed,
        Shape::Seats { seats: 2 },
    );
    assert_eq!(t.round.opened().unwrap().beacon, None);
    let error = t.refused(RoundCommand::Bet(PlaceBet {
        player: "ann".into(),
        seat: Some(1),
        wagers: vec![Wager {
            bet: BetId::Ante,
            amount: Money(500),
        }],
        seed_digest: Some([1; 32]),
        at: Timestamp(OPEN_AT + 1),
    }));
    assert_eq!(error.field().unwrap().to_string(), "player_seed");
    assert_eq!(error.precondition(), Some("PLAYER_SEED_NOT_TAKEN"));
    assert!(t.round.places().is_empty());
    for bytes in [&[][..], &[0u8; mix::PLAYER_SEED_MAX + 1][..]] {
        let error = pitboss_engine::round::player_seed(bytes).expect_err("outside the bound");
        assert_eq!(error.field().unwrap().to_string(), "player_seed");
    }
    assert!(pitboss_engine::round::player_seed(&[0u8; mix::PLAYER_SEED_MAX]).is_ok());
    // Without sources the deal is the server's seed's, as before mixing existed.
    t.bet("ann", Some(1), None, OPEN_AT + 2);
    let dealt = t.ok(RoundCommand::CloseBetting {
        at: Timestamp(OPEN_AT + 3),
        shaker: None,
    });
    let by_server = deal::derive_round(GameId::CaribbeanStud, &seed, 2).unwrap();
    assert_eq!(dealt_seats(&dealt)[0].cards, by_server.seats[0].cards);
}

/// A configuration without sources keeps its canonical bytes: the default configurations' ids do
/// not move, and sources do move them.
#[test]
fn sources_change_a_configurations_id_and_their_absence_does_not() {
    for game in GameId::ALL {
        let default = GameConfig::default_for(game);
        let bytes = String::from_utf8(default.canonical_bytes()).unwrap();
        assert!(!bytes.contains("seed_sources"), "{bytes}");
        let mixed = config(game, true, Some(LateBeacon::Void));
        assert_ne!(mixed.id(), default.id());
        let back: GameConfig = serde_json::from_slice(&mixed.canonical_bytes()).unwrap();
        assert_eq!(&back, mixed.as_ref());
    }
}
