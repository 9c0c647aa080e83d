//! The client's side of authentication, for pitboss's own clients (the CLI, the tests, the
//! benchmarks): a channel whose every call carries `authorization: Bearer <token>`.
//!
//! Holds no server logic; a client of another language does the same with one metadata header
//! (`README.md` shows `grpcurl` and Python).

use tonic::metadata::AsciiMetadataValue;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;
use tonic::{Request, Status};

/// A token that cannot travel in an HTTP/2 header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a token must be printable ASCII")]
pub struct UnsendableToken;

/// Adds the bearer token to every call (or nothing, for a client without one).
#[derive(Clone, Debug)]
pub struct Bearer(Option<AsciiMetadataValue>);

impl Bearer {
    /// A token's interceptor. A token that is not printable ASCII cannot be sent and is refused.
    pub fn new(token: Option<&str>) -> Result<Bearer, UnsendableToken> {
        token
            .map(|t| {
                AsciiMetadataValue::try_from(format!("Bearer {}", t.trim()))
                    .map_err(|_| UnsendableToken)
            })
            .transpose()
            .map(Bearer)
    }
}

impl tonic::service::Interceptor for Bearer {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        if let Some(value) = &self.0 {
            request
                .metadata_mut()
                .insert("authorization", value.clone());
        }
        Ok(request)
    }
}

/// A channel that authenticates every call: what every generated client is built on
/// (`PlayClient::new(channel)`).
pub type Authorized = InterceptedService<Channel, Bearer>;

/// `channel` with `token` on every call.
pub fn authorized(channel: Channel, token: Option<&str>) -> Result<Authorized, UnsendableToken> {
    Ok(InterceptedService::new(channel, Bearer::new(token)?))
}
