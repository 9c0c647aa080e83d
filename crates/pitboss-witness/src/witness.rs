//! The decision: whether a checkpoint is cosigned, in the order `tlog-witness` gives, with the
//! check of the old size and the update of the state as one step under one lock; the cosignatures
//! it answers with (Ed25519 `cosignature/v1`, ML-DSA-44 `subtree/v1`, or both, as configured); and
//! `sign-subtree`, a subtree of a checkpoint it cosigned, with its ML-DSA-44 key.

use std::collections::BTreeMap;
use std::sync::Mutex;

use pitboss_ledger::keys::Keypair;

use crate::checkpoint::Checkpoint;
use crate::cosignature::{self, MAX_TIMESTAMP};
use crate::cosigner::CosignerKey;
use crate::note::{Note, NoteSignature, Vkey, ED25519};
use crate::refusal::{log_signature, Inconsistency, Refused};
use crate::request::{AddCheckpoint, SignSubtree};
use crate::state::{State, StateError, Stored};
use crate::subtree::MlDsaKey;

/// Why `add_checkpoint` did not answer with a cosignature.
#[derive(Debug, thiserror::Error)]
pub enum WitnessError {
    /// The submission is refused (an HTTP 4xx).
    #[error(transparent)]
    Refused(#[from] Refused),
    /// The state cannot be read or written (an HTTP 500): nothing was cosigned.
    #[error(transparent)]
    State(#[from] StateError),
    /// The clock gave a time a cosignature cannot carry (zero, or beyond 2^63 − 1).
    #[error("the time {0} cannot be a cosignature's timestamp")]
    Time(u64),
}

/// A witness: its name and keys, the logs it knows, its state.
pub struct Witness {
    name: String,
    key: Keypair,
    /// Whether it cosigns with its Ed25519 key (`cosignature/v1`).
    ed25519: bool,
    /// Its ML-DSA-44 key, when it cosigns with one too (or only with it).
    ml_dsa: Option<MlDsaKey>,
    /// Each known log's keys, by origin (more than one while a log rotates its key). A mirror's
    /// witness adds the keys its verified copy establishes ([`Witness::learn_log_key`]).
    logs: Mutex<BTreeMap<String, Vec<Vkey>>>,
    state: State,
    /// Held from reading a log's state to writing its new one; holds each log's last cosignature
    /// time, so that a clock stepped back never dates a larger tree earlier than a smaller one.
    lock: Mutex<BTreeMap<String, u64>>,
}

impl Witness {
    /// A witness named `name` (its cosignatures' key name) signing with `key`, knowing `logs`
    /// (each an Ed25519 note key named by its log's origin), keeping its state in `state`.
    pub fn new(name: String, key: Keypair, logs: Vec<Vkey>, state: State) -> Witness {
        let mut by_origin: BTreeMap<String, Vec<Vkey>> = BTreeMap::new();
        for vkey in logs.into_iter().filter(|v| v.kind == ED25519) {
            by_origin.entry(vkey.name.clone()).or_default().push(vkey);
        }
        Witness {
            name,
            key,
            ed25519: true,
            ml_dsa: None,
            logs: Mutex::new(by_origin),
            state,
            lock: Mutex::new(BTreeMap::new()),
        }
    }

    /// This witness cosigning with `key` (ML-DSA-44) as well, or — `ed25519` false — with it only.
    /// Its name must then be at most 255 bytes (the `subtree/v1` message's bound): `None` if not.
    pub fn with_ml_dsa(mut self, key: MlDsaKey, ed25519: bool) -> Option<Witness> {
        if self.name.len() > 255 {
            return None;
        }
        self.ml_dsa = Some(key);
        self.ed25519 = ed25519;
        Some(self)
    }

    /// The keys this witness cosigns with, for a log's policy: the Ed25519 one (type `0x04`),
    /// the ML-DSA-44 one (type `0x06`), or both.
    pub fn cosigner_keys(&self) -> Vec<CosignerKey> {
        let mut keys = Vec::new();
        if self.ed25519 {
            keys.push(CosignerKey::Ed25519(self.vkey()));
        }
        if let Some(key) = &self.ml_dsa {
            keys.push(CosignerKey::MlDsa44(key.vkey(&self.name)));
        }
        keys
    }

    /// Whether it answers `sign-subtree` (it holds an ML-DSA-44 key).
    pub fn signs_subtrees(&self) -> bool {
        self.ml_dsa.is_some()
    }

    /// This witness's Ed25519 verifier key (type `0x04`), for a log's policy.
    pub fn vkey(&self) -> Vkey {
        Vkey {
            name: self.name.clone(),
            kind: crate::note::COSIGNATURE_V1,
            key: self.key.public(),
        }
    }

    /// Adds `vkey` (an Ed25519 note key named by its log's origin) to the keys a log this
    /// witness already knows is known by; returns whether it is new. Only for a witness that has
    /// verified the log's move to that key itself, from a key it knew: a mirror, whose copy
    /// checked each rotation entry the key before signed. A witness on its own knows a log's keys
    /// from its policy only.
    pub fn learn_log_key(&self, vkey: Vkey) -> bool {
        if vkey.kind != ED25519 {
            return false;
        }
        let mut logs = self.log_keys();
        let Some(keys) = logs.get_mut(&vkey.name) else {
            return false;
        };
        if keys.iter().any(|k| k.key == vkey.key) {
            return false;
        }
        keys.push(vkey);
        true
    }

    /// Whether `vkey` (an Ed25519 note key named by its log's origin) is one the log is known by.
    pub fn knows_log_key(&self, vkey: &Vkey) -> bool {
        vkey.kind == ED25519
            && self
                .log_keys()
                .get(&vkey.name)
                .is_some_and(|keys| keys.iter().any(|k| k.key == vkey.key))
    }

    fn log_keys(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Vec<Vkey>>> {
        // A panic elsewhere leaves the map whole: keys are only ever added.
        self.logs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The latest checkpoint cosigned for `origin`.
    pub fn latest(&self, origin: &str) -> Result<Option<Stored>, StateError> {
        self.state.latest(origin)
    }

    /// The refused submissions kept for `origin`: the forks, then the others.
    pub fn refused(&self, origin: &str) -> Result<Vec<std::path::PathBuf>, StateError> {
        self.state.refused(origin)
    }

    /// Refused submissions not kept since the start because their bound was reached.
    pub fn dropped(&self) -> u64 {
        self.state.dropped()
    }

    /// Handles an `add-checkpoint` body at `now` (seconds since the Epoch): the cosignature line
    /// (newline included), or why not.
    pub fn add_checkpoint(&self, body: &[u8], now: u64) -> Result<String, WitnessError> {
        if now == 0 || now > MAX_TIMESTAMP {
            return Err(WitnessError::Time(now));
        }
        let request = AddCheckpoint::parse(body).map_err(|e| Refused::BadRequest(e.to_string()))?;
        let checkpoint = Checkpoint::parse(&request.note.text)
            .map_err(|e| Refused::BadRequest(format!("the checkpoint: {e}")))?;
        let keys = self
            .log_keys()
            .get(&checkpoint.origin)
            .cloned()
            .ok_or_else(|| Refused::UnknownLog {
                origin: checkpoint.origin.clone(),
            })?;
        let signed = log_signature(&keys, &request.note.text, &request.note.signatures)?;
        if request.old > checkpoint.size {
            return Err(Refused::BadRequest(format!(
                "the old size {} is beyond the checkpoint's {}",
                request.old, checkpoint.size
            ))
            .into());
        }
        // Poisoning only means another request panicked: the state on disk is still whole.
        let mut times = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        let before = self.state.latest(&checkpoint.origin)?;
        let cosigned = before.as_ref().map_or(0, |b| b.checkpoint.size);
        if request.old != cosigned {
            return Err(Refused::Conflict { size: cosigned }.into());
        }
        if let Err(why) = consistent(&request, &checkpoint, before.as_ref()) {
            // The log signed it. A fork is evidence against the log: kept whole (once per root).
            // A proof that does not verify proves nothing by itself (anyone may send a public
            // checkpoint with a wrong proof): kept too, bounded, apart from the forks.
            self.state.keep_refused(
                &checkpoint.origin,
                &why,
                &checkpoint,
                body,
                before.as_ref(),
            )?;
            return Err(Refused::Inconsistent(why).into());
        }
        // The same checkpoint again (its text, so its tree): the cosignature kept with it is
        // answered again (nothing written, and its time stands). Otherwise — another text of the
        // same tree (other extension lines), or a state kept by an earlier release without a
        // cosignature — the note is kept with the log's signature and a new cosignature before
        // the cosignature leaves (the monitoring API serves what was answered).
        let unchanged = before.as_ref().is_some_and(|b| {
            b.checkpoint.size == checkpoint.size && b.checkpoint.root == checkpoint.root
        });
        if let Some(kept) = before
            .as_ref()
            .filter(|b| unchanged && b.note.text == request.note.text)
            .and_then(|b| self.own_cosignatures(&b.note))
        {
            return Ok(kept.0.iter().map(|s| s.line()).collect());
        }
        let time = self.next_time(&mut times, &checkpoint.origin, before.as_ref(), now);
        let lines = self.cosign(&request.note.text, &checkpoint, time)?;
        let mut kept = request.note.clone();
        kept.signatures = std::iter::once(signed)
            .chain(lines.iter().cloned())
            .collect();
        self.state.replace(&checkpoint.origin, &kept)?;
        times.insert(checkpoint.origin.clone(), time);
        Ok(lines.iter().map(NoteSignature::line).collect())
    }

    /// This witness's cosignature lines over the checkpoint `text` at `time`, one per key it
    /// cosigns with.
    fn cosign(
        &self,
        text: &str,
        checkpoint: &Checkpoint,
        time: u64,
    ) -> Result<Vec<NoteSignature>, Refused> {
        let mut lines = Vec::new();
        if self.ed25519 {
            lines.push(cosignature::sign(&self.name, &self.key, time, text));
        }
        if let Some(key) = &self.ml_dsa {
            lines.push(
                key.sign_checkpoint(&self.name, time, checkpoint)
                    .ok_or_else(|| {
                        Refused::BadRequest(
                    "the origin is longer than an ML-DSA-44 cosignature may name (255 bytes)"
                        .into(),
                )
                    })?,
            );
        }
        Ok(lines)
    }

    /// Handles a `sign-subtree` body: this witness's ML-DSA-44 cosignature of the subtree (time
    /// zero, as `tlog-cosignature` asks of a subtree), once the reference checkpoint carries a
    /// cosignature of its own and the subtree consistency proof joins the subtree to it. No state
    /// changes: the checkpoint was cosigned already, and the subtree is part of it.
    pub fn sign_subtree(&self, body: &[u8]) -> Result<String, WitnessError> {
        let Some(key) = &self.ml_dsa else {
            return Err(Refused::BadRequest("this witness has no ML-DSA-44 key".into()).into());
        };
        let request = SignSubtree::parse(body).map_err(|e| Refused::BadRequest(e.to_string()))?;
        let checkpoint = Checkpoint::parse(&request.note.text)
            .map_err(|e| Refused::BadRequest(format!("the checkpoint: {e}")))?;
        if !pitboss_ledger::merkle::is_subtree(request.start, request.end)
            || request.end > checkpoint.size
        {
            return Err(Refused::BadRequest(format!(
                "[{}, {}) is not a subtree of a tree of {}",
                request.start, request.end, checkpoint.size
            ))
            .into());
        }
        if !self.log_keys().contains_key(&checkpoint.origin) {
            return Err(Refused::UnknownLog {
                origin: checkpoint.origin.clone(),
            }
            .into());
        }
        // One cosignature by any of its keys is enough (tlog-witness): a log's policy may keep
        // only the line of the key it names.
        let note = &request.note;
        let cosigned_here = self.cosigner_keys().iter().any(|key| {
            note.signatures
                .iter()
                .any(|s| key.verify(&note.text, s).is_ok())
        });
        if !cosigned_here {
            return Err(Refused::Forbidden(
                "the checkpoint carries no cosignature of this witness".into(),
            )
            .into());
        }
        if !pitboss_ledger::merkle::verify_subtree_consistency(
            request.start,
            request.end,
            checkpoint.size,
            &request.hash,
            &checkpoint.root,
            &request.proof,
        ) {
            return Err(Refused::Inconsistent(Inconsistency::BadSubtreeProof {
                start: request.start,
                end: request.end,
                size: checkpoint.size,
            })
            .into());
        }
        let line = key
            .sign(
                &self.name,
                0,
                &checkpoint.origin,
                request.start,
                request.end,
                &request.hash,
            )
            .ok_or_else(|| {
                Refused::BadRequest(
                    "the origin is longer than an ML-DSA-44 cosignature may name (255 bytes)"
                        .into(),
                )
            })?;
        Ok(line.line())
    }

    /// The time for a new cosignature of `origin`'s checkpoint: `now`, or the last one given if the
    /// clock went back — after a restart, the one the kept cosignature carries.
    fn next_time(
        &self,
        times: &mut BTreeMap<String, u64>,
        origin: &str,
        before: Option<&Stored>,
        now: u64,
    ) -> u64 {
        let last = *times
            .entry(origin.to_string())
            .or_insert_with(|| before.map_or(0, |b| self.latest_own_time(&b.note)));
        now.max(last)
    }

    /// Every key this witness holds — its Ed25519 key always (its name, its statements), its
    /// ML-DSA-44 key if any — whether or not it answers with it now: the times its lines carry
    /// count whatever keys it answers with.
    fn held_keys(&self) -> Vec<CosignerKey> {
        let mut keys = vec![CosignerKey::Ed25519(self.vkey())];
        if let Some(key) = &self.ml_dsa {
            keys.push(CosignerKey::MlDsa44(key.vkey(&self.name)));
        }
        keys
    }

    /// The latest time among `note`'s lines by any key this witness holds (0 if none).
    fn latest_own_time(&self, note: &Note) -> u64 {
        let keys = self.held_keys();
        note.signatures
            .iter()
            .filter_map(|s| keys.iter().find_map(|k| k.verify(&note.text, s).ok()))
            .max()
            .unwrap_or(0)
    }

    /// This witness's cosignatures among `note`'s — one by each key it cosigns with — and the
    /// latest time they carry; `None` unless every key has one.
    fn own_cosignatures<'a>(&self, note: &'a Note) -> Option<(Vec<&'a NoteSignature>, u64)> {
        let mut found = Vec::new();
        let mut latest = 0;
        for key in self.cosigner_keys() {
            let (line, time) = note
                .signatures
                .iter()
                .find_map(|s| key.verify(&note.text, s).ok().map(|time| (s, time)))?;
            found.push(line);
            latest = latest.max(time);
        }
        Some((found, latest))
    }

    /// What tlog-witness's monitoring API serves at `<prefix>/<origin hash>/checkpoint`: the
    /// latest checkpoint cosigned for the log whose origin's SHA-256 is `origin_hash` (lowercase
    /// hex), with the log's signature and the cosignature `add-checkpoint` returned. A state kept
    /// by an earlier release, without a cosignature, gets one made now (never dated before the
    /// last given) and kept with it. `None`: a log this witness does not know, or one it never
    /// cosigned (a `404`).
    pub fn monitored(&self, origin_hash: &str, now: u64) -> Result<Option<String>, WitnessError> {
        let origin = self
            .log_keys()
            .keys()
            .find(|origin| crate::state::origin_hash(origin) == origin_hash)
            .cloned();
        let Some(origin) = origin else {
            return Ok(None);
        };
        let Some(mut stored) = self.state.latest(&origin)? else {
            return Ok(None);
        };
        if self.own_cosignatures(&stored.note).is_none() {
            if now == 0 || now > MAX_TIMESTAMP {
                return Err(WitnessError::Time(now));
            }
            let mut times = self.lock.lock().unwrap_or_else(|p| p.into_inner());
            // Read again under the lock: a submission may have replaced it meanwhile.
            if let Some(latest) = self.state.latest(&origin)? {
                stored = latest;
            }
            if self.own_cosignatures(&stored.note).is_none() {
                // Kept, once: the time given is then the one a restart starts from, never before
                // a line it kept (by any key it holds). The lines it kept that still verify stay
                // (the very ones add-checkpoint answered); a line for each key it now answers
                // with and had none is added.
                let time = self
                    .next_time(&mut times, &origin, None, now)
                    .max(self.latest_own_time(&stored.note));
                let checkpoint = Checkpoint::parse(&stored.note.text)
                    .map_err(|e| Refused::BadRequest(format!("the kept checkpoint: {e}")))?;
                let keys = self.cosigner_keys();
                let text = stored.note.text.clone();
                let has = |key: &CosignerKey, lines: &[NoteSignature]| {
                    lines.iter().any(|s| key.verify(&text, s).is_ok())
                };
                let fresh: Vec<NoteSignature> = self
                    .cosign(&text, &checkpoint, time)?
                    .into_iter()
                    .zip(&keys)
                    .filter(|(_, key)| !has(key, &stored.note.signatures))
                    .map(|(line, _)| line)
                    .collect();
                stored.note.signatures.extend(fresh);
                self.state.replace(&origin, &stored.note)?;
                times.insert(origin.clone(), time);
            }
        }
        Ok(Some(stored.note.to_text()))
    }
}

impl Witness {
    /// This witness's cosignature/v1 over `text` at `now`: a statement of its own about a tree it
    /// holds (a mirror's: where a hand's stream ends in it). Not a cosignature of the log's
    /// checkpoint, and no state changes.
    pub fn sign_statement(&self, text: &str, now: u64) -> Result<NoteSignature, WitnessError> {
        if now == 0 || now > MAX_TIMESTAMP {
            return Err(WitnessError::Time(now));
        }
        Ok(cosignature::sign(&self.name, &self.key, now, text))
    }

    /// This witness's name (its cosignatures' key name).
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// Whether the checkpoint extends the one cosigned before (`tlog-witness`'s checks after the old
/// size's).
fn consistent(
    request: &AddCheckpoint,
    checkpoint: &Checkpoint,
    before: Option<&Stored>,
) -> Result<(), Inconsistency> {
    if checkpoint.size == 0 && checkpoint.root != pitboss_ledger::merkle::empty_root() {
        return Err(Inconsistency::EmptyRoot);
    }
    let Some(before) = before.filter(|_| request.old > 0) else {
        return if request.proof.is_empty() {
            Ok(())
        } else {
            Err(Inconsistency::NeedlessProof)
        };
    };
    let old = &before.checkpoint;
    if old.size == checkpoint.size {
        return match (old.root == checkpoint.root, request.proof.is_empty()) {
            (true, true) => Ok(()),
            (true, false) => Err(Inconsistency::NeedlessProof),
            (false, _) => Err(Inconsistency::Fork { size: old.size }),
        };
    }
    if pitboss_ledger::merkle::verify_consistency(
        old.size,
        checkpoint.size,
        &old.root,
        &checkpoint.root,
        &request.proof,
    ) {
        Ok(())
    } else {
        Err(Inconsistency::BadProof {
            from: old.size,
            to: checkpoint.size,
        })
    }
}
