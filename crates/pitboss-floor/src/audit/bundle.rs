//! Offline bundles: one hand's (or one table's round's) evidence in one JSON file that a regulator
//! or an operator can check
//! with no server and no database — the hand's stored entries exactly as stored, an inclusion proof
//! for each against a signed checkpoint, the configuration the hand names, and the public keys that
//! signed the entries.
//!
//! A bundle is the hand's whole stream or it is refused: the checkpoint carries a signed extension
//! line, `stream hand/<id> <count> <last sequence>`, stating how many entries the hand's stream
//! holds at that size and where the last one stands, so a bundle with an entry cut out (at the end
//! or anywhere), an entry added, or the hand relabelled does not verify, and the reason is named.
//!
//! Checking a bundle ([`verify`]) needs only the log's public key, pinned beforehand: the
//! checkpoint's signature is checked with it; the entries must be the stated stream, positions
//! 0, 1, … in order up to the stated last; each entry's bytes must hash to a leaf proven in the
//! checkpoint's tree, and a signature it carries must verify with the key its envelope names (a key's
//! id is the hash of the key, so a listed key cannot stand for another; an entry its group's later
//! signature sealed in the log carries none, and rests on the checkpoint's); the configuration must hash to the
//! id the hand names; then the hand is replayed by the same code as live replay, and the proof
//! report says, line by line, whether the rules give what was recorded.
//!
//! A round's bundle ([`ROUND_FORMAT`], `round_id` in place of `hand_id`) is the same evidence for
//! the round's stream `round/<id>`, replayed by the round's replay (`round_replay.rs`): every
//! place of the table, every player named (the entries are signed as recorded; the dispute page
//! masks the other players' names, the bundle cannot without breaking the signatures).

use crate::codec::EntryPayload;
use std::collections::BTreeMap;
use std::sync::Arc;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ed25519_dalek::{Signature, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};

use super::replay::{replay_entries, EntryStatus, ProofReport};
use super::round_replay::{replay_round_entries, Reader, RoundProofReport};
use crate::floor::{hand_stream, round_stream, Floor};
use pitboss_engine::config::{ConfigId, GameConfig};
use pitboss_engine::games::Event;
use pitboss_engine::round::RoundEvent;
use pitboss_ledger::checkpoint::Checkpoint;
use pitboss_ledger::entry::{entry_hash, Entry};
use pitboss_ledger::merkle::{leaf_hash, verify_inclusion};
use pitboss_ledger::{KeyId, LedgerError};
use pitboss_witness::policy::Policy;

/// The format name written in every bundle.
pub const FORMAT: &str = "pitboss.bundle.v2";

/// The first format, whose checkpoint says nothing of where the hand's stream ends: such a bundle
/// cannot show it is complete, so it never verifies (ask the server for a new one).
pub const FORMAT_V1: &str = "pitboss.bundle.v1";

/// The format name written in every round's bundle.
pub const ROUND_FORMAT: &str = "pitboss.round-bundle.v1";

/// The most entries a hand's bundle may hold (a hand has a few dozen at most); a larger one is
/// refused before any entry is decoded.
pub const MAX_ENTRIES: usize = 1024;

/// The most entries a round's bundle may hold: a table of seats or a shake of hundreds of bettors
/// (about three entries a place), within [`MAX_BYTES`]. A larger round is audited live
/// (`Audit.ReplayRound`); its bundle is refused.
pub const MAX_ROUND_ENTRIES: usize = 4096;

/// What a bundle proves: one hand, or one table's round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject<'a> {
    Hand(&'a str),
    Round(&'a str),
}

impl Subject<'_> {
    /// `hand` or `round`.
    pub fn what(self) -> &'static str {
        match self {
            Subject::Hand(_) => "hand",
            Subject::Round(_) => "round",
        }
    }

    /// Its id.
    pub fn id(self) -> String {
        match self {
            Subject::Hand(id) | Subject::Round(id) => id.to_string(),
        }
    }

    /// Its stream.
    pub fn stream(self) -> String {
        match self {
            Subject::Hand(id) => hand_stream(id),
            Subject::Round(id) => round_stream(id),
        }
    }

    fn format(self) -> &'static str {
        match self {
            Subject::Hand(_) => FORMAT,
            Subject::Round(_) => ROUND_FORMAT,
        }
    }

    fn max_entries(self) -> usize {
        match self {
            Subject::Hand(_) => MAX_ENTRIES,
            Subject::Round(_) => MAX_ROUND_ENTRIES,
        }
    }
}

/// The longest inclusion path (a tree of 2^64 leaves has paths of 64 hashes).
pub const MAX_PATH: usize = 64;

/// The most bytes of a bundle file `verify-bundle` reads.
pub const MAX_BYTES: u64 = 16 << 20;

/// The first word of the checkpoint's extension line that states a stream's end.
const STREAM_LINE: &str = "stream";

/// The signed statement of where a hand's stream ends at the checkpoint's size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamEnd {
    /// The stream, `hand/<id>`.
    pub stream: String,
    /// How many entries it holds.
    pub count: u64,
    /// The log sequence of its last entry.
    pub last: u64,
}

/// Why a checkpoint's extension lines state no stream end.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StreamEndError {
    #[error("the checkpoint does not state, exactly once, where the hand's stream ends")]
    NotOnce,
    #[error("the stream statement's count {0:?} is not a number")]
    Count(String),
    #[error("the stream statement's last {0:?} is not a number")]
    Last(String),
    #[error("the stream statement {0:?} is not `stream NAME COUNT LAST`")]
    Shape(String),
}

impl StreamEnd {
    /// The extension line.
    pub fn line(&self) -> String {
        format!("{STREAM_LINE} {} {} {}", self.stream, self.count, self.last)
    }

    /// Reads the statement from a checkpoint's extension lines: exactly one line must be one.
    pub fn from_extensions(lines: &[String]) -> Result<StreamEnd, StreamEndError> {
        let mut found = lines
            .iter()
            .filter(|l| l.split(' ').next() == Some(STREAM_LINE));
        let (Some(line), None) = (found.next(), found.next()) else {
            return Err(StreamEndError::NotOnce);
        };
        let words: Vec<&str> = line.split(' ').collect();
        match words[..] {
            [_, stream, count, last] => Ok(StreamEnd {
                stream: stream.to_string(),
                count: count
                    .parse()
                    .map_err(|_| StreamEndError::Count(count.into()))?,
                last: last
                    .parse()
                    .map_err(|_| StreamEndError::Last(last.into()))?,
            }),
            _ => Err(StreamEndError::Shape(line.clone())),
        }
    }
}

/// One hand's (or round's) evidence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bundle {
    /// [`FORMAT`] for a hand, [`ROUND_FORMAT`] for a round.
    pub format: String,
    /// The hand (a hand's bundle).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub hand_id: String,
    /// The round (a round's bundle).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub round_id: String,
    /// The signed checkpoint the entries are proven in (its note).
    pub checkpoint: String,
    /// Public keys (hex) by key id (hex), for the entries' signatures.
    pub keys: BTreeMap<String, String>,
    /// The configuration the hand was played under: its id and canonical JSON.
    pub config_id: String,
    pub config_json: String,
    /// The hand's entries in order.
    pub entries: Vec<BundledEntry>,
    /// The same tree's checkpoint (no extension lines) cosigned by witnesses that met the server's
    /// witness policy (`docs/witnessing.md`): present when the whole hand was within the newest
    /// cosigned checkpoint, the bundle then proven at its size. `verify-bundle --policy` requires it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cosigned_checkpoint: Option<String>,
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
    #[error("{what} `{id}` not found")]
    NotFound { what: &'static str, id: String },
    /// A round beyond what a bundle may hold.
    #[error("round `{id}` has {entries} entries, more than the {most} a bundle may hold: audit it live with ReplayRound")]
    TooLarge {
        id: String,
        entries: usize,
        most: usize,
    },
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    #[error("not a bundle: {0}")]
    Malformed(String),
    /// A mirror cannot prove the hand yet (it holds no checkpoint of the log, or cannot sign).
    #[error("{0}")]
    NotHeld(String),
}

/// A checkpoint whose cosignatures meet a witness policy's quorum (the log's side of witnessing
/// keeps the newest).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cosigned {
    /// The note: the checkpoint's text, the log's signature and every cosignature kept.
    pub note: String,
    /// Its tree size.
    pub size: u64,
    /// The witnesses (policy names) whose cosignatures it carries.
    pub witnesses: Vec<String>,
}

/// A checkpoint a mirror publishes: the log's note it holds, with the mirror's cosignature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Published {
    /// The log's note (its signature, the log's witnesses' cosignatures) and the mirror's.
    pub note: String,
    /// Its tree size.
    pub size: u64,
    /// Whether the log's server answered it as cosigned to its witness policy's quorum.
    pub cosigned: bool,
    /// The log's key that signed it.
    pub key: VerifyingKey,
    /// Its root.
    pub root: pitboss_ledger::Hash,
}

impl Published {
    /// As a cosigned checkpoint (a bundle's `cosigned_checkpoint`).
    pub fn as_cosigned(&self) -> Cosigned {
        Cosigned {
            note: self.note.clone(),
            size: self.size,
            witnesses: Vec::new(),
        }
    }
}

/// What a mirror proves a hand with: the log's trees it holds, and its own signed statements.
pub trait Mirror {
    /// The newest checkpoint of the log it holds.
    fn newest(&self) -> Option<Published>;
    /// The newest one the log's server answered as cosigned by its witnesses.
    fn cosigned(&self) -> Option<Published>;
    /// The mirror's statement that, in the tree of `published`, the checkpoint's text carries
    /// `extension`: that text, signed by the mirror's cosignature only.
    fn statement(&self, published: &Published, extension: &str) -> Result<String, String>;
    /// A policy naming only this mirror (and the log, by `log_key`), with no quorum: what the
    /// mirror's own bundles are checked against.
    fn self_policy(&self, log_key: &VerifyingKey) -> Result<Policy, String>;
}

/// What a bundle's checkpoint is, and who states where the hand's stream ends in it.
#[derive(Clone, Copy)]
pub enum Source<'a> {
    /// The log's own server: a checkpoint of the whole log now, signed with the stream's end — or
    /// `cosigned` (the newest checkpoint its witnesses cosigned) when the whole hand is within it.
    Log(Option<&'a Cosigned>),
    /// A mirror: the log's checkpoint it holds (the newest cosigned by the log's witnesses when
    /// the whole hand is within it), carried as the bundle's `cosigned_checkpoint`; the stream's
    /// end is stated by the mirror's cosignature over that tree (`checkpoint`).
    Mirror(&'a dyn Mirror),
}

/// Makes the bundle of a hand from the log, proven as `source` says.
pub fn build(floor: &Floor, hand_id: &str, source: Source<'_>) -> Result<Bundle, BundleError> {
    build_signed(floor, hand_id, source).map(|(bundle, _)| bundle)
}

/// [`build`], with the log's key that signed the bundle's tree.
pub fn build_signed(
    floor: &Floor,
    hand_id: &str,
    source: Source<'_>,
) -> Result<(Bundle, VerifyingKey), BundleError> {
    build_of(floor, Subject::Hand(hand_id), source)
}

/// The bundle of a hand or a round, with the log's key that signed the bundle's tree.
pub fn build_of(
    floor: &Floor,
    subject: Subject<'_>,
    source: Source<'_>,
) -> Result<(Bundle, VerifyingKey), BundleError> {
    // The size first, then the stream: every entry of the stream below the size is then read, and
    // entries recorded meanwhile (at or past the size) are left out, so the statement holds.
    // A mirror's trees are read once: the follower may hold newer ones meanwhile.
    let (now, held, trees) = match source {
        Source::Log(cosigned) => (floor.log().tree_size()?, cosigned.cloned(), None),
        Source::Mirror(mirror) => {
            let newest = mirror.newest().ok_or_else(|| {
                BundleError::NotHeld("the mirror holds no checkpoint of the log yet".into())
            })?;
            let cosigned = mirror.cosigned();
            (
                newest.size,
                cosigned.as_ref().map(|c| c.as_cosigned()),
                Some((newest, cosigned)),
            )
        }
    };
    let stream = subject.stream();
    let mut entries = match subject {
        Subject::Hand(id) => floor.hand_stream_entries(id)?,
        Subject::Round(id) => floor.round_stream_entries(id)?,
    };
    entries.retain(|e| e.envelope.sequence < now);
    let (Some(first), Some(last)) = (entries.first(), entries.last()) else {
        return Err(BundleError::NotFound {
            what: subject.what(),
            id: subject.id(),
        });
    };
    if entries.len() > subject.max_entries() {
        return Err(BundleError::TooLarge {
            id: subject.id(),
            entries: entries.len(),
            most: subject.max_entries(),
        });
    }
    // The cosigned tree holds every entry of the hand so far: prove them there.
    let cosigned = held.filter(|c| last.envelope.sequence < c.size && c.size <= now);
    let size = cosigned.as_ref().map_or(now, |c| c.size);
    let payload = first.payload().ok();
    let config_id = match subject {
        Subject::Hand(_) => payload
            .and_then(|p| crate::codec::payload_to_event(&p).ok().flatten())
            .and_then(|event| match event {
                Event::Opened(opened) => Some(opened.config_id),
                _ => None,
            }),
        Subject::Round(_) => payload
            .and_then(|p| crate::codec::payload_to_round_event(&p).ok().flatten())
            .and_then(|event| match event {
                RoundEvent::Opened(opened) => Some(opened.config_id),
                _ => None,
            }),
    };
    let Some(config_id) = config_id else {
        return Err(BundleError::Malformed(format!(
            "{} {}'s first entry is not its opening",
            subject.what(),
            subject.id()
        )));
    };
    let config = floor.config(&config_id).ok_or_else(|| {
        BundleError::Malformed(format!("configuration {config_id} is not published"))
    })?;
    let end = StreamEnd {
        stream,
        count: entries.len() as u64,
        last: last.envelope.sequence,
    };
    let (checkpoint, signer, log_checkpoint) = match source {
        Source::Log(_) => {
            let (checkpoint, signer) = floor.log().checkpoint_with(size, vec![end.line()])?;
            (checkpoint.note(), signer, cosigned.map(|c| c.note.clone()))
        }
        Source::Mirror(mirror) => {
            let Some((newest, cosigned)) = trees else {
                return Err(BundleError::NotHeld("no tree read".into()));
            };
            let tree = match cosigned {
                Some(c) if c.size == size => c,
                _ => newest,
            };
            let statement = mirror
                .statement(&tree, &end.line())
                .map_err(BundleError::NotHeld)?;
            (statement, tree.key, Some(tree.note))
        }
    };
    let mut keys = BTreeMap::new();
    for (id, public) in floor.log().known_keys()? {
        keys.insert(hex::encode(id), hex::encode(public));
    }
    let mut bundled = Vec::with_capacity(entries.len());
    for entry in &entries {
        let proof = floor.log().inclusion_proof(entry.envelope.sequence, size)?;
        bundled.push(BundledEntry {
            sequence: entry.envelope.sequence,
            stored: STANDARD.encode(entry.encode()),
            inclusion: proof.hashes.iter().map(hex::encode).collect(),
        });
    }
    let (hand_id, round_id) = match subject {
        Subject::Hand(id) => (id.to_string(), String::new()),
        Subject::Round(id) => (String::new(), id.to_string()),
    };
    let bundle = Bundle {
        format: subject.format().into(),
        hand_id,
        round_id,
        checkpoint,
        keys,
        config_id: config_id.to_string(),
        config_json: String::from_utf8_lossy(&config.canonical_bytes()).into_owned(),
        entries: bundled,
        cosigned_checkpoint: log_checkpoint,
    };
    Ok((bundle, signer))
}

/// One `tlog-proof@v1` file (C2SP `tlog-proof`) of a bundle's entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlogProofFile {
    /// `hand-<id>.entry-<sequence>.tlog-proof` (`round-<id>.…` for a round).
    pub file: String,
    pub text: String,
}

/// A `tlog-proof` for each of the bundle's entries, from the bundle's own facts: the entry's
/// sequence as its index, its inclusion proof, and the checkpoint of the bundle's tree as the
/// log signed it (the witnesses' cosigned note when the bundle carries one: the same tree). The
/// extra data is the entry's envelope as stored, whose leaf is SHA-256(0x00 ‖
/// SHA-256("pitboss.v1.event\0" ‖ envelope)) (`docs/tlog-proof.md`). Entries that do not decode
/// are left out: the bundle's own check names them.
pub fn tlog_proofs(bundle: &Bundle) -> Vec<TlogProofFile> {
    use pitboss_witness::proof::{TlogProof, EXTENSION};
    let Ok(subject) = bundle.subject() else {
        return Vec::new();
    };
    let checkpoint = match &bundle.cosigned_checkpoint {
        Some(cosigned) => cosigned.clone(),
        None => bundle.checkpoint.clone(),
    };
    bundle
        .entries
        .iter()
        .filter_map(|bundled| {
            let bytes = STANDARD.decode(&bundled.stored).ok()?;
            let entry = Entry::decode(&bytes).ok()?;
            let proof = bundled
                .inclusion
                .iter()
                .map(|h| hash_of(h))
                .collect::<Option<Vec<_>>>()?;
            let proof = TlogProof {
                extra: Some(entry.envelope_bytes.clone()),
                index: bundled.sequence,
                proof,
                checkpoint: checkpoint.clone(),
            };
            Some(TlogProofFile {
                file: format!(
                    "{}-{}.entry-{}.{EXTENSION}",
                    subject.what(),
                    subject.id(),
                    bundled.sequence
                ),
                text: proof.to_text(),
            })
        })
        .collect()
}

/// Checks one `tlog-proof` of a pitboss log's entry by the spec's steps, its leaf read from the
/// extra data (the entry's envelope): the checkpoint signed by `log_key` for `origin`, cosigned to
/// `policy`'s quorum when one is given, the entry included. The entry's sequence and its envelope,
/// or why not.
pub fn check_tlog_proof(
    text: &str,
    origin: &str,
    log_key: &VerifyingKey,
    policy: Option<&Policy>,
) -> Result<(u64, Vec<u8>), String> {
    use pitboss_witness::proof::TlogProof;
    let proof = TlogProof::parse(text).map_err(|e| e.to_string())?;
    let envelope = proof
        .extra
        .as_ref()
        .ok_or("no extra data: a pitboss entry's proof carries the entry's envelope")?;
    let leaf = leaf_hash(&entry_hash(envelope));
    proof
        .verify(&leaf, origin, log_key, policy)
        .map_err(|e| e.to_string())?;
    let sequence = <pitboss_ledger::proto::Envelope as prost::Message>::decode(envelope.as_slice())
        .map_err(|e| format!("the extra data is not an entry's envelope: {e}"))?
        .sequence;
    if sequence != proof.index {
        return Err(format!(
            "the envelope says entry {sequence}, the proof's index is {}",
            proof.index
        ));
    }
    Ok((proof.index, envelope.clone()))
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
    /// A round's proof report, likewise (a round's bundle).
    pub round: Option<RoundProofReport>,
    /// The bundle's entries as decoded, in order (those that decode), for whoever shows them.
    pub entries: Vec<Entry>,
    /// The policy's witnesses whose cosignatures of the bundle's tree verify and meet its quorum
    /// (checked with a policy only).
    pub cosigned_by: Option<Vec<String>>,
}

impl Verified {
    /// Everything checks: the checkpoint, every entry, and the replay.
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
            && (self.report.as_ref().is_some_and(|r| r.consistent)
                || self.round.as_ref().is_some_and(|r| r.consistent))
    }
}

fn hash_of(text: &str) -> Option<[u8; 32]> {
    hex::decode(text).ok()?.try_into().ok()
}

/// Checks a bundle with the log's public key, pinned beforehand; with a witness `policy`, the
/// bundle's tree must also be cosigned by witnesses that meet its quorum.
pub fn verify(bundle: &Bundle, log_key: &VerifyingKey, policy: Option<&Policy>) -> Verified {
    let mut out = Verified {
        checkpoint_size: None,
        problems: Vec::new(),
        report: None,
        round: None,
        entries: Vec::new(),
        cosigned_by: None,
    };
    if bundle.format == FORMAT_V1 {
        out.problems.push(format!(
            "format {FORMAT_V1} does not state where the hand's stream ends, so it cannot show \
             that no entry was cut; ask the server for a {FORMAT} bundle"
        ));
        return out;
    }
    let subject = match bundle.subject() {
        Ok(subject) => subject,
        Err(problem) => {
            out.problems.push(problem);
            return out;
        }
    };
    if bundle.entries.len() > subject.max_entries() {
        out.problems.push(format!(
            "{} entries, more than the {} a {}'s bundle may hold",
            bundle.entries.len(),
            subject.max_entries(),
            subject.what()
        ));
        return out;
    }
    let checkpoint = match stated_tree(bundle, log_key, policy) {
        Ok(c) => c,
        Err(problem) => {
            out.problems.push(format!("checkpoint: {problem}"));
            return out;
        }
    };
    out.checkpoint_size = Some(checkpoint.size);
    if let Some(policy) = policy {
        match cosigned_problem(bundle, &checkpoint, log_key, policy) {
            Ok(witnesses) => out.cosigned_by = Some(witnesses),
            Err(problem) => out.problems.push(problem),
        }
    }
    let end = match StreamEnd::from_extensions(&checkpoint.extensions) {
        Ok(end) => end,
        Err(problem) => {
            out.problems.push(problem.to_string());
            return out;
        }
    };
    out.problems
        .extend(stream_problems(bundle, subject, &end, checkpoint.size));
    // The configuration must be the one the hand names, in its canonical bytes: the text itself
    // hashes to the id (as the Python checker reads it), nothing ignored on the way.
    let config = GameConfig::from_json(bundle.config_json.as_bytes())
        .ok()
        .filter(|c| {
            c.id().to_string() == bundle.config_id
                && c.canonical_bytes() == bundle.config_json.as_bytes()
        })
        .map(Arc::new);
    if config.is_none() {
        out.problems.push(format!(
            "the configuration does not read, is not in its canonical form, or does not hash to {}",
            bundle.config_id
        ));
    }
    let mut entries = Vec::new();
    let mut statuses: Vec<EntryStatus> = Vec::new();
    for bundled in &bundle.entries {
        // Exactly the stored record: bytes that merely decode to it (a field repeated, another
        // encoding of the same values) are not what the log holds.
        let entry = STANDARD
            .decode(&bundled.stored)
            .map_err(|e| e.to_string())
            .and_then(|bytes| {
                let entry = Entry::decode(&bytes).map_err(|e| e.to_string())?;
                if entry.encode() != bytes {
                    return Err("its bytes are not the record as stored (not canonical)".into());
                }
                Ok(entry)
            });
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                out.problems
                    .push(format!("entry {}: does not decode: {e}", bundled.sequence));
                return out;
            }
        };
        let hash = entry_hash(&entry.envelope_bytes);
        let path: Option<Vec<[u8; 32]>> = (bundled.inclusion.len() <= MAX_PATH)
            .then(|| bundled.inclusion.iter().map(|h| hash_of(h)).collect())
            .flatten();
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
        // The key the envelope names must be listed (signed or not, as the Python checker
        // holds). An unsigned entry was sealed in the log by its group's last signature; here
        // the checkpoint's signature vouches for it, through its inclusion.
        let key = bundle
            .keys
            .get(&key_id)
            .and_then(|k| hash_of(k))
            .and_then(|k| VerifyingKey::from_bytes(&k).ok())
            .filter(|k| KeyId::of(k).0.as_slice() == entry.envelope.key_id.as_slice());
        let listed = key.is_some();
        let signed = match (&entry.signature, key) {
            (_, None) => false,
            (None, Some(_)) => included,
            (Some(signature), Some(key)) => {
                key.verify(&hash, &Signature::from_bytes(signature)).is_ok()
            }
        };
        let note = match (hash == entry.hash, included, listed, signed) {
            (true, true, true, true) => String::new(),
            (false, ..) => "its bytes do not hash to its recorded hash".into(),
            (_, false, ..) => "not proven in the checkpoint's tree".into(),
            (_, _, false, _) => format!("its key {key_id} is not among the bundle's keys"),
            (.., false) => format!("signature does not verify with key {key_id}"),
        };
        statuses.push((hash == entry.hash && included, signed, note));
        entries.push(entry);
    }
    out.problems.extend(envelope_problems(&entries, &end));
    let wanted = bundle.config_id.clone();
    let configs = |id: &ConfigId| config.clone().filter(|_| id.to_string() == wanted);
    match subject {
        Subject::Hand(id) => out.report = Some(replay_entries(id, &entries, statuses, configs)),
        Subject::Round(id) => {
            out.round = Some(replay_round_entries(
                id,
                &entries,
                statuses,
                configs,
                Reader::Table,
            ));
        }
    }
    out.entries = entries;
    out
}

impl Bundle {
    /// What the bundle proves, by its format and id: a hand's (`hand_id`) or a round's
    /// (`round_id`), the id printable ASCII without spaces; or why it is neither.
    pub fn subject(&self) -> Result<Subject<'_>, String> {
        let subject = match self.format.as_str() {
            FORMAT if self.round_id.is_empty() => Subject::Hand(&self.hand_id),
            ROUND_FORMAT if self.hand_id.is_empty() => Subject::Round(&self.round_id),
            FORMAT | ROUND_FORMAT => {
                return Err("a bundle names a hand or a round, not both".into());
            }
            other => return Err(format!("format {other:?}, not {FORMAT} or {ROUND_FORMAT}")),
        };
        let id = subject.id();
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(format!(
                "the {} id is empty or not printable ASCII without spaces",
                subject.what()
            ));
        }
        Ok(subject)
    }
}

/// The bundle's checkpoint with the hand's stream end among its extension lines: signed by the
/// log (a bundle from the log's server) — or, from a mirror, the log's own checkpoint (the
/// bundle's `cosigned_checkpoint`) with the extension lines of the mirror's statement over that
/// tree, cosigned by a witness `policy` names (a mirror's bundle is checked with a policy only).
fn stated_tree(
    bundle: &Bundle,
    log_key: &VerifyingKey,
    policy: Option<&Policy>,
) -> Result<Checkpoint, String> {
    let by_log = Checkpoint::parse(&bundle.checkpoint);
    if let Ok(checkpoint) = &by_log {
        checkpoint.verify(log_key).map_err(|e| e.to_string())?;
        return Ok(checkpoint.clone());
    }
    let statement =
        pitboss_witness::note::Note::parse(&bundle.checkpoint).map_err(|e| e.to_string())?;
    let Some(policy) = policy else {
        return Err(by_log.map_or_else(
            |e| {
                format!(
                    "{e} (a mirror's bundle states the hand's stream end by the mirror's \
                     cosignature: check it with --policy naming the mirror)"
                )
            },
            |_| String::new(),
        ));
    };
    let tree_note = bundle
        .cosigned_checkpoint
        .as_deref()
        .ok_or("a mirror's statement without the log's checkpoint of its tree")?;
    let tree = Checkpoint::parse(tree_note).map_err(|e| format!("the log's checkpoint: {e}"))?;
    tree.verify(log_key)
        .map_err(|e| format!("the log's checkpoint: {e}"))?;
    let text = statement.text.as_str();
    let extensions: Vec<String> = text.lines().skip(3).map(str::to_string).collect();
    if extensions.len() > pitboss_ledger::checkpoint::MAX_EXTENSIONS
        || pitboss_ledger::checkpoint::body(&tree.origin, tree.size, &tree.root, &extensions)
            != text
        || !tree.extensions.is_empty()
    {
        return Err("the mirror's statement is not of the tree the log's checkpoint names".into());
    }
    let stated_by = statement.signatures.iter().find_map(|signature| {
        policy
            .witnesses
            .iter()
            // Only a cosignature over the whole text states its extension lines: an Ed25519
            // cosignature/v1 signs the text, an ML-DSA-44 subtree/v1 only the tree.
            .filter(|w| matches!(w.vkey, pitboss_witness::cosigner::CosignerKey::Ed25519(_)))
            .find(|w| w.vkey.verify(text, signature).is_ok())
    });
    if stated_by.is_none() {
        return Err(
            "the statement of the hand's stream end is cosigned by no witness the policy names"
                .into(),
        );
    }
    Ok(Checkpoint { extensions, ..tree })
}

/// The witnesses whose cosignatures of the bundle's tree meet `policy`'s quorum, or why not.
fn cosigned_problem(
    bundle: &Bundle,
    checkpoint: &Checkpoint,
    log_key: &VerifyingKey,
    policy: &Policy,
) -> Result<Vec<String>, String> {
    let note = bundle.cosigned_checkpoint.as_deref().ok_or(
        "no cosigned checkpoint: the hand was newer than the witnesses' newest cosigned \
         checkpoint when bundled, or the server has no witness policy; bundle it again later",
    )?;
    let check =
        pitboss_witness::cosigned::check(note, policy, log_key).map_err(|e| e.to_string())?;
    let cosigned = &check.checkpoint;
    if cosigned.origin != checkpoint.origin
        || cosigned.size != checkpoint.size
        || cosigned.root != checkpoint.root
        || !cosigned.extensions.is_empty()
    {
        return Err(format!(
            "the cosigned checkpoint ({} entries) is not of the bundle's tree ({} entries)",
            cosigned.size, checkpoint.size
        ));
    }
    let witnesses: Vec<String> = check.witnesses.into_iter().collect();
    if !check.quorum {
        return Err(format!(
            "cosigned by {} only: not the policy's quorum",
            if witnesses.is_empty() {
                "no witness of the policy".to_string()
            } else {
                witnesses.join(", ")
            }
        ));
    }
    Ok(witnesses)
}

/// What the bundle's list says against the signed statement: the hand, the count, the last
/// sequence, and sequences rising.
fn stream_problems(
    bundle: &Bundle,
    subject: Subject<'_>,
    end: &StreamEnd,
    size: u64,
) -> Vec<String> {
    let mut problems = Vec::new();
    let what = subject.what();
    let named = subject.stream();
    if end.stream != named {
        problems.push(format!(
            "the checkpoint states the end of stream {}, but the bundle is for {named}",
            end.stream
        ));
    }
    if end.last >= size {
        problems.push(format!(
            "the stated last entry {} is not below the checkpoint's size {size}",
            end.last
        ));
    }
    let held = bundle.entries.len() as u64;
    if held != end.count {
        problems.push(format!(
            "the bundle holds {held} entries but the {what}'s stream has {} at the checkpoint \
             (entries were {})",
            end.count,
            if held < end.count { "cut out" } else { "added" }
        ));
    }
    if let Some(last) = bundle.entries.last() {
        if last.sequence != end.last {
            problems.push(format!(
                "the bundle's last entry is {}, but the {what}'s stream ends at {} at the checkpoint",
                last.sequence, end.last
            ));
        }
    }
    if let Some(pair) = bundle
        .entries
        .windows(2)
        .find(|w| w[0].sequence >= w[1].sequence)
    {
        problems.push(format!(
            "entry {} follows entry {}: the entries are not in log order",
            pair[1].sequence, pair[0].sequence
        ));
    }
    problems
}

/// What the entries' own envelopes say: each belongs to the stated stream, at positions 0, 1, ….
fn envelope_problems(entries: &[Entry], end: &StreamEnd) -> Vec<String> {
    let mut problems = Vec::new();
    for (position, entry) in entries.iter().enumerate() {
        let envelope = &entry.envelope;
        if envelope.stream != end.stream {
            problems.push(format!(
                "entry {} belongs to stream {:?}, not {}",
                envelope.sequence, envelope.stream, end.stream
            ));
        } else if envelope.stream_position != position as u64 {
            problems.push(format!(
                "entry {} is at position {} of its stream, where position {position} was due \
                 (an entry is missing or repeated)",
                envelope.sequence, envelope.stream_position
            ));
        }
    }
    problems
}
