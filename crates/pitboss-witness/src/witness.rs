//! The decision: whether a checkpoint is cosigned, in the order `tlog-witness` gives, with the
//! check of the old size and the update of the state as one step under one lock.

use std::collections::BTreeMap;
use std::sync::Mutex;

use ed25519_dalek::{Signature, Verifier};
use pitboss_ledger::keys::Keypair;

use crate::checkpoint::Checkpoint;
use crate::cosignature::{self, MAX_TIMESTAMP};
use crate::note::{NoteSignature, Vkey, ED25519};
use crate::request::AddCheckpoint;
use crate::state::{State, StateError, Stored};

/// Why a submission is not cosigned, as the HTTP answer `tlog-witness` prescribes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// 400: the body does not read, or the old size is beyond the checkpoint's.
    #[error("bad request: {0}")]
    BadRequest(String),
    /// 403: no signature by the log's key, or one that does not verify.
    #[error("forbidden: {0}")]
    Forbidden(String),
    /// 404: a log this witness does not know.
    #[error("unknown log {origin}")]
    UnknownLog { origin: String },
    /// 409: the old size is not the size this witness last cosigned (`size`).
    #[error("conflict: the latest checkpoint cosigned for this log has size {size}")]
    Conflict { size: u64 },
    /// 422: the checkpoint is not consistent with the one cosigned before (a bad proof, another
    /// root at the same size, a non-empty proof from size zero, a wrong empty root).
    #[error("unprocessable: {0}")]
    Inconsistent(String),
}

impl Refused {
    /// The HTTP status code.
    pub fn status(&self) -> u16 {
        match self {
            Refused::BadRequest(_) => 400,
            Refused::Forbidden(_) => 403,
            Refused::UnknownLog { .. } => 404,
            Refused::Conflict { .. } => 409,
            Refused::Inconsistent(_) => 422,
        }
    }
}

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

/// A witness: its name and key, the logs it knows, its state.
pub struct Witness {
    name: String,
    key: Keypair,
    /// Each known log's key, by origin.
    logs: BTreeMap<String, Vkey>,
    state: State,
    /// Held from reading a log's state to writing its new one.
    lock: Mutex<()>,
}

impl Witness {
    /// A witness named `name` (its cosignatures' key name) signing with `key`, knowing `logs`
    /// (each an Ed25519 note key named by its log's origin), keeping its state in `state`.
    pub fn new(name: String, key: Keypair, logs: Vec<Vkey>, state: State) -> Witness {
        Witness {
            name,
            key,
            logs: logs
                .into_iter()
                .filter(|v| v.kind == ED25519)
                .map(|v| (v.name.clone(), v))
                .collect(),
            state,
            lock: Mutex::new(()),
        }
    }

    /// This witness's verifier key (type `0x04`), for a log's policy.
    pub fn vkey(&self) -> Vkey {
        Vkey {
            name: self.name.clone(),
            kind: crate::note::COSIGNATURE_V1,
            key: self.key.public(),
        }
    }

    /// The latest checkpoint cosigned for `origin`.
    pub fn latest(&self, origin: &str) -> Result<Option<Stored>, StateError> {
        self.state.latest(origin)
    }

    /// The refused submissions kept for `origin`.
    pub fn refused(&self, origin: &str) -> Result<Vec<std::path::PathBuf>, StateError> {
        self.state.refused(origin)
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
        let log = self
            .logs
            .get(&checkpoint.origin)
            .ok_or_else(|| Refused::UnknownLog {
                origin: checkpoint.origin.clone(),
            })?;
        let signed = log_signature(log, &request.note.text, &request.note.signatures)?;
        if request.old > checkpoint.size {
            return Err(Refused::BadRequest(format!(
                "the old size {} is beyond the checkpoint's {}",
                request.old, checkpoint.size
            ))
            .into());
        }
        // Poisoning only means another request panicked: the state on disk is still whole.
        let _held = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        let before = self.state.latest(&checkpoint.origin)?;
        let cosigned = before.as_ref().map_or(0, |b| b.checkpoint.size);
        if request.old != cosigned {
            return Err(Refused::Conflict { size: cosigned }.into());
        }
        if let Err(why) = consistent(&request, &checkpoint, before.as_ref()) {
            // The log signed it: evidence of its misbehaviour, kept (bounded) before refusing.
            self.state
                .keep_refused(&checkpoint.origin, &why, body, before.as_ref())?;
            return Err(Refused::Inconsistent(why).into());
        }
        let mut kept = request.note.clone();
        kept.signatures = vec![signed];
        self.state.replace(&checkpoint.origin, &kept)?;
        let line = cosignature::sign(&self.name, &self.key, now, &request.note.text);
        Ok(line.line())
    }
}

/// The log's signature among the note's: one by the log's key (name and key id) that verifies.
/// Signatures by other keys are ignored; one by the log's key that does not verify is refused.
pub(crate) fn log_signature(
    log: &Vkey,
    text: &str,
    signatures: &[NoteSignature],
) -> Result<NoteSignature, Refused> {
    let mut found = None;
    for signature in signatures.iter().filter(|s| log.names(s)) {
        let verified = <[u8; 64]>::try_from(signature.bytes.as_slice())
            .ok()
            .is_some_and(|sig| {
                log.key
                    .verify(text.as_bytes(), &Signature::from_bytes(&sig))
                    .is_ok()
            });
        if !verified {
            return Err(Refused::Forbidden(
                "a signature by the log's key does not verify".into(),
            ));
        }
        found.get_or_insert_with(|| signature.clone());
    }
    found.ok_or_else(|| Refused::Forbidden("no signature by the log's key".into()))
}

/// Whether the checkpoint extends the one cosigned before (`tlog-witness`'s checks after the old
/// size's): the reason if not.
fn consistent(
    request: &AddCheckpoint,
    checkpoint: &Checkpoint,
    before: Option<&Stored>,
) -> Result<(), String> {
    if checkpoint.size == 0 && checkpoint.root != pitboss_ledger::merkle::empty_root() {
        return Err("a checkpoint of size 0 whose root is not the empty tree's".into());
    }
    let Some(before) = before.filter(|_| request.old > 0) else {
        return if request.proof.is_empty() {
            Ok(())
        } else {
            Err("a consistency proof from size 0, which needs none".into())
        };
    };
    let old = &before.checkpoint;
    if old.size == checkpoint.size {
        return if old.root == checkpoint.root && request.proof.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "size {} again with another root than the one cosigned",
                checkpoint.size
            ))
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
        Err(format!(
            "the consistency proof from size {} to {} does not verify",
            old.size, checkpoint.size
        ))
    }
}
