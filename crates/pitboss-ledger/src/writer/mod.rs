//! The single writer: it takes append requests from any number of callers, groups whatever is
//! waiting into one RocksDB write batch (group commit), chains and hashes the entries and signs the
//! group (its last entry's signature seals the entries before it: `seals`), and
//! hands the batch to the syncer thread, which writes it with a synced WAL and passes it to the
//! anchor thread, which records the new head in the anchor file (`anchor.rs`, one `pwrite` and
//! `fdatasync`, once for every group waiting) and only then answers each caller. So an
//! acknowledged entry is durable and covered by the anchor (a log later found shorter than the
//! anchor is refused, never served), a batch is all or nothing, durability costs two syncs per
//! group, not per entry, and three groups are in flight at once (a pipeline: build and sign, write
//! the WAL, write the anchor). A failed write refuses every group built on top of it; the writer
//! then starts again from the store's head. A failed anchor write stops the ledger: nothing more
//! can be acknowledged until it is reopened (and checked).
//!
//! Per request it checks the stream's expected version (against the store and earlier requests of
//! the same group) and the request id (`requests.rs`): a retry with the same fingerprint returns
//! the first result and writes nothing, whether the first is durable or still in flight (then the
//! retry is answered after it, in a later group of the same pipeline, so never before the first
//! is durable); the same id with another fingerprint is refused.
//!
//! This file builds and signs groups (grouping, staging, versions, request ids, sealing) and
//! answers their callers; how a group is committed is a [`Committer`]'s: `pipeline.rs` (a
//! storage that applies a batch by itself: the syncer and acknowledging stages, with RocksDB's
//! anchor or none), `postgres.rs` (one transaction per group under the head row) — and `keys.rs`
//! stages key entries and finishes a rotation's files.

mod keys;
mod pipeline;
mod postgres;

pub(super) use keys::finish_rotation;
pub(crate) use pipeline::{Anchorer, Pipeline};
pub(super) use postgres::{Serial, HEAD_POLL};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

use prost::Message;
use tokio::sync::oneshot;

use super::stats::WriterStats;

use super::entry::{entry_hash, Entry, Hash, SEAL_RUN};
use super::keys::{KeyId, Keypair};
use super::requests::{Fingerprint, RequestKey, RequestRecord};
use super::seam::{Prefetched, Storage};
use super::store::{cf, index_key, stream_key, Batch, LogStore};
use super::{Appended, Expected, LedgerError};
use crate::proto;

/// An append: entries for one stream, written together or not at all.
#[derive(Clone, Debug)]
pub struct AppendRequest {
    /// The stream (`hand/<id>`, `config/<hex>`, `key/<hex>`).
    pub stream: String,
    /// The stream version the caller expects.
    pub expected: Expected,
    /// Encoded `pitboss.v1.Payload`s, in order.
    pub payloads: Vec<Vec<u8>>,
    /// The request's id and fingerprint: a retry (same id, same fingerprint) returns the first
    /// result and writes nothing; the same id with another fingerprint is refused.
    pub request: Option<RequestKey>,
    /// Secondary index entries to write with the entries: (index name, key).
    pub indexes: Vec<(String, Vec<u8>)>,
    /// Index entries to remove in the same batch (an index of what is still open): (name, key).
    pub unindex: Vec<(String, Vec<u8>)>,
    /// Values kept beside the log, outside the chain, written in the same batch (a hand's seed
    /// until the hand reveals it): (key, value) in the `secrets` family.
    pub secrets: Vec<(Vec<u8>, Vec<u8>)>,
    /// When the ledger records it (ms since the Unix epoch); the caller's clock.
    pub recorded_at_ms: u64,
    /// Who caused it: the authenticated principal of the call, or [`super::SERVER_ACTOR`] for
    /// what the server and its tools do on their own. Recorded in every entry's envelope.
    pub actor: String,
}

impl AppendRequest {
    /// An append of `payloads` to `stream` and nothing else: no request id, no index entries, no
    /// secrets (set those fields for an append that has them).
    pub fn entries(
        stream: String,
        expected: Expected,
        payloads: Vec<Vec<u8>>,
        recorded_at_ms: u64,
        actor: &str,
    ) -> AppendRequest {
        AppendRequest {
            stream,
            expected,
            payloads,
            request: None,
            indexes: Vec::new(),
            unindex: Vec::new(),
            secrets: Vec::new(),
            recorded_at_ms,
            actor: actor.to_string(),
        }
    }
}

/// One entry offered to the mirror: the stored bytes as the log keeps them, and the index entries
/// that whoever knows the payloads derives from it (the ledger knows no game).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mirrored {
    /// Its sequence in the log.
    pub sequence: u64,
    /// The `StoredEntry` bytes, exactly as the log sent them.
    pub stored: Vec<u8>,
    /// Index entries to write with it: (index name, key).
    pub indexes: Vec<(String, Vec<u8>)>,
}

/// Where a mirror stands after an offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MirrorState {
    /// Entries verified and durable in the copy.
    pub size: u64,
    /// Entries checked but held until the signature that seals them arrives.
    pub held: u64,
}

/// A `MirrorState` answer's channel, for the job.
pub(crate) type MirrorReply = oneshot::Sender<Result<MirrorState, LedgerError>>;

pub(super) enum Job {
    Append(
        AppendRequest,
        oneshot::Sender<Result<Appended, LedgerError>>,
    ),
    /// Rotate the signing key at this time, by this actor.
    Rotate(u64, String, oneshot::Sender<Result<KeyId, LedgerError>>),
    PublishKey(u64, oneshot::Sender<Result<KeyId, LedgerError>>),
    /// Sign a message (a checkpoint) with the current key; answered at once, nothing written.
    Sign(Vec<u8>, oneshot::Sender<Result<SignedBy, LedgerError>>),
    /// Entries of another server's log for a mirror's copy (`mirror.rs`); a writer refuses them.
    Mirror(Vec<Mirrored>, MirrorReply),
    /// Makes the writer thread panic: how the tests show that a dead writer fails appends
    /// (`Stopped`) instead of leaving them waiting.
    #[cfg(any(test, feature = "tamper"))]
    Crash,
}

/// A signature and the public key that made it.
pub(super) type SignedBy = (ed25519_dalek::VerifyingKey, [u8; 64]);

/// A reply channel and the answer to send on it once the group is durable.
type Answer<T> = (
    oneshot::Sender<Result<T, LedgerError>>,
    Result<T, LedgerError>,
);

/// The writer's state: the chain head, the signing key, and the stream versions and request ids of
/// the last groups (bounded: see [`RECENT_GROUPS`]).
pub(super) struct Writer {
    /// The log's storage, for what staging reads.
    storage: Arc<dyn Storage>,
    /// How groups are committed; moved out while it runs them.
    committer: Option<Box<dyn Committer>>,
    /// Where the signing key file is (a rotation writes the next key beside it).
    key_dir: std::path::PathBuf,
    /// Records read after a PostgreSQL group locked the head (empty with RocksDB): staging reads
    /// them before the store.
    prefetched: Prefetched,
    key: Arc<Keypair>,
    next_sequence: u64,
    last_hash: Hash,
    /// Entry 0's hash, once there is an entry 0 (the anchor names the log by it).
    origin: Option<Hash>,
    /// Set when the anchor cannot be written: the ledger refuses everything from then on.
    stopped: Arc<AtomicBool>,
    /// The version of each stream written in the last groups (two generations, like `recent`):
    /// the groups not yet in the store are among them, so a stream not found here is read from
    /// the store, where it is durable. At most `2 × RECENT_GROUPS × max_group` streams.
    versions: [HashMap<String, u64>; 2],
    max_group: usize,
    /// Announces the next sequence number after each durable group (for live event streams).
    head: tokio::sync::watch::Sender<u64>,
    /// Groups are built in epochs; a failed write ends its epoch (see `Syncer`).
    epoch: u64,
    /// The highest epoch in which a write failed (0: none).
    failed_through: Arc<AtomicU64>,
    /// Request ids of the last groups, which may not be durable yet (two generations).
    recent: [HashMap<String, InFlight>; 2],
    groups: u64,
    stats: Arc<WriterStats>,
}

/// A request staged in a recent group: its result and fingerprint.
type InFlight = (Appended, Fingerprint);

/// How many groups a generation of `recent` request ids and of `versions` spans: far more than can
/// be built but not yet written (the one being built, two queued, one being synced).
const RECENT_GROUPS: u64 = 64;

/// A group built and signed, ready to be written: its epoch, its writes, and what it answers and
/// records once durable.
pub(super) struct Prepared {
    epoch: u64,
    batch: Batch,
    durable: Durable,
}

/// A group's answers and where the chain stands after it: once its batch is durable (in the WAL,
/// waiting for the anchor; or committed by PostgreSQL), what goes out.
pub(super) struct Durable {
    appends: Vec<Answer<Appended>>,
    rotations: Vec<Answer<KeyId>>,
    rotated: Option<(Arc<Keypair>, Arc<Keypair>)>,
    next_sequence: u64,
    /// The chain head after the group, the log's origin, and the key signing from then on: what
    /// the anchor records.
    last_hash: Hash,
    origin: Option<Hash>,
    key: Arc<Keypair>,
}

/// Refuses every caller of a group that will not be written (or whose writing failed).
fn refuse(group: Durable, error: &LedgerError) {
    for (reply, result) in group.appends {
        let _ = reply.send(result.and(Err(error.clone())));
    }
    for (reply, _) in group.rotations {
        let _ = reply.send(Err(error.clone()));
    }
}

/// Answers the callers of a durable group (anchored, or committed by PostgreSQL), after making a
/// rotation's new key the key file.
fn answer(key_dir: &std::path::Path, group: Durable) {
    let rotation_done = match &group.rotated {
        Some((old, _)) => finish_rotation(key_dir, Some(old)).map_err(|e| {
            tracing::error!(error = %e, "key rotation logged but the key file could not be replaced");
            LedgerError::RotationUnfinished(crate::Shared::new(e))
        }),
        None => Ok(()),
    };
    for (reply, result) in group.appends {
        let _ = reply.send(result);
    }
    for (reply, result) in group.rotations {
        let _ = reply.send(rotation_done.clone().and(result));
    }
}

/// The group being built: its batch, the stream versions and request ids it has staged, its
/// entries, and where the chain stands after them.
struct Group {
    batch: Batch,
    overlay: HashMap<String, u64>,
    requests: HashMap<String, InFlight>,
    pending: Vec<Pending>,
    sequence: u64,
    prev: Hash,
}

/// One entry being built in a group.
struct Pending {
    sequence: u64,
    bytes: Vec<u8>,
    hash: Hash,
    signer: Arc<Keypair>,
    /// Signed whatever its place in the group (a key entry).
    sealed: bool,
}

/// An upper bound of the stored length of `payload`'s entry (a `StoredEntry`: the envelope, its
/// hash and a signature): the variable fields' lengths plus the most the fixed ones and every tag
/// and length prefix can take. Checked before anything of the append is staged.
fn stored_bound(request: &AppendRequest, payload: &[u8]) -> usize {
    /// The envelope's fixed fields at their longest (three varints of 11 bytes, the previous hash
    /// and a key id of 32 bytes) with every tag and length (each 1 + at most 3 bytes), and the
    /// stored record's hash and signature with theirs.
    const FIXED: usize = 3 * 11 + 34 + 34 + 5 * 4 + 4 + 34 + 66;
    FIXED + request.stream.len() + request.actor.len() + payload.len()
}

/// Which of a group's entries are signed: the last; the last before the signing key changes; a key
/// entry; and enough others that no run of unsigned entries reaches [`SEAL_RUN`]. Every other
/// entry is vouched for by the next signed one, whose hash the chain binds to it.
fn seals(pending: &[Pending]) -> Vec<bool> {
    let mut run = 0;
    pending
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let seal = p.sealed
                || run + 1 == SEAL_RUN
                || pending
                    .get(i + 1)
                    .is_none_or(|next| next.signer.id() != p.signer.id());
            run = if seal { 0 } else { run + 1 };
            seal
        })
        .collect()
}

/// How a writer's groups become durable and answered: one per engine kind, chosen when the log
/// is opened.
///
/// Contract: a committer MUST answer every job it is given; MUST answer an append `Ok` only once
/// its group's batch is durable and the head is recorded where opening checks it (RocksDB: the
/// anchor; PostgreSQL: the head row, in the same transaction; memory: the maps themselves); MUST
/// announce the new size on the writer's `head` only then, never backwards; MUST commit groups in
/// the order they were built and refuse every group built on one that failed
/// (`EarlierWriteFailed`); on a shared log, MUST build each group on the head read under an
/// exclusion held until its commit, and write nothing if that head moved (`HeadMoved`). It MUST
/// NOT build or sign a group itself: [`Writer::prepare`] does.
pub(crate) trait Committer: Send {
    /// Runs the writer until every sender of `jobs` is gone.
    fn run(self: Box<Self>, writer: Writer, jobs: mpsc::Receiver<Job>);

    /// Commits `group` on the calling thread and answers it (opening: the key's publication, a
    /// recovery's record, before the writer's thread starts).
    fn commit_now(&mut self, writer: &mut Writer, group: Vec<Job>);
}

impl Writer {
    /// A writer continuing the chain at `next_sequence` after `last_hash` (`origin`: entry 0's
    /// hash, if there is one) in `storage`, committing through `committer`.
    pub(super) fn new(
        storage: Arc<dyn Storage>,
        committer: Box<dyn Committer>,
        key_dir: std::path::PathBuf,
        key: Keypair,
        (next_sequence, last_hash): (u64, Hash),
        origin: Option<Hash>,
    ) -> Writer {
        Writer {
            storage,
            committer: Some(committer),
            key_dir,
            prefetched: Prefetched::new(),
            key: Arc::new(key),
            next_sequence,
            last_hash,
            origin,
            head: tokio::sync::watch::Sender::new(next_sequence),
            stopped: Arc::new(AtomicBool::new(false)),
            stats: Arc::new(WriterStats::default()),
            versions: [HashMap::new(), HashMap::new()],
            max_group: 4096,
            epoch: 1,
            failed_through: Arc::new(AtomicU64::new(0)),
            recent: [HashMap::new(), HashMap::new()],
            groups: 0,
        }
    }

    /// A receiver of the next sequence number, updated after each durable group.
    pub(super) fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.head.subscribe()
    }

    /// Where the writer writes.
    pub(super) fn storage(&self) -> Arc<dyn Storage> {
        self.storage.clone()
    }

    /// What the writer measures (shared with the ledger).
    pub(super) fn stats(&self) -> Arc<WriterStats> {
        self.stats.clone()
    }

    pub(super) fn key_id(&self) -> KeyId {
        self.key.id()
    }

    /// Runs until every sender is gone, as its committer does.
    pub(super) fn run(mut self, jobs: mpsc::Receiver<Job>) {
        match self.committer.take() {
            Some(committer) => committer.run(self, jobs),
            None => {
                tracing::error!("the ledger's writer has no committer: refusing everything");
                self.stopped.store(true, Ordering::SeqCst);
                while let Ok(job) = jobs.recv() {
                    refuse_all(vec![job], &LedgerError::Stopped);
                }
            }
        }
    }

    /// The same jobs as [`Writer::run`] takes, grouped: whatever waits, up to `max_group`.
    fn next_group(&self, first: Job, jobs: &mpsc::Receiver<Job>) -> Vec<Job> {
        let mut group = vec![first];
        self.fill_group(&mut group, jobs);
        group
    }

    /// Adds to `group` whatever waits in `jobs`, up to `max_group` in all.
    fn fill_group(&self, group: &mut Vec<Job>, jobs: &mpsc::Receiver<Job>) {
        while group.len() < self.max_group {
            match jobs.try_recv() {
                Ok(job) => group.push(job),
                Err(_) => break,
            }
        }
    }

    fn version(
        &mut self,
        overlay: &HashMap<String, u64>,
        stream: &str,
    ) -> Result<u64, LedgerError> {
        if let Some(&v) = overlay.get(stream) {
            return Ok(v);
        }
        if let Some(&v) = self
            .versions
            .iter()
            .find_map(|generation| generation.get(stream))
        {
            return Ok(v);
        }
        let key = (cf::HEADS, stream.as_bytes().to_vec());
        if let Some(record) = self.prefetched.get(&key) {
            return Ok(record
                .as_deref()
                .and_then(super::store::be_u64)
                .unwrap_or(0));
        }
        // Not written in the last groups: what the store holds is current.
        Ok(self.storage.stream_version(stream)?)
    }

    /// Builds, signs and commits one group on this thread; answers every job. (Opening uses this
    /// to publish the key, or record a recovery, before the writer's thread starts.)
    pub(super) fn commit(&mut self, group: Vec<Job>) {
        match self.committer.take() {
            Some(mut committer) => {
                committer.commit_now(self, group);
                self.committer = Some(committer);
            }
            None => refuse_all(group, &LedgerError::Stopped),
        }
    }

    /// After a failed write, everything built on top of it was refused: start again from what the
    /// store holds.
    fn resync_if_failed(&mut self) {
        let failed = self.failed_through.load(Ordering::SeqCst);
        if failed < self.epoch {
            return;
        }
        self.epoch = failed + 1;
        self.versions = [HashMap::new(), HashMap::new()];
        self.recent = [HashMap::new(), HashMap::new()];
        match load_head(self.storage.as_ref()) {
            Ok((next, hash)) => {
                self.next_sequence = next;
                self.last_hash = hash;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot reload the chain head after a failed write")
            }
        }
        self.reload_key();
    }

    /// Reads the signing key again (after a failed write that may have staged a rotation).
    fn reload_key(&mut self) {
        match Keypair::load(&self.key_dir) {
            Ok(key) => self.key = Arc::new(key),
            Err(e) => {
                tracing::error!(error = %e, "cannot reload the signing key after a failed write")
            }
        }
    }

    /// Builds, chains and signs one group, advancing the chain head as if it will be written; the
    /// syncer writes it (or refuses it, if an earlier write failed).
    fn prepare(&mut self, jobs: Vec<Job>) -> Prepared {
        self.resync_if_failed();
        let jobs = if self.stopped.load(Ordering::SeqCst) {
            refuse_all(jobs, &LedgerError::AnchorStopped);
            Vec::new()
        } else {
            jobs
        };
        let mut group = Group {
            batch: Batch::default(),
            overlay: HashMap::new(),
            requests: HashMap::new(),
            pending: Vec::new(),
            sequence: self.next_sequence,
            prev: self.last_hash,
        };
        let mut signer = self.key.clone();
        let mut rotated: Option<(Arc<Keypair>, Arc<Keypair>)> = None;
        let mut appends: Vec<Answer<Appended>> = Vec::new();
        let mut rotations: Vec<Answer<KeyId>> = Vec::new();

        for job in jobs {
            match job {
                Job::Append(request, reply) => {
                    let result = self.stage(&request, &mut group, &signer);
                    appends.push((reply, result));
                }
                Job::PublishKey(at, reply) => {
                    let result = self.stage_publish(at, &mut group, &signer);
                    rotations.push((reply, result.map(|()| signer.id())));
                }
                Job::Sign(message, reply) => {
                    let _ = reply.send(Ok((signer.public(), signer.sign_message(&message))));
                }
                Job::Mirror(_, reply) => {
                    let _ = reply.send(Err(LedgerError::NotAMirror));
                }
                #[cfg(any(test, feature = "tamper"))]
                Job::Crash => panic!("the writer was told to crash"),
                Job::Rotate(at, actor, reply) => {
                    match self.stage_rotation(at, &actor, &mut group, &signer) {
                        Ok(next) => {
                            rotated = Some((signer.clone(), next.clone()));
                            rotations.push((reply, Ok(next.id())));
                            signer = next;
                        }
                        Err(e) => rotations.push((reply, Err(e))),
                    }
                }
            }
        }
        let Group {
            mut batch,
            overlay,
            requests,
            pending,
            ..
        } = group;

        // Sign: the hashes are chained already, so one signature seals every entry before it back
        // to the previous signed one; a group is signed once unless it is very large or changes key.
        let seals = seals(&pending);
        let sign = |(p, seal): (&Pending, &bool)| seal.then(|| p.signer.sign(&p.hash));
        let signatures: Vec<Option<[u8; 64]>> = pending.iter().zip(&seals).map(sign).collect();
        let stored = self.add_entries(&mut batch, &pending, &signatures);
        if !pending.is_empty() {
            self.stats
                .group_entries
                .observe(u64::try_from(pending.len()).unwrap_or(u64::MAX));
        }

        // Advance optimistically: the next group chains onto this one.
        if let Some(first) = pending.first().filter(|p| p.sequence == 0) {
            self.origin = Some(first.hash);
        }
        if let Some(last) = pending.last() {
            self.next_sequence = last.sequence + 1;
            self.last_hash = last.hash;
        }
        self.versions[0].extend(overlay);
        if let Some((_, next)) = &rotated {
            self.key = next.clone();
        }
        self.groups += 1;
        if self.groups.is_multiple_of(RECENT_GROUPS) {
            self.recent.swap(0, 1);
            self.recent[0].clear();
            self.versions.swap(0, 1);
            self.versions[0].clear();
        }
        self.recent[0].extend(requests);
        let appends = match stored {
            Ok(()) => appends,
            Err(e) => appends
                .into_iter()
                .map(|(reply, result)| (reply, result.and(Err(e.clone()))))
                .collect(),
        };
        Prepared {
            epoch: self.epoch,
            batch,
            durable: Durable {
                appends,
                rotations,
                rotated,
                next_sequence: self.next_sequence,
                last_hash: self.last_hash,
                origin: self.origin,
                key: self.key.clone(),
            },
        }
    }

    fn add_entries(
        &self,
        batch: &mut Batch,
        pending: &[Pending],
        signatures: &[Option<[u8; 64]>],
    ) -> Result<(), LedgerError> {
        if pending.len() != signatures.len() {
            return Err(LedgerError::SignatureCount {
                entries: pending.len(),
                signatures: signatures.len(),
            });
        }
        for (p, signature) in pending.iter().zip(signatures) {
            let entry = proto::StoredEntry {
                envelope: p.bytes.clone(),
                hash: p.hash.to_vec(),
                signature: signature.map_or_else(Vec::new, |s| s.to_vec()),
            };
            batch.put(cf::EVENTS, p.sequence.to_be_bytes(), entry.encode_to_vec());
        }
        Ok(())
    }

    fn stage(
        &mut self,
        request: &AppendRequest,
        group: &mut Group,
        signer: &Arc<Keypair>,
    ) -> Result<Appended, LedgerError> {
        let Group {
            batch,
            overlay,
            requests,
            pending,
            sequence,
            prev,
        } = group;
        if let Some(key) = &request.request {
            if let Some(first) = self.recorded(key, requests)? {
                return Ok(first);
            }
        }
        if request.payloads.is_empty() {
            return Err(LedgerError::Empty);
        }
        if request.stream.is_empty() || request.stream.contains('\0') {
            return Err(LedgerError::BadStream(request.stream.clone()));
        }
        let current = self.version(overlay, &request.stream)?;
        if let Expected::Version(expected) = request.expected {
            if expected != current {
                return Err(LedgerError::VersionConflict {
                    stream: request.stream.clone(),
                    expected,
                    actual: current,
                });
            }
        }
        if let Some(bytes) = request
            .payloads
            .iter()
            .map(|payload| stored_bound(request, payload))
            .find(|bytes| *bytes > crate::tiles::MAX_RECORD)
        {
            return Err(LedgerError::EntryTooLarge {
                stream: request.stream.clone(),
                bytes,
            });
        }
        let first_sequence = *sequence;
        for (i, payload) in request.payloads.iter().enumerate() {
            let position = current + i as u64;
            let envelope = proto::Envelope {
                sequence: *sequence,
                prev_hash: prev.to_vec(),
                stream: request.stream.clone(),
                stream_position: position,
                recorded_at_ms: request.recorded_at_ms,
                key_id: signer.id().0.to_vec(),
                payload: payload.clone(),
                actor: request.actor.clone(),
            };
            let bytes = envelope.encode_to_vec();
            let hash = entry_hash(&bytes);
            batch.put(
                cf::STREAMS,
                stream_key(&request.stream, position),
                sequence.to_be_bytes(),
            );
            pending.push(Pending {
                sequence: *sequence,
                bytes,
                hash,
                signer: signer.clone(),
                sealed: false,
            });
            *prev = hash;
            *sequence += 1;
        }
        let version = current + request.payloads.len() as u64;
        overlay.insert(request.stream.clone(), version);
        batch.put(cf::HEADS, request.stream.as_bytes(), version.to_be_bytes());
        for (name, key) in &request.indexes {
            batch.put(
                cf::INDEXES,
                index_key(name, key),
                first_sequence.to_be_bytes(),
            );
        }
        for (name, key) in &request.unindex {
            batch.delete(cf::INDEXES, index_key(name, key));
        }
        for (key, value) in &request.secrets {
            batch.put(cf::SECRETS, key.clone(), value.clone());
        }
        let appended = Appended {
            first_sequence,
            count: request.payloads.len() as u64,
            stream_version: version,
            duplicate: false,
        };
        if let Some(key) = &request.request {
            batch.put(
                cf::REQUESTS,
                key.id.as_bytes(),
                RequestRecord::encode(&appended, &key.fingerprint),
            );
            requests.insert(key.id.clone(), (appended.clone(), key.fingerprint));
        }
        Ok(appended)
    }

    /// A record as the group sees it: read after the head was locked (PostgreSQL), else from the
    /// store.
    fn stored_record(
        &self,
        family: &'static str,
        key: &[u8],
    ) -> Result<Option<Vec<u8>>, LedgerError> {
        match self.prefetched.get(&(family, key.to_vec())) {
            Some(record) => Ok(record.clone()),
            None => Ok(self.storage.get(family, key)?),
        }
    }

    /// The first result of a request id already used, staged in this group, in a recent one (maybe
    /// not durable yet) or stored: a retry if the fingerprints agree, refused if they differ. A
    /// stored record without a fingerprint (an earlier release's) is answered as a retry; the
    /// caller checks what it can.
    fn recorded(
        &self,
        key: &RequestKey,
        group: &HashMap<String, InFlight>,
    ) -> Result<Option<Appended>, LedgerError> {
        let in_flight = group
            .get(&key.id)
            .or_else(|| self.recent.iter().find_map(|r| r.get(&key.id)));
        let record = match in_flight {
            Some((appended, fingerprint)) => RequestRecord {
                appended: appended.clone(),
                fingerprint: Some(*fingerprint),
            },
            None => match self.stored_record(cf::REQUESTS, key.id.as_bytes())? {
                None => return Ok(None),
                Some(bytes) => RequestRecord::decode(&bytes)
                    .ok_or_else(|| LedgerError::DamagedRequestRecord { id: key.id.clone() })?,
            },
        };
        match record.fingerprint {
            Some(bound) if bound != key.fingerprint => {
                Err(LedgerError::RequestReused { id: key.id.clone() })
            }
            _ => Ok(Some(Appended {
                duplicate: true,
                ..record.appended
            })),
        }
    }
}

/// Answers every job with the ledger's stop.
/// The `meta` record naming the key that signs new entries (written with every key entry).
pub(crate) const CURRENT_KEY: &[u8] = b"current_key";

pub(super) fn refuse_all(jobs: Vec<Job>, error: &LedgerError) {
    for job in jobs {
        match job {
            Job::Append(_, reply) => {
                let _ = reply.send(Err(error.clone()));
            }
            Job::Rotate(_, _, reply) | Job::PublishKey(_, reply) => {
                let _ = reply.send(Err(error.clone()));
            }
            Job::Sign(_, reply) => {
                let _ = reply.send(Err(error.clone()));
            }
            Job::Mirror(_, reply) => {
                let _ = reply.send(Err(error.clone()));
            }
            #[cfg(any(test, feature = "tamper"))]
            Job::Crash => {}
        }
    }
}

/// The chain head recorded in the store: next sequence and last hash.
pub(super) fn load_head(store: &dyn LogStore) -> Result<(u64, Hash), LedgerError> {
    match store.last_entry()? {
        None => Ok((0, super::entry::GENESIS)),
        Some((sequence, bytes)) => {
            let entry = Entry::decode(&bytes).map_err(|e| LedgerError::Corrupt {
                sequence,
                problem: e.to_string(),
            })?;
            Ok((sequence + 1, entry.hash))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::anchor::AnchorWriter;
    use super::super::store::Store;
    use super::pipeline::Syncer;
    use super::*;

    /// Which entries are signed: each group's last, the last before the key changes, key entries,
    /// and enough others that no unsigned run reaches `SEAL_RUN`.
    #[test]
    fn a_group_is_sealed_at_its_end_at_a_key_change_at_key_entries_and_within_seal_run() {
        let a = Arc::new(Keypair::from_secret([1; 32]));
        let b = Arc::new(Keypair::from_secret([2; 32]));
        let pending = |keys: &[(&Arc<Keypair>, bool)]| -> Vec<Pending> {
            keys.iter()
                .enumerate()
                .map(|(i, (signer, sealed))| Pending {
                    sequence: i as u64,
                    bytes: Vec::new(),
                    hash: [0; 32],
                    signer: Arc::clone(signer),
                    sealed: *sealed,
                })
                .collect()
        };
        let signed = |p: &[Pending]| -> Vec<usize> {
            seals(p)
                .iter()
                .enumerate()
                .filter(|(_, s)| **s)
                .map(|(i, _)| i)
                .collect()
        };
        assert!(seals(&[]).is_empty());
        assert_eq!(signed(&pending(&[(&a, false)])), vec![0]);
        assert_eq!(signed(&pending(&[(&a, false); 5])), vec![4]);
        // A rotation inside a group: the old key's last entry, the key entry, the group's end.
        let rotation = [
            (&a, false),
            (&a, false),
            (&b, true),
            (&b, false),
            (&b, false),
        ];
        assert_eq!(signed(&pending(&rotation)), vec![1, 2, 4]);
        // A long group: every SEAL_RUN-th entry and the last.
        let long = pending(&vec![(&a, false); 2 * SEAL_RUN + 5]);
        assert_eq!(
            signed(&long),
            vec![SEAL_RUN - 1, 2 * SEAL_RUN - 1, 2 * SEAL_RUN + 4]
        );
    }

    /// A payload of a kind the ledger does not read: field 9 of `pitboss.v1.Payload` (a
    /// published configuration, to the root crate) holding 32 bytes `n`.
    fn opaque_payload(n: u8) -> Vec<u8> {
        let mut payload = vec![0x4a, 34, 0x0a, 32];
        payload.extend([n; 32]);
        payload
    }

    fn append(stream: &str, n: u8) -> (Job, oneshot::Receiver<Result<Appended, LedgerError>>) {
        let (reply, answer) = oneshot::channel();
        let request = AppendRequest {
            stream: stream.into(),
            expected: Expected::Any,
            payloads: vec![opaque_payload(n)],
            request: Some(RequestKey {
                id: format!("req-{n}"),
                fingerprint: Fingerprint([n; 32]),
            }),
            indexes: Vec::new(),
            secrets: Vec::new(),
            unindex: Vec::new(),
            recorded_at_ms: 0,
            actor: String::new(),
        };
        (Job::Append(request, reply), answer)
    }

    /// A writer on a fresh store in `dir`, anchoring to `anchor_path` with the anchorer returned.
    fn writer_in(
        dir: &std::path::Path,
        anchor_path: &std::path::Path,
    ) -> (Arc<Store>, Writer, Anchorer) {
        let store = Arc::new(Store::open(dir).unwrap());
        let (key, _) = Keypair::load_or_create(dir).unwrap();
        let file = AnchorWriter::create(
            &super::super::anchor::path_in(dir),
            0,
            super::super::entry::GENESIS,
            super::super::entry::GENESIS,
            &key,
        )
        .unwrap();
        let file = if anchor_path == super::super::anchor::path_in(dir) {
            file
        } else {
            AnchorWriter::open(anchor_path, 1).unwrap()
        };
        let writer = Writer::new(
            store.clone(),
            Box::new(Pipeline::new(store.clone(), Anchorer::new(None, 0))),
            dir.to_path_buf(),
            key,
            (0, super::super::entry::GENESIS),
            None,
        );
        let mut anchorer = Anchorer::new(Some(file), 0);
        anchorer.attach(&writer);
        (store, writer, anchorer)
    }

    /// Writes a prepared group with `syncer` and anchors it with `anchorer`.
    fn land(anchorer: &mut Anchorer, syncer: &Syncer, prepared: Prepared) {
        if let Some(durable) = syncer.apply(prepared) {
            anchorer.finish(vec![durable]);
        }
    }

    /// A failed write refuses the groups built on top of it, and the writer starts again from what
    /// the store holds: nothing acknowledged, nothing lost, the chain intact; every answer comes
    /// after the anchor records the group.
    #[test]
    fn a_failed_write_refuses_later_groups_and_the_writer_resyncs() {
        let dir = tempfile::tempdir().unwrap();
        let anchor_path = super::super::anchor::path_in(dir.path());
        let (store, mut writer, mut anchorer) = writer_in(dir.path(), &anchor_path);
        // A syncer whose store cannot write (opened read-only), sharing the writer's failure flag.
        let failing = Syncer {
            store: Arc::new(Store::open_read_only(dir.path()).unwrap()),
            failed_through: writer.failed_through.clone(),
            stats: writer.stats.clone(),
        };
        let working = Syncer {
            store: store.clone(),
            failed_through: writer.failed_through.clone(),
            stats: writer.stats.clone(),
        };
        // The key's entry first (sequence 0), written.
        let (reply, mut published) = oneshot::channel();
        let prepared = writer.prepare(vec![Job::PublishKey(0, reply)]);
        land(&mut anchorer, &working, prepared);
        assert!(published.try_recv().unwrap().is_ok());
        let anchored = super::super::anchor::read(&anchor_path).unwrap().unwrap();
        assert_eq!(anchored.newer.size, 1);
        let first =
            Entry::decode(&store.get(cf::EVENTS, &0u64.to_be_bytes()).unwrap().unwrap()).unwrap();
        assert_eq!(
            (anchored.newer.head, anchored.newer.origin),
            (first.hash, first.hash)
        );
        let (a, mut answer_a) = append("s", 1);
        let (b, mut answer_b) = append("s", 2);
        let prepared_a = writer.prepare(vec![a]);
        let prepared_b = writer.prepare(vec![b]);
        assert_eq!(
            writer.next_sequence, 3,
            "b was chained onto a before a was written"
        );
        land(&mut anchorer, &failing, prepared_a);
        land(&mut anchorer, &failing, prepared_b);
        assert!(matches!(
            answer_a.try_recv().unwrap(),
            Err(LedgerError::Store(_))
        ));
        assert!(matches!(
            answer_b.try_recv().unwrap(),
            Err(LedgerError::EarlierWriteFailed)
        ));
        assert_eq!(
            super::super::anchor::read(&anchor_path)
                .unwrap()
                .unwrap()
                .newer
                .size,
            1,
            "nothing refused is anchored"
        );

        let (c, mut answer_c) = append("s", 3);
        let prepared_c = writer.prepare(vec![c]);
        assert_eq!(writer.epoch, 2, "a new epoch after the failure");
        land(&mut anchorer, &working, prepared_c);
        let appended = answer_c.try_recv().unwrap().unwrap();
        assert_eq!(
            (appended.first_sequence, appended.stream_version),
            (1, 1),
            "nothing of a or b was kept"
        );
        // A retry of a's request id is not mistaken for a recorded request.
        let (again, mut answer_again) = append("s", 1);
        let prepared = writer.prepare(vec![again]);
        land(&mut anchorer, &working, prepared);
        let again = answer_again.try_recv().unwrap().unwrap();
        assert!(!again.duplicate);
        assert_eq!(again.first_sequence, 2);
        let report = super::super::verify(store.as_ref(), 0, None);
        assert!(report.ok(), "{:?}", report.problem);
        assert_eq!(report.verified, 3);
        let anchored = super::super::anchor::read(&anchor_path).unwrap().unwrap();
        assert_eq!(
            (anchored.newer.size, Some(anchored.newer.head)),
            (3, report.head.map(|h| h.1))
        );
    }

    /// The writer remembers the stream versions of its last groups only (bounded whatever the
    /// number of hands), yet a stream written long ago continues at its next position (read back
    /// from the store), and one still in flight (built, not yet written) at the position after
    /// its staged entry.
    #[test]
    fn the_writer_remembers_only_recent_streams_and_still_counts_right() {
        let dir = tempfile::tempdir().unwrap();
        let anchor_path = super::super::anchor::path_in(dir.path());
        let (store, mut writer, mut anchorer) = writer_in(dir.path(), &anchor_path);
        let syncer = Syncer {
            store: store.clone(),
            failed_through: writer.failed_through.clone(),
            stats: writer.stats.clone(),
        };
        let mut run = |writer: &mut Writer, job| {
            let prepared = writer.prepare(vec![job]);
            land(&mut anchorer, &syncer, prepared);
        };
        let (reply, _published) = oneshot::channel();
        run(&mut writer, Job::PublishKey(0, reply));
        let (old, mut answer) = append("old", 0);
        run(&mut writer, old);
        assert_eq!(answer.try_recv().unwrap().unwrap().stream_version, 1);
        let groups = 2 * RECENT_GROUPS as u8 + 2;
        for n in 1..=groups {
            let (job, _) = append(&format!("s{n}"), n);
            run(&mut writer, job);
        }
        let remembered: usize = writer.versions.iter().map(HashMap::len).sum();
        assert!(remembered <= 2 * RECENT_GROUPS as usize, "{remembered}");
        assert!(writer.versions.iter().all(|g| !g.contains_key("old")));
        // Long ago: read from the store.
        let (again, mut answer) = append("old", groups + 1);
        run(&mut writer, again);
        assert_eq!(answer.try_recv().unwrap().unwrap().stream_version, 2);
        // In flight: the second group is built before the first is written.
        let (first, mut first_answer) = append("new", groups + 2);
        let (second, mut second_answer) = append("new", groups + 3);
        let first = writer.prepare(vec![first]);
        let second = writer.prepare(vec![second]);
        land(&mut anchorer, &syncer, first);
        land(&mut anchorer, &syncer, second);
        assert_eq!(first_answer.try_recv().unwrap().unwrap().stream_version, 1);
        assert_eq!(second_answer.try_recv().unwrap().unwrap().stream_version, 2);
        let report = super::super::verify(store.as_ref(), 0, None);
        assert!(report.ok(), "{:?}", report.problem);
        assert_eq!(report.verified, 1 + 1 + u64::from(groups) + 1 + 2);
    }

    /// An anchor that cannot be written refuses the group (durable in the WAL, never
    /// acknowledged) and stops the ledger: everything after it is refused too.
    #[cfg(target_os = "linux")]
    #[test]
    fn an_anchor_that_cannot_be_written_stops_the_ledger() {
        let dir = tempfile::tempdir().unwrap();
        // Writes to /dev/full fail with "no space left on device".
        let (store, mut writer, mut anchorer) =
            writer_in(dir.path(), std::path::Path::new("/dev/full"));
        let working = Syncer {
            store: store.clone(),
            failed_through: writer.failed_through.clone(),
            stats: writer.stats.clone(),
        };
        let (a, mut answer_a) = append("s", 1);
        let prepared = writer.prepare(vec![a]);
        land(&mut anchorer, &working, prepared);
        let refused = answer_a.try_recv().unwrap().unwrap_err();
        assert!(
            matches!(&refused, LedgerError::Anchor { path, .. } if path.starts_with("/dev/full")),
            "{refused}"
        );
        assert!(writer.stopped.load(Ordering::SeqCst));
        let (b, mut answer_b) = append("s", 2);
        let prepared = writer.prepare(vec![b]);
        land(&mut anchorer, &working, prepared);
        assert!(matches!(
            answer_b.try_recv().unwrap(),
            Err(LedgerError::AnchorStopped)
        ));
        assert_eq!(
            store.last_entry().unwrap().map(|(s, _)| s),
            Some(0),
            "b was not written"
        );
    }
}
