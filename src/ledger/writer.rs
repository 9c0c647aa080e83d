//! The single writer: it takes append requests from any number of callers, groups whatever is
//! waiting into one RocksDB write batch (group commit), chains, hashes and signs the entries, and
//! hands the batch to the syncer thread, which writes it with a synced WAL and only then answers
//! each caller. So an acknowledged entry is durable, a batch is all or nothing, durability costs
//! one fsync per group, not per entry, and the next group is built and signed while the previous
//! one is being synced (a pipeline of two stages). A failed write refuses every group built on top
//! of it; the writer then starts again from the store's head.
//!
//! Per request it checks the stream's expected version (against the store and earlier requests of
//! the same group) and the request id (a retry returns the first result and writes nothing).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

use prost::Message;
use rocksdb::{WriteBatch, WriteOptions};
use tokio::sync::oneshot;

use super::entry::{entry_hash, Entry, Hash};
use super::keys::{KeyId, Keypair, KEY_FILE, RETIRED_DIR};
use super::store::{be_u64, cf, index_key, stream_key, Store};
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
    /// A retry with the same id returns the first result and writes nothing.
    pub request_id: Option<String>,
    /// Secondary index entries to write with the entries: (index name, key).
    pub indexes: Vec<(String, Vec<u8>)>,
    /// Index entries to remove in the same batch (an index of what is still open): (name, key).
    pub unindex: Vec<(String, Vec<u8>)>,
    /// Values kept beside the log, outside the chain, written in the same batch (a hand's seed
    /// until the hand reveals it): (key, value) in the `secrets` family.
    pub secrets: Vec<(Vec<u8>, Vec<u8>)>,
    /// When the ledger records it (ms since the Unix epoch); the caller's clock.
    pub recorded_at_ms: u64,
}

pub(super) enum Job {
    Append(
        AppendRequest,
        oneshot::Sender<Result<Appended, LedgerError>>,
    ),
    Rotate(u64, oneshot::Sender<Result<KeyId, LedgerError>>),
    PublishKey(u64, oneshot::Sender<Result<KeyId, LedgerError>>),
    /// Sign a message (a checkpoint) with the current key; answered at once, nothing written.
    Sign(Vec<u8>, oneshot::Sender<Result<SignedBy, LedgerError>>),
}

/// A signature and the public key that made it.
pub(super) type SignedBy = (ed25519_dalek::VerifyingKey, [u8; 64]);

/// A reply channel and the answer to send on it once the group is durable.
type Answer<T> = (
    oneshot::Sender<Result<T, LedgerError>>,
    Result<T, LedgerError>,
);

/// The writer's state: the chain head, the signing key, and a cache of stream versions.
pub(super) struct Writer {
    store: Arc<Store>,
    key: Arc<Keypair>,
    next_sequence: u64,
    last_hash: Hash,
    versions: HashMap<String, u64>,
    max_group: usize,
    /// Announces the next sequence number after each durable group (for live event streams).
    head: tokio::sync::watch::Sender<u64>,
    /// Groups are built in epochs; a failed write ends its epoch (see `Syncer`).
    epoch: u64,
    /// The highest epoch in which a write failed (0: none).
    failed_through: Arc<AtomicU64>,
    /// Request ids of the last groups, which may not be durable yet (two generations).
    recent: [HashMap<String, Appended>; 2],
    groups: u64,
}

/// How many groups a generation of `recent` request ids spans; far more than can be in flight.
const RECENT_GROUPS: u64 = 64;

/// A group built and signed, ready to be written.
pub(super) struct Prepared {
    epoch: u64,
    batch: WriteBatch,
    appends: Vec<Answer<Appended>>,
    rotations: Vec<Answer<KeyId>>,
    rotated: Option<(Arc<Keypair>, Arc<Keypair>)>,
    next_sequence: u64,
}

/// Writes prepared groups in order, each with a synced WAL, and only then answers their callers.
/// If a write fails, it and every later group of the same epoch (built on top of it) are refused,
/// and the writer starts a new epoch from what the store holds.
struct Syncer {
    store: Arc<Store>,
    head: tokio::sync::watch::Sender<u64>,
    failed_through: Arc<AtomicU64>,
}

impl Syncer {
    fn run(self, groups: mpsc::Receiver<Prepared>) {
        while let Ok(prepared) = groups.recv() {
            self.apply(prepared);
        }
    }

    fn fail(prepared: Prepared, error: LedgerError) {
        for (reply, result) in prepared.appends {
            let _ = reply.send(result.and(Err(error.clone())));
        }
        for (reply, _) in prepared.rotations {
            let _ = reply.send(Err(error.clone()));
        }
    }

    fn apply(&self, prepared: Prepared) {
        if prepared.epoch <= self.failed_through.load(Ordering::SeqCst) {
            return Syncer::fail(
                prepared,
                LedgerError::Storage("an earlier write failed; this group was not written".into()),
            );
        }
        let mut options = WriteOptions::default();
        options.set_sync(true);
        let Prepared {
            epoch,
            batch,
            appends,
            rotations,
            rotated,
            next_sequence,
        } = prepared;
        let written = if batch.is_empty() {
            Ok(())
        } else {
            self.store
                .db()
                .write_opt(batch, &options)
                .map_err(|e| LedgerError::Storage(e.to_string()))
        };
        match written {
            Ok(()) => {
                self.head.send_replace(next_sequence);
                for (reply, result) in appends {
                    let _ = reply.send(result);
                }
                for (reply, result) in rotations {
                    let _ = reply.send(result);
                }
                if let Some((old, next)) = rotated {
                    // The rotation is durable in the log: make the new key the key file.
                    if let Err(e) = finish_rotation(&self.store, &old, &next) {
                        tracing::error!(error = %e, "key rotation logged but the key file could not be replaced");
                    }
                }
            }
            Err(e) => {
                self.failed_through.fetch_max(epoch, Ordering::SeqCst);
                Syncer::fail(
                    Prepared {
                        epoch,
                        batch: WriteBatch::default(),
                        appends,
                        rotations,
                        rotated: None,
                        next_sequence,
                    },
                    e,
                );
            }
        }
    }
}

/// The group being built: its batch, the stream versions and request ids it has staged, its
/// entries, and where the chain stands after them.
struct Group {
    batch: WriteBatch,
    overlay: HashMap<String, u64>,
    requests: HashMap<String, Appended>,
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
}

impl Writer {
    pub(super) fn new(
        store: Arc<Store>,
        key: Keypair,
        next_sequence: u64,
        last_hash: Hash,
    ) -> Writer {
        Writer {
            store,
            key: Arc::new(key),
            next_sequence,
            last_hash,
            versions: HashMap::new(),
            max_group: 4096,
            head: tokio::sync::watch::Sender::new(next_sequence),
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

    pub(super) fn key_id(&self) -> KeyId {
        self.key.id()
    }

    /// Runs until every sender is gone. Two stages overlap: this thread builds, chains and signs
    /// group n+1 while the syncer thread writes group n with a synced WAL and answers its callers.
    pub(super) fn run(mut self, jobs: mpsc::Receiver<Job>) {
        let (to_syncer, from_writer) = mpsc::sync_channel::<Prepared>(2);
        let syncer = Syncer {
            store: self.store.clone(),
            head: self.head.clone(),
            failed_through: self.failed_through.clone(),
        };
        std::thread::scope(|scope| {
            let handle = std::thread::Builder::new()
                .name("ledger-sync".into())
                .spawn_scoped(scope, move || syncer.run(from_writer));
            if handle.is_err() {
                tracing::error!("cannot start the ledger's sync thread; writing synchronously");
            }
            while let Ok(first) = jobs.recv() {
                let mut group = vec![first];
                while group.len() < self.max_group {
                    match jobs.try_recv() {
                        Ok(job) => group.push(job),
                        Err(_) => break,
                    }
                }
                let prepared = self.prepare(group);
                match &handle {
                    Ok(_) => {
                        if let Err(mpsc::SendError(prepared)) = to_syncer.send(prepared) {
                            Syncer::fail(prepared, LedgerError::Stopped);
                            break;
                        }
                    }
                    Err(_) => Syncer {
                        store: self.store.clone(),
                        head: self.head.clone(),
                        failed_through: self.failed_through.clone(),
                    }
                    .apply(prepared),
                }
            }
            drop(to_syncer);
        });
    }

    fn version(
        &mut self,
        overlay: &HashMap<String, u64>,
        stream: &str,
    ) -> Result<u64, LedgerError> {
        if let Some(&v) = overlay.get(stream) {
            return Ok(v);
        }
        if let Some(&v) = self.versions.get(stream) {
            return Ok(v);
        }
        let v = self.store.stream_version(stream)?;
        self.versions.insert(stream.to_string(), v);
        Ok(v)
    }

    /// Builds, signs and writes one group on this thread; answers every job. (Opening uses this
    /// to publish the key before the threads start.)
    pub(super) fn commit(&mut self, group: Vec<Job>) {
        let prepared = self.prepare(group);
        Syncer {
            store: self.store.clone(),
            head: self.head.clone(),
            failed_through: self.failed_through.clone(),
        }
        .apply(prepared);
    }

    /// After a failed write, everything built on top of it was refused: start again from what the
    /// store holds.
    fn resync_if_failed(&mut self) {
        let failed = self.failed_through.load(Ordering::SeqCst);
        if failed < self.epoch {
            return;
        }
        self.epoch = failed + 1;
        self.versions.clear();
        self.recent = [HashMap::new(), HashMap::new()];
        match load_head(&self.store) {
            Ok((next, hash)) => {
                self.next_sequence = next;
                self.last_hash = hash;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot reload the chain head after a failed write")
            }
        }
        match Keypair::load_or_create(self.store.path()) {
            Ok((key, _)) => self.key = Arc::new(key),
            Err(e) => {
                tracing::error!(error = %e, "cannot reload the signing key after a failed write")
            }
        }
    }

    /// Builds, chains and signs one group, advancing the chain head as if it will be written; the
    /// syncer writes it (or refuses it, if an earlier write failed).
    fn prepare(&mut self, jobs: Vec<Job>) -> Prepared {
        self.resync_if_failed();
        let mut group = Group {
            batch: WriteBatch::default(),
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
                Job::Rotate(at, reply) => match self.stage_rotation(at, &mut group, &signer) {
                    Ok(next) => {
                        rotated = Some((signer.clone(), next.clone()));
                        rotations.push((reply, Ok(next.id())));
                        signer = next;
                    }
                    Err(e) => rotations.push((reply, Err(e))),
                },
            }
        }
        let Group {
            mut batch,
            overlay,
            requests,
            pending,
            ..
        } = group;

        // Sign: the hashes are chained already; signatures are independent of each other, so a
        // large group is signed on two threads.
        let sign = |p: &Pending| p.signer.sign(&p.hash);
        let signatures: Vec<[u8; 64]> = if pending.len() >= 64 {
            let (left, right) = pending.split_at(pending.len() / 2);
            std::thread::scope(|s| {
                let handle = s.spawn(|| right.iter().map(sign).collect::<Vec<_>>());
                let mut out: Vec<[u8; 64]> = left.iter().map(sign).collect();
                out.extend(handle.join().unwrap_or_default());
                out
            })
        } else {
            pending.iter().map(sign).collect()
        };
        let stored = self.add_entries(&mut batch, &pending, &signatures);

        // Advance optimistically: the next group chains onto this one.
        if let Some(last) = pending.last() {
            self.next_sequence = last.sequence + 1;
            self.last_hash = last.hash;
        }
        self.versions.extend(overlay);
        if let Some((_, next)) = &rotated {
            self.key = next.clone();
        }
        self.groups += 1;
        if self.groups.is_multiple_of(RECENT_GROUPS) {
            self.recent.swap(0, 1);
            self.recent[0].clear();
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
            appends,
            rotations,
            rotated,
            next_sequence: self.next_sequence,
        }
    }

    fn add_entries(
        &self,
        batch: &mut WriteBatch,
        pending: &[Pending],
        signatures: &[[u8; 64]],
    ) -> Result<(), LedgerError> {
        let events = self.store.cf(cf::EVENTS)?;
        for (p, signature) in pending.iter().zip(signatures) {
            let entry = proto::StoredEntry {
                envelope: p.bytes.clone(),
                hash: p.hash.to_vec(),
                signature: signature.to_vec(),
            };
            batch.put_cf(events, p.sequence.to_be_bytes(), entry.encode_to_vec());
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
        if let Some(id) = &request.request_id {
            let in_flight = requests
                .get(id)
                .or_else(|| self.recent.iter().find_map(|r| r.get(id)));
            if let Some(first) = in_flight {
                return Ok(Appended {
                    duplicate: true,
                    ..first.clone()
                });
            }
            if let Some(stored) = self.store.get(cf::REQUESTS, id.as_bytes())? {
                return Appended::decode_stored(&stored, true).ok_or_else(|| {
                    LedgerError::Storage(format!("request record `{id}` is damaged"))
                });
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
        let first_sequence = *sequence;
        let streams = self.store.cf(cf::STREAMS)?;
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
            };
            let bytes = envelope.encode_to_vec();
            let hash = entry_hash(&bytes);
            batch.put_cf(
                streams,
                stream_key(&request.stream, position),
                sequence.to_be_bytes(),
            );
            pending.push(Pending {
                sequence: *sequence,
                bytes,
                hash,
                signer: signer.clone(),
            });
            *prev = hash;
            *sequence += 1;
        }
        let version = current + request.payloads.len() as u64;
        overlay.insert(request.stream.clone(), version);
        batch.put_cf(
            self.store.cf(cf::HEADS)?,
            request.stream.as_bytes(),
            version.to_be_bytes(),
        );
        let indexes = self.store.cf(cf::INDEXES)?;
        for (name, key) in &request.indexes {
            batch.put_cf(indexes, index_key(name, key), first_sequence.to_be_bytes());
        }
        for (name, key) in &request.unindex {
            batch.delete_cf(indexes, index_key(name, key));
        }
        let secrets = self.store.cf(cf::SECRETS)?;
        for (key, value) in &request.secrets {
            batch.put_cf(secrets, key, value);
        }
        let appended = Appended {
            first_sequence,
            count: request.payloads.len() as u64,
            stream_version: version,
            duplicate: false,
        };
        if let Some(id) = &request.request_id {
            batch.put_cf(
                self.store.cf(cf::REQUESTS)?,
                id.as_bytes(),
                appended.encode_stored(),
            );
            requests.insert(id.clone(), appended.clone());
        }
        Ok(appended)
    }

    /// Stages a `KeyRotated` entry signed by a new key, with the old key's signature inside, and
    /// writes the new key to `signing.key.next` first, so a crash in between loses nothing.
    fn stage_rotation(
        &mut self,
        at: u64,
        group: &mut Group,
        old: &Arc<Keypair>,
    ) -> Result<Arc<Keypair>, LedgerError> {
        let next = Arc::new(Keypair::generate().map_err(|e| LedgerError::Key(e.to_string()))?);
        next.write_to(&self.store.path().join(format!("{KEY_FILE}.next")))
            .map_err(|e| LedgerError::Key(e.to_string()))?;
        let rotated = proto::payload::Kind::KeyRotated(proto::KeyRotated {
            old_key_id: old.id().0.to_vec(),
            new_key_id: next.id().0.to_vec(),
            new_public_key: next.public().as_bytes().to_vec(),
            old_key_signature: old.sign_successor(&next).to_vec(),
        });
        self.stage_key_entry(at, group, &next, rotated, Expected::Version(0))?;
        Ok(next)
    }

    /// Stages the `KeyPublished` entry of the current key, signed by itself.
    fn stage_publish(
        &mut self,
        at: u64,
        group: &mut Group,
        key: &Arc<Keypair>,
    ) -> Result<(), LedgerError> {
        let published = proto::payload::Kind::KeyPublished(proto::KeyPublished {
            key_id: key.id().0.to_vec(),
            public_key: key.public().as_bytes().to_vec(),
        });
        self.stage_key_entry(at, group, key, published, Expected::Any)
    }

    /// Stages a key's entry in its stream `key/<id>`, signed by that key, and records the public
    /// key in the `keys` family in the same batch.
    fn stage_key_entry(
        &mut self,
        at: u64,
        group: &mut Group,
        key: &Arc<Keypair>,
        kind: proto::payload::Kind,
        expected: Expected,
    ) -> Result<(), LedgerError> {
        let request = AppendRequest {
            stream: format!("key/{}", key.id()),
            expected,
            payloads: vec![proto::Payload { kind: Some(kind) }.encode_to_vec()],
            request_id: None,
            indexes: Vec::new(),
            secrets: Vec::new(),
            unindex: Vec::new(),
            recorded_at_ms: at,
        };
        self.stage(&request, group, key)?;
        group.batch.put_cf(
            self.store.cf(cf::KEYS)?,
            key.id().0,
            key.public().as_bytes(),
        );
        Ok(())
    }
}

/// Replaces the key file with the new key and keeps the old one under `retired-keys/`.
fn finish_rotation(store: &Store, old: &Keypair, next: &Keypair) -> Result<(), LedgerError> {
    let dir = store.path();
    let retired = dir.join(RETIRED_DIR);
    std::fs::create_dir_all(&retired).map_err(|e| LedgerError::Key(e.to_string()))?;
    old.write_to(&retired.join(format!("{}.key", old.id())))
        .map_err(|e| LedgerError::Key(e.to_string()))?;
    std::fs::rename(dir.join(format!("{KEY_FILE}.next")), dir.join(KEY_FILE))
        .map_err(|e| LedgerError::Key(e.to_string()))?;
    let _ = next;
    Ok(())
}

/// At open: a `signing.key.next` left by a crash mid-rotation becomes the key if the log has the
/// rotation, and is discarded otherwise.
pub(super) fn recover_rotation(store: &Store) -> Result<(), LedgerError> {
    let dir = store.path();
    let next_path = dir.join(format!("{KEY_FILE}.next"));
    let Ok(bytes) = std::fs::read(&next_path) else {
        return Ok(());
    };
    let Ok(secret) = <[u8; 32]>::try_from(bytes.as_slice()) else {
        let _ = std::fs::remove_file(&next_path);
        return Ok(());
    };
    let next = Keypair::from_secret(secret);
    if store.get(cf::KEYS, &next.id().0)?.is_some() {
        let (old, _) = Keypair::load_or_create(dir).map_err(|e| LedgerError::Key(e.to_string()))?;
        finish_rotation(store, &old, &next)
    } else {
        std::fs::remove_file(&next_path).map_err(|e| LedgerError::Key(e.to_string()))
    }
}

impl Appended {
    fn encode_stored(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(24);
        out.extend_from_slice(&self.first_sequence.to_be_bytes());
        out.extend_from_slice(&self.count.to_be_bytes());
        out.extend_from_slice(&self.stream_version.to_be_bytes());
        out
    }

    fn decode_stored(bytes: &[u8], duplicate: bool) -> Option<Appended> {
        Some(Appended {
            first_sequence: be_u64(bytes.get(0..8)?)?,
            count: be_u64(bytes.get(8..16)?)?,
            stream_version: be_u64(bytes.get(16..24)?)?,
            duplicate,
        })
    }
}

/// The chain head recorded in the store: next sequence and last hash.
pub(super) fn load_head(store: &Store) -> Result<(u64, Hash), LedgerError> {
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
    use super::*;

    fn append(stream: &str, n: u8) -> (Job, oneshot::Receiver<Result<Appended, LedgerError>>) {
        let (reply, answer) = oneshot::channel();
        let request = AppendRequest {
            stream: stream.into(),
            expected: Expected::Any,
            payloads: vec![proto::Payload {
                kind: Some(proto::payload::Kind::ConfigPublished(
                    proto::ConfigPublished {
                        config_id: vec![n; 32],
                        canonical_json: b"{}".to_vec(),
                    },
                )),
            }
            .encode_to_vec()],
            request_id: Some(format!("req-{n}")),
            indexes: Vec::new(),
            secrets: Vec::new(),
            unindex: Vec::new(),
            recorded_at_ms: 0,
        };
        (Job::Append(request, reply), answer)
    }

    /// A failed write refuses the groups built on top of it, and the writer starts again from what
    /// the store holds: nothing acknowledged, nothing lost, the chain intact.
    #[test]
    fn a_failed_write_refuses_later_groups_and_the_writer_resyncs() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(dir.path()).unwrap());
        let (key, _) = Keypair::load_or_create(dir.path()).unwrap();
        let mut writer = Writer::new(store.clone(), key, 0, super::super::entry::GENESIS);
        // A syncer whose store cannot write (opened read-only), sharing the writer's failure flag.
        let failing = Syncer {
            store: Arc::new(Store::open_read_only(dir.path()).unwrap()),
            head: writer.head.clone(),
            failed_through: writer.failed_through.clone(),
        };
        let working = Syncer {
            store: store.clone(),
            head: writer.head.clone(),
            failed_through: writer.failed_through.clone(),
        };
        // The key's entry first (sequence 0), written.
        let (reply, mut published) = oneshot::channel();
        working.apply(writer.prepare(vec![Job::PublishKey(0, reply)]));
        assert!(published.try_recv().unwrap().is_ok());
        let (a, mut answer_a) = append("s", 1);
        let (b, mut answer_b) = append("s", 2);
        let prepared_a = writer.prepare(vec![a]);
        let prepared_b = writer.prepare(vec![b]);
        assert_eq!(
            writer.next_sequence, 3,
            "b was chained onto a before a was written"
        );
        failing.apply(prepared_a);
        failing.apply(prepared_b);
        assert!(matches!(
            answer_a.try_recv().unwrap(),
            Err(LedgerError::Storage(_))
        ));
        assert!(
            matches!(answer_b.try_recv().unwrap(), Err(LedgerError::Storage(e)) if e.contains("earlier write failed"))
        );

        let (c, mut answer_c) = append("s", 3);
        let prepared_c = writer.prepare(vec![c]);
        assert_eq!(writer.epoch, 2, "a new epoch after the failure");
        working.apply(prepared_c);
        let appended = answer_c.try_recv().unwrap().unwrap();
        assert_eq!(
            (appended.first_sequence, appended.stream_version),
            (1, 1),
            "nothing of a or b was kept"
        );
        // A retry of a's request id is not mistaken for a recorded request.
        let (again, mut answer_again) = append("s", 1);
        working.apply(writer.prepare(vec![again]));
        let again = answer_again.try_recv().unwrap().unwrap();
        assert!(!again.duplicate);
        assert_eq!(again.first_sequence, 2);
        let report = super::super::verify(&store, 0, None);
        assert!(report.ok(), "{:?}", report.problem);
        assert_eq!(report.verified, 3);
    }
}
