//! The bodies of `tlog-witness`'s requests, read strictly: `add-checkpoint` (`old <size>\n`, at
//! most 63 consistency proof lines of one base64 hash each, a blank line, the checkpoint note) and
//! `sign-subtree` (`subtree <start> <end>\n`, the subtree's hash, at most 63 subtree consistency
//! proof lines, a blank line, a checkpoint this witness cosigned). A body that does not read is a
//! `400 Bad Request`.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use pitboss_ledger::Hash;

use crate::checkpoint::{decimal, hash};
use crate::note::{Note, NoteError, MAX_NOTE};

/// The most consistency proof lines a client may send.
pub const MAX_PROOF: usize = 63;
/// The largest request body read: the old size line, a full proof, and the largest note.
pub const MAX_BODY: usize = 64 + MAX_PROOF * 46 + MAX_NOTE;

/// Why a request body is not an `add-checkpoint` request.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    #[error("the body is {len} bytes; at most {MAX_BODY}")]
    TooLong { len: usize },
    #[error("the body is not UTF-8")]
    NotText,
    #[error("the first line is not `old <size>` (decimal, no leading zero)")]
    OldSize,
    #[error("proof line {line} is not the base64 of a 32-byte hash")]
    ProofLine { line: usize },
    #[error("more than {MAX_PROOF} proof lines")]
    ProofTooLong,
    #[error("no blank line before the checkpoint")]
    NoCheckpoint,
    #[error("the checkpoint: {0}")]
    Note(#[from] NoteError),
    #[error("the first line is not `subtree <start> <end>` (decimals, no leading zero)")]
    Range,
    #[error("the second line is not the subtree's hash (base64 of 32 bytes)")]
    SubtreeHash,
}

/// A request to cosign a checkpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddCheckpoint {
    /// The size the client believes this witness last cosigned.
    pub old: u64,
    /// The consistency proof from `old` to the checkpoint's size.
    pub proof: Vec<Hash>,
    /// The checkpoint, as a signed note.
    pub note: Note,
}

impl AddCheckpoint {
    /// Reads a request body.
    pub fn parse(body: &[u8]) -> Result<AddCheckpoint, RequestError> {
        let body = text(body)?;
        let (first, rest) = body.split_once('\n').ok_or(RequestError::OldSize)?;
        let old = first
            .strip_prefix("old ")
            .and_then(decimal)
            .ok_or(RequestError::OldSize)?;
        let (proof, note) = proof_and_note(rest)?;
        Ok(AddCheckpoint { old, proof, note })
    }

    /// The request's body (what a log sends).
    pub fn to_body(&self) -> String {
        with_proof_and_note(format!("old {}\n", self.old), &self.proof, &self.note)
    }
}

/// A request to cosign a subtree of a checkpoint this witness cosigned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignSubtree {
    pub start: u64,
    pub end: u64,
    /// The subtree's Merkle hash.
    pub hash: Hash,
    /// The subtree consistency proof from the subtree to the checkpoint.
    pub proof: Vec<Hash>,
    /// The reference checkpoint, as a signed note.
    pub note: Note,
}

impl SignSubtree {
    /// Reads a request body.
    pub fn parse(body: &[u8]) -> Result<SignSubtree, RequestError> {
        let body = text(body)?;
        let (first, rest) = body.split_once('\n').ok_or(RequestError::Range)?;
        let mut words = first
            .strip_prefix("subtree ")
            .ok_or(RequestError::Range)?
            .split(' ');
        let (Some(start), Some(end), None) = (
            words.next().and_then(decimal),
            words.next().and_then(decimal),
            words.next(),
        ) else {
            return Err(RequestError::Range);
        };
        let (second, rest) = rest.split_once('\n').ok_or(RequestError::SubtreeHash)?;
        let subtree = hash(second).ok_or(RequestError::SubtreeHash)?;
        let (proof, note) = proof_and_note(rest)?;
        Ok(SignSubtree {
            start,
            end,
            hash: subtree,
            proof,
            note,
        })
    }

    /// The request's body (what a client sends).
    pub fn to_body(&self) -> String {
        let head = format!(
            "subtree {} {}\n{}\n",
            self.start,
            self.end,
            STANDARD.encode(self.hash)
        );
        with_proof_and_note(head, &self.proof, &self.note)
    }
}

/// A body's text, within its bound.
fn text(body: &[u8]) -> Result<&str, RequestError> {
    if body.len() > MAX_BODY {
        return Err(RequestError::TooLong { len: body.len() });
    }
    std::str::from_utf8(body).map_err(|_| RequestError::NotText)
}

/// `head`, then the proof's lines, a blank line and the note: the rest of either body.
fn with_proof_and_note(mut body: String, proof: &[Hash], note: &Note) -> String {
    for hash in proof {
        body.push_str(&STANDARD.encode(hash));
        body.push('\n');
    }
    body.push('\n');
    body.push_str(&note.to_text());
    body
}

/// The proof lines up to the blank line, then the note.
fn proof_and_note(mut rest: &str) -> Result<(Vec<Hash>, Note), RequestError> {
    let mut proof = Vec::new();
    loop {
        let (line, after) = rest.split_once('\n').ok_or(RequestError::NoCheckpoint)?;
        rest = after;
        if line.is_empty() {
            break;
        }
        if proof.len() == MAX_PROOF {
            return Err(RequestError::ProofTooLong);
        }
        proof.push(hash(line).ok_or(RequestError::ProofLine {
            line: proof.len() + 1,
        })?);
    }
    Ok((proof, Note::parse(rest)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_round_trips_and_bad_ones_are_named() {
        let note = "o\n2\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n\u{2014} o AQIDBAU=\n";
        let hash = STANDARD.encode([1u8; 32]);
        let body = format!("old 1\n{hash}\n\n{note}");
        let request = AddCheckpoint::parse(body.as_bytes()).unwrap();
        assert_eq!((request.old, request.proof.len()), (1, 1));
        assert_eq!(request.to_body(), body);
        let refused = |b: String| AddCheckpoint::parse(b.as_bytes()).unwrap_err();
        assert_eq!(refused(format!("old 01\n\n{note}")), RequestError::OldSize);
        assert_eq!(refused(format!("new 1\n\n{note}")), RequestError::OldSize);
        assert_eq!(
            refused(format!("old 1\nxyz\n\n{note}")),
            RequestError::ProofLine { line: 1 }
        );
        assert_eq!(
            refused(format!("old 1\n{}\n{note}", format!("{hash}\n").repeat(64))),
            RequestError::ProofTooLong
        );
        assert_eq!(refused("old 1\n".into()), RequestError::NoCheckpoint);
        assert_eq!(
            refused("x".repeat(MAX_BODY + 1)),
            RequestError::TooLong { len: MAX_BODY + 1 }
        );
    }

    /// tlog-witness's example body reads, and writes back the same; each line's fault is named.
    #[test]
    fn a_sign_subtree_request_round_trips_and_bad_ones_are_named() {
        let note = "o\n14\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n\u{2014} w AQIDBAU=\n";
        let hash = STANDARD.encode([1u8; 32]);
        let body = format!("subtree 8 13\n{hash}\n{hash}\n{hash}\n\n{note}");
        let request = SignSubtree::parse(body.as_bytes()).unwrap();
        assert_eq!(
            (
                request.start,
                request.end,
                request.hash,
                request.proof.len()
            ),
            (8, 13, [1; 32], 2)
        );
        assert_eq!(request.to_body(), body);
        let refused = |b: String| SignSubtree::parse(b.as_bytes()).unwrap_err();
        assert_eq!(
            refused(format!("subtree 08 13\n{hash}\n\n{note}")),
            RequestError::Range
        );
        assert_eq!(
            refused(format!("subtree 8\n{hash}\n\n{note}")),
            RequestError::Range
        );
        assert_eq!(
            refused(format!("subtree 8 13 1\n{hash}\n\n{note}")),
            RequestError::Range
        );
        assert_eq!(
            refused(format!("subtree 8 13\nAAAA\n\n{note}")),
            RequestError::SubtreeHash
        );
        assert_eq!(
            refused(format!(
                "subtree 8 13\n{hash}\n{}\n{note}",
                format!("{hash}\n").repeat(64)
            )),
            RequestError::ProofTooLong
        );
    }
}
