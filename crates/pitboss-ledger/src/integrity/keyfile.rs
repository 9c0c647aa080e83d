//! The directory's key files against the log: the current key is the one that signed the last
//! entry, files under `retired-keys/` are keys the log retired, and a rotation a crash
//! interrupted is finished. Owns the key files' checks; reads the log only through what the
//! examination found.

use std::collections::HashMap;
use std::path::Path;

use ed25519_dalek::VerifyingKey;

use super::super::keys::{KeyError, KeyId, Keypair, KEY_FILE, RETIRED_DIR};
use super::KeyRefusal;

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
pub(crate) fn finish_interrupted_rotation(
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
        return super::super::writer::finish_rotation(dir, old.as_ref()).map_err(|e| {
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
