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

/// The last occurrence of length-delimited field `number` in the protobuf message `bytes`, borrowed;
/// `None` when absent or when the bytes are not a message of varint and length-delimited fields.
fn borrowed_field(bytes: &[u8], number: u32) -> Option<&[u8]> {
    use prost::encoding::{decode_key, decode_varint, WireType};
    let mut rest = bytes;
    let mut found = None;
    while !rest.is_empty() {
        let (field, wire) = decode_key(&mut rest).ok()?;
        match wire {
            WireType::Varint => {
                decode_varint(&mut rest).ok()?;
            }
            WireType::LengthDelimited => {
                let length = usize::try_from(decode_varint(&mut rest).ok()?).ok()?;
                let value = rest.get(..length)?;
                if field == number {
                    found = Some(value);
                }
                rest = &rest[length..];
            }
            _ => return None,
        }
    }
    found
}

impl Entry {
    /// A stored record's payload, borrowed from its bytes without decoding or copying anything
    /// (for a reader that looks at a few kinds of payload and passes over the rest); `None` when
    /// the bytes are not shaped as a stored record ([`Entry::decode`] then says why).
    pub fn stored_payload(stored: &[u8]) -> Option<&[u8]> {
        let envelope = borrowed_field(stored, 1)?;
        borrowed_field(envelope, 7)
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(payload: Vec<u8>, stream: &str) -> Entry {
        let envelope = proto::Envelope {
            sequence: 300,
            prev_hash: vec![7; 32],
            stream: stream.into(),
            stream_position: 2,
            recorded_at_ms: 1_700_000_000_000,
            key_id: vec![1; 16],
            payload,
            actor: "admin".into(),
        };
        Entry {
            envelope_bytes: envelope.encode_to_vec(),
            envelope,
            hash: [3; 32],
            signature: Some([4; 64]),
        }
    }

    #[test]
    fn a_stored_payload_is_the_one_decoding_gives() {
        for payload in [vec![], vec![0x0a, 0x02, 0x08, 0x01], vec![0xff; 300]] {
            let stored = entry(payload.clone(), "hand/ab").encode();
            // An empty payload is not written at all (proto3): absent, left to a decoding.
            let expected = (!payload.is_empty()).then_some(payload.as_slice());
            assert_eq!(Entry::stored_payload(&stored), expected);
            assert_eq!(Entry::decode(&stored).unwrap().envelope.payload, payload);
            // Cut short anywhere: never a payload that decoding would not give.
            for cut in 0..stored.len() {
                if let Some(found) = Entry::stored_payload(&stored[..cut]) {
                    let decoded = Entry::decode(&stored[..cut]).map(|e| e.envelope.payload);
                    assert!(decoded.is_err() || decoded.unwrap() == found);
                }
            }
        }
    }
}
