//! Conversions between protobuf messages and engine types; a message that does not convert is
//! refused by `status.rs`'s `INVALID_ARGUMENT` naming the offending field.

use tonic::Status;

use super::status::invalid_argument;

use crate::codec;
use crate::proto;
use pitboss_engine::deal::Deal;
use pitboss_engine::game::GameId;
use pitboss_engine::rng::Seed;

/// The engine's game id for a protobuf `Game`.
pub fn game(field: &str, value: i32) -> Result<GameId, Status> {
    match proto::Game::try_from(value).map(codec::game_from) {
        Ok(Some(game)) => Ok(game),
        Ok(None) => Err(invalid_argument(
            field,
            format!(
                "the game is required: {}",
                GameId::listed(|game| codec::game_to(game).as_str_name())
            ),
        )),
        Err(_) => Err(invalid_argument(
            field,
            format!("{value} is not a known Game value"),
        )),
    }
}

/// A 32-byte seed.
pub fn seed(field: &str, bytes: &[u8]) -> Result<Seed, Status> {
    Seed::from_slice(bytes).map_err(|err| invalid_argument(field, err.to_string()))
}

/// The protobuf form of a derived deal.
pub fn deal_to_proto(deal: &Deal) -> proto::DeriveDealResponse {
    proto::DeriveDealResponse {
        commitment: deal.commitment.to_string(),
        deck: deal.deck.iter().map(ToString::to_string).collect(),
        dice: deal.dice.iter().map(|d| u32::from(d.value())).collect(),
        seats: deal
            .seats
            .iter()
            .map(|seat| proto::Seat {
                name: seat.seat.id().to_string(),
                cards: seat.cards.iter().map(ToString::to_string).collect(),
                deck_positions: seat.positions.iter().map(|&p| p as u32).collect(),
                number: seat.number.map_or(0, u32::from),
            })
            .collect(),
    }
}

/// The protobuf `Game` of an engine game.
pub fn game_to_proto(game: GameId) -> i32 {
    codec::game_to(game) as i32
}

/// The protobuf form of a currency.
pub fn currency_to_proto(currency: &pitboss_engine::config::Currency) -> proto::Currency {
    proto::Currency {
        code: currency.code.clone(),
        minor_digits: u32::from(currency.minor_digits),
    }
}

/// An optional string: empty means absent.
pub fn optional(text: &str) -> Option<String> {
    (!text.is_empty()).then(|| text.to_string())
}

/// A configuration id in hex.
pub fn config_id(field: &str, text: &str) -> Result<pitboss_engine::config::ConfigId, Status> {
    let mut bytes = [0u8; 32];
    hex::decode_to_slice(text, &mut bytes)
        .map_err(|_| invalid_argument(field, "a configuration id is 64 hexadecimal digits"))?;
    Ok(pitboss_engine::config::ConfigId(bytes))
}

/// A significant event as `ListSignificantEvents` answers it.
pub fn significant_to_proto(
    event: crate::audit::significant::Significant,
) -> proto::SignificantEvent {
    proto::SignificantEvent {
        sequence: event.sequence,
        at_ms: event.at_ms,
        kind: event.kind,
        actors: event.actors,
        subject: event.subject,
        before: event.before,
        after: event.after,
        reason: event.reason,
        detail: event.detail,
    }
}

/// A configuration as `ListConfigs` shows it, with its latest certification.
pub fn config_summary(listed: crate::floor::Listed) -> proto::ConfigSummary {
    let crate::floor::Listed {
        id,
        config,
        certification,
    } = listed;
    proto::ConfigSummary {
        config_id: id.to_string(),
        game: game_to_proto(config.game),
        name: config.name.clone(),
        version: config.version,
        canonical_json: String::from_utf8_lossy(&config.canonical_bytes()).into_owned(),
        certification: certification.map(|c| proto::CertificationStatus {
            sequence: c.sequence,
            holds: c.report.holds,
            report_sha256: hex::encode(&c.report.report_sha256),
            recorded_at_ms: c.recorded_at_ms,
            recorded_by: c.recorded_by,
            hands: c.report.hands,
            reports: c.reports,
        }),
    }
}

/// The protobuf view of a hand.
pub fn hand_view(id: &str, hand: &pitboss_engine::games::Hand) -> proto::HandView {
    use crate::codec;
    let view = pitboss_engine::games::view::player_view(hand);
    let opened = hand.opened();
    proto::HandView {
        hand_id: id.to_string(),
        game: game_to_proto(hand.game()),
        status: codec::id_of(&hand.status()),
        version: hand.version(),
        config_id: hand.config_id().to_string(),
        table: opened.map(|o| o.table.clone()).unwrap_or_default(),
        player: opened.map(|o| o.player.clone()).unwrap_or_default(),
        opened_at_ms: opened.map_or(0, |o| o.at.0),
        commitment: view.commitment.map(|c| c.to_string()).unwrap_or_default(),
        stakes: codec::wagers_to(&view.stakes),
        seats: view
            .seats
            .iter()
            .map(|s| proto::SeatView {
                seat: s.seat.id().to_string(),
                cards: s
                    .cards
                    .iter()
                    .map(|c| c.map(|c| c.to_string()).unwrap_or_default())
                    .collect(),
            })
            .collect(),
        dice: view.dice.map(|d| proto::DiceView {
            faces: d.faces.iter().map(|&f| u32::from(f)).collect(),
            held: d.held.iter().map(|&p| u32::from(p)).collect(),
            shakes: u32::from(d.shakes),
        }),
        legal_actions: view.legal.iter().map(codec::action_to).collect(),
        suggested_low: view
            .suggested_low
            .map(|l| l.iter().map(ToString::to_string).collect())
            .unwrap_or_default(),
        settlement: view.settlement.as_ref().map(codec::settlement_to),
        void: view.void.as_ref().map(codec::void_to),
        seed: view.seed.map(|s| s.to_hex()).unwrap_or_default(),
        // Filled by the Play service, which holds the strategies.
        advice: None,
        currency: Some(currency_to_proto(&hand.config().currency)),
        completion: hand.completion().map(codec::completion_to),
        advice_unavailable: String::new(),
    }
}

/// One event as a replay checked it.
pub fn event_check_to(e: crate::audit::EventCheck) -> proto::EventCheck {
    proto::EventCheck {
        sequence: e.sequence,
        stream_position: e.stream_position,
        kind: e.kind,
        chain_ok: e.chain_ok,
        signature_ok: e.signature_ok,
        rederived: e.rederived,
        note: e.note,
        actor: e.actor,
    }
}

/// Where a replay found the record and the rules disagree.
pub fn mismatch_to(m: crate::audit::Mismatch) -> proto::Mismatch {
    proto::Mismatch {
        sequence: m.sequence,
        event: m.event,
        field: m.field,
        recorded: m.recorded,
        rederived: m.rederived,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_converts_both_ways_and_a_missing_one_names_every_value() {
        for id in GameId::ALL {
            assert_eq!(game("game", game_to_proto(id)).unwrap(), id);
        }
        let missing = game("open.game", 0).unwrap_err();
        assert_eq!(missing.code(), tonic::Code::InvalidArgument);
        assert!(
            missing.message().ends_with(
                "the game is required: GAME_MISSISSIPPI_STUD, GAME_FORTUNE_PAI_GOW, GAME_NUTZ or GAME_CARIBBEAN_STUD"
            ),
            "{}",
            missing.message()
        );
        let unknown = game("game", 99).unwrap_err();
        assert!(unknown.message().ends_with("99 is not a known Game value"));
    }
}
