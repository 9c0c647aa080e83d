//! Signed checkpoints: the log's size and Merkle root at a moment, signed by the log's key, as a
//! text a regulator can keep and later hold a newer checkpoint against (a consistency proof shows
//! nothing in the older tree was rewritten) or a hand against (inclusion proofs).
//!
//! The text follows the C2SP `tlog-checkpoint` and `signed-note` shape:
//!
//! ```text
//! pitboss.v1/3f2a…            ← origin: this log's name (the hash of its first entry, 16 hex digits)
//! 12345                       ← tree size (entries 0 .. 12344)
//! q1Zx…=                      ← base64 Merkle root (RFC 9162)
//!
//! — pitboss.v1/3f2a… AbCd…    ← key name, base64(4-byte key hash ‖ Ed25519 signature)
//! ```
//!
//! A checkpoint may carry extension lines after the root (C2SP: "extension lines"), signed with
//! the rest of the body; bundles use one to state where a hand's stream ends at that size.
//!
//! The signature is Ed25519 over the body (every line, each ending in a newline); the key hash
//! is the first 4 bytes of `SHA-256(key name ‖ "\n" ‖ 0x01 ‖ public key)`. Pure: no storage.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ed25519_dalek::{Signature, Verifier, VerifyingKey};
use sha2::{Digest, Sha256};

use super::entry::Hash;

/// A checkpoint's contents and signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    /// The log's name (also the key's name).
    pub origin: String,
    /// How many entries the tree holds.
    pub size: u64,
    /// Its Merkle root.
    pub root: Hash,
    /// The signature over [`Checkpoint::body`].
    pub signature: [u8; 64],
    /// The 4-byte hash of the signing key (see the module comment).
    pub key_hash: [u8; 4],
    /// Extension lines after the root, signed with the body (none in the log's own checkpoints).
    pub extensions: Vec<String>,
}

/// The most extension lines a checkpoint read from outside may carry.
pub const MAX_EXTENSIONS: usize = 16;

/// Why a note's text is not a checkpoint's (C2SP `tlog-checkpoint`, read strictly).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    #[error("no origin line")]
    NoOrigin,
    #[error("the second line is not a tree size (decimal, no leading zero)")]
    BadSize,
    #[error("the third line is not the base64 of a 32-byte root")]
    BadRoot,
    #[error("an empty extension line")]
    EmptyExtension,
    #[error("more than {MAX_EXTENSIONS} extension lines")]
    TooManyExtensions,
}

/// A size as the C2SP formats write one: ASCII decimal, no leading zero (but `0` itself).
pub fn decimal(text: &str) -> Option<u64> {
    let plain = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    plain.then(|| text.parse().ok()).flatten()
}

/// A hash as the C2SP formats write one: the base64 of exactly 32 bytes.
pub fn hash(text: &str) -> Option<Hash> {
    STANDARD.decode(text).ok()?.try_into().ok()
}

/// A checkpoint's text: what its signatures sign.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Text {
    /// The log's name.
    pub origin: String,
    /// How many entries the tree holds.
    pub size: u64,
    /// Its Merkle root (RFC 6962 / RFC 9162).
    pub root: Hash,
    /// The extension lines, if any.
    pub extensions: Vec<String>,
}

impl Text {
    /// Reads a note's text (every line ending in a newline): the origin line, the size in decimal
    /// with no leading zero, the root as the base64 of 32 bytes, at most [`MAX_EXTENSIONS`]
    /// non-empty extension lines.
    pub fn parse(text: &str) -> Result<Text, TextError> {
        let body = text.strip_suffix('\n').ok_or(TextError::NoOrigin)?;
        let mut lines = body.split('\n');
        let origin = lines
            .next()
            .filter(|l| !l.is_empty())
            .ok_or(TextError::NoOrigin)?;
        let size = lines.next().and_then(decimal).ok_or(TextError::BadSize)?;
        let root: Hash = lines.next().and_then(hash).ok_or(TextError::BadRoot)?;
        let mut extensions = Vec::new();
        for line in lines {
            if line.is_empty() {
                return Err(TextError::EmptyExtension);
            }
            if extensions.len() == MAX_EXTENSIONS {
                return Err(TextError::TooManyExtensions);
            }
            extensions.push(line.to_string());
        }
        Ok(Text {
            origin: origin.to_string(),
            size,
            root,
            extensions,
        })
    }
}

/// Why a note is not a checkpoint, or not one signed by the given key.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointError {
    #[error("not a checkpoint: {0}")]
    Text(#[from] TextError),
    #[error("not a checkpoint: {0}")]
    Malformed(String),
    #[error("the checkpoint is signed by key hash {found}, not by the given key ({expected})")]
    OtherKey { found: String, expected: String },
    #[error("the checkpoint's signature does not verify")]
    BadSignature,
}

/// The origin of a log whose first entry has this hash.
pub fn origin_of(first_entry: &Hash) -> String {
    format!("pitboss.v1/{}", hex::encode(&first_entry[..8]))
}

/// The note key hash of an Ed25519 key named `name` (signature type `0x01`).
pub fn key_hash(name: &str, public: &VerifyingKey) -> [u8; 4] {
    note_key_id(name, 0x01, public.as_bytes())
}

/// A signed-note key id: `SHA-256(name ‖ "\n" ‖ type ‖ key)[:4]` (C2SP signed-note; the witness
/// crate's cosigner keys are type `0x04`).
pub fn note_key_id(name: &str, kind: u8, key: &[u8]) -> [u8; 4] {
    let mut h = Sha256::new();
    h.update(name.as_bytes());
    h.update(b"\n");
    h.update([kind]);
    h.update(key);
    let digest: [u8; 32] = h.finalize().into();
    [digest[0], digest[1], digest[2], digest[3]]
}

/// The signed body of a checkpoint: origin, size, root, then each extension line.
pub fn body(origin: &str, size: u64, root: &Hash, extensions: &[String]) -> String {
    let mut body = format!("{origin}\n{size}\n{}\n", STANDARD.encode(root));
    for line in extensions {
        body.push_str(line);
        body.push('\n');
    }
    body
}

impl Checkpoint {
    /// The signed body.
    pub fn body(&self) -> String {
        body(&self.origin, self.size, &self.root, &self.extensions)
    }

    /// The whole note: body, a blank line, the signature line.
    pub fn note(&self) -> String {
        let mut sig = self.key_hash.to_vec();
        sig.extend_from_slice(&self.signature);
        format!(
            "{}\n\u{2014} {} {}\n",
            self.body(),
            self.origin,
            STANDARD.encode(sig)
        )
    }

    /// Reads a note (without checking its signature: see [`Checkpoint::verify`]): its text as
    /// [`Text::parse`] reads it, a blank line, and the signature line of the origin's key.
    pub fn parse(note: &str) -> Result<Checkpoint, CheckpointError> {
        let bad = |m: &str| CheckpointError::Malformed(m.to_string());
        let (body, signatures) = note
            .split_once("\n\n")
            .ok_or_else(|| bad("no blank line before the signature"))?;
        let Text {
            origin,
            size,
            root,
            extensions,
        } = Text::parse(&format!("{body}\n"))?;
        // The origin's Ed25519 line: a log may sign with another kind of key under its name too
        // (an ML-DSA-44 line, much longer), which is not this one.
        let mut lines = signatures
            .lines()
            .filter(|l| l.starts_with(&format!("\u{2014} {origin} ")))
            .peekable();
        if lines.peek().is_none() {
            return Err(bad("no signature line by the origin's key"));
        }
        let sig = lines
            .filter_map(|line| {
                line.rsplit(' ')
                    .next()
                    .and_then(|s| STANDARD.decode(s).ok())
            })
            .find(|s| s.len() == 68)
            .ok_or_else(|| bad("the signature is not base64 of 68 bytes"))?;
        Ok(Checkpoint {
            origin,
            size,
            root,
            key_hash: [sig[0], sig[1], sig[2], sig[3]],
            signature: sig[4..].try_into().map_err(|_| bad("signature length"))?,
            extensions,
        })
    }

    /// Checks the signature against `public` (the log's key, known to the reader beforehand).
    pub fn verify(&self, public: &VerifyingKey) -> Result<(), CheckpointError> {
        let expected = key_hash(&self.origin, public);
        if expected != self.key_hash {
            return Err(CheckpointError::OtherKey {
                found: hex::encode(self.key_hash),
                expected: hex::encode(expected),
            });
        }
        public
            .verify(
                self.body().as_bytes(),
                &Signature::from_bytes(&self.signature),
            )
            .map_err(|_| CheckpointError::BadSignature)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::{Signer, SigningKey};

    #[test]
    fn a_signed_note_round_trips_and_a_changed_byte_is_caught() {
        let key = SigningKey::from_bytes(&[7; 32]);
        let origin = origin_of(&[9; 32]);
        let root = [3u8; 32];
        let b = body(&origin, 42, &root, &[]);
        let checkpoint = Checkpoint {
            origin: origin.clone(),
            size: 42,
            root,
            signature: key.sign(b.as_bytes()).to_bytes(),
            key_hash: key_hash(&origin, &key.verifying_key()),
            extensions: Vec::new(),
        };
        let note = checkpoint.note();
        assert!(note.starts_with("pitboss.v1/0909090909090909\n42\n"));
        let read = Checkpoint::parse(&note).unwrap();
        assert_eq!(read, checkpoint);
        assert!(read.verify(&key.verifying_key()).is_ok());
        let other = SigningKey::from_bytes(&[8; 32]);
        assert!(matches!(
            read.verify(&other.verifying_key()),
            Err(CheckpointError::OtherKey { .. })
        ));
        let forged = Checkpoint::parse(&note.replacen("\n42\n", "\n43\n", 1)).unwrap();
        assert_eq!(
            forged.verify(&key.verifying_key()),
            Err(CheckpointError::BadSignature)
        );
        assert!(Checkpoint::parse("pitboss\n1\n").is_err());
    }

    #[test]
    fn extension_lines_are_signed_with_the_body() {
        let key = SigningKey::from_bytes(&[7; 32]);
        let origin = origin_of(&[9; 32]);
        let extensions = vec!["stream hand/h1 3 17".to_string()];
        let b = body(&origin, 42, &[3; 32], &extensions);
        let checkpoint = Checkpoint {
            origin: origin.clone(),
            size: 42,
            root: [3; 32],
            signature: key.sign(b.as_bytes()).to_bytes(),
            key_hash: key_hash(&origin, &key.verifying_key()),
            extensions,
        };
        let note = checkpoint.note();
        let read = Checkpoint::parse(&note).unwrap();
        assert_eq!(read, checkpoint);
        assert!(read.verify(&key.verifying_key()).is_ok());
        for forged in [
            note.replacen("hand/h1 3 17", "hand/h1 2 17", 1),
            note.replacen("stream hand/h1 3 17\n", "", 1),
        ] {
            assert_eq!(
                Checkpoint::parse(&forged)
                    .unwrap()
                    .verify(&key.verifying_key()),
                Err(CheckpointError::BadSignature),
                "{forged}"
            );
        }
        let many = note.replacen(
            "stream hand/h1 3 17\n",
            &"x\n".repeat(MAX_EXTENSIONS + 1),
            1,
        );
        assert_eq!(
            Checkpoint::parse(&many),
            Err(CheckpointError::Text(TextError::TooManyExtensions))
        );
        // The one reader of a checkpoint's text is strict about the size, as C2SP is.
        let padded = note.replacen("\n42\n", "\n042\n", 1);
        assert_eq!(
            Checkpoint::parse(&padded),
            Err(CheckpointError::Text(TextError::BadSize))
        );
    }
}
