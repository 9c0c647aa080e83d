//! The `pitboss.v1.Audit` service: what regulators call. Read-only: deriving a deal from a seed,
//! replaying a hand into its proof report, verifying the log, reading a hand's events, recall.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use super::convert::{self, status};
use crate::audit;
use crate::codec;
use crate::engine::deal;
use crate::engine::games::Status as HandStatus;
use crate::floor::{Floor, HandFilter, Page};
use crate::proto;
use crate::proto::audit_server::Audit;

/// The Audit service.
pub struct AuditService {
    floor: Arc<Floor>,
}

impl AuditService {
    /// Serves `floor`.
    pub fn new(floor: Arc<Floor>) -> AuditService {
        AuditService { floor }
    }
}

fn logged(entry: crate::ledger::Entry) -> Result<proto::LoggedEvent, Status> {
    let payload = Floor::payload(&entry).map_err(status)?;
    Ok(proto::LoggedEvent {
        sequence: entry.envelope.sequence,
        stream_position: entry.envelope.stream_position,
        recorded_at_ms: entry.envelope.recorded_at_ms,
        key_id: hex::encode(&entry.envelope.key_id),
        hash: hex::encode(entry.hash),
        payload: Some(payload),
    })
}

/// Sends entries from `next` on: catch-up, then live as the head advances. Stops when the client
/// goes away.
async fn stream_from(
    floor: Arc<Floor>,
    mut next: u64,
    tx: tokio::sync::mpsc::Sender<Result<proto::LoggedEvent, Status>>,
) {
    let mut head = floor.ledger().subscribe();
    loop {
        let end = *head.borrow_and_update();
        while next < end {
            let item = match floor.ledger().entry(next) {
                Ok(Some(entry)) => logged(entry),
                Ok(None) => Err(Status::data_loss(format!("entry {next} is missing"))),
                Err(e) => Err(Status::internal(e.to_string())),
            };
            let failed = item.is_err();
            if tx.send(item).await.is_err() || failed {
                return;
            }
            next += 1;
        }
        tokio::select! {
            changed = head.changed() => if changed.is_err() { return },
            () = tx.closed() => return,
        }
    }
}

/// Runs blocking ledger reads (the Merkle tree) off the async workers.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, crate::ledger::LedgerError> + Send + 'static,
) -> Result<T, Status> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| Status::internal(e.to_string()))?
        .map_err(|e| status(crate::floor::FloorError::Ledger(e)))
}

/// The whole log now for 0.
fn size_or_now(floor: &Floor, size: u64) -> Result<u64, crate::ledger::LedgerError> {
    if size == 0 {
        floor.ledger().tree_size()
    } else {
        Ok(size)
    }
}

#[tonic::async_trait]
impl Audit for AuditService {
    async fn get_checkpoint(
        &self,
        request: Request<proto::GetCheckpointRequest>,
    ) -> Result<Response<proto::Checkpoint>, Status> {
        let size = request.into_inner().tree_size;
        let floor = self.floor.clone();
        let (checkpoint, public) = blocking(move || {
            let size = size_or_now(&floor, size)?;
            floor.ledger().checkpoint_blocking(Some(size))
        })
        .await?;
        Ok(Response::new(proto::Checkpoint {
            note: checkpoint.note(),
            origin: checkpoint.origin.clone(),
            tree_size: checkpoint.size,
            root_hash: checkpoint.root.to_vec(),
            key_id: crate::ledger::KeyId::of(&public).to_string(),
            public_key: public.to_bytes().to_vec(),
        }))
    }

    async fn get_inclusion_proof(
        &self,
        request: Request<proto::GetInclusionProofRequest>,
    ) -> Result<Response<proto::InclusionProof>, Status> {
        let r = request.into_inner();
        let floor = self.floor.clone();
        let proof = blocking(move || {
            let size = size_or_now(&floor, r.tree_size)?;
            floor.ledger().inclusion_proof(r.sequence, size)
        })
        .await?;
        Ok(Response::new(proto::InclusionProof {
            sequence: proof.sequence,
            tree_size: proof.tree_size,
            entry_hash: proof.entry_hash.to_vec(),
            hashes: proof.hashes.iter().map(|h| h.to_vec()).collect(),
        }))
    }

    async fn get_hand_bundle(
        &self,
        request: Request<proto::GetHandBundleRequest>,
    ) -> Result<Response<proto::GetHandBundleResponse>, Status> {
        let id = request.into_inner().hand_id;
        let floor = self.floor.clone();
        let bundle = tokio::task::spawn_blocking(move || {
            audit::bundle::build(floor.ledger(), |c| floor.config(c), &id)
        })
        .await
        .map_err(|e| Status::internal(e.to_string()))?
        .map_err(|e| match e {
            audit::bundle::BundleError::NotFound(id) => {
                status(crate::floor::FloorError::NotFound { what: "hand", id })
            }
            audit::bundle::BundleError::Ledger(e) => status(crate::floor::FloorError::Ledger(e)),
            other => Status::failed_precondition(other.to_string()),
        })?;
        Ok(Response::new(proto::GetHandBundleResponse {
            bundle_json: serde_json::to_string_pretty(&bundle)
                .map_err(|e| Status::internal(e.to_string()))?,
        }))
    }

    async fn get_consistency_proof(
        &self,
        request: Request<proto::GetConsistencyProofRequest>,
    ) -> Result<Response<proto::ConsistencyProof>, Status> {
        let r = request.into_inner();
        let floor = self.floor.clone();
        let hashes = blocking(move || {
            floor
                .ledger()
                .consistency_proof(r.first_size, r.second_size)
        })
        .await?;
        Ok(Response::new(proto::ConsistencyProof {
            first_size: r.first_size,
            second_size: r.second_size,
            hashes: hashes.iter().map(|h| h.to_vec()).collect(),
        }))
    }

    type StreamEventsStream =
        tokio_stream::wrappers::ReceiverStream<Result<proto::LoggedEvent, Status>>;

    async fn stream_events(
        &self,
        request: Request<proto::StreamEventsRequest>,
    ) -> Result<Response<Self::StreamEventsStream>, Status> {
        let from = request.into_inner().from_sequence;
        let (tx, rx) = tokio::sync::mpsc::channel(256);
        tokio::spawn(stream_from(self.floor.clone(), from, tx));
        Ok(Response::new(tokio_stream::wrappers::ReceiverStream::new(
            rx,
        )))
    }

    async fn derive_deal(
        &self,
        request: Request<proto::DeriveDealRequest>,
    ) -> Result<Response<proto::DeriveDealResponse>, Status> {
        let request = request.into_inner();
        let game = convert::game("game", request.game)?;
        let seed = convert::seed("seed", &request.seed)?;
        Ok(Response::new(convert::deal_to_proto(&deal::derive(
            game, &seed,
        ))))
    }

    async fn replay_hand(
        &self,
        request: Request<proto::ReplayHandRequest>,
    ) -> Result<Response<proto::ReplayHandResponse>, Status> {
        let id = request.into_inner().hand_id;
        let floor = self.floor.clone();
        let report = tokio::task::spawn_blocking(move || {
            audit::replay(floor.ledger(), |c| floor.config(c), &id)
        })
        .await
        .map_err(|e| Status::internal(e.to_string()))?
        .map_err(|e| match e {
            audit::ReplayError::NotFound(id) => {
                status(crate::floor::FloorError::NotFound { what: "hand", id })
            }
            audit::ReplayError::Ledger(e) => Status::internal(e),
        })?;
        Ok(Response::new(proto::ReplayHandResponse {
            hand_id: report.hand_id,
            game: report.game.map_or(0, convert::game_to_proto),
            config_id: report.config_id.map(|c| c.to_string()).unwrap_or_default(),
            status: codec::id_of(&report.status),
            commitment_ok: report.commitment_ok,
            seed_revealed: report.seed_revealed,
            events: report
                .events
                .into_iter()
                .map(|e| proto::EventCheck {
                    sequence: e.sequence,
                    stream_position: e.stream_position,
                    kind: e.kind,
                    chain_ok: e.chain_ok,
                    signature_ok: e.signature_ok,
                    rederived: e.rederived,
                    note: e.note,
                })
                .collect(),
            mismatches: report
                .mismatches
                .into_iter()
                .map(|m| proto::Mismatch {
                    sequence: m.sequence,
                    event: m.event,
                    field: m.field,
                    recorded: m.recorded,
                    rederived: m.rederived,
                })
                .collect(),
            settlement: report.settlement.as_ref().map(codec::settlement_to),
            void: report.void.as_ref().map(codec::void_to),
            refunds_equal_stakes: report.refunds_equal_stakes,
            consistent: report.consistent,
            report: report.report,
        }))
    }

    async fn verify_log(
        &self,
        request: Request<proto::VerifyLogRequest>,
    ) -> Result<Response<proto::VerifyLogResponse>, Status> {
        let r = request.into_inner();
        let floor = self.floor.clone();
        let report = tokio::task::spawn_blocking(move || {
            crate::ledger::verify(floor.ledger().store(), r.from_sequence, r.to_sequence)
        })
        .await
        .map_err(|e| Status::internal(e.to_string()))?;
        Ok(Response::new(proto::VerifyLogResponse {
            ok: report.ok(),
            verified: report.verified,
            head_sequence: report.head.map(|(s, _)| s),
            head_hash: report.head.map(|(_, h)| hex::encode(h)).unwrap_or_default(),
            bad_sequence: report.problem.as_ref().map(|p| p.sequence),
            problem: report.problem.map(|p| p.to_string()).unwrap_or_default(),
        }))
    }

    async fn get_hand_events(
        &self,
        request: Request<proto::GetHandEventsRequest>,
    ) -> Result<Response<proto::GetHandEventsResponse>, Status> {
        let r = request.into_inner();
        let size = match r.page_size {
            0 => 100,
            n if n > 1000 => return Err(convert::invalid_argument("page_size", "at most 1000")),
            n => n as usize,
        };
        let from = match r.page_token.as_str() {
            "" => 0,
            token => token.parse::<u64>().map_err(|_| {
                convert::invalid_argument("page_token", "not a token this service issued")
            })?,
        };
        let entries = self.floor.hand_entries(&r.hand_id, from).map_err(status)?;
        let next = if entries.len() > size {
            (from + size as u64).to_string()
        } else {
            String::new()
        };
        let events = entries
            .into_iter()
            .take(size)
            .map(logged)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Response::new(proto::GetHandEventsResponse {
            events,
            next_page_token: next,
        }))
    }

    async fn list_hands(
        &self,
        request: Request<proto::ListHandsRequest>,
    ) -> Result<Response<proto::ListHandsResponse>, Status> {
        let r = request.into_inner();
        let game = match r.game {
            0 => None,
            value => Some(convert::game("game", value)?),
        };
        let status_filter = match r.status.as_str() {
            "" => None,
            s => Some(codec::from_id::<HandStatus>("status", s).map_err(|_| {
                convert::invalid_argument("status", "one of in_progress, settled, voided")
            })?),
        };
        let filter = HandFilter {
            player: convert::optional(&r.player),
            table: convert::optional(&r.table),
            game,
            status: status_filter,
            from_ms: r.from_ms,
            to_ms: (r.to_ms != 0).then_some(r.to_ms),
        };
        let page = Page {
            size: r.page_size,
            token: r.page_token,
        };
        let (hands, next) = self.floor.list_hands(&filter, &page).map_err(status)?;
        Ok(Response::new(proto::ListHandsResponse {
            hands: hands
                .into_iter()
                .map(|h| proto::HandSummary {
                    hand_id: h.id,
                    game: convert::game_to_proto(h.game),
                    table: h.table,
                    player: h.player,
                    opened_at_ms: h.opened_at_ms,
                    status: codec::id_of(&h.status),
                    total_staked: h.total_staked,
                    total_paid: h.total_paid,
                })
                .collect(),
            next_page_token: next.unwrap_or_default(),
        }))
    }
}
