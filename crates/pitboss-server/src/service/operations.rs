//! The `pitboss.v1.Operations` service: configurations, the void rules and the two-person rule's
//! proposals, for operators. Every request is held to its limits (`limits/`) before anything
//! else; the caller's scopes and the right role for a proposal are checked here (`scope.rs`), and
//! every event written names the caller as its actor.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use super::convert::{self, hand_view, optional};
use super::limits::Bounded;
use super::scope;
use super::status::{invalid_argument, status};
use crate::access::{Access, Principal, Role};
use crate::codec;
use crate::floor::{Attribution, Done, Floor, Proposal};
use crate::proto;
use crate::proto::operations_server::Operations;
use pitboss_engine::config::GameConfig;
use pitboss_engine::games::VoidKind;
use sha2::Digest;

/// The Operations service.
pub struct OperationsService {
    floor: Arc<Floor>,
    /// The access in force, reloaded by `ReloadAccess`.
    access: Arc<Access>,
    /// One `AuthenticateSoftware` reads the executable at a time. The permit goes with the
    /// blocking work, so a caller who leaves does not free it before the work ends.
    reading_executable: Arc<tokio::sync::Semaphore>,
    /// `ListConfigs` calls reading the log at once ([`LISTINGS`]); the others wait their turn
    /// (the permit, too, held by the blocking work itself).
    listing: Arc<tokio::sync::Semaphore>,
}

/// A turn at `semaphore`'s work, waited for; the permit goes into the blocking work it allows.
async fn turn_at(
    semaphore: &Arc<tokio::sync::Semaphore>,
) -> Result<tokio::sync::OwnedSemaphorePermit, Status> {
    semaphore
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| Status::unavailable("the server is stopping"))
}

/// How many `ListConfigs` read the log at once (each reads up to two entries' worth per
/// configuration it looks at, at most [`crate::floor::LOOKED_AT_MOST`]).
const LISTINGS: usize = 2;

impl OperationsService {
    /// Serves `floor`, with `access` to reload.
    pub fn new(floor: Arc<Floor>, access: Arc<Access>) -> OperationsService {
        OperationsService {
            floor,
            access,
            reading_executable: Arc::new(tokio::sync::Semaphore::new(1)),
            listing: Arc::new(tokio::sync::Semaphore::new(LISTINGS)),
        }
    }
}

/// A proposal as the API shows it.
pub fn proposal_to_proto(p: &Proposal, now_ms: u64) -> proto::Proposal {
    let decided = p.decided.clone().unwrap_or_default();
    proto::Proposal {
        proposal_id: p.recorded.proposal_id.clone(),
        action: p.recorded.action.clone(),
        proposed_by: p.recorded.proposed_by.clone(),
        proposed_at_ms: p.recorded.at_ms,
        expires_at_ms: p.recorded.expires_at_ms,
        state: p.state(now_ms).to_string(),
        decided_by: decided.decided_by,
        reason: decided.reason,
    }
}

/// The role that proposes and approves an action, and the table it touches (if one).
fn role_of(action: Option<&proto::proposed_action::Kind>) -> Role {
    use proto::proposed_action::Kind;
    match action {
        Some(Kind::PublishConfig(_)) => Role::ConfigAdmin,
        _ => Role::Supervisor,
    }
}

impl OperationsService {
    /// The caller reaches what a proposal touches: a hand's table, or the table of a malfunction.
    fn reach_action(
        &self,
        caller: &Principal,
        action: Option<&proto::proposed_action::Kind>,
    ) -> Result<(), Status> {
        use proto::proposed_action::Kind;
        match action {
            Some(Kind::VoidHand(v)) => {
                let hand = self.floor.load(&v.hand_id, None).map_err(status)?;
                scope::reach_hand(caller, "proposal_id", &hand)
            }
            Some(Kind::VoidRound(v)) => {
                super::rounds::reach_round_as(&self.floor, caller, "proposal_id", &v.round_id)
            }
            Some(Kind::TableMalfunction(t)) => {
                scope::reach(caller, "proposal_id", &t.table, None)?;
                scope::every_game(caller, "proposal_id")
            }
            Some(Kind::PublishConfig(c)) => {
                let config = GameConfig::from_json(c.canonical_json.as_bytes())
                    .map_err(|e| status(crate::floor::FloorError::from(e)))?;
                scope::reach_game(caller, "proposal_id", config.game)
            }
            None => Ok(()),
        }
    }

    /// Records `action` as the caller's proposal; the proposal as the API shows it.
    async fn propose(
        &self,
        caller: &Principal,
        action: proto::proposed_action::Kind,
        request_id: &str,
    ) -> Result<proto::Proposal, Status> {
        let proposal = self
            .floor
            .propose(action, &caller.id, optional(request_id).as_deref())
            .await
            .map_err(status)?;
        Ok(proposal_to_proto(&proposal, self.floor.now()))
    }

    /// The proposal, if the caller may decide it: the role of its action, and its scopes.
    fn decidable(&self, caller: &Principal, id: &str) -> Result<Proposal, Status> {
        let proposal = self.floor.proposal(id).map_err(status)?;
        scope::role(caller, role_of(proposal.action()), "decide this proposal")?;
        self.reach_action(caller, proposal.action())?;
        Ok(proposal)
    }
}

#[tonic::async_trait]
impl Operations for OperationsService {
    async fn publish_config(
        &self,
        request: Request<proto::PublishConfigRequest>,
    ) -> Result<Response<proto::PublishConfigResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        let config = GameConfig::from_json(r.config_json.as_bytes())
            .map_err(|e| status(crate::floor::FloorError::from(e)))?;
        scope::reach_game(&caller, "config_json.game", config.game)?;
        Floor::check_publishable(&config).map_err(status)?;
        let id = config.id();
        if self.floor.config(&id).is_some() {
            return Ok(Response::new(proto::PublishConfigResponse {
                config_id: id.to_string(),
                already_published: true,
                proposal: None,
            }));
        }
        let action = proto::proposed_action::Kind::PublishConfig(proto::ProposedConfig {
            config_id: id.to_string(),
            canonical_json: String::from_utf8_lossy(&config.canonical_bytes()).into_owned(),
        });
        let proposal = self.propose(&caller, action, &r.request_id).await?;
        Ok(Response::new(proto::PublishConfigResponse {
            config_id: id.to_string(),
            already_published: false,
            proposal: Some(proposal),
        }))
    }

    async fn list_configs(
        &self,
        request: Request<proto::ListConfigsRequest>,
    ) -> Result<Response<proto::ListConfigsResponse>, Status> {
        let r = request.into_inner();
        r.check()?;
        let game = match r.game {
            0 => None,
            value => Some(convert::game("game", value)?),
        };
        let size = match r.page_size {
            0 => 50,
            n => n as usize,
        };
        let after = match r.page_token.as_str() {
            "" => None,
            token => Some(convert::config_id("page_token", token)?),
        };
        // Up to a thousand reads of the log: off the async workers, a few listings at a time.
        let turn = turn_at(&self.listing).await?;
        let floor = self.floor.clone();
        let page = tokio::task::spawn_blocking(move || {
            let _turn = turn;
            floor.config_page(game, after, size, r.uncertified_only)
        })
        .await
        .map_err(|e| Status::internal(e.to_string()))?
        .map_err(status)?;
        Ok(Response::new(proto::ListConfigsResponse {
            configs: page
                .configs
                .into_iter()
                .map(convert::config_summary)
                .collect(),
            next_page_token: page.next.map(|id| id.to_string()).unwrap_or_default(),
        }))
    }

    async fn void_round(
        &self,
        request: Request<proto::VoidRoundRequest>,
    ) -> Result<Response<proto::VoidRoundResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        let (id, reason, request_id) = (r.round_id.clone(), r.reason.clone(), r.request_id.clone());
        if let Some(done) = super::rounds::void_round(&self.floor, &caller, r).await? {
            return Ok(Response::new(proto::VoidRoundResponse {
                round: done.round,
                duplicate: done.duplicate,
                proposal: None,
            }));
        }
        // Settled at its showdown: the void is proposed, for a second principal to approve (a
        // retry with the same request id finds the same proposal).
        let action = proto::proposed_action::Kind::VoidRound(proto::ProposedRoundVoid {
            round_id: id.clone(),
            reason: reason.trim().to_string(),
        });
        let proposal = self.propose(&caller, action, &request_id).await?;
        Ok(Response::new(proto::VoidRoundResponse {
            round: Some(super::rounds::table_view(&self.floor, &id)?),
            duplicate: false,
            proposal: Some(proposal),
        }))
    }

    async fn void_hand(
        &self,
        request: Request<proto::VoidHandRequest>,
    ) -> Result<Response<proto::VoidHandResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        scope::recorded_by(&caller, "recorded_by", &r.recorded_by)?;
        let kind: VoidKind = codec::from_id("kind", &r.kind).map_err(|_| {
            invalid_argument("kind", "one of malfunction, incomplete, conduct_forfeit")
        })?;
        let hand = self.floor.load(&r.hand_id, None).map_err(status)?;
        scope::reach_hand(&caller, "hand_id", &hand)?;
        // A settled hand: the void is proposed, for a second principal to approve (a retry with
        // the same request id finds the same proposal).
        if hand.status() != pitboss_engine::games::Status::Settled {
            match self
                .floor
                .void(
                    &r.hand_id,
                    kind,
                    &r.reason,
                    Attribution::by(&caller.id),
                    optional(&r.request_id),
                )
                .await
            {
                Ok(snapshot) => {
                    return Ok(Response::new(proto::VoidHandResponse {
                        hand: Some(hand_view(&snapshot.id, &snapshot.hand)),
                        proposal: None,
                    }))
                }
                // Settled meanwhile: proposed below.
                Err(crate::floor::FloorError::SecondPersonRequired { .. }) => {}
                Err(e) => return Err(status(e)),
            }
        }
        let action = proto::proposed_action::Kind::VoidHand(proto::ProposedVoid {
            hand_id: r.hand_id.clone(),
            kind: r.kind.clone(),
            reason: r.reason.clone(),
        });
        let proposal = self.propose(&caller, action, &r.request_id).await?;
        let hand = self.floor.load(&r.hand_id, None).map_err(status)?;
        Ok(Response::new(proto::VoidHandResponse {
            hand: Some(hand_view(&r.hand_id, &hand)),
            proposal: Some(proposal),
        }))
    }

    async fn record_table_malfunction(
        &self,
        request: Request<proto::RecordTableMalfunctionRequest>,
    ) -> Result<Response<proto::RecordTableMalfunctionResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        scope::recorded_by(&caller, "recorded_by", &r.recorded_by)?;
        scope::reach(&caller, "table", &r.table, None)?;
        scope::every_game(&caller, "table")?;
        let action =
            proto::proposed_action::Kind::TableMalfunction(proto::ProposedTableMalfunction {
                table: r.table.clone(),
                from_ms: r.from_ms,
                to_ms: r.to_ms,
                reason: r.reason.clone(),
            });
        let proposal = self.propose(&caller, action, &r.request_id).await?;
        Ok(Response::new(proto::RecordTableMalfunctionResponse {
            proposal: Some(proposal),
            ..Default::default()
        }))
    }

    async fn run_sweep(
        &self,
        request: Request<proto::RunSweepRequest>,
    ) -> Result<Response<proto::RunSweepResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        scope::recorded_by(&caller, "recorded_by", &r.recorded_by)?;
        scope::whole_log(&caller, "RunSweep")?;
        let result = self
            .floor
            .sweep(r.as_of_ms, &caller.id, optional(&r.request_id).as_deref())
            .await
            .map_err(status)?;
        Ok(Response::new(proto::RunSweepResponse {
            voided_hand_ids: result.voided,
            completed_hand_ids: result.completed,
            skipped_hand_ids: result.skipped,
            voided_count: result.counts.voided,
            completed_count: result.counts.completed,
            skipped_count: result.counts.skipped,
        }))
    }

    async fn approve_proposal(
        &self,
        request: Request<proto::ApproveProposalRequest>,
    ) -> Result<Response<proto::ApproveProposalResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        self.decidable(&caller, &r.proposal_id)?;
        let (proposal, done) = self
            .floor
            .approve(&r.proposal_id, &caller.id)
            .await
            .map_err(status)?;
        let mut answer = proto::ApproveProposalResponse {
            proposal: Some(proposal_to_proto(&proposal, self.floor.now())),
            ..Default::default()
        };
        match done {
            Done::Void(snapshot) => {
                answer.void_hand = Some(proto::VoidHandResponse {
                    hand: Some(hand_view(&snapshot.id, &snapshot.hand)),
                    proposal: None,
                })
            }
            Done::VoidRound {
                round_id,
                duplicate,
            } => {
                answer.void_round = Some(proto::VoidRoundResponse {
                    round: Some(super::rounds::table_view(&self.floor, &round_id)?),
                    duplicate,
                    proposal: None,
                })
            }
            Done::TableMalfunction(result) => {
                answer.table_malfunction = Some(proto::RecordTableMalfunctionResponse {
                    voided_hand_ids: result.voided,
                    skipped_hand_ids: result.skipped,
                    voided_count: result.counts.voided,
                    skipped_count: result.counts.skipped,
                    proposal: None,
                    voided_round_ids: result.voided_rounds,
                    skipped_round_ids: result.skipped_rounds,
                    voided_round_count: result.counts.voided_rounds,
                    skipped_round_count: result.counts.skipped_rounds,
                })
            }
            Done::Config { id, already } => {
                answer.publish_config = Some(proto::PublishConfigResponse {
                    config_id: id.to_string(),
                    already_published: already,
                    proposal: None,
                })
            }
        }
        Ok(Response::new(answer))
    }

    async fn reject_proposal(
        &self,
        request: Request<proto::RejectProposalRequest>,
    ) -> Result<Response<proto::Proposal>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        self.decidable(&caller, &r.proposal_id)?;
        let proposal = self
            .floor
            .reject(&r.proposal_id, &caller.id, r.reason.trim())
            .await
            .map_err(status)?;
        Ok(Response::new(proposal_to_proto(
            &proposal,
            self.floor.now(),
        )))
    }

    async fn list_proposals(
        &self,
        request: Request<proto::ListProposalsRequest>,
    ) -> Result<Response<proto::ListProposalsResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        scope::whole_log(&caller, "ListProposals")?;
        let state = match r.state.as_str() {
            "" => None,
            s @ ("pending" | "approved" | "rejected" | "expired") => Some(s),
            _ => {
                return Err(invalid_argument(
                    "state",
                    "empty, or one of pending, approved, rejected, expired",
                ))
            }
        };
        let size = match r.page_size {
            0 => 50,
            n => n as usize,
        };
        let after = match r.page_token.as_str() {
            "" => None,
            token => Some(
                hex::decode(token)
                    .map_err(|_| invalid_argument("page_token", "not a page token"))?,
            ),
        };
        let (page, next) = self
            .floor
            .proposals(state, size, after.as_deref())
            .map_err(status)?;
        let now = self.floor.now();
        Ok(Response::new(proto::ListProposalsResponse {
            proposals: page.iter().map(|p| proposal_to_proto(p, now)).collect(),
            next_page_token: next.map(hex::encode).unwrap_or_default(),
        }))
    }

    async fn reload_access(
        &self,
        request: Request<proto::ReloadAccessRequest>,
    ) -> Result<Response<proto::ReloadAccessResponse>, Status> {
        let caller = scope::caller(&request)?;
        request.into_inner().check()?;
        let change = self
            .floor
            .reload_access(&self.access, "rpc", &caller.id)
            .await
            .map_err(|e| {
                Status::failed_precondition(format!(
                    "the access file was not loaded; the access in force is unchanged: {e}"
                ))
            })?;
        Ok(Response::new(proto::ReloadAccessResponse {
            added: change.added,
            removed: change.removed,
            changed: change.changed,
            file_sha256: hex::encode(change.sha256),
        }))
    }

    async fn record_investigation(
        &self,
        request: Request<proto::RecordInvestigationRequest>,
    ) -> Result<Response<proto::RecordInvestigationResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        // A supervisor scoped to some tables or games closes only their alerts.
        if !caller.unscoped() {
            let alert = self.floor.returns_alert(&r.alert_id).map_err(status)?;
            if let Some(totals) = alert.as_ref().and_then(|a| a.totals.as_ref()) {
                let game = crate::codec::from_id("game", &totals.game).ok();
                scope::reach(&caller, "alert_id", &totals.table, game)?;
            }
        }
        let sequence = self
            .floor
            .record_investigation(&r.alert_id, &r.outcome, &r.reason, &caller.id)
            .await
            .map_err(status)?;
        Ok(Response::new(proto::RecordInvestigationResponse {
            sequence,
        }))
    }

    async fn authenticate_software(
        &self,
        request: Request<proto::AuthenticateSoftwareRequest>,
    ) -> Result<Response<proto::AuthenticateSoftwareResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        // One whole read of the executable at a time: a burst of calls waits its turn.
        let turn = turn_at(&self.reading_executable).await?;
        let challenge = r.challenge.clone();
        let (mac, identity) = tokio::task::spawn_blocking(move || {
            let _turn = turn;
            crate::software::authenticate(&challenge)
        })
        .await
        .map_err(|e| Status::internal(e.to_string()))?
        .map_err(|e| Status::internal(format!("the executable cannot be read: {e}")))?;
        let challenge_sha256: [u8; 32] = sha2::Sha256::digest(&r.challenge).into();
        self.floor
            .record_software(&identity, "challenge", Some(challenge_sha256), &caller.id)
            .await
            .map_err(status)?;
        Ok(Response::new(proto::AuthenticateSoftwareResponse {
            hmac_sha256: mac.to_vec(),
            executable_sha256: hex::encode(identity.sha256),
            version: crate::software::VERSION.to_string(),
            build: crate::software::BUILD.to_string(),
        }))
    }

    async fn rotate_signing_key(
        &self,
        request: Request<proto::RotateSigningKeyRequest>,
    ) -> Result<Response<proto::RotateSigningKeyResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        let expected = Some(r.expected_key_id.as_str()).filter(|e| !e.is_empty());
        let (old, new, public) = self
            .floor
            .rotate_key(expected, &caller.id)
            .await
            .map_err(status)?;
        Ok(Response::new(proto::RotateSigningKeyResponse {
            old_key_id: old.to_string(),
            new_key_id: new.to_string(),
            new_public_key: hex::encode(public),
        }))
    }
}
