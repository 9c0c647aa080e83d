//! Verified copies of a whole log between the two engines (`pitboss copy`): a RocksDB data
//! directory into an empty PostgreSQL database, and a PostgreSQL log into a new data directory.
//!
//! Every copy verifies its source first with the walk of `pitboss verify` (nothing is written
//! from a log that does not verify), writes every entry and every record byte for byte (so
//! hashes, signatures, trees and proofs are the same), then verifies the target from its first
//! entry with the same walk and requires the source's head. Into PostgreSQL the copy is one
//! transaction under a table lock; into a directory it is built under `DIR.partial` and renamed
//! only when complete, with the log's key file and an anchor signed by it.
//!
//! Owns the copying; MUST NOT merge two logs (the target is empty or new) and MUST NOT copy a
//! key the log does not name as its current key.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::anchor::{self, AnchorWriter};
use super::entry::{Hash, GENESIS};
use super::keys::{Keypair, KEY_FILE};
use super::pg::{signed, PgStore, Session, PAGE};
use super::store::{
    cf, Batch, LogStore, OpenOptions, Store, StoreError, WalRecovery, FORMAT_VERSION,
};
use super::verify::{self, PayloadCheck};

/// Why a copy between engines failed.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the source log does not verify: {0}")]
    SourceBad(String),
    #[error("the target already holds a log of {entries} entries: a copy never merges two logs")]
    NotEmpty { entries: u64 },
    #[error("the copy does not verify: {0}")]
    CopyBad(String),
    #[error("the copy's head {copied:?} is not the source's {source_head:?}")]
    HeadDiffers {
        source_head: Option<(u64, String)>,
        copied: Option<(u64, String)>,
    },
    #[error("the key file {path}: {problem}")]
    Key { path: PathBuf, problem: String },
    /// The source's head row moved while it was copied (a server wrote, or a replica replayed):
    /// the copy is not put in place.
    #[error(
        "the source was written during the copy (its head row moved from {before} to {after} \
         entries): stop its servers, or pause the replica's replay (SELECT pg_wal_replay_pause()), \
         and copy again"
    )]
    SourceWritten { before: u64, after: u64 },
    #[error("cannot write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What a copy did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Copied {
    /// Entries copied (and verified in the target).
    pub entries: u64,
    /// Other records copied.
    pub records: u64,
    /// The head both logs end at: (last sequence, its hash).
    pub head: Option<(u64, Hash)>,
}

/// Copies the log of `store` (a RocksDB directory, its server stopped) into the empty database
/// `target` in one transaction; `progress` counts entries written, then entries verified.
pub fn rocks_to_postgres(
    store: &Store,
    target: &PgStore,
    payloads: Option<PayloadCheck>,
    progress: &Arc<AtomicU64>,
) -> Result<Copied, CopyError> {
    let source = verify::verify_with(store, 0, None, payloads);
    if let Some(problem) = &source.problem {
        return Err(CopyError::SourceBad(problem.to_string()));
    }
    let session = target.session()?;
    session.execute("BEGIN", Vec::new())?;
    let copied = match copy_in(&session, store, progress, source.head) {
        Ok(copied) => {
            session.execute("COMMIT", Vec::new())?;
            copied
        }
        Err(e) => {
            session.rollback();
            return Err(e);
        }
    };
    progress.store(0, Ordering::Relaxed);
    check_copy(target, payloads, progress, source.head, copied)
}

/// Copies the log in `source` into a new data directory `dir` (which must not exist, or be
/// empty), with the key file in `key_dir`, which must hold the log's current key: the directory
/// gets a copy of it and an anchor it signs, and serves as any other. `progress` counts entries
/// written, then entries verified.
pub fn postgres_to_rocks(
    source: &PgStore,
    dir: &Path,
    key_dir: &Path,
    payloads: Option<PayloadCheck>,
    progress: &Arc<AtomicU64>,
) -> Result<Copied, CopyError> {
    // The head row before the walk and after the copy: equal, nothing was written in between.
    let before = source.head_row()?;
    let walked = verify::walk(
        source,
        &verify::WalkOptions {
            payloads,
            ..verify::WalkOptions::default()
        },
    );
    if let Some(problem) = &walked.report.problem {
        return Err(CopyError::SourceBad(problem.to_string()));
    }
    let key_path = key_dir.join(KEY_FILE);
    let key = Keypair::load(key_dir).map_err(|e| CopyError::Key {
        path: key_path.clone(),
        problem: e.to_string(),
    })?;
    if walked.last_key.is_some_and(|current| current != key.id()) {
        return Err(CopyError::Key {
            path: key_path,
            problem: format!(
                "holds key {}, but the log's last entry is signed by {}: give the log's current key",
                key.id(),
                walked.last_key.map(|k| k.to_string()).unwrap_or_default()
            ),
        });
    }
    let non_empty = std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some());
    if non_empty || (dir.exists() && !dir.is_dir()) {
        return Err(CopyError::Io {
            path: dir.to_path_buf(),
            source: std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                "exists and is not an empty directory: a copy never merges two logs",
            ),
        });
    }
    let partial = dir.with_extension("partial");
    let io = |path: &Path, source: std::io::Error| CopyError::Io {
        path: path.to_path_buf(),
        source,
    };
    if partial.exists() {
        std::fs::remove_dir_all(&partial).map_err(|e| io(&partial, e))?;
    }
    let copied = {
        let store = Store::open_with(
            &partial,
            OpenOptions {
                write: true,
                create: true,
                wal: WalRecovery::Strict,
            },
        )?;
        let mut batch = Batch::default();
        let mut entries = 0u64;
        for item in source.entries_from(0)? {
            let (key, bytes) = item?;
            batch.put(cf::EVENTS, key, bytes);
            entries += 1;
            if batch.writes.len() == PAGE {
                store.write(&std::mem::take(&mut batch), false)?;
                progress.store(entries, Ordering::Relaxed);
            }
        }
        let mut records = 0u64;
        for family in cf::ALL.iter().filter(|f| **f != cf::EVENTS) {
            let mut from = Vec::new();
            loop {
                let page = source.scan(family, &[], &from, PAGE)?;
                let Some((last, _)) = page.last() else { break };
                from = last.clone();
                from.push(0);
                for (key, value) in page {
                    batch.put(family, key, value);
                    records += 1;
                }
                store.write(&std::mem::take(&mut batch), false)?;
            }
        }
        store.write(&batch, true)?;
        if store.format_version()?.is_none() {
            store.set_format_version(FORMAT_VERSION)?;
        }
        store.flush_all()?;
        progress.store(entries, Ordering::Relaxed);
        let after = source.head_row()?;
        if after != before {
            drop(store);
            let _ = std::fs::remove_dir_all(&partial);
            let size = |head: &Option<(u64, Vec<u8>)>| head.as_ref().map_or(0, |(size, _)| *size);
            return Err(CopyError::SourceWritten {
                before: size(&before),
                after: size(&after),
            });
        }
        key.write_to(&partial.join(KEY_FILE))
            .map_err(|e| CopyError::Key {
                path: partial.join(KEY_FILE),
                problem: e.to_string(),
            })?;
        let (size, head) = walked
            .report
            .head
            .map_or((0, GENESIS), |(last, hash)| (last + 1, hash));
        AnchorWriter::create(
            &anchor::path_in(&partial),
            size,
            head,
            walked.origin.unwrap_or(GENESIS),
            &key,
        )
        .map_err(|e| io(&anchor::path_in(&partial), e))?;
        Copied {
            entries,
            records,
            head: walked.report.head,
        }
    };
    if dir.exists() {
        std::fs::remove_dir(dir).map_err(|e| io(dir, e))?;
    }
    std::fs::rename(&partial, dir).map_err(|e| io(dir, e))?;
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::File::open(parent)
            .and_then(|f| f.sync_all())
            .map_err(|e| io(parent, e))?;
    }
    progress.store(0, Ordering::Relaxed);
    let target = Store::open_read_only(dir)?;
    check_copy(&target, payloads, progress, walked.report.head, copied)
}

/// The writing half of [`rocks_to_postgres`], inside its transaction.
fn copy_in(
    session: &Session,
    store: &Store,
    progress: &AtomicU64,
    head: Option<(u64, Hash)>,
) -> Result<Copied, CopyError> {
    // Another copy, or a server, waits here, then finds the log not empty.
    session.execute(
        "LOCK TABLE pitboss_entries, pitboss_head IN EXCLUSIVE MODE",
        Vec::new(),
    )?;
    let existing = session.count("SELECT count(*) FROM pitboss_entries")?;
    if existing > 0 {
        return Err(CopyError::NotEmpty { entries: existing });
    }
    session.execute("DELETE FROM pitboss_head WHERE size = 0", Vec::new())?;
    let mut batch = Batch::default();
    let (mut entries, mut records) = (0u64, 0u64);
    for item in store.entries_from(0)? {
        let (key, bytes) = item?;
        batch.put(cf::EVENTS, key, bytes);
        if batch.writes.len() == PAGE {
            let (e, r) = session.write(std::mem::take(&mut batch))?;
            (entries, records) = (entries + e, records + r);
            progress.store(entries, Ordering::Relaxed);
        }
    }
    for family in cf::ALL.iter().filter(|f| **f != cf::EVENTS) {
        for item in store.family_items(family)? {
            let (key, value) = item?;
            batch.put(family, key, value);
            if batch.writes.len() == PAGE {
                let (e, r) = session.write(std::mem::take(&mut batch))?;
                (entries, records) = (entries + e, records + r);
            }
        }
    }
    let (e, r) = session.write(batch)?;
    entries += e;
    records += r;
    progress.store(entries, Ordering::Relaxed);
    if let Some((last, hash)) = head {
        let size = signed(last.saturating_add(1))?;
        session.execute(
            "INSERT INTO pitboss_head (size, hash) VALUES ($1, $2)",
            vec![Box::new(size), Box::new(hash.to_vec())],
        )?;
    }
    Ok(Copied {
        entries,
        records,
        head,
    })
}

/// The checks every copy ends with, whatever its direction: the target verified from its first
/// entry with the same walk as `pitboss verify`, ending at the source's head with every entry.
pub(crate) fn check_copy(
    target: &dyn LogStore,
    payloads: Option<PayloadCheck>,
    progress: &Arc<AtomicU64>,
    source_head: Option<(u64, Hash)>,
    copied: Copied,
) -> Result<Copied, CopyError> {
    let report = verify::walk(
        target,
        &verify::WalkOptions {
            payloads,
            progress: Some(progress.clone()),
            ..verify::WalkOptions::default()
        },
    )
    .report;
    if let Some(problem) = &report.problem {
        return Err(CopyError::CopyBad(problem.to_string()));
    }
    let show = |head: Option<(u64, Hash)>| head.map(|(s, h)| (s, hex::encode(h)));
    if report.head != source_head || report.verified != copied.entries {
        return Err(CopyError::HeadDiffers {
            source_head: show(source_head),
            copied: show(report.head),
        });
    }
    Ok(copied)
}
