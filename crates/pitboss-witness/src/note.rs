//! Signed notes (C2SP `signed-note`) and verifier keys (`vkey`s): a note's text and signature
//! lines, key ids, and the Ed25519 key kinds — a log's key (type `0x01`) and a cosigner's key
//! (type `0x04`, `tlog-cosignature`); an ML-DSA-44 cosigner's (type `0x06`) is `subtree.rs`'s.
//!
//! Owns the syntax only: which signature is trusted, and what a signature signs, is the caller's
//! (a checkpoint's signature is over the text; a cosignature is over more, `cosignature.rs`).
//! Everything here reads hostile input: sizes are bounded before anything is allocated by them.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ed25519_dalek::VerifyingKey;

/// The largest note read, in bytes: a checkpoint with its signatures is a few hundred, and each
/// ML-DSA-44 cosignature 3.3 KiB more (a dozen of them fit).
pub const MAX_NOTE: usize = 64 * 1024;
/// The most signature lines read in one note.
pub const MAX_SIGNATURES: usize = 100;
/// The signature type of an Ed25519 note key (a log's checkpoints).
pub const ED25519: u8 = 0x01;
/// The signature type of an Ed25519 cosigner key (`cosignature/v1`).
pub const COSIGNATURE_V1: u8 = 0x04;

/// Why a text is not a signed note, or a string not a verifier key.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoteError {
    #[error("the note is {len} bytes; at most {MAX_NOTE}")]
    TooLong { len: usize },
    #[error("the note holds a control character (below U+0020) other than newline")]
    ControlCharacter,
    #[error("the note has no blank line before its signatures")]
    NoSignatureBlock,
    #[error("signature line {line}: {problem}")]
    BadSignatureLine { line: usize, problem: &'static str },
    #[error("the note has more than {MAX_SIGNATURES} signatures")]
    TooManySignatures,
    #[error("verifier key: {0}")]
    BadVkey(&'static str),
}

/// A note: its text (every line ending in a newline) and its signature lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// The signed text, ending with a newline.
    pub text: String,
    /// The signature lines, in order.
    pub signatures: Vec<NoteSignature>,
}

/// One signature line: `— <name> base64(key id ‖ signature)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteSignature {
    /// The key's name.
    pub name: String,
    /// The first four bytes of the key's hash (see [`key_id`]).
    pub key_id: [u8; 4],
    /// The bytes after the key id (for Ed25519, the 64-byte signature; for a cosignature, the
    /// timestamp and the signature).
    pub bytes: Vec<u8>,
}

impl NoteSignature {
    /// The line as a note carries it, newline included.
    pub fn line(&self) -> String {
        let mut raw = self.key_id.to_vec();
        raw.extend_from_slice(&self.bytes);
        format!("\u{2014} {} {}\n", self.name, STANDARD.encode(raw))
    }
}

impl Note {
    /// Reads a note: text, a blank line, one or more signature lines.
    pub fn parse(note: &str) -> Result<Note, NoteError> {
        if note.len() > MAX_NOTE {
            return Err(NoteError::TooLong { len: note.len() });
        }
        if note.chars().any(|c| c < ' ' && c != '\n') {
            return Err(NoteError::ControlCharacter);
        }
        let split = note.rfind("\n\n").ok_or(NoteError::NoSignatureBlock)?;
        let (text, signatures) = (&note[..=split], &note[split + 2..]);
        if signatures.is_empty() || !signatures.ends_with('\n') {
            return Err(NoteError::NoSignatureBlock);
        }
        let mut parsed = Vec::new();
        for (i, line) in signatures[..signatures.len() - 1].split('\n').enumerate() {
            if parsed.len() == MAX_SIGNATURES {
                return Err(NoteError::TooManySignatures);
            }
            parsed.push(
                signature_line(line).map_err(|problem| NoteError::BadSignatureLine {
                    line: i + 1,
                    problem,
                })?,
            );
        }
        Ok(Note {
            text: text.to_string(),
            signatures: parsed,
        })
    }

    /// The note as text: the text, a blank line, every signature line.
    pub fn to_text(&self) -> String {
        let mut out = format!("{}\n", self.text);
        for signature in &self.signatures {
            out.push_str(&signature.line());
        }
        out
    }
}

fn signature_line(line: &str) -> Result<NoteSignature, &'static str> {
    let rest = line
        .strip_prefix("\u{2014} ")
        .ok_or("does not start with an em dash and a space")?;
    let (name, encoded) = rest.split_once(' ').ok_or("no space after the key name")?;
    if !is_key_name(name) {
        return Err("not a key name");
    }
    let raw = STANDARD
        .decode(encoded)
        .map_err(|_| "the signature is not base64")?;
    if raw.len() < 5 {
        return Err("the signature is shorter than a key id and one byte");
    }
    Ok(NoteSignature {
        name: name.to_string(),
        key_id: [raw[0], raw[1], raw[2], raw[3]],
        bytes: raw[4..].to_vec(),
    })
}

/// A key name: not empty, no whitespace or `+`, no control character.
pub fn is_key_name(name: &str) -> bool {
    !name.is_empty()
        && !name
            .chars()
            .any(|c| c.is_whitespace() || c == '+' || c.is_control())
}

/// A vkey's three parts, `<name>+<id>+<base64(type ‖ key)>`: the name (a key name: it holds no
/// `+`, the base64 may), the id as written, and the key's bytes with their type first.
pub(crate) fn vkey_parts(text: &str) -> Result<(&str, &str, Vec<u8>), NoteError> {
    let bad = NoteError::BadVkey;
    let mut parts = text.trim().splitn(3, '+');
    let (Some(name), Some(id), Some(encoded)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(bad("not <name>+<id>+<key>"));
    };
    if !is_key_name(name) {
        return Err(bad("not a key name"));
    }
    let raw = STANDARD
        .decode(encoded)
        .map_err(|_| bad("the key is not base64"))?;
    Ok((name, id, raw))
}

/// A key's id: `SHA-256(name ‖ "\n" ‖ type ‖ key)[:4]` (the ledger's, which its checkpoints use).
pub use pitboss_ledger::checkpoint::note_key_id as key_id;

/// A verifier key: `<name>+<key id, 8 hex digits>+<base64(type ‖ public key)>`, for an Ed25519
/// note key or an Ed25519 cosigner key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vkey {
    /// The key's name (a log's origin, a witness's name).
    pub name: String,
    /// [`ED25519`] or [`COSIGNATURE_V1`].
    pub kind: u8,
    /// The public key.
    pub key: VerifyingKey,
}

impl Vkey {
    /// Reads a verifier key, checking its id (8 lowercase hex digits) against its name, type and
    /// key.
    pub fn parse(text: &str) -> Result<Vkey, NoteError> {
        let bad = NoteError::BadVkey;
        let (name, id, raw) = vkey_parts(text)?;
        let (&kind, key) = raw.split_first().ok_or(bad("no key"))?;
        if kind != ED25519 && kind != COSIGNATURE_V1 {
            return Err(bad(
                "not an Ed25519 key (type 0x01) or cosigner key (type 0x04)",
            ));
        }
        let key: [u8; 32] = key.try_into().map_err(|_| bad("not a 32-byte key"))?;
        let key = VerifyingKey::from_bytes(&key).map_err(|_| bad("not an Ed25519 point"))?;
        let vkey = Vkey {
            name: name.to_string(),
            kind,
            key,
        };
        if id != hex::encode(vkey.id()) {
            return Err(bad("the key id does not match the name and key"));
        }
        Ok(vkey)
    }

    /// The key's id (see [`key_id`]).
    pub fn id(&self) -> [u8; 4] {
        key_id(&self.name, self.kind, self.key.as_bytes())
    }

    /// Whether a signature line names this key.
    pub fn names(&self, signature: &NoteSignature) -> bool {
        signature.name == self.name && signature.key_id == self.id()
    }
}

impl std::fmt::Display for Vkey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut raw = vec![self.kind];
        raw.extend_from_slice(self.key.as_bytes());
        write!(
            f,
            "{}+{}+{}",
            self.name,
            hex::encode(self.id()),
            STANDARD.encode(raw)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_round_trips() {
        let text = "o\n1\nAAAA\n\n\u{2014} o AQIDBAU=\n\u{2014} w AQIDBAUG\n";
        let note = Note::parse(text).unwrap();
        assert_eq!(note.text, "o\n1\nAAAA\n");
        assert_eq!(note.signatures.len(), 2);
        assert_eq!(note.signatures[0].key_id, [1, 2, 3, 4]);
        assert_eq!(note.signatures[1].bytes, vec![5, 6]);
        assert_eq!(note.to_text(), text);
    }

    #[test]
    fn malformed_notes_are_named() {
        assert_eq!(Note::parse("o\n1\n"), Err(NoteError::NoSignatureBlock));
        assert_eq!(Note::parse("o\n\n"), Err(NoteError::NoSignatureBlock));
        assert_eq!(
            Note::parse("o\n\n- o AQIDBAU=\n"),
            Err(NoteError::BadSignatureLine {
                line: 1,
                problem: "does not start with an em dash and a space"
            })
        );
        assert_eq!(
            Note::parse("o\r\n\n\u{2014} o AQIDBAU=\n"),
            Err(NoteError::ControlCharacter)
        );
        let long = "x".repeat(MAX_NOTE + 1);
        assert_eq!(
            Note::parse(&long),
            Err(NoteError::TooLong { len: MAX_NOTE + 1 })
        );
        let many = format!(
            "o\n\n{}",
            "\u{2014} o AQIDBAU=\n".repeat(MAX_SIGNATURES + 1)
        );
        assert_eq!(Note::parse(&many), Err(NoteError::TooManySignatures));
    }

    #[test]
    fn a_vkey_round_trips_and_its_id_is_checked() {
        let key = ed25519_dalek::SigningKey::from_bytes(&[9; 32]).verifying_key();
        let vkey = Vkey {
            name: "example.com/w".into(),
            kind: COSIGNATURE_V1,
            key,
        };
        let text = vkey.to_string();
        assert_eq!(Vkey::parse(&text), Ok(vkey.clone()));
        // A key whose base64 holds `+` (this one does) reads too.
        let plus = Vkey {
            name: "o".into(),
            kind: ED25519,
            key: ed25519_dalek::SigningKey::from_bytes(&[1; 32]).verifying_key(),
        };
        let plus_text = (0u8..=255)
            .map(|seed| Vkey {
                key: ed25519_dalek::SigningKey::from_bytes(&[seed; 32]).verifying_key(),
                ..plus.clone()
            })
            .map(|v| v.to_string())
            .find(|t| {
                t.rsplit_once('+')
                    .is_some_and(|(head, _)| head.matches('+').count() > 1)
            })
            .expect("a key whose base64 holds a +");
        assert_eq!(Vkey::parse(&plus_text).unwrap().to_string(), plus_text);
        // Another name with the same id and key does not read.
        let forged = text.replacen("example.com/w", "example.com/x", 1);
        assert!(Vkey::parse(&forged).is_err());
    }
}
