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
//! Owns these decisions and their messages; reads files and the store, and writes only the anchor
//! and the format version (when opening for writing).

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ed25519_dalek::VerifyingKey;

use super::anchor::{self, AnchorError, AnchorWriter, Slots};
use super::entry::{entry_hash, Entry, Hash, GENESIS};
use super::keys::{KeyError, KeyId, Keypair, KEY_FILE, RETIRED_DIR};
use super::store::{
    anchored_format, cf, check_not_in_use, has_database, LogStore, OpenOptions, Store, StoreError,
    WalRecovery, FORMAT_VERSION, LEGACY_FORMAT_VERSION, SIGNED_FORMAT_VERSION,
};
use super::verify::{walk, PayloadCheck, Problem, Walk, WalkOptions};
use super::wal::{self, Finding};

/// One reason a data directory cannot be trusted, with what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// The database could not be opened or read.
    Store(StoreError),
    /// Key or anchor files without a database.
    NoDatabase { dir: PathBuf, found: String },
    /// A damaged write-ahead log record.
    DamagedWal {
        dir: PathBuf,
        findings: Vec<Finding>,
        rocks: String,
    },
    /// RocksDB refuses the database as damaged.
    Unopenable {
        source: StoreError,
        findings: Vec<Finding>,
    },
    /// A table file whose checksums fail.
    DamagedTable { family: String, message: String },
    /// An entry that does not verify.
    Log { problem: Problem },
    /// Entries but no format version.
    NoFormat { size: u64 },
    /// The anchor file is damaged.
    Anchor(AnchorError),
    /// No anchor beside a non-empty log of format 3 or 4.
    AnchorMissing {
        dir: PathBuf,
        path: PathBuf,
        size: u64,
    },
    /// The anchor is signed by a key the log never established.
    AnchorKey { path: PathBuf, key_id: KeyId },
    /// The anchor names another log.
    AnchorOtherLog {
        path: PathBuf,
        anchored: Hash,
        found: Hash,
    },
    /// The log is shorter than what was acknowledged.
    MissingTail {
        dir: PathBuf,
        path: PathBuf,
        log_size: u64,
        anchored_size: u64,
        head: Hash,
        findings: Vec<Finding>,
    },
    /// The acknowledged head's entry has another hash.
    Rewritten {
        path: PathBuf,
        sequence: u64,
        anchored: Hash,
        found: Hash,
    },
    /// The key files.
    Key(KeyRefusal),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Store(e) => write!(f, "{e}"),
            Refusal::NoDatabase { dir, found } => write!(
                f,
                "{} has no database, but it has {found}: refusing to start a new log beside them \
                 (restore the database from a backup; to start a new log, use an empty directory)",
                dir.display()
            ),
            Refusal::DamagedWal {
                dir,
                findings,
                rocks,
            } => write!(
                f,
                "the write-ahead log is damaged: {}; RocksDB: {rocks}. Restore the directory from a \
                 backup, or {}",
                list(findings),
                recover_hint(dir)
            ),
            Refusal::Unopenable { source, findings } => {
                write!(f, "the database cannot be opened: {source}")?;
                if !findings.is_empty() {
                    write!(f, " (write-ahead log: {})", list(findings))?;
                }
                f.write_str(". Restore the data directory from a backup")
            }
            Refusal::DamagedTable { family, message } => write!(
                f,
                "a table file is damaged (family `{family}`): {message}. Restore the data \
                 directory from a backup (then `pitboss recover` records what the backup lacks)"
            ),
            Refusal::Log { problem } => write!(
                f,
                "the log does not verify: {problem}. Restore the data directory from a backup"
            ),
            Refusal::NoFormat { size } => write!(
                f,
                "the database records no format version although its log has {size} entries (the \
                 `meta` family was damaged)"
            ),
            Refusal::Anchor(e) => write!(f, "{e}. {}", anchor_hint(e)),
            Refusal::AnchorMissing { dir, path, size } => write!(
                f,
                "the anchor {} is missing, but the log has {size} entries (formats \
                 {SIGNED_FORMAT_VERSION} and {FORMAT_VERSION} keep one beside every non-empty \
                 log: a deleted anchor is a \
                 damaged directory). Restore it from a backup, or {}",
                path.display(),
                recover_hint(dir)
            ),
            Refusal::AnchorKey { path, key_id } => write!(
                f,
                "the anchor {} is signed by key {key_id}, which this log never established (an \
                 anchor from another log?)",
                path.display()
            ),
            Refusal::AnchorOtherLog {
                path,
                anchored,
                found,
            } => write!(
                f,
                "the anchor {} names another log (origin {}), not this one (origin {})",
                path.display(),
                hex::encode(&anchored[..8]),
                hex::encode(&found[..8])
            ),
            Refusal::MissingTail {
                dir,
                path,
                log_size,
                anchored_size,
                head,
                findings,
            } => {
                let last = anchored_size.saturating_sub(1);
                write!(
                    f,
                    "the log lost its tail: the anchor {} records that entries 0..={last} were \
                     acknowledged (the last with hash {}), but the log holds {log_size} entries",
                    path.display(),
                    hex::encode(head)
                )?;
                if *log_size == 0 {
                    f.write_str(" (none)")?;
                } else {
                    write!(f, " (0..={})", log_size - 1)?;
                }
                write!(
                    f,
                    ": entries {log_size}..={last} are missing (a write-ahead log truncated or \
                     removed, or table files put back from an older copy)"
                )?;
                if !findings.is_empty() {
                    write!(f, "; write-ahead log: {}", list(findings))?;
                }
                write!(f, ". Restore the missing files, or {}", recover_hint(dir))
            }
            Refusal::Rewritten {
                path,
                sequence,
                anchored,
                found,
            } => write!(
                f,
                "the log was rewritten: the anchor {} records entry {sequence} with hash {}, but \
                 the log's entry {sequence} has hash {}. Restore the data directory from a backup",
                path.display(),
                hex::encode(anchored),
                hex::encode(found)
            ),
            Refusal::Key(e) => write!(f, "{e}"),
        }
    }
}

/// Why the key files of a non-empty log cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum KeyRefusal {
    #[error("the log has {size} entries, but its signing key {path} is missing: restore it from your backup (a new key would make every later entry unverifiable; a key is created only for an empty log)")]
    Missing { path: PathBuf, size: u64 },
    #[error("{0}: restore the log's key from your backup")]
    Unusable(KeyError),
    #[error("{path} holds key {found}, which is not this log's current signing key {current}: a key from another log (restore this log's key from your backup)")]
    Foreign {
        path: PathBuf,
        found: KeyId,
        current: KeyId,
    },
    #[error("{path} holds key {found}, which this log retired; its current signing key is {current} (a retired key put back: restore the current key from your backup; a retired key never signs again)")]
    Retired {
        path: PathBuf,
        found: KeyId,
        current: KeyId,
    },
    #[error("{path} holds key {found}, which this log never published: a key from another log (copy this log's key file)")]
    NotPublished { path: PathBuf, found: KeyId },
    #[error("{path}: {problem} (files in {RETIRED_DIR}/ are keys this log retired, named by their id: move this one away or restore it)")]
    RetiredFile { path: PathBuf, problem: String },
}

fn list(findings: &[Finding]) -> String {
    findings
        .iter()
        .map(|f| f.to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

fn recover_hint(dir: &Path) -> String {
    format!(
        "run `pitboss recover --data {} --reason TEXT` to see exactly what a repair would keep and lose (it repairs only when told to, and records what it did in the log)",
        dir.display()
    )
}

fn anchor_hint(e: &AnchorError) -> String {
    let dir = match e {
        AnchorError::Io { path, .. }
        | AnchorError::Size { path, .. }
        | AnchorError::Slot { path, .. }
        | AnchorError::Inconsistent { path, .. } => path.parent().unwrap_or(path),
    };
    format!("Restore it from a backup, or {}", recover_hint(dir))
}

/// Everything wrong with a data directory, first problem first.
#[derive(Debug)]
pub struct Refused {
    /// The directory.
    pub dir: PathBuf,
    /// What is wrong (at least one).
    pub problems: Vec<Refusal>,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let in_use = matches!(
            self.problems.first(),
            Some(Refusal::Store(StoreError::InUse { .. }))
        );
        if !in_use {
            write!(
                f,
                "the data directory {} cannot be trusted: ",
                self.dir.display()
            )?;
        }
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("; also: ")?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Refused {}

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

/// The directory's key files against the log: `current` signed its last entry, `established` are
/// the keys it established. `pending_next`: a `signing.key.next` whose rotation the log records
/// may stand in for the current key (a rotation the next start finishes).
pub fn check_keys(
    dir: &Path,
    log_size: u64,
    current: Option<KeyId>,
    established: &HashMap<KeyId, VerifyingKey>,
) -> Result<Option<Keypair>, KeyRefusal> {
    let path = dir.join(KEY_FILE);
    let key = match Keypair::read(&path) {
        Ok(key) => Some(key),
        Err(KeyError::Missing { .. }) if log_size == 0 => None,
        Err(KeyError::Missing { path }) => {
            return Err(KeyRefusal::Missing {
                path,
                size: log_size,
            })
        }
        Err(e) => return Err(KeyRefusal::Unusable(e)),
    };
    check_retired(dir, current, established)?;
    let (Some(key), Some(current)) = (key, current) else {
        return Ok(None);
    };
    if key.id() == current {
        return Ok(Some(key));
    }
    if established.get(&key.id()) == Some(&key.public()) {
        Err(KeyRefusal::Retired {
            path,
            found: key.id(),
            current,
        })
    } else {
        Err(KeyRefusal::Foreign {
            path,
            found: key.id(),
            current,
        })
    }
}

/// [`check_keys`] without changing anything (for `pitboss verify`, a recovery's plan, and the
/// read-only examination before a directory is opened for writing), judging a
/// `signing.key.next` as the start will: holding the current key (a rotation the log records), it
/// stands for the key file; holding another key of the log, it is refused; holding a key the log
/// never established, it will be removed. Returns a note to print, if any.
pub fn check_key_files(
    dir: &Path,
    log_size: u64,
    current: Option<KeyId>,
    established: &HashMap<KeyId, VerifyingKey>,
) -> Result<Option<String>, KeyRefusal> {
    let next_path = dir.join(format!("{KEY_FILE}.next"));
    let mut note = None;
    match Keypair::read(&next_path) {
        Err(KeyError::Missing { .. }) => {}
        Err(e) => {
            return Err(KeyRefusal::RetiredFile {
                path: next_path,
                problem: format!("a key left by an interrupted rotation cannot be used: {e}"),
            })
        }
        Ok(next) if Some(next.id()) == current => {
            check_retired(dir, current, established)?;
            return Ok(Some(format!(
                "{} holds the current key {}, from a rotation the log records but whose \
                 files were not finished: the next start finishes it",
                next_path.display(),
                next.id()
            )));
        }
        Ok(next) if established.contains_key(&next.id()) => {
            return Err(KeyRefusal::RetiredFile {
                path: next_path,
                problem: format!(
                    "holds key {}, which the log established but which is not its current key",
                    next.id()
                ),
            })
        }
        Ok(next) => {
            note = Some(format!(
            "{} holds key {}, from a rotation that was never written: the next start removes it",
            next_path.display(),
            next.id()
        ))
        }
    }
    check_keys(dir, log_size, current, established).map(|_| note)
}

/// Every file under `retired-keys/` is `<key id>.key`, a key the log established and retired.
fn check_retired(
    dir: &Path,
    current: Option<KeyId>,
    established: &HashMap<KeyId, VerifyingKey>,
) -> Result<(), KeyRefusal> {
    let retired = dir.join(RETIRED_DIR);
    let entries = match std::fs::read_dir(&retired) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(KeyRefusal::RetiredFile {
                path: retired,
                problem: format!("cannot be listed: {e}"),
            })
        }
    };
    for entry in entries {
        let path = match entry {
            Ok(entry) => entry.path(),
            Err(e) => {
                return Err(KeyRefusal::RetiredFile {
                    path: retired,
                    problem: format!("cannot be listed: {e}"),
                })
            }
        };
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.ends_with(".tmp") {
            continue; // an interrupted write of a retired key: its rename never happened
        }
        let bad = |problem: String| KeyRefusal::RetiredFile {
            path: path.clone(),
            problem,
        };
        let id = name
            .strip_suffix(".key")
            .and_then(|hex_id| hex::decode(hex_id).ok())
            .and_then(|bytes| KeyId::from_slice(&bytes))
            .ok_or_else(|| bad("not named <32 hex digits>.key".into()))?;
        let key = Keypair::read(&path).map_err(|e| bad(e.to_string()))?;
        if key.id() != id {
            return Err(bad(format!("holds key {}, not {id}", key.id())));
        }
        if established.get(&id) != Some(&key.public()) {
            return Err(bad(format!("key {id} is not a key of this log")));
        }
        if Some(id) == current {
            return Err(bad(format!(
                "key {id} is the log's current signing key, not a retired one"
            )));
        }
    }
    Ok(())
}

/// A `signing.key.next` left by a crash in the middle of a rotation: the key if the log records
/// the rotation to it (it signed the last entry: the rotation's files are finished), and removed if
/// the log never established it (the rotation was never written, so it never signed anything).
pub(super) fn finish_interrupted_rotation(
    dir: &Path,
    current: Option<KeyId>,
    established: &HashMap<KeyId, VerifyingKey>,
) -> Result<(), KeyRefusal> {
    let next_path = dir.join(format!("{KEY_FILE}.next"));
    let next = match Keypair::read(&next_path) {
        Ok(next) => next,
        Err(KeyError::Missing { .. }) => return Ok(()),
        Err(e) => {
            return Err(KeyRefusal::RetiredFile {
                path: next_path,
                problem: format!("a key left by an interrupted rotation cannot be used: {e}"),
            })
        }
    };
    if Some(next.id()) == current {
        let old = Keypair::load(dir).ok();
        return super::writer::finish_rotation(dir, old.as_ref()).map_err(|e| {
            KeyRefusal::RetiredFile {
                path: next_path,
                problem: format!(
                    "the rotation to it is in the log, but its files cannot be finished: {e}"
                ),
            }
        });
    }
    if established.contains_key(&next.id()) {
        return Err(KeyRefusal::RetiredFile {
            path: next_path,
            problem: format!(
                "holds key {}, which the log established but which is not its current key",
                next.id()
            ),
        });
    }
    tracing::warn!(file = %next_path.display(), key = %next.id(), "a key from a rotation that was never written: removed");
    std::fs::remove_file(&next_path).map_err(|e| {
        KeyRefusal::Unusable(KeyError::Io {
            path: next_path,
            source: e,
        })
    })
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
        check_not_in_use(dir).map_err(|e| refused(vec![Refusal::Store(e)]))?;
        let read = anchor::read_settled(&anchor_path);
        let examined = {
            let store = open_store(
                dir,
                OpenOptions {
                    write: false,
                    create: false,
                    wal: wal_recovery,
                },
            )
            .map_err(|e| refused(vec![e]))?;
            examine(&store, read, &how)
        };
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
