//! A fork's evidence, checked offline: the file a witness keeps under `state/forks/` holds the
//! checkpoint it was shown and the one it had cosigned before, both as the log signed them. If
//! both signatures verify with the log's key and the two trees have one size and two roots, the
//! log forked (or its history was rewritten): nobody but the key's holder could have signed both.
//!
//! Owns reading the file (`pitboss witness evidence v1`) and that judgement; a file that does not
//! read, a signature that does not verify or two trees that do not conflict prove nothing.

use crate::checkpoint::{Checkpoint, CheckpointError};
use crate::note::{Note, NoteError, Vkey};
use crate::refusal::log_signature;
use crate::request::{AddCheckpoint, RequestError};

/// The first line of an evidence file.
pub const HEADER: &str = "pitboss witness evidence v1\n";
/// The line before the submission, as received.
pub(crate) const SUBMISSION: &str = "\n-- the submission, as received\n";
/// The line before the checkpoint cosigned before it.
pub(crate) const BEFORE: &str = "\n-- the checkpoint cosigned before it\n";
/// The largest evidence file read.
pub const MAX_EVIDENCE_FILE: usize = 64 * 1024;

/// Why a file proves no fork.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvidenceError {
    #[error("not a witness's evidence file ({0})")]
    Format(&'static str),
    #[error("the submission: {0}")]
    Request(#[from] RequestError),
    #[error("the checkpoint cosigned before: {0}")]
    Note(#[from] NoteError),
    #[error("a checkpoint: {0}")]
    Checkpoint(#[from] CheckpointError),
    #[error("the {which} checkpoint is not signed by the log's key: {why}")]
    Unsigned { which: &'static str, why: String },
    #[error("the checkpoints are of two logs ({0} and {1})")]
    TwoLogs(String, String),
    #[error(
        "no conflict: sizes {0} and {1} with these roots prove nothing alone (a consistency proof \
         that does not verify may be wrong, not the log)"
    )]
    NoConflict(u64, u64),
}

/// A proven fork: one log, one size, two roots, both signed by the log's key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fork {
    pub origin: String,
    pub size: u64,
    /// The root the witness had cosigned, then the other.
    pub roots: [pitboss_ledger::Hash; 2],
}

/// Checks an evidence file's text against the log's verifier keys (more than one when the log
/// rotated its key between the two checkpoints: each must be signed by one of them).
pub fn check(text: &str, logs: &[Vkey]) -> Result<Fork, EvidenceError> {
    if text.len() > MAX_EVIDENCE_FILE {
        return Err(EvidenceError::Format("too long"));
    }
    let rest = text
        .strip_prefix(HEADER)
        .ok_or(EvidenceError::Format("no header line"))?;
    let (_, rest) = rest
        .split_once(SUBMISSION)
        .ok_or(EvidenceError::Format("no submission"))?;
    let (submission, before) = rest
        .split_once(BEFORE)
        .ok_or(EvidenceError::Format("no checkpoint cosigned before"))?;
    let shown = AddCheckpoint::parse(submission.as_bytes())?.note;
    let before = Note::parse(before)?;
    let keys = logs;
    let mut checkpoints = Vec::new();
    for (which, note) in [("cosigned", &before), ("submitted", &shown)] {
        let signed = log_signature(keys, &note.text, &note.signatures).map_err(|e| {
            EvidenceError::Unsigned {
                which,
                why: e.to_string(),
            }
        })?;
        let checkpoint = Checkpoint::parse(&note.text)?;
        // A key speaks for the log it is named after, not for another origin.
        if signed.name != checkpoint.origin {
            return Err(EvidenceError::Unsigned {
                which,
                why: format!(
                    "signed by a key of {}, not of {}",
                    signed.name, checkpoint.origin
                ),
            });
        }
        checkpoints.push(checkpoint);
    }
    let (a, b) = (&checkpoints[0], &checkpoints[1]);
    if a.origin != b.origin {
        return Err(EvidenceError::TwoLogs(a.origin.clone(), b.origin.clone()));
    }
    if a.size != b.size || a.root == b.root {
        return Err(EvidenceError::NoConflict(a.size, b.size));
    }
    Ok(Fork {
        origin: a.origin.clone(),
        size: a.size,
        roots: [a.root, b.root],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::note::{key_id, NoteSignature, ED25519};
    use base64::Engine;
    use ed25519_dalek::{Signer, SigningKey};

    const ORIGIN: &str = "pitboss.v1/0011223344556677";

    /// A checkpoint of `ORIGIN` (`size`, a root of `fill`) signed by `key` under the key name
    /// `name`.
    fn signed(size: u64, fill: u8, key: &SigningKey, name: &str) -> Note {
        let root = base64::engine::general_purpose::STANDARD.encode([fill; 32]);
        let text = format!("{ORIGIN}\n{size}\n{root}\n");
        Note {
            signatures: vec![NoteSignature {
                name: name.into(),
                key_id: key_id(name, ED25519, key.verifying_key().as_bytes()),
                bytes: key.sign(text.as_bytes()).to_bytes().to_vec(),
            }],
            text,
        }
    }

    /// An evidence file of two trees of one size, as a witness writes it.
    fn evidence(cosigned: &Note, submitted: &Note) -> String {
        let body = AddCheckpoint {
            old: 9,
            proof: Vec::new(),
            note: submitted.clone(),
        }
        .to_body();
        format!(
            "{HEADER}origin {ORIGIN}\nrefused a fork\n{SUBMISSION}{body}{BEFORE}{}",
            cosigned.to_text()
        )
    }

    /// Two trees of one size signed by the log's key prove a fork; the same signed by a key named
    /// after another log prove nothing of this one, even with that key given.
    #[test]
    fn a_fork_is_proven_only_by_a_key_of_the_log_it_names() {
        let key = SigningKey::from_bytes(&[1; 32]);
        let vkey = |name: &str| Vkey {
            name: name.into(),
            kind: ED25519,
            key: key.verifying_key(),
        };
        let text = evidence(&signed(9, 1, &key, ORIGIN), &signed(9, 2, &key, ORIGIN));
        let fork = check(&text, &[vkey(ORIGIN)]).unwrap();
        assert_eq!((fork.origin.as_str(), fork.size), (ORIGIN, 9));
        let other = "another.example/log";
        let text = evidence(&signed(9, 1, &key, other), &signed(9, 2, &key, other));
        let refused = check(&text, &[vkey(other)]).unwrap_err();
        assert!(
            matches!(&refused, EvidenceError::Unsigned { why, .. } if why.contains("signed by a key of another.example/log")),
            "{refused}"
        );
    }
}
