//! The roles and what each RPC needs: the one table the server enforces and `docs/security.md`
//! shows (a test holds the two to each other and to the running server).
//!
//! This module names methods by their gRPC paths and roles by their ids; it does not see requests
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

use Role::{ConfigAdmin, GameClient, KeyAdmin, Lab, Regulator, Supervisor};

/// Every pitboss RPC and the roles that may call it. Scopes (tables, games) narrow what a role
/// reaches further: see `docs/security.md`.
pub const METHODS: &[(&str, &[Role])] = &[
    ("/pitboss.v1.Play/OpenHand", &[GameClient, Lab]),
    ("/pitboss.v1.Play/Act", &[GameClient, Lab]),
    ("/pitboss.v1.Play/PlayHand", &[GameClient, Lab]),
    (
        "/pitboss.v1.Play/GetHand",
        &[GameClient, Lab, Supervisor, Regulator],
    ),
    ("/pitboss.v1.Audit/DeriveDeal", &[Lab, Regulator]),
    ("/pitboss.v1.Audit/ReplayHand", &[Supervisor, Regulator]),
    ("/pitboss.v1.Audit/VerifyLog", &[Regulator]),
    ("/pitboss.v1.Audit/GetHandEvents", &[Supervisor, Regulator]),
    (
        "/pitboss.v1.Audit/ListHands",
        &[GameClient, Supervisor, Regulator],
    ),
    ("/pitboss.v1.Audit/StreamEvents", &[Regulator]),
    ("/pitboss.v1.Audit/GetCheckpoint", &[Regulator]),
    ("/pitboss.v1.Audit/GetInclusionProof", &[Regulator]),
    ("/pitboss.v1.Audit/GetConsistencyProof", &[Regulator]),
    ("/pitboss.v1.Audit/GetHandBundle", &[Supervisor, Regulator]),
    (
        "/pitboss.v1.Audit/GetDisputePacket",
        &[Supervisor, Regulator],
    ),
    ("/pitboss.v1.Audit/ExportHands", &[Regulator]),
    ("/pitboss.v1.Audit/GetReturns", &[Supervisor, Regulator]),
    (
        "/pitboss.v1.Audit/ListSignificantEvents",
        &[Supervisor, Regulator],
    ),
    ("/pitboss.v1.Operations/PublishConfig", &[ConfigAdmin]),
    (
        "/pitboss.v1.Operations/ListConfigs",
        &[GameClient, Supervisor, ConfigAdmin, Regulator, Lab],
    ),
    ("/pitboss.v1.Operations/VoidHand", &[Supervisor]),
    (
        "/pitboss.v1.Operations/RecordTableMalfunction",
        &[Supervisor],
    ),
    ("/pitboss.v1.Operations/RunSweep", &[Supervisor]),
    (
        "/pitboss.v1.Operations/ApproveProposal",
        &[Supervisor, ConfigAdmin],
    ),
    (
        "/pitboss.v1.Operations/RejectProposal",
        &[Supervisor, ConfigAdmin],
    ),
    (
        "/pitboss.v1.Operations/ListProposals",
        &[Supervisor, ConfigAdmin, Regulator],
    ),
    ("/pitboss.v1.Operations/ReloadAccess", &[KeyAdmin]),
    ("/pitboss.v1.Operations/RecordInvestigation", &[Supervisor]),
    (
        "/pitboss.v1.Operations/AuthenticateSoftware",
        &[Regulator, Lab],
    ),
    ("/pitboss.v1.Operations/RotateSigningKey", &[KeyAdmin]),
    ("/pitboss.v1.Lab/GetParSheets", &[Lab, Regulator]),
    ("/pitboss.v1.Lab/Simulate", &[Lab]),
    ("/pitboss.v1.Lab/TestRng", &[Lab]),
    ("/pitboss.v1.Lab/Certify", &[Lab]),
    ("/pitboss.v1.Lab/StreamRngWords", &[Lab]),
    ("/pitboss.v1.Lab/StreamShuffles", &[Lab]),
    ("/pitboss.v1.Lab/CheckTranscripts", &[Lab, Regulator]),
];

/// The RPCs that may append to the log. A read-only server (`serve --read-only`, on a replica)
/// refuses them before their handler runs, whatever their request: `FAILED_PRECONDITION`
/// (`READ_ONLY`). Reloading the access file is not among them: a read-only server has an access
/// file of its own (its changes are not recorded: there is no log to write them to).
pub const LOG_WRITERS: &[&str] = &[
    "/pitboss.v1.Play/OpenHand",
    "/pitboss.v1.Play/Act",
    "/pitboss.v1.Play/PlayHand",
    "/pitboss.v1.Operations/PublishConfig",
    "/pitboss.v1.Operations/VoidHand",
    "/pitboss.v1.Operations/RecordTableMalfunction",
    "/pitboss.v1.Operations/RunSweep",
    "/pitboss.v1.Operations/ApproveProposal",
    "/pitboss.v1.Operations/RejectProposal",
    "/pitboss.v1.Operations/RotateSigningKey",
    "/pitboss.v1.Operations/RecordInvestigation",
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
