//! Rounds (`spec/GAMES.md`, *Rounds*; issue 39): seats dealt from one shuffle, one shake for many
//! bettors, one shared hand for thousands — each place settled as an independent one-player hand of
//! the same cards would be, the table shown a card only once every place in play has come to it,
//! voids and forfeits by their reach, the decision window, refusals that change nothing, and every
//! round replayed from its events (a tampered event refused where it stands).

use std::collections::BTreeSet;
use std::sync::Arc;

use pitboss_engine::card::Card;
use pitboss_engine::config::{CaribbeanRules, GameConfig};
use pitboss_engine::deal;
use pitboss_engine::game::{GameId, Material, Seat};
use pitboss_engine::games::{
    dealer_qualifies, Action, Command, Hand, OpenHand, Shaker, Status, Timestamp, VoidKind,
    VoidOrder,
};
use pitboss_engine::hand::poker5;
use pitboss_engine::money::Money;
use pitboss_engine::paytable::Pay;
use pitboss_engine::rng::Seed;
use pitboss_engine::round::{
    Decide, OpenRound, Phase, PlaceBet, Round, RoundCommand, RoundError, RoundEvent, Shape,
};
use pitboss_engine::settlement::{BetId, Settlement, Wager};
use sha2::{Digest, Sha256};

const WINDOW: u64 = 60_000;

fn seed(label: &str, n: u64) -> Seed {
    Seed::from_bytes(Sha256::digest(format!("pitboss round test {label} {n}")).into())
}

fn config(game: GameId) -> Arc<GameConfig> {
    Arc::new(GameConfig::default_for(game))
}

fn units(u: u64) -> Money {
    Money(u * 100)
}

fn wager(bet: BetId, amount: Money) -> Wager {
    Wager { bet, amount }
}

/// A round and every event it has caused, in order.
struct Table {
    round: Round,
    events: Vec<RoundEvent>,
    seed: Seed,
    config: Arc<GameConfig>,
}

impl Table {
    fn open(game: GameId, seed: Seed, shape: Shape, max_players: u32) -> Table {
        let config = config(game);
        let mut table = Table {
            round: Round::new(seed, config.clone()),
            events: Vec::new(),
            seed,
            config,
        };
        table.ok(RoundCommand::Open(OpenRound {
            table: "T1".into(),
            dealer: "dealer-7".into(),
            shoe: Some("shuffler-2".into()),
            shape,
            max_players,
            seats_per_player: 1,
            decision_window_ms: WINDOW,
            at: Timestamp(1_000),
        }));
        table
    }

    fn ok(&mut self, command: RoundCommand) -> Vec<RoundEvent> {
        let events = self
            .round
            .step(&command)
            .unwrap_or_else(|e| panic!("{command:?}: {e}"));
        self.events.extend(events.iter().cloned());
        events
    }

    /// A refused command: the error, and the round unchanged.
    fn refused(&mut self, command: RoundCommand) -> RoundError {
        let (version, places, phase) = (
            self.round.version(),
            self.round.places().len(),
            self.round.phase(),
        );
        let error = self.round.step(&command).expect_err("refused");
        assert_eq!(self.round.version(), version, "{error}: nothing recorded");
        assert_eq!(self.round.places().len(), places, "{error}: no place added");
        assert_eq!(self.round.phase(), phase, "{error}: phase unchanged");
        error
    }

    fn bet(&mut self, player: &str, seat: Option<u8>, wagers: Vec<Wager>, at: u64) {
        self.ok(RoundCommand::Bet(PlaceBet {
            seed_digest: None,
            player: player.into(),
            seat,
            wagers,
            at: Timestamp(at),
        }));
    }

    fn close(&mut self, at: u64, shaker: Option<&str>) -> Vec<RoundEvent> {
        self.ok(RoundCommand::CloseBetting {
            at: Timestamp(at),
            shaker: shaker.map(str::to_string),
        })
    }

    fn decide(
        &mut self,
        player: &str,
        seat: Option<u8>,
        action: Action,
        at: u64,
    ) -> Vec<RoundEvent> {
        self.ok(RoundCommand::Decide(Decide {
            player: player.into(),
            seat,
            action,
            at: Timestamp(at),
        }))
    }

    /// The round replayed from its events must be the same round.
    fn replayed(&self) -> Round {
        let again = Round::replay(self.seed, self.config.clone(), &self.events)
            .unwrap_or_else(|e| panic!("replay: {e}"));
        assert_eq!(again.phase(), self.round.phase());
        assert_eq!(again.version(), self.round.version());
        for (a, b) in again.places().iter().zip(self.round.places()) {
            assert_eq!(a.hand().settlement(), b.hand().settlement());
            assert_eq!(a.hand().void(), b.hand().void());
        }
        again
    }

    fn settlement(&self, place: u32) -> &Settlement {
        self.events
            .iter()
            .find_map(|e| match e {
                RoundEvent::Settled {
                    place: p,
                    settlement,
                } if *p == place => Some(settlement),
                _ => None,
            })
            .unwrap_or_else(|| panic!("place {place} settled"))
    }
}

fn order(kind: VoidKind, at: u64, approved_by: Option<&str>) -> VoidOrder {
    VoidOrder {
        kind,
        reason: "the shuffler jammed".into(),
        recorded_by: "pit-boss-1".into(),
        approved_by: approved_by.map(str::to_string),
        at: Timestamp(at),
    }
}

/// An independent one-player hand over given cards (the transcript path): opened with `wagers`, then
/// `actions`; its settlement.
fn independent(
    game: GameId,
    deck: Vec<Card>,
    dice: Vec<u8>,
    wagers: &[Wager],
    actions: &[Action],
) -> Hand {
    let mut hand = Hand::with_material(config(game), deck, dice);
    let apply = |hand: Hand, command: Command| {
        let events = hand.decide(&command).unwrap_or_else(|e| panic!("{e}"));
        events.iter().fold(hand, |h, e| h.evolve(e).unwrap())
    };
    hand = apply(
        hand,
        Command::Open(OpenHand {
            table: "independent".into(),
            player: "p".into(),
            wagers: wagers.to_vec(),
            at: Timestamp(10),
            rebet_of: None,
        }),
    );
    for (k, &action) in actions.iter().enumerate() {
        hand = apply(
            hand,
            Command::Act {
                action,
                at: Timestamp(20 + k as u64),
            },
        );
    }
    hand
}

/// The round's whole deck, derived again from the seed by `deal::derive_round`.
fn round_deck(game: GameId, seed: &Seed, seats: u8) -> deal::Deal {
    deal::derive_round(game, seed, seats).expect("a round's deal")
}

#[test]
fn a_seven_seat_caribbean_round_settles_every_seat_as_its_own_hand_of_the_one_shuffle() {
    let game = GameId::CaribbeanStud;
    for n in 0..20 {
        let seed = seed("caribbean7", n);
        let mut t = Table::open(game, seed, Shape::Seats { seats: 7 }, 7);
        let mut wagers = Vec::new();
        for seat in 1..=7u8 {
            let mut w = vec![wager(BetId::Ante, units(u64::from(seat) * 5))];
            if seat % 2 == 1 {
                w.push(wager(BetId::Bonus, units(1)));
            }
            t.bet(
                &format!("player-{seat}"),
                Some(seat),
                w.clone(),
                2_000 + u64::from(seat),
            );
            wagers.push(w);
        }
        let dealt = t.close(3_000, None);
        let derived = round_deck(game, &seed, 7);
        // Every seat dealt its block of the one shuffle, no card twice; the dealer's up card turned.
        let RoundEvent::Dealt { seats } = &dealt[1] else {
            panic!("dealt: {dealt:?}")
        };
        let mut seen = BTreeSet::new();
        for s in seats {
            let block = &derived.seats[usize::from(s.seat) - 1];
            assert_eq!(s.cards, block.cards, "seat {}", s.seat);
            assert_eq!(
                s.positions
                    .iter()
                    .map(|&p| usize::from(p))
                    .collect::<Vec<_>>(),
                block.positions,
                "seat {}",
                s.seat
            );
            assert!(s.cards.iter().all(|c| seen.insert(*c)), "a card twice");
        }
        let dealer = derived.seats.last().unwrap();
        assert_eq!(dealer.seat, Seat::Dealer);
        assert!(
            dealer.cards.iter().all(|c| seen.insert(*c)),
            "dealer card twice"
        );
        assert_eq!(
            dealt[2],
            RoundEvent::Revealed {
                positions: vec![dealer.positions[4] as u8],
                cards: vec![dealer.cards[4]]
            },
            "the up card, for the table"
        );
        // Seats decide; the dealer's hand is not turned before the last has decided.
        let mut actions = Vec::new();
        for seat in 1..=7u8 {
            let cards: [Card; 5] = derived.seats[usize::from(seat) - 1]
                .cards
                .clone()
                .try_into()
                .unwrap();
            let strong = poker5::evaluate_unchecked(&cards).category() >= poker5::Category::Pair;
            let action = if strong || seat == 4 {
                Action::Raise
            } else {
                Action::Fold
            };
            let caused = t.decide(
                &format!("player-{seat}"),
                Some(seat),
                action,
                4_000 + u64::from(seat),
            );
            if seat < 7 {
                assert_eq!(
                    caused.len(),
                    1,
                    "seat {seat}: only the decision is recorded: {caused:?}"
                );
                assert_eq!(t.round.phase(), Phase::Playing);
            } else {
                assert!(matches!(
                    caused.last(),
                    Some(RoundEvent::SeedRevealed { .. })
                ));
            }
            actions.push(action);
        }
        assert_eq!(t.round.phase(), Phase::Ended);
        // Each seat against an independent one-player hand of its cards and the dealer's.
        for seat in 1..=7u8 {
            let mut deck = derived.seats[usize::from(seat) - 1].cards.clone();
            deck.extend(dealer.cards.iter().copied());
            let hand = independent(
                game,
                deck,
                Vec::new(),
                &wagers[usize::from(seat) - 1],
                &[actions[usize::from(seat) - 1]],
            );
            assert_eq!(
                Some(t.settlement(u32::from(seat) - 1)),
                hand.settlement(),
                "seed {n} seat {seat}"
            );
        }
        t.replayed();
    }
}

#[test]
fn a_one_seat_round_deals_and_settles_as_todays_hand_of_the_same_seed() {
    for game in GameId::ALL {
        for n in 0..25 {
            let seed = seed("one seat", n);
            let shapes: &[Shape] = match game.material() {
                Material::Dice { .. } => &[Shape::OneShake],
                Material::Cards(_) => &[Shape::Seats { seats: 1 }, Shape::SharedHand],
            };
            for &shape in shapes {
                let hand = Hand::new(seed, config(game));
                let wagers = opening(game, n);
                let mut t = Table::open(game, seed, shape, 1);
                let seat = matches!(shape, Shape::Seats { .. }).then_some(1);
                t.bet("p", seat, wagers.clone(), 2_000);
                t.close(3_000, (game == GameId::Nutz).then_some("p"));
                let place = &t.round.places()[0];
                assert_eq!(
                    place.hand().seat_cards(Seat::Player),
                    hand.seat_cards(Seat::Player),
                    "{game} {n}: the player's cards"
                );
                // Play today's hand and the round with the same decisions.
                let mut today = fold_hand(
                    hand,
                    Command::Open(OpenHand {
                        table: "T1".into(),
                        player: "p".into(),
                        wagers: wagers.clone(),
                        at: Timestamp(2_000),
                        rebet_of: None,
                    }),
                );
                let mut at = 4_000;
                while today.status() == Status::InProgress {
                    let action = today.legal_actions()
                        [usize::try_from(n).unwrap() % today.legal_actions().len()];
                    today = fold_hand(
                        today,
                        Command::Act {
                            action,
                            at: Timestamp(at),
                        },
                    );
                    // The bettor offered the cup shakes, or lets the dealer shake.
                    t.decide("p", seat, action, at);
                    at += 1;
                }
                assert_eq!(t.round.phase(), Phase::Ended, "{game} {n} {shape:?}");
                assert_eq!(
                    Some(t.settlement(0)),
                    today.settlement(),
                    "{game} {n} {shape:?}"
                );
                t.replayed();
            }
        }
    }
}

fn fold_hand(hand: Hand, command: Command) -> Hand {
    let events = hand.decide(&command).unwrap_or_else(|e| panic!("{e}"));
    events.iter().fold(hand, |h, e| h.evolve(e).unwrap())
}

/// Opening wagers every game takes under its default configuration.
fn opening(game: GameId, n: u64) -> Vec<Wager> {
    match game {
        GameId::MississippiStud => vec![wager(BetId::Ante, units(1 + n % 5))],
        GameId::FortunePaiGow => vec![
            wager(BetId::Main, units(5)),
            wager(BetId::FortuneBonus, units(1)),
        ],
        GameId::CaribbeanStud => vec![wager(BetId::Ante, units(2)), wager(BetId::Bonus, units(1))],
        GameId::Nutz => vec![
            wager(BetId::BoxOnePair, units(1)),
            wager(BetId::BoxNutz, units(1)),
        ],
    }
}

#[test]
fn a_misdeal_voids_every_seat_and_a_settled_rounds_void_needs_a_second_person() {
    let game = GameId::MississippiStud;
    let seed = seed("misdeal", 1);
    let mut t = Table::open(game, seed, Shape::Seats { seats: 5 }, 5);
    for seat in 1..=5u8 {
        t.bet(
            &format!("p{seat}"),
            Some(seat),
            vec![wager(BetId::Ante, units(u64::from(seat)))],
            2_000,
        );
    }
    t.close(3_000, None);
    t.decide("p1", Some(1), Action::Bet { multiple: 3 }, 4_000);
    t.decide("p2", Some(2), Action::Fold, 4_001);
    let voided = t.ok(RoundCommand::VoidRound(order(
        VoidKind::Malfunction,
        5_000,
        None,
    )));
    assert!(matches!(voided[0], RoundEvent::RoundVoided(_)));
    let places: Vec<u32> = voided
        .iter()
        .filter_map(|e| match e {
            RoundEvent::PlaceVoided { place, void } => {
                assert_eq!(void.paid_now, void.total_staked, "every stake refunded");
                Some(*place)
            }
            _ => None,
        })
        .collect();
    // Seat 2 had folded: its hand settled, but the round announces settlements only at the
    // showdown, so its void takes nothing back, as no place's does before then.
    assert_eq!(places, vec![0, 1, 2, 3, 4]);
    for e in &voided {
        if let RoundEvent::PlaceVoided { void, .. } = e {
            assert_eq!(
                void.paid_before,
                Money::ZERO,
                "nothing was paid before the showdown"
            );
            assert_eq!(void.game_cap, None);
        }
    }
    assert!(matches!(
        voided.last(),
        Some(RoundEvent::SeedRevealed { .. })
    ));
    for place in t.round.places() {
        assert_eq!(place.hand().net(), 0, "{}: net zero", place.player());
    }
    assert_eq!(t.round.phase(), Phase::Voided);
    t.replayed();

    // A settled round: void only with a second person, never the recorder alone.
    let mut t = Table::open(GameId::CaribbeanStud, seed, Shape::Seats { seats: 2 }, 2);
    t.bet("a", Some(1), vec![wager(BetId::Ante, units(10))], 2_000);
    t.bet("b", Some(2), vec![wager(BetId::Ante, units(10))], 2_000);
    t.close(3_000, None);
    t.decide("a", Some(1), Action::Raise, 4_000);
    t.decide("b", Some(2), Action::Raise, 4_000);
    assert_eq!(t.round.phase(), Phase::Ended);
    let paid: Vec<Money> = t.round.places().iter().map(|p| p.hand().paid()).collect();
    for approver in [None, Some("pit-boss-1")] {
        let error = t.refused(RoundCommand::VoidRound(order(
            VoidKind::Malfunction,
            5_000,
            approver,
        )));
        assert_eq!(error, RoundError::SecondPerson);
        assert_eq!(error.field().unwrap().to_string(), "order.approved_by");
    }
    let voided = t.ok(RoundCommand::VoidRound(order(
        VoidKind::Malfunction,
        5_000,
        Some("shift-manager"),
    )));
    for (k, paid) in paid.iter().enumerate() {
        let RoundEvent::PlaceVoided { void, .. } = &voided[1 + k] else {
            panic!("{voided:?}")
        };
        assert_eq!(void.paid_before, *paid, "the settlement it corrected");
        assert_eq!(void.paid_now, void.total_staked);
    }
    // The seed was revealed at the showdown: not again.
    assert!(!voided
        .iter()
        .any(|e| matches!(e, RoundEvent::SeedRevealed { .. })));
    t.replayed();
}

#[test]
fn a_void_before_the_showdown_takes_back_nothing_from_a_place_already_settled_in_its_hand() {
    let game = GameId::CaribbeanStud;
    for n in 0..20 {
        let seed = seed("void in play", n);
        let mut t = Table::open(game, seed, Shape::Seats { seats: 2 }, 2);
        t.bet("a", Some(1), vec![wager(BetId::Ante, units(10))], 2_000);
        t.bet("b", Some(2), vec![wager(BetId::Ante, units(10))], 2_000);
        t.close(3_000, None);
        t.decide("a", Some(1), Action::Raise, 4_000);
        assert!(
            t.round.places()[0].hand().settlement().is_some(),
            "settled in its hand"
        );
        let voided = t.ok(RoundCommand::VoidRound(order(
            VoidKind::Malfunction,
            5_000,
            None,
        )));
        for e in &voided {
            if let RoundEvent::PlaceVoided { void, .. } = e {
                assert_eq!(void.paid_before, Money::ZERO, "seed {n}");
                assert!(void.adjustment() >= 0, "seed {n}: nothing taken back");
            }
        }
        assert!(!t
            .events
            .iter()
            .any(|e| matches!(e, RoundEvent::Settled { .. })));
        for place in t.round.places() {
            assert_eq!(place.hand().net(), 0);
        }
        t.replayed();
    }
}

#[test]
fn a_forfeit_voids_one_seat_and_the_others_play_on() {
    let game = GameId::CaribbeanStud;
    let seed = seed("forfeit", 3);
    let mut t = Table::open(game, seed, Shape::Seats { seats: 3 }, 3);
    for seat in 1..=3u8 {
        t.bet(
            &format!("p{seat}"),
            Some(seat),
            vec![wager(BetId::Ante, units(4)), wager(BetId::Bonus, units(1))],
            2_000,
        );
    }
    t.close(3_000, None);
    // A malfunction is the round's, not a seat's.
    let error = t.refused(RoundCommand::Forfeit {
        player: "p2".into(),
        seat: Some(2),
        order: order(VoidKind::Malfunction, 3_500, None),
    });
    assert_eq!(error.field().unwrap().to_string(), "order.kind");
    let caused = t.ok(RoundCommand::Forfeit {
        player: "p2".into(),
        seat: Some(2),
        order: order(VoidKind::ConductForfeit, 3_500, None),
    });
    let [RoundEvent::PlaceVoided { place: 1, void }] = caused.as_slice() else {
        panic!("{caused:?}")
    };
    assert_eq!(void.paid_now, Money::ZERO, "ante, raise and bonus lost");
    assert_eq!(t.round.phase(), Phase::Playing, "the table plays on");
    assert_eq!(
        t.refused(RoundCommand::Decide(Decide {
            player: "p2".into(),
            seat: Some(2),
            action: Action::Raise,
            at: Timestamp(3_600)
        })),
        RoundError::PlaceEnded
    );
    t.decide("p1", Some(1), Action::Raise, 4_000);
    t.decide("p3", Some(3), Action::Fold, 4_001);
    assert_eq!(t.round.phase(), Phase::Ended);
    let settled: Vec<u32> = t
        .events
        .iter()
        .filter_map(|e| match e {
            RoundEvent::Settled { place, .. } => Some(*place),
            _ => None,
        })
        .collect();
    assert_eq!(settled, vec![0, 2], "the forfeited seat is not settled");
    t.replayed();
}

#[test]
fn fifty_bettors_play_one_shake() {
    let game = GameId::Nutz;
    for n in 0..10 {
        let seed = seed("nutz50", n);
        let mut t = Table::open(game, seed, Shape::OneShake, 50);
        let mut wagers = Vec::new();
        for k in 0..50u64 {
            // Each bettor on one to three boxes.
            let w: Vec<Wager> = BetId::NUTZ_BOXES
                .iter()
                .enumerate()
                .filter(|(b, _)| (k + *b as u64).is_multiple_of(3) || *b as u64 == k % 7)
                .map(|(b, &bet)| wager(bet, units(1 + (k + b as u64) % 4)))
                .collect();
            t.bet(&format!("bettor-{k}"), None, w.clone(), 2_000 + k);
            wagers.push(w);
        }
        // The cup is offered to a bettor; another bettor cannot shake it.
        t.close(3_000, Some("bettor-7"));
        let wrong = t.refused(RoundCommand::Decide(Decide {
            player: "bettor-8".into(),
            seat: None,
            action: Action::Shake { by: Shaker::Player },
            at: Timestamp(3_100),
        }));
        assert_eq!(wrong, RoundError::NotTheShaker);
        let mut at = 4_000;
        let mut rolled = Vec::new();
        let mut shakes = 0;
        while t.round.phase() == Phase::Playing {
            for e in t.decide("bettor-7", None, Action::Shake { by: Shaker::Player }, at) {
                if let RoundEvent::Shaken(shake) = e {
                    rolled.extend(shake.rolled.iter().map(|&p| shake.faces[usize::from(p)]));
                    shakes += 1;
                }
            }
            at += 1;
        }
        // Every bettor against an independent hand of the same dice, shaken as often.
        for (k, w) in wagers.iter().enumerate() {
            let hand = independent(
                game,
                Vec::new(),
                rolled.clone(),
                w,
                &vec![Action::Shake { by: Shaker::Player }; shakes],
            );
            assert_eq!(
                Some(t.settlement(k as u32)),
                hand.settlement(),
                "seed {n} bettor {k}"
            );
        }
        t.replayed();
    }
}

/// Caribbean Stud's settlement of one player of a shared hand, worked out here from the dealt cards
/// and the default paytables (no game cap): what the player is paid in all.
fn caribbean_paid(
    rules: &CaribbeanRules,
    player: &[Card; 5],
    dealer: &[Card; 5],
    ante: u64,
    bonus: bool,
    raised: bool,
) -> u64 {
    let pays = |pay: Pay, stake: u64| match pay {
        Pay::Odds(x) => stake * (u64::from(x) + 1),
        Pay::Push => stake,
        Pay::Fixed(m) => m.0,
    };
    let p = poker5::evaluate_unchecked(player);
    let d = poker5::evaluate_unchecked(dealer);
    let mut paid = 0;
    if raised {
        let raise = ante * u64::from(rules.raise_multiple);
        let odds = rules
            .raise_paytable
            .iter()
            .find(|r| r.hand == p.category())
            .map(|r| r.pay);
        paid += if !dealer_qualifies(d) {
            pays(rules.ante_win, ante) + raise
        } else if p > d {
            pays(rules.ante_win, ante) + odds.map_or(0, |pay| pays(pay, raise))
        } else if p < d {
            0
        } else {
            ante + raise
        };
        if bonus {
            let row = rules.bonus_paytable.iter().find(|r| r.hand == p.category());
            paid += row.map_or(0, |r| pays(r.pay, rules.bonus_stake.0));
        }
    }
    paid
}

#[test]
fn ten_thousand_players_play_one_shared_hand() {
    let game = GameId::CaribbeanStud;
    let players = 10_000u32;
    let seed = seed("studio", 9);
    let mut t = Table::open(game, seed, Shape::SharedHand, players);
    let ante = |k: u32| u64::from(1 + k % 100) * 100;
    for k in 0..players {
        let mut w = vec![wager(BetId::Ante, Money(ante(k)))];
        if k % 3 == 0 {
            w.push(wager(BetId::Bonus, units(1)));
        }
        t.bet(&format!("viewer-{k}"), None, w, 2_000);
    }
    // One more is refused: the round's bound.
    let full = t.refused(RoundCommand::Bet(PlaceBet {
        seed_digest: None,
        player: "late".into(),
        seat: None,
        wagers: vec![wager(BetId::Ante, units(1))],
        at: Timestamp(2_001),
    }));
    assert_eq!(full, RoundError::Full { max: players });
    let dealt = t.close(3_000, None);
    // The one hand, turned for everyone at once: the player's five and the dealer's up card.
    let RoundEvent::Revealed { positions, .. } = &dealt[1] else {
        panic!("{dealt:?}")
    };
    assert_eq!(positions, &vec![0, 1, 2, 3, 4, 9]);
    for k in 0..players {
        let action = if k % 4 == 0 {
            Action::Fold
        } else {
            Action::Raise
        };
        t.decide(&format!("viewer-{k}"), None, action, 4_000);
    }
    assert_eq!(t.round.phase(), Phase::Ended);
    let derived = deal::derive(game, &seed);
    let player: [Card; 5] = derived.seats[0].cards.clone().try_into().unwrap();
    let dealer: [Card; 5] = derived.seats[1].cards.clone().try_into().unwrap();
    let cfg = config(game);
    let rules: &CaribbeanRules = cfg.rules_of().unwrap();
    let mut settled = 0;
    for e in &t.events {
        if let RoundEvent::Settled { place, settlement } = e {
            let k = *place;
            let expected = caribbean_paid(rules, &player, &dealer, ante(k), k % 3 == 0, k % 4 != 0);
            assert_eq!(settlement.total_paid.0, expected, "viewer {k}");
            let staked =
                ante(k) * if k % 4 == 0 { 1 } else { 3 } + if k % 3 == 0 { 100 } else { 0 };
            assert_eq!(settlement.total_staked.0, staked, "viewer {k}");
            settled += 1;
        }
    }
    assert_eq!(settled, players);
    t.replayed();
}

#[test]
fn a_mississippi_table_turns_each_community_card_when_every_seat_in_play_has_decided() {
    let game = GameId::MississippiStud;
    let seed = seed("streets", 2);
    let mut t = Table::open(game, seed, Shape::Seats { seats: 3 }, 3);
    for seat in 1..=3u8 {
        t.bet(
            &format!("p{seat}"),
            Some(seat),
            vec![wager(BetId::Ante, units(2))],
            2_000,
        );
    }
    t.close(3_000, None);
    let community = round_deck(game, &seed, 3).seats[3].positions.clone();
    assert_eq!(
        community,
        vec![6usize, 7, 8],
        "after three seats' two cards"
    );
    assert_eq!(
        t.decide("p1", Some(1), Action::Bet { multiple: 1 }, 4_000)
            .len(),
        1
    );
    // Seat 1 has decided third street: it waits for the others.
    let waiting = t.refused(RoundCommand::Decide(Decide {
        player: "p1".into(),
        seat: Some(1),
        action: Action::Bet { multiple: 1 },
        at: Timestamp(4_001),
    }));
    assert_eq!(waiting, RoundError::Waiting { positions: vec![6] });
    // Another player may not decide for seat 2.
    let theirs = t.refused(RoundCommand::Decide(Decide {
        player: "p1".into(),
        seat: Some(2),
        action: Action::Fold,
        at: Timestamp(4_001),
    }));
    assert_eq!(theirs.field().unwrap().to_string(), "player");
    assert_eq!(
        t.decide("p2", Some(2), Action::Fold, 4_002).len(),
        1,
        "no card yet: seat 3 has not decided"
    );
    let turned = t.decide("p3", Some(3), Action::Bet { multiple: 3 }, 4_003);
    assert!(matches!(&turned[1], RoundEvent::Revealed { positions, .. } if positions == &vec![6]));
    assert!(t.round.table_card(6).is_some() && t.round.table_card(7).is_none());
    t.decide("p1", Some(1), Action::MaxBetAll, 4_004);
    let next = t.decide("p3", Some(3), Action::Bet { multiple: 1 }, 4_005);
    assert!(matches!(&next[1], RoundEvent::Revealed { positions, .. } if positions == &vec![7]));
    let last = t.decide("p3", Some(3), Action::Bet { multiple: 1 }, 4_006);
    // The showdown: the last community card and every seat's cards, then three settlements.
    assert!(
        matches!(&last[1], RoundEvent::Revealed { positions, .. } if positions == &vec![0, 1, 2, 3, 4, 5, 8])
    );
    assert_eq!(
        last.iter()
            .filter(|e| matches!(e, RoundEvent::Settled { .. }))
            .count(),
        3
    );
    t.replayed();
}

#[test]
fn the_decision_window_ends_each_undecided_place_by_its_games_incomplete_rule() {
    // Caribbean Stud: undecided seats fold and settle.
    let seed = seed("window", 4);
    let mut t = Table::open(GameId::CaribbeanStud, seed, Shape::Seats { seats: 3 }, 3);
    for seat in 1..=3u8 {
        t.bet(
            &format!("p{seat}"),
            Some(seat),
            vec![wager(BetId::Ante, units(3))],
            2_000,
        );
    }
    t.close(3_000, None);
    t.decide("p1", Some(1), Action::Raise, 4_000);
    let early = t.refused(RoundCommand::CloseWindow(order(
        VoidKind::Incomplete,
        3_000 + WINDOW - 1,
        None,
    )));
    assert_eq!(early.field().unwrap().to_string(), "order.at");
    let late = t.refused(RoundCommand::Decide(Decide {
        player: "p2".into(),
        seat: Some(2),
        action: Action::Raise,
        at: Timestamp(3_000 + WINDOW),
    }));
    assert_eq!(late.field().unwrap().to_string(), "at");
    let closed = t.ok(RoundCommand::CloseWindow(order(
        VoidKind::Incomplete,
        3_000 + WINDOW,
        None,
    )));
    let RoundEvent::WindowClosed(w) = &closed[0] else {
        panic!("{closed:?}")
    };
    assert_eq!(w.ended, 2, "seats 2 and 3 were undecided");
    for place in [1, 2] {
        let s = t.settlement(place);
        assert_eq!(s.total_paid, Money::ZERO);
        assert!(
            s.lines[0].judged_on.contains("incomplete-game rule"),
            "{:?}",
            s.lines[0]
        );
    }
    t.replayed();

    // Mississippi Stud: an undecided seat is refunded; a decided one settles.
    let mut t = Table::open(GameId::MississippiStud, seed, Shape::Seats { seats: 2 }, 2);
    t.bet("a", Some(1), vec![wager(BetId::Ante, units(3))], 2_000);
    t.bet("b", Some(2), vec![wager(BetId::Ante, units(3))], 2_000);
    t.close(3_000, None);
    t.decide("a", Some(1), Action::Fold, 3_500);
    let closed = t.ok(RoundCommand::CloseWindow(order(
        VoidKind::Incomplete,
        3_000 + WINDOW,
        None,
    )));
    assert!(closed.iter().any(
        |e| matches!(e, RoundEvent::PlaceVoided { place: 1, void } if void.paid_now == units(3))
    ));
    assert_eq!(
        closed
            .iter()
            .filter(|e| matches!(e, RoundEvent::Settled { .. }))
            .count(),
        1
    );
    t.replayed();

    // Nutz: the bettor offered the cup does not shake; the dealer shakes for every bettor.
    let mut t = Table::open(GameId::Nutz, seed, Shape::OneShake, 3);
    for k in 0..3 {
        t.bet(
            &format!("b{k}"),
            None,
            vec![wager(BetId::BoxOnePair, units(1))],
            2_000,
        );
    }
    t.close(3_000, Some("b0"));
    let closed = t.ok(RoundCommand::CloseWindow(order(
        VoidKind::Incomplete,
        3_000 + WINDOW,
        None,
    )));
    let dealer_shakes = closed
        .iter()
        .filter(
            |e| matches!(e, RoundEvent::Shaken(s) if s.by == Shaker::Dealer && s.who == "dealer-7"),
        )
        .count();
    assert!(dealer_shakes >= 1);
    assert_eq!(
        closed
            .iter()
            .filter(|e| matches!(e, RoundEvent::Settled { .. }))
            .count(),
        3
    );
    t.replayed();
}

#[test]
fn refusals_name_their_field_and_change_nothing() {
    let seed = seed("refusals", 5);
    let mut t = Table::open(GameId::CaribbeanStud, seed, Shape::Seats { seats: 4 }, 4);
    let bet = |player: &str, seat: Option<u8>, ante: u64| {
        RoundCommand::Bet(PlaceBet {
            seed_digest: None,
            player: player.into(),
            seat,
            wagers: vec![wager(BetId::Ante, units(ante))],
            at: Timestamp(3_000),
        })
    };
    t.ok(bet("a", Some(1), 5));
    let cases: Vec<(RoundCommand, &str)> = vec![
        (bet("a", Some(2), 5), "seat"), // a second seat: Caribbean Stud forbids it
        (bet("b", Some(1), 5), "seat"), // taken
        (bet("b", Some(5), 5), "seat"), // no such seat
        (bet("b", None, 5), "seat"),    // a round of seats needs one
        (bet("", Some(2), 5), "player"),
        (bet("b", Some(2), 5_000), "wagers.ante"), // outside the table limit
        (
            RoundCommand::CloseBetting {
                at: Timestamp(3_000),
                shaker: Some("a".into()),
            },
            "shaker",
        ),
    ];
    for (command, field) in cases {
        let error = t.refused(command);
        assert_eq!(
            error.field().map(|f| f.to_string()).as_deref(),
            Some(field),
            "{error}"
        );
    }
    let early = t.refused(RoundCommand::Decide(Decide {
        player: "a".into(),
        seat: Some(1),
        action: Action::Raise,
        at: Timestamp(3_000),
    }));
    assert_eq!(early, RoundError::BettingOpen);
    t.close(3_000, None);
    let after = t.refused(bet("b", Some(2), 5));
    assert_eq!(after, RoundError::BettingClosed);
    let before = t.refused(RoundCommand::Decide(Decide {
        player: "a".into(),
        seat: Some(1),
        action: Action::Raise,
        at: Timestamp(2_999),
    }));
    assert_eq!(before.field().unwrap().to_string(), "at");

    // Bounds at the opening.
    let open = |shape: Shape, max_players: u32, seats_per_player: u8, window: u64| {
        RoundCommand::Open(OpenRound {
            table: "T".into(),
            dealer: "d".into(),
            shoe: None,
            shape,
            max_players,
            seats_per_player,
            decision_window_ms: window,
            at: Timestamp(1),
        })
    };
    let cases: Vec<(GameId, RoundCommand, &str)> = vec![
        (
            GameId::CaribbeanStud,
            open(Shape::Seats { seats: 8 }, 8, 1, WINDOW),
            "shape.seats",
        ),
        (
            GameId::FortunePaiGow,
            open(Shape::Seats { seats: 7 }, 7, 1, WINDOW),
            "shape.seats",
        ),
        (
            GameId::Nutz,
            open(Shape::Seats { seats: 2 }, 2, 1, WINDOW),
            "shape",
        ),
        (
            GameId::CaribbeanStud,
            open(Shape::OneShake, 2, 1, WINDOW),
            "shape",
        ),
        (
            GameId::CaribbeanStud,
            open(Shape::SharedHand, 0, 1, WINDOW),
            "max_players",
        ),
        (
            GameId::CaribbeanStud,
            open(Shape::SharedHand, 25_001, 1, WINDOW),
            "max_players",
        ),
        (
            GameId::CaribbeanStud,
            open(Shape::Seats { seats: 7 }, 7, 2, WINDOW),
            "seats_per_player",
        ),
        (
            GameId::MississippiStud,
            open(Shape::Seats { seats: 7 }, 7, 3, WINDOW),
            "seats_per_player",
        ),
        (
            GameId::MississippiStud,
            open(Shape::SharedHand, 7, 2, WINDOW),
            "seats_per_player",
        ),
        (
            GameId::Nutz,
            open(Shape::OneShake, 7, 1, 999),
            "decision_window_ms",
        ),
        (
            GameId::Nutz,
            open(Shape::OneShake, 7, 1, 86_400_001),
            "decision_window_ms",
        ),
    ];
    for (game, command, field) in cases {
        let mut round = Round::new(seed, config(game));
        let error = round.step(&command).expect_err("refused");
        assert_eq!(
            error.field().map(|f| f.to_string()).as_deref(),
            Some(field),
            "{game}: {error}"
        );
        assert_eq!(round.phase(), Phase::Pending);
    }
    // No game seats one player twice while caps are per hand (`docs/rounds.md`).
    for game in [
        GameId::CaribbeanStud,
        GameId::FortunePaiGow,
        GameId::MississippiStud,
    ] {
        let mut round = Round::new(seed, config(game));
        let error = round
            .step(&open(Shape::Seats { seats: 3 }, 3, 2, WINDOW))
            .expect_err("two seats per player");
        assert_eq!(
            error.field().unwrap().to_string(),
            "seats_per_player",
            "{game}"
        );
    }
    // The dealer does not bet; a time past the year 9999 is refused, naming it.
    let mut t = Table::open(GameId::Nutz, seed, Shape::OneShake, 3);
    let dealer = t.refused(RoundCommand::Bet(PlaceBet {
        seed_digest: None,
        player: "dealer-7".into(),
        seat: None,
        wagers: vec![wager(BetId::BoxOnePair, units(1))],
        at: Timestamp(2_000),
    }));
    assert_eq!(dealer, RoundError::DealerBets);
    t.bet("b", None, vec![wager(BetId::BoxOnePair, units(1))], 2_000);
    let far = t.refused(RoundCommand::CloseBetting {
        at: Timestamp(u64::MAX - 10),
        shaker: None,
    });
    assert_eq!(far.field().unwrap().to_string(), "at");
    // Offered to nobody, the cup is the dealer's: a bettor may not shake it.
    t.close(3_000, None);
    let bettor = t.refused(RoundCommand::Decide(Decide {
        player: "b".into(),
        seat: None,
        action: Action::Shake { by: Shaker::Player },
        at: Timestamp(3_001),
    }));
    assert_eq!(bettor, RoundError::NotTheShaker);
    assert!(t.round.seat_cards(0).is_empty() && t.round.seat_cards(1).is_empty());
}

#[test]
fn a_tampered_round_is_refused_at_the_event_tampered() {
    let game = GameId::CaribbeanStud;
    let seed = seed("tamper", 6);
    let mut t = Table::open(game, seed, Shape::Seats { seats: 2 }, 2);
    t.bet("a", Some(1), vec![wager(BetId::Ante, units(5))], 2_000);
    t.bet("b", Some(2), vec![wager(BetId::Ante, units(5))], 2_000);
    t.close(3_000, None);
    t.decide("a", Some(1), Action::Raise, 4_000);
    t.decide("b", Some(2), Action::Raise, 4_001);
    t.replayed();
    for (index, event) in t.events.iter().enumerate() {
        let mut tampered = t.events.clone();
        match event {
            RoundEvent::Revealed { cards, .. } => {
                let mut cards = cards.clone();
                let last = cards.len() - 1;
                cards.swap(0, last);
                if cards.first() == cards.last() {
                    continue;
                }
                tampered[index] = RoundEvent::Revealed {
                    positions: match event {
                        RoundEvent::Revealed { positions, .. } => positions.clone(),
                        _ => unreachable!(),
                    },
                    cards,
                };
            }
            RoundEvent::Settled { place, settlement } => {
                let mut s = settlement.clone();
                s.total_paid = Money(s.total_paid.0 + 1);
                tampered[index] = RoundEvent::Settled {
                    place: *place,
                    settlement: s,
                };
            }
            RoundEvent::Decided {
                place, at, stakes, ..
            } => {
                tampered[index] = RoundEvent::Decided {
                    place: *place,
                    action: Action::Fold,
                    at: *at,
                    stakes: stakes.clone(),
                };
            }
            _ => continue,
        }
        let error = Round::replay(seed, config(game), &tampered).expect_err("tampered");
        let RoundError::Replay { index: at, .. } = error else {
            panic!("{error}")
        };
        assert_eq!(at, index, "refused where tampered: {error}");
    }
    // A log cut short is refused too: the showdown's events are owed.
    let short = &t.events[..t.events.len() - 1];
    assert!(matches!(
        Round::replay(seed, config(game), short),
        Err(RoundError::Replay { .. })
    ));
}

#[test]
fn another_dealer_takes_over_a_round_and_shakes_for_it_from_then_on() {
    use pitboss_engine::round::ChangeDealer;
    let game = GameId::Nutz;
    let mut t = Table::open(game, seed("dealer change", 0), Shape::OneShake, 5);
    let change = |dealer: &str, at: u64| {
        RoundCommand::ChangeDealer(ChangeDealer {
            dealer: dealer.into(),
            reason: "shift change".into(),
            at: Timestamp(at),
        })
    };
    for k in 0..3 {
        t.bet(
            &format!("bettor-{k}"),
            None,
            vec![wager(BetId::NUTZ_BOXES[k], units(2))],
            2_000 + k as u64,
        );
    }
    // Refused, naming `dealer`: the dealer already dealing, a player of the round, nobody.
    let same = t.refused(change("dealer-7", 2_100));
    assert_eq!(
        same,
        RoundError::DealtBefore {
            dealer: "dealer-7".into()
        }
    );
    assert_eq!(same.field().map(|f| f.to_string()), Some("dealer".into()));
    let player = t.refused(change("bettor-1", 2_100));
    assert!(matches!(player, RoundError::DealerPlays { .. }), "{player}");
    assert_eq!(player.field().map(|f| f.to_string()), Some("dealer".into()));
    assert!(matches!(
        t.refused(change(" ", 2_100)),
        RoundError::Missing(_)
    ));
    let changed = t.ok(change("dealer-9", 2_200));
    let [RoundEvent::DealerChanged(d)] = changed.as_slice() else {
        panic!("{changed:?}");
    };
    assert_eq!((d.from.as_str(), d.to.as_str()), ("dealer-7", "dealer-9"));
    assert_eq!(t.round.dealer(), "dealer-9");
    // The opening record keeps who opened it.
    assert_eq!(
        t.round.opened().map(|o| o.dealer.as_str()),
        Some("dealer-7")
    );
    // Neither the new dealer nor the one relieved bets on the round; nor does the relieved one
    // deal it again (each dealer deals a round once, and is listed under it once).
    for dealer in ["dealer-9", "dealer-7"] {
        assert_eq!(
            t.refused(RoundCommand::Bet(PlaceBet {
                seed_digest: None,
                player: dealer.into(),
                seat: None,
                wagers: vec![wager(BetId::NUTZ_BOXES[0], units(1))],
                at: Timestamp(2_300),
            })),
            RoundError::DealerBets
        );
    }
    assert!(matches!(
        t.refused(change("dealer-7", 2_300)),
        RoundError::DealtBefore { .. }
    ));
    assert_eq!(t.round.dealers(), ["dealer-7", "dealer-9"]);
    // The cup offered to nobody: only the dealer dealing now shakes.
    t.close(3_000, None);
    let old = t.refused(RoundCommand::Decide(Decide {
        player: "dealer-7".into(),
        seat: None,
        action: Action::Shake { by: Shaker::Dealer },
        at: Timestamp(3_100),
    }));
    assert_eq!(old, RoundError::NotTheShaker);
    let mut at = 3_200;
    while t.round.phase() == Phase::Playing {
        for e in t.decide("dealer-9", None, Action::Shake { by: Shaker::Dealer }, at) {
            if let RoundEvent::Shaken(shake) = e {
                assert_eq!(shake.who, "dealer-9");
            }
        }
        at += 1;
    }
    assert_eq!(t.round.phase(), Phase::Ended);
    // After the end no dealer takes over.
    assert!(matches!(
        t.refused(change("dealer-11", at)),
        RoundError::Ended(Phase::Ended)
    ));
    let again = t.replayed();
    assert_eq!(again.dealer(), "dealer-9");
    // At most DEALERS_MAX dealers in a round.
    let mut busy = Table::open(game, seed("dealer change", 1), Shape::OneShake, 5);
    for k in 1..pitboss_engine::round::DEALERS_MAX {
        busy.ok(change(&format!("relief-{k}"), 1_000 + k as u64));
    }
    let full = busy.refused(change("one-more", 2_000));
    assert_eq!(
        full,
        RoundError::TooManyDealers {
            max: pitboss_engine::round::DEALERS_MAX
        }
    );
    assert_eq!(full.precondition(), Some("TOO_MANY_DEALERS"));
    // A change recorded with another dealer than the round's command gives is refused by replay.
    let mut tampered = t.events.clone();
    for e in &mut tampered {
        if let RoundEvent::DealerChanged(d) = e {
            d.from = "dealer-8".into();
        }
    }
    assert!(Round::replay(t.seed, t.config.clone(), &tampered).is_err());
}
