//! One log entry: the envelope's fields, its canonical (stored) bytes, its hash and signature.
//!
//! The hash is `SHA-256(DOMAIN || envelope bytes)` over the bytes exactly as stored, never a
//! re-encoding; the signature is Ed25519 over that hash. Since format 4 not every entry carries one:
//! the writer signs the last entry of each group (and every key entry, the last entry before the
//! signing key changes, and at least every [`SEAL_RUN`]th entry); an unsigned entry is vouched for
//! by the next signed one, whose hash the chain binds to it. Owns no storage and no game rule.

use prost::Message;
use sha2::{Digest, Sha256};

use crate::proto;

/// Domain separation for entry hashes.
pub const ENTRY_DOMAIN: &[u8] = b"pitboss.v1.event\0";

/// A 32-byte SHA-256 hash.
pub type Hash = [u8; 32];

/// Runs of unsigned entries are shorter than this: the writer signs at least every `SEAL_RUN`th
/// entry, and verification refuses a run of `SEAL_RUN` unsigned entries (it holds a run in memory
/// until the signature that seals it is checked).
pub const SEAL_RUN: usize = 1024;

/// The hash before the first entry.
pub const GENESIS: Hash = [0; 32];

/// The hash of envelope bytes.
pub fn entry_hash(envelope_bytes: &[u8]) -> Hash {
    let mut hasher = Sha256::new();
    hasher.update(ENTRY_DOMAIN);
    hasher.update(envelope_bytes);
    hasher.finalize().into()
}

/// A decoded, stored entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The envelope, decoded.
    pub envelope: proto::Envelope,
    /// The envelope's bytes as stored (what is hashed).
    pub envelope_bytes: Vec<u8>,
    /// The stored hash.
    pub hash: Hash,
    /// The stored signature; `None` for an entry sealed by a later one (format 4: a group is
    /// signed once, by its last entry, whose hash the chain binds to every entry before it).
    pub signature: Option<[u8; 64]>,
}

/// Why stored bytes are not an entry.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    #[error("the stored record does not decode: {0}")]
    Record(String),
    #[error("the envelope does not decode: {0}")]
    Envelope(String),
    #[error("the stored {field} has {got} bytes, not {want}")]
    Length {
        field: &'static str,
        got: usize,
        want: usize,
    },
}

impl Entry {
    /// Decodes a stored record.
    pub fn decode(stored: &[u8]) -> Result<Entry, EntryError> {
        let record =
            proto::StoredEntry::decode(stored).map_err(|e| EntryError::Record(e.to_string()))?;
        let envelope = proto::Envelope::decode(record.envelope.as_slice())
            .map_err(|e| EntryError::Envelope(e.to_string()))?;
        let length = |field, bytes: &[u8], want| EntryError::Length {
            field,
            got: bytes.len(),
            want,
        };
        Ok(Entry {
            hash: record
                .hash
                .as_slice()
                .try_into()
                .map_err(|_| length("hash", &record.hash, 32))?,
            signature: match record.signature.as_slice() {
                [] => None,
                bytes => Some(
                    bytes
                        .try_into()
                        .map_err(|_| length("signature", bytes, 64))?,
                ),
            },
            envelope,
            envelope_bytes: record.envelope,
        })
    }

    /// The stored record's bytes.
    pub fn encode(&self) -> Vec<u8> {
        proto::StoredEntry {
            envelope: self.envelope_bytes.clone(),
            hash: self.hash.to_vec(),
            signature: self.signature.map_or_else(Vec::new, |s| s.to_vec()),
        }
        .encode_to_vec()
    }

    /// The payload as the ledger reads it: one of its own kinds, or `kind: None` for any other
    /// (which the ledger keeps as opaque bytes).
    pub fn ledger_payload(&self) -> Result<proto::LedgerPayload, EntryError> {
        proto::LedgerPayload::decode(self.envelope.payload.as_slice())
            .map_err(|e| EntryError::Envelope(e.to_string()))
    }
}
