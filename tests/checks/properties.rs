//! Properties of the game engines over many random seeds and legal decision sequences:
//! determinism, caps never exceeded, every command outside the legal ones refused with the hand
//! unchanged, voids netting the player to zero, replay reproducing the hand, the same money paid
//! in any currency, and the incomplete-game rule of each game.

use std::sync::Arc;

use pitboss_engine::card::Card;
use pitboss_engine::config::{Currency, GameConfig, Limit, Rules};
use pitboss_engine::game::GameId;
use pitboss_engine::games::view::player_view;
use pitboss_engine::games::{
    Action, Command, Event, Hand, OpenHand, Shaker, Status, Timestamp, VoidKind, VoidOrder, DAY_MS,
};
use pitboss_engine::money::Money;
use pitboss_engine::rng::Seed;
use pitboss_engine::settlement::{BetId, Wager};
use pitboss_testkit::currency::{in_currency, Scale};
use proptest::prelude::*;

const T0: u64 = 1_700_000_000_000;

/// A stake inside `limit`, chosen by `pick`.
fn stake(limit: Limit, pick: u64) -> Money {
    Money(limit.min.0 + pick % (limit.max.0 - limit.min.0 + 1))
}

/// Valid opening wagers for `game`, varied by `picks`.
fn wagers(config: &GameConfig, picks: &[u64; 8]) -> Vec<Wager> {
    let w = |bet, amount| Wager { bet, amount };
    match &config.rules {
        Rules::MississippiStud(r) => {
            let mut v = vec![w(BetId::Ante, stake(r.ante, picks[0]))];
            if picks[1].is_multiple_of(2) {
                v.push(w(BetId::Bonus, stake(r.bonus, picks[2])));
            }
            v
        }
        Rules::FortunePaiGow(r) => {
            let mut v = vec![w(BetId::Main, stake(r.main, picks[0]))];
            if picks[1].is_multiple_of(2) {
                v.push(w(BetId::FortuneBonus, stake(r.bonus, picks[2])));
            }
            v
        }
        Rules::Nutz(r) => {
            let chosen: Vec<Wager> = BetId::NUTZ_BOXES
                .iter()
                .enumerate()
                .filter(|(i, _)| picks[0] >> i & 1 == 1)
                .map(|(i, &b)| w(b, stake(r.box_limit, picks[1 + i % 7])))
                .collect();
            if chosen.is_empty() {
                vec![w(BetId::BoxOnePair, r.box_limit.min)]
            } else {
                chosen
            }
        }
        Rules::CaribbeanStud(r) => {
            let mut v = vec![w(BetId::Ante, stake(r.ante, picks[0]))];
            if picks[1].is_multiple_of(2) {
                v.push(w(BetId::Bonus, r.bonus_stake));
            }
            v
        }
    }
}

/// Opens and plays a hand to its end, choosing each decision from the legal ones by `choices`.
fn play(game: GameId, seed: [u8; 32], picks: &[u64; 8], choices: &[usize]) -> (Hand, Vec<Event>) {
    let config = GameConfig::default_for(game);
    let wagers = wagers(&config, picks);
    play_under(config, wagers, seed, choices)
}

/// [`play`] under a given configuration, with given opening wagers.
fn play_under(
    config: GameConfig,
    wagers: Vec<Wager>,
    seed: [u8; 32],
    choices: &[usize],
) -> (Hand, Vec<Event>) {
    let mut hand = Hand::new(Seed::from_bytes(seed), Arc::new(config));
    let open = Command::Open(OpenHand {
        table: "T".into(),
        player: "P".into(),
        wagers,
        at: Timestamp(T0),
        rebet_of: None,
    });
    let mut events = apply(&mut hand, &open);
    let mut k = 0;
    while hand.status() == Status::InProgress {
        let legal = hand.legal_actions();
        let action = legal[choices[k % choices.len()] % legal.len()];
        k += 1;
        events.extend(apply(
            &mut hand,
            &Command::Act {
                action,
                at: Timestamp(T0 + 1000 * k as u64),
            },
        ));
    }
    (hand, events)
}

fn apply(hand: &mut Hand, command: &Command) -> Vec<Event> {
    let events = hand.decide(command).expect("a legal command");
    for e in &events {
        *hand = hand.clone().evolve(e).expect("decided events fold in");
    }
    events
}

fn game_of(i: u8) -> GameId {
    GameId::ALL[usize::from(i) % 4]
}

/// Every action a client could send, legal or not, for one hand.
fn action_pool(hand: &Hand) -> Vec<Action> {
    let mut pool = vec![
        Action::Bet { multiple: 0 },
        Action::Bet { multiple: 1 },
        Action::Bet { multiple: 2 },
        Action::Bet { multiple: 3 },
        Action::Bet { multiple: 4 },
        Action::MaxBetAll,
        Action::Fold,
        Action::Raise,
        Action::AutoSet,
        Action::Shake { by: Shaker::Player },
        Action::Shake { by: Shaker::Dealer },
    ];
    // Low hands: some of the player's cards, some not, one repeated.
    if let Some(cards) = player_view(hand).seats.first().map(|s| s.cards.clone()) {
        let known: Vec<Card> = cards.into_iter().flatten().collect();
        for (i, &a) in known.iter().enumerate() {
            for &b in &known[i..] {
                pool.push(Action::SetHand { low: [a, b] });
            }
        }
        let stranger = (0..53)
            .filter_map(Card::from_index)
            .find(|c| !known.contains(c));
        if let (Some(&a), Some(b)) = (known.first(), stranger) {
            pool.push(Action::SetHand { low: [a, b] });
        }
    }
    pool
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn same_seed_and_decisions_give_the_same_events(
        game in 0u8..4, seed in any::<[u8; 32]>(), picks in any::<[u64; 8]>(),
        choices in prop::collection::vec(any::<usize>(), 1..8),
    ) {
        let (a, events_a) = play(game_of(game), seed, &picks, &choices);
        let (b, events_b) = play(game_of(game), seed, &picks, &choices);
        prop_assert_eq!(&events_a, &events_b);
        prop_assert_eq!(a.settlement(), b.settlement());
        prop_assert_eq!(a.status(), Status::Settled);
        // The seed is revealed once the hand ends, and it opens the commitment.
        let opened = a.opened().expect("opened");
        prop_assert!(opened.commitment.opens_to(&a.revealed_seed().expect("revealed")));
    }

    #[test]
    fn payouts_never_exceed_a_cap_and_totals_add_up(
        game in 0u8..4, seed in any::<[u8; 32]>(), picks in any::<[u64; 8]>(),
        choices in prop::collection::vec(any::<usize>(), 1..8),
    ) {
        let (hand, _) = play(game_of(game), seed, &picks, &choices);
        let s = hand.settlement().expect("settled");
        let mut sum = 0u64;
        for line in &s.lines {
            if let Some(cap) = line.cap {
                prop_assert!(line.payout <= cap);
            }
            prop_assert_eq!(line.payout.0 + line.cut.0, line.uncapped.0);
            sum += line.payout.0;
        }
        match s.game_cap {
            Some(cap) => {
                prop_assert_eq!(cap.total_before.0, sum);
                prop_assert!(s.total_paid <= cap.cap);
                prop_assert_eq!(s.total_paid.0 + cap.cut.0, sum);
            }
            None => prop_assert_eq!(s.total_paid.0, sum),
        }
        let staked: u64 = hand.stakes().iter().map(|w| w.amount.0).sum();
        prop_assert_eq!(s.total_staked.0, staked);
    }

    #[test]
    fn only_legal_commands_are_accepted_and_refusals_change_nothing(
        game in 0u8..4, seed in any::<[u8; 32]>(), picks in any::<[u64; 8]>(),
        choices in prop::collection::vec(any::<usize>(), 1..8), stop in 0usize..4,
    ) {
        let game = game_of(game);
        let config = Arc::new(GameConfig::default_for(game));
        let mut hand = Hand::new(Seed::from_bytes(seed), config.clone());
        // Before opening, no decision is taken.
        let early_fold = Command::Act { action: Action::Fold, at: Timestamp(T0) };
        prop_assert!(hand.decide(&early_fold).is_err());
        // Wagers off limits are refused.
        let mut bad = wagers(&config, &picks);
        bad[0].amount = Money(bad[0].amount.0 + 1_000_000);
        let refused = hand.decide(&Command::Open(OpenHand {
            table: "T".into(), player: "P".into(), wagers: bad, at: Timestamp(T0), rebet_of: None,
        }));
        prop_assert!(refused.is_err());
        apply(&mut hand, &Command::Open(OpenHand {
            table: "T".into(), player: "P".into(), wagers: wagers(&config, &picks), at: Timestamp(T0), rebet_of: None,
        }));
        let mut k = 0;
        loop {
            let legal = hand.legal_actions();
            let before = (player_view(&hand), hand.version());
            for action in action_pool(&hand) {
                let result = hand.decide(&Command::Act { action, at: hand.last_at() });
                // A low hand is the same whichever order its two cards are named in.
                let canonical = match action {
                    Action::SetHand { mut low } => {
                        low.sort();
                        Action::SetHand { low }
                    }
                    other => other,
                };
                prop_assert_eq!(result.is_ok(), legal.contains(&canonical), "{:?} at status {:?}", action, hand.status());
                prop_assert_eq!(&(player_view(&hand), hand.version()), &before);
            }
            // An incomplete-game void before 30 days is refused.
            let early = Command::Void(VoidOrder {
                kind: VoidKind::Incomplete, reason: "r".into(), recorded_by: "o".into(), approved_by: None, at: Timestamp(T0 + 30 * DAY_MS - 1),
            });
            prop_assert!(hand.decide(&early).is_err());
            if hand.status() != Status::InProgress || k == stop {
                break;
            }
            let action = legal[choices[k % choices.len()] % legal.len()];
            apply(&mut hand, &Command::Act { action, at: Timestamp(T0 + 1000 * (k as u64 + 1)) });
            k += 1;
        }
    }

    #[test]
    fn a_malfunction_void_nets_the_player_to_zero(
        game in 0u8..4, seed in any::<[u8; 32]>(), picks in any::<[u64; 8]>(),
        choices in prop::collection::vec(any::<usize>(), 1..8), settle_first in any::<bool>(),
    ) {
        let game = game_of(game);
        let (mut hand, mut events) = if settle_first {
            play(game, seed, &picks, &choices)
        } else {
            let config = Arc::new(GameConfig::default_for(game));
            let mut hand = Hand::new(Seed::from_bytes(seed), config.clone());
            let events = apply(&mut hand, &Command::Open(OpenHand {
                table: "T".into(), player: "P".into(), wagers: wagers(&config, &picks), at: Timestamp(T0), rebet_of: None,
            }));
            (hand, events)
        };
        let order = VoidOrder { kind: VoidKind::Malfunction, reason: "reader fault".into(), recorded_by: "op".into(), approved_by: None, at: hand.last_at() };
        events.extend(apply(&mut hand, &Command::Void(order)));
        prop_assert_eq!(hand.status(), Status::Voided);
        prop_assert_eq!(hand.net(), 0);
        let void = hand.void().expect("void");
        prop_assert_eq!(void.net(), 0);
        prop_assert_eq!(void.paid_now, void.total_staked);
        prop_assert!(hand.revealed_seed().is_some());
        // A second void is refused.
        let again = VoidOrder { kind: VoidKind::Malfunction, reason: "again".into(), recorded_by: "op".into(), approved_by: None, at: hand.last_at() };
        prop_assert!(hand.decide(&Command::Void(again)).is_err());
        // Replay of the recorded events reproduces the void.
        let mut replayed = Hand::new(hand.revealed_seed().expect("seed"), Arc::new(hand.config().clone()));
        for e in &events {
            replayed = replayed.evolve(e).expect("replay");
        }
        prop_assert_eq!(replayed.void(), hand.void());
        prop_assert_eq!(replayed.net(), 0);
    }
}

/// Every amount of a settlement, in order.
fn amounts(hand: &Hand) -> Vec<u64> {
    let mut out = Vec::new();
    if let Some(s) = hand.settlement() {
        for l in &s.lines {
            out.extend([l.stake.0, l.uncapped.0, l.cut.0, l.payout.0]);
            out.extend(l.cap.map(|c| c.0));
        }
        if let Some(g) = s.game_cap {
            out.extend([g.total_before.0, g.cap.0, g.cut.0, g.total_after.0]);
        }
        out.extend([s.total_staked.0, s.total_paid.0]);
    }
    if let Some(v) = hand.void() {
        for l in &v.lines {
            out.extend([l.stake.0, l.paid_before.0, l.paid_now.0]);
        }
        out.extend([v.total_staked.0, v.paid_before.0, v.paid_now.0]);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// A configuration moved to a currency with 0 or 3 minor digits (every amount scaled) settles
    /// and voids the same money as the default: every amount of every line, scaled the same way.
    #[test]
    fn the_same_money_in_any_currency(
        game in 0u8..4, seed in any::<[u8; 32]>(), picks in any::<[u64; 8]>(),
        choices in prop::collection::vec(any::<usize>(), 1..8), void in any::<bool>(),
    ) {
        let game = game_of(game);
        let default = GameConfig::default_for(game);
        // Whole euros, so that the stakes exist in a currency without minor units.
        let mut euros = wagers(&default, &picks);
        for w in &mut euros {
            w.amount = Money(w.amount.0 / 100 * 100);
        }
        let currencies = [
            (Currency { code: "JPY".into(), minor_digits: 0 }, Scale::Divide(100)),
            (Currency { code: "BHD".into(), minor_digits: 3 }, Scale::Multiply(10)),
        ];
        let void_order = VoidOrder { kind: VoidKind::Malfunction, reason: "r".into(), recorded_by: "o".into(), approved_by: None, at: Timestamp(T0 + 99_000) };
        let (mut base, _) = play_under(default.clone(), euros.clone(), seed, &choices);
        if void {
            apply(&mut base, &Command::Void(void_order.clone()));
        }
        for (currency, scale) in currencies {
            let config = in_currency(&default, currency, scale);
            let scaled_wagers = euros.iter().map(|w| Wager { bet: w.bet, amount: Money(scale.amount(w.amount.0)) }).collect();
            let (mut other, _) = play_under(config, scaled_wagers, seed, &choices);
            if void {
                apply(&mut other, &Command::Void(void_order.clone()));
            }
            let want: Vec<u64> = amounts(&base).into_iter().map(|a| scale.amount(a)).collect();
            prop_assert_eq!(amounts(&other), want);
            prop_assert_eq!(other.status(), base.status());
        }
    }

    /// Left in progress at any point, a hand takes decisions up to exactly 30 days after it
    /// opened and none after; the incomplete-game rule ends it only after that instant:
    /// Mississippi Stud and Fortune Pai Gow refunded, Nutz completed by dealer shakes and
    /// Caribbean Stud by a fold, each settled; a conduct forfeit loses everything staked.
    #[test]
    fn the_incomplete_game_rule_of_each_game(
        game in 0u8..4, seed in any::<[u8; 32]>(), picks in any::<[u64; 8]>(),
        choices in prop::collection::vec(any::<usize>(), 1..8), stop in 0usize..3,
        forfeit in any::<bool>(),
    ) {
        let game = game_of(game);
        let config = Arc::new(GameConfig::default_for(game));
        let mut hand = Hand::new(Seed::from_bytes(seed), config.clone());
        let mut events = apply(&mut hand, &Command::Open(OpenHand {
            table: "T".into(), player: "P".into(), wagers: wagers(&config, &picks), at: Timestamp(T0), rebet_of: None,
        }));
        for k in 0..stop {
            if hand.status() != Status::InProgress {
                break;
            }
            let legal = hand.legal_actions();
            let action = legal[choices[k % choices.len()] % legal.len()];
            events.extend(apply(&mut hand, &Command::Act { action, at: Timestamp(T0 + 1000 * (k as u64 + 1)) }));
        }
        prop_assume!(hand.status() == Status::InProgress);
        let deadline = T0 + 30 * DAY_MS;
        let legal = hand.legal_actions();
        let late = Command::Act { action: legal[0], at: Timestamp(deadline + 1) };
        prop_assert!(hand.decide(&late).is_err(), "no decision after the deadline");
        let in_time = Command::Act { action: legal[0], at: Timestamp(deadline) };
        prop_assert!(hand.decide(&in_time).is_ok(), "a decision at the deadline itself");
        let order = |kind, at| Command::Void(VoidOrder { kind, reason: "r".into(), recorded_by: "o".into(), approved_by: None, at: Timestamp(at) });
        prop_assert!(hand.decide(&order(VoidKind::Incomplete, deadline)).is_err());
        let staked = i128::from(hand.total_staked().unwrap().0);
        if forfeit && game == GameId::CaribbeanStud {
            events.extend(apply(&mut hand, &order(VoidKind::ConductForfeit, deadline)));
            prop_assert_eq!(hand.net(), -staked, "a forfeit loses everything staked");
        } else {
            events.extend(apply(&mut hand, &order(VoidKind::Incomplete, deadline + 1)));
            match game {
                GameId::MississippiStud | GameId::FortunePaiGow => {
                    prop_assert_eq!(hand.status(), Status::Voided);
                    prop_assert_eq!(hand.net(), 0);
                }
                GameId::Nutz => {
                    prop_assert_eq!(hand.status(), Status::Settled);
                    prop_assert!(hand.completion().is_some());
                }
                GameId::CaribbeanStud => {
                    prop_assert_eq!(hand.status(), Status::Settled);
                    prop_assert_eq!(hand.net(), -staked, "folded: ante and bonus lost");
                }
            }
        }
        // Replay of the recorded events reproduces the end.
        let mut replayed = Hand::new(hand.revealed_seed().expect("revealed"), config);
        for e in &events {
            replayed = replayed.evolve(e).expect("replay");
        }
        prop_assert_eq!(replayed.net(), hand.net());
        prop_assert_eq!(replayed.settlement(), hand.settlement());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Every engine event maps to a protobuf payload and back to the same event, through its
    /// encoded bytes (the form the ledger stores).
    #[test]
    fn every_event_round_trips_through_protobuf(
        game in 0u8..4, seed in any::<[u8; 32]>(), picks in any::<[u64; 8]>(),
        choices in prop::collection::vec(any::<usize>(), 1..8), void in any::<bool>(),
    ) {
        use prost::Message;
        let (mut hand, mut events) = play(game_of(game), seed, &picks, &choices);
        if void {
            let order = VoidOrder { kind: VoidKind::Malfunction, reason: "r".into(), recorded_by: "o".into(), approved_by: None, at: hand.last_at() };
            events.extend(apply(&mut hand, &Command::Void(order)));
        }
        for event in &events {
            let bytes = pitboss::codec::event_to_payload(event).encode_to_vec();
            let decoded = pitboss::proto::Payload::decode(bytes.as_slice()).expect("decodes");
            let back = pitboss::codec::payload_to_event(&decoded).expect("maps back");
            prop_assert_eq!(back.as_ref(), Some(event));
        }
    }
}

#[test]
fn a_tampered_event_does_not_fold_in() {
    let (hand, events) = play(GameId::MississippiStud, [9; 32], &[5; 8], &[1, 2, 3]);
    let seed = hand.revealed_seed().unwrap();
    let config = Arc::new(hand.config().clone());
    for (i, event) in events.iter().enumerate() {
        let tampered = match event {
            Event::CardsShown {
                seat,
                positions,
                cards,
            } => {
                let other = (0..52)
                    .filter_map(Card::from_index)
                    .find(|c| !cards.contains(c))
                    .unwrap();
                Event::CardsShown {
                    seat: *seat,
                    positions: positions.clone(),
                    cards: vec![other; cards.len()],
                }
            }
            Event::SeedRevealed { .. } => Event::SeedRevealed {
                seed: Seed::from_bytes([1; 32]),
            },
            _ => continue,
        };
        let mut replay = Hand::new(seed, config.clone());
        for e in &events[..i] {
            replay = replay.evolve(e).unwrap();
        }
        assert!(
            replay.evolve(&tampered).is_err(),
            "tampered {} at {i} folded in",
            event.kind()
        );
    }
}
