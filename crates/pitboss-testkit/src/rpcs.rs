//! The RPCs of the pitboss services, read from the descriptor set the server reflects
//! (`pitboss::proto::FILE_DESCRIPTOR_SET`), so a test over "every RPC" fails when one is added
//! without a case.

use std::collections::BTreeSet;

use pitboss_client::Authorized;
use prost::Message;

/// The package of the pitboss services.
pub const PACKAGE: &str = "pitboss.v1";

/// The descriptor set of the pitboss protos, as compiled into the library.
pub fn descriptor_set() -> prost_types::FileDescriptorSet {
    prost_types::FileDescriptorSet::decode(pitboss::proto::FILE_DESCRIPTOR_SET)
        .expect("the descriptor set")
}

/// Every RPC of every pitboss service, by its full gRPC method name
/// (`/pitboss.v1.Service/Method`), in order.
pub fn every_rpc() -> BTreeSet<String> {
    descriptor_set()
        .file
        .iter()
        .filter(|f| f.package() == PACKAGE)
        .flat_map(|f| f.service.iter())
        .flat_map(|s| {
            s.method
                .iter()
                .map(move |m| format!("/{PACKAGE}.{}/{}", s.name(), m.name()))
        })
        .collect()
}

/// `Service/Method` of a full method name `/pitboss.v1.Service/Method`.
pub fn short_name(full: &str) -> &str {
    full.strip_prefix(&format!("/{PACKAGE}."))
        .expect("a pitboss method")
}

/// Calls `path` with an empty request, as any client could; streams are read for their first
/// message. The status of a call refused.
pub async fn call(channel: Authorized, path: &str) -> Result<(), tonic::Status> {
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready().await.expect("ready");
    let path = http::uri::PathAndQuery::try_from(path).expect("a path");
    let codec = tonic_prost::ProstCodec::<(), ()>::default();
    let streaming = matches!(
        path.as_str(),
        "/pitboss.v1.Audit/StreamEvents"
            | "/pitboss.v1.Audit/ExportHands"
            | "/pitboss.v1.Lab/StreamRngWords"
            | "/pitboss.v1.Lab/StreamShuffles"
    );
    if path.as_str() == "/pitboss.v1.Lab/CheckTranscripts" {
        // Both ways: no transcript sent, the first message back (the totals) read.
        let requests = tonic::codegen::tokio_stream::iter(Vec::<()>::new());
        match grpc
            .streaming(tonic::Request::new(requests), path, codec)
            .await
        {
            Ok(response) => {
                let mut stream = response.into_inner();
                stream.message().await.map(|_| ())
            }
            Err(e) => Err(e),
        }
    } else if streaming {
        match grpc
            .server_streaming(tonic::Request::new(()), path, codec)
            .await
        {
            Ok(response) => {
                let mut stream = response.into_inner();
                stream.message().await.map(|_| ())
            }
            Err(e) => Err(e),
        }
    } else {
        grpc.unary(tonic::Request::new(()), path, codec)
            .await
            .map(|_| ())
    }
}
