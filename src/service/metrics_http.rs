//! The metrics endpoint (`serve --metrics ADDR`): plain HTTP/1.1 on its own listener, `GET
//! /metrics` answered with [`Metrics::render`]; every other path `404`, every other method `405`.
//!
//! Owns the listener's connections, bounded like the gRPC ones: at most [`MAX_SCRAPERS`]
//! connections at once (more wait in the backlog), a request head of at most 8 KiB read within
//! 10 s, request bodies never read, and every connection closed after its answer. It renders
//! nothing itself and serves nothing but the metrics (no request reaches the floor).

use std::sync::Arc;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::{Method, Request, Response, StatusCode};
use tokio::net::TcpListener;

use super::http::{reply, Limits, PLAIN};
use super::metrics::Metrics;

/// The most scrapers served at once.
pub const MAX_SCRAPERS: usize = 16;
/// How long a scraper may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest request head read.
const MAX_HEAD: usize = 8 * 1024;

/// Answers one request.
fn answer(metrics: &Metrics, request: &Request<hyper::body::Incoming>) -> Response<Full<Bytes>> {
    match (request.method(), request.uri().path()) {
        (&Method::GET | &Method::HEAD, "/metrics") => reply(
            StatusCode::OK,
            metrics.render(),
            super::metrics::CONTENT_TYPE,
        ),
        (_, "/metrics") => reply(StatusCode::METHOD_NOT_ALLOWED, "only GET /metrics\n", PLAIN),
        _ => reply(StatusCode::NOT_FOUND, "metrics are at /metrics\n", PLAIN),
    }
}

/// Serves `listener` until `stop` is set.
pub async fn serve(listener: TcpListener, metrics: Arc<Metrics>, stop: super::work::Shutdown) {
    let limits = Limits {
        connections: MAX_SCRAPERS,
        head_timeout: HEAD_TIMEOUT,
        max_head: MAX_HEAD,
        keep_alive: false,
        // A scraper that stalls mid-answer is not waited for past the head timeout twice over.
        connection_time: 2 * HEAD_TIMEOUT,
    };
    super::http::serve(listener, limits, stop, "metrics endpoint", move |request| {
        let response = answer(&metrics, &request);
        async move { response }
    })
    .await;
}
