//! The body of an `add-checkpoint` request (C2SP `tlog-witness`): `old <size>\n`, at most 63
//! consistency proof lines (one base64 hash each), a blank line, then the checkpoint note. Owns
//! reading it strictly; a body that does not read is a `400 Bad Request`.

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
        if body.len() > MAX_BODY {
            return Err(RequestError::TooLong { len: body.len() });
        }
        let body = std::str::from_utf8(body).map_err(|_| RequestError::NotText)?;
        let (first, mut rest) = body.split_once('\n').ok_or(RequestError::OldSize)?;
        let old = first
            .strip_prefix("old ")
            .and_then(decimal)
            .ok_or(RequestError::OldSize)?;
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
        Ok(AddCheckpoint {
            old,
            proof,
            note: Note::parse(rest)?,
        })
    }

    /// The request's body (what a log sends).
    pub fn to_body(&self) -> String {
        let mut body = format!("old {}\n", self.old);
        for hash in &self.proof {
            body.push_str(&STANDARD.encode(hash));
            body.push('\n');
        }
        body.push('\n');
        body.push_str(&self.note.to_text());
        body
    }
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
}
