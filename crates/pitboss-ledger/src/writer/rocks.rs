//! RocksDB's side of the writer: the three-stage pipeline. The writer's thread builds, chains and
//! signs group n+2 (`mod.rs`) while the syncer writes group n+1 with a synced WAL and the anchorer
//! records group n's head in the anchor file and only then answers its callers. Owns the stages
//! and their failure rules; builds no group itself.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Instant;

use super::super::anchor::AnchorWriter;
use super::super::entry::GENESIS;
use super::super::stats::WriterStats;
use super::super::store::Store;
use super::super::LedgerError;
use super::super::Shared;
use super::{answer, refuse, Durable, Job, Prepared, Writer};

/// Writes prepared groups in order, each with a synced WAL, and passes them on to the anchor.
/// If a write fails, it and every later group of the same epoch (built on top of it) are refused,
/// and the writer starts a new epoch from what the store holds.
pub(super) struct Syncer {
    pub(super) store: Arc<Store>,
    pub(super) failed_through: Arc<AtomicU64>,
    pub(super) stats: Arc<WriterStats>,
}

impl Syncer {
    pub(super) fn run(self, groups: mpsc::Receiver<Prepared>, anchor: &mpsc::SyncSender<Durable>) {
        while let Ok(prepared) = groups.recv() {
            if let Some(durable) = self.apply(prepared) {
                if let Err(mpsc::SendError(durable)) = anchor.send(durable) {
                    refuse(durable, &LedgerError::Stopped);
                }
            }
        }
    }

    /// Writes one group with a synced WAL; `None` when it was refused (its callers answered).
    pub(super) fn apply(&self, prepared: Prepared) -> Option<Durable> {
        let Prepared {
            epoch,
            batch,
            durable,
        } = prepared;
        if epoch <= self.failed_through.load(Ordering::SeqCst) {
            refuse(durable, &LedgerError::EarlierWriteFailed);
            return None;
        }
        let written = if batch.is_empty() {
            Ok(())
        } else {
            let started = Instant::now();
            let written = self.store.write(&batch, true).map_err(LedgerError::from);
            self.stats.wal_sync.observe_duration(started.elapsed());
            written
        };
        match written {
            Ok(()) => Some(durable),
            Err(e) => {
                self.failed_through.fetch_max(epoch, Ordering::SeqCst);
                refuse(durable, &e);
                None
            }
        }
    }
}

/// The last stage: records the head of the groups the WAL holds in the anchor file, once for all
/// the groups waiting, and only then answers their callers, announces the new head and finishes a
/// key rotation's files. If the anchor cannot be written, the groups are refused and the ledger
/// stops (`stopped`): what the WAL holds beyond the anchor was never acknowledged, and the next
/// open checks it and anchors it.
pub(crate) struct Anchorer {
    file: AnchorWriter,
    /// The signing key's directory (a rotation's files are finished there).
    key_dir: std::path::PathBuf,
    pub(super) head: tokio::sync::watch::Sender<u64>,
    /// The size the anchor records.
    anchored: u64,
    pub(super) stopped: Arc<AtomicBool>,
    /// Shared with the writer and the syncer; the ledger reads it.
    stats: Arc<WriterStats>,
}

impl Anchorer {
    /// `anchored`: the size the file records now (0 for a file to be replaced); `next_sequence`:
    /// the log's size, announced as the head.
    pub(crate) fn new(
        file: AnchorWriter,
        key_dir: std::path::PathBuf,
        anchored: u64,
        next_sequence: u64,
    ) -> Anchorer {
        Anchorer {
            file,
            key_dir,
            head: tokio::sync::watch::Sender::new(next_sequence),
            anchored,
            stopped: Arc::new(AtomicBool::new(false)),
            stats: Arc::new(WriterStats::default()),
        }
    }

    /// The measurements of the writer this anchorer finishes for.
    pub(crate) fn stats(&self) -> Arc<WriterStats> {
        self.stats.clone()
    }

    pub(super) fn run(mut self, groups: mpsc::Receiver<Durable>) {
        while let Ok(first) = groups.recv() {
            let mut waiting = vec![first];
            while let Ok(more) = groups.try_recv() {
                waiting.push(more);
            }
            self.finish(waiting);
        }
    }

    /// Anchors the last of `groups` (they are in order) and answers them all.
    pub(super) fn finish(&mut self, groups: Vec<Durable>) {
        let Some(last) = groups.last() else {
            return;
        };
        let (size, head, origin, key) = (
            last.next_sequence,
            last.last_hash,
            last.origin.unwrap_or(GENESIS),
            last.key.clone(),
        );
        if self.stopped.load(Ordering::SeqCst) {
            let error = LedgerError::AnchorStopped;
            groups.into_iter().for_each(|g| refuse(g, &error));
            return;
        }
        if size > self.anchored {
            let started = Instant::now();
            let written = self.file.write(size, head, origin, &key);
            self.stats.anchor_sync.observe_duration(started.elapsed());
            if let Err(e) = written {
                self.stopped.store(true, Ordering::SeqCst);
                tracing::error!(anchor = %self.file.path().display(), error = %e, "the anchor cannot be written: the ledger stops");
                let error = LedgerError::Anchor {
                    path: self.file.path().to_path_buf(),
                    source: Shared::new(e),
                };
                groups.into_iter().for_each(|g| refuse(g, &error));
                return;
            }
            self.anchored = size;
            self.head.send_replace(size);
        }
        for group in groups {
            answer(&self.key_dir, group);
        }
    }
}

impl Writer {
    /// RocksDB: the three-stage pipeline.
    pub(super) fn run_pipeline(mut self, store: &Arc<Store>, jobs: mpsc::Receiver<Job>) {
        let (to_syncer, from_writer) = mpsc::sync_channel::<Prepared>(2);
        let (to_anchorer, from_syncer) = mpsc::sync_channel::<Durable>(4);
        let syncer = Syncer {
            store: store.clone(),
            failed_through: self.failed_through.clone(),
            stats: self.stats.clone(),
        };
        let Some(anchorer) = self.anchorer.take() else {
            tracing::error!("the ledger's writer has no anchor: refusing everything");
            self.stopped.store(true, Ordering::SeqCst);
            return;
        };
        std::thread::scope(|scope| {
            let anchor_thread = std::thread::Builder::new()
                .name("ledger-anchor".into())
                .spawn_scoped(scope, move || anchorer.run(from_syncer));
            let sync_thread = match &anchor_thread {
                Ok(_) => std::thread::Builder::new()
                    .name("ledger-sync".into())
                    .spawn_scoped(scope, move || syncer.run(from_writer, &to_anchorer))
                    .is_ok(),
                Err(_) => false,
            };
            if !sync_thread {
                tracing::error!("cannot start the ledger's sync and anchor threads");
                self.stopped.store(true, Ordering::SeqCst);
            }
            while let Ok(first) = jobs.recv() {
                let group = self.next_group(first, &jobs);
                let prepared = self.prepare(group);
                if let Err(mpsc::SendError(prepared)) = to_syncer.send(prepared) {
                    refuse(prepared.durable, &LedgerError::Stopped);
                }
            }
            drop(to_syncer);
        });
    }
}
