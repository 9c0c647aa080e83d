//! Assembles the gRPC server: the pitboss services, `grpc.health.v1` health and server reflection
//! (v1 and v1alpha, so `grpcurl` works with no proto files), behind the guard and the
//! authentication, on a listener the caller bound and served by `transport.rs`.
//!
//! The transport's limits (`limits/`, `docs/limits.md`), so that no client can hold the server's
//! memory or connections without bound:
//!
//! - per service: the largest request and reply message, and a deadline for unary calls
//!   (enforced with panics caught by the guard layer, `guard.rs`, around every call);
//! - per connection (`transport.rs`): at most 128 concurrent calls (HTTP/2 streams), a 16 KiB
//!   header list, HTTP/2 keepalive pings (every 30 s without traffic; no answer in 10 s closes the
//!   connection) and TCP keepalive, `TCP_NODELAY`; the HTTP/2 flow-control windows stay hyper's
//!   (1 MiB per connection), which bounds what a client can make the server buffer on one
//!   connection;
//! - per listener (`connections.rs`): a budget of connections in all and per peer, a deadline for
//!   the TLS handshake and HTTP/2 preface, idle connections closed; the port always accepts, so a
//!   connection the server cannot keep is closed at once, never left waiting;
//! - at most [`ServerLimits::max_in_flight`] unary calls in flight over all connections
//!   (`guard.rs`).
//!
//! Heavy work runs in pools of workers (`work.rs`): the lab's computations, the strategy-table
//! builds and the audit's reads each have their own, so that one kind of client cannot starve
//! another; on shutdown every job and stream is told to end, so draining is quick.
//!
//! The server answers from the moment it serves: while it prepares (`warm.rs`: the default
//! configurations' strategy tables and theories, loaded from the data directory or computed),
//! health says NOT_SERVING and every other call but reflection is answered UNAVAILABLE at once
//! (`PREPARING`, with a retry delay); then health says SERVING and calls are served. If the
//! ledger's writer stops (a fault), every service turns NOT_SERVING and appends fail with
//! UNAVAILABLE.

use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;
use tonic_health::ServingStatus;
use tower_layer::Layer;

use super::advice::Strategies;
use super::audit::AuditService;
use super::auth::AuthLayer;
use super::connections::{Admission, Deadlines};
use super::guard::{GuardLayer, Readiness};
use super::lab::LabService;
use super::limits::{self, Transport};
use super::metrics::Metrics;
use super::metrics_http;
use super::operations::OperationsService;
use super::play::PlayService;
use super::work::{Pool, Shutdown};
use crate::access::Access;
use crate::floor::Floor;
use crate::proto::audit_server::AuditServer;
use crate::proto::lab_server::LabServer;
use crate::proto::operations_server::OperationsServer;
use crate::proto::play_server::PlayServer;

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot build the reflection service: {0}")]
    Reflection(#[from] tonic_reflection::server::Error),
    #[error("the tile directory cannot be kept: {0}")]
    Tiles(#[from] pitboss_ledger::tiles::TilesError),
}

/// The names health reports on: the four services and the server as a whole ("").
const SERVICES: [&str; 5] = [
    "",
    "pitboss.v1.Audit",
    "pitboss.v1.Play",
    "pitboss.v1.Operations",
    "pitboss.v1.Lab",
];

/// Sets every service's health to `status`.
async fn report(health: &tonic_health::server::HealthReporter, status: ServingStatus) {
    for name in SERVICES {
        health.set_service_status(name, status).await;
    }
}

/// How the server meets its clients.
pub struct Serving {
    /// Who may call what (`access/`); every call but health is authenticated against it.
    pub access: Arc<Access>,
    /// TLS (`tls.rs`: the server's certificate, and optionally the CA of client certificates);
    /// `None` serves plain HTTP/2, which `pitboss serve` allows on loopback only unless told
    /// otherwise.
    pub tls: Option<Arc<tokio_rustls::rustls::ServerConfig>>,
    /// Where to serve the metrics (`GET /metrics`), if anywhere.
    pub metrics: Option<TcpListener>,
    /// The limits an operator may set (`pitboss.toml`'s `[limits]` and `[connections]`).
    pub limits: ServerLimits,
    /// What the server prepares before it serves its calls (`warm.rs`), being prepared; `None`:
    /// nothing, each table and theory is computed when first needed.
    pub preparation: Option<tokio::task::JoinHandle<super::warm::Warmed>>,
    /// Told once the server is ready (health SERVING, calls served): after its preparation, or at
    /// once without one.
    pub ready: Option<tokio::sync::oneshot::Sender<()>>,
    /// The log's side of witnessing, when the server has a witness policy: `GetCheckpoint` answers
    /// its newest cosigned checkpoint, and the metrics show how far behind it is.
    pub witnessing: Option<Arc<crate::witnessing::Witnessing>>,
    /// The log as C2SP tlog-tiles: a directory kept current, and maybe served over HTTP.
    pub tiles: Option<TilesServing>,
    /// A mirror following another server's log, when this server is one.
    pub mirror: Option<MirrorServing>,
    /// How the floor's returns are watched (`crate::returns`); `None`: not kept.
    pub returns: Option<crate::returns::Settings>,
    /// The executable that serves: a clean stop is recorded with it (`SoftwareAttested`, trigger
    /// `stop`), so the log tells a clean stop from a crash.
    pub software: Option<crate::software::Identity>,
    /// Where beacon rounds are fetched from (`crate::beacons`); `None`: nowhere, and every round
    /// whose seed a beacon mixes meets its configuration's late rule.
    pub beacon_source: Option<crate::beacons::HttpSource>,
    /// Why a read-only server is (said to every call it refuses as a write); `None`: the
    /// ledger's own reason, when it is read-only at all.
    pub read_only_reason: Option<String>,
}

impl Serving {
    /// Serving plain HTTP/2 under `access` with the default limits and nothing beside the
    /// services: no preparation, metrics, witnesses, tiles, mirror, returns or software identity
    /// (each set by whoever serves more).
    pub fn new(access: Arc<Access>) -> Serving {
        Serving {
            access,
            tls: None,
            metrics: None,
            limits: ServerLimits::default(),
            preparation: None,
            ready: None,
            witnessing: None,
            tiles: None,
            mirror: None,
            returns: None,
            software: None,
            beacon_source: None,
            read_only_reason: None,
        }
    }
}

/// A mirror's parts the server serves (`crate::mirroring`).
pub struct MirrorServing {
    /// The mirror, following.
    pub mirroring: Arc<crate::mirroring::Mirroring>,
    /// Where its witness door (C2SP tlog-witness `add-checkpoint`) is served, if anywhere.
    pub witness: Option<TcpListener>,
}

/// The tile directory a server keeps current (`crate::tiling`) and where it serves it.
pub struct TilesServing {
    /// The directory, locked by this server.
    pub dir: pitboss_ledger::tiles::TileDir,
    /// Where `GET /checkpoint` and `/tile/…` are answered, if anywhere.
    pub listener: Option<TcpListener>,
    /// How often the log is looked at for new tiles.
    pub every: std::time::Duration,
}

/// The server's limits that an operator may change; every other limit is part of the API
/// (`docs/limits.md`) and fixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerLimits {
    /// gRPC connections kept at once.
    pub max_connections: usize,
    /// gRPC connections kept at once from one peer (an IPv4 address, an IPv6 /64).
    pub max_connections_per_peer: usize,
    /// Calls handled at once over all connections (more are refused `RESOURCE_EXHAUSTED`).
    pub max_in_flight: usize,
    /// Every listener's handshake and idle deadlines.
    pub deadlines: Deadlines,
}

impl Default for ServerLimits {
    fn default() -> ServerLimits {
        ServerLimits {
            max_connections: limits::MAX_CONNECTIONS,
            max_connections_per_peer: limits::MAX_CONNECTIONS_PER_PEER,
            max_in_flight: limits::MAX_IN_FLIGHT,
            deadlines: Deadlines::default(),
        }
    }
}

/// What health says, decided in one place: NOT_SERVING while the server prepares or once its
/// ledger's writer has stopped, SERVING otherwise.
struct Health {
    reporter: tonic_health::server::HealthReporter,
    state: tokio::sync::Mutex<(bool, bool)>,
}

impl Health {
    async fn set(&self, preparing: Option<bool>, writer_stopped: Option<bool>) {
        let mut state = self.state.lock().await;
        if let Some(preparing) = preparing {
            state.0 = preparing;
        }
        if let Some(stopped) = writer_stopped {
            state.1 = stopped;
        }
        let status = if state.0 || state.1 {
            ServingStatus::NotServing
        } else {
            ServingStatus::Serving
        };
        report(&self.reporter, status).await;
    }
}

/// Serves until `shutdown` completes, then drains in-flight calls and returns.
pub async fn serve(
    listener: TcpListener,
    floor: Arc<Floor>,
    mut serving: Serving,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), ServeError> {
    let (reporter, health_service) = tonic_health::server::health_reporter();
    let preparing = serving.preparation.is_some();
    let health = Arc::new(Health {
        reporter: reporter.clone(),
        state: tokio::sync::Mutex::new((preparing, false)),
    });
    health.set(None, None).await;
    // A ledger whose writer has stopped cannot record anything: say so to load balancers.
    let watched = floor.clone();
    let told = health.clone();
    let watcher = tokio::spawn(async move {
        watched.log_stopped().await;
        tracing::error!("the ledger's writer has stopped; reporting NOT_SERVING");
        told.set(None, Some(true)).await;
    });
    // Rounds awaiting a beacon are driven to their deal (a read-only server writes nothing).
    let _beacons = (!floor.log().read_only())
        .then(|| crate::beacons::Beacons::start(floor.clone(), serving.beacon_source.take()));
    // `pitboss.witnessing` says whether the cosigned checkpoint keeps up with the log (the other
    // services' health does not depend on the witnesses).
    if let Some(witnessing) = &serving.witnessing {
        let mut behind = witnessing.behind();
        let health = reporter.clone();
        tokio::spawn(async move {
            loop {
                let status = if *behind.borrow_and_update() {
                    ServingStatus::NotServing
                } else {
                    ServingStatus::Serving
                };
                health
                    .set_service_status("pitboss.witnessing", status)
                    .await;
                if behind.changed().await.is_err() {
                    return;
                }
            }
        });
    }
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(crate::proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
            // google.rpc error details, so clients can decode the details of an error.
            .register_encoded_file_descriptor_set(tonic_types::pb::FILE_DESCRIPTOR_SET)
    };
    let reflection_v1 = reflection().build_v1()?;
    let reflection_v1alpha = reflection().build_v1alpha()?;
    macro_rules! sized {
        ($server:expr, $limits:expr) => {{
            let Transport {
                max_request,
                max_reply,
                ..
            } = $limits;
            $server
                .max_decoding_message_size(max_request)
                .max_encoding_message_size(max_reply)
        }};
    }
    // Heavy work in pools of its own kind; every job and stream ends at shutdown.
    let stop = Shutdown::default();
    let lab = Pool::new("lab", limits::LAB_WORKERS, stop.clone());
    let tables = Pool::new("strategy tables", 1, stop.clone());
    let audit = Pool::new("audit", limits::audit_workers(), stop.clone());
    let strategies = Arc::new(Strategies::new(floor.clone(), tables.clone()));
    let deadlines = serving.limits.deadlines;
    let mut doors = Vec::new();
    let mirroring = serving.mirror.as_ref().map(|m| m.mirroring.clone());
    if let Some(mirror) = serving.mirror {
        // `pitboss.mirror` says whether the copy still follows the log (a fork stops it).
        let mut stopped = mirror.mirroring.stopped();
        let health = reporter.clone();
        tokio::spawn(async move {
            loop {
                let status = if *stopped.borrow_and_update() {
                    ServingStatus::NotServing
                } else {
                    ServingStatus::Serving
                };
                health.set_service_status("pitboss.mirror", status).await;
                if stopped.changed().await.is_err() {
                    return;
                }
            }
        });
        if let Some(listener) = mirror.witness {
            let gated = mirror.mirroring.clone();
            let gate: super::Gate = Arc::new(move |body: &[u8]| gated.gate(body));
            let (admission, door) = super::serve_witness(
                listener,
                mirror.mirroring.witness(),
                String::new(),
                Some(gate),
                deadlines,
                stop.clone(),
            );
            doors.push(("witness", admission));
            tokio::spawn(door);
        }
    }
    let tiling = match serving.tiles {
        Some(tiles) => {
            let root = tiles.dir.root().to_path_buf();
            let source = match (&mirroring, &serving.witnessing) {
                (Some(mirror), _) => crate::tiling::Source::Mirror(mirror.clone()),
                (None, Some(witnessing)) => crate::tiling::Source::Cosigned(witnessing.clone()),
                (None, None) => crate::tiling::Source::Log,
            };
            let tiling =
                crate::tiling::Tiling::start(floor.clone(), tiles.dir, source, tiles.every)?;
            if let Some(listener) = tiles.listener {
                let (admission, door) =
                    super::tiles_http::serve(listener, root, deadlines, stop.clone());
                doors.push(("tiles", admission));
                tokio::spawn(door);
            }
            Some(tiling)
        }
        None => None,
    };
    let returns = serving.returns.map(|settings| {
        // The theories being prepared are not computed twice.
        let pending = if preparing {
            super::warm::defaults(&floor)
                .iter()
                .map(|config| config.id())
                .collect()
        } else {
            Vec::new()
        };
        crate::returns::Returns::start(floor.clone(), settings, pending)
    });
    let metrics = Arc::new(Metrics::new(
        floor.clone(),
        vec![lab.clone(), tables.clone(), audit.clone()],
        strategies.builds(),
        serving.witnessing.clone(),
        tiling,
        mirroring.clone(),
        returns.clone(),
    ));
    for (name, admission) in doors {
        metrics.listener(name, admission.stats());
    }
    if let Some(listener) = serving.metrics {
        let (admission, door) =
            metrics_http::serve(listener, metrics.clone(), deadlines, stop.clone());
        metrics.listener("metrics", admission.stats());
        tokio::spawn(door);
    }
    let read_only: Option<Arc<str>> = floor.log().read_only().then(|| {
        serving
            .read_only_reason
            .clone()
            .unwrap_or_else(|| pitboss_ledger::LedgerError::ReadOnly.to_string())
            .into()
    });
    let readiness = Readiness::new(!preparing);
    let routes = tonic::service::Routes::new(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(sized!(
            AuditServer::new(AuditService::new(
                floor.clone(),
                audit,
                stop.clone(),
                serving.witnessing.clone(),
                mirroring,
                returns.clone(),
            )),
            limits::AUDIT
        ))
        .add_service(sized!(
            PlayServer::new(PlayService::new(floor.clone(), strategies.clone())),
            limits::PLAY
        ))
        .add_service(sized!(
            OperationsServer::new(OperationsService::new(
                floor.clone(),
                serving.access.clone()
            )),
            limits::OPERATIONS
        ))
        .add_service(sized!(
            LabServer::new(LabService::new(floor.clone(), lab, stop.clone())),
            limits::LAB
        ))
        .prepare();
    let routes = GuardLayer::new(serving.limits.max_in_flight, Some(metrics.clone()))
        .preparing(readiness.clone())
        .layer(AuthLayer::new(serving.access.clone(), read_only).layer(routes));
    let admission = Admission::new(serving.limits.deadlines.limits(
        serving.limits.max_connections,
        serving.limits.max_connections_per_peer,
        None,
    ));
    metrics.listener("grpc", admission.stats());
    // Ready once prepared: what was prepared handed to the parts that keep it, then health.
    let ready = serving.ready.take();
    let preparation = serving.preparation.take();
    let stopping = stop.clone();
    let told = metrics.clone();
    tokio::spawn(async move {
        if let Some(preparation) = preparation {
            let warmed = tokio::select! {
                warmed = preparation => warmed.unwrap_or_else(|e| {
                    tracing::warn!(error = %e, "the preparation stopped; tables and theories are computed when first needed");
                    super::warm::Warmed::default()
                }),
                () = stopping.wait() => return,
            };
            told.prepared(warmed.loaded, warmed.computed);
            strategies.adopt(warmed.tables);
            if let Some(returns) = &returns {
                returns.adopt(warmed.theories);
            }
            readiness.set_ready();
            health.set(Some(false), None).await;
        }
        if let Some(ready) = ready {
            let _ = ready.send(());
        }
    });
    let stopping = stop.clone();
    let shutdown = async move {
        shutdown.await;
        stopping.trigger();
    };
    tokio::join!(
        super::transport::serve(listener, serving.tls, admission, routes, stop.clone()),
        shutdown
    );
    watcher.abort();
    if let Some(identity) = &serving.software {
        // Every call has drained: the stop is the log's last word from this server.
        if let Err(e) = floor
            .record_software(identity, "stop", None, pitboss_ledger::SERVER_ACTOR)
            .await
        {
            tracing::warn!(error = %e, "the stop could not be recorded in the log");
        }
    }
    // The ledger stays open until every call has drained; closing it lets its writer finish.
    floor.close_log();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::play_client::PlayClient;
    use tonic_health::pb::health_client::HealthClient;
    use tonic_health::pb::HealthCheckRequest;

    /// The real server in-process: when the ledger's writer dies, health turns NOT_SERVING for
    /// every service and a call that must write fails with UNAVAILABLE (it does not hang); calls
    /// that only read go on.
    #[tokio::test(flavor = "multi_thread")]
    async fn a_dead_writer_turns_health_to_not_serving_and_writes_to_unavailable() {
        let dir = tempfile::tempdir().unwrap();
        let log = pitboss_ledger::mem::MemoryLog::new();
        let ledger =
            Arc::new(pitboss_ledger::Ledger::open_memory(&log, dir.path(), 0, None).unwrap());
        let floor = Arc::new(
            Floor::open(ledger, Arc::new(crate::floor::system_clock))
                .await
                .unwrap(),
        );
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let access_file = dir.path().join("access.toml");
        let token = "t";
        std::fs::write(
            &access_file,
            format!(
                "[[principal]]\nid = \"a\"\ntoken_sha256 = \"{}\"\nroles = [\"game_client\"]\n",
                hex::encode(crate::access::token_sha256(token))
            ),
        )
        .unwrap();
        let (access, _) = Access::load(&access_file).unwrap();
        let serving = Serving::new(Arc::new(access));
        let server = tokio::spawn(serve(listener, floor.clone(), serving, async move {
            let _ = stopped.await;
        }));
        let channel = tonic::transport::Channel::from_shared(format!("http://{address}"))
            .unwrap()
            .connect()
            .await
            .unwrap();
        let mut health = HealthClient::new(channel.clone());
        let status = |service: &str| HealthCheckRequest {
            service: service.into(),
        };
        let serving = tonic_health::pb::health_check_response::ServingStatus::Serving as i32;
        for name in SERVICES {
            let answer = health.check(status(name)).await.unwrap().into_inner();
            assert_eq!(answer.status, serving, "`{name}`");
        }
        let mut play = PlayClient::new(pitboss_client::authorized(channel, Some(token)).unwrap());
        let open = crate::proto::OpenHandRequest {
            game: crate::proto::Game::Nutz as i32,
            table: "T".into(),
            player: "P".into(),
            wagers: vec![crate::proto::Wager {
                bet: "box_one_pair".into(),
                amount: 200,
            }],
            ..Default::default()
        };
        let hand = play.open_hand(open.clone()).await.unwrap().into_inner();

        floor.crash_writer();
        let not_serving = tonic_health::pb::health_check_response::ServingStatus::NotServing as i32;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        for name in SERVICES {
            loop {
                let answer = health.check(status(name)).await.unwrap().into_inner();
                if answer.status == not_serving {
                    break;
                }
                assert!(
                    std::time::Instant::now() < deadline,
                    "`{name}` still SERVING"
                );
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        }
        let e = tokio::time::timeout(std::time::Duration::from_secs(10), play.open_hand(open))
            .await
            .expect("a write to a dead writer does not hang")
            .unwrap_err();
        assert_eq!(e.code(), tonic::Code::Unavailable, "{e:?}");
        let read = play
            .get_hand(crate::proto::GetHandRequest {
                hand_id: hand.hand.unwrap().hand_id,
            })
            .await;
        assert!(read.is_ok(), "reads go on: {read:?}");
        let _ = stop.send(());
        server.await.unwrap().unwrap();
    }
}
