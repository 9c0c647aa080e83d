//! The side doors' HTTP/1.1 (the metrics endpoint, the tiles, a witness): hyper's server on each
//! connection `connections.rs` admits, with its budgets and deadlines — the first request head
//! within the handshake deadline, an idle keep-alive connection closed, a request that outlives
//! the request deadline cut — a request head of at most `max_head` bytes, until the shutdown is
//! triggered. What is answered is the caller's handler's; this module reads no body and knows no
//! path.

use std::convert::Infallible;
use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::Arc;
use std::task::{Context, Poll};

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;

use super::connections::{accept, Admission, Busy, ConnectionLimits, Expiry};
use super::work::Shutdown;

/// How much of the server one door's clients may hold.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The connections' budgets and deadlines.
    pub connections: ConnectionLimits,
    /// The largest request head read.
    pub max_head: usize,
    /// Whether a connection may carry more than one request.
    pub keep_alive: bool,
}

/// Serves `listener` with `handler` until `stop` is triggered; `what` names the door in logs.
/// Returns the admission, whose counts the metrics read, once the door is open.
pub fn serve<H, F>(
    listener: TcpListener,
    limits: Limits,
    stop: Shutdown,
    what: &'static str,
    handler: H,
) -> (Arc<Admission>, impl Future<Output = ()> + Send)
where
    H: Fn(Request<Incoming>) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Response<Full<Bytes>>> + Send + 'static,
{
    let admission = Admission::new(limits.connections);
    let grace = limits.connections.handshake;
    let stopping = stop.clone();
    let serving = accept(
        listener,
        admission.clone(),
        stop,
        what,
        move |stream, remote, ticket| {
            let handler = handler.clone();
            let stop = stopping.clone();
            async move {
                let activity = ticket.activity().clone();
                let service = hyper::service::service_fn(move |request| {
                    let busy = activity.begin();
                    let answer = handler(request);
                    async move {
                        let response = answer.await;
                        Ok::<_, Infallible>(response.map(|body| Held { body, _busy: busy }))
                    }
                });
                // The deadlines are the watchdog's (`connections.rs`), which counts why it closes;
                // hyper's own head timeout is only a net behind it.
                let mut connection = pin!(hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(limits.connections.handshake + limits.connections.idle)
                    .max_buf_size(limits.max_head)
                    .keep_alive(limits.keep_alive)
                    .serve_connection(TokioIo::new(stream), service));
                let mut ending: Option<tokio::time::Instant> = None;
                let mut going_away = false;
                loop {
                    tokio::select! {
                        served = connection.as_mut() => {
                            if let Err(e) = served {
                                tracing::debug!(%remote, error = %e, "{what}: connection ended");
                            }
                            return;
                        }
                        expiry = ticket.expired(), if ending.is_none() => {
                            tracing::debug!(%remote, ?expiry, "{what}: connection closed");
                            if expiry != Expiry::Idle {
                                return;
                            }
                            connection.as_mut().graceful_shutdown();
                            ending = Some(tokio::time::Instant::now() + grace);
                        }
                        () = stop.wait(), if !going_away => {
                            if !ticket.activity().established() {
                                return;
                            }
                            connection.as_mut().graceful_shutdown();
                            going_away = true;
                        }
                        () = until(ending) => return,
                    }
                }
            }
        },
    );
    (admission, serving)
}

/// Waits until `at`, forever when `None`.
async fn until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// An answer's body, holding its request in flight on the connection until it is sent.
pub struct Held {
    body: Full<Bytes>,
    _busy: Busy,
}

impl hyper::body::Body for Held {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, Infallible>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

/// An answer of `status` with `body` as `content_type`.
pub fn reply(
    status: hyper::StatusCode,
    body: impl Into<Bytes>,
    content_type: &'static str,
) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body.into()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static(content_type),
    );
    response
}

/// The `Content-Type` of plain text answers.
pub const PLAIN: &str = "text/plain; charset=utf-8";
