//! Request records: what makes a retried append idempotent. A caller may name an append with a
//! request id and a fingerprint of the request (an opaque 32 bytes the caller computes: a hash of
//! the method, its target and its content). The writer stores, under the id in the `requests`
//! family and in the same batch as the entries, the append's first result and that fingerprint.
//! A later append with the same id and the same fingerprint is a retry: it gets the first result
//! and writes nothing. The same id with another fingerprint is refused
//! ([`LedgerError::RequestReused`]): one id means one request.
//!
//! Records written before fingerprints existed (24 bytes: the result alone) are still read; they
//! carry no fingerprint, so the caller checks what can be checked (the stream of the first entry).
//!
//! Owns the record's bytes; knows nothing of what the fingerprint covers.

use super::store::be_u64;
use super::Appended;

/// The opaque fingerprint of a request (a SHA-256 the caller computes over the method, the target
/// and the canonical content of the request).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fingerprint(pub [u8; 32]);

/// A request id and the fingerprint of the request it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestKey {
    /// The client's id.
    pub id: String,
    /// What the id is bound to.
    pub fingerprint: Fingerprint,
}

/// A recorded request: the first result, and the fingerprint it is bound to (`None` for a record
/// written by a release before fingerprints).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestRecord {
    /// The first result (`duplicate` set: answering from the record writes nothing).
    pub appended: Appended,
    /// What the id is bound to.
    pub fingerprint: Option<Fingerprint>,
}

/// Why an id was refused: the words of [`LedgerError::RequestReused`](super::LedgerError), also
/// used by the layers above that carry the refusal on.
pub fn reused_message(id: &str) -> String {
    format!(
        "request id `{id}` was first used for a different request (another method, target or \
         content); a retry must repeat the request exactly, a new request needs a new id"
    )
}

/// The length of a record without a fingerprint: first sequence, count, stream version.
const LEGACY_LEN: usize = 24;
/// The length of a record with its fingerprint.
const RECORD_LEN: usize = LEGACY_LEN + 32;

impl RequestRecord {
    /// The stored bytes: first sequence, count and stream version (big-endian u64 each), then the
    /// 32-byte fingerprint.
    pub(super) fn encode(appended: &Appended, fingerprint: &Fingerprint) -> Vec<u8> {
        let mut out = Vec::with_capacity(RECORD_LEN);
        out.extend_from_slice(&appended.first_sequence.to_be_bytes());
        out.extend_from_slice(&appended.count.to_be_bytes());
        out.extend_from_slice(&appended.stream_version.to_be_bytes());
        out.extend_from_slice(&fingerprint.0);
        out
    }

    /// A stored record (either length); `None` if the bytes are not a record.
    pub fn decode(bytes: &[u8]) -> Option<RequestRecord> {
        let fingerprint = match bytes.len() {
            LEGACY_LEN => None,
            RECORD_LEN => Some(Fingerprint(bytes[LEGACY_LEN..].try_into().ok()?)),
            _ => return None,
        };
        Some(RequestRecord {
            appended: Appended {
                first_sequence: be_u64(bytes.get(0..8)?)?,
                count: be_u64(bytes.get(8..16)?)?,
                stream_version: be_u64(bytes.get(16..24)?)?,
                duplicate: true,
            },
            fingerprint,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_old_records_still_read() {
        let appended = Appended {
            first_sequence: 7,
            count: 3,
            stream_version: 10,
            duplicate: false,
        };
        let fingerprint = Fingerprint([9; 32]);
        let bytes = RequestRecord::encode(&appended, &fingerprint);
        assert_eq!(bytes.len(), 56);
        let record = RequestRecord::decode(&bytes).unwrap();
        assert_eq!(record.fingerprint, Some(fingerprint));
        assert_eq!(
            record.appended,
            Appended {
                duplicate: true,
                ..appended.clone()
            }
        );
        // A record of the previous release: the result alone.
        let old = RequestRecord::decode(&bytes[..24]).unwrap();
        assert_eq!(old.fingerprint, None);
        assert_eq!(old.appended, record.appended);
        for len in [0, 8, 23, 25, 55, 57] {
            assert!(RequestRecord::decode(&vec![0; len]).is_none(), "{len}");
        }
    }
}
