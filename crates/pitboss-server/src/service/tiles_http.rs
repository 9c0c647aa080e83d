//! The tiles' door (`serve --tiles DIR --tiles-listen ADDR`): the directory `tiling.rs` keeps,
//! served read-only over HTTP/1.1 as C2SP `tlog-tiles` asks — `GET /checkpoint` (text, not cached
//! beyond a few seconds), `GET /tile/<L>/<N>[.p/<W>]`, `/tile/entries/…` and `/tile/records/…`
//! (bytes, immutable). Every other path `404`, every other method `405`.
//!
//! Owns only the mapping from a request's path to a file: a path is served only if it is exactly
//! one the tile writer writes (`TilePath::parse`), so no request names any other file. Reads no
//! body and reaches nothing but the directory.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::header::{HeaderValue, CACHE_CONTROL};
use hyper::{Method, Request, Response, StatusCode};
use pitboss_ledger::tiles::path::{Kind, TilePath, WIDTH};
use pitboss_ledger::tiles::{CHECKPOINT, MAX_RECORD};
use tokio::net::TcpListener;

use super::connections::{Admission, Deadlines};
use super::http::{reply, Limits, PLAIN};

/// Readers' connections kept at once, and from one peer (a cache or a proxy may read for many).
pub const MAX_READERS: usize = 4_096;
const PER_PEER: usize = 256;
/// The longest a tile's answer may take to be sent.
const REQUEST_TIME: Duration = Duration::from_secs(60);

/// The largest file of each kind: what is read before the rest is refused.
fn largest(tile: &TilePath) -> u64 {
    match tile.kind {
        Kind::Hashes(_) => WIDTH * 32,
        Kind::Entries => WIDTH * 34,
        Kind::Records => WIDTH * (2 + MAX_RECORD as u64),
    }
}

/// Answers one request from the directory at `root`.
async fn answer(
    root: &std::path::Path,
    request: &Request<hyper::body::Incoming>,
) -> Response<Full<Bytes>> {
    if !matches!(request.method(), &Method::GET | &Method::HEAD) {
        let mut response = reply(StatusCode::METHOD_NOT_ALLOWED, "only GET\n", PLAIN);
        response
            .headers_mut()
            .insert(hyper::header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    let path = request.uri().path().trim_start_matches('/');
    let (file, limit, content_type, cache) = if path == CHECKPOINT {
        (
            root.join(CHECKPOINT),
            64 * 1024,
            PLAIN,
            "no-cache, max-age=2",
        )
    } else if let Some(tile) = TilePath::parse(path) {
        (
            root.join(tile.render()),
            largest(&tile),
            "application/octet-stream",
            "public, max-age=31536000, immutable",
        )
    } else {
        return reply(StatusCode::NOT_FOUND, "no such tile\n", PLAIN);
    };
    // A bounded read of one file, off the runtime's threads.
    let read = tokio::task::spawn_blocking(move || -> Option<Vec<u8>> {
        use std::io::Read;
        let mut bytes = Vec::new();
        let file = std::fs::File::open(&file).ok()?;
        if !file.metadata().ok()?.is_file() {
            return None;
        }
        file.take(limit + 1).read_to_end(&mut bytes).ok()?;
        Some(bytes)
    })
    .await;
    match read {
        Ok(Some(bytes)) if bytes.len() as u64 <= limit => {
            let mut response = reply(StatusCode::OK, bytes, content_type);
            response
                .headers_mut()
                .insert(CACHE_CONTROL, HeaderValue::from_static(cache));
            response
        }
        Ok(Some(_)) | Err(_) => reply(StatusCode::INTERNAL_SERVER_ERROR, "not a tile\n", PLAIN),
        Ok(None) => reply(StatusCode::NOT_FOUND, "no such tile\n", PLAIN),
    }
}

/// Serves the directory `root` on `listener` until `stop` is set: the door's admission (its
/// counts are among the metrics), and the serving.
pub fn serve(
    listener: TcpListener,
    root: PathBuf,
    deadlines: Deadlines,
    stop: super::work::Shutdown,
) -> (Arc<Admission>, impl std::future::Future<Output = ()> + Send) {
    let limits = Limits {
        connections: deadlines.limits(MAX_READERS, PER_PEER, Some(REQUEST_TIME)),
        max_head: 8 * 1024,
        keep_alive: true,
    };
    let root = Arc::new(root);
    super::http::serve(listener, limits, stop, "tiles", move |request| {
        let root = root.clone();
        async move { answer(&root, &request).await }
    })
}
