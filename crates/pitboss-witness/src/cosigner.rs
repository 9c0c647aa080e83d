//! A cosigner's verifier key of either kind `tlog-cosignature` defines — Ed25519
//! (`cosignature/v1`, type `0x04`) or ML-DSA-44 (`subtree/v1`, type `0x06`) — and the check of its
//! cosignature of a checkpoint, whichever it is. What a policy's `witness` lines hold, so every
//! reader of cosigned checkpoints (the log's side, the mirror, `verify-bundle --policy`) accepts
//! both.
//!
//! Owns the dispatch only: the messages and checks are `cosignature.rs`'s and `subtree.rs`'s.

use crate::cosignature::{self, CosignatureError};
use crate::note::{NoteError, NoteSignature, Vkey, COSIGNATURE_V1};
use crate::subtree::{MlDsaVkey, ML_DSA_44};

/// A cosigner's key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CosignerKey {
    /// An Ed25519 cosigner (type `0x04`).
    Ed25519(Vkey),
    /// An ML-DSA-44 cosigner (type `0x06`).
    MlDsa44(MlDsaVkey),
}

impl CosignerKey {
    /// Reads a cosigner's vkey of type `0x04` or `0x06`, its id checked.
    pub fn parse(text: &str) -> Result<CosignerKey, NoteError> {
        let (name, id, raw) = crate::note::vkey_parts(text)?;
        match raw.first() {
            Some(&COSIGNATURE_V1) => Vkey::parse(text).map(CosignerKey::Ed25519),
            Some(&ML_DSA_44) => MlDsaVkey::from_parts(name, id, &raw).map(CosignerKey::MlDsa44),
            _ => Err(NoteError::BadVkey(
                "not a cosigner key (type 0x04 Ed25519 or 0x06 ML-DSA-44)",
            )),
        }
    }

    /// The cosigner's name.
    pub fn name(&self) -> &str {
        match self {
            CosignerKey::Ed25519(v) => &v.name,
            CosignerKey::MlDsa44(v) => &v.name,
        }
    }

    /// The key's type and bytes (what tells two keys apart, whatever their names).
    pub fn key_bytes(&self) -> (u8, Vec<u8>) {
        match self {
            CosignerKey::Ed25519(v) => (COSIGNATURE_V1, v.key.to_bytes().to_vec()),
            CosignerKey::MlDsa44(v) => (ML_DSA_44, v.public.clone()),
        }
    }

    /// Checks `signature` as this cosigner's cosignature of the checkpoint `text`: its timestamp.
    pub fn verify(&self, text: &str, signature: &NoteSignature) -> Result<u64, CosignatureError> {
        match self {
            CosignerKey::Ed25519(v) => cosignature::verify(v, text, signature),
            CosignerKey::MlDsa44(v) => v.verify_checkpoint(text, signature),
        }
    }
}

impl std::fmt::Display for CosignerKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CosignerKey::Ed25519(v) => v.fmt(f),
            CosignerKey::MlDsa44(v) => v.fmt(f),
        }
    }
}
