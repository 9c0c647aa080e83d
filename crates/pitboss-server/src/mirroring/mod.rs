//! A regulator's mirror (`pitboss mirror`): follows another server's log over gRPC
//! (`StreamEvents` with the stored entries, from the copy's end), offers every entry to the copy —
//! which writes only what verifies, as `pitboss verify` checks it (`pitboss_ledger::mirror`) — and
//! holds the log's own checkpoints once they check against the copy. The mirror is a cosigner
//! (C2SP `tlog-mirror`): its embedded witness cosigns each checkpoint it holds, from the size it
//! cosigned before with a consistency proof computed from its own copy, so that its cosignature
//! says "this tree is held here". A log that shows it another tree — an entry that does not
//! extend the copy, or a checkpoint whose root is not the copy's — stops the copy; the mirror asks
//! the log for its checkpoint of the size it cosigned last, and its witness keeps both signed
//! checkpoints as the evidence `pitboss verify-evidence` checks offline.
//!
//! Owns the following and the checkpoints published (the held one, with the mirror's cosignature).
//! It MUST NOT write to the copy but through the floor's `mirror` (the ledger verifies), MUST NOT
//! cosign a tree the copy does not hold (`gate`), and MUST NOT go on after a fork: the copy stops
//! where the log stopped being the one it followed, and says so loudly (the server's log, the
//! `pitboss.mirror` health service, the metrics).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use pitboss_ledger::mirror::{Held, HoldError};
use pitboss_ledger::LedgerError;
use pitboss_witness::note::Note;
use pitboss_witness::request::AddCheckpoint;
use pitboss_witness::{Inconsistency, Refused, Witness, WitnessError};

use crate::floor::Floor;
use crate::proto;
use crate::proto::audit_client::AuditClient;
use pitboss_client::Authorized;

/// How the mirror follows.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// How often the log's checkpoint is asked for (and an idle stream looked at).
    pub every: Duration,
    /// Entries offered to the copy at once, at most.
    pub batch: usize,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            every: Duration::from_secs(1),
            batch: 1024,
        }
    }
}

/// A checkpoint the mirror publishes (the audit's: a mirror's bundles rest on it).
pub use crate::audit::bundle::Published;

/// A mirror proves its bundles with the trees its copy holds and its own statements.
impl crate::audit::bundle::Mirror for Mirroring {
    fn newest(&self) -> Option<Published> {
        Mirroring::newest(self)
    }

    fn cosigned(&self) -> Option<Published> {
        Mirroring::cosigned(self)
    }

    fn statement(&self, published: &Published, extension: &str) -> Result<String, String> {
        Mirroring::statement(self, published, extension)
    }

    fn self_policy(
        &self,
        log_key: &ed25519_dalek::VerifyingKey,
    ) -> Result<pitboss_witness::policy::Policy, String> {
        Mirroring::self_policy(self, log_key)
    }
}

/// What the metrics and the health service read.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// The log's size as its server last said.
    pub upstream_size: u64,
    /// Times the log's server could not be reached or read.
    pub failures: u64,
    /// Why the copy stopped following, if it did (a fork, an entry that does not verify).
    pub stopped: Option<String>,
}

#[derive(Default)]
struct Inner {
    /// The newest tree published.
    newest: Option<Published>,
    /// The newest tree the log's server answered as cosigned (bundles carry it).
    cosigned: Option<Published>,
    stats: Stats,
    /// Whether the log's server was unreachable at the last try (said once).
    unreachable: bool,
}

/// A mirror, following.
pub struct Mirroring {
    floor: Arc<Floor>,
    origin: String,
    witness: Arc<Witness>,
    inner: Mutex<Inner>,
    /// Whether the copy stopped following (the `pitboss.mirror` health service follows it).
    stopped: tokio::sync::watch::Sender<bool>,
}

impl Mirroring {
    /// Starts following `upstream` (the log named `origin`) into `floor`'s copy, cosigning with
    /// `witness`, until the runtime ends.
    pub fn start(
        floor: Arc<Floor>,
        upstream: Authorized,
        origin: String,
        witness: Arc<Witness>,
        settings: Settings,
    ) -> Arc<Mirroring> {
        let mirroring = Arc::new(Mirroring {
            floor,
            origin,
            witness,
            inner: Mutex::new(Inner::default()),
            stopped: tokio::sync::watch::Sender::new(false),
        });
        tokio::spawn(mirroring.clone().run(upstream, settings));
        mirroring
    }

    /// The newest checkpoint published (the log's, cosigned by the mirror).
    pub fn newest(&self) -> Option<Published> {
        self.lock().newest.clone()
    }

    /// The newest checkpoint the log's server answered as cosigned by its witnesses.
    pub fn cosigned(&self) -> Option<Published> {
        self.lock().cosigned.clone()
    }

    /// The mirror's cosigner name.
    pub fn name(&self) -> &str {
        self.witness.name()
    }

    /// The mirror's witness (its door cosigns, through [`Mirroring::gate`], what the copy holds).
    pub fn witness(&self) -> Arc<Witness> {
        self.witness.clone()
    }

    /// The counts the metrics show.
    pub fn stats(&self) -> Stats {
        self.lock().stats.clone()
    }

    /// Follows whether the copy stopped following.
    pub fn stopped(&self) -> tokio::sync::watch::Receiver<bool> {
        self.stopped.subscribe()
    }

    /// The mirror's statement that, in the tree of `published`, the checkpoint's text carries
    /// `extension` (a hand's stream end): that text, signed by the mirror's cosignature only.
    pub fn statement(&self, published: &Published, extension: &str) -> Result<String, String> {
        let text = pitboss_ledger::checkpoint::body(
            &self.origin,
            published.size,
            &published.root,
            &[extension.to_string()],
        );
        let signature = self
            .witness
            .sign_statement(&text, now_seconds())
            .map_err(|e| e.to_string())?;
        Ok(format!("{text}\n{}", signature.line()))
    }

    /// The mirror's cosigner key, as a policy's `witness` line names it.
    pub fn vkey(&self) -> pitboss_witness::note::Vkey {
        self.witness.vkey()
    }

    /// A policy naming only this mirror (and the log, by `log_key`), with no quorum: what the
    /// mirror's own dispute packets are checked against (their stream end is its statement).
    pub fn self_policy(
        &self,
        log_key: &ed25519_dalek::VerifyingKey,
    ) -> Result<pitboss_witness::policy::Policy, String> {
        let log = pitboss_witness::note::Vkey {
            name: self.origin.clone(),
            kind: pitboss_witness::note::ED25519,
            key: *log_key,
        };
        pitboss_witness::policy::Policy::parse(&format!(
            "log {log}\nwitness mirror {}\nquorum none\n",
            self.vkey()
        ))
        .map_err(|e| e.to_string())
    }

    /// Whether the mirror may cosign the checkpoint of an `add-checkpoint` body (its witness door,
    /// on a blocking thread): only a tree the copy holds, waiting a few seconds for the copy to
    /// reach it. A body that does not read is left to the witness to refuse.
    pub fn gate(&self, body: &[u8]) -> Result<(), (u16, String)> {
        let Ok(request) = AddCheckpoint::parse(body) else {
            return Ok(());
        };
        let note = request.note.to_text();
        let waited = Instant::now();
        loop {
            // Held once it is the log's (signed by a key the log established) and the copy's tree.
            match self.floor.hold_checkpoint(&note) {
                Ok(held) => {
                    learn_key(&self.floor, &self.witness, &self.origin, held.key);
                    return Ok(());
                }
                Err(HoldError::Beyond { size, held }) => {
                    if waited.elapsed() > GATE_WAIT {
                        return Err((
                            503,
                            format!(
                                "the mirror holds {held} entries, not yet {size}: submit it again later"
                            ),
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(fork @ HoldError::Fork { size, .. }) => {
                    self.stop(format!(
                        "the log signed another tree than the copy's: {fork}"
                    ));
                    // At the size the witness cosigned, the witness keeps the two as evidence;
                    // at any other, nothing of it is cosigned.
                    let latest = self
                        .witness
                        .latest(&self.origin)
                        .ok()
                        .flatten()
                        .map(|s| s.checkpoint.size);
                    return if latest == Some(size) {
                        Ok(())
                    } else {
                        Err((422, format!("{fork}\n")))
                    };
                }
                // Not this log's, not signed by it, malformed: the witness answers (404, 403, 400).
                Err(_) => return Ok(()),
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn stop(&self, why: String) {
        tracing::error!(%why, "mirror: the copy stopped following the log; it serves what it holds");
        self.lock().stats.stopped = Some(why);
        self.stopped.send_replace(true);
    }

    fn unreachable(&self, what: &str, status: &tonic::Status) {
        let mut inner = self.lock();
        inner.stats.failures += 1;
        if !inner.unreachable {
            inner.unreachable = true;
            tracing::warn!(code = ?status.code(), message = status.message(), "mirror: the log's server cannot be {what}; trying again");
        }
    }

    fn reached(&self) {
        let mut inner = self.lock();
        if inner.unreachable {
            inner.unreachable = false;
            tracing::info!("mirror: the log's server answers again");
        }
    }

    async fn run(self: Arc<Self>, upstream: Authorized, settings: Settings) {
        // An event with its stored entry, or a checkpoint: never more than the largest entry a
        // mirror takes and its fields.
        let mut audit = AuditClient::new(upstream)
            .max_decoding_message_size(pitboss_ledger::mirror::MAX_MIRRORED + 64 * 1024)
            .max_encoding_message_size(64 * 1024);
        // The keys the copy verified before this start: a rotation the witness learned before is
        // known again before anything is cosigned (the fork probe's evidence included).
        let (floor, witness, origin) = (
            self.floor.clone(),
            self.witness.clone(),
            self.origin.clone(),
        );
        let _ = tokio::task::spawn_blocking(move || learn_keys(&floor, &witness, &origin)).await;
        let mut backoff = Duration::from_millis(100);
        loop {
            if self.stats().stopped.is_some() {
                return;
            }
            let from = self.floor.log().size();
            let request = proto::StreamEventsRequest {
                from_sequence: from,
                stored_entries: true,
            };
            let mut stream = match audit.stream_events(request).await {
                Ok(stream) => stream.into_inner(),
                Err(status) => {
                    self.unreachable("followed", &status);
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(5));
                    continue;
                }
            };
            self.reached();
            backoff = Duration::from_millis(100);
            self.refresh(&mut audit).await;
            let mut refreshed = Instant::now();
            loop {
                let first = tokio::select! {
                    message = stream.message() => message,
                    () = tokio::time::sleep(settings.every) => {
                        self.refresh(&mut audit).await;
                        refreshed = Instant::now();
                        if self.stats().stopped.is_some() {
                            break;
                        }
                        continue;
                    }
                };
                let mut events = match first {
                    Ok(Some(event)) => vec![event],
                    Ok(None) => break,
                    Err(status) => {
                        self.unreachable("read", &status);
                        break;
                    }
                };
                let mut bytes = events[0].stored_entry.len();
                while events.len() < settings.batch && bytes < BATCH_BYTES {
                    match stream.message().now_or_never() {
                        Some(Ok(Some(event))) => {
                            bytes += event.stored_entry.len();
                            events.push(event);
                        }
                        _ => break,
                    }
                }
                if !self.offer(events).await {
                    // Stopped (a fork), or the copy cannot be written: follow again from its end.
                    break;
                }
                if refreshed.elapsed() >= settings.every {
                    self.refresh(&mut audit).await;
                    refreshed = Instant::now();
                }
                if self.stats().stopped.is_some() {
                    break;
                }
            }
            if self.stats().stopped.is_some() {
                self.probe_fork(&mut audit).await;
                return;
            }
            tokio::time::sleep(backoff).await;
        }
    }

    /// Offers events to the copy; false when it stopped or failed.
    async fn offer(&self, events: Vec<proto::LoggedEvent>) -> bool {
        if events.iter().any(|e| e.stored_entry.is_empty()) {
            self.stop(
                "the log's server sends no stored entries (a release before mirrors): nothing \
                 can be verified"
                    .into(),
            );
            return false;
        }
        if let Some(first) = events.first().filter(|e| e.sequence == 0) {
            let origin = pitboss_ledger::Entry::decode(&first.stored_entry)
                .map(|e| pitboss_ledger::checkpoint::origin_of(&e.hash));
            if origin.as_deref() != Ok(self.origin.as_str()) {
                self.stop(format!(
                    "the server serves another log ({}), not {}",
                    origin.unwrap_or_else(|e| e.to_string()),
                    self.origin
                ));
                return false;
            }
        }
        let records = events
            .into_iter()
            .map(|e| (e.sequence, e.stored_entry))
            .collect();
        match self.floor.mirror(records).await {
            Ok(_) => true,
            Err(LedgerError::NotTheLog(problem)) => {
                self.stop(format!(
                    "the log sent an entry that does not extend the copy: {problem}"
                ));
                false
            }
            Err(e) => {
                self.stop(format!(
                    "the copy cannot be written ({e}): restart the mirror (it verifies its copy again)"
                ));
                false
            }
        }
    }

    /// Asks the log's server for its newest checkpoint (and one of the copy's size when that is
    /// newer than what is held), and holds what checks against the copy.
    async fn refresh(&self, audit: &mut AuditClient<Authorized>) {
        let size = self.floor.log().size();
        if size == 0 {
            return;
        }
        let newest = match audit
            .get_checkpoint(proto::GetCheckpointRequest { tree_size: 0 })
            .await
        {
            Ok(answer) => answer.into_inner(),
            Err(status) => return self.unreachable("asked for its checkpoint", &status),
        };
        self.lock().stats.upstream_size = newest.log_size.max(newest.tree_size);
        let held = self.newest().map_or(0, |p| p.size);
        if newest.tree_size <= size
            && (newest.tree_size > held
                || (newest.cosigned && self.cosigned().is_none_or(|c| c.size < newest.tree_size)))
        {
            self.hold(&newest.note, newest.cosigned).await;
        }
        let held = self.newest().map_or(0, |p| p.size);
        if held < size && self.stats().stopped.is_none() {
            match audit
                .get_checkpoint(proto::GetCheckpointRequest { tree_size: size })
                .await
            {
                Ok(answer) => {
                    let answer = answer.into_inner();
                    self.hold(&answer.note, answer.cosigned).await;
                }
                Err(status) => self.unreachable("asked for a checkpoint", &status),
            }
        }
    }

    /// Holds `note` if it checks against the copy, and cosigns it; a fork stops the copy.
    async fn hold(&self, note: &str, cosigned: bool) {
        let floor = self.floor.clone();
        let text = note.to_string();
        let held = match tokio::task::spawn_blocking(move || floor.hold_checkpoint(&text)).await {
            Ok(Ok(held)) => held,
            Ok(Err(HoldError::Beyond { .. })) => return,
            Ok(Err(fork @ HoldError::Fork { .. })) => {
                return self.stop(format!(
                    "the log's checkpoint does not match the copy: {fork}"
                ))
            }
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "mirror: a checkpoint from the log's server is not held");
                return;
            }
            Err(_) => return,
        };
        let size = held.checkpoint.size;
        let unchanged = {
            let inner = self.lock();
            let same = |p: &Option<Published>| {
                p.as_ref()
                    .is_some_and(|p| p.size == size && p.root == held.checkpoint.root)
            };
            same(&inner.newest) && (!cosigned || same(&inner.cosigned))
        };
        if unchanged {
            // The tree published already: not cosigned again (the tiles' checkpoint stays).
            return;
        }
        let line = match self.cosign(&held).await {
            Ok(line) => line,
            Err(why) => {
                // Published only with the mirror's cosignature (tlog-mirror); tried again at the
                // next refresh.
                tracing::warn!(%why, size, "mirror: the held checkpoint is not cosigned by the mirror; not published");
                return;
            }
        };
        let published = Published {
            note: format!("{}{line}", held.note),
            size,
            cosigned,
            key: held.key,
            root: held.checkpoint.root,
        };
        let mut inner = self.lock();
        if inner.newest.as_ref().is_none_or(|n| n.size <= size) {
            inner.newest = Some(published.clone());
        }
        if cosigned && inner.cosigned.as_ref().is_none_or(|c| c.size <= size) {
            inner.cosigned = Some(published);
        }
    }

    /// The mirror's cosignature line of a held checkpoint, from the size its witness cosigned
    /// before, with the consistency proof computed from the copy.
    async fn cosign(&self, held: &Held) -> Result<String, String> {
        let (floor, witness, origin) = (
            self.floor.clone(),
            self.witness.clone(),
            self.origin.clone(),
        );
        let held = held.clone();
        tokio::task::spawn_blocking(move || {
            learn_key(&floor, &witness, &origin, held.key);
            let note = Note::parse(&held.note).map_err(|e| e.to_string())?;
            let size = held.checkpoint.size;
            let mut attempts = 0;
            loop {
                let old = witness
                    .latest(&origin)
                    .map_err(|e| e.to_string())?
                    .map_or(0, |s| s.checkpoint.size);
                if old > size {
                    return Err(format!("the mirror cosigned a larger tree ({old}) already"));
                }
                let proof = if old == 0 || old == size {
                    Vec::new()
                } else {
                    floor
                        .log()
                        .consistency_proof(old, size)
                        .map_err(|e| e.to_string())?
                };
                let body = AddCheckpoint {
                    old,
                    proof,
                    note: note.clone(),
                }
                .to_body();
                match witness.add_checkpoint(body.as_bytes(), now_seconds()) {
                    Ok(line) => return Ok(line),
                    // Another submission (the witness door) moved it meanwhile: once more.
                    Err(WitnessError::Refused(Refused::Conflict { .. })) if attempts == 0 => {
                        attempts += 1;
                    }
                    Err(e) => return Err(e.to_string()),
                }
            }
        })
        .await
        .map_err(|e| e.to_string())?
    }

    /// After the copy stopped: asks the log for its checkpoint of the size the mirror's witness
    /// cosigned last and shows it to the witness, which keeps it beside its own as evidence when
    /// the roots differ (a fork proven by the log's own signatures).
    async fn probe_fork(&self, audit: &mut AuditClient<Authorized>) {
        let Ok(Some(latest)) = self.witness.latest(&self.origin) else {
            return;
        };
        let size = latest.checkpoint.size;
        let answer = match audit
            .get_checkpoint(proto::GetCheckpointRequest { tree_size: size })
            .await
        {
            Ok(answer) => answer.into_inner(),
            Err(status) => return self.unreachable("asked for the evidence", &status),
        };
        let Ok(note) = Note::parse(&answer.note) else {
            return;
        };
        let body = AddCheckpoint {
            old: size,
            proof: Vec::new(),
            note,
        }
        .to_body();
        let (floor, witness, origin) = (
            self.floor.clone(),
            self.witness.clone(),
            self.origin.clone(),
        );
        let kept = tokio::task::spawn_blocking(move || {
            learn_keys(&floor, &witness, &origin);
            match witness.add_checkpoint(body.as_bytes(), now_seconds()) {
                Err(WitnessError::Refused(Refused::Inconsistent(Inconsistency::Fork {
                    ..
                }))) => witness
                    .refused(&origin)
                    .ok()
                    .and_then(|files| files.into_iter().next()),
                _ => None,
            }
        })
        .await
        .ok()
        .flatten();
        if let Some(path) = kept {
            let mut inner = self.lock();
            let why = inner.stats.stopped.take().unwrap_or_default();
            let why = format!(
                "{why}; the log signed two trees of {size} entries: evidence in {}",
                path.display()
            );
            tracing::error!(evidence = %path.display(), "mirror: the log forked; the evidence is kept");
            inner.stats.stopped = Some(why);
        }
    }
}

/// The most stored bytes offered to the copy at once (with [`Settings::batch`] entries at most).
const BATCH_BYTES: usize = 8 * 1024 * 1024;

/// The log's Ed25519 note key `key`, named by its origin.
fn log_vkey(origin: &str, key: ed25519_dalek::VerifyingKey) -> pitboss_witness::note::Vkey {
    pitboss_witness::note::Vkey {
        name: origin.to_string(),
        kind: pitboss_witness::note::ED25519,
        key,
    }
}

/// Makes `key`, which signed a checkpoint the copy holds, one the mirror's witness knows the log
/// by, if it is not yet ([`learn_keys`]). Blocks.
fn learn_key(floor: &Floor, witness: &Witness, origin: &str, key: ed25519_dalek::VerifyingKey) {
    if !witness.knows_log_key(&log_vkey(origin, key)) {
        learn_keys(floor, witness, origin);
    }
}

/// Makes every key of the copy's key history one the mirror's witness knows the log by, when the
/// key given with `--log` (which the witness knows from the start) is among them. The copy
/// verified that history entry by entry: the key its first entry publishes (signed by itself),
/// then each rotation, signed by the new key and carrying the old key's signature over it. So a
/// history that holds the `--log` key was signed by it where it entered, and every key after it
/// descends from it. After the log rotates its key the mirror and its witness door
/// cosign on, without a restart, while a `--log` key that is not the log's teaches nothing (its
/// witness then cosigns nothing of this log, as before). Blocks: a read of the copy's keys.
fn learn_keys(floor: &Floor, witness: &Witness, origin: &str) {
    let Ok(keys) = floor.log().known_keys() else {
        return;
    };
    let keys: Vec<_> = keys
        .into_iter()
        .filter_map(|(_, public)| {
            ed25519_dalek::VerifyingKey::from_bytes(&public.as_slice().try_into().ok()?).ok()
        })
        .map(|key| log_vkey(origin, key))
        .collect();
    if !keys.iter().any(|k| witness.knows_log_key(k)) {
        return;
    }
    for key in keys {
        let public = hex::encode(key.key.as_bytes());
        if witness.learn_log_key(key) {
            tracing::info!(
                key = %public,
                "mirror: a key of the log's, verified in the copy, is one its witness knows the log by"
            );
        }
    }
}

/// How long the witness door waits for the copy to reach a submitted tree.
const GATE_WAIT: Duration = Duration::from_secs(5);

fn now_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_secs().max(1))
}
