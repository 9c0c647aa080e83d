//! Conversions between protobuf messages and engine types, and the `INVALID_ARGUMENT` errors that
//! name the offending field when a message does not convert.

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::proto;
use pitboss_engine::deal::Deal;
use pitboss_engine::game::GameId;
use pitboss_engine::games::{RefusalKind, RuleError};
use pitboss_engine::rng::Seed;
use pitboss_engine::FieldPath;

/// An `INVALID_ARGUMENT` status whose details carry one field violation.
pub fn invalid_argument(field: &str, description: impl Into<String>) -> Status {
    let description = description.into();
    Status::with_error_details(
        Code::InvalidArgument,
        format!("{field}: {description}"),
        ErrorDetails::with_bad_request_violation(field, description),
    )
}

/// The engine's game id for a protobuf `Game`.
pub fn game(field: &str, value: i32) -> Result<GameId, Status> {
    match proto::Game::try_from(value) {
        Ok(proto::Game::MississippiStud) => Ok(GameId::MississippiStud),
        Ok(proto::Game::FortunePaiGow) => Ok(GameId::FortunePaiGow),
        Ok(proto::Game::Nutz) => Ok(GameId::Nutz),
        Ok(proto::Game::CaribbeanStud) => Ok(GameId::CaribbeanStud),
        Ok(proto::Game::Unspecified) => Err(invalid_argument(
            field,
            "the game is required: GAME_MISSISSIPPI_STUD, GAME_FORTUNE_PAI_GOW, GAME_NUTZ or GAME_CARIBBEAN_STUD",
        )),
        Err(_) => Err(invalid_argument(field, format!("{value} is not a known Game value"))),
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
            })
            .collect(),
    }
}

/// The protobuf `Game` of an engine game.
pub fn game_to_proto(game: GameId) -> i32 {
    (match game {
        GameId::MississippiStud => proto::Game::MississippiStud,
        GameId::FortunePaiGow => proto::Game::FortunePaiGow,
        GameId::Nutz => proto::Game::Nutz,
        GameId::CaribbeanStud => proto::Game::CaribbeanStud,
    }) as i32
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

/// The status of a floor error: the code, the message naming the problem, and google.rpc details.
pub fn status(err: crate::floor::FloorError) -> Status {
    use crate::floor::FloorError as F;
    use pitboss_ledger::ErrorKind as LedgerKind;
    let message = err.to_string();
    match err {
        F::NotFound { what, id } => Status::with_error_details(
            Code::NotFound,
            message.clone(),
            ErrorDetails::with_resource_info(what, id, "", message),
        ),
        F::Invalid { field, problem } | F::Script { field, problem } => {
            invalid_argument(&field, problem)
        }
        F::Rule(rule) => rule_status(&rule, None, message),
        F::Decision { index, source } => rule_status(
            &source,
            Some(FieldPath::new("decisions").index(index)),
            message,
        ),
        F::Conflict {
            hand,
            expected,
            actual,
        } => Status::with_error_details(
            Code::Aborted,
            message,
            ErrorDetails::with_error_info(
                "VERSION_CONFLICT",
                "pitboss",
                std::collections::HashMap::from([
                    ("hand_id".to_string(), hand),
                    ("expected_version".to_string(), expected.to_string()),
                    ("actual_version".to_string(), actual.to_string()),
                ]),
            ),
        ),
        F::RequestReused { .. } => invalid_argument("request_id", message),
        F::Ledger(e) => match e.kind() {
            // The database did not answer, the call's commit may not have happened (a failover),
            // or the writer stopped: retry with the same request id, which returns the first
            // answer if it did.
            LedgerKind::Unavailable => Status::unavailable(message),
            LedgerKind::Conflict => Status::aborted(message),
            // This server's signing key is not the log's (rotated by another server), or a
            // read-only server holds none.
            LedgerKind::KeyMismatch => Status::failed_precondition(message),
            // A read-only server (`serve --read-only`) was asked to write.
            LedgerKind::ReadOnly => read_only(message),
            LedgerKind::OutOfRange { field } => super::limits::out_of_range(field, message),
            LedgerKind::Corrupt | LedgerKind::Internal => Status::internal(message),
        },
        F::Randomness(_) => Status::unavailable(message),
        F::Corrupt(..) => Status::data_loss(message),
        F::NoSigningKey => Status::failed_precondition(message),
        F::KeyChanged { in_use, .. } => Status::with_error_details(
            Code::FailedPrecondition,
            message,
            ErrorDetails::with_precondition_failure_violation(
                "KEY_CHANGED",
                "expected_key_id",
                format!("the key in use is {in_use}"),
            ),
        ),
        F::SecondPersonRequired { hand } => Status::with_error_details(
            Code::FailedPrecondition,
            message.clone(),
            ErrorDetails::with_precondition_failure_violation(
                "SECOND_PERSON_REQUIRED",
                hand,
                message,
            ),
        ),
        F::Proposal { id, problem } => {
            let (code, kind) = match problem {
                crate::floor::ProposalProblem::OwnProposal => {
                    (Code::PermissionDenied, "OWN_PROPOSAL")
                }
                crate::floor::ProposalProblem::Decided { .. } => {
                    (Code::FailedPrecondition, "PROPOSAL_DECIDED")
                }
                crate::floor::ProposalProblem::Expired { .. } => {
                    (Code::FailedPrecondition, "PROPOSAL_EXPIRED")
                }
            };
            Status::with_error_details(
                code,
                message,
                ErrorDetails::with_error_info(
                    kind,
                    "pitboss",
                    std::collections::HashMap::from([("proposal_id".to_string(), id)]),
                ),
            )
        }
        F::ConfigNotPlayable { .. } => Status::with_error_details(
            Code::FailedPrecondition,
            message.clone(),
            ErrorDetails::with_precondition_failure_violation(
                "CONFIGURATION_NOT_PLAYABLE",
                "config_id",
                message,
            ),
        ),
    }
}

/// [`status`] for an error about a nested message: fields are named under `place`
/// (`open.table`, `open.wagers.ante`), as clients wrote them.
pub fn status_in(err: crate::floor::FloorError, place: &'static str) -> Status {
    use crate::floor::FloorError as F;
    match err {
        F::Invalid { field, problem } => invalid_argument(&format!("{place}.{field}"), problem),
        F::RequestReused { .. } => {
            let message = err.to_string();
            invalid_argument(&format!("{place}.request_id"), message)
        }
        F::Rule(rule) => {
            let message = rule.to_string();
            rule_status(&rule, Some(FieldPath::dotted(place)), message)
        }
        other => status(other),
    }
}

/// A refused rule as a status: an invalid argument names the field the rule says it is about
/// ([`RuleError::field`]), under `place` when the rule was about a nested message or one decision
/// of a batch (`open.wagers.ante`, `decisions[2].action`); a refusal of the hand's state names the
/// place, or the hand.
fn rule_status(rule: &RuleError, place: Option<FieldPath>, message: String) -> Status {
    match rule.kind() {
        RefusalKind::InvalidArgument => {
            let field = match (rule.field(), place) {
                (Some(field), Some(place)) => field.prefixed(place),
                (Some(field), None) => field,
                (None, Some(place)) => place,
                (None, None) => FieldPath::new("request"),
            };
            invalid_argument(&field.to_string(), rule.description())
        }
        RefusalKind::FailedPrecondition => {
            let subject = place.map_or_else(|| "hand".to_string(), |p| p.to_string());
            Status::with_error_details(
                Code::FailedPrecondition,
                message.clone(),
                ErrorDetails::with_precondition_failure_violation("RULE", subject, message),
            )
        }
        RefusalKind::Internal => Status::internal(message),
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

/// `FAILED_PRECONDITION` (`READ_ONLY`): a read-only server was asked to write (`message` says
/// what).
pub(crate) fn read_only(message: String) -> Status {
    Status::with_error_details(
        Code::FailedPrecondition,
        message.clone(),
        ErrorDetails::with_precondition_failure_violation("READ_ONLY", "server", message),
    )
}

/// `FAILED_PRECONDITION` (`ADVICE_UNAVAILABLE`) naming `field`: the strategy's advice, which the
/// request asked to follow, cannot be had (nothing was written).
pub(crate) fn advice_unavailable(field: &str, why: &super::advice::Unavailable) -> Status {
    let message = why.to_string();
    Status::with_error_details(
        Code::FailedPrecondition,
        message.clone(),
        ErrorDetails::with_precondition_failure_violation("ADVICE_UNAVAILABLE", field, message),
    )
}
