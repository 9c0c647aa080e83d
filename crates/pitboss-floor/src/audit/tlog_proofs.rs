//! C2SP `tlog-proof` files of the log's own entries (`docs/tlog-proof.md`): one entry proven in a
//! checkpoint the caller holds (a certificate's signed note), or the entries of a stream anyone
//! may read (the returns' statements, a configuration's certifications) proven in the newest
//! checkpoint the log's witnesses cosigned when it holds them all, else in the log's checkpoint
//! now (a mirror: the log's own checkpoint it holds). A bundle's proofs come from the bundle
//! itself ([`super::bundle::tlog_proofs`]).
//!
//! Reads the log; MUST NOT write, and names no stream a caller may read: the service does.

use pitboss_ledger::checkpoint::Checkpoint;
use pitboss_ledger::entry::Entry;
use pitboss_witness::proof::{TlogProof, EXTENSION};

use super::bundle::{BundleError, Source, TlogProofFile};
use crate::floor::Floor;

/// The most entries of a stream proven in one answer.
pub const MAX_PROOFS: usize = 256;

/// A stream's entries, proven.
#[derive(Clone, Debug)]
pub struct StreamProofs {
    /// One file per entry, `entry-<sequence>.tlog-proof`, in the stream's order.
    pub proofs: Vec<TlogProofFile>,
    /// The tree they are proven in.
    pub tree_size: u64,
    /// Whether its checkpoint carries the witnesses' cosignatures to the server's policy.
    pub cosigned: bool,
    /// The stream's position after the last one proven, when more entries follow.
    pub next_position: Option<u64>,
}

/// The proof of `entry` in the tree of `note` (a checkpoint the log signed, which must hold it).
fn proof_of(floor: &Floor, entry: &Entry, note: &str) -> Result<TlogProofFile, BundleError> {
    let size = Checkpoint::parse(note)
        .map_err(|e| BundleError::Malformed(format!("the checkpoint: {e}")))?
        .size;
    let sequence = entry.envelope.sequence;
    let proof = floor.log().inclusion_proof(sequence, size)?;
    Ok(TlogProofFile {
        file: format!("entry-{sequence}.{EXTENSION}"),
        text: TlogProof {
            extra: Some(entry.envelope_bytes.clone()),
            index: sequence,
            proof: proof.hashes,
            checkpoint: note.to_string(),
        }
        .to_text(),
    })
}

/// The proof of entry `sequence` in the tree of `note`.
pub fn entry_proof(floor: &Floor, sequence: u64, note: &str) -> Result<TlogProofFile, BundleError> {
    let entry = floor
        .log()
        .entry(sequence)?
        .ok_or_else(|| BundleError::NotFound {
            what: "entry",
            id: sequence.to_string(),
        })?;
    proof_of(floor, &entry, note)
}

/// The entries of `stream` from `position` on (at most [`MAX_PROOFS`]), proven as `source` says.
pub fn stream_proofs(
    floor: &Floor,
    stream: &str,
    position: u64,
    source: Source<'_>,
) -> Result<StreamProofs, BundleError> {
    // The newest checkpoint the source offers first, then the stream: every entry below its size.
    let (now, cosigned, newest) = match source {
        Source::Log(cosigned) => (floor.log().tree_size()?, cosigned.cloned(), None),
        Source::Mirror(mirror) => {
            let newest = mirror.newest().ok_or_else(|| {
                BundleError::NotHeld("the mirror holds no checkpoint of the log yet".into())
            })?;
            let cosigned = mirror.cosigned().map(|c| c.as_cosigned());
            (newest.size, cosigned, Some(newest.note))
        }
    };
    // One more than a page: whether more follow, and no more read than that.
    let mut entries = floor.stream_entries(stream, position, MAX_PROOFS + 1)?;
    entries.retain(|e| e.envelope.sequence < now);
    let next_position =
        (entries.len() > MAX_PROOFS).then(|| position.saturating_add(MAX_PROOFS as u64));
    entries.truncate(MAX_PROOFS);
    let last = entries.last().map_or(0, |e| e.envelope.sequence);
    let cosigned = cosigned.filter(|c| last < c.size && c.size <= now);
    let (note, tree_size) = match (&cosigned, newest) {
        (Some(c), _) => (c.note.clone(), c.size),
        (None, Some(note)) => (note, now),
        (None, None) => (floor.log().checkpoint(Some(now))?.0.note(), now),
    };
    let proofs = entries
        .iter()
        .map(|entry| proof_of(floor, entry, &note))
        .collect::<Result<_, _>>()?;
    Ok(StreamProofs {
        proofs,
        tree_size,
        cosigned: cosigned.is_some(),
        next_position,
    })
}
