//! Keeps a tile directory (`serve --tiles DIR`, C2SP `tlog-tiles`) current with the log: after
//! the log grows, the tiles of a new checkpoint are written and that checkpoint published — the
//! newest cosigned one when the log is witnessed (so that what the directory publishes carries the
//! witnesses' cosignatures), else a fresh one signed by the log.
//!
//! Owns the publishing loop; the tile format and its promises are `pitboss_ledger::tiles`'. It
//! MUST NOT stand in the way of an acknowledgement: it reads the log beside the writer, and a
//! failure to publish is said loudly (the server's log, the metrics) and tried again later.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use pitboss_ledger::tiles::TileDir;

use crate::floor::Floor;
use crate::mirroring::Mirroring;
use crate::witnessing::Witnessing;

/// Which checkpoints a tile directory publishes.
pub enum Source {
    /// A fresh one the log signs, of the whole log.
    Log,
    /// The newest cosigned to the witness policy's quorum.
    Cosigned(Arc<Witnessing>),
    /// A mirror's: the log's own it holds, with the mirror's cosignature (C2SP `tlog-mirror`).
    Mirror(Arc<Mirroring>),
}

/// A tile directory being kept current.
pub struct Tiling {
    dir: Arc<TileDir>,
    /// The size the directory publishes now.
    published: AtomicU64,
    /// Publications that failed.
    failures: AtomicU64,
}

impl Tiling {
    /// Starts publishing the log's tiles into `dir` every `every` (when the log grew), until the
    /// runtime ends, the checkpoints `source` gives.
    pub fn start(
        floor: Arc<Floor>,
        dir: TileDir,
        source: Source,
        every: Duration,
    ) -> Result<Arc<Tiling>, pitboss_ledger::tiles::TilesError> {
        let published = dir.checkpoint()?.map_or(0, |(_, c)| c.size);
        let tiling = Arc::new(Tiling {
            dir: Arc::new(dir),
            published: AtomicU64::new(published),
            failures: AtomicU64::new(0),
        });
        tokio::spawn(tiling.clone().run(floor, source, every));
        Ok(tiling)
    }

    /// The directory's path.
    pub fn root(&self) -> &std::path::Path {
        self.dir.root()
    }

    /// The size the directory publishes.
    pub fn published(&self) -> u64 {
        self.published.load(Ordering::Relaxed)
    }

    /// Publications that failed since the start.
    pub fn failures(&self) -> u64 {
        self.failures.load(Ordering::Relaxed)
    }

    async fn run(self: Arc<Self>, floor: Arc<Floor>, source: Source, every: Duration) {
        let mut last_note = String::new();
        loop {
            tokio::time::sleep(every).await;
            let note = match &source {
                Source::Cosigned(witnessing) => match witnessing.latest() {
                    Some(cosigned) => cosigned.note,
                    None => continue,
                },
                Source::Mirror(mirror) => match mirror.newest() {
                    Some(published) => published.note,
                    None => continue,
                },
                Source::Log => {
                    let size = floor.log().size();
                    if size == self.published() {
                        continue;
                    }
                    let reader = floor.clone();
                    match tokio::task::spawn_blocking(move || reader.log().checkpoint(Some(size)))
                        .await
                    {
                        Ok(Ok((checkpoint, _))) => checkpoint.note(),
                        Ok(Err(e)) => {
                            tracing::warn!(error = %e, "tiles: no checkpoint to publish");
                            continue;
                        }
                        Err(_) => continue,
                    }
                }
            };
            if note == last_note {
                continue;
            }
            let (dir, reader, text) = (self.dir.clone(), floor.clone(), note.clone());
            let published = tokio::task::spawn_blocking(move || {
                dir.publish(&text, |from, count| {
                    reader
                        .log()
                        .stored_entries(from, count)
                        .map_err(|e| e.to_string())
                })
            })
            .await;
            match published {
                Ok(Ok(published)) => {
                    self.published.store(published.size, Ordering::Relaxed);
                    last_note = note;
                }
                Ok(Err(e)) => {
                    self.failures.fetch_add(1, Ordering::Relaxed);
                    tracing::error!(error = %e, dir = %self.dir.root().display(), "tiles not published");
                }
                Err(e) => {
                    self.failures.fetch_add(1, Ordering::Relaxed);
                    tracing::error!(error = %e, "tiles: the publishing task failed");
                }
            }
        }
    }
}
