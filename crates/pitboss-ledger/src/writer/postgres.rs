//! PostgreSQL's side of the writer: one group at a time, each in its own transaction ordered by
//! the head row (`pg/`): the row locked and the group's records read in one round trip, the
//! group built and signed on them (`mod.rs`), its writes, the head's move and `COMMIT` in the
//! other. Owns that loop and what it reads first; builds no group itself.

use std::collections::HashMap;
use std::sync::mpsc;

use std::time::Instant;

use super::super::entry::Hash;
use super::super::keys::KeyId;
use super::super::pg::{Committed, PgStore, Prefetched, Session};
use super::super::store::cf;
use super::super::LedgerError;
use super::super::StoreError;
use super::{answer, refuse, refuse_all, Committer, Job, Prepared, Writer, CURRENT_KEY};

/// While no job waits, how often a PostgreSQL writer reads the head row (other servers' groups).
pub(crate) const HEAD_POLL: std::time::Duration = std::time::Duration::from_millis(100);

/// PostgreSQL's committer: one group at a time on the writer's session.
pub(crate) struct Serial {
    pg: std::sync::Arc<PgStore>,
    /// The writer's session, opened when first needed and again after a lost connection.
    session: Option<Session>,
}

impl Serial {
    /// Commits into `pg`.
    pub(crate) fn new(pg: std::sync::Arc<PgStore>) -> Serial {
        Serial { pg, session: None }
    }
}

impl Committer for Serial {
    fn run(self: Box<Self>, writer: Writer, jobs: mpsc::Receiver<Job>) {
        writer.run_postgres(&self.pg, jobs);
    }

    fn commit_now(&mut self, writer: &mut Writer, group: Vec<Job>) {
        writer.commit_postgres(&self.pg, &mut self.session, group, None);
    }
}

impl Writer {
    /// PostgreSQL: one group at a time, each in its own transaction ordered by the head row
    /// (`pg/`). While no job waits, the head row is read every [`HEAD_POLL`], so that live
    /// event streams see what the other servers write.
    fn run_postgres(mut self, pg: &PgStore, jobs: mpsc::Receiver<Job>) {
        let mut session = None;
        loop {
            let first = match jobs.recv_timeout(HEAD_POLL) {
                Ok(job) => job,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if let Ok(Some((size, _))) = pg.head_row() {
                        self.head.send_if_modified(|head| {
                            let moved = size > *head;
                            *head = (*head).max(size);
                            moved
                        });
                    }
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            let group = self.next_group(first, &jobs);
            self.commit_postgres(pg, &mut session, group, Some(&jobs));
        }
    }

    /// Locks the head row, builds and signs the group on it, commits it and answers. A lost
    /// connection is opened again for the next group; a group that fails is refused whole.
    ///
    /// The jobs that arrive in `late` while the lock is awaited join the group (their records
    /// read under the lock, one more round trip): when several servers share the log, each waits
    /// its turn for the head row, and a group formed only of what waited before the wait would
    /// be a fraction of what one server commits at once, for the same cost per group.
    fn commit_postgres(
        &mut self,
        pg: &PgStore,
        session: &mut Option<Session>,
        mut jobs: Vec<Job>,
        late: Option<&mpsc::Receiver<Job>>,
    ) {
        let (head, mut prefetched) = match lock_head(pg, session, &wanted_records(&jobs)) {
            Ok(locked) => locked,
            Err(e) => return refuse_all(jobs, &LedgerError::from(e)),
        };
        // The session `lock_head` locked on.
        let Some(open) = session.as_ref() else {
            return refuse_all(jobs, &LedgerError::Stopped);
        };
        if let Some(late) = late {
            let first = jobs.len();
            self.fill_group(&mut jobs, late);
            let mut wanted = wanted_records(&jobs[first..]);
            wanted.retain(|key| !prefetched.contains_key(key));
            match open.read_records(wanted) {
                Ok(more) => prefetched.extend(more),
                Err(e) => {
                    open.rollback();
                    return refuse_all(jobs, &LedgerError::from(e));
                }
            }
        }
        // Another server may have written since this one's last group: only what was read after
        // the lock is current.
        (self.next_sequence, self.last_hash) = head;
        self.versions = [HashMap::new(), HashMap::new()];
        self.recent = [HashMap::new(), HashMap::new()];
        self.prefetched = prefetched;
        // A rotation by another server: this one signs with the new key (if its key file was
        // replaced) or not at all — never on with a key the log has rotated away from.
        let current = self
            .prefetched
            .get(&(cf::META, CURRENT_KEY.to_vec()))
            .cloned();
        if let Some(Some(current)) = current.filter(|c| c.as_deref() != Some(&self.key.id().0[..]))
        {
            self.reload_key();
            if current != self.key.id().0 {
                open.rollback();
                self.prefetched.clear();
                let current = KeyId::from_slice(&current)
                    .map_or_else(|| hex::encode(&current), |id| id.to_string());
                return refuse_all(
                    jobs,
                    &LedgerError::KeyRotatedElsewhere {
                        log: current,
                        ours: self.key.id(),
                    },
                );
            }
        }
        let Prepared { batch, durable, .. } = self.prepare(jobs);
        self.prefetched.clear();
        let new = (durable.next_sequence, durable.last_hash);
        if batch.is_empty() {
            open.rollback();
            return answer(&self.key_dir, durable);
        }
        let started = Instant::now();
        let committed = open.commit_group(batch, head, new);
        self.stats.wal_sync.observe_duration(started.elapsed());
        let error = match committed {
            Ok(Committed::Done) => {
                self.head.send_replace(new.0);
                return answer(&self.key_dir, durable);
            }
            Ok(Committed::HeadMoved) => LedgerError::HeadMoved,
            Err(e) => LedgerError::from(e),
        };
        // Nothing was written — or, when the answer to COMMIT was lost with the connection, the
        // outcome is unknown and the callers' retries with their request ids learn it. Either way
        // the next group starts from the head row again, with the key file as it is.
        self.reload_key();
        refuse(durable, &error);
    }
}

/// Begins a group's transaction on the writer's session and locks the head row (`pg/`), opening
/// the session first if it has none or its connection is closed. The writer's session drives its
/// connection only while it runs a statement, so a connection the database closed while the
/// writer was idle (a restart, a failover, an administrator) is found closed by this first round
/// trip: the session is then opened again and the lock asked once more (nothing was written).
fn lock_head(
    pg: &PgStore,
    session: &mut Option<Session>,
    wanted: &[(&'static str, Vec<u8>)],
) -> Result<((u64, Hash), Prefetched), StoreError> {
    let mut retried = false;
    loop {
        let open = match session {
            Some(open) if !open.is_closed() => open,
            _ => {
                *session = None;
                session.insert(pg.session()?)
            }
        };
        match open.lock_head(wanted) {
            Ok(locked) => return Ok(locked),
            Err(e) => {
                // The rollback runs the connection once more: a connection the database ended
                // answers the first statement with its error, and is known closed only after.
                open.rollback();
                if retried || !open.is_closed() {
                    return Err(e);
                }
                retried = true;
            }
        }
    }
}

/// The records a group's staging will read: each stream's version and each request id's record
/// (read once, after the head row is locked).
fn wanted_records(jobs: &[Job]) -> Vec<(&'static str, Vec<u8>)> {
    let mut wanted = vec![(cf::META, CURRENT_KEY.to_vec())];
    for job in jobs {
        if let Job::Append(request, _) = job {
            wanted.push((cf::HEADS, request.stream.as_bytes().to_vec()));
            if let Some(key) = &request.request {
                wanted.push((cf::REQUESTS, key.id.as_bytes().to_vec()));
            }
        }
    }
    wanted.sort();
    wanted.dedup();
    wanted
}
