//! The one HTTP call a log makes to a witness (`POST <prefix>/add-checkpoint`, C2SP
//! `tlog-witness`): plain HTTP/1.1 to the witness's submission URL, the answer bounded in size and
//! time. Owns the transport only: what is sent and what an answer means is `mod.rs`'s.

use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;

/// The largest answer read (a few cosignature lines, or a size).
const MAX_ANSWER: usize = 16 * 1024;

/// An answer: its status, whether it is a size (`text/x.tlog.size`), its body.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) is_size: bool,
    pub(crate) body: String,
}

/// Why a witness gave no answer.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CallError {
    #[error("{url}: only http://host:port[/prefix] URLs are supported")]
    Url { url: String },
    #[error("{0}")]
    Transport(String),
    #[error("no answer within {0:?}")]
    Timeout(Duration),
}

/// `POST {url}/add-checkpoint` with `body`, within `timeout`.
pub(crate) async fn add_checkpoint(
    url: &str,
    body: String,
    timeout: Duration,
) -> Result<Answer, CallError> {
    tokio::time::timeout(timeout, call(url, body))
        .await
        .map_err(|_| CallError::Timeout(timeout))?
}

async fn call(url: &str, body: String) -> Result<Answer, CallError> {
    let bad_url = || CallError::Url {
        url: url.to_string(),
    };
    let rest = url.strip_prefix("http://").ok_or_else(bad_url)?;
    let (host, prefix) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    if host.is_empty() || host.contains(['@', ' ']) {
        return Err(bad_url());
    }
    let transport = |e: &dyn std::fmt::Display| CallError::Transport(e.to_string());
    let stream = tokio::net::TcpStream::connect(host)
        .await
        .map_err(|e| transport(&e))?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(|e| transport(&e))?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    let request = hyper::Request::post(format!("{}/add-checkpoint", prefix.trim_end_matches('/')))
        .header(hyper::header::HOST, host)
        .header(hyper::header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| transport(&e))?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| transport(&e))?;
    let status = response.status().as_u16();
    let is_size = response
        .headers()
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/x.tlog.size"));
    let body = Limited::new(response.into_body(), MAX_ANSWER)
        .collect()
        .await
        .map_err(|e| transport(&*e))?
        .to_bytes();
    Ok(Answer {
        status,
        is_size,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}
