//! The Ed25519 `cosignature/v1` (C2SP `tlog-cosignature`): a witness's timestamped statement that,
//! at that time, the consistent tree of the largest size it saw for the log has this root. The
//! signed message is `cosignature/v1\n`, `time <t>\n`, then the checkpoint's whole text; the line
//! carries `key id ‖ timestamp (u64, big-endian) ‖ signature`.

use ed25519_dalek::{Signature, Verifier};
use pitboss_ledger::keys::Keypair;

use crate::note::{NoteSignature, Vkey, COSIGNATURE_V1};

/// The largest timestamp a cosignature may carry (`2^63 - 1`).
pub const MAX_TIMESTAMP: u64 = i64::MAX as u64;

/// Why a cosignature line does not verify.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CosignatureError {
    #[error("the line is not by this cosigner (name or key id)")]
    OtherKey,
    #[error("not 8 bytes of timestamp and 64 of signature")]
    Length,
    #[error("the timestamp is zero or beyond 2^63 - 1")]
    Timestamp,
    #[error("the signature does not verify")]
    BadSignature,
}

/// The message a cosignature signs.
pub fn message(timestamp: u64, text: &str) -> Vec<u8> {
    format!("cosignature/v1\ntime {timestamp}\n{text}").into_bytes()
}

/// The cosignature of `text` (a checkpoint's note text) by `key`, named `name`, at `timestamp`
/// (seconds since the Epoch, not zero).
pub fn sign(name: &str, key: &Keypair, timestamp: u64, text: &str) -> NoteSignature {
    let signature = key.sign_message(&message(timestamp, text));
    let mut bytes = timestamp.to_be_bytes().to_vec();
    bytes.extend_from_slice(&signature);
    NoteSignature {
        name: name.to_string(),
        key_id: crate::note::key_id(name, COSIGNATURE_V1, key.public().as_bytes()),
        bytes,
    }
}

/// Checks that `signature` is `cosigner`'s cosignature of `text`; its timestamp.
pub fn verify(
    cosigner: &Vkey,
    text: &str,
    signature: &NoteSignature,
) -> Result<u64, CosignatureError> {
    if cosigner.kind != COSIGNATURE_V1 || !cosigner.names(signature) {
        return Err(CosignatureError::OtherKey);
    }
    let (timestamp, sig): ([u8; 8], [u8; 64]) = match signature.bytes.split_at_checked(8) {
        Some((t, s)) => (
            t.try_into().map_err(|_| CosignatureError::Length)?,
            s.try_into().map_err(|_| CosignatureError::Length)?,
        ),
        None => return Err(CosignatureError::Length),
    };
    let timestamp = u64::from_be_bytes(timestamp);
    if timestamp == 0 || timestamp > MAX_TIMESTAMP {
        return Err(CosignatureError::Timestamp);
    }
    cosigner
        .key
        .verify(&message(timestamp, text), &Signature::from_bytes(&sig))
        .map_err(|_| CosignatureError::BadSignature)?;
    Ok(timestamp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cosignature_verifies_and_a_changed_text_or_time_does_not() {
        let key = Keypair::from_secret([3; 32]);
        let vkey = Vkey {
            name: "w.example/1".into(),
            kind: COSIGNATURE_V1,
            key: key.public(),
        };
        let text = "o\n5\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n";
        let line = sign(&vkey.name, &key, 1_700_000_000, text);
        assert_eq!(verify(&vkey, text, &line), Ok(1_700_000_000));
        assert_eq!(
            verify(&vkey, &text.replace('5', "6"), &line),
            Err(CosignatureError::BadSignature)
        );
        let mut later = line.clone();
        later.bytes[7] ^= 1;
        assert_eq!(
            verify(&vkey, text, &later),
            Err(CosignatureError::BadSignature)
        );
        let mut other = line;
        other.name = "w.example/2".into();
        assert_eq!(verify(&vkey, text, &other), Err(CosignatureError::OtherKey));
    }
}
