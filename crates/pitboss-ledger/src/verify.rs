//! Verification: walks the log (or a range) and checks every entry's place, bytes, link, key and
//! signature; reports the first bad sequence number and what is wrong. Never panics, also not on a
//! damaged or half-written store: every read and decode failure is a reported problem.
//!
//! Trust: the log's first entry must publish the key that signs it (the anchor); a later key is
//! trusted only through a `KeyRotated` entry carrying the previous key's signature over it. A range
//! that starts after 0 takes the keys the store's `keys` family lists and the link from the entry
//! before the range.
//!
//! Signatures are checked in batches (`ed25519_dalek::verify_batch`); a failing batch is re-checked
//! one by one to name the first bad entry. An unsigned entry (format 4: one signature per group)
//! counts as verified only once the next signed entry, by the same key and fewer than
//! [`SEAL_RUN`] entries later, has checked: a range is read past its end to that seal.

use std::collections::HashMap;
use std::fmt;

use ed25519_dalek::{Signature, Verifier, VerifyingKey};

use super::entry::{entry_hash, Entry, Hash, GENESIS, SEAL_RUN};
use super::keys::{rotation_message, KeyId};
use super::store::{be_u64, KeyValue, LogStore};
use crate::proto::LedgerKind as Kind;
use crate::proto::LogRecovered;

/// What is wrong with an entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProblemKind {
    /// The entry with this sequence number is missing (the next one found is `found`).
    Gap { found: u64 },
    /// The entry stored here says it is another sequence number (entries swapped or moved).
    Misplaced { says: u64 },
    /// The stored bytes do not hash to the stored hash: they were altered.
    AlteredBytes,
    /// The entry's previous-hash is not the previous entry's hash.
    BrokenLink,
    /// The signing key is not one the log has established.
    UnknownKey(String),
    /// The signature does not verify.
    BadSignature,
    /// The entry is unsigned and no later signature seals it.
    Unsealed(Unsealed),
    /// A key published or rotated without the trust the rules require.
    UntrustedKey(String),
    /// The stored record or envelope does not decode.
    Undecodable(String),
    /// The store could not be read.
    Unreadable(String),
}

impl fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProblemKind::Gap { found } => write!(f, "missing (gap: the next entry stored is {found})"),
            ProblemKind::Misplaced { says } => write!(f, "stored out of place: the envelope says sequence {says} (entries reordered or swapped)"),
            ProblemKind::AlteredBytes => f.write_str("altered bytes: the envelope no longer hashes to its recorded hash"),
            ProblemKind::BrokenLink => f.write_str("broken link: its previous-hash is not the previous entry's hash"),
            ProblemKind::UnknownKey(id) => write!(f, "signed by an unknown key {id}"),
            ProblemKind::BadSignature => f.write_str("bad signature"),
            ProblemKind::Unsealed(why) => write!(f, "not signed, and no later signature seals it: {why}"),
            ProblemKind::UntrustedKey(why) => write!(f, "untrusted key: {why}"),
            ProblemKind::Undecodable(why) => write!(f, "does not decode: {why}"),
            ProblemKind::Unreadable(why) => write!(f, "cannot be read: {why}"),
        }
    }
}

/// Why an unsigned entry is not sealed by a later signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unsealed {
    /// The log (or what could be read of it) ends before a signed entry.
    LogEnds,
    /// The entry at this sequence is signed by another key than the unsigned run before it.
    KeyChanges { at: u64 },
    /// [`SEAL_RUN`] entries in a row are unsigned (the writer never writes such a run).
    RunTooLong,
}

impl fmt::Display for Unsealed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unsealed::LogEnds => f.write_str("the log ends before a signed entry"),
            Unsealed::KeyChanges { at } => {
                write!(
                    f,
                    "entry {at} names another key than the unsigned entries before it"
                )
            }
            Unsealed::RunTooLong => write!(f, "{SEAL_RUN} entries in a row are unsigned"),
        }
    }
}

/// The first bad entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Its sequence number.
    pub sequence: u64,
    /// What is wrong.
    pub kind: ProblemKind,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "entry {}: {}", self.sequence, self.kind)
    }
}

/// The outcome of a verification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyReport {
    /// Entries checked and found good.
    pub verified: u64,
    /// The last good entry's sequence and hash.
    pub head: Option<(u64, Hash)>,
    /// The first problem, if any (verification stops there).
    pub problem: Option<Problem>,
}

impl VerifyReport {
    /// True when every entry checked is good.
    pub fn ok(&self) -> bool {
        self.problem.is_none()
    }
}

/// An entry whose signature (or whose seal's) awaits the batch check.
struct Signed {
    sequence: u64,
    hash: Hash,
    /// `None`: sealed by the next signed entry.
    signature: Option<Signature>,
    key: VerifyingKey,
    key_id: KeyId,
    /// False below [`WalkOptions::signatures_from`].
    check_signature: bool,
    /// Past the walk's last sequence: read only for the signature sealing the range's end.
    beyond: bool,
    /// The entry records a recovery.
    recovery: Option<LogRecovered>,
}

const BATCH: usize = 1024;

/// A check that a payload of a kind the ledger does not read is well formed: given by the crate
/// that knows the payloads (the root's `pitboss.v1.Payload`), so that a walk reports a signed
/// entry whose payload does not decode, without the ledger knowing any game.
pub type PayloadCheck = fn(&[u8]) -> Result<(), prost::DecodeError>;

/// What a walk covers and gathers, besides every entry's place, bytes, link and key.
#[derive(Clone, Debug, Default)]
pub struct WalkOptions {
    /// First sequence number (keys and the link come from the entry before it).
    pub from: u64,
    /// Last sequence number, inclusive (`None`: the end of the log).
    pub to: Option<u64>,
    /// Signatures of entries below this sequence are not checked (0: all are). For opening a
    /// ledger whose signed anchor names a later head: the chain binds every entry before it.
    pub signatures_from: u64,
    /// Every payload is checked by this too (`None`: only the ledger's own kinds are read).
    pub payloads: Option<PayloadCheck>,
    /// Counts the entries walked so far, for a progress bar (`None`: nobody watches).
    pub progress: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
}

/// What a walk found.
#[derive(Clone, Debug)]
pub struct Walk {
    /// The verification's outcome.
    pub report: VerifyReport,
    /// The keys established by the log so far (by `KeyPublished` at entry 0, then rotations).
    pub keys: HashMap<KeyId, VerifyingKey>,
    /// The key that signed the last good entry.
    pub last_key: Option<KeyId>,
    /// Entry 0's hash, which names the log (a walk from 0).
    pub origin: Option<Hash>,
    /// The recoveries the log records (`LogRecovered`), with their sequence numbers.
    pub recoveries: Vec<(u64, LogRecovered)>,
}

/// Verifies entries from `from` to `to` (inclusive; `None` for the end of the log), reading only
/// the ledger's own payload kinds (`verify_with` also checks every payload).
pub fn verify(store: &dyn LogStore, from: u64, to: Option<u64>) -> VerifyReport {
    verify_with(store, from, to, None)
}

/// [`verify`], every payload also held to `payloads`.
pub fn verify_with(
    store: &dyn LogStore,
    from: u64,
    to: Option<u64>,
    payloads: Option<PayloadCheck>,
) -> VerifyReport {
    walk(
        store,
        &WalkOptions {
            from,
            to,
            payloads,
            ..WalkOptions::default()
        },
    )
    .report
}

impl Walk {
    /// Nothing walked yet.
    fn empty() -> Walk {
        Walk {
            report: VerifyReport {
                verified: 0,
                head: None,
                problem: None,
            },
            keys: HashMap::new(),
            last_key: None,
            origin: None,
            recoveries: Vec::new(),
        }
    }
}

/// Walks the log as `options` say.
pub fn walk(store: &dyn LogStore, options: &WalkOptions) -> Walk {
    walk_checking(store, options, Checking::Batched)
}

/// How signatures are checked: in batches (`ed25519_dalek::verify_batch`), or one at a time (the
/// benchmarks' reference).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Checking {
    Batched,
    OneByOne,
}

/// [`walk`], signatures checked as `checking` says.
fn walk_checking(store: &dyn LogStore, options: &WalkOptions, checking: Checking) -> Walk {
    let from = options.from;
    let mut walk = Walk::empty();
    let mut prev: Hash = GENESIS;
    if from > 0 {
        match preload(store, from) {
            Ok((k, p)) => {
                walk.keys = k;
                prev = p;
            }
            Err(kind) => {
                walk.report.problem = Some(Problem {
                    sequence: from - 1,
                    kind,
                });
                return walk;
            }
        }
    }
    let iter = match store.entries_from(from) {
        Ok(iter) => iter.map(|item| item.map_err(|e| e.to_string())),
        Err(e) => {
            walk.report.problem = Some(Problem {
                sequence: from,
                kind: ProblemKind::Unreadable(e.to_string()),
            });
            return walk;
        }
    };
    walk_items(walk, iter, prev, options, checking)
}

/// The walk over `items` (from `options.from`, after `prev`, with the keys `walk` holds).
fn walk_items(
    mut walk: Walk,
    items: impl Iterator<Item = Result<KeyValue, String>>,
    mut prev: Hash,
    options: &WalkOptions,
    checking: Checking,
) -> Walk {
    let from = options.from;
    let iter = items;
    let mut expected = from;
    let mut batch: Vec<Signed> = Vec::with_capacity(BATCH);
    let mut structural: Option<Problem> = None;
    // The unsigned entries at the batch's end, waiting for the signature that seals them.
    let mut unsealed = 0usize;
    for item in iter {
        let (key, value) = match item {
            Ok(kv) => kv,
            Err(e) => {
                structural = Some(Problem {
                    sequence: expected,
                    kind: ProblemKind::Unreadable(e),
                });
                break;
            }
        };
        let Some(sequence) = be_u64(&key).filter(|_| key.len() == 8) else {
            structural = Some(Problem {
                sequence: expected,
                kind: ProblemKind::Undecodable(format!(
                    "a stored key {} is not a sequence number",
                    hex::encode(&key)
                )),
            });
            break;
        };
        let beyond = options.to.is_some_and(|to| sequence > to);
        if beyond && unsealed == 0 {
            break;
        }
        match check(
            sequence,
            expected,
            &value,
            &prev,
            &mut walk.keys,
            options.payloads,
        ) {
            Ok(mut signed) => {
                if let Some(run_key) = batch.last().filter(|_| unsealed > 0).map(|s| s.key_id) {
                    if run_key != signed.key_id {
                        structural = Some(Problem {
                            sequence: sequence - unsealed as u64,
                            kind: ProblemKind::Unsealed(Unsealed::KeyChanges { at: sequence }),
                        });
                        break;
                    }
                }
                if signed.signature.is_some() {
                    unsealed = 0;
                } else if unsealed + 1 == SEAL_RUN {
                    structural = Some(Problem {
                        sequence: sequence - unsealed as u64,
                        kind: ProblemKind::Unsealed(Unsealed::RunTooLong),
                    });
                    break;
                } else {
                    unsealed += 1;
                }
                signed.check_signature = sequence >= options.signatures_from;
                signed.beyond = beyond;
                if sequence == 0 {
                    walk.origin = Some(signed.hash);
                }
                prev = signed.hash;
                batch.push(signed);
                expected = sequence + 1;
                if let Some(progress) = &options.progress {
                    progress.store(expected - from, std::sync::atomic::Ordering::Relaxed);
                }
            }
            Err(kind) => {
                structural = Some(Problem {
                    sequence: expected.min(sequence),
                    kind,
                });
                break;
            }
        }
        if batch.len() >= BATCH && unsealed == 0 && !settle(&mut batch, &mut walk, checking) {
            return walk;
        }
    }
    // Unsigned entries at the end that no signature sealed are not verified.
    let first_unsealed = batch.len() - unsealed;
    let unsealed_tail = batch.split_off(first_unsealed);
    if !settle(&mut batch, &mut walk, checking) {
        return walk;
    }
    walk.report.problem = structural.or_else(|| {
        unsealed_tail.first().map(|entry| Problem {
            sequence: entry.sequence,
            kind: ProblemKind::Unsealed(Unsealed::LogEnds),
        })
    });
    walk
}

/// Checks a batch's signatures and moves it into the walk's outcome; false at a bad signature
/// (recorded as the walk's problem).
fn settle(batch: &mut Vec<Signed>, walk: &mut Walk, checking: Checking) -> bool {
    if let Some(problem) = check_signatures(batch, checking) {
        walk.report.problem = Some(problem);
        return false;
    }
    let within = batch.iter().take_while(|s| !s.beyond).count();
    batch.truncate(within);
    walk.report.verified += within as u64;
    if let Some(last) = batch.last() {
        walk.report.head = Some((last.sequence, last.hash));
        walk.last_key = Some(last.key_id);
    }
    for signed in batch.iter_mut() {
        if let Some(recovery) = signed.recovery.take() {
            walk.recoveries.push((signed.sequence, recovery));
        }
    }
    batch.clear();
    true
}

/// Keys from the store and the link from the entry before `from`.
fn preload(
    store: &dyn LogStore,
    from: u64,
) -> Result<(HashMap<KeyId, VerifyingKey>, Hash), ProblemKind> {
    let mut keys = HashMap::new();
    for (id, public) in store
        .known_keys()
        .map_err(|e| ProblemKind::Unreadable(e.to_string()))?
    {
        let (Some(id), Ok(public)) = (
            KeyId::from_slice(&id),
            <[u8; 32]>::try_from(public.as_slice()),
        ) else {
            return Err(ProblemKind::Undecodable("a damaged key record".into()));
        };
        let key = VerifyingKey::from_bytes(&public)
            .map_err(|e| ProblemKind::Undecodable(e.to_string()))?;
        keys.insert(id, key);
    }
    let bytes = store
        .get(super::store::cf::EVENTS, &(from - 1).to_be_bytes())
        .map_err(|e| ProblemKind::Unreadable(e.to_string()))?
        .ok_or(ProblemKind::Gap { found: from })?;
    let entry = Entry::decode(&bytes).map_err(|e| ProblemKind::Undecodable(e.to_string()))?;
    Ok((keys, entry.hash))
}

/// Everything but the signature, which is batched.
fn check(
    sequence: u64,
    expected: u64,
    stored: &[u8],
    prev: &Hash,
    keys: &mut HashMap<KeyId, VerifyingKey>,
    payloads: Option<PayloadCheck>,
) -> Result<Signed, ProblemKind> {
    if sequence != expected {
        return Err(ProblemKind::Gap { found: sequence });
    }
    let entry = Entry::decode(stored).map_err(|e| ProblemKind::Undecodable(e.to_string()))?;
    if entry.envelope.sequence != sequence {
        return Err(ProblemKind::Misplaced {
            says: entry.envelope.sequence,
        });
    }
    let hash = entry_hash(&entry.envelope_bytes);
    if hash != entry.hash {
        return Err(ProblemKind::AlteredBytes);
    }
    if entry.envelope.prev_hash.as_slice() != prev {
        return Err(ProblemKind::BrokenLink);
    }
    let key_id = KeyId::from_slice(&entry.envelope.key_id)
        .ok_or_else(|| ProblemKind::Undecodable("a key id that is not 16 bytes".into()))?;
    if let Some(check_payload) = payloads {
        check_payload(&entry.envelope.payload)
            .map_err(|e| ProblemKind::Undecodable(e.to_string()))?;
    }
    // Key entries establish keys before their own signature is checked; each carries its own.
    let mut recovery = None;
    let payload = entry.ledger_payload().map(|p| p.kind);
    if matches!(
        payload,
        Ok(Some(Kind::KeyPublished(_) | Kind::KeyRotated(_)))
    ) && entry.signature.is_none()
    {
        return Err(ProblemKind::UntrustedKey(
            "a key entry without its own signature".into(),
        ));
    }
    match payload {
        Ok(Some(Kind::KeyPublished(k))) => {
            let public = verifying_key(&k.public_key)?;
            if KeyId::of(&public) != key_id || k.key_id != key_id.0 {
                return Err(ProblemKind::UntrustedKey(
                    "a published key that does not sign its own entry".into(),
                ));
            }
            if keys.is_empty() {
                keys.insert(key_id, public);
            } else if keys.get(&key_id) != Some(&public) {
                return Err(ProblemKind::UntrustedKey(format!(
                    "key {key_id} published without a rotation from a trusted key"
                )));
            }
        }
        Ok(Some(Kind::KeyRotated(r))) => {
            let old_id = KeyId::from_slice(&r.old_key_id)
                .ok_or_else(|| ProblemKind::Undecodable("old key id".into()))?;
            let old = *keys.get(&old_id).ok_or_else(|| {
                ProblemKind::UntrustedKey(format!("rotation from unknown key {old_id}"))
            })?;
            let next = verifying_key(&r.new_public_key)?;
            let next_id = KeyId::of(&next);
            let signature = Signature::from_slice(&r.old_key_signature).map_err(|_| {
                ProblemKind::UntrustedKey("a rotation signature that is not 64 bytes".into())
            })?;
            if next_id != key_id
                || r.new_key_id != next_id.0
                || old
                    .verify(&rotation_message(next_id, &next), &signature)
                    .is_err()
            {
                return Err(ProblemKind::UntrustedKey(format!(
                    "rotation to {next_id} not signed by {old_id}"
                )));
            }
            keys.insert(next_id, next);
        }
        Ok(Some(Kind::LogRecovered(r))) => recovery = Some(r),
        Ok(_) => {}
        Err(e) => return Err(ProblemKind::Undecodable(e.to_string())),
    }
    let key = *keys
        .get(&key_id)
        .ok_or_else(|| ProblemKind::UnknownKey(key_id.to_string()))?;
    Ok(Signed {
        sequence,
        hash,
        signature: entry.signature.as_ref().map(Signature::from_bytes),
        key,
        key_id,
        check_signature: true,
        beyond: false,
        recovery,
    })
}

fn verifying_key(bytes: &[u8]) -> Result<VerifyingKey, ProblemKind> {
    let bytes: [u8; 32] = bytes
        .try_into()
        .map_err(|_| ProblemKind::Undecodable("a public key that is not 32 bytes".into()))?;
    VerifyingKey::from_bytes(&bytes).map_err(|e| ProblemKind::Undecodable(e.to_string()))
}

/// The first entry of the batch whose signature fails, if any.
fn check_signatures(batch: &[Signed], checking: Checking) -> Option<Problem> {
    let batch: Vec<(&Signed, Signature)> = batch
        .iter()
        .filter(|s| s.check_signature)
        .filter_map(|s| Some((s, s.signature?)))
        .collect();
    if batch.is_empty() {
        return None;
    }
    let messages: Vec<&[u8]> = batch.iter().map(|(s, _)| s.hash.as_slice()).collect();
    let signatures: Vec<Signature> = batch.iter().map(|(_, signature)| *signature).collect();
    let keys: Vec<VerifyingKey> = batch.iter().map(|(s, _)| s.key).collect();
    if checking == Checking::Batched
        && ed25519_dalek::verify_batch(&messages, &signatures, &keys).is_ok()
    {
        return None;
    }
    batch
        .iter()
        .find(|(s, signature)| s.key.verify(&s.hash, signature).is_err())
        .map(|(s, _)| Problem {
            sequence: s.sequence,
            kind: ProblemKind::BadSignature,
        })
}

/// The verification of a log that grows one entry at a time (a mirror's copy, `mirror.rs`): the
/// same checks as a walk — place, bytes, link, key trust, and the signature that seals each run of
/// unsigned entries — with the run held until its seal arrives.
pub(crate) struct Growing {
    /// The next sequence number due.
    pub(crate) expected: u64,
    prev: Hash,
    keys: HashMap<KeyId, VerifyingKey>,
    /// Entries checked but for the signature that seals them (the last one's, when it comes).
    run: Vec<Signed>,
    /// `expected` and `prev` after the last seal: where [`Growing::rewind`] goes back to. (Keys
    /// change only by key entries, which carry their own signature and so end a run.)
    sealed: (u64, Hash),
    payloads: Option<PayloadCheck>,
}

impl Growing {
    /// Verifies the log `store` holds from its first entry (every signature) and continues from
    /// its end.
    pub(crate) fn resume(
        store: &dyn LogStore,
        payloads: Option<PayloadCheck>,
    ) -> Result<Growing, Problem> {
        let walk = walk(
            store,
            &WalkOptions {
                payloads,
                ..WalkOptions::default()
            },
        );
        if let Some(problem) = walk.report.problem {
            return Err(problem);
        }
        let (expected, prev) = walk
            .report
            .head
            .map_or((0, GENESIS), |(sequence, hash)| (sequence + 1, hash));
        Ok(Growing {
            expected,
            prev,
            keys: walk.keys,
            run: Vec::new(),
            sealed: (expected, prev),
            payloads,
        })
    }

    /// Forgets the entries held for their seal: the next due is the one after the last seal (a
    /// follower that reconnected offers them again).
    pub(crate) fn rewind(&mut self) {
        self.run.clear();
        (self.expected, self.prev) = self.sealed;
    }

    /// Checks the next entry. Returns how many entries are verified by it: 0 while its run awaits
    /// a signature, else its whole run (itself included), whose seal checked.
    pub(crate) fn push(&mut self, sequence: u64, stored: &[u8]) -> Result<usize, Problem> {
        let problem = |sequence, kind| Problem { sequence, kind };
        let signed = check(
            sequence,
            self.expected,
            stored,
            &self.prev,
            &mut self.keys,
            self.payloads,
        )
        .map_err(|kind| problem(self.expected.min(sequence), kind))?;
        let start = sequence - self.run.len() as u64;
        if self
            .run
            .last()
            .is_some_and(|last| last.key_id != signed.key_id)
        {
            return Err(problem(
                start,
                ProblemKind::Unsealed(Unsealed::KeyChanges { at: sequence }),
            ));
        }
        if signed.signature.is_none() && self.run.len() + 1 == SEAL_RUN {
            return Err(problem(start, ProblemKind::Unsealed(Unsealed::RunTooLong)));
        }
        self.prev = signed.hash;
        self.expected = sequence + 1;
        let seals = signed.signature.is_some();
        self.run.push(signed);
        if !seals {
            return Ok(0);
        }
        if let Some(problem) = check_signatures(&self.run, Checking::Batched) {
            return Err(problem);
        }
        let sealed = self.run.len();
        self.run.clear();
        self.sealed = (self.expected, self.prev);
        Ok(sealed)
    }
}

/// Verifies the whole log with its signatures checked one at a time (no batching), for comparison
/// in benchmarks: the same walk and rules as [`walk`]. The entries verified, or the first problem.
pub fn verify_one_by_one(store: &dyn LogStore) -> Result<u64, Problem> {
    let report = walk_checking(store, &WalkOptions::default(), Checking::OneByOne).report;
    match report.problem {
        Some(problem) => Err(problem),
        None => Ok(report.verified),
    }
}
