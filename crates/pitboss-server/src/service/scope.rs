//! What a handler checks of its caller beyond the role the transport checked (`auth.rs`): that the
//! hand, table or game it touches is within the principal's scopes, that a whole-log read is made
//! by a principal who reaches everything, and that a `recorded_by` the client writes is its own
//! id. Refusals are `PERMISSION_DENIED` with an `ErrorInfo` naming the principal, the field and
//! what it reached for; nothing is written.

use std::collections::HashMap;
use std::sync::Arc;

use tonic::{Code, Request, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::access::{Caller, Principal, Role};
use pitboss_engine::game::GameId;
use pitboss_engine::games::Hand;

/// The call's authenticated principal (the transport put it there; a call without one never
/// reaches a handler, so its absence is the server's fault).
pub fn caller<T>(request: &Request<T>) -> Result<Arc<Principal>, Status> {
    request
        .extensions()
        .get::<Caller>()
        .map(|c| c.0.clone())
        .ok_or_else(|| Status::internal("the call reached its handler without a principal"))
}

/// `PERMISSION_DENIED`, reason `OUT_OF_SCOPE`.
fn out_of_scope(principal: &Principal, field: &str, what: String) -> Status {
    Status::with_error_details(
        Code::PermissionDenied,
        format!("{field}: {what} is outside the scopes of {}", principal.id),
        ErrorDetails::with_error_info(
            "OUT_OF_SCOPE",
            "pitboss",
            HashMap::from([
                ("principal".to_string(), principal.id.clone()),
                ("field".to_string(), field.to_string()),
                ("reached".to_string(), what),
            ]),
        ),
    )
}

/// The table and game are within the principal's scopes.
pub fn reach(
    principal: &Principal,
    field: &str,
    table: &str,
    game: Option<GameId>,
) -> Result<(), Status> {
    if !principal.reaches_table(table) {
        return Err(out_of_scope(principal, field, format!("table `{table}`")));
    }
    match game {
        Some(game) if !principal.reaches_game(game) => Err(out_of_scope(
            principal,
            field,
            format!("game {}", game.id()),
        )),
        _ => Ok(()),
    }
}

/// The hand is within the principal's scopes (its table and game). A hand not yet opened has no
/// table: nobody reaches it but an unscoped principal.
pub fn reach_hand(principal: &Principal, field: &str, hand: &Hand) -> Result<(), Status> {
    match hand.opened() {
        Some(opened) => reach(principal, field, &opened.table, Some(opened.game)),
        None if principal.unscoped() => Ok(()),
        None => Err(out_of_scope(principal, field, "a hand".into())),
    }
}

/// The principal reaches `game` (a configuration's).
pub fn reach_game(principal: &Principal, field: &str, game: GameId) -> Result<(), Status> {
    if principal.reaches_game(game) {
        Ok(())
    } else {
        Err(out_of_scope(
            principal,
            field,
            format!("game {}", game.id()),
        ))
    }
}

/// The principal reaches every game (a table malfunction voids the hands of every game at the
/// table).
pub fn every_game(principal: &Principal, field: &str) -> Result<(), Status> {
    if principal.games.is_none() {
        Ok(())
    } else {
        Err(out_of_scope(
            principal,
            field,
            "every game at a table (a malfunction voids them all)".into(),
        ))
    }
}

/// The principal reaches every table and game (what reading or acting on the whole log needs).
pub fn whole_log(principal: &Principal, method: &str) -> Result<(), Status> {
    if principal.unscoped() {
        Ok(())
    } else {
        Err(out_of_scope(
            principal,
            "scope",
            format!("{method} (the whole log: it needs a principal without table or game scopes)"),
        ))
    }
}

/// The principal holds `role` (what a proposal's approval needs beyond the method's roles).
pub fn role(principal: &Principal, role: Role, why: &str) -> Result<(), Status> {
    if principal.has(role) {
        return Ok(());
    }
    Err(Status::with_error_details(
        Code::PermissionDenied,
        format!(
            "{} may not {why}: it needs the role {}",
            principal.id,
            role.id()
        ),
        ErrorDetails::with_error_info(
            "ROLE_REQUIRED",
            "pitboss",
            HashMap::from([
                ("principal".to_string(), principal.id.clone()),
                ("roles".to_string(), role.id().to_string()),
            ]),
        ),
    ))
}

/// A `recorded_by` the client wrote: empty, or the principal's own id (who records is who is
/// authenticated; the field stays for clients written before principals).
pub fn recorded_by(principal: &Principal, field: &str, given: &str) -> Result<(), Status> {
    if given.is_empty() || given == principal.id {
        return Ok(());
    }
    Err(super::status::invalid_argument(
        field,
        format!(
            "the server records the authenticated principal `{}`; leave it empty or write that",
            principal.id
        ),
    ))
}
