//! The metrics endpoint (`serve --metrics ADDR`): plain HTTP/1.1 on its own listener, `GET
//! /metrics` answered with [`Metrics::render`] in the text format the `Accept` header asks for
//! (`exposition.rs`: OpenMetrics or Prometheus's classic text); every other path `404`, every other
//! method `405`.
//!
//! Owns the listener's answers; its connections are bounded as every listener's are
//! (`connections.rs`): at most [`MAX_SCRAPERS`] kept, 16 from one peer, a request head of at most
//! 8 KiB within the handshake deadline, request bodies never read, every connection closed after
//! its answer. It renders nothing itself and serves nothing but the metrics (no request reaches
//! the floor).

use std::sync::Arc;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::{Method, Request, Response, StatusCode};
use tokio::net::TcpListener;

use super::connections::{Admission, Deadlines};
use super::exposition::{self, Format};
use super::http::{reply, Limits, PLAIN};
use super::metrics::Metrics;

/// The most scrapers' connections kept at once, and from one peer.
pub const MAX_SCRAPERS: usize = 256;
const PER_PEER: usize = 16;
/// The longest a scrape's answer may take to be sent.
const REQUEST_TIME: Duration = Duration::from_secs(30);
/// The largest request head read.
const MAX_HEAD: usize = 8 * 1024;

/// Answers one request: the metrics in the format its `Accept` header asks for.
fn answer(metrics: &Metrics, request: &Request<hyper::body::Incoming>) -> Response<Full<Bytes>> {
    match (request.method(), request.uri().path()) {
        (&Method::GET | &Method::HEAD, "/metrics") => {
            let accept = request
                .headers()
                .get(hyper::header::ACCEPT)
                .and_then(|v| v.to_str().ok());
            let format = exposition::negotiate(accept);
            let text = metrics.render();
            let text = match format {
                Format::OpenMetrics => text,
                Format::Classic => match exposition::classic(&text) {
                    Ok(text) => text,
                    Err(e) => {
                        tracing::error!(error = %e, "the metrics have no classic text");
                        return reply(StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n"), PLAIN);
                    }
                },
            };
            let mut response = reply(StatusCode::OK, text, format.content_type());
            response.headers_mut().insert(
                hyper::header::VARY,
                hyper::header::HeaderValue::from_static("Accept"),
            );
            response
        }
        (_, "/metrics") => reply(StatusCode::METHOD_NOT_ALLOWED, "only GET /metrics\n", PLAIN),
        _ => reply(StatusCode::NOT_FOUND, "metrics are at /metrics\n", PLAIN),
    }
}

/// Serves `listener` until `stop` is set: the door's admission (its counts are among the metrics),
/// and the serving.
pub fn serve(
    listener: TcpListener,
    metrics: Arc<Metrics>,
    deadlines: Deadlines,
    stop: super::work::Shutdown,
) -> (Arc<Admission>, impl std::future::Future<Output = ()> + Send) {
    let limits = Limits {
        connections: deadlines.limits(MAX_SCRAPERS, PER_PEER, Some(REQUEST_TIME)),
        max_head: MAX_HEAD,
        keep_alive: false,
    };
    super::http::serve(listener, limits, stop, "metrics endpoint", move |request| {
        let response = answer(&metrics, &request);
        async move { response }
    })
}
