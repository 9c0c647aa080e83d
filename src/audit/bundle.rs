//! Offline bundles: one hand's evidence in one JSON file that a regulator or an operator can check
//! with no server and no database — the hand's stored entries exactly as stored, an inclusion proof
//! for each against a signed checkpoint, the configuration the hand names, and the public keys that
//! signed the entries.
//!
//! Checking a bundle ([`verify`]) needs only the log's public key, pinned beforehand: the
//! checkpoint's signature is checked with it; each entry's bytes must hash to a leaf proven in the
//! checkpoint's tree and carry a valid signature by the key its envelope names (a key's id is the
//! hash of the key, so a listed key cannot stand for another); the configuration must hash to the
//! id the hand names; then the hand is replayed by the same code as live replay, and the proof
//! report says, line by line, whether the rules give what was recorded.

use std::collections::BTreeMap;
use std::sync::Arc;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ed25519_dalek::{Signature, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};

use super::replay::{replay_entries, EntryStatus, ProofReport};
use crate::engine::config::{ConfigId, GameConfig};
use crate::engine::games::Event;
use crate::ledger::checkpoint::Checkpoint;
use crate::ledger::entry::{entry_hash, Entry};
use crate::ledger::merkle::{leaf_hash, verify_inclusion};
use crate::ledger::{KeyId, Ledger, LedgerError};

/// The format name written in every bundle.
pub const FORMAT: &str = "pitboss.bundle.v1";

/// One hand's evidence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bundle {
    /// Always [`FORMAT`].
    pub format: String,
    /// The hand.
    pub hand_id: String,
    /// The signed checkpoint the entries are proven in (its note).
    pub checkpoint: String,
    /// Public keys (hex) by key id (hex), for the entries' signatures.
    pub keys: BTreeMap<String, String>,
    /// The configuration the hand was played under: its id and canonical JSON.
    pub config_id: String,
    pub config_json: String,
    /// The hand's entries in order.
    pub entries: Vec<BundledEntry>,
}

/// One stored entry and its inclusion proof.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BundledEntry {
    /// Its sequence in the log (its leaf index).
    pub sequence: u64,
    /// The stored record (envelope bytes, hash, signature), base64.
    pub stored: String,
    /// The audit path in the checkpoint's tree, hex hashes, leaf-most first.
    pub inclusion: Vec<String>,
}

/// Why a bundle cannot be made or read.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error("hand `{0}` not found")]
    NotFound(String),
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    #[error("not a bundle: {0}")]
    Malformed(String),
}

/// Makes the bundle of a hand from the log, proven in a checkpoint of the whole log now.
pub fn build(
    ledger: &Ledger,
    configs: impl Fn(&ConfigId) -> Option<Arc<GameConfig>>,
    hand_id: &str,
) -> Result<Bundle, BundleError> {
    let entries = ledger.read_stream(&format!("hand/{hand_id}"), 0)?;
    let Some(first) = entries.first() else {
        return Err(BundleError::NotFound(hand_id.to_string()));
    };
    let opened = first
        .payload()
        .ok()
        .and_then(|p| crate::codec::payload_to_event(&p).ok().flatten());
    let Some(Event::Opened(opened)) = opened else {
        return Err(BundleError::Malformed(format!(
            "hand {hand_id}'s first entry is not its opening"
        )));
    };
    let config = configs(&opened.config_id).ok_or_else(|| {
        BundleError::Malformed(format!(
            "configuration {} is not published",
            opened.config_id
        ))
    })?;
    let (checkpoint, _) = ledger.checkpoint_blocking(None)?;
    let mut keys = BTreeMap::new();
    for (id, public) in ledger.store().known_keys().map_err(LedgerError::from)? {
        keys.insert(hex::encode(id), hex::encode(public));
    }
    let mut bundled = Vec::with_capacity(entries.len());
    for entry in &entries {
        let proof = ledger.inclusion_proof(entry.envelope.sequence, checkpoint.size)?;
        bundled.push(BundledEntry {
            sequence: entry.envelope.sequence,
            stored: STANDARD.encode(entry.encode()),
            inclusion: proof.hashes.iter().map(hex::encode).collect(),
        });
    }
    Ok(Bundle {
        format: FORMAT.into(),
        hand_id: hand_id.to_string(),
        checkpoint: checkpoint.note(),
        keys,
        config_id: opened.config_id.to_string(),
        config_json: String::from_utf8_lossy(&config.canonical_bytes()).into_owned(),
        entries: bundled,
    })
}

/// The result of checking a bundle.
#[derive(Clone, Debug)]
pub struct Verified {
    /// The checkpoint's size, when its signature checked.
    pub checkpoint_size: Option<u64>,
    /// Problems with the evidence itself (checkpoint, keys, configuration).
    pub problems: Vec<String>,
    /// The hand's proof report, entries checked against the checkpoint.
    pub report: Option<ProofReport>,
}

impl Verified {
    /// Everything checks: the checkpoint, every entry, and the replay.
    pub fn ok(&self) -> bool {
        self.problems.is_empty() && self.report.as_ref().is_some_and(|r| r.consistent)
    }
}

fn hash_of(text: &str) -> Option<[u8; 32]> {
    hex::decode(text).ok()?.try_into().ok()
}

/// Checks a bundle with the log's public key, pinned beforehand.
pub fn verify(bundle: &Bundle, log_key: &VerifyingKey) -> Verified {
    let mut out = Verified {
        checkpoint_size: None,
        problems: Vec::new(),
        report: None,
    };
    if bundle.format != FORMAT {
        out.problems
            .push(format!("format {:?}, not {FORMAT}", bundle.format));
        return out;
    }
    let checkpoint = match Checkpoint::parse(&bundle.checkpoint) {
        Ok(c) => c,
        Err(e) => {
            out.problems.push(format!("checkpoint: {e}"));
            return out;
        }
    };
    if let Err(e) = checkpoint.verify(log_key) {
        out.problems.push(format!("checkpoint: {e}"));
        return out;
    }
    out.checkpoint_size = Some(checkpoint.size);
    // The configuration must be the one the hand names.
    let config = GameConfig::from_json(bundle.config_json.as_bytes())
        .ok()
        .filter(|c| c.id().to_string() == bundle.config_id)
        .map(Arc::new);
    if config.is_none() {
        out.problems.push(format!(
            "the configuration does not read, or does not hash to {}",
            bundle.config_id
        ));
    }
    let mut entries = Vec::new();
    let mut statuses: Vec<EntryStatus> = Vec::new();
    for bundled in &bundle.entries {
        let entry = STANDARD
            .decode(&bundled.stored)
            .map_err(|e| e.to_string())
            .and_then(|bytes| Entry::decode(&bytes).map_err(|e| e.to_string()));
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                out.problems
                    .push(format!("entry {}: does not decode: {e}", bundled.sequence));
                return out;
            }
        };
        let hash = entry_hash(&entry.envelope_bytes);
        let path: Option<Vec<[u8; 32]>> = bundled.inclusion.iter().map(|h| hash_of(h)).collect();
        let included = entry.envelope.sequence == bundled.sequence
            && path.is_some_and(|path| {
                verify_inclusion(
                    bundled.sequence,
                    checkpoint.size,
                    &leaf_hash(&hash),
                    &path,
                    &checkpoint.root,
                )
            });
        let key_id = hex::encode(&entry.envelope.key_id);
        let signed = bundle
            .keys
            .get(&key_id)
            .and_then(|k| hash_of(k))
            .and_then(|k| VerifyingKey::from_bytes(&k).ok())
            .filter(|k| KeyId::of(k).0.as_slice() == entry.envelope.key_id.as_slice())
            .is_some_and(|k| {
                k.verify(&hash, &Signature::from_bytes(&entry.signature))
                    .is_ok()
            });
        let note = match (hash == entry.hash, included, signed) {
            (true, true, true) => String::new(),
            (false, _, _) => "its bytes do not hash to its recorded hash".into(),
            (_, false, _) => "not proven in the checkpoint's tree".into(),
            (_, _, false) => format!("signature does not verify with key {key_id}"),
        };
        statuses.push((hash == entry.hash && included, signed, note));
        entries.push(entry);
    }
    let wanted = bundle.config_id.clone();
    out.report = Some(replay_entries(
        &bundle.hand_id,
        &entries,
        statuses,
        |id: &ConfigId| config.clone().filter(|_| id.to_string() == wanted),
    ));
    out
}
