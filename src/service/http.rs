//! The side doors' HTTP/1.1 server (the metrics endpoint, a witness): the listener's connections
//! bounded — at most `connections` at once (more wait in the backlog), a request head of at most
//! `max_head` bytes read within `head_timeout`, every connection closed after `connection_time`
//! whatever it is doing — until the shutdown is triggered. What is answered is the caller's
//! handler's; this module reads no body and knows no path.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use tokio::net::TcpListener;

use super::work::Shutdown;

/// How much of the server one client may hold.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections served at once.
    pub connections: usize,
    /// How long a client may take to send a request head.
    pub head_timeout: Duration,
    /// The largest request head read.
    pub max_head: usize,
    /// Whether a connection may carry more than one request.
    pub keep_alive: bool,
    /// How long a connection may last.
    pub connection_time: Duration,
}

/// Serves `listener` with `handler` until `stop` is triggered; `what` names the door in logs.
pub async fn serve<H, F>(
    listener: TcpListener,
    limits: Limits,
    stop: Shutdown,
    what: &'static str,
    handler: H,
) where
    H: Fn(Request<Incoming>) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Response<Full<Bytes>>> + Send + 'static,
{
    let open = Arc::new(tokio::sync::Semaphore::new(limits.connections));
    loop {
        let Ok(permit) = open.clone().acquire_owned().await else {
            return;
        };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = stop.wait() => return,
        };
        let (stream, _) = match accepted {
            Ok(connection) => connection,
            Err(e) => {
                tracing::warn!(error = %e, "{what}: accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let handler = handler.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let service = hyper::service::service_fn(move |request| {
                let answer = handler(request);
                async move { Ok::<_, Infallible>(answer.await) }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(limits.head_timeout)
                .max_buf_size(limits.max_head)
                .keep_alive(limits.keep_alive)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            match tokio::time::timeout(limits.connection_time, connection).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::debug!(error = %e, "{what}: connection ended"),
                Err(_) => tracing::debug!("{what}: a connection past its time was closed"),
            }
        });
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
