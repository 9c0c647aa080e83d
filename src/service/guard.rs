//! The last line of defence around every call: a tower layer over all services that
//!
//! - catches a panic in a handler's future, logs it (method and message) and answers that call
//!   `INTERNAL`; the connection and every other call on it go on, and so does the server;
//! - answers a unary call that outlives its service's deadline (`limits.rs`) with
//!   `DEADLINE_EXCEEDED` (a client's own shorter `grpc-timeout` is applied by tonic as well);
//! - answers `RESOURCE_EXHAUSTED` at once, before its message is read, a call that would pass
//!   `limits::MAX_IN_FLIGHT` calls being handled (health checks are never refused).
//!
//! It also opens each call's `rpc` tracing span (method; code and milliseconds logged at its end,
//! at debug level) and counts every answer that is not OK in the metrics, by code and method (an
//! error a stream sends after its first message is in its trailers and is not counted).
//!
//! Also [`catch_panic`] for the tasks that feed server streams, so that a stream ends with an error
//! rather than silently. Nothing here knows any service: it sees HTTP requests and their paths.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tonic::Status;
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

/// The layer: [`Guarded`] around the server's routes.
#[derive(Clone)]
pub struct GuardLayer {
    deadline_of: DeadlineOf,
    in_flight: std::sync::Arc<tokio::sync::Semaphore>,
    /// The most calls in flight (for the refusal's message).
    max_in_flight: usize,
    metrics: Option<std::sync::Arc<Metrics>>,
}

impl GuardLayer {
    /// Each service's deadline from `limits.rs`, at most `max_in_flight` calls handled at once,
    /// answers counted in `metrics`.
    pub fn new(max_in_flight: usize, metrics: Option<std::sync::Arc<Metrics>>) -> GuardLayer {
        GuardLayer {
            deadline_of: |path| limits::transport_of(path).deadline,
            in_flight: std::sync::Arc::new(tokio::sync::Semaphore::new(max_in_flight)),
            max_in_flight,
            metrics,
        }
    }
}

impl Default for GuardLayer {
    /// Each service's deadline and the calls in flight from `limits.rs`, no metrics.
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
        let deadline = (self.deadline_of)(&method);
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
                        "{method} did not complete within the service's deadline of {} ms",
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
