//! Packets no engine would produce, which a damaged or foreign log could still hold: the page
//! renders them all, says what it can, and never panics.

mod common;

use common::{assert_self_contained, field, packet, section};
use pitboss_engine::card::Card;
use pitboss_engine::game::{GameId, Seat};
use pitboss_engine::games::{Event, Shaker, Timestamp};
use pitboss_engine::money::Money;
use pitboss_engine::paytable::{Outcome, Pay};
use pitboss_engine::settlement::{BetId, BetLine, Settlement};
use pitboss_packet::{render, PacketEvent};

fn entry(sequence: u64, event: Event) -> PacketEvent {
    PacketEvent {
        sequence,
        stream_position: sequence,
        recorded_at_ms: 0,
        actor: String::new(),
        key_id: String::new(),
        hash_hex: String::new(),
        event,
        in_checkpoint: true,
        signature_ok: true,
        rederived: true,
        note: String::new(),
    }
}

#[test]
fn an_empty_packet_renders_and_fails_its_verdict() {
    let mut packet = packet("cs_stand_off");
    packet.events.clear();
    packet.verdict.settlement = None;
    packet.verdict.report.clear();
    packet.verdict.bundle_file = String::new();
    packet.verdict.checkpoint.public_key_hex = String::new();
    packet.closed_at_ms = None;
    let page = render(&packet);
    assert_self_contained(&page);
    assert!(page.contains("No entry of this hand is recorded."));
    assert!(page.contains("The hand has not settled."));
    assert!(page.contains("The packet holds no recorded entry of the hand."));
    assert!(page.contains("class=\"verdict fail\""));
    assert!(page.contains("Ended</dt><dd>not ended"));
    // With no bundle name, the commands name the hand's conventional one.
    assert!(page.contains(&format!(
        "pitboss verify-bundle hand-{}.bundle.json --key PUBLIC_KEY_HEX",
        common::HAND_ID
    )));
    let cards = section(&page, "cards").unwrap();
    assert_eq!(cards.matches("class=\"card back\"").count(), 10);
    assert!(
        !cards.contains("never shown"),
        "a hand not ended may show them yet"
    );
}

#[test]
fn odd_cards_unknown_rules_and_impossible_dice_still_render() {
    let mut packet = packet("ms_fold_bonus_pays");
    // More cards than positions, and a position outside the layout.
    packet.events.push(entry(
        9_000,
        Event::CardsShown {
            seat: Seat::Dealer,
            positions: vec![40],
            cards: vec![Card::JOKER, "2c".parse().unwrap(), "3d".parse().unwrap()],
        },
    ));
    packet.events.push(entry(
        9_001,
        Event::DiceShaken {
            shake: 1,
            by: Shaker::Dealer,
            at: Timestamp(0),
            rolled: vec![0, 9],
            faces: [0, 7, 200, 3, 6],
            held: vec![250],
            last: false,
        },
    ));
    packet.verdict.settlement = Some(Settlement {
        lines: vec![BetLine {
            bet: BetId::Ante,
            stake: Money(u64::MAX),
            judged_on: "<b>?</b>".into(),
            rule: "a_rule_nobody_knows".into(),
            pay: Some(Pay::Odds(u32::MAX)),
            outcome: Outcome::Win,
            uncapped: Money(u64::MAX),
            cap: Some(Money(1)),
            cut: Money(u64::MAX - 1),
            payout: Money(1),
        }],
        game_cap: None,
        total_staked: Money(u64::MAX),
        total_paid: Money(0),
    });
    let page = render(&packet);
    assert_self_contained(&page);
    let cards = section(&page, "cards").unwrap();
    assert!(cards.contains("Other cards shown"));
    assert!(cards.contains("data-card=\"JK\""));
    assert!(page.contains("A rule nobody knows"));
    assert!(page.contains("&lt;b&gt;?&lt;/b&gt;"));
    assert_eq!(field(&page, "lines[0].cut"), Some("184467440737095516.14"));
    assert_eq!(field(&page, "net"), Some("-184467440737095516.15"));
    assert!(page.contains("CAP BOUND"));
    // The impossible shake is in the timeline, its dice counted from 1.
    assert!(page.contains("rolled dice 1 and 10"));
    assert!(page.contains("die 251"));
}

#[test]
fn nutz_with_dice_drawn_from_impossible_faces() {
    let mut packet = packet("nutz_first_shake_nutz");
    packet
        .events
        .retain(|e| !matches!(e.event, Event::DiceShaken { .. }));
    let page = render(&packet);
    assert!(page.contains("The dice have not been shaken."));
    packet.events.push(entry(
        5,
        Event::DiceShaken {
            shake: 9,
            by: Shaker::Player,
            at: Timestamp(u64::MAX),
            rolled: Vec::new(),
            faces: [0, 1, 2, 7, 6],
            held: Vec::new(),
            last: true,
        },
    ));
    let page = render(&packet);
    assert_self_contained(&page);
    let dice = section(&page, "cards").unwrap();
    assert_eq!(
        dice.matches(">?</text>").count(),
        2,
        "faces 0 and 7 are blank dice"
    );
    assert_eq!(dice.matches("class=\"pip\"").count(), 1 + 2 + 6);
    assert!(packet.game == GameId::Nutz);
}
