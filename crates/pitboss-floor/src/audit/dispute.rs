//! The dispute packet of one hand: its offline bundle, checked here exactly as `pitboss
//! verify-bundle` checks it (the checkpoint's signature with the key that signed it, every entry's
//! hash, signature and inclusion, then the replay), and the page a person reads, drawn by
//! `pitboss-packet` from what that check found. The page states what the bundle beside it proves,
//! nothing more: its verdict is the bundle's.
//!
//! Reads the log (through the bundle) and never changes it; draws nothing itself.

use crate::floor::Floor;
use ed25519_dalek::VerifyingKey;
use pitboss_engine::config::GameConfig;
use pitboss_engine::games::Event;
use pitboss_ledger::checkpoint::Checkpoint;
use pitboss_packet::{CheckpointFacts, Mismatch, Packet, PacketEvent, Verdict};

use super::bundle::{self, Bundle, BundleError, Verified};
use crate::codec::{self, EntryPayload};

/// A hand's dispute packet: the page and the bundle it describes.
#[derive(Clone, Debug)]
pub struct Dispute {
    /// The self-contained HTML page.
    pub html: String,
    /// The offline bundle (JSON), to be kept beside the page under `bundle_file`.
    pub bundle_json: String,
    /// The file name the page gives the bundle: `hand-<id>.bundle.json`.
    pub bundle_file: String,
    /// The file name for the page: `hand-<id>.html`.
    pub html_file: String,
    /// The bundle's check came out clean (what the page's verdict says).
    pub verified: bool,
    /// A round's deal inputs (`deal_inputs.rs`, JSON), to be kept beside the page under
    /// `deal_file`; empty for a hand.
    pub deal_json: String,
    /// `round-<id>.deal.json`; empty for a hand.
    pub deal_file: String,
}

/// Builds the dispute packet of `hand_id` from the log, proven in a checkpoint of the whole log.
pub fn build(
    floor: &Floor,
    hand_id: &str,
    source: bundle::Source<'_>,
) -> Result<Dispute, BundleError> {
    let (bundle, key) = bundle::build_signed(floor, hand_id, source)?;
    let bundle_json = serde_json::to_string_pretty(&bundle)
        .map_err(|e| BundleError::Malformed(format!("the bundle does not serialize: {e}")))?;
    let bundle_file = format!("hand-{hand_id}.bundle.json");
    // A mirror's bundle is checked with the mirror as the one witness whose statement counts.
    let policy = match source {
        bundle::Source::Mirror(mirror) => {
            Some(mirror.self_policy(&key).map_err(BundleError::NotHeld)?)
        }
        bundle::Source::Log(_) => None,
    };
    let verified = bundle::verify(&bundle, &key, policy.as_ref());
    let packet = packet(&bundle, &key, &verified, &bundle_file)?;
    Ok(Dispute {
        html: pitboss_packet::render(&packet),
        bundle_json,
        bundle_file,
        html_file: format!("hand-{hand_id}.html"),
        deal_json: String::new(),
        deal_file: String::new(),
        verified: verified.ok(),
    })
}

/// What the page shows, from the bundle and its check.
fn packet(
    bundle: &Bundle,
    key: &VerifyingKey,
    verified: &Verified,
    bundle_file: &str,
) -> Result<Packet, BundleError> {
    let malformed = |what: String| BundleError::Malformed(what);
    let config = GameConfig::from_json(bundle.config_json.as_bytes())
        .map_err(|e| malformed(format!("the configuration does not read: {e}")))?;
    let checks = verified.report.as_ref().map(|r| r.events.as_slice());
    let mut events = Vec::with_capacity(verified.entries.len());
    for entry in &verified.entries {
        let envelope = &entry.envelope;
        let event = entry
            .payload()
            .ok()
            .and_then(|p| codec::payload_to_event(&p).ok().flatten())
            .ok_or_else(|| {
                malformed(format!(
                    "entry {} is not an event of the hand",
                    envelope.sequence
                ))
            })?;
        let check = checks.and_then(|c| c.iter().find(|e| e.sequence == envelope.sequence));
        events.push(PacketEvent {
            sequence: envelope.sequence,
            stream_position: envelope.stream_position,
            recorded_at_ms: envelope.recorded_at_ms,
            actor: envelope.actor.clone(),
            key_id: hex::encode(&envelope.key_id),
            hash_hex: hex::encode(entry.hash),
            event,
            in_checkpoint: check.is_some_and(|c| c.chain_ok),
            signature_ok: check.is_some_and(|c| c.signature_ok),
            rederived: check.is_some_and(|c| c.rederived),
            note: check.map(|c| c.note.clone()).unwrap_or_default(),
        });
    }
    let Some(Event::Opened(opened)) = events.first().map(|e| &e.event) else {
        return Err(malformed(format!(
            "hand {}'s first entry is not its opening",
            bundle.hand_id
        )));
    };
    let (table, player, opened_at_ms) = (opened.table.clone(), opened.player.clone(), opened.at.0);
    let report = verified.report.as_ref();
    let status = report.map_or("unknown".to_string(), |r| codec::id_of(&r.status));
    let closed_at_ms = match status.as_str() {
        "settled" | "voided" => events.last().map(|e| e.recorded_at_ms),
        _ => None,
    };
    let checkpoint = checkpoint_facts(bundle, key)?;
    Ok(Packet {
        hand_id: bundle.hand_id.clone(),
        game: config.game,
        table,
        player,
        opened_at_ms,
        closed_at_ms,
        status,
        config_id: bundle.config_id.clone(),
        config,
        events,
        verdict: Verdict {
            consistent: verified.ok(),
            commitment_ok: report.is_some_and(|r| r.commitment_ok),
            seed_revealed: report.is_some_and(|r| r.seed_revealed),
            refunds_equal_stakes: report.is_some_and(|r| r.refunds_equal_stakes),
            mismatches: report
                .map(|r| mismatches(&r.mismatches))
                .unwrap_or_default(),
            report: report.map(|r| r.report.clone()).unwrap_or_default(),
            problems: verified.problems.clone(),
            settlement: report.and_then(|r| r.settlement.clone()),
            void: report.and_then(|r| r.void.clone()),
            completion: report.and_then(|r| r.completion.clone()),
            checkpoint,
            bundle_file: bundle_file.to_string(),
        },
    })
}

/// The log's signed checkpoint the bundle's entries are proven in, as the page states it: the
/// bundle's own, or — in a mirror's bundle, whose checkpoint is the mirror's statement of the
/// stream's end — the log's checkpoint of that tree.
pub(super) fn checkpoint_facts(
    bundle: &Bundle,
    key: &VerifyingKey,
) -> Result<CheckpointFacts, BundleError> {
    let note = match (
        Checkpoint::parse(&bundle.checkpoint),
        &bundle.cosigned_checkpoint,
    ) {
        (Err(_), Some(log)) => log,
        _ => &bundle.checkpoint,
    };
    let checkpoint =
        Checkpoint::parse(note).map_err(|e| BundleError::Malformed(format!("checkpoint: {e}")))?;
    Ok(CheckpointFacts {
        origin: checkpoint.origin.clone(),
        tree_size: checkpoint.size,
        root_hex: hex::encode(checkpoint.root),
        note: note.clone(),
        key_id: pitboss_ledger::KeyId::of(key).to_string(),
        public_key_hex: hex::encode(key.as_bytes()),
    })
}

/// A replay's mismatches as the page lists them.
pub(super) fn mismatches(found: &[super::replay::Mismatch]) -> Vec<Mismatch> {
    found
        .iter()
        .map(|m| Mismatch {
            sequence: m.sequence,
            event: m.event.clone(),
            field: m.field.clone(),
            recorded: m.recorded.clone(),
            rederived: m.rederived.clone(),
        })
        .collect()
}
