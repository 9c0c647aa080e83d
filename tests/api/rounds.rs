//! A table's rounds over gRPC (`docs/rounds.md`): a 7-seat Caribbean Stud table opened, bet,
//! dealt, decided and settled, each seat's settlement held to an independent one-player hand of its
//! cards; what a player sees of the table before and after the showdown; fifty bettors on one Nutz
//! shake; a live studio's shared hand paged; a round voided, a place forfeited; refusals that write
//! nothing.

use std::sync::Arc;

use crate::support::{clients, head, round_command as command, round_decision as decide, wager};
use pitboss::proto;
use pitboss::proto::round_command_request::Command;
use pitboss_engine::card::Card;
use pitboss_engine::config::GameConfig;
use pitboss_engine::game::GameId;
use pitboss_engine::games::{Command as HandCommand, Hand, OpenHand, Timestamp};
use pitboss_engine::rng::Seed;
use pitboss_testkit::clients::Clients;
use pitboss_testkit::server::Server;
use tonic::Code;

fn opening(
    game: proto::Game,
    shape: &str,
    seats: u32,
    max_players: u32,
) -> proto::OpenRoundRequest {
    proto::OpenRoundRequest {
        game: game as i32,
        table: "T-round".into(),
        dealer: "dealer-4".into(),
        shoe: "shuffler-9".into(),
        shape: shape.into(),
        seats,
        max_players,
        decision_window_ms: 600_000,
        ..Default::default()
    }
}

fn bet(player: &str, seat: u32, wagers: Vec<proto::Wager>) -> Command {
    Command::Bet(proto::RoundBetCommand {
        player_seed: Vec::new(),
        player: player.into(),
        seat,
        wagers,
    })
}

fn close() -> Command {
    Command::CloseBetting(proto::RoundCloseBettingCommand::default())
}

async fn view(
    c: &mut Clients,
    round: &str,
    player: &str,
    from: u32,
    size: u32,
) -> proto::RoundView {
    c.play
        .get_round(proto::GetRoundRequest {
            round_id: round.into(),
            player: player.into(),
            from_place: from,
            page_size: size,
        })
        .await
        .expect("the round")
        .into_inner()
        .round
        .expect("a view")
}

/// Seat `seat`'s opening wagers: its ante, and the bonus at the even seats.
fn opening_wagers(seat: u32) -> Vec<proto::Wager> {
    let mut wagers = vec![wager("ante", 100 * u64::from(seat))];
    if seat.is_multiple_of(2) {
        wagers.push(wager("bonus", 100));
    }
    wagers
}

fn cards(texts: &[String]) -> Vec<Card> {
    texts.iter().map(|t| t.parse().expect("a card")).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_seven_seat_caribbean_round_is_dealt_from_one_shuffle_and_every_seat_settles_as_its_own_hand(
) {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
    let opened = c
        .play
        .open_round(opening(proto::Game::CaribbeanStud, "seats", 7, 7))
        .await
        .unwrap()
        .into_inner()
        .round
        .unwrap();
    let id = opened.round_id.clone();
    assert_eq!(
        (opened.phase.as_str(), opened.seats, opened.commitment.len()),
        ("betting", 7, 64)
    );
    for seat in 1..=7u32 {
        let mut wagers = vec![wager("ante", 100 * u64::from(seat))];
        if seat.is_multiple_of(2) {
            wagers.push(wager("bonus", 100));
        }
        command(&mut c, &id, bet(&format!("player-{seat}"), seat, wagers))
            .await
            .unwrap();
    }
    // A taken seat, another player's seat, an eighth player: refused, nothing written.
    let before = head(&mut c).await;
    let taken = command(&mut c, &id, bet("late", 3, vec![wager("ante", 100)]))
        .await
        .unwrap_err();
    assert_eq!(taken.code(), Code::FailedPrecondition, "{taken:?}");
    assert!(
        taken.message().contains("seat 3 is taken"),
        "{}",
        taken.message()
    );
    let early = command(&mut c, &id, decide("player-1", 1, "raise"))
        .await
        .unwrap_err();
    assert_eq!(early.code(), Code::FailedPrecondition, "{early:?}");
    assert_eq!(head(&mut c).await, before, "refusals write nothing");

    let dealt = command(&mut c, &id, close()).await.unwrap();
    assert_eq!(dealt.phase, "playing");
    assert_eq!(
        dealt.table_cards.len(),
        1,
        "the dealer's up card, for the table"
    );
    // A player sees their own five cards, not the others', nor the others' names.
    let mine = view(&mut c, &id, "player-3", 0, 0).await;
    assert_eq!(mine.places.len(), 7);
    for place in &mine.places {
        if place.seat == 3 {
            assert!(place.yours && place.player == "player-3");
            assert!(
                place.cards.iter().all(|c| !c.is_empty()),
                "own cards face up"
            );
            assert_eq!(place.legal_actions.len(), 2, "raise or fold");
        } else {
            assert!(!place.yours && place.player.is_empty(), "masked");
            assert!(place.cards.iter().all(String::is_empty), "others face down");
            assert!(place.legal_actions.is_empty());
        }
        assert!(place.settlement.is_none());
    }
    let mut actions = Vec::new();
    for seat in 1..=7u32 {
        let player = format!("player-{seat}");
        let own = view(&mut c, &id, &player, 0, 0).await;
        let cards5 = cards(&own.places[seat as usize - 1].cards);
        let pair_or_better = {
            let five: [Card; 5] = cards5.clone().try_into().unwrap();
            pitboss_engine::hand::poker5::evaluate_unchecked(&five).category()
                >= pitboss_engine::hand::poker5::Category::Pair
        };
        let action = if pair_or_better || seat == 1 {
            "raise"
        } else {
            "fold"
        };
        let after = command(&mut c, &id, decide(&player, seat, action))
            .await
            .unwrap();
        if seat < 7 {
            assert_eq!(
                after.table_cards.len(),
                1,
                "the dealer's hand stays down until every seat has decided"
            );
        }
        actions.push((action, cards5));
    }
    let table = view(&mut c, &id, "", 0, 0).await;
    assert_eq!(table.phase, "ended");
    assert_eq!(table.table_cards.len(), 5, "the dealer's five, turned");
    let seed = Seed::from_hex(&table.seed).expect("the seed, revealed");
    // One shuffle: the seats' and the dealer's cards are the round's deal of the seed, no card twice.
    let deal = pitboss_engine::deal::derive_round(GameId::CaribbeanStud, &seed, 7).unwrap();
    let dealer: Vec<Card> = deal.seats[7].cards.clone();
    let mut seen = std::collections::BTreeSet::new();
    for place in &table.places {
        let got = cards(&place.cards);
        assert_eq!(
            got,
            deal.seats[place.seat as usize - 1].cards,
            "seat {}",
            place.seat
        );
        assert!(got.iter().all(|c| seen.insert(*c)));
        assert_eq!(
            place.player,
            format!("player-{}", place.seat),
            "the table's view names its players"
        );
    }
    assert!(dealer.iter().all(|c| seen.insert(*c)));
    // Each seat against an independent one-player hand of its cards and the dealer's.
    let config = Arc::new(GameConfig::default_for(GameId::CaribbeanStud));
    for place in &table.places {
        let seat = place.seat as usize;
        let (action, own) = &actions[seat - 1];
        let mut deck = own.clone();
        deck.extend(dealer.iter().copied());
        let mut hand = Hand::with_material(config.clone(), deck, Vec::new());
        let wagers = pitboss::codec::wagers_from("wagers", &opening_wagers(place.seat)).unwrap();
        for command in [
            HandCommand::Open(OpenHand {
                table: "t".into(),
                player: "p".into(),
                wagers,
                at: Timestamp(1),
                rebet_of: None,
            }),
            HandCommand::Act {
                action: if *action == "raise" {
                    pitboss_engine::games::Action::Raise
                } else {
                    pitboss_engine::games::Action::Fold
                },
                at: Timestamp(2),
            },
        ] {
            for event in hand.decide(&command).unwrap() {
                hand = hand.evolve(&event).unwrap();
            }
        }
        let expected = pitboss::codec::settlement_to(hand.settlement().unwrap());
        assert_eq!(place.settlement.as_ref(), Some(&expected), "seat {seat}");
    }
    // The log verifies, with the round's entries in it.
    head(&mut c).await;
    // The round's proof: one shuffle, every event re-derived, every place's settlement the view's.
    let proof = c
        .audit
        .replay_round(proto::ReplayRoundRequest {
            round_id: id.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        proof.consistent && proof.one_shuffle && proof.commitment_ok,
        "{:#?}",
        proof.report
    );
    assert_eq!((proof.phase.as_str(), proof.place_count), ("ended", 7));
    assert!(proof
        .events
        .iter()
        .all(|e| e.rederived && e.chain_ok && e.signature_ok));
    assert_eq!(proof.event_count, proof.events.len() as u64);
    for (place, proved) in table.places.iter().zip(&proof.places) {
        assert_eq!((proved.seat, &proved.player), (place.seat, &place.player));
        assert_eq!(proved.settlement, place.settlement, "seat {}", place.seat);
        assert!(
            proved.report.iter().any(|line| line.contains("staked")),
            "{:?}",
            proved.report
        );
    }
    // One player's report: their place named, every other masked; paged.
    let mine = c
        .audit
        .replay_round(proto::ReplayRoundRequest {
            round_id: id.clone(),
            player: "player-3".into(),
            from_place: 2,
            page_size: 3,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let named: Vec<(u32, &str, bool)> = mine
        .places
        .iter()
        .map(|p| (p.seat, p.player.as_str(), p.yours))
        .collect();
    assert_eq!(
        named,
        [
            (3, "player-3", true),
            (4, "(another player)", false),
            (5, "(another player)", false)
        ]
    );
    assert_eq!(mine.next_place, 5);
    // An ended round takes no more commands, and its void is a proposal for a second person.
    let more = command(&mut c, &id, close()).await.unwrap_err();
    assert_eq!(more.code(), Code::FailedPrecondition);
    settled_round_void_by_two(&mut c, &id, &table).await;
}

/// A settled round's void: proposed by one supervisor (the round untouched, a retry the same
/// proposal), refused to its proposer, done by the second — every settled place's settlement
/// reversed and every stake refunded, attributed to both — once, and proved by the replay.
async fn settled_round_void_by_two(c: &mut Clients, id: &str, settled: &proto::RoundView) {
    let void = proto::VoidRoundRequest {
        round_id: id.into(),
        kind: "malfunction".into(),
        reason: "the shuffler jammed".into(),
        request_id: "void-settled-round".into(),
        ..Default::default()
    };
    let proposed = c.ops.void_round(void.clone()).await.unwrap().into_inner();
    let proposal = proposed.proposal.clone().expect("a proposal");
    assert_eq!(proposal.state, "pending");
    assert_eq!(proposal.proposed_by, "admin");
    assert!(
        matches!(
            proposal.action.as_ref().and_then(|a| a.kind.as_ref()),
            Some(proto::proposed_action::Kind::VoidRound(v)) if v.round_id == id
        ),
        "{proposal:?}"
    );
    let untouched = proposed.round.expect("the round");
    assert_eq!(
        (untouched.phase.as_str(), untouched.version),
        ("ended", settled.version)
    );
    let again = c.ops.void_round(void).await.unwrap().into_inner();
    assert_eq!(
        again.proposal.as_ref(),
        Some(&proposal),
        "a retry is the same proposal"
    );
    let own = c
        .ops
        .approve_proposal(proto::ApproveProposalRequest {
            proposal_id: proposal.proposal_id.clone(),
        })
        .await
        .unwrap_err();
    assert_eq!(own.code(), Code::PermissionDenied, "{own:?}");
    let info = tonic_types::StatusExt::get_details_error_info(&own);
    assert_eq!(info.unwrap().reason, "OWN_PROPOSAL");
    assert_eq!(
        view(c, id, "", 0, 0).await.version,
        settled.version,
        "nothing written"
    );

    let done = c.approve(&Some(proposal.clone())).await.expect("approved");
    assert_eq!(done.proposal.as_ref().unwrap().state, "approved");
    let answered = done.void_round.expect("the round's void");
    assert!(!answered.duplicate);
    let voided = answered.round.expect("the round");
    assert_eq!(voided.phase, "voided");
    assert_eq!(voided.places.len(), settled.places.len());
    let mut reversed = 0;
    for (before, after) in settled.places.iter().zip(&voided.places) {
        let Some(settlement) = &before.settlement else {
            continue;
        };
        let v = after.void.as_ref().expect("every settled place voided");
        assert_eq!(after.status, "voided", "seat {}", after.seat);
        assert_eq!(v.kind, "malfunction");
        assert_eq!(
            (v.paid_before, v.total_staked),
            (settlement.total_paid, settlement.total_staked)
        );
        assert_eq!(
            v.paid_now, v.total_staked,
            "seat {}: every stake refunded",
            after.seat
        );
        assert_eq!(
            (v.recorded_by.as_str(), v.approved_by.as_str()),
            ("admin", "second")
        );
        reversed += 1;
    }
    assert!(reversed > 0, "the round had settled places");
    // Approved again: answered from the log, nothing more written.
    let twice = c.approve(&Some(proposal)).await.expect("answered again");
    let twice = twice.void_round.expect("the round's void");
    assert!(twice.duplicate);
    assert_eq!(twice.round.unwrap().version, voided.version);
    let proof = c
        .audit
        .replay_round(proto::ReplayRoundRequest {
            round_id: id.into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(proof.phase, "voided");
    assert!(
        proof.consistent && proof.mismatches.is_empty(),
        "{:#?}",
        proof.report
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn fifty_bettors_play_one_nutz_shake_and_a_studio_pages_its_players() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
    let id = c
        .play
        .open_round(opening(proto::Game::Nutz, "one_shake", 0, 50))
        .await
        .unwrap()
        .into_inner()
        .round
        .unwrap()
        .round_id;
    let boxes = [
        "box_one_pair",
        "box_two_pairs",
        "box_three_of_a_kind",
        "box_nutz",
    ];
    for k in 0..50u64 {
        let wagers = vec![wager(boxes[k as usize % 4], 100 + k)];
        command(&mut c, &id, bet(&format!("bettor-{k}"), 0, wagers))
            .await
            .unwrap();
    }
    command(
        &mut c,
        &id,
        Command::CloseBetting(proto::RoundCloseBettingCommand {
            shaker: "bettor-7".into(),
        }),
    )
    .await
    .unwrap();
    let not_theirs = command(
        &mut c,
        &id,
        Command::Decide(proto::RoundDecisionCommand {
            player: "bettor-8".into(),
            seat: 0,
            action: Some(proto::Action {
                kind: "shake".into(),
                by: "player".into(),
                ..Default::default()
            }),
        }),
    )
    .await
    .unwrap_err();
    assert_eq!(
        not_theirs.code(),
        Code::FailedPrecondition,
        "{not_theirs:?}"
    );
    let mut last = None;
    for _ in 0..3 {
        let after = command(
            &mut c,
            &id,
            Command::Decide(proto::RoundDecisionCommand {
                player: "bettor-7".into(),
                seat: 0,
                action: Some(proto::Action {
                    kind: "shake".into(),
                    by: "player".into(),
                    ..Default::default()
                }),
            }),
        )
        .await;
        match after {
            Ok(view) => last = Some(view),
            Err(e) => {
                assert_eq!(
                    e.code(),
                    Code::FailedPrecondition,
                    "only after the shaking is over: {e:?}"
                );
                break;
            }
        }
    }
    let last = last.unwrap();
    assert_eq!(last.phase, "ended");
    let dice = last.dice.expect("the dice");
    // Every bettor's boxes settled on the same final dice: one row per place, all judged alike.
    let mut judged = std::collections::BTreeSet::new();
    let mut from = 0;
    let mut settled = 0;
    loop {
        let page = view(&mut c, &id, "", from, 20).await;
        for place in &page.places {
            let s = place.settlement.as_ref().expect("settled");
            judged.insert(s.lines[0].judged_on.clone());
            settled += 1;
        }
        if page.next_place == 0 {
            break;
        }
        from = page.next_place;
    }
    assert_eq!(settled, 50, "every page read");
    assert_eq!(judged.len(), 1, "one shake, one hand judged: {judged:?}");
    assert!(judged
        .iter()
        .next()
        .unwrap()
        .contains(&dice.faces.iter().map(|f| f.to_string()).collect::<Vec<_>>()[0]));
    // A bettor's view lists their own place only.
    let own = view(&mut c, &id, "bettor-3", 0, 0).await;
    assert_eq!(own.places.len(), 1);
    assert!(own.places[0].yours);

    // A studio's shared hand of 120 players, voided mid-play: every place refunded.
    let studio = c
        .play
        .open_round(opening(proto::Game::MississippiStud, "shared_hand", 0, 120))
        .await
        .unwrap()
        .into_inner()
        .round
        .unwrap()
        .round_id;
    // A relay's batches of 40 bets: one call and one append each. A batch with one bad bet is
    // refused whole, naming it, and writes nothing.
    let item = |k: u64, amount: u64| proto::RoundBatchItem {
        command: Some(proto::round_batch_item::Command::Bet(
            proto::RoundBetCommand {
                player_seed: Vec::new(),
                player: format!("viewer-{k}"),
                seat: 0,
                wagers: vec![wager("ante", amount)],
            },
        )),
    };
    let before = head(&mut c).await;
    let bad = command(
        &mut c,
        &studio,
        Command::Batch(proto::RoundBatchCommand {
            commands: vec![item(0, 100), item(1, 0)],
        }),
    )
    .await
    .unwrap_err();
    assert_eq!(bad.code(), Code::InvalidArgument, "{bad:?}");
    assert!(
        bad.message()
            .starts_with("batch.commands[1].bet.wagers.ante"),
        "{}",
        bad.message()
    );
    assert_eq!(head(&mut c).await, before, "nothing written");
    for chunk in (0..120u64).collect::<Vec<_>>().chunks(40) {
        let commands = chunk.iter().map(|&k| item(k, 100 + k)).collect();
        command(
            &mut c,
            &studio,
            Command::Batch(proto::RoundBatchCommand { commands }),
        )
        .await
        .unwrap();
    }
    let after = head(&mut c).await;
    assert_eq!(
        after.0.unwrap() - before.0.unwrap(),
        120,
        "three appends, one entry per bet"
    );
    let dealt = command(&mut c, &studio, close()).await.unwrap();
    assert_eq!(
        dealt.table_cards.len(),
        2,
        "the one hand's two cards, for everyone"
    );
    for k in 0..60u64 {
        command(&mut c, &studio, decide(&format!("viewer-{k}"), 0, "fold"))
            .await
            .unwrap();
    }
    let voided = c
        .ops
        .void_round(proto::VoidRoundRequest {
            round_id: studio.clone(),
            kind: "malfunction".into(),
            reason: "the studio's feed failed".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .round
        .unwrap();
    assert_eq!(voided.phase, "voided");
    assert_eq!(voided.seed.len(), 64);
    let mut from = 0;
    let mut refunded = 0;
    loop {
        let page = view(&mut c, &studio, "", from, 50).await;
        for place in &page.places {
            let void = place.void.as_ref().expect("voided");
            assert_eq!(void.paid_now, void.total_staked, "refunded");
            assert_eq!(void.paid_before, 0, "nothing was paid before the showdown");
            refunded += 1;
        }
        if page.next_place == 0 {
            break;
        }
        from = page.next_place;
    }
    assert_eq!(refunded, 120);
    head(&mut c).await;
}

/// Request ids on a round's calls: a retried opening answers with the round first opened, a
/// retried bet and a retried void with the round as they first left it (`duplicate` set), writing
/// nothing; the same id for another bet is refused naming `request_id`.
#[tokio::test(flavor = "multi_thread")]
async fn a_retried_round_call_is_answered_with_the_first_result() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
    let open = proto::OpenRoundRequest {
        request_id: "open-r1".into(),
        ..opening(proto::Game::CaribbeanStud, "seats", 3, 3)
    };
    let first = c.play.open_round(open.clone()).await.unwrap().into_inner();
    let id = first.round.clone().unwrap().round_id;
    assert!(!first.duplicate);
    let before = head(&mut c).await;
    let again = c.play.open_round(open).await.unwrap().into_inner();
    assert!(again.duplicate);
    assert_eq!(again.round, first.round);
    assert_eq!(
        head(&mut c).await,
        before,
        "a retried opening writes nothing"
    );

    let placing = proto::RoundCommandRequest {
        request_id: "bet-r1".into(),
        round_id: id.clone(),
        command: Some(bet("ann", 1, opening_wagers(1))),
    };
    let placed = c
        .play
        .round_command(placing.clone())
        .await
        .unwrap()
        .into_inner();
    let before = head(&mut c).await;
    let retried = c
        .play
        .round_command(placing.clone())
        .await
        .unwrap()
        .into_inner();
    assert!(!placed.duplicate && retried.duplicate);
    assert_eq!(retried.round, placed.round);
    let other = c
        .play
        .round_command(proto::RoundCommandRequest {
            command: Some(bet("bob", 2, opening_wagers(2))),
            ..placing
        })
        .await
        .unwrap_err();
    assert_eq!(other.code(), Code::InvalidArgument, "{other:?}");
    assert!(other.message().contains("request_id"), "{other:?}");
    assert_eq!(
        head(&mut c).await,
        before,
        "a retry and a refusal write nothing"
    );

    let void = proto::VoidRoundRequest {
        request_id: "void-r1".into(),
        round_id: id,
        kind: "malfunction".into(),
        reason: "misdeal".into(),
        ..Default::default()
    };
    let voided = c.ops.void_round(void.clone()).await.unwrap().into_inner();
    let before = head(&mut c).await;
    let again = c.ops.void_round(void).await.unwrap().into_inner();
    assert_eq!(
        voided.round.as_ref().map(|r| r.phase.as_str()),
        Some("voided")
    );
    assert!(again.duplicate);
    assert_eq!(again.round, voided.round);
    assert_eq!(head(&mut c).await, before);
}
