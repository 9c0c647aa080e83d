//! The two-person rule: what moves money after the fact (a settled hand's or round's void, a table
//! malfunction over a time range, a configuration's activation) is recorded as a proposal by one
//! principal and done only when a second, different principal approves it.
//!
//! A proposal is the stream `proposal/<id>`: `ProposalRecorded`, then at most one
//! `ProposalDecided` (approved, rejected or expired), appended at version 1 so that two decisions
//! cannot both land. An approval is recorded first and then done under the request id
//! `proposal <id>` (with a space, which no client's request id has), so an approval cut short (a crash, a lost connection) is finished by asking
//! again, once, with the recorded approver. Index `proposal`: `u64::MAX − proposed_at` (BE) and the
//! id, newest first. Who may propose or approve (roles, scopes) is the transport's to check: the
//! floor knows principals only by id.

use prost::Message;
use sha2::{Digest, Sha256};

use super::requests;
use super::{
    Attribution, Floor, FloorError, HandSnapshot, OperationResult, ProposalProblem, RoundCall,
};
use crate::proto;
use pitboss_engine::config::{ConfigId, GameConfig};
use pitboss_engine::games::{Timestamp, VoidKind, VoidOrder};
use pitboss_engine::round::RoundCommand;
use pitboss_ledger::{AppendRequest, Expected, LedgerError};

/// How long a proposal waits for its approval: a day.
pub const PROPOSAL_TTL_MS: u64 = 24 * 60 * 60 * 1000;

/// The index of proposals.
const INDEX: &str = "proposal";

/// A proposal's entry in the index of proposals, newest first: (`u64::MAX − at` (BE), id).
pub(super) fn index_entry(id: &str, at: u64) -> (String, Vec<u8>) {
    let mut key = (u64::MAX - at).to_be_bytes().to_vec();
    key.extend_from_slice(id.as_bytes());
    (INDEX.to_string(), key)
}

/// The most index entries one page of [`Floor::proposals`] reads (a state filter may skip many).
const MAX_SCANNED: usize = 1_000;

/// A proposal as its stream records it.
#[derive(Clone, Debug, PartialEq)]
pub struct Proposal {
    /// What was proposed, by whom, when, until when.
    pub recorded: proto::ProposalRecorded,
    /// How it ended, if it has.
    pub decided: Option<proto::ProposalDecided>,
}

impl Proposal {
    /// pending, approved, rejected or expired (a pending one past its time is expired, recorded
    /// or not).
    pub fn state(&self, now_ms: u64) -> &str {
        match &self.decided {
            Some(d) => d.outcome.as_str(),
            None if now_ms > self.recorded.expires_at_ms => "expired",
            None => "pending",
        }
    }

    /// Its action.
    pub fn action(&self) -> Option<&proto::proposed_action::Kind> {
        self.recorded.action.as_ref()?.kind.as_ref()
    }
}

/// What an approval did.
#[derive(Clone, Debug)]
pub enum Done {
    Void(Box<HandSnapshot>),
    /// The round voided (read it with [`Floor::with_round`]); `duplicate` when an earlier approval
    /// had voided it already.
    VoidRound {
        round_id: String,
        duplicate: bool,
    },
    TableMalfunction(OperationResult),
    Config {
        id: ConfigId,
        already: bool,
    },
}

fn stream(id: &str) -> String {
    format!("proposal/{id}")
}

fn bad(id: &str, problem: ProposalProblem) -> FloorError {
    FloorError::Proposal {
        id: id.to_string(),
        problem,
    }
}

/// A settled round's void for a malfunction, by the proposal's two principals.
fn round_void(v: &proto::ProposedRoundVoid, who: Attribution<'_>, at: Timestamp) -> RoundCommand {
    RoundCommand::VoidRound(VoidOrder {
        kind: VoidKind::Malfunction,
        reason: v.reason.clone(),
        recorded_by: who.by.to_string(),
        approved_by: who.approved_by.map(str::to_string),
        at,
    })
}

/// The kind of a proposed void (recorded by this server, so an unknown one is damage).
fn void_kind(proposal: &Proposal, v: &proto::ProposedVoid) -> Result<VoidKind, FloorError> {
    crate::codec::from_id("kind", &v.kind).map_err(|_| {
        FloorError::Corrupt(
            format!("proposal {}", proposal.recorded.proposal_id),
            "an unknown void kind".into(),
        )
    })
}

fn payload(kind: proto::payload::Kind) -> Vec<u8> {
    proto::Payload { kind: Some(kind) }.encode_to_vec()
}

impl Floor {
    /// Records a proposal by `by`. With a request id the proposal's id comes from it and its
    /// content, so a retry finds the same proposal (and the id cannot be reused for another).
    pub async fn propose(
        &self,
        action: proto::proposed_action::Kind,
        by: &str,
        request_id: Option<&str>,
    ) -> Result<Proposal, FloorError> {
        let action = proto::ProposedAction { kind: Some(action) };
        let key = request_id.map(|r| requests::propose(r, &action.encode_to_vec(), by));
        let id = match &key {
            Some(key) => {
                let mut h = Sha256::new();
                h.update(key.fingerprint.0);
                h.update(key.id.as_bytes());
                hex::encode(&h.finalize()[..16])
            }
            None => {
                let mut bytes = [0u8; 16];
                getrandom::fill(&mut bytes).map_err(FloorError::Randomness)?;
                hex::encode(bytes)
            }
        };
        let at = self.now();
        let recorded = proto::ProposalRecorded {
            proposal_id: id.clone(),
            action: Some(action),
            proposed_by: by.to_string(),
            at_ms: at,
            expires_at_ms: at.saturating_add(PROPOSAL_TTL_MS),
        };
        let appended = self
            .ledger
            .append(AppendRequest {
                request: key,
                indexes: vec![index_entry(&id, at)],
                ..AppendRequest::entries(
                    stream(&id),
                    Expected::Version(0),
                    vec![payload(proto::payload::Kind::ProposalRecorded(
                        recorded.clone(),
                    ))],
                    at,
                    by,
                )
            })
            .await;
        match appended {
            Ok(a) if !a.duplicate => Ok(Proposal {
                recorded,
                decided: None,
            }),
            // A retry: the proposal of the first call.
            Ok(_) | Err(LedgerError::VersionConflict { .. }) => self.proposal(&id),
            Err(e) => Err(e.into()),
        }
    }

    /// A proposal, read from its stream.
    pub fn proposal(&self, id: &str) -> Result<Proposal, FloorError> {
        let not_found = || FloorError::NotFound {
            what: "proposal",
            id: id.to_string(),
        };
        if id.len() != 32 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(not_found());
        }
        let entries = self.ledger.read_stream(&stream(id), 0)?;
        let mut kinds = entries.iter().map(|e| Floor::payload(e).map(|p| p.kind));
        let corrupt = |what: &str| FloorError::Corrupt(format!("proposal {id}"), what.into());
        let recorded = match kinds.next().transpose()? {
            None => return Err(not_found()),
            Some(Some(proto::payload::Kind::ProposalRecorded(r))) => r,
            Some(_) => return Err(corrupt("its first entry is not a proposal")),
        };
        let decided = match kinds.next().transpose()? {
            None => None,
            Some(Some(proto::payload::Kind::ProposalDecided(d))) => Some(d),
            Some(_) => return Err(corrupt("its second entry is not a decision")),
        };
        Ok(Proposal { recorded, decided })
    }

    /// Proposals, newest first, in `state` (`None`: any): at most `size`, from after the index key
    /// `after`; and where the next page starts (`None`: the end).
    pub fn proposals(
        &self,
        state: Option<&str>,
        size: usize,
        after: Option<&[u8]>,
    ) -> Result<(Vec<Proposal>, Option<Vec<u8>>), FloorError> {
        let now = self.now();
        let from = after.map_or_else(Vec::new, |k| [k, &[0]].concat());
        let scanned = self.ledger.index_page(INDEX, &[], &from, MAX_SCANNED)?;
        let mut out = Vec::new();
        let mut last = None;
        for (key, _) in &scanned {
            last = Some(key.clone());
            let id = std::str::from_utf8(key.get(8..).unwrap_or_default())
                .map_err(|_| FloorError::Corrupt("proposal index".into(), "not an id".into()))?;
            let proposal = self.proposal(id)?;
            if state.is_none_or(|s| proposal.state(now) == s) {
                out.push(proposal);
                if out.len() == size {
                    break;
                }
            }
        }
        let more = out.len() == size || scanned.len() == MAX_SCANNED;
        Ok((out, if more { last } else { None }))
    }

    /// Records a decision on a pending proposal, at its stream's version 1 (so only one lands).
    async fn decide(
        &self,
        proposal: &Proposal,
        outcome: &str,
        by: &str,
        reason: &str,
    ) -> Result<proto::ProposalDecided, FloorError> {
        let id = &proposal.recorded.proposal_id;
        let decided = proto::ProposalDecided {
            proposal_id: id.clone(),
            outcome: outcome.to_string(),
            decided_by: by.to_string(),
            reason: reason.to_string(),
            at_ms: self.now(),
        };
        let appended = self
            .ledger
            .append(AppendRequest::entries(
                stream(id),
                Expected::Version(1),
                vec![payload(proto::payload::Kind::ProposalDecided(
                    decided.clone(),
                ))],
                decided.at_ms,
                if by.is_empty() {
                    pitboss_ledger::SERVER_ACTOR
                } else {
                    by
                },
            ))
            .await;
        match appended {
            Ok(_) => Ok(decided),
            // Decided meanwhile by another call.
            Err(LedgerError::VersionConflict { .. }) => {
                let now = self.proposal(id)?;
                Err(bad(
                    id,
                    ProposalProblem::Decided {
                        state: now.state(self.now()).to_string(),
                    },
                ))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Records every pending proposal past its time as expired (the sweep does this), and says
    /// how many. An approval of one past its time is refused whether or not this has run.
    pub(super) async fn expire_proposals(&self) -> Result<u64, FloorError> {
        let mut expired = 0;
        let mut after: Option<Vec<u8>> = None;
        loop {
            let (page, next) = self.proposals(Some("expired"), 256, after.as_deref())?;
            for proposal in page.iter().filter(|p| p.decided.is_none()) {
                match self.decide(proposal, "expired", "", "").await {
                    Ok(_) => expired += 1,
                    // Decided meanwhile.
                    Err(FloorError::Proposal { .. }) => {}
                    Err(e) => return Err(e),
                }
            }
            match next {
                Some(next) => after = Some(next),
                None => return Ok(expired),
            }
        }
    }

    /// The proposal if it is still pending and not past its time (refused otherwise; nothing is
    /// written: the sweep records expiries).
    fn pending(&self, id: &str) -> Result<Proposal, FloorError> {
        let proposal = self.proposal(id)?;
        if let Some(d) = &proposal.decided {
            return Err(bad(
                id,
                ProposalProblem::Decided {
                    state: d.outcome.clone(),
                },
            ));
        }
        let expires_at_ms = proposal.recorded.expires_at_ms;
        if self.now() > expires_at_ms {
            return Err(bad(id, ProposalProblem::Expired { expires_at_ms }));
        }
        Ok(proposal)
    }

    /// Rejects a pending proposal (any principal the transport lets: its proposer too).
    pub async fn reject(&self, id: &str, by: &str, reason: &str) -> Result<Proposal, FloorError> {
        let mut proposal = self.pending(id)?;
        proposal.decided = Some(self.decide(&proposal, "rejected", by, reason).await?);
        Ok(proposal)
    }

    /// Approves a proposal by `by`, who must not be its proposer, and does it. An approved
    /// proposal asked again is done again under the same request id (finishing an approval cut
    /// short; a finished one answers with its first result), whoever asks.
    pub async fn approve(&self, id: &str, by: &str) -> Result<(Proposal, Done), FloorError> {
        let mut proposal = self.proposal(id)?;
        match proposal.decided.as_ref().map(|d| d.outcome.as_str()) {
            Some("approved") => {}
            _ => {
                if proposal.decided.is_none() && proposal.recorded.proposed_by == by {
                    return Err(bad(id, ProposalProblem::OwnProposal));
                }
                proposal = self.pending(id)?;
                self.can_carry_out(&proposal)?;
                proposal.decided = Some(self.decide(&proposal, "approved", by, "").await?);
            }
        }
        let done = self.carry_out(&proposal).await?;
        Ok((proposal, done))
    }

    /// Whether the action can be done now, checked before an approval is recorded (so that an
    /// approval refused writes nothing): the hand or round to void is not voided already, the
    /// configuration still passes its checks.
    fn can_carry_out(&self, proposal: &Proposal) -> Result<(), FloorError> {
        use proto::proposed_action::Kind;
        match proposal.action() {
            Some(Kind::VoidHand(v)) => {
                // The void decided now, and not recorded: what the engine would refuse.
                let hand = self.load(&v.hand_id, None)?;
                let who = Attribution {
                    by: &proposal.recorded.proposed_by,
                    approved_by: Some("the approver"),
                };
                let order = self.void_order(&hand, void_kind(proposal, v)?, &v.reason, who);
                hand.decide(&pitboss_engine::games::Command::Void(order))?;
                Ok(())
            }
            Some(Kind::VoidRound(v)) => {
                // The void applied to a copy of the round, and not recorded.
                let who = Attribution {
                    by: &proposal.recorded.proposed_by,
                    approved_by: Some("the approver"),
                };
                let mut round = self.with_round(&v.round_id, Clone::clone)?;
                round.step(&round_void(v, who, Timestamp(self.now())))?;
                Ok(())
            }
            Some(Kind::PublishConfig(c)) => {
                Floor::check_publishable(&GameConfig::from_json(c.canonical_json.as_bytes())?)
            }
            Some(Kind::TableMalfunction(_)) | None => Ok(()),
        }
    }

    /// Does an approved proposal's action, attributed to its proposer and approver.
    async fn carry_out(&self, proposal: &Proposal) -> Result<Done, FloorError> {
        use proto::proposed_action::Kind;
        let id = &proposal.recorded.proposal_id;
        let approver = proposal
            .decided
            .as_ref()
            .map(|d| d.decided_by.as_str())
            .unwrap_or_default();
        let who = Attribution {
            by: &proposal.recorded.proposed_by,
            approved_by: Some(approver),
        };
        // A space: no client's request id can take it (request ids are printable ASCII without
        // spaces), so the approval's own id is never used up by another request.
        let request_id = format!("proposal {id}");
        let corrupt = |what: &str| FloorError::Corrupt(format!("proposal {id}"), what.into());
        match proposal.action() {
            Some(Kind::VoidHand(v)) => {
                let hand = self
                    .void(
                        &v.hand_id,
                        void_kind(proposal, v)?,
                        &v.reason,
                        who,
                        Some(request_id),
                    )
                    .await?;
                Ok(Done::Void(Box::new(hand)))
            }
            Some(Kind::VoidRound(v)) => {
                let call = RoundCall {
                    actor: who.actor(),
                    request_id: Some(&request_id),
                };
                let voided = self
                    .round_command(&v.round_id, |at| round_void(v, who, at), &call, |_, _| ())
                    .await?;
                Ok(Done::VoidRound {
                    round_id: voided.id,
                    duplicate: voided.duplicate,
                })
            }
            Some(Kind::TableMalfunction(t)) => {
                let result = self
                    .void_table(
                        &t.table,
                        t.from_ms,
                        t.to_ms,
                        &t.reason,
                        who,
                        Some(&request_id),
                    )
                    .await?;
                Ok(Done::TableMalfunction(result))
            }
            Some(Kind::PublishConfig(c)) => {
                let config = GameConfig::from_json(c.canonical_json.as_bytes())?;
                let (id, already) = self.publish(config, Some(&request_id), approver).await?;
                Ok(Done::Config { id, already })
            }
            None => Err(corrupt("it proposes nothing")),
        }
    }
}
