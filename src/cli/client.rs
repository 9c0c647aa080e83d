//! What every client command shares: the `--server` option and its credentials, the runtime and
//! the connection.
//!
//! The credential is found, in order: `--token-file` (or `PITBOSS_TOKEN_FILE`), `PITBOSS_TOKEN`,
//! and, for a server on loopback, the local administrator's token that `pitboss serve` made in its
//! data directory (`--local-data`, by default `./pitboss-data`, as `serve`'s). An `https://` server
//! is checked against `--ca-cert`; `--client-cert` and `--client-key` authenticate by mutual TLS.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use pitboss_client::{authorized, Authorized};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Identity};

/// Where the server is, and how to prove who we are.
#[derive(Debug, Clone, Args)]
pub struct ServerArgs {
    /// The pitboss server to talk to (`https://` for TLS).
    #[arg(long, default_value = "http://127.0.0.1:50051")]
    pub server: String,
    /// A file holding the bearer token to send.
    #[arg(long, env = "PITBOSS_TOKEN_FILE")]
    pub token_file: Option<PathBuf>,
    /// The data directory of a local server, where its administrator's token is found when no
    /// other credential is given (loopback servers only).
    #[arg(long, default_value = "./pitboss-data")]
    pub local_data: PathBuf,
    /// The CA certificate (PEM) an `https://` server's certificate is checked against.
    #[arg(long, env = "PITBOSS_CA_CERT")]
    pub ca_cert: Option<PathBuf>,
    /// A client certificate (PEM), for mutual TLS; with `--client-key`.
    #[arg(long, requires = "client_key")]
    pub client_cert: Option<PathBuf>,
    /// The client certificate's private key (PEM).
    #[arg(long, requires = "client_cert")]
    pub client_key: Option<PathBuf>,
}

fn read(path: &Path, what: &str) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read the {what} {}", path.display()))
}

impl ServerArgs {
    /// `server`, with the credentials found as the defaults say (the environment, the local
    /// administrator's token).
    pub fn at(server: String) -> ServerArgs {
        ServerArgs {
            server,
            token_file: std::env::var_os("PITBOSS_TOKEN_FILE").map(PathBuf::from),
            local_data: PathBuf::from("./pitboss-data"),
            ca_cert: std::env::var_os("PITBOSS_CA_CERT").map(PathBuf::from),
            client_cert: None,
            client_key: None,
        }
    }

    /// The bearer token to send, if any.
    fn token(&self, loopback: bool) -> anyhow::Result<Option<String>> {
        if let Some(path) = &self.token_file {
            let text = String::from_utf8(read(path, "token file")?)
                .with_context(|| format!("{} is not text", path.display()))?;
            return Ok(Some(text.trim().to_string()));
        }
        if let Ok(token) = std::env::var("PITBOSS_TOKEN") {
            return Ok(Some(token.trim().to_string()));
        }
        let local = self.local_data.join(pitboss::access::ADMIN_TOKEN_FILE);
        if loopback && self.client_cert.is_none() {
            if let Ok(text) = std::fs::read_to_string(&local) {
                return Ok(Some(text.trim().to_string()));
            }
        }
        Ok(None)
    }

    /// Connects, with TLS for an `https://` server, and the credential on every call.
    pub async fn connect(&self) -> anyhow::Result<Authorized> {
        let (endpoint, token) = self.endpoint()?;
        let channel = endpoint
            .connect()
            .await
            .with_context(|| format!("cannot reach {}", self.server))?;
        Ok(authorized(channel, token.as_deref())?)
    }

    /// [`ServerArgs::connect`], the connection made at the first call (and made again after the
    /// server went away): for a client that must start while the server is down.
    pub fn connect_lazy(&self) -> anyhow::Result<Authorized> {
        let (endpoint, token) = self.endpoint()?;
        Ok(authorized(endpoint.connect_lazy(), token.as_deref())?)
    }

    /// The endpoint, with TLS for an `https://` server, and the token to send.
    fn endpoint(&self) -> anyhow::Result<(tonic::transport::Endpoint, Option<String>)> {
        let mut endpoint = Channel::from_shared(self.server.clone())
            .with_context(|| format!("`{}` is not a server address", self.server))?;
        let uri = endpoint.uri().clone();
        let loopback = match uri.host() {
            Some("localhost") => true,
            Some(host) => host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback()),
            None => false,
        };
        if uri.scheme_str() == Some("https") {
            let mut tls = ClientTlsConfig::new();
            if let Some(ca) = &self.ca_cert {
                tls = tls.ca_certificate(Certificate::from_pem(read(ca, "CA certificate")?));
            }
            if let (Some(cert), Some(key)) = (&self.client_cert, &self.client_key) {
                tls = tls.identity(Identity::from_pem(
                    read(cert, "client certificate")?,
                    read(key, "client key")?,
                ));
            }
            endpoint = endpoint.tls_config(tls).context("cannot configure TLS")?;
        }
        let token = self.token(loopback)?;
        Ok((endpoint, token))
    }
}

/// Runs a client command on a fresh runtime.
pub fn block_on<T>(
    future: impl std::future::Future<Output = anyhow::Result<T>>,
) -> anyhow::Result<T> {
    tokio::runtime::Runtime::new()
        .context("cannot start the async runtime")?
        .block_on(future)
}

/// A gRPC error in words: code and message.
pub fn refused(status: tonic::Status) -> anyhow::Error {
    anyhow::anyhow!("{:?}: {}", status.code(), status.message())
}

/// The hand a Play call answered with, or its refusal in words.
pub fn hand_of(
    answer: Result<tonic::Response<pitboss::proto::HandResponse>, tonic::Status>,
) -> anyhow::Result<pitboss::proto::HandView> {
    Ok(answer
        .map_err(refused)?
        .into_inner()
        .hand
        .unwrap_or_default())
}

/// Minor units as money in the response's currency (its minor digits; two when the server named
/// none).
pub fn money(minor: u64, currency: Option<&pitboss::proto::Currency>) -> String {
    let digits = currency.map_or(2, |c| u8::try_from(c.minor_digits).unwrap_or(u8::MAX));
    pitboss_engine::money::Money(minor).display(digits)
}
