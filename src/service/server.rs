//! Assembles the gRPC server: the pitboss services, `grpc.health.v1` health and server reflection
//! (v1 and v1alpha, so `grpcurl` works with no proto files), on a listener the caller bound.

use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;

use super::audit::AuditService;
use super::lab::LabService;
use super::operations::OperationsService;
use super::play::PlayService;
use crate::floor::Floor;
use crate::proto::audit_server::AuditServer;
use crate::proto::lab_server::LabServer;
use crate::proto::operations_server::OperationsServer;
use crate::proto::play_server::PlayServer;

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot build the reflection service: {0}")]
    Reflection(#[from] tonic_reflection::server::Error),
    #[error("the gRPC transport failed: {0}")]
    Transport(#[from] tonic::transport::Error),
}

/// Accepted connections with Nagle's algorithm off: a call's reply goes out at once instead of
/// waiting for the client's delayed ACK (which cost 40 ms a call).
fn incoming(
    listener: TcpListener,
) -> impl tokio_stream::Stream<Item = std::io::Result<tokio::net::TcpStream>> {
    use tokio_stream::StreamExt;
    TcpListenerStream::new(listener).map(|stream| {
        let stream = stream?;
        stream.set_nodelay(true)?;
        Ok(stream)
    })
}

/// Serves until `shutdown` completes, then drains in-flight calls and returns.
pub async fn serve(
    listener: TcpListener,
    floor: Arc<Floor>,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), ServeError> {
    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<AuditServer<AuditService>>().await;
    health.set_serving::<PlayServer<PlayService>>().await;
    health
        .set_serving::<OperationsServer<OperationsService>>()
        .await;
    health.set_serving::<LabServer<LabService>>().await;
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(crate::proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
            // google.rpc error details, so clients can decode the details of an error.
            .register_encoded_file_descriptor_set(tonic_types::pb::FILE_DESCRIPTOR_SET)
    };
    let reflection_v1 = reflection().build_v1()?;
    let reflection_v1alpha = reflection().build_v1alpha()?;
    tonic::transport::Server::builder()
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(AuditServer::new(AuditService::new(floor.clone())))
        .add_service(PlayServer::new(PlayService::new(floor.clone())))
        .add_service(OperationsServer::new(OperationsService::new(floor.clone())))
        .add_service(LabServer::new(LabService::new(floor.clone())))
        .serve_with_incoming_shutdown(incoming(listener), shutdown)
        .await?;
    // The ledger stays open until every call has drained; closing it lets its writer finish.
    floor.ledger().close();
    Ok(())
}
