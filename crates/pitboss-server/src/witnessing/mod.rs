//! The log's side of witnessing (C2SP `tlog-witness`): the log's newest checkpoint is offered to
//! the witnesses of the server's policy (`serve --witness-policy FILE`, C2SP `tlog-policy`), each
//! witness followed by a task of its own over a connection kept open, from the size it last
//! cosigned (a `409` tells that size, and the submission is made again from it); each
//! cosignature is checked against the witness's key before it is gathered; the newest checkpoint
//! whose cosignatures meet the policy's quorum is kept in the data directory, then is what
//! `GetCheckpoint` answers.
//!
//! Owns the submissions, the cosignatures gathered and kept, and how far cosigning is behind the
//! log. It MUST NOT stand in the way of an acknowledgement: it runs beside the writer and reads
//! the log through the floor. A witness that is down or hangs delays only its own cosignatures
//! when the quorum does not need it: the others go on with the newest checkpoint. It is told loudly when cosigning falls more than
//! the configured number of entries behind: a warning in the server's log, the
//! `pitboss.witnessing` health service NOT_SERVING, and the metrics. The checkpoints it submits
//! carry no extension lines (monitors cannot audit those).

mod client;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pitboss_witness::note::{Note, NoteSignature};
use pitboss_witness::policy::{Policy, PolicyWitness};
use pitboss_witness::request::AddCheckpoint;

use crate::floor::Floor;

/// The file in the server's data directory that keeps the cosigned checkpoint across restarts.
pub const KEPT_FILE: &str = "cosigned-checkpoint";

/// How the log's side of witnessing runs.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// How often the log's size is looked at for a new checkpoint to submit.
    pub every: Duration,
    /// How long a witness may take to answer.
    pub timeout: Duration,
    /// Entries the newest cosigned checkpoint may be behind the log before the server warns.
    pub warn_behind: u64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            every: Duration::from_secs(1),
            timeout: Duration::from_secs(10),
            warn_behind: 10_000,
        }
    }
}

/// A checkpoint whose cosignatures meet the quorum (the audit's: bundles carry it).
pub use crate::audit::bundle::Cosigned;

/// What a scrape of the metrics reads.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// The newest cosigned checkpoint's size (0: none yet).
    pub cosigned_size: u64,
    /// Submissions that got no cosignature, by witness.
    pub failures: BTreeMap<String, u64>,
    /// The size each witness last cosigned, by witness.
    pub sizes: BTreeMap<String, u64>,
}

#[derive(Default)]
struct Inner {
    cosigned: Option<Cosigned>,
    /// The cosignatures gathered for each checkpoint offered, by size, while it may still become
    /// the one served (at most [`MAX_GATHERING`]: the newest).
    gathering: BTreeMap<u64, Gathering>,
    stats: Stats,
    warned: bool,
}

/// The most checkpoints whose cosignatures are gathered at once: witnesses that answer for
/// checkpoints further apart than this never meet in one quorum anyway.
const MAX_GATHERING: usize = 64;

/// A checkpoint offered to the witnesses: the log's signed note of `size` entries (no extension
/// lines).
struct Offer {
    size: u64,
    note: Note,
}

/// The cosignatures of one offered checkpoint gathered so far.
struct Gathering {
    /// The log's note with each cosignature gathered.
    note: Note,
    /// The witnesses (policy names) that cosigned it.
    names: BTreeSet<String>,
}

/// The log's side of witnessing, running.
pub struct Witnessing {
    policy: Policy,
    /// Where the cosigned checkpoint is kept across restarts (`DATA/cosigned-checkpoint`).
    kept: Option<PathBuf>,
    inner: Mutex<Inner>,
    /// Held while a cosigned checkpoint is kept and served: one at a time, in order.
    keeping: tokio::sync::Mutex<()>,
    /// Whether the cosigned checkpoint is behind the log by more than the limit (the
    /// `pitboss.witnessing` health service follows it).
    behind: tokio::sync::watch::Sender<bool>,
}

impl Witnessing {
    /// Starts submitting the log's checkpoints to `policy`'s witnesses (those with a URL), until
    /// the runtime ends; the cosigned checkpoint is kept in the file `kept`. The one kept before
    /// is taken back, if it still checks, before this returns: a server that says it is ready
    /// serves it at once.
    pub async fn start(
        floor: Arc<Floor>,
        policy: Policy,
        settings: Settings,
        kept: Option<PathBuf>,
    ) -> Arc<Witnessing> {
        let witnessing = Arc::new(Witnessing {
            policy,
            kept,
            inner: Mutex::new(Inner::default()),
            keeping: tokio::sync::Mutex::new(()),
            behind: tokio::sync::watch::Sender::new(false),
        });
        witnessing.restore(&floor).await;
        tokio::spawn(witnessing.clone().run(floor, settings));
        witnessing
    }

    /// The newest checkpoint whose cosignatures meet the quorum, if any yet.
    pub fn latest(&self) -> Option<Cosigned> {
        self.lock().cosigned.clone()
    }

    /// Follows whether the cosigned checkpoint is behind the log by more than the limit.
    pub fn behind(&self) -> tokio::sync::watch::Receiver<bool> {
        self.behind.subscribe()
    }

    /// The counts the metrics show.
    pub fn stats(&self) -> Stats {
        self.lock().stats.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic elsewhere leaves whole values behind: nothing here is half-written.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Offers the log's newest checkpoint to every witness with a URL, each followed by a task
    /// of its own: one witness that is slow or hangs holds back nobody but itself.
    async fn run(self: Arc<Self>, floor: Arc<Floor>, settings: Settings) {
        let (offers, _) = tokio::sync::watch::channel(None::<Arc<Offer>>);
        for witness in self.policy.witnesses.iter().filter(|w| w.url.is_some()) {
            tokio::spawn(self.clone().follow(
                floor.clone(),
                witness.clone(),
                offers.subscribe(),
                settings,
            ));
        }
        let mut offered = 0;
        let mut offered_at = tokio::time::Instant::now();
        loop {
            tokio::time::sleep(settings.every).await;
            let size = floor.log().size();
            self.warn_if_behind(size, settings.warn_behind);
            if size == 0 || size == offered {
                continue;
            }
            // The checkpoint offered stays offered until its cosignatures meet the quorum, or a
            // witness's time to answer has passed: witnesses slower than a tick then meet on one
            // checkpoint, and a witness that hangs holds back no one once the quorum is met.
            let met = self.lock().stats.cosigned_size >= offered;
            if offered > 0 && !met && offered_at.elapsed() < settings.timeout {
                continue;
            }
            let reader = floor.clone();
            let note = match tokio::task::spawn_blocking(move || {
                reader.log().checkpoint(Some(size))
            })
            .await
            {
                Ok(Ok((checkpoint, _))) => checkpoint.note(),
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, "witnessing: no checkpoint to submit");
                    continue;
                }
                Err(_) => continue,
            };
            let Ok(note) = Note::parse(&note) else {
                continue;
            };
            offered = size;
            offered_at = tokio::time::Instant::now();
            offers.send_replace(Some(Arc::new(Offer { size, note })));
        }
    }

    /// One witness's task: submits the newest checkpoint offered beyond the one it cosigned last,
    /// from the size it holds, over a connection kept open. After a failure (counted each time,
    /// warned of once per outage) it tries again at the next checkpoint offered, or after a wait
    /// that doubles from a tick to a minute while the log is idle.
    async fn follow(
        self: Arc<Self>,
        floor: Arc<Floor>,
        witness: PolicyWitness,
        mut offers: tokio::sync::watch::Receiver<Option<Arc<Offer>>>,
        settings: Settings,
    ) {
        let Some(url) = witness.url.as_deref() else {
            return;
        };
        let mut connection = client::Connection::new(url);
        // The size this witness last cosigned or said it holds: where the next submission starts.
        let mut held = 0;
        let mut cosigned = 0;
        let mut outage = false;
        let mut wait = settings.every;
        loop {
            let offer = offers.borrow_and_update().clone();
            let Some(offer) = offer.filter(|o| o.size > cosigned) else {
                if offers.changed().await.is_err() {
                    return;
                }
                continue;
            };
            let answered = match &mut connection {
                Ok(connection) => {
                    self.cosign(
                        &floor,
                        &witness,
                        connection,
                        &mut held,
                        &offer,
                        settings.timeout,
                    )
                    .await
                }
                Err(e) => Err(e.to_string()),
            };
            match answered {
                Ok(signature) => {
                    cosigned = offer.size;
                    if std::mem::take(&mut outage) {
                        tracing::info!(witness = %witness.name, size = offer.size, "witnessing: cosigned again");
                    }
                    wait = settings.every;
                    self.gathered(&witness.name, &offer, signature).await;
                }
                Err(why) => {
                    *self
                        .lock()
                        .stats
                        .failures
                        .entry(witness.name.clone())
                        .or_insert(0) += 1;
                    if std::mem::replace(&mut outage, true) {
                        tracing::debug!(witness = %witness.name, size = offer.size, %why, "witnessing: not cosigned");
                    } else {
                        tracing::warn!(witness = %witness.name, size = offer.size, %why, "witnessing: not cosigned (said once until it cosigns again)");
                    }
                    // The next checkpoint offered, or the same one again after the wait.
                    if let Ok(Err(_)) = tokio::time::timeout(wait, offers.changed()).await {
                        return;
                    }
                    wait = (wait * 2).min(std::time::Duration::from_secs(60));
                }
            }
        }
    }

    /// Adds `name`'s cosignature of `offer` to those gathered for its size; when they meet the
    /// quorum and the checkpoint is newer (or carries more cosignatures) than the one served, it
    /// is kept in the file, then served. One at a time, so that what is served never goes back.
    async fn gathered(&self, name: &str, offer: &Offer, signature: NoteSignature) {
        {
            let mut inner = self.lock();
            if offer.size < inner.stats.cosigned_size {
                return;
            }
            let gathering = inner
                .gathering
                .entry(offer.size)
                .or_insert_with(|| Gathering {
                    note: offer.note.clone(),
                    names: BTreeSet::new(),
                });
            if gathering.names.insert(name.to_string()) {
                gathering.note.signatures.push(signature);
            }
            while inner.gathering.len() > MAX_GATHERING {
                inner.gathering.pop_first();
            }
        }
        let _one = self.keeping.lock().await;
        let ready = {
            let inner = self.lock();
            let Some(gathering) = inner.gathering.get(&offer.size) else {
                return;
            };
            let newer = inner.cosigned.as_ref().is_none_or(|c| {
                c.size < offer.size
                    || (c.size == offer.size && c.witnesses.len() < gathering.names.len())
            });
            if !newer || !self.policy.satisfied(&gathering.names) {
                return;
            }
            Cosigned {
                note: gathering.note.to_text(),
                size: offer.size,
                witnesses: gathering.names.iter().cloned().collect(),
            }
        };
        self.keep(&ready).await;
        let mut inner = self.lock();
        inner.stats.cosigned_size = ready.size;
        inner.gathering.retain(|&size, _| size >= ready.size);
        inner.cosigned = Some(ready);
    }

    /// Writes `cosigned` to the file it is kept in (durably), if there is one; a failure is
    /// logged, and the checkpoint is served all the same (the log itself is not at risk).
    async fn keep(&self, cosigned: &Cosigned) {
        let Some(path) = self.kept.clone() else {
            return;
        };
        let note = cosigned.note.clone();
        let saved = tokio::task::spawn_blocking(move || {
            pitboss_ledger::files::replace(&path, note.as_bytes())
        })
        .await;
        if !matches!(saved, Ok(Ok(()))) {
            tracing::warn!("witnessing: the cosigned checkpoint was not kept on disk");
        }
    }

    /// Takes back the cosigned checkpoint kept before the last stop, if it still checks: the log's
    /// own tree at its size (the root and key the log gives now) and cosignatures that meet this
    /// policy's quorum. Otherwise the log is cosigned again from the start.
    async fn restore(&self, floor: &Arc<Floor>) {
        let Some(path) = self.kept.clone() else {
            return;
        };
        let (reader, policy) = (floor.clone(), self.policy.clone());
        let restored = tokio::task::spawn_blocking(move || -> Option<Cosigned> {
            use std::io::Read;
            let mut text = String::new();
            std::fs::File::open(&path)
                .ok()?
                .take(pitboss_witness::note::MAX_NOTE as u64)
                .read_to_string(&mut text)
                .ok()?;
            let kept = pitboss_ledger::checkpoint::Checkpoint::parse(&text).ok()?;
            let (ours, key) = reader.log().checkpoint(Some(kept.size)).ok()?;
            if ours.origin != kept.origin || ours.root != kept.root {
                return None;
            }
            let check = pitboss_witness::cosigned::check(&text, &policy, &key).ok()?;
            check.quorum.then(|| Cosigned {
                note: text,
                size: kept.size,
                witnesses: check.witnesses.into_iter().collect(),
            })
        })
        .await
        .ok()
        .flatten();
        if let Some(cosigned) = restored {
            tracing::info!(
                size = cosigned.size,
                "witnessing: the cosigned checkpoint kept before is in force"
            );
            let mut inner = self.lock();
            inner.stats.cosigned_size = cosigned.size;
            inner.cosigned = Some(cosigned);
        }
    }

    /// One witness's cosignature of `offer`, checked against its key, or why it gave none. Starts
    /// from `held`, which a `409` corrects (the submission is then made again from there: two
    /// calls, each within the timeout) and a cosignature moves to the offer's size.
    async fn cosign(
        &self,
        floor: &Arc<Floor>,
        witness: &PolicyWitness,
        connection: &mut client::Connection,
        held: &mut u64,
        offer: &Offer,
        timeout: Duration,
    ) -> Result<NoteSignature, String> {
        let size = offer.size;
        let mut why = String::from("it answered 409 twice");
        for _ in 0..2 {
            let old = *held;
            if old > size {
                // A witness that cosigned a larger tree than this log holds: the log lost
                // acknowledged entries, or someone with its key showed the witness another log.
                tracing::error!(
                    witness = %witness.name,
                    held = old,
                    log_size = size,
                    "witnessing: a witness holds a tree larger than the log"
                );
                why = format!("it holds size {old}, beyond the log's {size}");
                break;
            }
            let proof = if old == 0 || old == size {
                Vec::new()
            } else {
                let reader = floor.clone();
                match tokio::task::spawn_blocking(move || reader.log().consistency_proof(old, size))
                    .await
                {
                    Ok(Ok(proof)) => proof,
                    _ => {
                        why = format!("no consistency proof from {old} to {size}");
                        break;
                    }
                }
            };
            let body = AddCheckpoint {
                old,
                proof,
                note: offer.note.clone(),
            }
            .to_body();
            match connection.add_checkpoint(body, timeout).await {
                Ok(answer) if answer.status == 200 => {
                    if let Some(signature) =
                        cosignature_line(witness, &offer.note.text, &answer.body)
                    {
                        *held = size;
                        self.lock().stats.sizes.insert(witness.name.clone(), size);
                        return Ok(signature);
                    }
                    why = "its answer holds no cosignature by its key that verifies".into();
                    break;
                }
                Ok(answer) if answer.status == 409 && answer.is_size => {
                    match answer.body.trim().parse::<u64>() {
                        // Where the next submission starts, this one's retry included.
                        Ok(size) => *held = size,
                        Err(_) => {
                            why = "a 409 without a size".into();
                            break;
                        }
                    }
                }
                Ok(answer) => {
                    why = format!("{}: {}", answer.status, answer.body.trim());
                    break;
                }
                Err(e) => {
                    why = e.to_string();
                    break;
                }
            }
        }
        Err(why)
    }

    fn warn_if_behind(&self, log_size: u64, limit: u64) {
        let mut inner = self.lock();
        let behind = log_size.saturating_sub(inner.stats.cosigned_size);
        if behind > limit && !inner.warned {
            inner.warned = true;
            self.behind.send_replace(true);
            tracing::warn!(
                behind,
                limit,
                cosigned = inner.stats.cosigned_size,
                "witnessing: the newest cosigned checkpoint is behind the log by more than the limit"
            );
        } else if behind <= limit && inner.warned {
            inner.warned = false;
            self.behind.send_replace(false);
            tracing::info!(behind, "witnessing: cosigning caught up");
        }
    }
}

/// The cosignature by `witness` among an answer's lines that verifies over `text`.
fn cosignature_line(
    witness: &PolicyWitness,
    text: &str,
    answer: &str,
) -> Option<pitboss_witness::note::NoteSignature> {
    // The answer's lines are signature lines: read them as a note's, after a stand-in text.
    let note = Note::parse(&format!("x\n\n{answer}")).ok()?;
    note.signatures
        .into_iter()
        .find(|s| witness.vkey.verify(text, s).is_ok())
}
