//! A checkpoint's text (C2SP `tlog-checkpoint`): the origin line, the tree size in decimal, the
//! Merkle root in base64, then optional extension lines. Owns reading it strictly (a size with a
//! leading zero or a root that is not exactly 32 bytes is not a checkpoint); signatures are the
//! note's (`note.rs`).

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use pitboss_ledger::Hash;

/// The most extension lines read.
pub const MAX_EXTENSIONS: usize = 16;

/// Why a note's text is not a checkpoint.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointError {
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
pub(crate) fn decimal(text: &str) -> Option<u64> {
    let plain = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    plain.then(|| text.parse().ok()).flatten()
}

/// A hash as the C2SP formats write one: the base64 of exactly 32 bytes.
pub(crate) fn hash(text: &str) -> Option<Hash> {
    STANDARD.decode(text).ok()?.try_into().ok()
}

/// A checkpoint's contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    /// The log's name.
    pub origin: String,
    /// How many entries the tree holds.
    pub size: u64,
    /// Its Merkle root (RFC 6962 / RFC 9162).
    pub root: Hash,
    /// The extension lines, if any.
    pub extensions: Vec<String>,
}

impl Checkpoint {
    /// Reads a note's text (every line ending in a newline).
    pub fn parse(text: &str) -> Result<Checkpoint, CheckpointError> {
        let body = text.strip_suffix('\n').ok_or(CheckpointError::NoOrigin)?;
        let mut lines = body.split('\n');
        let origin = lines
            .next()
            .filter(|l| !l.is_empty())
            .ok_or(CheckpointError::NoOrigin)?;
        let size = lines
            .next()
            .and_then(decimal)
            .ok_or(CheckpointError::BadSize)?;
        let root: Hash = lines
            .next()
            .and_then(hash)
            .ok_or(CheckpointError::BadRoot)?;
        let mut extensions = Vec::new();
        for line in lines {
            if line.is_empty() {
                return Err(CheckpointError::EmptyExtension);
            }
            if extensions.len() == MAX_EXTENSIONS {
                return Err(CheckpointError::TooManyExtensions);
            }
            extensions.push(line.to_string());
        }
        Ok(Checkpoint {
            origin: origin.to_string(),
            size,
            root,
            extensions,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_reads_and_bad_ones_are_named() {
        let root = STANDARD.encode([7u8; 32]);
        let c = Checkpoint::parse(&format!("o\n12\n{root}\next\n")).unwrap();
        assert_eq!((c.origin.as_str(), c.size, c.root), ("o", 12, [7; 32]));
        assert_eq!(c.extensions, vec!["ext".to_string()]);
        assert_eq!(
            Checkpoint::parse(&format!("o\n012\n{root}\n")),
            Err(CheckpointError::BadSize)
        );
        assert_eq!(
            Checkpoint::parse("o\n1\nAAAA\n"),
            Err(CheckpointError::BadRoot)
        );
        assert_eq!(
            Checkpoint::parse(&format!("\n1\n{root}\n")),
            Err(CheckpointError::NoOrigin)
        );
        assert!(Checkpoint::parse(&format!("o\n0\n{root}\n")).is_ok());
    }
}
