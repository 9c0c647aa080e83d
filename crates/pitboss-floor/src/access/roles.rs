//! The roles and what each RPC needs: the one table the server enforces and `docs/security.md`
//! shows (a test holds the two to each other and to the running server).
//!
//! This module names methods by their generated constants (`pitboss_proto::methods`, so a method
//! misspelt does not compile) and roles by their ids; it does not see requests
//! or principals' scopes (the handlers check scopes, since only they know a hand's table).

use serde::{Deserialize, Serialize};

/// What a principal may be trusted with. A principal holds one or more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Plays hands on its tables (Play).
    GameClient,
    /// Corrects: voids, table malfunctions, the incomplete-game sweep, conduct forfeits; reads the
    /// hands of its tables to resolve disputes.
    Supervisor,
    /// Proposes and approves configurations.
    ConfigAdmin,
    /// Reads everything (all of Audit), changes nothing.
    Regulator,
    /// Tests: the Lab service, DeriveDeal, and Play on its (lab) tables.
    Lab,
    /// The service's own keys and credentials: rotates the signing key, reloads the access file.
    KeyAdmin,
}

impl Role {
    /// Every role, in the order of `docs/security.md`'s matrix.
    pub const ALL: [Role; 6] = [
        Role::GameClient,
        Role::Supervisor,
        Role::ConfigAdmin,
        Role::Regulator,
        Role::Lab,
        Role::KeyAdmin,
    ];

    /// The role's id, as the access file writes it.
    pub fn id(self) -> &'static str {
        match self {
            Role::GameClient => "game_client",
            Role::Supervisor => "supervisor",
            Role::ConfigAdmin => "config_admin",
            Role::Regulator => "regulator",
            Role::Lab => "lab",
            Role::KeyAdmin => "key_admin",
        }
    }
}

/// What a call needs before its handler runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// Nothing: health checks, for load balancers.
    Open,
    /// Any authenticated principal (reflection, and methods not in the table, which then answer
    /// `UNIMPLEMENTED`).
    Authenticated,
    /// A principal with one of these roles.
    AnyOf(&'static [Role]),
}

use pitboss_proto::methods::{audit, lab, operations, play};
use Role::{ConfigAdmin, GameClient, KeyAdmin, Lab, Regulator, Supervisor};

/// Every pitboss RPC and the roles that may call it. Scopes (tables, games) narrow what a role
/// reaches further: see `docs/security.md`.
pub const METHODS: &[(&str, &[Role])] = &[
    (play::OPEN_HAND, &[GameClient, Lab]),
    (play::ACT, &[GameClient, Lab]),
    (play::PLAY_HAND, &[GameClient, Lab]),
    (play::GET_HAND, &[GameClient, Lab, Supervisor, Regulator]),
    (play::OPEN_ROUND, &[GameClient, Lab]),
    (play::ROUND_COMMAND, &[GameClient, Lab]),
    (play::GET_ROUND, &[GameClient, Lab, Supervisor, Regulator]),
    (audit::DERIVE_DEAL, &[Lab, Regulator]),
    (audit::REPLAY_HAND, &[Supervisor, Regulator]),
    (audit::REPLAY_ROUND, &[Supervisor, Regulator]),
    (audit::VERIFY_LOG, &[Regulator]),
    (audit::GET_HAND_EVENTS, &[Supervisor, Regulator]),
    (audit::LIST_HANDS, &[GameClient, Supervisor, Regulator]),
    (audit::LIST_ROUNDS, &[Supervisor, Regulator]),
    (audit::STREAM_EVENTS, &[Regulator]),
    (audit::GET_CHECKPOINT, &[Regulator]),
    (audit::GET_INCLUSION_PROOF, &[Regulator]),
    (audit::GET_TLOG_PROOFS, &[Regulator, Supervisor, Lab]),
    (audit::GET_CONSISTENCY_PROOF, &[Regulator]),
    (audit::GET_HAND_BUNDLE, &[Supervisor, Regulator]),
    (audit::GET_DISPUTE_PACKET, &[Supervisor, Regulator]),
    (audit::GET_ROUND_BUNDLE, &[Supervisor, Regulator]),
    (audit::GET_ROUND_DISPUTE_PACKET, &[Supervisor, Regulator]),
    (audit::EXPORT_HANDS, &[Regulator]),
    (audit::GET_RETURNS, &[Supervisor, Regulator]),
    (audit::LIST_SIGNIFICANT_EVENTS, &[Supervisor, Regulator]),
    (operations::PUBLISH_CONFIG, &[ConfigAdmin]),
    (
        operations::LIST_CONFIGS,
        &[GameClient, Supervisor, ConfigAdmin, Regulator, Lab],
    ),
    (operations::VOID_HAND, &[Supervisor]),
    (operations::RECORD_TABLE_MALFUNCTION, &[Supervisor]),
    (operations::RUN_SWEEP, &[Supervisor]),
    (operations::APPROVE_PROPOSAL, &[Supervisor, ConfigAdmin]),
    (operations::REJECT_PROPOSAL, &[Supervisor, ConfigAdmin]),
    (
        operations::LIST_PROPOSALS,
        &[Supervisor, ConfigAdmin, Regulator],
    ),
    (operations::RELOAD_ACCESS, &[KeyAdmin]),
    (operations::RECORD_INVESTIGATION, &[Supervisor]),
    (operations::AUTHENTICATE_SOFTWARE, &[Regulator, Lab]),
    (operations::ROTATE_SIGNING_KEY, &[KeyAdmin]),
    (operations::VOID_ROUND, &[Supervisor]),
    (lab::GET_PAR_SHEETS, &[Lab, Regulator]),
    (lab::SIMULATE, &[Lab]),
    (lab::TEST_RNG, &[Lab]),
    (lab::TEST_RNG_STREAM, &[Lab]),
    (lab::CERTIFY, &[Lab]),
    (lab::STREAM_RNG_WORDS, &[Lab]),
    (lab::STREAM_SHUFFLES, &[Lab]),
    (lab::CHECK_TRANSCRIPTS, &[Lab, Regulator]),
];

/// The RPCs that may append to the log. A read-only server (`serve --read-only`, on a replica)
/// refuses them before their handler runs, whatever their request: `FAILED_PRECONDITION`
/// (`READ_ONLY`). Reloading the access file is not among them: a read-only server has an access
/// file of its own (its changes are not recorded: there is no log to write them to).
pub const LOG_WRITERS: &[&str] = &[
    play::OPEN_HAND,
    play::ACT,
    play::PLAY_HAND,
    play::OPEN_ROUND,
    play::ROUND_COMMAND,
    operations::PUBLISH_CONFIG,
    operations::VOID_HAND,
    operations::RECORD_TABLE_MALFUNCTION,
    operations::RUN_SWEEP,
    operations::APPROVE_PROPOSAL,
    operations::REJECT_PROPOSAL,
    operations::ROTATE_SIGNING_KEY,
    operations::RECORD_INVESTIGATION,
    operations::VOID_ROUND,
];

/// Whether a call to `path` may append to the log ([`LOG_WRITERS`]).
pub fn writes_log(path: &str) -> bool {
    LOG_WRITERS.contains(&path)
}

/// What a call to `path` needs.
pub fn need(path: &str) -> Need {
    if path.starts_with("/grpc.health.v1.Health/") {
        return Need::Open;
    }
    METHODS
        .iter()
        .find(|(method, _)| *method == path)
        .map_or(Need::Authenticated, |(_, roles)| Need::AnyOf(roles))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_one_row_for_every_method_of_the_descriptor() {
        for method in pitboss_proto::methods::ALL {
            let rows = METHODS.iter().filter(|(m, _)| m == method).count();
            assert_eq!(rows, 1, "{method}");
        }
        assert_eq!(METHODS.len(), pitboss_proto::methods::ALL.len());
    }

    #[test]
    fn every_rpc_that_writes_the_log_is_a_method_of_the_table() {
        for path in LOG_WRITERS {
            assert!(METHODS.iter().any(|(method, _)| method == path), "{path}");
            assert!(writes_log(path));
        }
        for read in [
            "/pitboss.v1.Play/GetHand",
            "/pitboss.v1.Operations/ReloadAccess",
        ] {
            assert!(!writes_log(read), "{read}");
        }
    }
}
