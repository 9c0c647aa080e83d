//! The metrics endpoint (`serve --metrics ADDR`): plain HTTP/1.1 on its own listener, `GET
//! /metrics` answered with [`Metrics::render`]; every other path `404`, every other method `405`.
//!
//! Owns the listener's connections, bounded like the gRPC ones: at most [`MAX_SCRAPERS`]
//! connections at once (more wait in the backlog), a request head of at most 8 KiB read within
//! 10 s, request bodies never read, and every connection closed after its answer. It renders
//! nothing itself and serves nothing but the metrics (no request reaches the floor).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::{Method, Request, Response, StatusCode};
use tokio::net::TcpListener;

use super::metrics::Metrics;

/// The most scrapers served at once.
pub const MAX_SCRAPERS: usize = 16;
/// How long a scraper may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest request head read.
const MAX_HEAD: usize = 8 * 1024;

/// The `Content-Type` of an answer that is not the metrics.
const PLAIN: &str = "text/plain; charset=utf-8";

/// Answers one request.
fn answer(metrics: &Metrics, request: &Request<hyper::body::Incoming>) -> Response<Full<Bytes>> {
    let reply = |status: StatusCode, body: String, content_type: &'static str| {
        let mut response = Response::new(Full::new(Bytes::from(body)));
        *response.status_mut() = status;
        response.headers_mut().insert(
            hyper::header::CONTENT_TYPE,
            hyper::header::HeaderValue::from_static(content_type),
        );
        response
    };
    match (request.method(), request.uri().path()) {
        (&Method::GET | &Method::HEAD, "/metrics") => reply(
            StatusCode::OK,
            metrics.render(),
            super::metrics::CONTENT_TYPE,
        ),
        (_, "/metrics") => reply(
            StatusCode::METHOD_NOT_ALLOWED,
            "only GET /metrics\n".into(),
            PLAIN,
        ),
        _ => reply(
            StatusCode::NOT_FOUND,
            "metrics are at /metrics\n".into(),
            PLAIN,
        ),
    }
}

/// Serves `listener` until `stop` is set.
pub async fn serve(listener: TcpListener, metrics: Arc<Metrics>, stop: super::work::Shutdown) {
    let open = Arc::new(tokio::sync::Semaphore::new(MAX_SCRAPERS));
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
                tracing::warn!(error = %e, "metrics endpoint: accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let metrics = metrics.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let service = hyper::service::service_fn(move |request| {
                let response = answer(&metrics, &request);
                async move { Ok::<_, Infallible>(response) }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEAD_TIMEOUT)
                .max_buf_size(MAX_HEAD)
                .keep_alive(false)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            // A scraper that stalls mid-answer is not waited for past the head timeout twice over.
            match tokio::time::timeout(2 * HEAD_TIMEOUT, connection).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::debug!(error = %e, "metrics endpoint: connection ended"),
                Err(_) => tracing::debug!("metrics endpoint: a slow connection was closed"),
            }
        });
    }
}
