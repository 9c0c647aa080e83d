//! The targets that read documents and stored bytes, pure functions of their input:
//!
//! - `transcript`: vendor transcript JSON through `lab::transcript` (parse, check, report);
//! - `config`: configuration JSON through `GameConfig::from_json` and the checks a publication
//!   makes; an accepted configuration must read back to the same id from its canonical bytes and
//!   fit the lab's budget;
//! - `bundle`: bundle JSON through `audit::bundle::verify` with the log's real key; a bundle that
//!   still verifies after mutation must be the same hand's same entries (nothing can be forged,
//!   cut, added or relabelled and pass);
//! - `entry`: stored entry bytes through `Entry::decode`, the payload's decoding into an event,
//!   and a replay of what decodes.

use pitboss::codec::EntryPayload;
use std::sync::Arc;

use pitboss::audit::bundle::{self, Bundle};
use pitboss::audit::replay::replay_entries;
use pitboss_engine::config::GameConfig;
use pitboss_lab::transcript;
use pitboss_ledger::entry::Entry;
use serde_json::Value;

use crate::mutate::{self, Gen};
use crate::Tally;

/// Transcript JSON: refused with a reason, or checked; checking twice gives the same report.
pub fn transcript(gen: &mut Gen, seeds: &[Value], tally: &mut Tally) {
    let seed = gen.pick(seeds);
    let text = mutate::json_text(gen, seed);
    let Ok(text) = String::from_utf8(text) else {
        tally.refused += 1;
        return;
    };
    match transcript::parse(&text).and_then(|t| transcript::check(&t).map(|c| (t, c))) {
        Ok((t, checked)) => {
            let again = transcript::check(&t).expect("a transcript checked once checks again");
            assert_eq!(
                checked.json(),
                again.json(),
                "the same transcript, another report: {text}"
            );
            tally.accepted += 1;
        }
        Err(_) => tally.refused += 1,
    }
}

/// Configuration JSON: refused naming the field, or accepted — by the checks a publication makes
/// (`Floor::publish`: structure, bounds, the current rules version, the lab's budget) — and sound:
/// its canonical bytes read back to the same id and pass the same checks.
pub fn config(gen: &mut Gen, seeds: &[Value], tally: &mut Tally) {
    let seed = gen.pick(seeds);
    let bytes = mutate::json_text(gen, seed);
    let publishable = |bytes: &[u8]| {
        let config = GameConfig::from_json(bytes)?;
        config.check_current()?;
        pitboss_lab::analysable::check(&config, 2)?;
        Ok::<_, pitboss_engine::config::ConfigError>(config)
    };
    match publishable(&bytes) {
        Ok(config) => {
            let again = publishable(&config.canonical_bytes())
                .expect("an accepted configuration's canonical bytes are accepted");
            assert_eq!(
                again.id(),
                config.id(),
                "{}",
                String::from_utf8_lossy(&bytes)
            );
            tally.accepted += 1;
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            tally.refused += 1;
        }
    }
}

/// A genuine bundle and the key that signed its checkpoint.
pub struct BundleSeed {
    pub bundle: Bundle,
    pub key: ed25519_dalek::VerifyingKey,
}

/// Bundle JSON: whatever verifies is the genuine hand's genuine entries.
pub fn bundle(gen: &mut Gen, seed: &BundleSeed, tally: &mut Tally) {
    let doc = serde_json::to_value(&seed.bundle).expect("a bundle is JSON");
    let bytes = mutate::json_text(gen, &doc);
    let Ok(read) = serde_json::from_slice::<Bundle>(&bytes) else {
        tally.refused += 1;
        return;
    };
    let verified = bundle::verify(&read, &seed.key, None);
    if verified.ok() {
        assert_eq!(
            read.hand_id, seed.bundle.hand_id,
            "a relabelled bundle verified"
        );
        assert_eq!(
            read.config_json, seed.bundle.config_json,
            "another configuration verified"
        );
        let stored = |b: &Bundle| -> Vec<(u64, String)> {
            b.entries
                .iter()
                .map(|e| (e.sequence, e.stored.clone()))
                .collect()
        };
        assert_eq!(
            stored(&read),
            stored(&seed.bundle),
            "other entries verified"
        );
        tally.accepted += 1;
    } else {
        assert!(
            !verified.problems.is_empty()
                || verified.report.as_ref().is_some_and(|r| !r.consistent),
            "refused without a reason"
        );
        tally.refused += 1;
    }
}

/// Stored entry bytes: decoded or refused; what decodes replays without a panic, and a changed
/// byte inside the envelope never passes as the original.
pub fn entry(gen: &mut Gen, seeds: &[Vec<u8>], tally: &mut Tally) {
    let original = gen.pick(seeds);
    let bytes = mutate::protobuf(gen, original.clone());
    match Entry::decode(&bytes) {
        Ok(entry) => {
            if let Ok(payload) = entry.payload() {
                let _ = pitboss::codec::payload_to_event(&payload);
            }
            let hash_ok = pitboss_ledger::entry::entry_hash(&entry.envelope_bytes) == entry.hash;
            let same = Entry::decode(original).expect("a seed decodes");
            if hash_ok && entry.envelope_bytes != same.envelope_bytes {
                // Only a recomputed hash could pass, and that breaks the signature instead.
                assert_ne!(
                    entry.hash, same.hash,
                    "another envelope under the same hash"
                );
            }
            let report = replay_entries(
                "fuzz",
                std::slice::from_ref(&entry),
                vec![(hash_ok, false, String::new())],
                |_| None::<Arc<GameConfig>>,
            );
            assert!(
                !report.consistent,
                "an unsigned entry replayed as consistent"
            );
            tally.accepted += 1;
        }
        Err(_) => tally.refused += 1,
    }
}
