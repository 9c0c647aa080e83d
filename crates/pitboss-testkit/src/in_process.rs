//! The service served in the test's own process (`Server::in_process`): the ledger the server
//! would open on the data directory (or its PostgreSQL database), the floor on it, the access
//! file loaded and its change recorded as `serve` records it, and `pitboss_server`'s `serve` on a
//! loopback port, on a runtime of its own on a thread of its own — no process to start, no
//! executable to hash, no ready line to wait for. What `serve` adds around it (flags and
//! settings files, TLS, metrics, tiles, witnesses, mirrors, the software's attestation, signals)
//! is the process tests' (`Server::start`).
//!
//! Must not be used where the process is the point.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use pitboss::access::Access;
use pitboss::floor::Floor;
use pitboss::service::Serving;

/// The service serving in this process: how to stop it and the thread it runs on.
pub(crate) struct InProcess {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<bool>>,
}

impl InProcess {
    /// Stops the service (its calls drained, the log closed) and waits for it: whether it ended
    /// without an error. Stopping it again answers `false` at once.
    pub(crate) fn stop(&mut self) -> bool {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.thread
            .take()
            .is_some_and(|thread| thread.join().unwrap_or(false))
    }
}

/// Serves the service on a loopback port in this process, on the ledger `open` opens (on the
/// service's own thread) and the access file `access`: how to stop it, and its address once it
/// serves its calls.
pub(crate) fn serve(
    open: impl FnOnce() -> pitboss_ledger::Ledger + Send + 'static,
    access: PathBuf,
    beacon_source: Option<String>,
) -> (InProcess, SocketAddr) {
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let (listening, address) = std::sync::mpsc::channel();
    let thread = std::thread::Builder::new()
        .name("pitboss-in-process".into())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .expect("the in-process server's runtime");
            runtime.block_on(async move {
                let ledger = Arc::new(open());
                let floor = Arc::new(
                    Floor::open(ledger, Arc::new(pitboss::floor::system_clock))
                        .await
                        .expect("the floor on the test's ledger"),
                );
                let (access, change) = Access::load(&access).expect("the test's access file");
                if floor.last_access_sha256().expect("the access read") != Some(change.sha256) {
                    floor
                        .record_access_change(&change, "start", pitboss_ledger::SERVER_ACTOR)
                        .await
                        .expect("the access change recorded");
                }
                let listener = pitboss::service::listen(SocketAddr::from(([127, 0, 0, 1], 0)))
                    .expect("a loopback port");
                let at = listener.local_addr().expect("the port");
                let (ready, is_ready) = tokio::sync::oneshot::channel();
                let serving = Serving {
                    ready: Some(ready),
                    returns: Some(pitboss::returns::Settings::default()),
                    beacon_source: beacon_source.map(|url| {
                        pitboss::beacons::HttpSource::new(&url).expect("the beacon source's URL")
                    }),
                    ..Serving::new(Arc::new(access))
                };
                let served = tokio::spawn(pitboss::service::serve(
                    listener,
                    floor,
                    serving,
                    async move {
                        let _ = stopped.await;
                    },
                ));
                if is_ready.await.is_ok() {
                    let _ = listening.send(at);
                }
                matches!(served.await, Ok(Ok(())))
            })
        })
        .expect("the in-process server's thread");
    let at = address
        .recv()
        .expect("the in-process server ready (it stopped before: see its panic above)");
    (
        InProcess {
            stop: Some(stop),
            thread: Some(thread),
        },
        at,
    )
}
