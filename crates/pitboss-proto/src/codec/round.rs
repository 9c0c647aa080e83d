//! A table's round's events (`pitboss_engine::round::RoundEvent`) to and from their payloads,
//! losslessly: the round's own messages, with the hand's messages for what a place shares with a
//! one-player hand (wagers, a decision, a shake, a settlement, a void).

use super::{
    action_from, action_to, bad, bytes32, card, cards, from_id, id_of, settlement_from,
    settlement_to, small, strings, void_from, void_to, wagers_from, wagers_to, CodecError,
};
use crate::proto;
use crate::proto::payload::Kind;
use pitboss_engine::config::{ConfigId, LateBeacon};
use pitboss_engine::game::GameId;
use pitboss_engine::games::{Timestamp, VoidOrder};
use pitboss_engine::house_way::Setting;
use pitboss_engine::mix::BeaconValue;
use pitboss_engine::rng::{Commitment, Seed};
use pitboss_engine::round::{
    BeaconArrived, BeaconMissed, BetPlaced, DealerChanged, NamedBeacon, RoundEvent, RoundOpened,
    RoundVoided, SeatDealt, Shake, Shape, WindowClosed,
};

fn positions_to(positions: &[u8]) -> Vec<u32> {
    positions.iter().map(|&p| u32::from(p)).collect()
}

fn positions_from(field: &str, values: &[u32]) -> Result<Vec<u8>, CodecError> {
    values.iter().map(|&v| small(field, v)).collect()
}

fn cards_from(
    field: &str,
    texts: &[String],
) -> Result<Vec<pitboss_engine::card::Card>, CodecError> {
    texts.iter().map(|t| card(field, t)).collect()
}

fn place_from(field: &str, value: u32) -> Result<u32, CodecError> {
    if value as u64 >= u64::from(pitboss_engine::round::PLAYERS_MAX) * 7 {
        return Err(bad(field, "beyond any round's places"));
    }
    Ok(value)
}

fn late_from(field: &str, value: &str) -> Result<LateBeacon, CodecError> {
    match value {
        "deal_without" => Ok(LateBeacon::DealWithout),
        "void" => Ok(LateBeacon::Void),
        other => Err(bad(field, format!("unknown late-beacon rule `{other}`"))),
    }
}

/// The most bytes a beacon round's signature has in a record (quicknet's are 48).
const SIGNATURE_MAX: usize = 256;

fn order_of(
    field: &str,
    kind: &str,
    reason: &str,
    recorded_by: &str,
    approved_by: &str,
    at_ms: u64,
) -> Result<VoidOrder, CodecError> {
    Ok(VoidOrder {
        kind: from_id(&format!("{field}.kind"), kind)?,
        reason: reason.to_string(),
        recorded_by: recorded_by.to_string(),
        approved_by: (!approved_by.is_empty()).then(|| approved_by.to_string()),
        at: Timestamp(at_ms),
    })
}

/// A round's named beacon round as its opening record carries it.
pub fn named_beacon_to(b: &NamedBeacon) -> proto::RoundNamedBeacon {
    proto::RoundNamedBeacon {
        chain: b.chain.to_vec(),
        round: b.round,
        round_at_ms: b.round_at.0,
        betting_closes_ms: b.betting_closes.0,
        awaited_until_ms: b.awaited_until.0,
        late: b.late.name().to_string(),
    }
}

/// The payload of a round's event.
pub fn round_event_to_payload(event: &RoundEvent) -> proto::Payload {
    let kind = match event {
        RoundEvent::Opened(o) => Kind::RoundOpened(proto::RoundOpened {
            game: o.game.id().to_string(),
            config_id: o.config_id.0.to_vec(),
            table: o.table.clone(),
            dealer: o.dealer.clone(),
            shoe: o.shoe.clone(),
            shape: o.shape.name().to_string(),
            seats: match o.shape {
                Shape::Seats { seats } => u32::from(seats),
                Shape::SharedHand | Shape::OneShake => 0,
            },
            max_players: o.max_players,
            seats_per_player: u32::from(o.seats_per_player),
            decision_window_ms: o.decision_window_ms,
            commitment: o.commitment.as_bytes().to_vec(),
            at_ms: o.at.0,
            player_seeds: o.player_seeds,
            beacon: o.beacon.as_ref().map(named_beacon_to),
        }),
        RoundEvent::BetPlaced(b) => Kind::RoundBet(proto::RoundBet {
            place: b.place,
            player: b.player.clone(),
            seat: b.seat.map(u32::from),
            wagers: wagers_to(&b.wagers),
            at_ms: b.at.0,
            seed_digest: b.seed_digest.map(|d| d.to_vec()).unwrap_or_default(),
        }),
        RoundEvent::BeaconArrived(a) => Kind::RoundBeaconArrived(proto::RoundBeaconArrived {
            chain: a.value.chain.to_vec(),
            round: a.value.round,
            randomness: a.value.randomness.to_vec(),
            signature: a.signature.clone(),
            at_ms: a.at.0,
        }),
        RoundEvent::BeaconLate(l) => Kind::RoundBeaconLate(proto::RoundBeaconLate {
            at_ms: l.at.0,
            why: l.why.clone(),
            rule: l.rule.name().to_string(),
        }),
        RoundEvent::BettingClosed { at, shaker } => {
            Kind::RoundBettingClosed(proto::RoundBettingClosed {
                at_ms: at.0,
                shaker: shaker.clone(),
            })
        }
        RoundEvent::Dealt { seats } => Kind::RoundDealt(proto::RoundDealt {
            seats: seats
                .iter()
                .map(|s| proto::RoundSeatDealt {
                    seat: u32::from(s.seat),
                    positions: positions_to(&s.positions),
                    cards: strings(&s.cards),
                })
                .collect(),
        }),
        RoundEvent::Revealed { positions, cards } => Kind::RoundRevealed(proto::RoundRevealed {
            positions: positions_to(positions),
            cards: strings(cards),
        }),
        RoundEvent::Decided {
            place,
            action,
            at,
            stakes,
        } => Kind::RoundDecided(proto::RoundDecided {
            place: *place,
            action: Some(action_to(action)),
            at_ms: at.0,
            stakes: wagers_to(stakes),
        }),
        RoundEvent::Shaken(s) => Kind::RoundShaken(proto::RoundShaken {
            who: s.who.clone(),
            shake: Some(proto::DiceShaken {
                shake: u32::from(s.shake),
                by: id_of(&s.by),
                at_ms: s.at.0,
                rolled: positions_to(&s.rolled),
                faces: positions_to(&s.faces),
                held: positions_to(&s.held),
                last: s.last,
            }),
        }),
        RoundEvent::WindowClosed(w) => Kind::RoundWindowClosed(proto::RoundWindowClosed {
            kind: id_of(&w.order.kind),
            reason: w.order.reason.clone(),
            recorded_by: w.order.recorded_by.clone(),
            at_ms: w.order.at.0,
            allowed_because: w.allowed_because.clone(),
            ended: w.ended,
            approved_by: w.order.approved_by.clone().unwrap_or_default(),
        }),
        RoundEvent::DealerSet { setting, rule } => Kind::RoundDealerSet(proto::RoundDealerSet {
            low: strings(&setting.low),
            high: strings(&setting.high),
            house_way_rule: id_of(rule),
        }),
        RoundEvent::DealerChanged(d) => Kind::RoundDealerChanged(proto::RoundDealerChanged {
            from: d.from.clone(),
            to: d.to.clone(),
            reason: d.reason.clone(),
            at_ms: d.at.0,
        }),
        RoundEvent::Settled { place, settlement } => Kind::RoundSettled(proto::RoundSettled {
            place: *place,
            settlement: Some(settlement_to(settlement)),
        }),
        RoundEvent::RoundVoided(v) => Kind::RoundVoided(proto::RoundVoided {
            kind: id_of(&v.order.kind),
            reason: v.order.reason.clone(),
            recorded_by: v.order.recorded_by.clone(),
            at_ms: v.order.at.0,
            allowed_because: v.allowed_because.clone(),
            approved_by: v.order.approved_by.clone().unwrap_or_default(),
        }),
        RoundEvent::PlaceVoided { place, void } => {
            Kind::RoundPlaceVoided(proto::RoundPlaceVoided {
                place: *place,
                void: Some(void_to(void)),
            })
        }
        RoundEvent::SeedRevealed { seed } => Kind::RoundSeedRevealed(proto::SeedRevealed {
            seed: seed.as_bytes().to_vec(),
        }),
    };
    proto::Payload { kind: Some(kind) }
}

/// The round's event of a payload; `Ok(None)` for a payload that is not a round's.
pub fn payload_to_round_event(payload: &proto::Payload) -> Result<Option<RoundEvent>, CodecError> {
    let Some(kind) = payload.kind.as_ref() else {
        return Err(bad("payload", "empty"));
    };
    Ok(Some(match kind {
        Kind::RoundOpened(o) => {
            let shape = match o.shape.as_str() {
                "seats" => Shape::Seats {
                    seats: small("round_opened.seats", o.seats)?,
                },
                "shared_hand" => Shape::SharedHand,
                "one_shake" => Shape::OneShake,
                other => {
                    return Err(bad(
                        "round_opened.shape",
                        format!("unknown shape `{other}`"),
                    ))
                }
            };
            RoundEvent::Opened(RoundOpened {
                game: o
                    .game
                    .parse::<GameId>()
                    .map_err(|e| bad("round_opened.game", e.to_string()))?,
                config_id: ConfigId(bytes32("round_opened.config_id", &o.config_id)?),
                table: o.table.clone(),
                dealer: o.dealer.clone(),
                shoe: o.shoe.clone(),
                shape,
                max_players: o.max_players,
                seats_per_player: small("round_opened.seats_per_player", o.seats_per_player)?,
                decision_window_ms: o.decision_window_ms,
                commitment: Commitment::from_bytes(bytes32(
                    "round_opened.commitment",
                    &o.commitment,
                )?),
                player_seeds: o.player_seeds,
                beacon: o
                    .beacon
                    .as_ref()
                    .map(|b| {
                        Ok::<_, CodecError>(NamedBeacon {
                            chain: bytes32("round_opened.beacon.chain", &b.chain)?,
                            round: b.round,
                            round_at: Timestamp(b.round_at_ms),
                            betting_closes: Timestamp(b.betting_closes_ms),
                            awaited_until: Timestamp(b.awaited_until_ms),
                            late: late_from("round_opened.beacon.late", &b.late)?,
                        })
                    })
                    .transpose()?,
                at: Timestamp(o.at_ms),
            })
        }
        Kind::RoundBet(b) => RoundEvent::BetPlaced(BetPlaced {
            place: place_from("round_bet.place", b.place)?,
            player: b.player.clone(),
            seat: b.seat.map(|s| small("round_bet.seat", s)).transpose()?,
            wagers: wagers_from("round_bet.wagers", &b.wagers)?,
            seed_digest: (!b.seed_digest.is_empty())
                .then(|| bytes32("round_bet.seed_digest", &b.seed_digest))
                .transpose()?,
            at: Timestamp(b.at_ms),
        }),
        Kind::RoundBeaconArrived(a) => {
            if a.signature.is_empty() || a.signature.len() > SIGNATURE_MAX {
                return Err(bad(
                    "round_beacon_arrived.signature",
                    format!("1 to {SIGNATURE_MAX} bytes"),
                ));
            }
            RoundEvent::BeaconArrived(BeaconArrived {
                value: BeaconValue {
                    chain: bytes32("round_beacon_arrived.chain", &a.chain)?,
                    round: a.round,
                    randomness: bytes32("round_beacon_arrived.randomness", &a.randomness)?,
                },
                signature: a.signature.clone(),
                at: Timestamp(a.at_ms),
            })
        }
        Kind::RoundBeaconLate(l) => RoundEvent::BeaconLate(BeaconMissed {
            at: Timestamp(l.at_ms),
            why: l.why.clone(),
            rule: late_from("round_beacon_late.rule", &l.rule)?,
        }),
        Kind::RoundBettingClosed(c) => RoundEvent::BettingClosed {
            at: Timestamp(c.at_ms),
            shaker: c.shaker.clone(),
        },
        Kind::RoundDealt(d) => RoundEvent::Dealt {
            seats: d
                .seats
                .iter()
                .map(|s| {
                    Ok(SeatDealt {
                        seat: small("round_dealt.seats.seat", s.seat)?,
                        positions: positions_from("round_dealt.seats.positions", &s.positions)?,
                        cards: cards_from("round_dealt.seats.cards", &s.cards)?,
                    })
                })
                .collect::<Result<_, CodecError>>()?,
        },
        Kind::RoundRevealed(r) => RoundEvent::Revealed {
            positions: positions_from("round_revealed.positions", &r.positions)?,
            cards: cards_from("round_revealed.cards", &r.cards)?,
        },
        Kind::RoundDecided(d) => RoundEvent::Decided {
            place: place_from("round_decided.place", d.place)?,
            action: action_from(
                "round_decided.action",
                d.action
                    .as_ref()
                    .ok_or_else(|| bad("round_decided.action", "missing"))?,
            )?,
            at: Timestamp(d.at_ms),
            stakes: wagers_from("round_decided.stakes", &d.stakes)?,
        },
        Kind::RoundShaken(s) => {
            let d = s
                .shake
                .as_ref()
                .ok_or_else(|| bad("round_shaken.shake", "missing"))?;
            RoundEvent::Shaken(Shake {
                who: s.who.clone(),
                shake: small("round_shaken.shake.shake", d.shake)?,
                by: from_id("round_shaken.shake.by", &d.by)?,
                at: Timestamp(d.at_ms),
                rolled: positions_from("round_shaken.shake.rolled", &d.rolled)?,
                faces: positions_from("round_shaken.shake.faces", &d.faces)?
                    .try_into()
                    .map_err(|_| bad("round_shaken.shake.faces", "expected 5 faces"))?,
                held: positions_from("round_shaken.shake.held", &d.held)?,
                last: d.last,
            })
        }
        Kind::RoundWindowClosed(w) => RoundEvent::WindowClosed(WindowClosed {
            order: order_of(
                "round_window_closed",
                &w.kind,
                &w.reason,
                &w.recorded_by,
                &w.approved_by,
                w.at_ms,
            )?,
            allowed_because: w.allowed_because.clone(),
            ended: place_from("round_window_closed.ended", w.ended)?,
        }),
        Kind::RoundDealerSet(d) => RoundEvent::DealerSet {
            setting: Setting {
                low: cards("round_dealer_set.low", &d.low)?,
                high: cards("round_dealer_set.high", &d.high)?,
            },
            rule: from_id("round_dealer_set.house_way_rule", &d.house_way_rule)?,
        },
        Kind::RoundDealerChanged(d) => RoundEvent::DealerChanged(DealerChanged {
            from: d.from.clone(),
            to: d.to.clone(),
            reason: d.reason.clone(),
            at: Timestamp(d.at_ms),
        }),
        Kind::RoundSettled(s) => RoundEvent::Settled {
            place: place_from("round_settled.place", s.place)?,
            settlement: settlement_from(
                s.settlement
                    .as_ref()
                    .ok_or_else(|| bad("round_settled.settlement", "missing"))?,
            )?,
        },
        Kind::RoundVoided(v) => RoundEvent::RoundVoided(RoundVoided {
            order: order_of(
                "round_voided",
                &v.kind,
                &v.reason,
                &v.recorded_by,
                &v.approved_by,
                v.at_ms,
            )?,
            allowed_because: v.allowed_because.clone(),
        }),
        Kind::RoundPlaceVoided(v) => RoundEvent::PlaceVoided {
            place: place_from("round_place_voided.place", v.place)?,
            void: void_from(
                v.void
                    .as_ref()
                    .ok_or_else(|| bad("round_place_voided.void", "missing"))?,
            )?,
        },
        Kind::RoundSeedRevealed(s) => RoundEvent::SeedRevealed {
            seed: Seed::from_bytes(bytes32("round_seed_revealed.seed", &s.seed)?),
        },
        _ => return Ok(None),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_engine::config::GameConfig;
    use pitboss_engine::games::{Action, Shaker, VoidKind};
    use pitboss_engine::money::Money;
    use pitboss_engine::round::{Decide, OpenRound, PlaceBet, Round, RoundCommand};
    use pitboss_engine::settlement::{BetId, Wager};
    use prost::Message;
    use std::sync::Arc;

    /// Every event of rounds of every game and shape, through voids, a forfeit and the window, to
    /// its payload's bytes and back: the same event.
    #[test]
    fn every_round_event_round_trips_through_its_payload_bytes() {
        let mut kinds = std::collections::BTreeSet::new();
        for game in GameId::ALL {
            let shapes: Vec<Shape> = match game.facts().max_seats {
                Some(max) => vec![Shape::Seats { seats: max }, Shape::SharedHand],
                None => vec![Shape::OneShake],
            };
            for shape in shapes {
                for ending in 0..3 {
                    for event in play(game, shape, ending) {
                        kinds.insert(event.kind());
                        let bytes = round_event_to_payload(&event).encode_to_vec();
                        let payload = proto::Payload::decode(bytes.as_slice()).unwrap();
                        assert_eq!(payload_to_round_event(&payload).unwrap(), Some(event));
                    }
                }
            }
        }
        assert_eq!(
            kinds.len(),
            14,
            "every kind of round event was seen: {kinds:?}"
        );
    }

    #[test]
    fn a_payload_that_does_not_map_back_names_its_field() {
        let opened = play(GameId::CaribbeanStud, Shape::Seats { seats: 2 }, 0).remove(0);
        let mut payload = round_event_to_payload(&opened);
        if let Some(Kind::RoundOpened(o)) = &mut payload.kind {
            o.shape = "circle".into();
        }
        assert_eq!(
            payload_to_round_event(&payload).unwrap_err().field,
            "round_opened.shape"
        );
        let revealed = proto::Payload {
            kind: Some(Kind::RoundRevealed(proto::RoundRevealed {
                positions: vec![300],
                cards: vec!["As".into()],
            })),
        };
        assert_eq!(
            payload_to_round_event(&revealed).unwrap_err().field,
            "round_revealed.positions"
        );
        // A hand's event is not a round's.
        let hand = proto::Payload {
            kind: Some(Kind::SeedRevealed(proto::SeedRevealed {
                seed: vec![0; 32],
            })),
        };
        assert_eq!(payload_to_round_event(&hand).unwrap(), None);
    }

    /// A round of `game` in `shape`, two places, ended by the showdown (0), a round void (1) or the
    /// window (2, after a forfeit where the game has one).
    fn play(game: GameId, shape: Shape, ending: u8) -> Vec<RoundEvent> {
        let config = Arc::new(GameConfig::default_for(game));
        let mut round = Round::new(Seed::from_bytes([ending + 3; 32]), config);
        let mut events = Vec::new();
        let mut step = |round: &mut Round, command: RoundCommand| {
            events.extend(
                round
                    .step(&command)
                    .unwrap_or_else(|e| panic!("{command:?}: {e}")),
            );
        };
        step(
            &mut round,
            RoundCommand::Open(OpenRound {
                table: "T".into(),
                dealer: "D".into(),
                shoe: (ending == 1).then(|| "S".to_string()),
                shape,
                max_players: 2,
                seats_per_player: 1,
                decision_window_ms: 1_000,
                at: Timestamp(1),
            }),
        );
        let (bet, amount) = match game {
            GameId::FortunePaiGow => (BetId::Main, 500),
            GameId::Nutz => (BetId::BoxOnePair, 100),
            _ => (BetId::Ante, 500),
        };
        for k in 1..=2u8 {
            step(
                &mut round,
                RoundCommand::Bet(PlaceBet {
                    seed_digest: None,
                    player: format!("p{k}"),
                    seat: matches!(shape, Shape::Seats { .. }).then_some(k),
                    wagers: vec![Wager {
                        bet,
                        amount: Money(amount),
                    }],
                    at: Timestamp(2),
                }),
            );
        }
        // Another dealer takes over before betting closes (every event kind is round-tripped).
        step(
            &mut round,
            RoundCommand::ChangeDealer(pitboss_engine::round::ChangeDealer {
                dealer: "D2".into(),
                reason: "shift change".into(),
                at: Timestamp(2),
            }),
        );
        let shaker = (game == GameId::Nutz && ending == 0).then(|| "p1".to_string());
        step(
            &mut round,
            RoundCommand::CloseBetting {
                at: Timestamp(3),
                shaker,
            },
        );
        let order = |kind, at| VoidOrder {
            kind,
            reason: "r".into(),
            recorded_by: "x".into(),
            approved_by: None,
            at: Timestamp(at),
        };
        match ending {
            0 => {
                let mut at = 4;
                while round.phase() == pitboss_engine::round::Phase::Playing {
                    let ready: Vec<(String, Option<u8>, Action)> = round
                        .places()
                        .iter()
                        .filter(|p| p.in_play() && p.waiting().is_empty())
                        .map(|p| {
                            let action = match game {
                                GameId::Nutz => Action::Shake { by: Shaker::Player },
                                _ => p.hand().legal_actions()[0],
                            };
                            (p.player().to_string(), p.seat(), action)
                        })
                        .collect();
                    for (player, seat, action) in ready {
                        if round.phase() != pitboss_engine::round::Phase::Playing {
                            break;
                        }
                        step(
                            &mut round,
                            RoundCommand::Decide(Decide {
                                player,
                                seat,
                                action,
                                at: Timestamp(at),
                            }),
                        );
                        at += 1;
                        if game == GameId::Nutz {
                            break;
                        }
                    }
                }
            }
            1 => step(
                &mut round,
                RoundCommand::VoidRound(order(VoidKind::Malfunction, 4)),
            ),
            _ => {
                if game == GameId::CaribbeanStud {
                    let seat = round.places()[0].seat();
                    step(
                        &mut round,
                        RoundCommand::Forfeit {
                            player: "p1".into(),
                            seat,
                            order: order(VoidKind::ConductForfeit, 4),
                        },
                    );
                }
                step(
                    &mut round,
                    RoundCommand::CloseWindow(order(VoidKind::Incomplete, 1_003)),
                );
            }
        }
        events
    }
}
