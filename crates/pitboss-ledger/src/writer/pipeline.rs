//! The committer of a storage that applies a batch by itself ([`Apply`]: RocksDB, memory): the
//! three-stage pipeline. The writer's thread builds, chains and signs group n+2 (`mod.rs`) while
//! the syncer applies group n+1 (with a synced WAL on RocksDB) and the anchorer records group n's
//! head — in RocksDB's anchor file; a storage without one has nothing to record — and only then
//! answers its callers. Owns the stages and their failure rules; builds no group itself.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Instant;

use super::super::anchor::AnchorWriter;
use super::super::entry::GENESIS;
use super::super::seam::Apply;
use super::super::stats::WriterStats;
use super::super::LedgerError;
use super::super::Shared;
use super::{answer, refuse, Committer, Durable, Job, Prepared, Writer};

/// Writes prepared groups in order, each with a synced WAL, and passes them on to the anchor.
/// If a write fails, it and every later group of the same epoch (built on top of it) are refused,
/// and the writer starts a new epoch from what the store holds.
pub(super) struct Syncer {
    pub(super) store: Arc<dyn Apply>,
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
            let written = self.store.apply(&batch, true).map_err(LedgerError::from);
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

/// The last stage: records the head of the groups applied — in the anchor file, once for all the
/// groups waiting, when the storage keeps one — and only then answers their callers, announces the
/// new head and finishes a key rotation's files. If the anchor cannot be written, the groups are
/// refused and the ledger stops (`stopped`): what the WAL holds beyond the anchor was never
/// acknowledged, and the next open checks it and anchors it.
pub(crate) struct Anchorer {
    /// RocksDB's anchor file; `None`: the storage's own maps are its head (memory).
    file: Option<AnchorWriter>,
    /// The size the anchor records.
    anchored: u64,
    /// The writer's: its key directory, its head, whether it stopped, its measurements (set when
    /// the pipeline starts).
    key_dir: std::path::PathBuf,
    head: tokio::sync::watch::Sender<u64>,
    stopped: Arc<AtomicBool>,
    stats: Arc<WriterStats>,
}

impl Anchorer {
    /// `file`: RocksDB's anchor (`None`: nothing to record); `anchored`: the size it records now
    /// (0 for a file to be replaced).
    pub(crate) fn new(file: Option<AnchorWriter>, anchored: u64) -> Anchorer {
        Anchorer {
            file,
            anchored,
            key_dir: std::path::PathBuf::new(),
            head: tokio::sync::watch::Sender::new(0),
            stopped: Arc::new(AtomicBool::new(false)),
            stats: Arc::new(WriterStats::default()),
        }
    }

    /// Finishes for `writer`: its key directory, head, stop flag and measurements.
    pub(super) fn attach(&mut self, writer: &Writer) {
        self.key_dir = writer.key_dir.clone();
        self.head = writer.head.clone();
        self.stopped = writer.stopped.clone();
        self.stats = writer.stats.clone();
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
            if let Some(file) = self.file.as_mut() {
                let started = Instant::now();
                let written = file.write(size, head, origin, &key);
                self.stats.anchor_sync.observe_duration(started.elapsed());
                if let Err(e) = written {
                    self.stopped.store(true, Ordering::SeqCst);
                    tracing::error!(anchor = %file.path().display(), error = %e, "the anchor cannot be written: the ledger stops");
                    let error = LedgerError::Anchor {
                        path: file.path().to_path_buf(),
                        source: Shared::new(e),
                    };
                    groups.into_iter().for_each(|g| refuse(g, &error));
                    return;
                }
            }
            self.anchored = size;
            self.head.send_replace(size);
        }
        for group in groups {
            answer(&self.key_dir, group);
        }
    }
}

/// The pipeline's committer: a storage that applies batches by itself, and its last stage.
pub(crate) struct Pipeline {
    store: Arc<dyn Apply>,
    anchorer: Anchorer,
}

impl Pipeline {
    /// Commits into `store`, recording heads with `anchorer`.
    pub(crate) fn new(store: Arc<dyn Apply>, anchorer: Anchorer) -> Pipeline {
        Pipeline { store, anchorer }
    }

    fn syncer(&self, writer: &Writer) -> Syncer {
        Syncer {
            store: self.store.clone(),
            failed_through: writer.failed_through.clone(),
            stats: writer.stats.clone(),
        }
    }
}

impl Committer for Pipeline {
    /// Three stages overlap: the writer's thread builds, chains and signs group n+2 while the
    /// syncer thread applies group n+1 and the anchor thread records group n's head and answers
    /// its callers.
    fn run(self: Box<Self>, mut writer: Writer, jobs: mpsc::Receiver<Job>) {
        let (to_syncer, from_writer) = mpsc::sync_channel::<Prepared>(2);
        let (to_anchorer, from_syncer) = mpsc::sync_channel::<Durable>(4);
        let syncer = self.syncer(&writer);
        let mut anchorer = self.anchorer;
        anchorer.attach(&writer);
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
                writer.stopped.store(true, Ordering::SeqCst);
            }
            while let Ok(first) = jobs.recv() {
                let group = writer.next_group(first, &jobs);
                let prepared = writer.prepare(group);
                if let Err(mpsc::SendError(prepared)) = to_syncer.send(prepared) {
                    refuse(prepared.durable, &LedgerError::Stopped);
                }
            }
            drop(to_syncer);
        });
    }

    fn commit_now(&mut self, writer: &mut Writer, group: Vec<Job>) {
        self.anchorer.attach(writer);
        let prepared = writer.prepare(group);
        if let Some(durable) = self.syncer(writer).apply(prepared) {
            self.anchorer.finish(vec![durable]);
        }
    }
}
