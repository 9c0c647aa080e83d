//! Engine events to and from their protobuf payloads (`proto/pitboss/v1/events.proto`), losslessly.
//!
//! Owns only the mapping: enumerations travel as their stable snake_case ids (the serde names the
//! engine already uses, listed in `docs/games.md`), money as minor units, cards as text. A payload
//! that does not map back (an unknown id, a card that does not parse, a wrong length) is an error
//! naming the field, never a panic. It knows no game rule and touches no storage.

mod round;

pub use round::{named_beacon_to, payload_to_round_event, round_event_to_payload};

use serde::de::DeserializeOwned;

use crate::proto;
use crate::proto::payload::Kind;
use pitboss_engine::card::Card;
use pitboss_engine::config::ConfigId;
use pitboss_engine::game::{GameId, Seat};
use pitboss_engine::games::{
    Action, Completion, Event, Opened, Shaker, Timestamp, Void, VoidLine, VoidOrder,
};
use pitboss_engine::house_way::Setting;
use pitboss_engine::money::Money;
use pitboss_engine::paytable::Pay;
use pitboss_engine::rng::{Commitment, Seed};
use pitboss_engine::settlement::{BetId, BetLine, GameCapLine, Settlement, Wager};

/// A payload that does not map to an engine event.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {problem}")]
pub struct CodecError {
    /// The payload field.
    pub field: String,
    /// What is wrong with it.
    pub problem: String,
}

fn bad(field: &str, problem: impl Into<String>) -> CodecError {
    CodecError {
        field: field.to_string(),
        problem: problem.into(),
    }
}

pub use pitboss_engine::id_of;

/// A log entry's payload, decoded: the ledger keeps payloads as opaque bytes (it decodes only its
/// own kinds); what they mean is this crate's.
pub trait EntryPayload {
    /// The entry's `pitboss.v1.Payload`.
    fn payload(&self) -> Result<proto::Payload, prost::DecodeError>;
}

/// Whether `bytes` decode as a `pitboss.v1.Payload`: the check the ledger holds every payload to
/// when the server opens or verifies the log ([`pitboss_ledger::Ledger::open_checked`]).
pub fn check_payload(bytes: &[u8]) -> Result<(), prost::DecodeError> {
    use prost::Message;
    proto::Payload::decode(bytes).map(|_| ())
}

/// The field number of a payload that is exactly one length-delimited field — its `kind`, as this
/// server encodes every payload — read from its tag without decoding it; `None` for anything
/// else (which a reader then decodes in full). A reader that wants a few kinds skips the rest by
/// this: a payload it skips would have decoded to another kind, or not at all (the log's payloads
/// are checked when the server opens it, and as they are appended).
pub fn payload_kind_number(bytes: &[u8]) -> Option<u32> {
    use prost::encoding::{decode_key, decode_varint, WireType};
    let mut rest = bytes;
    let (number, wire) = decode_key(&mut rest).ok()?;
    if wire != WireType::LengthDelimited {
        return None;
    }
    let length = decode_varint(&mut rest).ok()?;
    (u64::try_from(rest.len()).ok()? == length).then_some(number)
}

impl EntryPayload for pitboss_ledger::Entry {
    fn payload(&self) -> Result<proto::Payload, prost::DecodeError> {
        use prost::Message;
        proto::Payload::decode(self.envelope.payload.as_slice())
    }
}

/// The engine enumeration with this id.
pub fn from_id<T: DeserializeOwned>(field: &str, id: &str) -> Result<T, CodecError> {
    serde_json::from_value(serde_json::Value::String(id.to_string()))
        .map_err(|_| bad(field, format!("unknown id `{id}`")))
}

fn card(field: &str, text: &str) -> Result<Card, CodecError> {
    text.parse().map_err(|e| bad(field, format!("{e}")))
}

fn cards<const N: usize>(field: &str, texts: &[String]) -> Result<[Card; N], CodecError> {
    let parsed = texts
        .iter()
        .map(|t| card(field, t))
        .collect::<Result<Vec<_>, _>>()?;
    let got = parsed.len();
    parsed
        .try_into()
        .map_err(|_| bad(field, format!("expected {N} cards, got {got}")))
}

fn bytes32(field: &str, bytes: &[u8]) -> Result<[u8; 32], CodecError> {
    bytes
        .try_into()
        .map_err(|_| bad(field, format!("expected 32 bytes, got {}", bytes.len())))
}

fn small(field: &str, value: u32) -> Result<u8, CodecError> {
    u8::try_from(value).map_err(|_| bad(field, format!("{value} is out of range")))
}

pub fn wagers_to(wagers: &[Wager]) -> Vec<proto::Wager> {
    wagers
        .iter()
        .map(|w| proto::Wager {
            bet: w.bet.id().to_string(),
            amount: w.amount.0,
        })
        .collect()
}

pub fn wagers_from(field: &str, wagers: &[proto::Wager]) -> Result<Vec<Wager>, CodecError> {
    wagers
        .iter()
        .enumerate()
        .map(|(i, w)| {
            Ok(Wager {
                bet: w
                    .bet
                    .parse::<BetId>()
                    .map_err(|e| bad(&format!("{field}[{i}].bet"), e.to_string()))?,
                amount: Money(w.amount),
            })
        })
        .collect()
}

fn strings(cards: &[Card]) -> Vec<String> {
    cards.iter().map(Card::to_string).collect()
}

fn seat_from(field: &str, id: &str) -> Result<Seat, CodecError> {
    from_id(field, id)
}

pub fn action_to(action: &Action) -> proto::Action {
    let mut out = proto::Action {
        kind: action.name().to_string(),
        ..Default::default()
    };
    match action {
        Action::Bet { multiple } => out.multiple = *multiple,
        Action::SetHand { low } => out.low = strings(low),
        Action::Shake { by } => out.by = id_of(by),
        Action::MaxBetAll | Action::Fold | Action::Raise | Action::AutoSet => {}
    }
    out
}

/// The engine action of a protobuf action.
pub fn action_from(field: &str, action: &proto::Action) -> Result<Action, CodecError> {
    Ok(match action.kind.as_str() {
        "bet" => Action::Bet {
            multiple: action.multiple,
        },
        "max_bet_all" => Action::MaxBetAll,
        "fold" => Action::Fold,
        "raise" => Action::Raise,
        "set_hand" => Action::SetHand {
            low: cards(&format!("{field}.low"), &action.low)?,
        },
        "auto_set" => Action::AutoSet,
        "shake" => Action::Shake {
            by: from_id::<Shaker>(&format!("{field}.by"), &action.by)?,
        },
        other => {
            return Err(bad(
                &format!("{field}.kind"),
                format!("unknown action `{other}`"),
            ))
        }
    })
}

fn pay_to(pay: &Pay) -> proto::Pay {
    proto::Pay {
        kind: Some(match pay {
            Pay::Odds(x) => proto::pay::Kind::Odds(*x),
            Pay::Push => proto::pay::Kind::Push(true),
            Pay::Fixed(m) => proto::pay::Kind::Fixed(m.0),
        }),
    }
}

fn pay_from(field: &str, pay: &proto::Pay) -> Result<Pay, CodecError> {
    match pay.kind {
        Some(proto::pay::Kind::Odds(x)) => Ok(Pay::Odds(x)),
        Some(proto::pay::Kind::Push(_)) => Ok(Pay::Push),
        Some(proto::pay::Kind::Fixed(m)) => Ok(Pay::Fixed(Money(m))),
        None => Err(bad(field, "empty pay")),
    }
}

pub fn settlement_to(s: &Settlement) -> proto::Settled {
    proto::Settled {
        lines: s
            .lines
            .iter()
            .map(|l| proto::BetLine {
                bet: l.bet.id().to_string(),
                stake: l.stake.0,
                judged_on: l.judged_on.clone(),
                rule: l.rule.clone(),
                pay: l.pay.as_ref().map(pay_to),
                outcome: id_of(&l.outcome),
                uncapped: l.uncapped.0,
                cap: l.cap.map(|c| c.0),
                cut: l.cut.0,
                payout: l.payout.0,
            })
            .collect(),
        game_cap: s.game_cap.as_ref().map(game_cap_to),
        total_staked: s.total_staked.0,
        total_paid: s.total_paid.0,
    }
}

fn game_cap_to(g: &GameCapLine) -> proto::GameCapLine {
    proto::GameCapLine {
        total_before: g.total_before.0,
        cap: g.cap.0,
        cut: g.cut.0,
        total_after: g.total_after.0,
    }
}

fn game_cap_from(g: &proto::GameCapLine) -> GameCapLine {
    GameCapLine {
        total_before: Money(g.total_before),
        cap: Money(g.cap),
        cut: Money(g.cut),
        total_after: Money(g.total_after),
    }
}

fn settlement_from(s: &proto::Settled) -> Result<Settlement, CodecError> {
    let lines = s
        .lines
        .iter()
        .map(|l| {
            Ok(BetLine {
                bet: l
                    .bet
                    .parse()
                    .map_err(|e: pitboss_engine::settlement::UnknownBet| {
                        bad("settled.lines.bet", e.to_string())
                    })?,
                stake: Money(l.stake),
                judged_on: l.judged_on.clone(),
                rule: l.rule.clone(),
                pay: l
                    .pay
                    .as_ref()
                    .map(|p| pay_from("settled.lines.pay", p))
                    .transpose()?,
                outcome: from_id("settled.lines.outcome", &l.outcome)?,
                uncapped: Money(l.uncapped),
                cap: l.cap.map(Money),
                cut: Money(l.cut),
                payout: Money(l.payout),
            })
        })
        .collect::<Result<Vec<_>, CodecError>>()?;
    Ok(Settlement {
        lines,
        game_cap: s.game_cap.as_ref().map(game_cap_from),
        total_staked: Money(s.total_staked),
        total_paid: Money(s.total_paid),
    })
}

pub fn void_to(v: &Void) -> proto::Voided {
    proto::Voided {
        kind: id_of(&v.order.kind),
        reason: v.order.reason.clone(),
        recorded_by: v.order.recorded_by.clone(),
        approved_by: v.order.approved_by.clone().unwrap_or_default(),
        at_ms: v.order.at.0,
        allowed_because: v.allowed_because.clone(),
        lines: v
            .lines
            .iter()
            .map(|l| proto::VoidLine {
                bet: l.bet.id().to_string(),
                stake: l.stake.0,
                paid_before: l.paid_before.0,
                paid_now: l.paid_now.0,
            })
            .collect(),
        total_staked: v.total_staked.0,
        paid_before: v.paid_before.0,
        paid_now: v.paid_now.0,
        game_cap: v.game_cap.as_ref().map(game_cap_to),
    }
}

fn order_from(
    field: &str,
    kind: &str,
    reason: &str,
    recorded_by: &str,
    at_ms: u64,
) -> Result<VoidOrder, CodecError> {
    Ok(VoidOrder {
        kind: from_id(&format!("{field}.kind"), kind)?,
        reason: reason.to_string(),
        recorded_by: recorded_by.to_string(),
        approved_by: None,
        at: Timestamp(at_ms),
    })
}

/// The protobuf form of the incomplete-game rule's completion.
pub fn completion_to(c: &Completion) -> proto::HandCompleted {
    proto::HandCompleted {
        kind: id_of(&c.order.kind),
        reason: c.order.reason.clone(),
        recorded_by: c.order.recorded_by.clone(),
        at_ms: c.order.at.0,
        allowed_because: c.allowed_because.clone(),
    }
}

fn completion_from(c: &proto::HandCompleted) -> Result<Completion, CodecError> {
    Ok(Completion {
        order: order_from(
            "hand_completed",
            &c.kind,
            &c.reason,
            &c.recorded_by,
            c.at_ms,
        )?,
        allowed_because: c.allowed_because.clone(),
    })
}

fn void_from(v: &proto::Voided) -> Result<Void, CodecError> {
    Ok(Void {
        order: VoidOrder {
            approved_by: (!v.approved_by.is_empty()).then(|| v.approved_by.clone()),
            ..order_from("voided", &v.kind, &v.reason, &v.recorded_by, v.at_ms)?
        },
        allowed_because: v.allowed_because.clone(),
        lines: v
            .lines
            .iter()
            .map(|l| {
                Ok(VoidLine {
                    bet: l
                        .bet
                        .parse()
                        .map_err(|e: pitboss_engine::settlement::UnknownBet| {
                            bad("voided.lines.bet", e.to_string())
                        })?,
                    stake: Money(l.stake),
                    paid_before: Money(l.paid_before),
                    paid_now: Money(l.paid_now),
                })
            })
            .collect::<Result<Vec<_>, CodecError>>()?,
        total_staked: Money(v.total_staked),
        paid_before: Money(v.paid_before),
        paid_now: Money(v.paid_now),
        game_cap: v.game_cap.as_ref().map(game_cap_from),
    })
}

/// The payload of an engine event.
pub fn event_to_payload(event: &Event) -> proto::Payload {
    let kind = match event {
        Event::Opened(o) => Kind::HandOpened(proto::HandOpened {
            game: o.game.id().to_string(),
            config_id: o.config_id.0.to_vec(),
            table: o.table.clone(),
            player: o.player.clone(),
            wagers: wagers_to(&o.wagers),
            commitment: o.commitment.as_bytes().to_vec(),
            at_ms: o.at.0,
            rebet_of: o.rebet_of.clone(),
        }),
        Event::CardsShown {
            seat,
            positions,
            cards,
        } => Kind::CardsShown(proto::CardsShown {
            seat: seat.id().to_string(),
            positions: positions.iter().map(|&p| u32::from(p)).collect(),
            cards: strings(cards),
        }),
        Event::Acted { action, at, stakes } => Kind::Acted(proto::Acted {
            action: Some(action_to(action)),
            at_ms: at.0,
            stakes: wagers_to(stakes),
        }),
        Event::DiceShaken {
            shake,
            by,
            at,
            rolled,
            faces,
            held,
            last,
        } => Kind::DiceShaken(proto::DiceShaken {
            shake: u32::from(*shake),
            by: id_of(by),
            at_ms: at.0,
            rolled: rolled.iter().map(|&p| u32::from(p)).collect(),
            faces: faces.iter().map(|&f| u32::from(f)).collect(),
            held: held.iter().map(|&p| u32::from(p)).collect(),
            last: *last,
        }),
        Event::HandSet {
            seat,
            setting,
            house_way_rule,
        } => Kind::HandSet(proto::HandSet {
            seat: seat.id().to_string(),
            low: strings(&setting.low),
            high: strings(&setting.high),
            house_way_rule: house_way_rule.as_ref().map(id_of),
        }),
        Event::Settled(s) => Kind::Settled(settlement_to(s)),
        Event::Voided(v) => Kind::Voided(void_to(v)),
        Event::Completed(c) => Kind::HandCompleted(completion_to(c)),
        Event::SeedRevealed { seed } => Kind::SeedRevealed(proto::SeedRevealed {
            seed: seed.as_bytes().to_vec(),
        }),
    };
    proto::Payload { kind: Some(kind) }
}

/// The engine event of a payload; `Ok(None)` for payloads that are not hand events (configurations,
/// keys).
pub fn payload_to_event(payload: &proto::Payload) -> Result<Option<Event>, CodecError> {
    let small_list = |field: &str, values: &[u32]| -> Result<Vec<u8>, CodecError> {
        values.iter().map(|&v| small(field, v)).collect()
    };
    Ok(Some(
        match payload
            .kind
            .as_ref()
            .ok_or_else(|| bad("payload", "empty"))?
        {
            Kind::HandOpened(o) => Event::Opened(Opened {
                game: o
                    .game
                    .parse::<GameId>()
                    .map_err(|e| bad("hand_opened.game", e.to_string()))?,
                config_id: ConfigId(bytes32("hand_opened.config_id", &o.config_id)?),
                table: o.table.clone(),
                player: o.player.clone(),
                wagers: wagers_from("hand_opened.wagers", &o.wagers)?,
                commitment: Commitment::from_bytes(bytes32(
                    "hand_opened.commitment",
                    &o.commitment,
                )?),
                at: Timestamp(o.at_ms),
                rebet_of: o.rebet_of.clone(),
            }),
            Kind::CardsShown(c) => Event::CardsShown {
                seat: seat_from("cards_shown.seat", &c.seat)?,
                positions: small_list("cards_shown.positions", &c.positions)?,
                cards: c
                    .cards
                    .iter()
                    .map(|t| card("cards_shown.cards", t))
                    .collect::<Result<_, _>>()?,
            },
            Kind::Acted(a) => Event::Acted {
                action: action_from(
                    "acted.action",
                    a.action
                        .as_ref()
                        .ok_or_else(|| bad("acted.action", "missing"))?,
                )?,
                at: Timestamp(a.at_ms),
                stakes: wagers_from("acted.stakes", &a.stakes)?,
            },
            Kind::DiceShaken(d) => Event::DiceShaken {
                shake: small("dice_shaken.shake", d.shake)?,
                by: from_id("dice_shaken.by", &d.by)?,
                at: Timestamp(d.at_ms),
                rolled: small_list("dice_shaken.rolled", &d.rolled)?,
                faces: small_list("dice_shaken.faces", &d.faces)?
                    .try_into()
                    .map_err(|_| bad("dice_shaken.faces", "expected 5 faces"))?,
                held: small_list("dice_shaken.held", &d.held)?,
                last: d.last,
            },
            Kind::HandSet(h) => Event::HandSet {
                seat: seat_from("hand_set.seat", &h.seat)?,
                setting: Setting {
                    low: cards("hand_set.low", &h.low)?,
                    high: cards("hand_set.high", &h.high)?,
                },
                house_way_rule: h
                    .house_way_rule
                    .as_deref()
                    .map(|r| from_id("hand_set.house_way_rule", r))
                    .transpose()?,
            },
            Kind::Settled(s) => Event::Settled(settlement_from(s)?),
            Kind::Voided(v) => Event::Voided(void_from(v)?),
            Kind::HandCompleted(c) => Event::Completed(completion_from(c)?),
            Kind::SeedRevealed(s) => Event::SeedRevealed {
                seed: Seed::from_bytes(bytes32("seed_revealed.seed", &s.seed)?),
            },
            Kind::ConfigPublished(_)
            | Kind::KeyPublished(_)
            | Kind::KeyRotated(_)
            | Kind::OperationRecorded(_)
            | Kind::LogRecovered(_)
            | Kind::ProposalRecorded(_)
            | Kind::ProposalDecided(_)
            | Kind::AccessChanged(_)
            | Kind::InsecureTransport(_)
            | Kind::SoftwareAttested(_)
            | Kind::ReturnsStatement(_)
            | Kind::ReturnsAlert(_)
            | Kind::ReturnsInvestigated(_)
            | Kind::CertificationRecorded(_)
            | Kind::RoundOpened(_)
            | Kind::RoundBet(_)
            | Kind::RoundBettingClosed(_)
            | Kind::RoundDealt(_)
            | Kind::RoundRevealed(_)
            | Kind::RoundDecided(_)
            | Kind::RoundShaken(_)
            | Kind::RoundWindowClosed(_)
            | Kind::RoundDealerSet(_)
            | Kind::RoundDealerChanged(_)
            | Kind::RoundSettled(_)
            | Kind::RoundVoided(_)
            | Kind::RoundPlaceVoided(_)
            | Kind::RoundSeedRevealed(_)
            | Kind::RoundBeaconArrived(_)
            | Kind::RoundBeaconLate(_) => return Ok(None),
        },
    ))
}

/// The payload publishing a configuration: its canonical bytes and id.
pub fn config_to_payload(config: &pitboss_engine::config::GameConfig) -> proto::Payload {
    proto::Payload {
        kind: Some(Kind::ConfigPublished(proto::ConfigPublished {
            config_id: config.id().0.to_vec(),
            canonical_json: config.canonical_bytes(),
        })),
    }
}

/// The configuration a `ConfigPublished` payload carries, checked against its recorded id.
pub fn payload_to_config(
    payload: &proto::Payload,
) -> Result<Option<pitboss_engine::config::GameConfig>, CodecError> {
    let Some(Kind::ConfigPublished(published)) = &payload.kind else {
        return Ok(None);
    };
    let config = pitboss_engine::config::GameConfig::from_json(&published.canonical_json)
        .map_err(|e| bad("config_published.canonical_json", e.to_string()))?;
    let id = bytes32("config_published.config_id", &published.config_id)?;
    if config.id().0 != id || config.canonical_bytes() != published.canonical_json {
        return Err(bad(
            "config_published.config_id",
            "not the SHA-256 of the canonical bytes",
        ));
    }
    Ok(Some(config))
}

/// The protobuf `Game` value of an engine game: `GAME_` and its id in capitals. No allocation:
/// it is on every answer that names a game.
pub fn game_to(game: GameId) -> proto::Game {
    (1..)
        .map_while(|value| proto::Game::try_from(value).ok())
        .find(|value| game_from(*value) == Some(game))
        .unwrap_or(proto::Game::Unspecified)
}

/// The engine game of a protobuf `Game` value (`None` for `GAME_UNSPECIFIED`). No allocation: it
/// is on every request that names a game.
pub fn game_from(game: proto::Game) -> Option<GameId> {
    let name = game.as_str_name().strip_prefix("GAME_")?;
    GameId::ALL
        .into_iter()
        .find(|id| name.eq_ignore_ascii_case(id.id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_has_its_protobuf_value_and_back() {
        for game in GameId::ALL {
            let value = game_to(game);
            assert_ne!(value, proto::Game::Unspecified, "{game}");
            assert_eq!(game_from(value), Some(game));
        }
        assert_eq!(game_from(proto::Game::Unspecified), None);
        let values: Vec<i32> = (0..64)
            .filter(|v| proto::Game::try_from(*v).is_ok())
            .collect();
        assert_eq!(values.len(), GameId::ALL.len() + 1, "{values:?}");
    }

    #[test]
    fn configurations_round_trip_and_ids_are_checked() {
        for game in GameId::ALL {
            let config = pitboss_engine::config::GameConfig::default_for(game);
            let payload = config_to_payload(&config);
            assert_eq!(payload_to_config(&payload).unwrap(), Some(config));
            let mut forged = payload.clone();
            if let Some(Kind::ConfigPublished(p)) = &mut forged.kind {
                p.config_id[0] ^= 1;
            }
            assert_eq!(
                payload_to_config(&forged).unwrap_err().field,
                "config_published.config_id"
            );
        }
    }

    #[test]
    fn unknown_ids_are_named() {
        let payload = proto::Payload {
            kind: Some(Kind::CardsShown(proto::CardsShown {
                seat: "croupier".into(),
                positions: vec![1],
                cards: vec!["As".into()],
            })),
        };
        let err = payload_to_event(&payload).unwrap_err();
        assert_eq!(err.field, "cards_shown.seat");
        assert!(err.problem.contains("croupier"));
        let payload = proto::Payload {
            kind: Some(Kind::SeedRevealed(proto::SeedRevealed { seed: vec![1, 2] })),
        };
        assert_eq!(
            payload_to_event(&payload).unwrap_err().field,
            "seed_revealed.seed"
        );
        assert_eq!(
            payload_to_event(&proto::Payload { kind: None })
                .unwrap_err()
                .field,
            "payload"
        );
    }
}
