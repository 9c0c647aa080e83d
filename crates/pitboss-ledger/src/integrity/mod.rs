//! Whether a data directory can be trusted: the checks the ledger makes before it serves a
//! directory (`Ledger::open`), and that `pitboss verify` makes on one read-only. The bytes of a data
//! directory are hostile until checked; every way they can be damaged, removed, truncated or put
//! back from an older copy ends in a refusal that names what and where, never in a shorter or
//! forked log served.
//!
//! What is checked:
//!
//! - **The write-ahead log**: RocksDB refuses a record whose checksum fails (`store.rs`); the scan
//!   of `wal.rs` names the file and offset. A record cut short at the very end (a crash during a
//!   write, never acknowledged) is only noted.
//! - **Table files**: every family is read through with block checksums verified (`events` by the
//!   walk, the others by `Store::scan_checksums`); RocksDB's error names the file and offset.
//! - **The chain**: every entry's place, bytes and link, and the keys it establishes
//!   (`verify.rs`). Signatures are checked for every entry the anchor does not cover: the anchor
//!   is signed by a key the log established and names the head's hash, and the chain binds every
//!   entry before the head to it, so no entry below it can change unseen.
//! - **The anchor** (`anchor.rs`): present (a directory of format 3 or 4 with entries and no anchor
//!   is damaged), both slots intact, signed by a key the log established, naming this log; the log
//!   holds at least the entries it acknowledged, and the entry at its head has its hash (otherwise
//!   the log lost its tail, or was rewritten). A log longer than its anchor holds entries written
//!   but never acknowledged (a crash before the anchor was written): they are checked, signatures
//!   included, and kept.
//! - **Keys**: for a log with entries, `signing.key` must be the key that signed the last entry;
//!   a missing, unreadable, malformed, exposed (group or other permissions), foreign or retired
//!   key is refused with the reason. Files under `retired-keys/` must be keys the log retired.
//!   A key is created only for an empty log.
//! - **Upgrades**: a directory of format 2 (no anchor) is verified in full, signatures included,
//!   then anchored and marked format 4; one of format 3 (every entry signed) is valid format 4 as it
//!   is, and marked 4.
//!
//! Owns these decisions; reads files and the store, and writes only the anchor and the format
//! version (when opening for writing). The refusals' words are `refusal.rs`; the key files'
//! checks, `keyfile.rs`; the examination and the opening for writing, this file.

mod keyfile;
mod refusal;

pub(super) use keyfile::finish_interrupted_rotation;
pub use keyfile::{check_key_files, check_keys};
pub use refusal::{KeyRefusal, Refusal, Refused};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use ed25519_dalek::VerifyingKey;

use super::anchor::{self, AnchorError, AnchorWriter, Slots};
use super::entry::{entry_hash, Entry, Hash, GENESIS};
use super::keys::{KeyId, Keypair, KEY_FILE, RETIRED_DIR};
use super::store::{
    anchored_format, cf, check_not_in_use, has_database, LogStore, OpenOptions, Store, StoreError,
    WalRecovery, FORMAT_VERSION, LEGACY_FORMAT_VERSION,
};
use super::verify::{walk, PayloadCheck, Walk, WalkOptions};
use super::wal::{self, Finding};

/// The anchor as found.
#[derive(Debug)]
pub enum AnchorState {
    /// There is no anchor file.
    Missing,
    /// It cannot be read or does not check.
    Damaged,
    /// Both slots check (the newer is the acknowledged head).
    Read(Box<Slots>),
}

/// What examining a directory found.
#[derive(Debug)]
pub struct Examined {
    /// The format recorded in the database.
    pub format: Option<u32>,
    /// The walk over the log.
    pub walk: Walk,
    /// Entries the log holds: its last entry's sequence + 1.
    pub log_size: u64,
    /// The anchor.
    pub anchor: AnchorState,
    /// What cannot be trusted.
    pub problems: Vec<Refusal>,
    /// What is worth saying but not wrong.
    pub notes: Vec<String>,
}

/// How to examine.
#[derive(Clone, Debug, Default)]
pub struct Examine {
    /// The walk's range (`from` 0 and `to` none: the whole log).
    pub from: u64,
    pub to: Option<u64>,
    /// Check every signature, also those the anchor covers.
    pub all_signatures: bool,
    /// For a recovery: accept damage in the write-ahead log (point-in-time recovery read around
    /// it), a log shorter than its anchor, and a missing or damaged anchor, as notes.
    pub recovering: bool,
    /// Every payload is checked by this too (`None`: only the ledger's own kinds are read).
    pub payloads: Option<super::verify::PayloadCheck>,
    /// Counts the entries walked so far, for a progress bar (`None`: nobody watches).
    pub progress: Option<Arc<std::sync::atomic::AtomicU64>>,
}

/// Reads a directory's write-ahead log files for damage.
pub fn scan_wal(dir: &Path) -> Vec<Finding> {
    wal::scan(dir).unwrap_or_else(|e| {
        vec![Finding {
            file: dir.to_path_buf(),
            offset: 0,
            problem: format!("the directory cannot be listed: {e}"),
            cut_short: false,
        }]
    })
}

/// Opens the database as `how` says; when RocksDB refuses it as damaged, reads the write-ahead
/// log files to name the file and offset.
pub fn open_store(dir: &Path, how: OpenOptions) -> Result<Store, Refusal> {
    if !(has_database(dir) || how.write && how.create) {
        return Err(Refusal::Store(StoreError::NoDatabase {
            path: dir.to_path_buf(),
        }));
    }
    Store::open_with(dir, how).map_err(|e| {
        if !e.is_corruption() {
            return Refusal::Store(e);
        }
        let findings = scan_wal(dir);
        let damage: Vec<Finding> = findings.iter().filter(|f| !f.cut_short).cloned().collect();
        match e {
            StoreError::Rocks { source, .. } if !damage.is_empty() => Refusal::DamagedWal {
                dir: dir.to_path_buf(),
                findings: damage,
                rocks: source.into_string(),
            },
            e => Refusal::Unopenable {
                source: e,
                findings,
            },
        }
    })
}

/// Examines an open store against its anchor (read before the store was opened, when others may
/// be writing).
pub fn examine(
    store: &Store,
    anchor: Result<Option<Slots>, AnchorError>,
    how: &Examine,
) -> Examined {
    let dir = store.path().to_path_buf();
    let anchor_path = anchor::path_in(&dir);
    let mut problems = Vec::new();
    let mut notes = Vec::new();
    let format = match store.format_version() {
        Ok(v) => v,
        Err(e) => {
            problems.push(Refusal::Store(e));
            None
        }
    };
    let log_size = match store.last_entry() {
        Ok(last) => last.map_or(0, |(seq, _)| seq.saturating_add(1)),
        Err(e) => {
            problems.push(Refusal::DamagedTable {
                family: cf::EVENTS.into(),
                message: e.to_string(),
            });
            0
        }
    };
    let anchor = match anchor {
        Ok(None) => AnchorState::Missing,
        Ok(Some(slots)) => AnchorState::Read(Box::new(slots)),
        Err(e) => {
            if !how.recovering {
                problems.push(Refusal::Anchor(e));
            } else {
                notes.push(format!("{e}"));
            }
            AnchorState::Damaged
        }
    };
    // Signatures below the anchored head are bound by the chain to the anchor's signature.
    let signatures_from = match (&anchor, how.all_signatures || how.recovering) {
        (AnchorState::Read(slots), false) if anchored_format(format) => {
            slots.newer.size.min(log_size)
        }
        _ => 0,
    };
    // The walk over `events` and, for the whole log, the checksum scan of every other family, on
    // two threads: each reads its own table files.
    let whole = how.from == 0 && how.to.is_none();
    let (walk, scanned) = std::thread::scope(|scope| {
        let scan = scope.spawn(|| {
            let mut damaged = Vec::new();
            if whole {
                for family in cf::ALL.iter().filter(|f| **f != cf::EVENTS) {
                    if let Err(e) = store.scan_checksums(family) {
                        damaged.push(Refusal::DamagedTable {
                            family: family.to_string(),
                            message: e.to_string(),
                        });
                    }
                }
            }
            damaged
        });
        let walk = walk(
            store,
            &WalkOptions {
                from: how.from,
                to: how.to,
                signatures_from,
                payloads: how.payloads,
                progress: how.progress.clone(),
            },
        );
        let scanned = scan.join().unwrap_or_else(|_| {
            vec![Refusal::DamagedTable {
                family: "(all)".into(),
                message: "the checksum scan stopped unexpectedly".into(),
            }]
        });
        (walk, scanned)
    });
    if let Some(problem) = &walk.report.problem {
        match &problem.kind {
            super::verify::ProblemKind::Unreadable(message) => {
                problems.push(Refusal::DamagedTable {
                    family: cf::EVENTS.into(),
                    message: format!("entry {}: {message}", problem.sequence),
                })
            }
            _ => problems.push(Refusal::Log {
                problem: problem.clone(),
            }),
        }
    }
    problems.extend(scanned);
    match (&anchor, format) {
        (AnchorState::Missing, _) if log_size == 0 => {}
        (AnchorState::Missing, Some(LEGACY_FORMAT_VERSION)) => {}
        (AnchorState::Missing, None) => problems.push(Refusal::NoFormat { size: log_size }),
        (AnchorState::Missing, _) => {
            if how.recovering {
                notes.push(format!("the anchor {} is missing", anchor_path.display()));
            } else {
                problems.push(Refusal::AnchorMissing {
                    dir: dir.clone(),
                    path: anchor_path.clone(),
                    size: log_size,
                });
            }
        }
        (AnchorState::Damaged, _) => {}
        (AnchorState::Read(slots), _) => {
            let keys = if how.from == 0 {
                Ok(walk.keys.clone())
            } else {
                stored_keys(store)
            };
            match keys {
                Ok(keys) => compare_anchor(
                    store,
                    &dir,
                    slots,
                    log_size,
                    &keys,
                    how.recovering,
                    &mut problems,
                    &mut notes,
                ),
                Err(e) => problems.push(Refusal::Store(e)),
            }
        }
    }
    Examined {
        format,
        walk,
        log_size,
        anchor,
        problems,
        notes,
    }
}

/// The keys the `keys` family lists (for a walk that does not start at 0).
fn stored_keys(store: &Store) -> Result<HashMap<KeyId, VerifyingKey>, StoreError> {
    let mut keys = HashMap::new();
    for (id, public) in store.known_keys()? {
        let key = <[u8; 32]>::try_from(public.as_slice())
            .ok()
            .and_then(|b| VerifyingKey::from_bytes(&b).ok());
        if let (Some(id), Some(key)) = (KeyId::from_slice(&id), key) {
            keys.insert(id, key);
        }
    }
    Ok(keys)
}

/// The hash of entry `sequence`, recomputed from its stored bytes.
fn hash_at(store: &Store, sequence: u64) -> Result<Option<Hash>, String> {
    match store.get(cf::EVENTS, &sequence.to_be_bytes()) {
        Err(e) => Err(e.to_string()),
        Ok(None) => Ok(None),
        Ok(Some(bytes)) => Entry::decode(&bytes)
            .map(|e| Some(entry_hash(&e.envelope_bytes)))
            .map_err(|e| e.to_string()),
    }
}

#[allow(clippy::too_many_arguments)]
fn compare_anchor(
    store: &Store,
    dir: &Path,
    slots: &Slots,
    log_size: u64,
    keys: &HashMap<KeyId, VerifyingKey>,
    accept: bool,
    problems: &mut Vec<Refusal>,
    notes: &mut Vec<String>,
) {
    let path = anchor::path_in(dir);
    let anchored = &slots.newer;
    if anchored.size == 0 {
        return;
    }
    if log_size > 0 {
        match hash_at(store, 0) {
            Ok(Some(origin)) if origin != anchored.origin => {
                problems.push(Refusal::AnchorOtherLog {
                    path: path.clone(),
                    anchored: anchored.origin,
                    found: origin,
                });
                return;
            }
            Ok(_) => {}
            Err(message) => {
                problems.push(Refusal::DamagedTable {
                    family: cf::EVENTS.into(),
                    message: format!("entry 0: {message}"),
                });
                return;
            }
        }
    }
    // A shorter log is a lost tail first of all (the key that signed the anchor may have been
    // established in the part that is missing).
    if log_size < anchored.size {
        let refusal = Refusal::MissingTail {
            dir: dir.to_path_buf(),
            path,
            log_size,
            anchored_size: anchored.size,
            head: anchored.head,
            // Where the write-ahead log ends or breaks, if it says.
            findings: scan_wal(dir),
        };
        if accept {
            notes.push(refusal.to_string());
        } else {
            problems.push(refusal);
        }
        return;
    }
    for slot in [&slots.newer, &slots.older] {
        if slot.size > 0 && keys.get(&slot.key_id) != Some(&slot.public) {
            problems.push(Refusal::AnchorKey {
                path: path.clone(),
                key_id: slot.key_id,
            });
            return;
        }
    }
    let sequence = anchored.size - 1;
    match hash_at(store, sequence) {
        Ok(Some(found)) if found == anchored.head => {
            if log_size > anchored.size {
                notes.push(format!(
                    "entries {}..={} are beyond the head the anchor records (entry {sequence}): \
                     written but never acknowledged when the server stopped in the middle of a \
                     write (or the anchor is older than the log): checked, signatures included, \
                     and kept",
                    anchored.size,
                    log_size - 1
                ));
            }
        }
        Ok(Some(found)) => problems.push(Refusal::Rewritten {
            path,
            sequence,
            anchored: anchored.head,
            found,
        }),
        Ok(None) => {} // a gap: the walk names it
        Err(message) => problems.push(Refusal::DamagedTable {
            family: cf::EVENTS.into(),
            message: format!("entry {sequence}: {message}"),
        }),
    }
}

/// What differs between the directory examined and the store opened for writing, if anything.
fn changed_since(store: &Store, anchor_path: &Path, examined: &Examined) -> Option<String> {
    let head = match store.last_entry() {
        Err(e) => return Some(e.to_string()),
        Ok(None) => None,
        Ok(Some((sequence, bytes))) => match Entry::decode(&bytes) {
            Ok(entry) => Some((sequence, entry_hash(&entry.envelope_bytes))),
            Err(e) => return Some(format!("entry {sequence}: {e}")),
        },
    };
    if head != examined.walk.report.head {
        return Some("its last entry".into());
    }
    let same_anchor = match (anchor::read(anchor_path), &examined.anchor) {
        (Ok(None), AnchorState::Missing) | (Err(_), AnchorState::Damaged) => true,
        (Ok(Some(now)), AnchorState::Read(then)) => now == **then,
        _ => false,
    };
    (!same_anchor).then(|| "its anchor".into())
}

/// A directory checked and ready for the writer.
pub(super) struct Opened {
    pub store: Arc<Store>,
    pub key: Keypair,
    pub next_sequence: u64,
    pub last_hash: Hash,
    pub origin: Option<Hash>,
    pub anchor: AnchorWriter,
    /// The size the anchor records (the log's size: a tail beyond it is anchored at open).
    pub anchored: u64,
    /// The key is not in the log yet (an empty log): publish it first.
    pub publish_key: bool,
    /// What was noted (logged by the caller).
    pub notes: Vec<String>,
}

/// Opens a data directory only to read, after the checks [`open_for_writing`] makes of an
/// existing directory that do not write (the store, its tables, the chain and its signatures,
/// the anchor): for a server that serves the log and writes nothing. Nothing is created,
/// repaired or finished; a directory another process has open is refused (its server serves
/// it). Returns the store and the log's size.
pub(super) fn open_for_reading(
    dir: &Path,
    payloads: Option<PayloadCheck>,
) -> Result<(Store, u64), Refused> {
    not_a_mirror(dir)?;
    let how = Examine {
        payloads,
        ..Examine::default()
    };
    let (store, examined) = examined_read_only(dir, WalRecovery::Strict, &how)?;
    if !examined.problems.is_empty() {
        return Err(Refused {
            dir: dir.to_path_buf(),
            problems: examined.problems,
        });
    }
    Ok((store, examined.log_size))
}

/// A mirror's copy is opened as a mirror only (`Ledger::open_mirror`).
fn not_a_mirror(dir: &Path) -> Result<(), Refused> {
    if dir.join(crate::mirror::MIRROR_FILE).exists() {
        return Err(Refused {
            dir: dir.to_path_buf(),
            problems: vec![Refusal::Mirror {
                dir: dir.to_path_buf(),
            }],
        });
    }
    Ok(())
}

/// An existing directory examined as `how` says on its store opened read-only, once no other
/// process has it open (its anchor read first: others may be writing). The problems found are in
/// the examination; the refusal is for a store that cannot be opened at all.
fn examined_read_only(
    dir: &Path,
    wal: WalRecovery,
    how: &Examine,
) -> Result<(Store, Examined), Refused> {
    let refused = |problems: Vec<Refusal>| Refused {
        dir: dir.to_path_buf(),
        problems,
    };
    check_not_in_use(dir).map_err(|e| refused(vec![Refusal::Store(e)]))?;
    let read = anchor::read_settled(&anchor::path_in(dir));
    let store = open_store(
        dir,
        OpenOptions {
            write: false,
            create: false,
            wal,
        },
    )
    .map_err(|e| refused(vec![e]))?;
    let examined = examine(&store, read, how);
    Ok((store, examined))
}

/// Opens a data directory for writing after every check of the module comment; creates the
/// database, the key and the anchor only for an empty log. `wal`: `PointInTime` and
/// `recovering` for `pitboss recover` only.
pub(super) fn open_for_writing(
    dir: &Path,
    wal_recovery: WalRecovery,
    recovering: bool,
    payloads: Option<PayloadCheck>,
) -> Result<Opened, Refused> {
    let refused = |problems: Vec<Refusal>| Refused {
        dir: dir.to_path_buf(),
        problems,
    };
    not_a_mirror(dir)?;
    let fresh_directory = !has_database(dir);
    if fresh_directory {
        let mut found = Vec::new();
        for name in [anchor::ANCHOR_FILE, KEY_FILE, RETIRED_DIR] {
            if dir.join(name).exists() {
                found.push(format!("`{name}`"));
            }
        }
        if !found.is_empty() {
            return Err(refused(vec![Refusal::NoDatabase {
                dir: dir.to_path_buf(),
                found: found.join(" and "),
            }]));
        }
    }
    let anchor_path = anchor::path_in(dir);
    let how = Examine {
        recovering,
        payloads,
        ..Examine::default()
    };
    let writable = |create: bool| {
        open_store(
            dir,
            OpenOptions {
                write: true,
                create,
                wal: wal_recovery,
            },
        )
        .map_err(|e| refused(vec![e]))
    };
    let (store, mut examined) = if fresh_directory {
        let store = writable(true)?;
        let examined = examine(&store, anchor::read(&anchor_path), &how);
        if !examined.problems.is_empty() {
            return Err(refused(examined.problems));
        }
        (store, examined)
    } else {
        // Examined read-only first: a directory that is refused is left as it was found.
        let (read_only, examined) = examined_read_only(dir, wal_recovery, &how)?;
        drop(read_only);
        let mut problems = examined.problems;
        if problems.is_empty() && examined.log_size > 0 {
            if let Err(e) = check_key_files(
                dir,
                examined.log_size,
                examined.walk.last_key,
                &examined.walk.keys,
            ) {
                problems.push(Refusal::Key(e));
            }
        }
        if !problems.is_empty() {
            return Err(refused(problems));
        }
        let examined = Examined {
            problems,
            ..examined
        };
        // Then for writing, under RocksDB's lock: it must be the directory just examined.
        let store = writable(false)?;
        if let Some(changed) = changed_since(&store, &anchor_path, &examined) {
            return Err(refused(vec![Refusal::Store(StoreError::Format {
                path: dir.to_path_buf(),
                found: format!(
                    "it changed while it was being opened ({changed}): is another process \
                     writing it?"
                ),
            })]));
        }
        (store, examined)
    };
    let log_size = examined.log_size;
    let established = examined.walk.keys.clone();
    if log_size > 0 {
        finish_interrupted_rotation(dir, examined.walk.last_key, &established)
            .map_err(|e| refused(vec![Refusal::Key(e)]))?;
    }
    let key = check_keys(dir, log_size, examined.walk.last_key, &established)
        .map_err(|e| refused(vec![Refusal::Key(e)]))?;
    let store = Arc::new(store);
    let head = examined.walk.report.head;
    let (next_sequence, last_hash) = head.map_or((0, GENESIS), |(seq, hash)| (seq + 1, hash));
    let origin = examined.walk.origin;
    let io = |what: &str, e: std::io::Error| {
        refused(vec![Refusal::Anchor(AnchorError::Io {
            path: anchor_path.clone(),
            source: std::io::Error::new(e.kind(), format!("{what}: {e}")),
        })])
    };
    let (key, publish_key) = match key {
        Some(key) => (key, false),
        None => {
            // An empty log: its key is created here if there is none.
            let (key, _) = Keypair::load_or_create(dir)
                .map_err(|e| refused(vec![Refusal::Key(KeyRefusal::Unusable(e))]))?;
            (key, true)
        }
    };
    let mut notes = std::mem::take(&mut examined.notes);
    let (anchor, anchored) = match &examined.anchor {
        AnchorState::Read(slots) if slots.newer.size == next_sequence => (
            AnchorWriter::open(&anchor_path, slots.newer.counter).map_err(|e| io("open", e))?,
            next_sequence,
        ),
        AnchorState::Read(slots) if slots.newer.size < next_sequence => {
            // Entries beyond the anchor were checked: anchor them before serving anything.
            let mut writer =
                AnchorWriter::open(&anchor_path, slots.newer.counter).map_err(|e| io("open", e))?;
            writer
                .write(next_sequence, last_hash, origin.unwrap_or(GENESIS), &key)
                .map_err(|e| io("write", e))?;
            (writer, next_sequence)
        }
        _ if recovering => {
            // A recovery: the anchor is missing, damaged or beyond the log. It is replaced only
            // once the record of the recovery is durable in the log, by the first write.
            (AnchorWriter::replacing(&anchor_path), 0)
        }
        _ => {
            // No anchor: an empty log, or an upgrade. Anchor the log as it is.
            if matches!(examined.anchor, AnchorState::Missing)
                && examined.format == Some(LEGACY_FORMAT_VERSION)
            {
                notes.push(format!(
                    "upgraded from format {LEGACY_FORMAT_VERSION}: {} entries verified, signatures included; anchored at entry {}",
                    log_size,
                    log_size.saturating_sub(1)
                ));
            }
            let writer = AnchorWriter::create(
                &anchor_path,
                next_sequence,
                last_hash,
                origin.unwrap_or(GENESIS),
                &key,
            )
            .map_err(|e| io("create", e))?;
            (writer, next_sequence)
        }
    };
    if examined.format != Some(FORMAT_VERSION) {
        store
            .set_format_version(FORMAT_VERSION)
            .map_err(|e| refused(vec![Refusal::Store(e)]))?;
    }
    Ok(Opened {
        store,
        key,
        next_sequence,
        last_hash,
        origin,
        anchor,
        anchored,
        publish_key,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn messages_name_what_where_and_the_way_out() {
        let dir = PathBuf::from("/data/pitboss");
        let tail = Refusal::MissingTail {
            dir: dir.clone(),
            path: dir.join("anchor"),
            log_size: 91,
            anchored_size: 273,
            head: [0xab; 32],
            findings: vec![Finding {
                file: dir.join("000004.log"),
                offset: 26061,
                problem: "checksum mismatch".into(),
                cut_short: false,
            }],
        };
        let text = tail.to_string();
        for needle in [
            "/data/pitboss/anchor",
            "0..=272",
            "91..=272",
            "000004.log at offset 26061",
            "pitboss recover --data /data/pitboss",
        ] {
            assert!(text.contains(needle), "{needle} not in {text}");
        }
        let empty = Refusal::MissingTail {
            dir: dir.clone(),
            path: dir.join("anchor"),
            log_size: 0,
            anchored_size: 5,
            head: [1; 32],
            findings: Vec::new(),
        }
        .to_string();
        assert!(
            empty.contains("holds 0 entries (none): entries 0..=4 are missing"),
            "{empty}"
        );
    }
}
