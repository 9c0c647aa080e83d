//! Authentication and the role check, a tower layer in front of every service: it finds the
//! caller's principal from a bearer token (`authorization: Bearer …`) or the client certificate of
//! a mutual-TLS connection, refuses the call when the method's roles (`access::METHODS`) are not
//! the principal's, and hands the principal to the handler as an [`access::Caller`] extension.
//!
//! `UNAUTHENTICATED` (no credential, an unknown or revoked one) and `PERMISSION_DENIED` (a role the
//! principal lacks) carry an `ErrorInfo` naming the method and, for the latter, the principal and
//! the roles that may call it. A refused call never reaches a handler, so it writes nothing.
//! On a read-only server (`serve --read-only`) a call that may write the log
//! (`access::LOG_WRITERS`) is refused here too, once its caller is known: `FAILED_PRECONDITION`
//! (`READ_ONLY`), whatever its request.
//! Health is open. Scopes (tables, games) are the handlers' to check: only they know a hand's
//! table.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::access::{self, Access, Caller, Need, Principal};

/// The longest `authorization` header value looked at (a token is 67 characters).
const MAX_AUTHORIZATION: usize = 512;

/// The layer: [`Authenticated`] around the server's routes.
#[derive(Clone, Debug)]
pub struct AuthLayer {
    access: Arc<Access>,
    read_only: Option<Arc<str>>,
}

impl AuthLayer {
    /// Checks every call against `access`; on a read-only server (`read_only`: why it is),
    /// refuses every call that may write the log, saying why.
    pub fn new(access: Arc<Access>, read_only: Option<Arc<str>>) -> AuthLayer {
        AuthLayer { access, read_only }
    }
}

impl<S> tower_layer::Layer<S> for AuthLayer {
    type Service = Authenticated<S>;

    fn layer(&self, inner: S) -> Authenticated<S> {
        Authenticated {
            inner,
            access: self.access.clone(),
            read_only: self.read_only.clone(),
        }
    }
}

/// A service whose calls are authenticated and held to their roles.
#[derive(Clone, Debug)]
pub struct Authenticated<S> {
    inner: S,
    access: Arc<Access>,
    read_only: Option<Arc<str>>,
}

type BoxFuture<T> = Pin<Box<dyn std::future::Future<Output = T> + Send>>;

impl<S, B> tower_service::Service<http::Request<B>> for Authenticated<S>
where
    S: tower_service::Service<http::Request<B>, Response = http::Response<tonic::body::Body>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Self::Response, Self::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<B>) -> Self::Future {
        let method = request.uri().path().to_string();
        let need = access::need(&method);
        if need != Need::Open {
            let admitted = admit(&self.access, &request, &method, need).and_then(|principal| {
                match &self.read_only {
                    Some(why) if access::writes_log(&method) => {
                        Err(super::status::read_only(format!("{method}: {why}")))
                    }
                    _ => Ok(principal),
                }
            });
            match admitted {
                Ok(principal) => {
                    request.extensions_mut().insert(Caller(principal));
                }
                Err(status) => return Box::pin(async move { Ok(status.into_http()) }),
            }
        }
        let inner = self.inner.call(request);
        Box::pin(inner)
    }
}

/// The call's principal, if it may make the call.
fn admit<B>(
    access: &Access,
    request: &http::Request<B>,
    method: &str,
    need: Need,
) -> Result<Arc<Principal>, Status> {
    let principal = identify(access, request, method)?;
    match need {
        Need::AnyOf(roles) if !roles.iter().any(|r| principal.has(*r)) => {
            let names: Vec<&str> = roles.iter().map(|r| r.id()).collect();
            let message = format!(
                "{} may not call {method}: it needs one of the roles {}",
                principal.id,
                names.join(", ")
            );
            Err(Status::with_error_details(
                Code::PermissionDenied,
                message,
                ErrorDetails::with_error_info(
                    "ROLE_REQUIRED",
                    "pitboss",
                    HashMap::from([
                        ("method".to_string(), method.to_string()),
                        ("principal".to_string(), principal.id.clone()),
                        ("roles".to_string(), names.join(",")),
                    ]),
                ),
            ))
        }
        _ => Ok(principal),
    }
}

/// `UNAUTHENTICATED` with the reason and the method.
fn unauthenticated(method: &str, reason: &str, message: String) -> Status {
    Status::with_error_details(
        Code::Unauthenticated,
        message,
        ErrorDetails::with_error_info(
            reason,
            "pitboss",
            HashMap::from([("method".to_string(), method.to_string())]),
        ),
    )
}

/// Who the caller is: the bearer token's principal when the call carries one (a token that is
/// not known is refused, never passed over for the certificate), else the client certificate's.
fn identify<B>(
    access: &Access,
    request: &http::Request<B>,
    method: &str,
) -> Result<Arc<Principal>, Status> {
    if let Some(value) = request.headers().get(http::header::AUTHORIZATION) {
        let token = bearer(value.as_bytes()).ok_or_else(|| {
            unauthenticated(
                method,
                "MALFORMED_CREDENTIAL",
                "the authorization header is not `Bearer <token>`".into(),
            )
        })?;
        return access.by_token(token).ok_or_else(|| {
            unauthenticated(
                method,
                "UNKNOWN_CREDENTIAL",
                "the bearer token is not known to this server (mistyped, or revoked)".into(),
            )
        });
    }
    if let Some(subject) = certificate_subject(request) {
        return access.by_subject(&subject).ok_or_else(|| {
            unauthenticated(
                method,
                "UNKNOWN_CREDENTIAL",
                format!("no principal has the client certificate subject `{subject}`"),
            )
        });
    }
    Err(unauthenticated(
        method,
        "NO_CREDENTIAL",
        format!(
            "{method} needs a credential: `authorization: Bearer <token>` or a client certificate"
        ),
    ))
}

/// The token of an `authorization` header's value `Bearer <token>`.
fn bearer(value: &[u8]) -> Option<&str> {
    if value.len() > MAX_AUTHORIZATION {
        return None;
    }
    let text = std::str::from_utf8(value).ok()?;
    let (scheme, token) = text.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The subject of the verified client certificate of the call's TLS connection, as RFC 4514
/// prints it. rustls has checked the chain against the configured client CA before any call.
fn certificate_subject<B>(request: &http::Request<B>) -> Option<String> {
    use x509_cert::der::Decode;
    let peer = request.extensions().get::<Arc<super::Peer>>()?;
    let leaf = peer.certificates.as_ref()?.first()?;
    let cert = x509_cert::Certificate::from_der(leaf.as_ref()).ok()?;
    Some(cert.tbs_certificate.subject.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_reads_the_scheme_in_any_case_and_nothing_else() {
        assert_eq!(bearer(b"Bearer abc"), Some("abc"));
        assert_eq!(bearer(b"bearer abc "), Some("abc"));
        assert_eq!(bearer(b"Basic abc"), None);
        assert_eq!(bearer(b"Bearer "), None);
        assert_eq!(bearer(b"Bearer"), None);
        assert_eq!(bearer(&[b'x'; MAX_AUTHORIZATION + 1]), None);
    }
}
