//! The clients of one running server, as every test suite holds them: a client of each service on
//! one channel as the first administrator, and the Operations client of the second administrator,
//! who approves the first one's proposals. Calls only: the tests assert.

use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;
use pitboss::proto::lab_client::LabClient;
use pitboss::proto::operations_client::OperationsClient;
use pitboss::proto::play_client::PlayClient;
use pitboss_client::Authorized as Channel;
use tonic_health::pb::health_client::HealthClient;

use super::server::{Server, SECOND_TOKEN};

/// A client of every service of one server.
#[derive(Clone)]
pub struct Clients {
    pub play: PlayClient<Channel>,
    pub audit: AuditClient<Channel>,
    pub ops: OperationsClient<Channel>,
    pub lab: LabClient<Channel>,
    pub health: HealthClient<Channel>,
    /// Operations as the second administrator.
    pub second: OperationsClient<Channel>,
}

impl Clients {
    /// The clients of `server`: two channels, the first administrator's and the second's.
    pub async fn of(server: &Server) -> Clients {
        let channel = server.channel().await;
        Clients {
            play: PlayClient::new(channel.clone()),
            audit: AuditClient::new(channel.clone()),
            ops: OperationsClient::new(channel.clone()),
            lab: LabClient::new(channel.clone()),
            health: HealthClient::new(channel),
            second: OperationsClient::new(server.channel_as(Some(SECOND_TOKEN)).await),
        }
    }

    /// The second administrator approves `proposal` (an absent one is asked for by an empty id,
    /// which the server refuses).
    pub async fn approve(
        &mut self,
        proposal: &Option<proto::Proposal>,
    ) -> Result<proto::ApproveProposalResponse, tonic::Status> {
        let proposal_id = proposal
            .as_ref()
            .map(|p| p.proposal_id.clone())
            .unwrap_or_default();
        self.second
            .approve_proposal(proto::ApproveProposalRequest { proposal_id })
            .await
            .map(tonic::Response::into_inner)
    }
}

/// `Audit.ListRounds` as `request` asks, which must be answered.
pub async fn list_rounds(
    audit: &mut AuditClient<Channel>,
    request: proto::ListRoundsRequest,
) -> proto::ListRoundsResponse {
    audit
        .list_rounds(request)
        .await
        .expect("rounds listed")
        .into_inner()
}

/// Every entry of the log as it stands when asked (its size by `GetCheckpoint`), from the start,
/// as `StreamEvents` sends them: a regulator's view.
pub async fn log_entries(audit: &mut AuditClient<Channel>) -> Vec<proto::LoggedEvent> {
    let size = audit
        .get_checkpoint(proto::GetCheckpointRequest::default())
        .await
        .expect("a checkpoint")
        .into_inner()
        .log_size;
    let mut stream = audit
        .stream_events(proto::StreamEventsRequest {
            from_sequence: 0,
            ..Default::default()
        })
        .await
        .expect("the event stream")
        .into_inner();
    let mut out = Vec::new();
    while (out.len() as u64) < size {
        out.push(
            stream
                .message()
                .await
                .expect("an event")
                .expect("the stream goes on to the log's size"),
        );
    }
    out
}
