//! The page of a table round's dispute packet, from a round genuinely played by the engine's
//! `Round`: every place's settlement in its own field, the disputed place marked, hostile text
//! escaped everywhere, nothing that fetches or runs, the same bytes every time, and a failed check
//! failing the verdict.

mod common;

use std::sync::Arc;

use common::{assert_self_contained, field, section, well_formed, PUBLIC_KEY};
use pitboss_engine::config::GameConfig;
use pitboss_engine::game::GameId;
use pitboss_engine::games::{Action, Timestamp};
use pitboss_engine::money::Money;
use pitboss_engine::rng::Seed;
use pitboss_engine::round::{Decide, OpenRound, PlaceBet, Round, RoundCommand, Shape};
use pitboss_engine::settlement::{BetId, Wager};
use pitboss_packet::{
    render_round, CheckpointFacts, Mismatch, RoundPacket, RoundPacketEvent, RoundPacketPlace,
    RoundVerdict,
};

const ROUND_ID: &str = "fedcba9876543210fedcba9876543210";

/// A three-seat Caribbean Stud round played to its showdown; `players` name the seats.
fn played(players: [&str; 3]) -> (Round, Vec<RoundPacketEvent>) {
    let config = Arc::new(GameConfig::default_for(GameId::CaribbeanStud));
    let mut round = Round::new(Seed::from_bytes([7; 32]), config);
    let mut events = Vec::new();
    let mut run = |round: &mut Round, command: RoundCommand| {
        for event in round.step(&command).unwrap() {
            events.push(RoundPacketEvent {
                sequence: 500 + events.len() as u64,
                stream_position: events.len() as u64,
                recorded_at_ms: 1_780_000_000_000,
                actor: "table-T1".into(),
                kind: event.kind().into(),
                words: format!("{event:?}"),
                in_checkpoint: true,
                signature_ok: true,
                rederived: true,
                note: String::new(),
            });
        }
    };
    run(
        &mut round,
        RoundCommand::Open(OpenRound {
            table: "T1".into(),
            dealer: "dealer-1".into(),
            shoe: None,
            shape: Shape::Seats { seats: 3 },
            max_players: 3,
            seats_per_player: 1,
            decision_window_ms: 60_000,
            at: Timestamp(1),
        }),
    );
    for (i, player) in players.iter().enumerate() {
        run(
            &mut round,
            RoundCommand::Bet(PlaceBet {
                seed_digest: None,
                player: player.to_string(),
                seat: Some(i as u8 + 1),
                wagers: vec![Wager {
                    bet: BetId::Ante,
                    amount: Money(500),
                }],
                at: Timestamp(2),
            }),
        );
    }
    run(
        &mut round,
        RoundCommand::CloseBetting {
            at: Timestamp(3),
            shaker: None,
        },
    );
    for (i, player) in players.iter().enumerate() {
        run(
            &mut round,
            RoundCommand::Decide(Decide {
                player: player.to_string(),
                seat: Some(i as u8 + 1),
                action: Action::Raise,
                at: Timestamp(4),
            }),
        );
    }
    (round, events)
}

/// The packet for the player of seat 2, the others' names masked as the server masks them.
fn packet(players: [&str; 3]) -> RoundPacket {
    let (round, events) = played(players);
    let view = round.view(None, 0, 10);
    RoundPacket {
        round_id: ROUND_ID.into(),
        game: GameId::CaribbeanStud,
        table: "T1".into(),
        dealer: "dealer-1".into(),
        shoe: String::new(),
        shape: "seats".into(),
        opened_at_ms: 1_780_000_000_000,
        last_at_ms: 1_780_000_060_000,
        phase: "ended".into(),
        config_id: "ab".repeat(32),
        config: round.config().clone(),
        player: players[1].into(),
        table_cards: view.table_cards.clone(),
        dice: None,
        places: view
            .places
            .iter()
            .map(|p| RoundPacketPlace {
                place: p.place,
                seat: p.seat,
                player: if p.place == 1 {
                    players[1].to_string()
                } else {
                    "(another player)".into()
                },
                yours: p.place == 1,
                status: "settled".into(),
                cards: p
                    .cards
                    .iter()
                    .filter_map(|&(at, c)| c.map(|c| (at, c)))
                    .collect(),
                settlement: p.settlement.clone(),
                void: p.void.clone(),
            })
            .collect(),
        events,
        verdict: RoundVerdict {
            consistent: true,
            commitment_ok: true,
            seed_revealed: true,
            one_shuffle: true,
            mismatches: Vec::new(),
            report: vec!["one shuffle: 20 cards".into()],
            problems: Vec::new(),
            checkpoint: CheckpointFacts {
                origin: "pitboss test log".into(),
                tree_size: 600,
                root_hex: "00".repeat(32),
                note: "pitboss test log\n600\n".into(),
                key_id: "11".repeat(16),
                public_key_hex: PUBLIC_KEY.into(),
            },
            bundle_file: format!("round-{ROUND_ID}.bundle.json"),
        },
    }
}

#[test]
fn every_place_shows_its_settlement_and_the_disputed_place_is_marked() {
    let players = ["ann", "bob", "cy"];
    let (round, _) = played(players);
    let page = render_round(&packet(players));
    well_formed(&page).unwrap();
    assert_self_contained(&page);
    for (i, place) in round.places().iter().enumerate() {
        let paid = place.hand().settlement().unwrap().total_paid;
        let digits = round.config().currency.minor_digits;
        assert_eq!(
            field(&page, &format!("places[{i}].total_paid")),
            Some(paid.display(digits).as_str()),
            "place {i}"
        );
        assert!(page.contains(&format!(
            "data-field=\"places[{i}].total_paid\" value=\"{}\"",
            paid.0
        )));
    }
    let places = section(&page, "places").unwrap();
    assert!(places.contains("data-yours=\"yes\"") && places.contains("THE DISPUTED PLACE"));
    assert_eq!(places.matches("THE DISPUTED PLACE").count(), 1);
    assert!(places.contains("bob") && !places.contains("ann") && !places.contains(">cy"));
    assert!(section(&page, "verdict")
        .unwrap()
        .contains("data-verdict=\"ok\""));
    assert!(page.contains(&format!(
        "pitboss verify-bundle round-{ROUND_ID}.bundle.json --key {PUBLIC_KEY}"
    )));
    assert_eq!(
        page,
        render_round(&packet(players)),
        "the same bytes every time"
    );
}

#[test]
fn hostile_text_is_escaped_and_a_failed_check_fails_the_verdict() {
    let hostile = "<script>alert(1)</script>";
    let mut packet = packet(["ann", hostile, "cy"]);
    packet.table = hostile.into();
    packet.events[2].actor = hostile.into();
    packet.events[3].note = hostile.into();
    packet.verdict.report.push(hostile.into());
    let page = render_round(&packet);
    assert_self_contained(&page);
    well_formed(&page).unwrap();
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    for id in ["round", "places", "timeline", "verdict"] {
        assert!(
            section(&page, id).unwrap().contains("&lt;script&gt;"),
            "{id}"
        );
    }
    assert!(section(&page, "verdict")
        .unwrap()
        .contains("data-verdict=\"ok\""));
    packet.verdict.mismatches.push(Mismatch {
        sequence: 503,
        event: "settled".into(),
        field: "event".into(),
        recorded: "as recorded".into(),
        rederived: "the recorded settled is not the settled the round gives".into(),
    });
    packet.verdict.consistent = false;
    let failed = render_round(&packet);
    let verdict = section(&failed, "verdict").unwrap();
    assert!(verdict.contains("data-verdict=\"fail\""));
    assert!(verdict.contains("entry 503 (settled)"));
    packet.verdict.mismatches.clear();
    packet.verdict.consistent = true;
    packet.verdict.one_shuffle = false;
    assert!(render_round(&packet).contains("not dealt from one shuffle"));
}
