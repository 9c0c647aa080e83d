//! A witness over HTTP (C2SP `tlog-witness`): `POST <prefix>/add-checkpoint`, the body read to at
//! most the request's limit within a time, the decision on a blocking thread (it syncs the state to
//! disk), and the answer the specification gives each outcome — `200` with the cosignature line,
//! `409` with the size cosigned (`text/x.tlog.size`), `400`, `403`, `404`, `422`, or `500` when
//! the state cannot be kept (nothing cosigned then). Owns the transport only; what is cosigned is
//! `pitboss_witness::Witness`'s.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use tokio::net::TcpListener;

use pitboss_witness::request::MAX_BODY;
use pitboss_witness::{Refused, Witness, WitnessError};

use super::http::{reply, Limits, PLAIN};
use super::work::Shutdown;

/// The `Content-Type` of a `409`'s body (`tlog-witness`).
const SIZE: &str = "text/x.tlog.size";
/// How long a client may take to send its body.
const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// What is checked of a body before the witness decides (a mirror's: that it holds the tree), on
/// a blocking thread: `Err((status, why))` answers without the witness.
pub type Gate = Arc<dyn Fn(&[u8]) -> Result<(), (u16, String)> + Send + Sync>;

/// Serves `witness` on `listener`, its submission prefix `prefix` (`""` or `/a/path`), until
/// `signal` completes; each body first through `gate`, if any.
pub async fn serve_witness(
    listener: TcpListener,
    witness: Arc<Witness>,
    prefix: String,
    gate: Option<Gate>,
    signal: impl Future<Output = ()> + Send + 'static,
) {
    let stop = Shutdown::default();
    let trigger = stop.clone();
    tokio::spawn(async move {
        signal.await;
        trigger.trigger();
    });
    let path: Arc<str> = format!("{}/add-checkpoint", prefix.trim_end_matches('/')).into();
    let limits = Limits {
        connections: 64,
        head_timeout: Duration::from_secs(10),
        max_head: 16 * 1024,
        // Logs SHOULD keep their connections (`tlog-witness`).
        keep_alive: true,
        connection_time: Duration::from_secs(300),
    };
    super::http::serve(listener, limits, stop, "witness", move |request| {
        answer(witness.clone(), path.clone(), gate.clone(), request)
    })
    .await;
}

async fn answer(
    witness: Arc<Witness>,
    path: Arc<str>,
    gate: Option<Gate>,
    request: Request<Incoming>,
) -> Response<Full<Bytes>> {
    if request.uri().path() != &*path {
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
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let decided = tokio::task::spawn_blocking(move || {
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
