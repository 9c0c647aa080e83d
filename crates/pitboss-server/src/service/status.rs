//! Errors as gRPC statuses, in one place: every `Status` the service answers with a reason is
//! built here — the field violations (`INVALID_ARGUMENT`, `OUT_OF_RANGE`), the floor's and the
//! ledger's errors by their kind, the engine's refusals by theirs, the preconditions (`READ_ONLY`,
//! `ADVICE_UNAVAILABLE`, `KEY_CHANGED`, …). Owns no translation of values (`convert.rs` does) and
//! no limit (`limits/` does); imports neither, so neither imports the other through it.

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use pitboss_engine::games::{RefusalKind, RuleError};
use pitboss_engine::FieldPath;

/// A status of `code` whose details carry one field violation (`BadRequest`).
fn field_violation(code: Code, field: &str, description: impl Into<String>) -> Status {
    let description = description.into();
    Status::with_error_details(
        code,
        format!("{field}: {description}"),
        ErrorDetails::with_bad_request_violation(field, description),
    )
}

/// An `INVALID_ARGUMENT` status whose details carry one field violation.
pub fn invalid_argument(field: &str, description: impl Into<String>) -> Status {
    field_violation(Code::InvalidArgument, field, description)
}

/// An `OUT_OF_RANGE` status whose details carry one field violation: a position beyond the log.
pub fn out_of_range(field: &str, description: impl Into<String>) -> Status {
    field_violation(Code::OutOfRange, field, description)
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
        F::Round(round) => round_status(&round, None, message),
        F::RoundBatch { index, source } => {
            let message = source.to_string();
            round_status(
                &source,
                Some(FieldPath::dotted("batch.commands").index(index)),
                message,
            )
        }
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
            LedgerKind::KeyMismatch => key_precondition("KEY_MISMATCH", message),
            LedgerKind::NoSigningKey => key_precondition("NO_SIGNING_KEY", message),
            // A read-only server (`serve --read-only`) was asked to write.
            LedgerKind::ReadOnly => read_only(message),
            LedgerKind::OutOfRange { field } => out_of_range(field, message),
            // Every field within its limit can still make an entry too long in sum.
            LedgerKind::TooLarge => invalid_argument("request", message),
            LedgerKind::Corrupt | LedgerKind::Internal => Status::internal(message),
        },
        F::Randomness(_) => Status::unavailable(message),
        F::Corrupt(..) => Status::data_loss(message),
        F::NoSigningKey => key_precondition("NO_SIGNING_KEY", message),
        F::KeyChanged { in_use, .. } => Status::with_error_details(
            Code::FailedPrecondition,
            message,
            ErrorDetails::with_precondition_failure_violation(
                "KEY_CHANGED",
                "expected_key_id",
                format!("the key in use is {in_use}"),
            ),
        ),
        F::Investigated { alert_id } => Status::with_error_details(
            Code::FailedPrecondition,
            message.clone(),
            ErrorDetails::with_precondition_failure_violation(
                "ALERT_INVESTIGATED",
                alert_id,
                message,
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
        F::NotCertified { .. } => Status::with_error_details(
            Code::FailedPrecondition,
            message.clone(),
            ErrorDetails::with_precondition_failure_violation(
                "CONFIGURATION_NOT_CERTIFIED",
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
        F::Round(round) => {
            let message = round.to_string();
            round_status(&round, Some(FieldPath::dotted(place)), message)
        }
        other => status(other),
    }
}

/// A refused rule as a status: an invalid argument names the field the rule says it is about
/// ([`RuleError::field`]), under `place` when the rule was about a nested message or one decision
/// of a batch (`open.wagers.ante`, `decisions[2].action`); a refusal of the hand's state is a
/// `PreconditionFailure` of its type ([`RuleError::precondition`]) about the place, or the hand.
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
                ErrorDetails::with_precondition_failure_violation(
                    rule.precondition().unwrap_or("RULE"),
                    subject,
                    message,
                ),
            )
        }
        RefusalKind::Internal => Status::internal(message),
    }
}

/// A round's refusal of a command whose fields sit under `place` in the request (`bet`,
/// `batch.commands[3].decide`).
pub fn round_status_in(round: pitboss_engine::round::RoundError, place: &str) -> Status {
    let message = round.to_string();
    round_status(&round, Some(FieldPath::new(place.to_string())), message)
}

/// The status of a round's refusal: a field violation (under `place`, the command's name in the
/// request, when there is one), a named precondition (about the field, or the round), or the
/// place's hand's own refusal.
fn round_status(
    round: &pitboss_engine::round::RoundError,
    place: Option<FieldPath>,
    message: String,
) -> Status {
    use pitboss_engine::round::RoundError as E;
    if let E::Hand(rule) = round {
        return rule_status(rule, place, message);
    }
    let engine_field = round.field().map(|f| f.to_string());
    let description = engine_field
        .as_deref()
        .and_then(|f| message.strip_prefix(f))
        .and_then(|rest| rest.strip_prefix(": "))
        .unwrap_or(&message)
        .to_string();
    // The engine's command names a few fields the request does not have: the request's seats, and
    // times and approvals the server supplies.
    let own = match engine_field.as_deref() {
        Some("shape.seats") => Some(FieldPath::new("seats")),
        Some("at" | "order.at" | "order.approved_by") | None => None,
        Some(_) => round.field(),
    };
    let field = match (own, place) {
        (Some(field), Some(place)) => Some(field.prefixed(place)),
        (Some(field), None) => Some(field),
        (None, place) => place,
    }
    .map(|f| f.to_string());
    match round.kind() {
        RefusalKind::InvalidArgument => {
            invalid_argument(field.as_deref().unwrap_or("request"), description)
        }
        RefusalKind::FailedPrecondition => Status::with_error_details(
            Code::FailedPrecondition,
            message.clone(),
            ErrorDetails::with_precondition_failure_violation(
                round.precondition().unwrap_or("ROUND"),
                field.unwrap_or_else(|| "round".to_string()),
                message,
            ),
        ),
        RefusalKind::Internal => Status::internal(message),
    }
}

/// `FAILED_PRECONDITION` of `kind` about this server's key file (`signing.key`): it holds none
/// (`NO_SIGNING_KEY`), or not the log's (`KEY_MISMATCH`).
fn key_precondition(kind: &str, message: String) -> Status {
    Status::with_error_details(
        Code::FailedPrecondition,
        message.clone(),
        ErrorDetails::with_precondition_failure_violation(kind, "signing.key", message),
    )
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
pub(crate) fn advice_unavailable(field: &str, why: &impl std::fmt::Display) -> Status {
    let message = why.to_string();
    Status::with_error_details(
        Code::FailedPrecondition,
        message.clone(),
        ErrorDetails::with_precondition_failure_violation("ADVICE_UNAVAILABLE", field, message),
    )
}
