//! The RPCs of the pitboss services, read from the descriptor set the server reflects
//! (`pitboss::proto::FILE_DESCRIPTOR_SET`), so a test over "every RPC" fails when one is added
//! without a case.

use std::collections::BTreeSet;

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
