//! The witness's state on disk: for each log, the latest checkpoint it cosigned (the note as the
//! log signed it, with the witness's cosignature), and the submissions it refused although the log's signature on them verified
//! (evidence of a log's misbehaviour: a rewritten history, two trees of one size).
//!
//! Layout under the data directory, each log named by the SHA-256 of its origin in hex:
//! `logs/<hash>.checkpoint`; `forks/<hash>/<size>-<root hex>.txt` (another root at a size
//! cosigned: both checkpoints signed by the log, the proof of a fork; one file per root, at most
//! [`MAX_EVIDENCE`]); `refused/<hash>/<n>.txt` (other inconsistent submissions — a proof that does
//! not verify proves nothing alone, as anyone may send a public checkpoint with a wrong proof —
//! at most [`MAX_EVIDENCE`], later ones counted). A `lock` file is held (`flock`) while a witness
//! runs: a second witness on the same directory is refused, as two would roll each other back. A checkpoint file is replaced atomically
//! (a temporary file written and synced, renamed over the old one, the directory synced): after a
//! crash it is the old state or the new one, never a mix, and the new one is on disk before the
//! witness answers. A file that does not read back is an error, never an empty state: a witness
//! that forgot a log would cosign a rewritten one.

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::checkpoint::{Checkpoint, CheckpointError};
use crate::evidence::{BEFORE, HEADER, SUBMISSION};
use crate::note::{Note, NoteError, MAX_NOTE};
use crate::refusal::Inconsistency;

/// The most forks, and the most other refused submissions, kept per log; later ones are counted.
pub const MAX_EVIDENCE: usize = 1000;

/// A failure of the state on disk.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is damaged (a witness does not forget a log): {problem}")]
    Damaged { path: PathBuf, problem: String },
    #[error("{path} is held by another witness: two on one directory would roll each other back")]
    InUse { path: PathBuf },
}

/// The latest checkpoint cosigned for one log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stored {
    /// Its contents.
    pub checkpoint: Checkpoint,
    /// The note as the log signed it, with the cosignature the witness returned for it (a
    /// state kept by an earlier release has the log's signature only).
    pub note: Note,
}

/// The state directory, held.
#[derive(Debug)]
pub struct State {
    dir: PathBuf,
    /// The `lock` file, locked (`flock`) for as long as this state is open.
    _lock: std::fs::File,
    /// Refused submissions not kept (their bound was reached).
    dropped: std::sync::atomic::AtomicU64,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StateError + '_ {
    move |source| StateError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A log's name on disk and in the monitoring API's path: the SHA-256 of its origin, in
/// lowercase hex.
pub(crate) fn origin_hash(origin: &str) -> String {
    hex::encode(Sha256::digest(origin.as_bytes()))
}

impl State {
    /// The state in `dir`, whose directories are created when missing; refused if another
    /// witness holds it.
    pub fn open(dir: &Path) -> Result<State, StateError> {
        for sub in ["logs", "forks", "refused"] {
            let path = dir.join(sub);
            std::fs::create_dir_all(&path).map_err(io(&path))?;
        }
        let path = dir.join("lock");
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io(&path))?;
        lock.try_lock().map_err(|e| match e {
            std::fs::TryLockError::WouldBlock => StateError::InUse { path: path.clone() },
            std::fs::TryLockError::Error(source) => StateError::Io {
                path: path.clone(),
                source,
            },
        })?;
        Ok(State {
            dir: dir.to_path_buf(),
            _lock: lock,
            dropped: std::sync::atomic::AtomicU64::new(0),
        })
    }

    /// Refused submissions not kept since the state was opened (their bound was reached).
    pub fn dropped(&self) -> u64 {
        self.dropped.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn checkpoint_path(&self, origin: &str) -> PathBuf {
        self.dir
            .join("logs")
            .join(format!("{}.checkpoint", origin_hash(origin)))
    }

    /// The latest checkpoint cosigned for `origin`; `None` if none ever was.
    pub fn latest(&self, origin: &str) -> Result<Option<Stored>, StateError> {
        let path = self.checkpoint_path(origin);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(&path)(e)),
        };
        let damaged = |problem: String| StateError::Damaged {
            path: path.clone(),
            problem,
        };
        if bytes.len() > MAX_NOTE {
            return Err(damaged(format!("{} bytes", bytes.len())));
        }
        let text = String::from_utf8(bytes).map_err(|_| damaged("not UTF-8".into()))?;
        let note = Note::parse(&text).map_err(|e: NoteError| damaged(e.to_string()))?;
        let checkpoint =
            Checkpoint::parse(&note.text).map_err(|e: CheckpointError| damaged(e.to_string()))?;
        if checkpoint.origin != origin {
            return Err(damaged(format!(
                "it holds {}'s checkpoint",
                checkpoint.origin
            )));
        }
        Ok(Some(Stored { checkpoint, note }))
    }

    /// Makes `note` (a checkpoint of `origin`) the latest cosigned, durably.
    pub fn replace(&self, origin: &str, note: &Note) -> Result<(), StateError> {
        let path = self.checkpoint_path(origin);
        pitboss_ledger::files::replace(&path, note.to_text().as_bytes()).map_err(io(&path))
    }

    /// Keeps a refused submission for `origin` (`checkpoint`, as received in `body`) beside the
    /// checkpoint cosigned before it: a fork under `forks/` (once per root), anything else under
    /// `refused/`. Returns whether it was kept (each at most [`MAX_EVIDENCE`] per log).
    pub fn keep_refused(
        &self,
        origin: &str,
        why: &Inconsistency,
        checkpoint: &Checkpoint,
        body: &[u8],
        before: Option<&Stored>,
    ) -> Result<bool, StateError> {
        let fork = matches!(why, Inconsistency::Fork { .. });
        let dir = self
            .dir
            .join(if fork { "forks" } else { "refused" })
            .join(origin_hash(origin));
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let kept = std::fs::read_dir(&dir)
            .map_err(io(&dir))?
            .take(MAX_EVIDENCE)
            .count();
        let path = if fork {
            dir.join(format!(
                "{}-{}.txt",
                checkpoint.size,
                hex::encode(checkpoint.root)
            ))
        } else {
            dir.join(format!("{kept:06}.txt"))
        };
        if fork && path.exists() {
            return Ok(true);
        }
        if kept >= MAX_EVIDENCE {
            self.dropped
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            return Ok(false);
        }
        let mut text = format!("{HEADER}origin {origin}\nrefused {why}\n");
        text.push_str(SUBMISSION);
        text.push_str(&String::from_utf8_lossy(body));
        if let Some(before) = before {
            text.push_str(BEFORE);
            text.push_str(&before.note.to_text());
        }
        let mut file = std::fs::File::create(&path).map_err(io(&path))?;
        file.write_all(text.as_bytes()).map_err(io(&path))?;
        file.sync_all().map_err(io(&path))?;
        Ok(true)
    }

    /// The refused submissions kept for `origin`: the forks, then the others, each in order.
    pub fn refused(&self, origin: &str) -> Result<Vec<PathBuf>, StateError> {
        let mut all = Vec::new();
        for kind in ["forks", "refused"] {
            let dir = self.dir.join(kind).join(origin_hash(origin));
            let mut paths: Vec<PathBuf> = match std::fs::read_dir(&dir) {
                Ok(entries) => entries
                    .take(MAX_EVIDENCE)
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .collect(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
                Err(e) => return Err(io(&dir)(e)),
            };
            paths.sort();
            all.extend(paths);
        }
        Ok(all)
    }
}
