//! The log as C2SP `tlog-tiles` in a directory: `checkpoint`, the hash tiles `tile/<L>/<N>[.p/<W>]`,
//! the entry bundles `tile/entries/<N>[.p/<W>]` and, beside them, the stored entries
//! `tile/records/<N>[.p/<W>]` — files any storage keeps and any HTTP server serves, read with
//! standard tools and no pitboss (docs/tiles.md).
//!
//! This log's leaves are `SHA-256(0x00 ‖ entry hash)` (`merkle.rs`), so a tlog-tiles *entry* here
//! is the entry's 32-byte hash: entry bundles hash to the level-0 tiles exactly as the spec says,
//! and every existing checkpoint and proof stays valid. The entries themselves are the records
//! bundles: each stored entry (`pitboss.v1.StoredEntry`: envelope, hash, signature) with the same
//! big-endian `u16` length prefix, so each must fit 65 535 bytes ([`MAX_RECORD`]; the writer
//! refuses a longer entry before it is written).
//!
//! [`TileDir::publish`] is incremental: it writes what a new checkpoint adds, from the size of the
//! checkpoint the directory holds. It MUST NOT rewrite a full tile (one that exists with other
//! bytes is an error: the log changed), MUST NOT publish a checkpoint before every tile it needs is
//! durable, and MUST NOT publish one whose root the tiles do not give (the files this run created
//! are removed again). It checks what it is given — each record decodes, hashes to its stored
//! hash, and chains to the one before — but holds no key: the checkpoint's signatures are the
//! caller's to check. One writer per directory (a lock file).

pub mod path;
mod tree;

use std::collections::{BTreeSet, HashMap};
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use super::checkpoint::{Checkpoint, CheckpointError};
use super::entry::{entry_hash, Entry, Hash};
use super::merkle::leaf_hash;
use path::{Kind, TilePath, WIDTH};

/// The longest stored entry a records bundle frames (its length prefix is a `u16`).
pub const MAX_RECORD: usize = u16::MAX as usize;

/// The longest checkpoint file read back (a note with many cosignatures is a few KiB).
const MAX_CHECKPOINT: u64 = 64 * 1024;

/// The checkpoint's file name.
pub const CHECKPOINT: &str = "checkpoint";

/// The lock held by the directory's one writer.
const LOCK: &str = ".lock";

/// Why tiles were not published.
#[derive(Debug, thiserror::Error)]
pub enum TilesError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}: another writer holds this tile directory")]
    Busy(PathBuf),
    #[error("the tile directory's checkpoint is not one: {0}")]
    HeldCheckpoint(CheckpointError),
    #[error("the checkpoint given is not one: {0}")]
    Checkpoint(CheckpointError),
    #[error("the directory holds the tiles of log {held}, not of {given}")]
    OtherLog { held: String, given: String },
    #[error("the directory holds {held} entries; a checkpoint of {given} would shrink it")]
    Shrinks { held: u64, given: u64 },
    #[error("the directory's checkpoint of {size} entries has root {held}, the given one {given}: two trees of one size")]
    Fork {
        size: u64,
        held: String,
        given: String,
    },
    #[error("entry {sequence}: {problem}")]
    Entry { sequence: u64, problem: String },
    #[error("entry {sequence} is {bytes} bytes stored; a bundle frames at most {MAX_RECORD}")]
    TooLarge { sequence: u64, bytes: usize },
    #[error("{path} holds other bytes than the log gives: a full tile is never rewritten")]
    Rewritten { path: String },
    #[error("{path} is missing or not {want} bytes")]
    Missing { path: String, want: u64 },
    #[error("the tiles give root {tiles} for {size} entries, the checkpoint {checkpoint}: nothing was published")]
    Root {
        size: u64,
        tiles: String,
        checkpoint: String,
    },
    #[error("reading the log: {0}")]
    Source(String),
}

/// What one [`TileDir::publish`] wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Published {
    /// The size the directory held before.
    pub from: u64,
    /// The size it holds now.
    pub size: u64,
    /// Files written (tiles, bundles and the checkpoint).
    pub files: u64,
    /// Their bytes.
    pub bytes: u64,
}

/// A directory of tiles, held by this writer while it lives.
pub struct TileDir {
    root: PathBuf,
    _lock: File,
}

impl TileDir {
    /// Opens (creating it if need be) `root`, and takes its lock.
    pub fn open(root: &Path) -> Result<TileDir, TilesError> {
        std::fs::create_dir_all(root).map_err(io(root))?;
        let lock_path = root.join(LOCK);
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io(&lock_path))?;
        lock.try_lock()
            .map_err(|_| TilesError::Busy(root.to_path_buf()))?;
        Ok(TileDir {
            root: root.to_path_buf(),
            _lock: lock,
        })
    }

    /// Where the tiles are.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The checkpoint the directory publishes, if any (read as a hostile file: bounded, parsed).
    pub fn checkpoint(&self) -> Result<Option<(String, Checkpoint)>, TilesError> {
        let path = self.root.join(CHECKPOINT);
        let file = match File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(&path)(e)),
        };
        let mut note = String::new();
        file.take(MAX_CHECKPOINT + 1)
            .read_to_string(&mut note)
            .map_err(io(&path))?;
        if note.len() as u64 > MAX_CHECKPOINT {
            return Err(TilesError::HeldCheckpoint(CheckpointError::Malformed(
                "longer than 64 KiB".into(),
            )));
        }
        let checkpoint = Checkpoint::parse(&note).map_err(TilesError::HeldCheckpoint)?;
        Ok(Some((note, checkpoint)))
    }

    /// Publishes the tree of the checkpoint `note` (signed by the log, maybe cosigned): writes the
    /// tiles and bundles it adds to the directory's, checks that they give its root, then
    /// replaces the checkpoint. `read(from, count)` answers the stored entries `from .. from +
    /// count`, in order (some entries before the held size are read again: those of the last
    /// partial tile).
    pub fn publish<F>(&self, note: &str, mut read: F) -> Result<Published, TilesError>
    where
        F: FnMut(u64, u64) -> Result<Vec<(u64, Vec<u8>)>, String>,
    {
        if note.len() as u64 > MAX_CHECKPOINT {
            return Err(TilesError::Checkpoint(CheckpointError::Malformed(
                "longer than 64 KiB".into(),
            )));
        }
        let given = Checkpoint::parse(note).map_err(TilesError::Checkpoint)?;
        let held = self.checkpoint()?;
        let from = match &held {
            None => 0,
            Some((_, held)) if held.origin != given.origin => {
                return Err(TilesError::OtherLog {
                    held: held.origin.clone(),
                    given: given.origin,
                })
            }
            Some((_, held)) if given.size < held.size => {
                return Err(TilesError::Shrinks {
                    held: held.size,
                    given: given.size,
                })
            }
            Some((_, held)) if given.size == held.size && given.root != held.root => {
                return Err(TilesError::Fork {
                    size: held.size,
                    held: hex::encode(held.root),
                    given: hex::encode(given.root),
                })
            }
            Some((held_note, held)) if given.size == held.size => {
                // The same tree: only a note with other (more) cosignatures is worth writing.
                let mut published = Published {
                    from: held.size,
                    size: held.size,
                    ..Published::default()
                };
                if held_note != note {
                    let mut run = Run::new(&self.root);
                    run.replace_checkpoint(note)?;
                    published.files = 1;
                    published.bytes = note.len() as u64;
                }
                return Ok(published);
            }
            Some((_, held)) => held.size,
        };
        let held_root = held.map(|(_, held)| held.root);
        let mut run = Run::new(&self.root);
        let written = run
            .tiles(from, held_root, &given, &mut read)
            .and_then(|()| run.replace_checkpoint(note));
        match written {
            Ok(()) => Ok(Published {
                from,
                size: given.size,
                files: run.files,
                bytes: run.bytes,
            }),
            Err(e) => {
                run.undo();
                Err(e)
            }
        }
    }
}

/// One publication's writes: what it created (removed again if it fails) and the directories to
/// sync before the checkpoint names the new tiles.
struct Run<'a> {
    root: &'a Path,
    created: Vec<PathBuf>,
    /// Partial tiles' directories whose full tile this run wrote: removed after the checkpoint.
    stale: Vec<PathBuf>,
    directories: BTreeSet<PathBuf>,
    files: u64,
    bytes: u64,
}

impl<'a> Run<'a> {
    fn new(root: &'a Path) -> Run<'a> {
        Run {
            root,
            created: Vec::new(),
            stale: Vec::new(),
            directories: BTreeSet::new(),
            files: 0,
            bytes: 0,
        }
    }

    /// Writes every tile from size `from` (whose root is `held`) to the checkpoint's, and checks
    /// that the new tiles give the checkpoint's root, and the held root at the held size (a log
    /// that changed an entry of the held tree's last partial tile is refused, not published).
    fn tiles<F>(
        &mut self,
        from: u64,
        held: Option<Hash>,
        given: &Checkpoint,
        read: &mut F,
    ) -> Result<(), TilesError>
    where
        F: FnMut(u64, u64) -> Result<Vec<(u64, Vec<u8>)>, String>,
    {
        let size = given.size;
        if size == 0 {
            return Ok(());
        }
        self.leaves(from, size, read)?;
        for level in 1..=63u8 {
            let count = tree::hashes_at(level, size);
            if count == 0 {
                break;
            }
            let held = tree::hashes_at(level, from);
            for index in held / WIDTH..=(count - 1) / WIDTH {
                let start = index * WIDTH;
                let width = tree::width(level, start, size);
                let mut tile = Vec::with_capacity(width as usize * 32);
                // The hashes the held partial tile has are read from it, not hashed again.
                let kept = held.saturating_sub(start).min(width);
                if kept > 0 {
                    for hash in self.read_tile(TilePath {
                        kind: Kind::Hashes(level),
                        index,
                        width: kept,
                    })? {
                        tile.extend_from_slice(&hash);
                    }
                }
                for below in start + kept..start + width {
                    let hashes = self.read_tile(TilePath {
                        kind: Kind::Hashes(level - 1),
                        index: below,
                        width: WIDTH,
                    })?;
                    tile.extend_from_slice(&tree::perfect_root(&hashes));
                }
                self.write_tile(
                    TilePath {
                        kind: Kind::Hashes(level),
                        index,
                        width,
                    },
                    &tile,
                )?;
            }
        }
        let mut cache: HashMap<TilePath, Vec<Hash>> = HashMap::new();
        let mut hash = |level: u8, index: u64| {
            let tile = TilePath {
                kind: Kind::Hashes(level),
                index: index / WIDTH,
                width: tree::width(level, index, size),
            };
            if let std::collections::hash_map::Entry::Vacant(slot) = cache.entry(tile) {
                slot.insert(self.read_tile(tile)?);
            }
            Ok::<_, TilesError>(cache[&tile][(index % WIDTH) as usize])
        };
        if let Some(held) = held.filter(|_| from > 0) {
            let again = tree::root(from, &mut hash)?;
            if again != held {
                return Err(TilesError::Fork {
                    size: from,
                    held: hex::encode(held),
                    given: hex::encode(again),
                });
            }
        }
        let root = tree::root(size, &mut hash)?;
        if root != given.root {
            return Err(TilesError::Root {
                size,
                tiles: hex::encode(root),
                checkpoint: hex::encode(given.root),
            });
        }
        Ok(())
    }

    /// The level-0 tiles, entry bundles and records bundles from `from` to `size`.
    fn leaves<F>(&mut self, from: u64, size: u64, read: &mut F) -> Result<(), TilesError>
    where
        F: FnMut(u64, u64) -> Result<Vec<(u64, Vec<u8>)>, String>,
    {
        let mut previous: Option<Hash> = None;
        for index in from / WIDTH..=(size - 1) / WIDTH {
            let start = index * WIDTH;
            let width = tree::width(0, start, size);
            let records = read(start, width).map_err(TilesError::Source)?;
            if records.len() as u64 != width {
                return Err(TilesError::Source(format!(
                    "asked for {width} entries from {start}, got {}",
                    records.len()
                )));
            }
            let mut hashes = Vec::with_capacity(width as usize * 32);
            let mut entries = Vec::with_capacity(width as usize * 34);
            let mut bundle = Vec::new();
            for (expected, (sequence, stored)) in (start..).zip(&records) {
                let bad = |problem: String| TilesError::Entry {
                    sequence: expected,
                    problem,
                };
                if *sequence != expected {
                    return Err(bad(format!("answered as entry {sequence}")));
                }
                let entry = Entry::decode(stored).map_err(|e| bad(e.to_string()))?;
                if entry_hash(&entry.envelope_bytes) != entry.hash {
                    return Err(bad("its bytes do not hash to its stored hash".into()));
                }
                if entry.envelope.sequence != expected {
                    return Err(bad(format!(
                        "its envelope says sequence {}",
                        entry.envelope.sequence
                    )));
                }
                if previous.is_some_and(|p| entry.envelope.prev_hash != p) {
                    return Err(bad("it does not chain to the entry before".into()));
                }
                previous = Some(entry.hash);
                if stored.len() > MAX_RECORD {
                    return Err(TilesError::TooLarge {
                        sequence: expected,
                        bytes: stored.len(),
                    });
                }
                hashes.extend_from_slice(&leaf_hash(&entry.hash));
                entries.extend_from_slice(&32u16.to_be_bytes());
                entries.extend_from_slice(&entry.hash);
                bundle.extend_from_slice(&(stored.len() as u16).to_be_bytes());
                bundle.extend_from_slice(stored);
            }
            for (kind, bytes) in [
                (Kind::Hashes(0), hashes),
                (Kind::Entries, entries),
                (Kind::Records, bundle),
            ] {
                self.write_tile(TilePath { kind, index, width }, &bytes)?;
            }
        }
        Ok(())
    }

    /// A hash tile's hashes, read back (it must be exactly its width's bytes).
    fn read_tile(&self, tile: TilePath) -> Result<Vec<Hash>, TilesError> {
        let name = tile.render();
        let path = self.root.join(&name);
        let want = tile.width * 32;
        let missing = || TilesError::Missing {
            path: name.clone(),
            want,
        };
        let mut bytes = Vec::with_capacity(want as usize);
        File::open(&path)
            .map_err(|_| missing())?
            .take(want + 1)
            .read_to_end(&mut bytes)
            .map_err(io(&path))?;
        if bytes.len() as u64 != want {
            return Err(missing());
        }
        Ok(bytes
            .chunks_exact(32)
            .map(|c| c.try_into().expect("32-byte chunks"))
            .collect())
    }

    /// Writes a tile: a full one only if it does not exist (if it does, it must hold these bytes),
    /// its partial versions then removed once the checkpoint names the full one; a partial one
    /// replaced.
    fn write_tile(&mut self, tile: TilePath, bytes: &[u8]) -> Result<(), TilesError> {
        let name = tile.render();
        let path = self.root.join(&name);
        if tile.is_full() {
            match std::fs::read(&path) {
                Ok(existing) if existing == bytes => return Ok(()),
                Ok(_) => return Err(TilesError::Rewritten { path: name }),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io(&path)(e)),
            }
        }
        self.write_file(&path, bytes)?;
        if tile.is_full() {
            self.stale.push(self.root.join(tile.partials()));
        }
        Ok(())
    }

    /// Writes `bytes` to `path` through a synced temporary file renamed over it.
    fn write_file(&mut self, path: &Path, bytes: &[u8]) -> Result<(), TilesError> {
        let parent = path.parent().unwrap_or(self.root).to_path_buf();
        if !parent.exists() {
            std::fs::create_dir_all(&parent).map_err(io(&parent))?;
            // Each directory made holds its entry in the one above it: synced too.
            for made in parent
                .ancestors()
                .skip(1)
                .take_while(|a| a.starts_with(self.root))
            {
                self.directories.insert(made.to_path_buf());
            }
        }
        let tmp = path.with_extension("tmp");
        let mut file = File::create(&tmp).map_err(io(&tmp))?;
        file.write_all(bytes).map_err(io(&tmp))?;
        file.sync_data().map_err(io(&tmp))?;
        let existed = path.exists();
        std::fs::rename(&tmp, path).map_err(io(path))?;
        if !existed {
            self.created.push(path.to_path_buf());
        }
        self.directories.insert(parent);
        self.files += 1;
        self.bytes += bytes.len() as u64;
        Ok(())
    }

    /// Syncs every directory written into, then replaces the checkpoint (and syncs the root);
    /// then removes the partial tiles that full ones replaced (the spec allows it: a client of an
    /// older checkpoint falls back to the full tile).
    fn replace_checkpoint(&mut self, note: &str) -> Result<(), TilesError> {
        for directory in std::mem::take(&mut self.directories) {
            sync_directory(&directory)?;
        }
        let path = self.root.join(CHECKPOINT);
        self.write_file(&path, note.as_bytes())?;
        sync_directory(self.root)?;
        for partials in self.stale.drain(..) {
            if let Err(e) = std::fs::remove_dir_all(&partials) {
                if e.kind() != std::io::ErrorKind::NotFound {
                    return Err(io(&partials)(e));
                }
            }
        }
        Ok(())
    }

    /// Removes what this run created (best effort: the checkpoint still names the old tree,
    /// whose tiles were not touched).
    fn undo(&mut self) {
        for path in self.created.drain(..) {
            let _ = std::fs::remove_file(path);
        }
    }
}

fn sync_directory(path: &Path) -> Result<(), TilesError> {
    File::open(path)
        .and_then(|d| d.sync_all())
        .map_err(io(path))
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> TilesError + '_ {
    move |source| TilesError::Io {
        path: path.to_path_buf(),
        source,
    }
}
