//! What every client command shares: the `--server` option, the runtime and the connection.

use anyhow::Context;
use clap::Args;
use tonic::transport::Channel;

/// Where the server is.
#[derive(Debug, Clone, Args)]
pub struct ServerArgs {
    /// The pitboss server to talk to.
    #[arg(long, default_value = "http://127.0.0.1:50051")]
    pub server: String,
}

impl ServerArgs {
    /// Connects.
    pub async fn connect(&self) -> anyhow::Result<Channel> {
        Channel::from_shared(self.server.clone())
            .with_context(|| format!("`{}` is not a server address", self.server))?
            .connect()
            .await
            .with_context(|| format!("cannot reach {}", self.server))
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

/// Minor units as money in the response's currency (its minor digits; two when the server named
/// none).
pub fn money(minor: u64, currency: Option<&pitboss::proto::Currency>) -> String {
    let digits = currency.map_or(2, |c| u8::try_from(c.minor_digits).unwrap_or(u8::MAX));
    pitboss::engine::money::Money(minor).display(digits)
}
