//! Heavy work off the async workers, under limits that hold whatever clients do.
//!
//! A [`Pool`] runs blocking work (lab computations, strategy-table builds, log verification,
//! replays, bundles, proofs) on the blocking pool, at most a fixed number at once; the others wait
//! their turn without a thread. Each job gets a [`Run`] that is told to stop when its caller goes
//! away (the client cancelled, the call passed its deadline) and when the server shuts down; the
//! long loops look at it and give up. A job holds its permit until it has ended, so the limit
//! holds even while a cancelled job winds down.
//!
//! This module knows no service; it must not hold a permit across anything but its job.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::{Notify, Semaphore};
use tonic::Status;

use pitboss_lab::{LabError, Run};

/// The server's shutdown, as heavy work and streams see it: a flag that blocking loops read and a
/// notification that async tasks wait for.
#[derive(Clone, Debug, Default)]
pub struct Shutdown {
    flag: Arc<AtomicBool>,
    notify: Arc<Notify>,
}

impl Shutdown {
    /// Tells every job and stream to end.
    pub fn trigger(&self) {
        self.flag.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    /// Whether the server is shutting down.
    pub fn is_set(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// The flag, for blocking loops.
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.flag.clone()
    }

    /// Completes once the server is shutting down.
    pub async fn wait(&self) {
        let notified = self.notify.notified();
        if self.is_set() {
            return;
        }
        notified.await;
    }
}

/// A limited set of workers for one kind of heavy work.
#[derive(Clone, Debug)]
pub struct Pool {
    name: &'static str,
    size: usize,
    permits: Arc<Semaphore>,
    /// Jobs waiting for a worker (for the metrics).
    waiting: Arc<std::sync::atomic::AtomicUsize>,
    /// Every job of every pool stops when the server shuts down.
    shutdown: Shutdown,
}

/// Tells a job to stop when the future waiting for it is dropped.
struct StopOnDrop(Arc<Run>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop();
    }
}

impl Pool {
    /// A pool named `name` (for errors and logs) of `size` workers, whose jobs also stop at
    /// `shutdown`.
    pub fn new(name: &'static str, size: usize, shutdown: Shutdown) -> Pool {
        Pool {
            name,
            size: size.max(1),
            permits: Arc::new(Semaphore::new(size.max(1))),
            waiting: Arc::default(),
            shutdown,
        }
    }

    /// Runs `work` when a worker is free; `work` should look at its [`Run`] in long loops. A job
    /// that stopped because it was asked to answers `CANCELLED` (a client gone never sees it; a
    /// server stopping does).
    pub async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Run) -> Result<T, Status> + Send + 'static,
    ) -> Result<T, Status> {
        if self.shutdown.is_set() {
            return Err(Status::unavailable("the server is stopping"));
        }
        let permit = {
            let _waiting = Waiting::on(&self.waiting);
            self.permits
                .clone()
                .acquire_owned()
                .await
                .map_err(|_| Status::unavailable(format!("the {} pool is closed", self.name)))?
        };
        let run = Arc::new(Run::stopping_with(self.shutdown.flag()));
        let _stop_if_abandoned = StopOnDrop(run.clone());
        let name = self.name;
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let outcome = work(&run);
            if run.stopped() {
                tracing::debug!(pool = name, "a job stopped early");
            }
            outcome
        })
        .await
        .map_err(|e| Status::internal(format!("the {} job failed: {e}", self.name)))?
    }

    /// Jobs running or waiting now, at most the pool's size running.
    pub fn available(&self) -> usize {
        self.permits.available_permits()
    }

    /// The pool's name, as in its errors.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// (running, waiting) now.
    pub fn load(&self) -> (usize, usize) {
        (
            self.size.saturating_sub(self.permits.available_permits()),
            self.waiting.load(std::sync::atomic::Ordering::Relaxed),
        )
    }
}

/// Counts a job among the waiting while it waits for a worker (also when its caller goes away).
struct Waiting<'a>(&'a std::sync::atomic::AtomicUsize);

impl<'a> Waiting<'a> {
    fn on(count: &'a std::sync::atomic::AtomicUsize) -> Waiting<'a> {
        count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Waiting(count)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// A lab computation's error as a status: `CANCELLED` when it stopped because nobody waited any
/// more, `INTERNAL` otherwise.
pub fn lab_status(error: LabError) -> Status {
    match error {
        LabError::Stopped => Status::cancelled(error.to_string()),
        other => Status::internal(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_lab::STOPPED;
    use std::time::Duration;

    /// A job whose caller goes away is told to stop, and keeps its worker until it has; the next
    /// job then runs.
    #[tokio::test(flavor = "multi_thread")]
    async fn an_abandoned_job_stops_and_frees_its_worker() {
        let pool = Pool::new("test", 1, Shutdown::default());
        let stopped = Arc::new(AtomicBool::new(false));
        let seen = stopped.clone();
        let long = pool.run(move |run| {
            while !run.stopped() {
                std::thread::sleep(Duration::from_millis(1));
            }
            seen.store(true, Ordering::SeqCst);
            Err::<(), _>(Status::cancelled(STOPPED))
        });
        // Abandoned after 50 ms.
        assert!(tokio::time::timeout(Duration::from_millis(50), long)
            .await
            .is_err());
        let next = tokio::time::timeout(Duration::from_secs(10), pool.run(|_| Ok(7)))
            .await
            .expect("the worker is freed")
            .unwrap();
        assert_eq!(next, 7);
        assert!(stopped.load(Ordering::SeqCst));
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_stopping_server_stops_every_job() {
        let shutdown = Shutdown::default();
        let pool = Pool::new("test", 2, shutdown.clone());
        let (running, started) = tokio::sync::oneshot::channel();
        let job = tokio::spawn({
            let pool = pool.clone();
            async move {
                pool.run(move |run| {
                    running.send(()).ok();
                    while !run.stopped() {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    Ok(())
                })
                .await
            }
        });
        // Stopped while it runs, however long the job took to start.
        started.await.unwrap();
        shutdown.trigger();
        tokio::time::timeout(Duration::from_secs(10), job)
            .await
            .expect("stops")
            .unwrap()
            .unwrap();
        assert_eq!(
            pool.run(|_| Ok(())).await.unwrap_err().code(),
            tonic::Code::Unavailable
        );
    }
}
