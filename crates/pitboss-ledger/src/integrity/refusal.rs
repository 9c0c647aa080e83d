//! Why a data directory is refused, in words an operator acts on: every reason (`Refusal`), each
//! naming what and where and what to do, a key file's (`KeyRefusal`), and all of them together
//! (`Refused`). Owns these texts; decides nothing (the examination in `mod.rs` does).

use std::fmt;
use std::path::{Path, PathBuf};

use super::super::anchor::AnchorError;
use super::super::entry::Hash;
use super::super::keys::{KeyError, KeyId, RETIRED_DIR};
use super::super::store::{StoreError, FORMAT_VERSION, SIGNED_FORMAT_VERSION};
use super::super::verify::Problem;
use super::super::wal::Finding;

/// One reason a data directory cannot be trusted, with what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// The database could not be opened or read.
    Store(StoreError),
    /// Key or anchor files without a database.
    NoDatabase { dir: PathBuf, found: String },
    /// The directory is a mirror's copy of another server's log.
    Mirror { dir: PathBuf },
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
            Refusal::Mirror { dir } => write!(
                f,
                "{} is a mirror's copy of another server's log (its MIRROR file names the log): \
                 serve it with `pitboss mirror`, which writes nothing but that log's entries",
                dir.display()
            ),
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
