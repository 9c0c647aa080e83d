//! The `pitboss.v1.Audit` service: what regulators call. Read-only: deriving a deal from a seed,
//! replaying a hand into its proof report, verifying the log, reading a hand's events, recall.
//! Every request is held to its limits (`limits/`) before anything else; a sequence or a tree
//! size beyond the log is `OUT_OF_RANGE`, naming the field.
//!
//! Reads that take more than a moment (verification, replay, bundles, proofs, recall) run in the
//! audit pool of workers (`work.rs`), a bounded number at once; verification stops when its caller
//! goes away. At most `limits::EVENT_STREAMS` event streams run at once, each ended when its
//! client reads nothing for a minute.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use tonic::{Request, Response, Status};

use super::convert;
use super::guard;
use super::limits::{self, within_log, Bounded};
use super::scope;
use super::status::{invalid_argument, out_of_range, status};
use super::work::{Pool, Shutdown};
use crate::audit;
use crate::audit::bundle::Source;
use crate::audit::round_replay::Reader;
use crate::codec;
use crate::floor::{Floor, HandFilter, Page, RoundFilter, RoundRecord};
use crate::proto;
use crate::proto::audit_server::Audit;
use pitboss_engine::deal;
use pitboss_engine::games::Status as HandStatus;

/// The Audit service.
pub struct AuditService {
    floor: Arc<Floor>,
    /// Workers for the reads that take more than a moment.
    pool: Pool,
    /// Permits of the event streams running now.
    streams: Arc<Semaphore>,
    /// Streams end when the server shuts down.
    shutdown: Shutdown,
    /// The log's side of witnessing, when the server has a witness policy.
    witnessing: Option<Arc<crate::witnessing::Witnessing>>,
    /// The mirror following another server's log, when this server is one: checkpoints are the
    /// log's own it holds, and a hand's evidence carries the mirror's statement.
    mirror: Option<Arc<crate::mirroring::Mirroring>>,
    /// The floor's returns, when the server keeps them.
    returns: Option<Arc<crate::returns::Returns>>,
}

impl AuditService {
    /// The caller reaches the hand (an unscoped principal reaches every hand, found or not: the
    /// call itself then says whether it exists).
    fn reach(&self, caller: &crate::access::Principal, hand_id: &str) -> Result<(), Status> {
        if caller.unscoped() {
            return Ok(());
        }
        let hand = self.floor.load(hand_id, None).map_err(status)?;
        scope::reach_hand(caller, "hand_id", &hand)
    }

    /// A hand's or a round's evidence (its bundle, its dispute packet) made by `make` in the audit
    /// pool (the caller's reach checked before).
    async fn evidence<T: Send + 'static>(
        &self,
        make: impl FnOnce(&Floor, Source<'_>) -> Result<T, audit::bundle::BundleError> + Send + 'static,
    ) -> Result<T, Status> {
        let floor = self.floor.clone();
        // The newest cosigned checkpoint, if the server has a witness policy: the evidence is
        // proven in it when the whole hand is within it. A mirror proves it in the log's own.
        let cosigned = self.witnessing.as_ref().and_then(|w| w.latest());
        let mirror = self.mirror.clone();
        self.blocking(move || {
            let source = match &mirror {
                Some(mirror) => Source::Mirror(mirror.as_ref()),
                None => Source::Log(cosigned.as_ref()),
            };
            make(&floor, source).map_err(bundle_status)
        })
        .await
    }

    /// Serves `floor`, reading in `pool`.
    pub fn new(
        floor: Arc<Floor>,
        pool: Pool,
        shutdown: Shutdown,
        witnessing: Option<Arc<crate::witnessing::Witnessing>>,
        mirror: Option<Arc<crate::mirroring::Mirroring>>,
        returns: Option<Arc<crate::returns::Returns>>,
    ) -> AuditService {
        AuditService {
            floor,
            pool,
            streams: Arc::new(Semaphore::new(limits::EVENT_STREAMS)),
            shutdown,
            witnessing,
            mirror,
            returns,
        }
    }

    /// Runs `work` in the audit pool.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> Result<T, Status> + Send + 'static,
    ) -> Result<T, Status> {
        self.pool.run(move |_| work()).await
    }

    /// A permit for one more event stream, or `RESOURCE_EXHAUSTED`.
    fn stream_permit(&self) -> Result<OwnedSemaphorePermit, Status> {
        self.streams.clone().try_acquire_owned().map_err(|_| {
            Status::resource_exhausted(format!(
                "{} event streams are running, the most at once; try again when one ends",
                limits::EVENT_STREAMS
            ))
        })
    }
}

/// A dispute packet as the API answers it.
fn dispute_to(dispute: audit::dispute::Dispute) -> proto::GetDisputePacketResponse {
    proto::GetDisputePacketResponse {
        html: dispute.html,
        bundle_json: dispute.bundle_json,
        html_file: dispute.html_file,
        bundle_file: dispute.bundle_file,
        deal_json: dispute.deal_json,
        deal_file: dispute.deal_file,
        verified: dispute.verified,
    }
}

/// A replay's failure to start, for a hand or a round (`what`).
fn replay_status(what: &'static str, error: audit::ReplayError) -> Status {
    match error {
        audit::ReplayError::NotFound(id) => status(crate::floor::FloorError::NotFound { what, id }),
        audit::ReplayError::Ledger(e) => Status::internal(e),
    }
}

fn logged(entry: pitboss_ledger::Entry) -> Result<proto::LoggedEvent, Status> {
    let payload = Floor::payload(&entry).map_err(status)?;
    Ok(proto::LoggedEvent {
        stored_entry: Vec::new(),
        sequence: entry.envelope.sequence,
        stream_position: entry.envelope.stream_position,
        recorded_at_ms: entry.envelope.recorded_at_ms,
        key_id: hex::encode(&entry.envelope.key_id),
        actor: entry.envelope.actor.clone(),
        hash: hex::encode(entry.hash),
        payload: Some(payload),
    })
}

/// Stored entries read at once by a stream that carries them (one read of the store for many).
const STORED_READ: u64 = 64;

/// Entries `from .. from + count` as events carrying their stored bytes, exactly as the log keeps
/// them, and their envelope's fields; the payload is not decoded (whoever asks for the stored
/// entries reads them: a mirror, the tile writer). A missing or damaged entry ends the list with
/// its error.
fn stored_events(floor: &Floor, from: u64, count: u64) -> Vec<Result<proto::LoggedEvent, Status>> {
    let records = match floor.log().stored_entries(from, count) {
        Ok(records) => records,
        Err(e) => return vec![Err(Status::internal(e.to_string()))],
    };
    let mut events = Vec::with_capacity(records.len());
    for (expected, (sequence, bytes)) in (from..).zip(records) {
        if sequence != expected {
            events.push(Err(Status::data_loss(format!(
                "entry {expected} is missing"
            ))));
            return events;
        }
        match pitboss_ledger::Entry::decode(&bytes) {
            Ok(entry) => events.push(Ok(proto::LoggedEvent {
                sequence: entry.envelope.sequence,
                stream_position: entry.envelope.stream_position,
                recorded_at_ms: entry.envelope.recorded_at_ms,
                key_id: hex::encode(&entry.envelope.key_id),
                actor: entry.envelope.actor,
                hash: hex::encode(entry.hash),
                payload: None,
                stored_entry: bytes,
            })),
            Err(e) => {
                events.push(Err(Status::data_loss(format!(
                    "entry {sequence} is damaged: {e}"
                ))));
                return events;
            }
        }
    }
    if events.is_empty() {
        events.push(Err(Status::data_loss(format!("entry {from} is missing"))));
    }
    events
}

/// Sends entries from `next` on: catch-up, then live as the head advances. Stops when the client
/// goes away, ends with `DEADLINE_EXCEEDED` when it has read nothing for
/// [`limits::STREAM_STALL`], and with `UNAVAILABLE` when the server shuts down.
async fn stream_from(
    floor: Arc<Floor>,
    mut next: u64,
    stored: bool,
    tx: tokio::sync::mpsc::Sender<Result<proto::LoggedEvent, Status>>,
    shutdown: Shutdown,
) {
    use tokio::sync::mpsc::error::SendTimeoutError;
    let mut head = floor.log().subscribe();
    let end_with = |status: Status| {
        // Best effort: a client that reads nothing does not get it.
        let _ = tx.try_send(Err(status));
    };
    loop {
        let end = *head.borrow_and_update();
        while next < end {
            if shutdown.is_set() {
                return end_with(Status::unavailable("the server is stopping"));
            }
            let items = if stored {
                stored_events(&floor, next, (end - next).min(STORED_READ))
            } else {
                vec![match floor.log().entry(next) {
                    Ok(Some(entry)) => logged(entry),
                    Ok(None) => Err(Status::data_loss(format!("entry {next} is missing"))),
                    Err(e) => Err(Status::internal(e.to_string())),
                }]
            };
            for item in items {
                let failed = item.is_err();
                match tx.send_timeout(item, limits::STREAM_STALL).await {
                    Ok(()) if !failed => {}
                    Ok(()) | Err(SendTimeoutError::Closed(_)) => return,
                    Err(SendTimeoutError::Timeout(_)) => {
                        return end_with(Status::deadline_exceeded(format!(
                            "the client read nothing for {} s: the stream is ended",
                            limits::STREAM_STALL.as_secs()
                        )))
                    }
                }
                next += 1;
            }
        }
        tokio::select! {
            changed = head.changed() => if changed.is_err() { return },
            () = tx.closed() => return,
            () = shutdown.wait() => return end_with(Status::unavailable("the server is stopping")),
        }
    }
}

/// A mirror's answer to `GetCheckpoint`: the log's own checkpoint it holds (the newest, or the
/// one of the size asked for), with the mirror's cosignature; a mirror signs none of its own.
fn mirror_checkpoint(
    mirror: &crate::mirroring::Mirroring,
    floor: &Floor,
    asked: u64,
) -> Result<proto::Checkpoint, Status> {
    let held = [mirror.newest(), mirror.cosigned()]
        .into_iter()
        .flatten()
        .find(|p| asked == 0 || p.size == asked);
    let Some(held) = held else {
        return Err(ledger_status(
            pitboss_ledger::LedgerError::MirrorSignsNothing {
                held: mirror.newest().map(|p| p.size),
            },
        ));
    };
    Ok(proto::Checkpoint {
        note: held.note.clone(),
        origin: pitboss_ledger::checkpoint::Checkpoint::parse(&held.note)
            .map(|c| c.origin)
            .unwrap_or_default(),
        tree_size: held.size,
        root_hash: held.root.to_vec(),
        key_id: pitboss_ledger::KeyId::of(&held.key).to_string(),
        public_key: held.key.to_bytes().to_vec(),
        cosigned: held.cosigned,
        log_size: floor.log().size(),
    })
}

/// Why a hand's or a round's bundle (or packet) cannot be made, as a status.
fn bundle_status(e: audit::bundle::BundleError) -> Status {
    match e {
        audit::bundle::BundleError::NotFound { what, id } => {
            status(crate::floor::FloorError::NotFound { what, id })
        }
        audit::bundle::BundleError::Ledger(e) => status(crate::floor::FloorError::Ledger(e)),
        other => Status::failed_precondition(other.to_string()),
    }
}

fn ledger_status(e: pitboss_ledger::LedgerError) -> Status {
    status(crate::floor::FloorError::Ledger(e))
}

/// How many entries the log holds now (its tree size).
fn log_size(floor: &Floor) -> Result<u64, Status> {
    floor.log().tree_size().map_err(ledger_status)
}

/// A tree size asked for in `field`: 0 for the whole log now, else at most the log's size.
fn tree_size(floor: &Floor, field: &str, asked: u64) -> Result<u64, Status> {
    let now = log_size(floor)?;
    if asked == 0 {
        Ok(now)
    } else {
        within_log(field, asked, now, "the log's size")
    }
}

#[tonic::async_trait]
impl Audit for AuditService {
    async fn list_significant_events(
        &self,
        request: Request<proto::ListSignificantEventsRequest>,
    ) -> Result<Response<proto::ListSignificantEventsResponse>, Status> {
        let caller = scope::caller(&request)?;
        scope::whole_log(&caller, "ListSignificantEvents")?;
        let r = request.into_inner();
        r.check()?;
        let start =
            if r.page_token.is_empty() {
                None
            } else {
                Some(r.page_token.parse::<u64>().map_err(|_| {
                    invalid_argument("page_token", "not a token this service issued")
                })?)
            };
        let floor = self.floor.clone();
        let page = self
            .blocking(move || {
                audit::significant::list(
                    &floor,
                    r.from_ms,
                    (r.to_ms != 0).then_some(r.to_ms),
                    &r.kinds,
                    match r.page_size {
                        0 => 200,
                        n => n as usize,
                    },
                    start,
                )
                .map_err(status)
            })
            .await?;
        Ok(Response::new(proto::ListSignificantEventsResponse {
            events: page
                .events
                .into_iter()
                .map(convert::significant_to_proto)
                .collect(),
            next_page_token: page.next.map(|n| n.to_string()).unwrap_or_default(),
        }))
    }

    async fn get_returns(
        &self,
        request: Request<proto::GetReturnsRequest>,
    ) -> Result<Response<proto::GetReturnsResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        let returns = self.returns.as_ref().ok_or_else(|| {
            Status::failed_precondition("this server keeps no returns ([returns] enabled = false)")
        })?;
        super::returns::answer(returns, &caller, &r).map(Response::new)
    }

    async fn get_checkpoint(
        &self,
        request: Request<proto::GetCheckpointRequest>,
    ) -> Result<Response<proto::Checkpoint>, Status> {
        let r = request.into_inner();
        r.check()?;
        if let Some(mirror) = &self.mirror {
            return mirror_checkpoint(mirror, &self.floor, r.tree_size).map(Response::new);
        }
        let floor = self.floor.clone();
        // The newest cosigned checkpoint stands for the newest one, and for its own size.
        let cosigned = self
            .witnessing
            .as_ref()
            .and_then(|w| w.latest())
            .filter(|c| r.tree_size == 0 || r.tree_size == c.size);
        let asked = cosigned.as_ref().map_or(r.tree_size, |c| c.size);
        let (checkpoint, public, log_size) = self
            .blocking(move || {
                let size = tree_size(&floor, "tree_size", asked)?;
                let (checkpoint, public) =
                    floor.log().checkpoint(Some(size)).map_err(ledger_status)?;
                // Read from the store as the checkpoint was, and after it: never behind it.
                let now = log_size(&floor)?;
                Ok((checkpoint, public, now))
            })
            .await?;
        // After a key rotation the cosigned note is signed by the old key: it is answered only
        // with the key that signed it, which is this answer's key.
        let cosigned = cosigned.filter(|c| {
            pitboss_ledger::checkpoint::Checkpoint::parse(&c.note)
                .is_ok_and(|n| n.root == checkpoint.root && n.verify(&public).is_ok())
        });
        Ok(Response::new(proto::Checkpoint {
            note: cosigned
                .as_ref()
                .map_or_else(|| checkpoint.note(), |c| c.note.clone()),
            origin: checkpoint.origin.clone(),
            tree_size: checkpoint.size,
            root_hash: checkpoint.root.to_vec(),
            key_id: pitboss_ledger::KeyId::of(&public).to_string(),
            public_key: public.to_bytes().to_vec(),
            cosigned: cosigned.is_some(),
            log_size,
        }))
    }

    async fn get_tlog_proofs(
        &self,
        request: Request<proto::GetTlogProofsRequest>,
    ) -> Result<Response<proto::GetTlogProofsResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        // Both streams are of every table: only a principal who reaches the whole log.
        scope::whole_log(&caller, "GetTlogProofs")?;
        let (stream, position) = (r.stream, r.position);
        let proven = self
            .evidence(move |floor, source| {
                audit::tlog_proofs::stream_proofs(floor, &stream, position, source)
            })
            .await?;
        Ok(Response::new(proto::GetTlogProofsResponse {
            proofs: proven
                .proofs
                .into_iter()
                .map(|p| proto::TlogProofFile {
                    file: p.file,
                    text: p.text,
                })
                .collect(),
            tree_size: proven.tree_size,
            cosigned: proven.cosigned,
            next_position: proven.next_position.unwrap_or(0),
        }))
    }

    async fn get_inclusion_proof(
        &self,
        request: Request<proto::GetInclusionProofRequest>,
    ) -> Result<Response<proto::InclusionProof>, Status> {
        let r = request.into_inner();
        r.check()?;
        let floor = self.floor.clone();
        let proof = self
            .blocking(move || {
                let size = tree_size(&floor, "tree_size", r.tree_size)?;
                if r.sequence >= size {
                    return Err(out_of_range(
                        "sequence",
                        format!(
                            "{} is not in a tree of {size} entries: 0 to {}",
                            r.sequence,
                            size.saturating_sub(1)
                        ),
                    ));
                }
                floor
                    .log()
                    .inclusion_proof(r.sequence, size)
                    .map_err(ledger_status)
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
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        self.reach(&caller, &r.hand_id)?;
        let id = r.hand_id;
        let bundle = self
            .evidence(move |floor, source| audit::bundle::build(floor, &id, source))
            .await?;
        Ok(Response::new(proto::GetHandBundleResponse {
            bundle_json: serde_json::to_string_pretty(&bundle)
                .map_err(|e| Status::internal(e.to_string()))?,
        }))
    }

    async fn get_dispute_packet(
        &self,
        request: Request<proto::GetDisputePacketRequest>,
    ) -> Result<Response<proto::GetDisputePacketResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        self.reach(&caller, &r.hand_id)?;
        let id = r.hand_id;
        let dispute = self
            .evidence(move |floor, source| audit::dispute::build(floor, &id, source))
            .await?;
        Ok(Response::new(dispute_to(dispute)))
    }

    async fn get_round_bundle(
        &self,
        request: Request<proto::GetRoundBundleRequest>,
    ) -> Result<Response<proto::GetHandBundleResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        super::rounds::reach_round(&self.floor, &caller, &r.round_id)?;
        let id = r.round_id;
        let (bundle, _) = self
            .evidence(move |floor, source| {
                audit::bundle::build_of(floor, audit::bundle::Subject::Round(&id), source)
            })
            .await?;
        Ok(Response::new(proto::GetHandBundleResponse {
            bundle_json: serde_json::to_string_pretty(&bundle)
                .map_err(|e| Status::internal(e.to_string()))?,
        }))
    }

    async fn get_round_dispute_packet(
        &self,
        request: Request<proto::GetRoundDisputePacketRequest>,
    ) -> Result<Response<proto::GetDisputePacketResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        super::rounds::reach_round(&self.floor, &caller, &r.round_id)?;
        let dispute = self
            .evidence(move |floor, source| {
                let player = Some(r.player.as_str()).filter(|p| !p.is_empty());
                audit::round_dispute::build_round(floor, &r.round_id, player, source)
            })
            .await?;
        Ok(Response::new(dispute_to(dispute)))
    }

    type ExportHandsStream =
        tokio_stream::wrappers::ReceiverStream<Result<proto::ExportRow, Status>>;

    async fn export_hands(
        &self,
        request: Request<proto::ExportHandsRequest>,
    ) -> Result<Response<Self::ExportHandsStream>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        scope::whole_log(&caller, "ExportHands")?;
        let game = match r.game {
            0 => None,
            value => Some(convert::game("game", value)?),
        };
        let selection = crate::floor::ExportSelection {
            from_ms: r.from_ms,
            to_ms: if r.to_ms == 0 { u64::MAX } else { r.to_ms },
            table: convert::optional(&r.table),
            game,
            player: convert::optional(&r.player),
            dealer: convert::optional(&r.dealer),
            round_id: convert::optional(&r.round_id),
            seat: seat_filter(r.seat),
        };
        let permit = self.stream_permit()?;
        let (tx, rx) = tokio::sync::mpsc::channel(256);
        let floor = self.floor.clone();
        let shutdown = self.shutdown.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let exported = super::export::export(floor, selection, tx.clone(), shutdown);
            if let Err(panic) = guard::catch_panic(exported).await {
                tracing::error!(method = "ExportHands", panic = %panic, "an export task panicked");
                let _ = tx.send(Err(Status::internal(guard::PANIC_MESSAGE))).await;
            }
        });
        Ok(Response::new(tokio_stream::wrappers::ReceiverStream::new(
            rx,
        )))
    }

    async fn get_consistency_proof(
        &self,
        request: Request<proto::GetConsistencyProofRequest>,
    ) -> Result<Response<proto::ConsistencyProof>, Status> {
        let r = request.into_inner();
        r.check()?;
        let floor = self.floor.clone();
        let hashes = self
            .blocking(move || {
                let now = log_size(&floor)?;
                let what = "the log's size";
                within_log("first_size", r.first_size, now, what)?;
                within_log("second_size", r.second_size, now, what)?;
                if r.first_size > r.second_size {
                    return Err(invalid_argument(
                        "first_size",
                        format!(
                            "{} is larger than second_size {}: 0 to second_size",
                            r.first_size, r.second_size
                        ),
                    ));
                }
                floor
                    .log()
                    .consistency_proof(r.first_size, r.second_size)
                    .map_err(ledger_status)
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
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        scope::whole_log(&caller, "StreamEvents")?;
        // From the next entry to be written at most (a client waiting for new entries only).
        let from = within_log(
            "from_sequence",
            r.from_sequence,
            log_size(&self.floor)?,
            "the next sequence",
        )?;
        let permit = self.stream_permit()?;
        let (tx, rx) = tokio::sync::mpsc::channel(256);
        let floor = self.floor.clone();
        let shutdown = self.shutdown.clone();
        tokio::spawn(async move {
            let _permit = permit;
            // A failure of the stream's task ends it with INTERNAL, never a silent end.
            let streamed = stream_from(floor, from, r.stored_entries, tx.clone(), shutdown);
            if let Err(panic) = guard::catch_panic(streamed).await {
                tracing::error!(method = "StreamEvents", panic = %panic, "a stream task panicked");
                let _ = tx.send(Err(Status::internal(guard::PANIC_MESSAGE))).await;
            }
        });
        Ok(Response::new(tokio_stream::wrappers::ReceiverStream::new(
            rx,
        )))
    }

    async fn derive_deal(
        &self,
        request: Request<proto::DeriveDealRequest>,
    ) -> Result<Response<proto::DeriveDealResponse>, Status> {
        let request = request.into_inner();
        request.check()?;
        let game = convert::game("game", request.game)?;
        let seed = convert::seed("seed", &request.seed)?;
        let dealt = match u8::try_from(request.seats) {
            Ok(0) => deal::derive(game, &seed),
            Ok(seats) => deal::derive_round(game, &seed, seats)
                .map_err(|refused| invalid_argument("seats", refused.to_string()))?,
            Err(_) => return Err(invalid_argument("seats", "beyond any table")),
        };
        Ok(Response::new(convert::deal_to_proto(&dealt)))
    }

    async fn replay_hand(
        &self,
        request: Request<proto::ReplayHandRequest>,
    ) -> Result<Response<proto::ReplayHandResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        self.reach(&caller, &r.hand_id)?;
        let id = r.hand_id;
        let floor = self.floor.clone();
        let report = self
            .blocking(move || audit::replay(&floor, &id).map_err(|e| replay_status("hand", e)))
            .await?;
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
                .map(convert::event_check_to)
                .collect(),
            mismatches: report
                .mismatches
                .into_iter()
                .map(convert::mismatch_to)
                .collect(),
            settlement: report.settlement.as_ref().map(codec::settlement_to),
            void: report.void.as_ref().map(codec::void_to),
            refunds_equal_stakes: report.refunds_equal_stakes,
            consistent: report.consistent,
            report: report.report,
        }))
    }

    async fn replay_round(
        &self,
        request: Request<proto::ReplayRoundRequest>,
    ) -> Result<Response<proto::ReplayRoundResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        super::rounds::reach_round(&self.floor, &caller, &r.round_id)?;
        let floor = self.floor.clone();
        self.blocking(move || {
            let reader = match r.player.as_str() {
                "" => Reader::Table,
                player => Reader::Player(player),
            };
            let report = audit::round_replay::replay_round(&floor, &r.round_id, reader)
                .map_err(|e| replay_status("round", e))?;
            Ok(Response::new(super::rounds::replay_round_to(report, &r)))
        })
        .await
    }

    async fn verify_log(
        &self,
        request: Request<proto::VerifyLogRequest>,
    ) -> Result<Response<proto::VerifyLogResponse>, Status> {
        let r = request.into_inner();
        r.check()?;
        let floor = self.floor.clone();
        let report = self
            .pool
            .run(move |run| {
                // Sequences of entries the log holds: 0 to the last one.
                let last = log_size(&floor)?.saturating_sub(1);
                let what = "the last sequence";
                within_log("from_sequence", r.from_sequence, last, what)?;
                if let Some(to) = r.to_sequence {
                    within_log("to_sequence", to, last, what)?;
                    if to < r.from_sequence {
                        return Err(invalid_argument(
                            "to_sequence",
                            format!(
                                "{to} is before from_sequence {}: from_sequence to the last sequence",
                                r.from_sequence
                            ),
                        ));
                    }
                }
                let end = r.to_sequence.unwrap_or(last);
                floor
                    .log().verify_in_parts(r.from_sequence, end, &|| run.stopped())
                    .map_err(|_| Status::cancelled(pitboss_lab::STOPPED))
            })
            .await?;
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
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        self.reach(&caller, &r.hand_id)?;
        let size = match r.page_size {
            0 => 100,
            n => n as usize,
        };
        let from = match r.page_token.as_str() {
            "" => 0,
            token => token
                .parse::<u64>()
                .map_err(|_| invalid_argument("page_token", "not a token this service issued"))?,
        };
        let entries = self.floor.hand_entries(&r.hand_id, from).map_err(status)?;
        let next = if entries.len() > size {
            from.saturating_add(size as u64).to_string()
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
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        if !r.table.is_empty() {
            scope::reach(&caller, "table", &r.table, None)?;
        }
        let game = match r.game {
            0 => None,
            value => Some(convert::game("game", value)?),
        };
        let status_filter =
            match r.status.as_str() {
                "" => None,
                s => Some(codec::from_id::<HandStatus>("status", s).map_err(|_| {
                    invalid_argument("status", "one of in_progress, settled, voided")
                })?),
            };
        let filter = HandFilter {
            player: convert::optional(&r.player),
            table: convert::optional(&r.table),
            game,
            status: status_filter,
            from_ms: r.from_ms,
            to_ms: (r.to_ms != 0).then_some(r.to_ms),
            within: (!caller.unscoped()).then_some(caller),
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
                    currency: Some(convert::currency_to_proto(&h.currency)),
                })
                .collect(),
            next_page_token: next.unwrap_or_default(),
        }))
    }

    async fn list_rounds(
        &self,
        request: Request<proto::ListRoundsRequest>,
    ) -> Result<Response<proto::ListRoundsResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        if !r.table.is_empty() {
            scope::reach(&caller, "table", &r.table, None)?;
        }
        let game = match r.game {
            0 => None,
            value => Some(convert::game("game", value)?),
        };
        let phase = match r.phase.as_str() {
            "" => None,
            p => Some(crate::floor::phase_of_name(p).ok_or_else(|| {
                invalid_argument("phase", "one of betting, playing, ended, voided")
            })?),
        };
        let filter = RoundFilter {
            player: convert::optional(&r.player),
            dealer: convert::optional(&r.dealer),
            table: convert::optional(&r.table),
            game,
            seat: seat_filter(r.seat),
            phase,
            from_ms: r.from_ms,
            to_ms: (r.to_ms != 0).then_some(r.to_ms),
            within: (!caller.unscoped()).then_some(caller),
        };
        let page = Page {
            size: r.page_size,
            token: r.page_token,
        };
        let floor = self.floor.clone();
        self.blocking(move || {
            let (rounds, next) = floor.list_rounds(&filter, &page).map_err(status)?;
            let rounds = rounds
                .iter()
                .map(|round| round_summary(round, filter.player.as_deref(), filter.seat))
                .collect::<Result<Vec<_>, Status>>()?;
            Ok(Response::new(proto::ListRoundsResponse {
                rounds,
                next_page_token: next.unwrap_or_default(),
            }))
        })
        .await
    }
}

/// A seat filter of a request (already bounded): 0 is none.
fn seat_filter(seat: u32) -> Option<u8> {
    u8::try_from(seat).ok().filter(|s| *s != 0)
}

/// A round as recall lists it; listed by `player` or `seat`, with those places.
fn round_summary(
    round: &RoundRecord,
    player: Option<&str>,
    seat: Option<u8>,
) -> Result<proto::RoundSummary, Status> {
    let opened = &round.opened;
    let player = player.filter(|p| !p.is_empty());
    let places = match (player, seat) {
        (None, None) => Vec::new(),
        _ => round
            .places
            .iter()
            .filter(|p| player.is_none_or(|name| p.player == name))
            .filter(|p| seat.is_none_or(|s| p.seat == Some(s)))
            .map(|p| proto::RoundPlaceSummary {
                place: p.place,
                seat: p.seat.map_or(0, u32::from),
                player: p.player.clone(),
                status: codec::id_of(&p.status),
                staked: p.staked,
                paid: p.paid,
                void_kind: p.void_kind.map(|k| codec::id_of(&k)).unwrap_or_default(),
                bet_at_ms: p.bet_at_ms,
            })
            .collect(),
    };
    Ok(proto::RoundSummary {
        round_id: round.id.clone(),
        game: convert::game_to_proto(opened.game),
        config_id: opened.config_id.to_string(),
        table: opened.table.clone(),
        dealer: round.dealer().to_string(),
        dealers: round.dealers.clone(),
        shape: opened.shape.name().to_string(),
        phase: crate::floor::phase_name(round.phase).to_string(),
        opened_at_ms: opened.at.0,
        ended_at_ms: round.ended_at_ms,
        place_count: u32::try_from(round.places.len()).unwrap_or(u32::MAX),
        total_staked: round.staked().map_err(status)?,
        total_paid: round.paid().map_err(status)?,
        currency: Some(convert::currency_to_proto(&round.config.currency)),
        places,
    })
}
