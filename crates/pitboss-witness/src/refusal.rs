//! Why a witness refuses a submission ([`Refused`], each with the HTTP status `tlog-witness`
//! prescribes), how a checkpoint fails to extend the one cosigned before ([`Inconsistency`]), and
//! the one check every signed note a log sends goes through (`log_signature`). A leaf: the
//! decision, the state and the evidence all name it.

use ed25519_dalek::{Signature, Verifier};

use crate::note::{NoteSignature, Vkey};

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
    /// 422: the checkpoint is not consistent with the one cosigned before.
    #[error("unprocessable: {0}")]
    Inconsistent(Inconsistency),
}

/// How a checkpoint fails to extend the one cosigned before (a `422`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Inconsistency {
    /// Another root at the size cosigned: the log forked (both checkpoints carry its signature).
    #[error("size {size} again with another root than the one cosigned: a fork")]
    Fork { size: u64 },
    /// The consistency proof does not join the tree cosigned to this one.
    #[error("the consistency proof from size {from} to {to} does not verify")]
    BadProof { from: u64, to: u64 },
    /// A proof where none belongs (from size 0, or at the size cosigned).
    #[error("a consistency proof where none belongs (from size 0, or at the size cosigned)")]
    NeedlessProof,
    /// A tree of size 0 whose root is not the empty tree's.
    #[error("a checkpoint of size 0 whose root is not the empty tree's")]
    EmptyRoot,
    /// A `sign-subtree` request whose subtree consistency proof does not join the subtree to the
    /// checkpoint.
    #[error(
        "the subtree consistency proof of [{start}, {end}) in the tree of {size} does not verify"
    )]
    BadSubtreeProof { start: u64, end: u64, size: u64 },
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

/// The log's signature among the note's: one by one of the log's keys (name and key id) that
/// verifies. Signatures by other keys are ignored; one by a log key that does not verify is
/// refused (such a note is malformed, signed-note says).
pub(crate) fn log_signature(
    keys: &[Vkey],
    text: &str,
    signatures: &[NoteSignature],
) -> Result<NoteSignature, Refused> {
    let mut found = None;
    for signature in signatures.iter() {
        let Some(key) = keys.iter().find(|k| k.names(signature)) else {
            continue;
        };
        let verified = <[u8; 64]>::try_from(signature.bytes.as_slice())
            .ok()
            .is_some_and(|sig| {
                key.key
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
