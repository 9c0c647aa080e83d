//! The last line of defence around every call: a tower layer over all services that
//!
//! - catches a panic in a handler's future, logs it (method and message) and answers that call
//!   `INTERNAL`; the connection and every other call on it go on, and so does the server;
//! - answers a call whose answer does not begin within its service's deadline (`limits/`), or
//!   the client's own shorter `grpc-timeout`, with `DEADLINE_EXCEEDED`;
//! - answers `UNAVAILABLE` at once, with why (`PREPARING`) and when to retry, every call but
//!   health and reflection while the server is still preparing ([`Readiness`]);
//! - answers `RESOURCE_EXHAUSTED` at once, before its message is read, a call that would pass
//!   `limits::MAX_IN_FLIGHT` calls being handled (health checks are never refused).
//!
//! It also opens each call's `rpc` tracing span (method; code and milliseconds logged at its end,
//! at debug level) and counts every answer that is not OK in the metrics, by code and method (an
//! error a stream sends after its first message is in its trailers and is not counted).
//!
//! Also [`catch_panic`] for the tasks that feed server streams, so that a stream ends with an error
//! rather than silently. Nothing here knows any service: it sees HTTP requests and their paths.

use std::collections::HashMap;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tonic::Status;
use tonic_types::{ErrorDetails, StatusExt};
use tracing::Instrument;

use super::limits;
use super::metrics::Metrics;

/// What a client is told when its call panicked (the panic's text goes to the server's log only).
pub const PANIC_MESSAGE: &str =
    "the server failed on this call (a bug, logged); nothing more was done for it";

/// The text of a panic's payload.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

/// A panic caught while polling a future, with the text it was raised with.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Panicked {
    /// The panic's message ("a panic without a message" when it had none).
    pub message: String,
}

/// Runs `future`, turning a panic while polling it into `Err` with the panic's text; the future is
/// never polled again after a panic, and is dropped (releasing what it held: locks, permits) as
/// soon as this completes.
pub async fn catch_panic<F: Future>(future: F) -> Result<F::Output, Panicked> {
    let mut future = std::pin::pin!(future);
    std::future::poll_fn(move |cx| {
        match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Err(payload) => Poll::Ready(Err(Panicked {
                message: panic_text(&*payload),
            })),
        }
    })
    .await
}

/// The deadline of a call, by its path (`/pitboss.v1.Play/OpenHand`).
type DeadlineOf = fn(&str) -> Duration;

/// Whether the server has finished preparing what its calls need (`warm.rs`): until it has,
/// every call but health and reflection is answered `UNAVAILABLE` at once.
#[derive(Clone, Debug)]
pub struct Readiness(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Readiness {
    /// A server still preparing (`ready`: false) or ready.
    pub fn new(ready: bool) -> Readiness {
        Readiness(std::sync::Arc::new(std::sync::atomic::AtomicBool::new(
            ready,
        )))
    }

    /// The server is ready: calls are served from now on.
    pub fn set_ready(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Release);
    }

    /// Whether the server is ready.
    pub fn is_ready(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Acquire)
    }
}

/// When a call refused while the server prepares is told to try again: a restart prepares in a
/// tenth of a second, a first start in seconds.
pub const RETRY_PREPARING: Duration = Duration::from_millis(250);

/// What a call made while the server prepares is told.
pub const PREPARING_MESSAGE: &str = "the server is preparing the default configurations' strategy \
     tables and theoretical returns (its first start on this data directory; a restart loads them); \
     try again in a moment";

/// Paths every server answers whatever its state: health (a load balancer asks it when the server
/// is preparing) and reflection.
fn always_answered(method: &str) -> bool {
    method.starts_with("/grpc.health.v1.Health/") || method.starts_with("/grpc.reflection.")
}

/// A client's `grpc-timeout` (an integer of at most 8 digits and a unit: `H`, `M`, `S`, `m`, `u`,
/// `n`), `None` if absent or malformed.
fn client_timeout(headers: &http::HeaderMap) -> Option<Duration> {
    let text = headers.get("grpc-timeout")?.to_str().ok()?;
    let (digits, unit) = text.split_at(text.len().checked_sub(1)?);
    if digits.is_empty() || digits.len() > 8 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let value: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(value * 3600),
        "M" => Duration::from_secs(value * 60),
        "S" => Duration::from_secs(value),
        "m" => Duration::from_millis(value),
        "u" => Duration::from_micros(value),
        "n" => Duration::from_nanos(value),
        _ => return None,
    })
}

/// The layer: [`Guarded`] around the server's routes.
#[derive(Clone)]
pub struct GuardLayer {
    deadline_of: DeadlineOf,
    readiness: Readiness,
    in_flight: std::sync::Arc<tokio::sync::Semaphore>,
    /// The most calls in flight (for the refusal's message).
    max_in_flight: usize,
    metrics: Option<std::sync::Arc<Metrics>>,
}

impl GuardLayer {
    /// Each service's deadline from `limits/`, at most `max_in_flight` calls handled at once,
    /// answers counted in `metrics`.
    pub fn new(max_in_flight: usize, metrics: Option<std::sync::Arc<Metrics>>) -> GuardLayer {
        GuardLayer {
            deadline_of: |path| limits::transport_of(path).deadline,
            readiness: Readiness::new(true),
            in_flight: std::sync::Arc::new(tokio::sync::Semaphore::new(max_in_flight)),
            max_in_flight,
            metrics,
        }
    }
}

impl GuardLayer {
    /// Calls refused while `readiness` says the server is preparing.
    pub fn preparing(self, readiness: Readiness) -> GuardLayer {
        GuardLayer { readiness, ..self }
    }
}

impl Default for GuardLayer {
    /// Each service's deadline and the calls in flight from `limits/`, no metrics.
    fn default() -> GuardLayer {
        GuardLayer::new(limits::MAX_IN_FLIGHT, None)
    }
}

impl<S> tower_layer::Layer<S> for GuardLayer {
    type Service = Guarded<S>;

    fn layer(&self, inner: S) -> Guarded<S> {
        Guarded {
            inner,
            deadline_of: self.deadline_of,
            readiness: self.readiness.clone(),
            in_flight: self.in_flight.clone(),
            max_in_flight: self.max_in_flight,
            metrics: self.metrics.clone(),
        }
    }
}

/// A service whose calls are guarded: panics become `INTERNAL`, overlong unary calls
/// `DEADLINE_EXCEEDED`, calls beyond the limit in flight `RESOURCE_EXHAUSTED`.
#[derive(Clone)]
pub struct Guarded<S> {
    inner: S,
    deadline_of: DeadlineOf,
    readiness: Readiness,
    in_flight: std::sync::Arc<tokio::sync::Semaphore>,
    max_in_flight: usize,
    metrics: Option<std::sync::Arc<Metrics>>,
}

/// The gRPC status code of an answer whose status is in its headers (0 when none is: the call
/// goes on as a stream, or succeeded).
fn code_of(response: &http::Response<tonic::body::Body>) -> u32 {
    response
        .headers()
        .get("grpc-status")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, B> tower_service::Service<http::Request<B>> for Guarded<S>
where
    S: tower_service::Service<http::Request<B>, Response = http::Response<tonic::body::Body>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Self::Response, Self::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let method = request.uri().path().to_string();
        let span = tracing::info_span!("rpc", method = %method);
        let answered = self.answer(method.clone(), request);
        let metrics = self.metrics.clone();
        Box::pin(
            async move {
                let started = std::time::Instant::now();
                let answer = answered.await;
                if let Ok(response) = &answer {
                    let code = code_of(response);
                    if let Some(metrics) = &metrics {
                        metrics.answered(&method, code);
                    }
                    tracing::debug!(code, ms = started.elapsed().as_millis(), "answered");
                }
                answer
            }
            .instrument(span),
        )
    }
}

impl<S> Guarded<S> {
    /// The call's answer: refused when too many are in flight, `INTERNAL` when it panics,
    /// `DEADLINE_EXCEEDED` when it outlives its deadline, else the service's.
    fn answer<B>(
        &mut self,
        method: String,
        request: http::Request<B>,
    ) -> BoxFuture<Result<http::Response<tonic::body::Body>, S::Error>>
    where
        S: tower_service::Service<http::Request<B>, Response = http::Response<tonic::body::Body>>,
        S::Future: Send + 'static,
        S::Error: Send + 'static,
    {
        if !self.readiness.is_ready() && !always_answered(&method) {
            let mut details = ErrorDetails::with_error_info("PREPARING", "pitboss", HashMap::new());
            details.set_retry_info(Some(RETRY_PREPARING));
            let preparing =
                Status::with_error_details(tonic::Code::Unavailable, PREPARING_MESSAGE, details);
            return Box::pin(async move { Ok(preparing.into_http()) });
        }
        let deadline = match client_timeout(request.headers()) {
            Some(asked) => asked.min((self.deadline_of)(&method)),
            None => (self.deadline_of)(&method),
        };
        let permit = if method.starts_with("/grpc.health.v1.Health/") {
            None
        } else {
            match self.in_flight.clone().try_acquire_owned() {
                Ok(permit) => Some(permit),
                Err(_) => {
                    let busy = Status::resource_exhausted(format!(
                        "{} calls are being handled, the most at once; try again shortly",
                        self.max_in_flight
                    ));
                    return Box::pin(async move { Ok(busy.into_http()) });
                }
            }
        };
        // A panic in `call` itself (before the future exists) is caught too.
        let inner = match catch_unwind(AssertUnwindSafe(|| self.inner.call(request))) {
            Ok(future) => future,
            Err(payload) => {
                let text = panic_text(&*payload);
                return Box::pin(async move { Ok(panicked(&method, &text)) });
            }
        };
        Box::pin(async move {
            let _permit = permit;
            match tokio::time::timeout(deadline, catch_panic(inner)).await {
                Ok(Ok(answer)) => answer,
                Ok(Err(caught)) => Ok(panicked(&method, &caught.message)),
                Err(_) => {
                    tracing::warn!(method, ?deadline, "a call outlived its deadline");
                    Ok(Status::deadline_exceeded(format!(
                        "{method} did not complete within its deadline of {} ms (the service's, \
                         or the client's when shorter)",
                        deadline.as_millis()
                    ))
                    .into_http())
                }
            }
        })
    }
}

/// Logs a handler's panic and answers the call `INTERNAL`.
fn panicked(method: &str, text: &str) -> http::Response<tonic::body::Body> {
    tracing::error!(method, panic = %text, "a handler panicked; the call is answered INTERNAL");
    Status::internal(PANIC_MESSAGE).into_http()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::health_client::HealthClient;
    use tonic_health::pb::health_server::{Health, HealthServer};
    use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse};

    /// A health service whose `Check` panics for the service name "panic" and sleeps for "slow".
    struct Fragile;

    #[tonic::async_trait]
    impl Health for Fragile {
        async fn check(
            &self,
            request: tonic::Request<HealthCheckRequest>,
        ) -> Result<tonic::Response<HealthCheckResponse>, Status> {
            match request.into_inner().service.as_str() {
                "panic" => panic!("a deliberate panic"),
                "slow" => tokio::time::sleep(Duration::from_secs(3600)).await,
                _ => {}
            }
            Ok(tonic::Response::new(HealthCheckResponse {
                status: ServingStatus::Serving as i32,
            }))
        }

        type WatchStream = tokio_stream::Empty<Result<HealthCheckResponse, Status>>;

        async fn watch(
            &self,
            _: tonic::Request<HealthCheckRequest>,
        ) -> Result<tonic::Response<Self::WatchStream>, Status> {
            Ok(tonic::Response::new(tokio_stream::empty()))
        }
    }

    /// Over a real HTTP/2 connection: a panicking handler answers INTERNAL for that call only; the
    /// same connection then serves the next call. A call past its deadline (here 300 ms) answers
    /// DEADLINE_EXCEEDED.
    #[tokio::test]
    async fn a_panic_in_a_handler_is_internal_for_that_call_only() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let server = tokio::spawn(
            tonic::transport::Server::builder()
                .layer(GuardLayer {
                    deadline_of: |_| Duration::from_millis(300),
                    ..GuardLayer::new(64, None)
                })
                .add_service(HealthServer::new(Fragile))
                .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener)),
        );
        let channel = tonic::transport::Channel::from_shared(format!("http://{address}"))
            .unwrap()
            .connect()
            .await
            .unwrap();
        let mut client = HealthClient::new(channel);
        let check = |service: &str| HealthCheckRequest {
            service: service.into(),
        };
        let e = client.check(check("panic")).await.unwrap_err();
        assert_eq!(e.code(), tonic::Code::Internal);
        assert_eq!(e.message(), PANIC_MESSAGE);
        for _ in 0..3 {
            let ok = client.check(check("fine")).await.unwrap().into_inner();
            assert_eq!(ok.status, ServingStatus::Serving as i32);
            assert_eq!(
                client.check(check("panic")).await.unwrap_err().code(),
                tonic::Code::Internal
            );
        }
        let e = client.check(check("slow")).await.unwrap_err();
        assert_eq!(e.code(), tonic::Code::DeadlineExceeded, "{e:?}");
        assert!(client.check(check("fine")).await.is_ok());
        server.abort();
    }

    #[test]
    fn a_client_timeout_reads_as_the_protocol_writes_it() {
        let headers = |value: &str| {
            let mut headers = http::HeaderMap::new();
            headers.insert("grpc-timeout", value.parse().unwrap());
            headers
        };
        assert_eq!(
            client_timeout(&headers("250m")),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            client_timeout(&headers("2H")),
            Some(Duration::from_secs(7200))
        );
        assert_eq!(
            client_timeout(&headers("99999999n")),
            Some(Duration::from_nanos(99_999_999))
        );
        for bad in ["", "m", "123456789m", "12x", "-1S", "1.5S"] {
            assert_eq!(client_timeout(&headers(bad)), None, "{bad:?}");
        }
        assert_eq!(client_timeout(&http::HeaderMap::new()), None);
    }

    #[tokio::test]
    async fn catch_panic_gives_the_output_or_the_text() {
        assert_eq!(catch_panic(async { 7 }).await, Ok(7));
        let caught = catch_panic(async {
            if true {
                panic!("boom {}", 1);
            }
        })
        .await;
        assert_eq!(
            caught,
            Err(Panicked {
                message: "boom 1".to_string()
            })
        );
    }
}
