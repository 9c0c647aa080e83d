//! A cosigned checkpoint, checked offline against a policy: the log's own signature (by a key the
//! policy lists for the log), and which of the policy's witnesses cosigned it — whether they meet
//! its quorum. For a bundle's reader (`verify-bundle --policy`) and the log's own side.

use std::collections::BTreeSet;

use crate::checkpoint::{Checkpoint, CheckpointError};
use ed25519_dalek::VerifyingKey;

use crate::note::{Note, NoteError, Vkey};
use crate::policy::Policy;
use crate::refusal::{log_signature, Refused};

/// Why a note is not a checkpoint signed by one of the policy's logs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CosignedError {
    #[error("the cosigned checkpoint: {0}")]
    Note(#[from] NoteError),
    #[error("the cosigned checkpoint: {0}")]
    Checkpoint(#[from] CheckpointError),
    #[error("the policy does not list log {0} with the key given")]
    UnknownLog(String),
    #[error("the cosigned checkpoint: {0}")]
    LogSignature(String),
}

/// What a cosigned checkpoint shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CosignedCheck {
    /// The checkpoint.
    pub checkpoint: Checkpoint,
    /// The policy's witnesses (their names in the policy) whose cosignatures verify.
    pub witnesses: BTreeSet<String>,
    /// Whether they meet the policy's quorum.
    pub quorum: bool,
}

/// Checks `note` against `policy`: it must be signed by `log_key`, which the policy must list
/// for the note's origin.
pub fn check(
    note: &str,
    policy: &Policy,
    log_key: &VerifyingKey,
) -> Result<CosignedCheck, CosignedError> {
    let note = Note::parse(note)?;
    let checkpoint = Checkpoint::parse(&note.text)?;
    let keys: Vec<Vkey> = policy
        .logs
        .iter()
        .map(|l| l.vkey.clone())
        .filter(|v| v.name == checkpoint.origin && v.key == *log_key)
        .collect();
    if keys.is_empty() {
        return Err(CosignedError::UnknownLog(checkpoint.origin.clone()));
    }
    log_signature(&keys, &note.text, &note.signatures).map_err(|e| match e {
        Refused::Forbidden(why) => CosignedError::LogSignature(why),
        other => CosignedError::LogSignature(other.to_string()),
    })?;
    let witnesses: BTreeSet<String> = policy
        .witnesses
        .iter()
        .filter(|w| {
            note.signatures
                .iter()
                .any(|s| w.vkey.verify(&note.text, s).is_ok())
        })
        .map(|w| w.name.clone())
        .collect();
    let quorum = policy.satisfied(&witnesses);
    Ok(CosignedCheck {
        checkpoint,
        witnesses,
        quorum,
    })
}
