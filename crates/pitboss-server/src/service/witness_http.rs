//! A witness over HTTP (C2SP `tlog-witness`): `POST <prefix>/add-checkpoint`, the body read to at
//! most the request's limit within a time, the decision on a blocking thread (it syncs the state to
//! disk), and the answer the specification gives each outcome — `200` with the cosignature line,
//! `409` with the size cosigned (`text/x.tlog.size`), `400`, `403`, `404`, `422`, or `500` when
//! the state cannot be kept (nothing cosigned then); and the monitoring API, `GET
//! <prefix>/<origin hash>/checkpoint` (the latest checkpoint cosigned for a log, `404` if none); and,
//! for a witness with an ML-DSA-44 key, the optional `POST <prefix>/sign-subtree` (`200` with the
//! subtree's cosignature line, `400`, `403`, `404`, `422`).
//! Owns the transport only; what is cosigned is `pitboss_witness::Witness`'s.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use tokio::net::TcpListener;

use pitboss_witness::request::MAX_BODY;
use pitboss_witness::{Refused, Witness, WitnessError};

use super::connections::{Admission, Deadlines};
use super::http::{reply, Limits, PLAIN};
use super::work::Shutdown;

/// The `Content-Type` of a `409`'s body (`tlog-witness`).
const SIZE: &str = "text/x.tlog.size";
/// How long a client may take to send its body.
const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// What is checked of a body before the witness decides (a mirror's: that it holds the tree), on
/// a blocking thread: `Err((status, why))` answers without the witness.
pub type Gate = Arc<dyn Fn(&[u8]) -> Result<(), (u16, String)> + Send + Sync>;

/// Connections a witness keeps at once, and from one peer: a log submits over one or two kept
/// connections; monitors poll now and then.
const MAX_CONNECTIONS: usize = 4_096;
const PER_PEER: usize = 64;
/// The longest a request may be in flight (its body is read within [`BODY_TIMEOUT`], its decision
/// syncs a small file).
const REQUEST_TIME: Duration = Duration::from_secs(60);

/// Serves `witness` on `listener`, its submission prefix `prefix` (`""` or `/a/path`), until
/// `stop` is triggered; each body first through `gate`, if any. The door's admission (for its
/// counts), and the serving.
pub fn serve_witness(
    listener: TcpListener,
    witness: Arc<Witness>,
    prefix: String,
    gate: Option<Gate>,
    deadlines: Deadlines,
    stop: Shutdown,
) -> (Arc<Admission>, impl Future<Output = ()> + Send) {
    let path: Arc<str> = format!("{}/add-checkpoint", prefix.trim_end_matches('/')).into();
    let limits = Limits {
        connections: deadlines.limits(MAX_CONNECTIONS, PER_PEER, Some(REQUEST_TIME)),
        max_head: 16 * 1024,
        // Logs SHOULD keep their connections (`tlog-witness`).
        keep_alive: true,
    };
    super::http::serve(listener, limits, stop, "witness", move |request| {
        answer(witness.clone(), path.clone(), gate.clone(), request)
    })
}

/// The origin hash of a monitoring path, `<prefix>/<SHA-256 of the origin, lowercase hex>/checkpoint`
/// (the monitoring prefix is the submission prefix), given the submission path.
fn monitoring_path<'a>(submission: &str, path: &'a str) -> Option<&'a str> {
    let prefix = submission.strip_suffix("/add-checkpoint")?;
    let hash = path
        .strip_prefix(prefix)?
        .strip_prefix('/')?
        .strip_suffix("/checkpoint")?;
    (hash.len() == 64 && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
        .then_some(hash)
}

/// `GET <prefix>/<origin hash>/checkpoint` (tlog-witness's monitoring API): the latest checkpoint
/// cosigned for that log, with the log's signature and the witness's cosignature; `404` for a log
/// it never cosigned.
async fn monitored(
    witness: Arc<Witness>,
    origin_hash: String,
    method: &Method,
) -> Response<Full<Bytes>> {
    if method != Method::GET {
        return reply(StatusCode::METHOD_NOT_ALLOWED, "only GET\n", PLAIN);
    }
    let found =
        tokio::task::spawn_blocking(move || witness.monitored(&origin_hash, now_seconds())).await;
    match found {
        Ok(Ok(Some(note))) => reply(StatusCode::OK, note, PLAIN),
        Ok(Ok(None)) => reply(
            StatusCode::NOT_FOUND,
            "no checkpoint cosigned for that log\n",
            PLAIN,
        ),
        Ok(Err(e)) => {
            tracing::error!(error = %e, "witness: the cosigned checkpoint could not be read");
            reply(StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n"), PLAIN)
        }
        Err(_) => reply(StatusCode::INTERNAL_SERVER_ERROR, "internal error\n", PLAIN),
    }
}

/// Seconds since the Epoch (0 if the clock is before it: the witness then refuses to sign).
fn now_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

async fn answer(
    witness: Arc<Witness>,
    path: Arc<str>,
    gate: Option<Gate>,
    request: Request<Incoming>,
) -> Response<Full<Bytes>> {
    let subtree = request.uri().path().strip_suffix("/sign-subtree")
        == path.strip_suffix("/add-checkpoint")
        && witness.signs_subtrees();
    if request.uri().path() != &*path && !subtree {
        if let Some(origin_hash) = monitoring_path(&path, request.uri().path()) {
            return monitored(witness, origin_hash.to_string(), request.method()).await;
        }
        return reply(
            StatusCode::NOT_FOUND,
            format!("the witness is at {path}\n"),
            PLAIN,
        );
    }
    if request.method() != Method::POST {
        return reply(StatusCode::METHOD_NOT_ALLOWED, "only POST\n", PLAIN);
    }
    let body = Limited::new(request.into_body(), MAX_BODY).collect();
    let body = match tokio::time::timeout(BODY_TIMEOUT, body).await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => {
            return reply(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("a body of at most {MAX_BODY} bytes\n"),
                PLAIN,
            )
        }
        Ok(Err(e)) => {
            return reply(
                StatusCode::BAD_REQUEST,
                format!("the body could not be read: {e}\n"),
                PLAIN,
            )
        }
        Err(_) => {
            return reply(
                StatusCode::REQUEST_TIMEOUT,
                "the body came too slowly\n",
                PLAIN,
            )
        }
    };
    let now = now_seconds();
    let decided = tokio::task::spawn_blocking(move || {
        if subtree {
            return Ok(witness.sign_subtree(&body));
        }
        if let Some(gate) = gate {
            gate(&body)?;
        }
        Ok(witness.add_checkpoint(&body, now))
    })
    .await;
    let decided = match decided {
        Ok(Err((status, why))) => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::SERVICE_UNAVAILABLE);
            return reply(status, format!("{why}\n"), PLAIN);
        }
        Ok(Ok(decided)) => Ok(decided),
        Err(e) => Err(e),
    };
    match decided {
        Ok(Ok(cosignature)) => reply(StatusCode::OK, cosignature, PLAIN),
        Ok(Err(WitnessError::Refused(Refused::Conflict { size }))) => {
            reply(StatusCode::CONFLICT, format!("{size}\n"), SIZE)
        }
        Ok(Err(WitnessError::Refused(refused))) => {
            if let Refused::Inconsistent(why) = &refused {
                // The log signed it: worth an operator's attention (kept under state/).
                tracing::warn!(%why, "witness: a signed checkpoint inconsistent with what was cosigned");
            }
            let status = StatusCode::from_u16(refused.status()).unwrap_or(StatusCode::BAD_REQUEST);
            reply(status, format!("{refused}\n"), PLAIN)
        }
        Ok(Err(e)) => {
            tracing::error!(error = %e, "witness: nothing cosigned");
            reply(StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n"), PLAIN)
        }
        Err(e) => {
            tracing::error!(error = %e, "witness: the decision did not finish");
            reply(StatusCode::INTERNAL_SERVER_ERROR, "internal error\n", PLAIN)
        }
    }
}
