//! The `tlog-proof@v1` file (C2SP `tlog-proof`): an entry's index, its Merkle inclusion proof and
//! the checkpoint it is proven in (with whatever cosignatures it carries), as a text any
//! transparency tool reads, and its check by the spec's steps — the checkpoint signed by the log's
//! key for its origin, the witnesses a policy names (when one is given) cosigning it to quorum,
//! and the inclusion proof binding the entry's leaf to the checkpoint's root.
//!
//! Owns the format's bounds and its reading; the leaf is the caller's (application-specific, step
//! 1 of the spec). MUST NOT read files or know what an entry holds.

use std::collections::BTreeSet;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ed25519_dalek::VerifyingKey;

use crate::policy::Policy;
use pitboss_ledger::checkpoint::Checkpoint;
use pitboss_ledger::merkle::verify_inclusion;
use pitboss_ledger::Hash;

/// The first line of every proof.
pub const HEADER: &str = "c2sp.org/tlog-proof@v1";
/// The file extension the spec asks for.
pub const EXTENSION: &str = "tlog-proof";
/// The most hashes an inclusion proof holds (a tree of 2^63 leaves).
pub const MAX_PROOF_HASHES: usize = 63;
/// The largest extra data (decoded).
pub const MAX_EXTRA: usize = 64 * 1024;
/// The largest proof text read: room for the largest extra data (as base64), the largest note
/// and a full proof, so every proof pitboss writes reads back.
pub const MAX_TEXT: usize = MAX_EXTRA * 4 / 3 + crate::note::MAX_NOTE + 8 * 1024;

/// Why a text is not a proof, or the proof does not hold.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProofError {
    #[error("more than {MAX_TEXT} bytes")]
    TooLong,
    #[error("the first line is not `{HEADER}`")]
    Header,
    #[error("the extra data is not base64, or more than {MAX_EXTRA} bytes")]
    Extra,
    #[error("no `index N` line (a decimal with no leading zero)")]
    Index,
    #[error("proof line {line}: not the base64 of a 32-byte hash")]
    Hash { line: usize },
    #[error("more than {MAX_PROOF_HASHES} proof lines")]
    TooManyHashes,
    #[error("no empty line before the checkpoint")]
    NoCheckpoint,
    #[error("the checkpoint: {0}")]
    Checkpoint(String),
    #[error("the checkpoint's origin `{origin}` is not the log's `{expected}`")]
    Origin { origin: String, expected: String },
    #[error("the witnesses: {0}")]
    Witnesses(String),
    #[error("index {index} is not in the checkpoint's tree of {size}")]
    Beyond { index: u64, size: u64 },
    #[error("the inclusion proof does not bind the entry to the checkpoint's root")]
    NotIncluded,
}

/// A proof, as read or to be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlogProof {
    /// Opaque data the application reads the leaf from (never trusted as it stands).
    pub extra: Option<Vec<u8>>,
    /// The entry's index in the log.
    pub index: u64,
    /// The inclusion proof, from the leaf's sibling up to the root's child.
    pub proof: Vec<Hash>,
    /// The checkpoint's note, verbatim: text, blank line, signature lines.
    pub checkpoint: String,
}

/// What a proof shows once checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proven {
    /// The checkpoint the entry is in, its log's signature checked.
    pub checkpoint: Checkpoint,
    /// The policy's witnesses whose cosignatures verify (empty without a policy).
    pub witnesses: BTreeSet<String>,
}

impl TlogProof {
    /// The proof as the spec writes it.
    pub fn to_text(&self) -> String {
        let mut out = format!("{HEADER}\n");
        if let Some(extra) = &self.extra {
            out.push_str(&format!("extra {}\n", STANDARD.encode(extra)));
        }
        out.push_str(&format!("index {}\n", self.index));
        for hash in &self.proof {
            out.push_str(&STANDARD.encode(hash));
            out.push('\n');
        }
        out.push('\n');
        out.push_str(&self.checkpoint);
        out
    }

    /// Reads a proof, every line within its bounds.
    pub fn parse(text: &str) -> Result<TlogProof, ProofError> {
        if text.len() > MAX_TEXT {
            return Err(ProofError::TooLong);
        }
        let mut rest = text;
        let mut line = || -> Option<&str> {
            let (line, after) = rest.split_once('\n')?;
            rest = after;
            Some(line)
        };
        if line() != Some(HEADER) {
            return Err(ProofError::Header);
        }
        let mut next = line().ok_or(ProofError::Index)?;
        let extra = match next.strip_prefix("extra ") {
            Some(encoded) => {
                let bytes = STANDARD.decode(encoded).map_err(|_| ProofError::Extra)?;
                if bytes.len() > MAX_EXTRA {
                    return Err(ProofError::Extra);
                }
                next = line().ok_or(ProofError::Index)?;
                Some(bytes)
            }
            None => None,
        };
        let index = next
            .strip_prefix("index ")
            .and_then(crate::checkpoint::decimal)
            .ok_or(ProofError::Index)?;
        let mut proof = Vec::new();
        loop {
            let at = proof.len();
            match line() {
                None => return Err(ProofError::NoCheckpoint),
                Some("") => break,
                Some(_) if at == MAX_PROOF_HASHES => return Err(ProofError::TooManyHashes),
                Some(encoded) => proof.push(
                    STANDARD
                        .decode(encoded)
                        .ok()
                        .and_then(|h| Hash::try_from(h).ok())
                        .ok_or(ProofError::Hash { line: at + 1 })?,
                ),
            }
        }
        Ok(TlogProof {
            extra,
            index,
            proof,
            checkpoint: rest.to_string(),
        })
    }

    /// The spec's steps 2 to 4 for the entry whose leaf hash is `leaf` (step 1, the caller's):
    /// the checkpoint's origin is `origin` and `log_key` signed it; with `policy`, the witnesses it
    /// names that cosigned the checkpoint meet its quorum; the inclusion proof binds the leaf at
    /// the index to the checkpoint's root.
    pub fn verify(
        &self,
        leaf: &Hash,
        origin: &str,
        log_key: &VerifyingKey,
        policy: Option<&Policy>,
    ) -> Result<Proven, ProofError> {
        let signed = Checkpoint::parse(&self.checkpoint)
            .map_err(|e| ProofError::Checkpoint(e.to_string()))?;
        if signed.origin != origin {
            return Err(ProofError::Origin {
                origin: signed.origin,
                expected: origin.to_string(),
            });
        }
        signed
            .verify(log_key)
            .map_err(|e| ProofError::Checkpoint(e.to_string()))?;
        let witnesses = match policy {
            None => BTreeSet::new(),
            Some(policy) => {
                let check = crate::cosigned::check(&self.checkpoint, policy, log_key)
                    .map_err(|e| ProofError::Witnesses(e.to_string()))?;
                if !check.quorum {
                    return Err(ProofError::Witnesses(format!(
                        "cosigned by {:?} only: not the policy's quorum",
                        check.witnesses
                    )));
                }
                check.witnesses
            }
        };
        if self.index >= signed.size {
            return Err(ProofError::Beyond {
                index: self.index,
                size: signed.size,
            });
        }
        if !verify_inclusion(self.index, signed.size, leaf, &self.proof, &signed.root) {
            return Err(ProofError::NotIncluded);
        }
        Ok(Proven {
            checkpoint: signed,
            witnesses,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> TlogProof {
        TlogProof {
            extra: Some(b"age-v1.2.1".to_vec()),
            index: 73_894,
            proof: vec![[1; 32], [2; 32]],
            checkpoint: "example.com/log\n109482\nsFodV/vSp5O8n9a8QpW6PRY97tfOSW5bsc2Xl/EQi08=\n\n\
                         \u{2014} example.com/log AAAA\n"
                .into(),
        }
    }

    /// The text reads back to the same proof; every malformed line is named.
    #[test]
    fn a_proof_reads_back_and_bad_ones_are_named() {
        let proof = example();
        let text = proof.to_text();
        assert!(text.starts_with(&format!(
            "{HEADER}\nextra {}\nindex 73894\n{}\n",
            STANDARD.encode(b"age-v1.2.1"),
            STANDARD.encode([1u8; 32])
        )));
        assert_eq!(TlogProof::parse(&text), Ok(proof.clone()));
        let bare = TlogProof {
            extra: None,
            proof: Vec::new(),
            ..proof.clone()
        };
        assert_eq!(TlogProof::parse(&bare.to_text()), Ok(bare));

        let bad = |from: &str, to: &str| TlogProof::parse(&text.replacen(from, to, 1));
        assert_eq!(
            bad("tlog-proof@v1", "tlog-proof@v2"),
            Err(ProofError::Header)
        );
        assert_eq!(bad("index 73894", "index 073894"), Err(ProofError::Index));
        assert_eq!(bad("index 73894", "idx 73894"), Err(ProofError::Index));
        assert_eq!(bad("extra YWdl", "extra !!dl"), Err(ProofError::Extra));
        assert_eq!(
            bad(&STANDARD.encode([2u8; 32]), "AAAA"),
            Err(ProofError::Hash { line: 2 })
        );
        let long: String = (0..64)
            .map(|_| format!("{}\n", STANDARD.encode([3u8; 32])))
            .collect();
        assert_eq!(
            bad("\n\nexample.com", &format!("\n{long}\nexample.com")),
            Err(ProofError::TooManyHashes)
        );
        assert_eq!(
            TlogProof::parse("c2sp.org/tlog-proof@v1\nindex 1\n"),
            Err(ProofError::NoCheckpoint)
        );
        assert_eq!(
            TlogProof::parse(&"x".repeat(MAX_TEXT + 1)),
            Err(ProofError::TooLong)
        );
    }
}
