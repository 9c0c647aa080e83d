//! Where beacon rounds come from: drand's HTTP API (`GET <url>/<chain hash>/public/<round>`), served
//! by drand's own nodes, a relay the operator runs, or the tests' local source. Plain HTTP/1.1, one
//! connection per fetch, the answer bounded in size ([`pitboss_beacon::DOCUMENT_MAX`]) and time.
//! An HTTPS endpoint is reached through a relay on the operator's side (`docs/rng.md` §1a).
//!
//! Owns the transport only: what a document means, and whether its signature holds, is
//! `pitboss_beacon`'s.

use std::time::Duration;

use http_body_util::{BodyExt, Empty, Limited};
use hyper::body::Bytes;

/// How long one fetch may take.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// Why a fetch gave no round.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// A source URL that is not `http://host:port[/prefix]`.
    #[error("{url}: a beacon source is an http://host:port[/prefix] URL")]
    Url { url: String },
    /// The round is not published yet (404, 425).
    #[error("round {round} is not served yet ({status})")]
    NotYet { round: u64, status: u16 },
    /// Any other answer.
    #[error("the source answered {status} for round {round}")]
    Status { round: u64, status: u16 },
    /// No answer: the connection failed, the answer was too large, or time ran out.
    #[error("the source gave no answer: {0}")]
    Transport(String),
}

/// A drand HTTP API at a URL.
#[derive(Clone, Debug)]
pub struct HttpSource {
    /// `host:port`, for the socket and the `Host` header.
    host: String,
    /// The path prefix, without a trailing `/`.
    prefix: String,
}

impl HttpSource {
    /// The source at `url` (`http://host:port[/prefix]`).
    pub fn new(url: &str) -> Result<HttpSource, FetchError> {
        let target = crate::plain_http::target(url).ok_or_else(|| FetchError::Url {
            url: url.to_string(),
        })?;
        Ok(HttpSource {
            host: target.host,
            prefix: target.prefix,
        })
    }

    /// Round `round` of chain `chain`'s `/public/<round>` document, within [`FETCH_TIMEOUT`].
    pub async fn fetch(&self, chain: &[u8; 32], round: u64) -> Result<Vec<u8>, FetchError> {
        tokio::time::timeout(FETCH_TIMEOUT, self.get(chain, round))
            .await
            .unwrap_or_else(|_| {
                Err(FetchError::Transport(format!(
                    "no answer within {FETCH_TIMEOUT:?}"
                )))
            })
    }

    async fn get(&self, chain: &[u8; 32], round: u64) -> Result<Vec<u8>, FetchError> {
        let transport = |e: &dyn std::fmt::Display| FetchError::Transport(e.to_string());
        let stream = tokio::net::TcpStream::connect(&self.host)
            .await
            .map_err(|e| transport(&e))?;
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                .await
                .map_err(|e| transport(&e))?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        let path = format!("{}/{}/public/{round}", self.prefix, hex::encode(chain));
        let request = hyper::Request::get(path.as_str())
            .header(hyper::header::HOST, self.host.as_str())
            .header(hyper::header::ACCEPT, "application/json")
            .body(Empty::<Bytes>::new())
            .map_err(|e| transport(&e))?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| transport(&e))?;
        let status = response.status().as_u16();
        let body = Limited::new(response.into_body(), pitboss_beacon::DOCUMENT_MAX)
            .collect()
            .await
            .map_err(|e| transport(&*e))?
            .to_bytes();
        match status {
            200 => Ok(body.to_vec()),
            404 | 425 => Err(FetchError::NotYet { round, status }),
            _ => Err(FetchError::Status { round, status }),
        }
    }
}
