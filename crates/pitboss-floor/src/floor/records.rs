//! What the floor records about the service itself rather than a hand: a change of who may call it
//! (the access file, stream `access`) and serving beyond loopback without TLS (stream
//! `transport`). Each is one entry whose actor says who made it. A read-only server writes none:
//! it says so in its own log (standard error).

use prost::Message;

use super::{Floor, FloorError};
use crate::access::{Access, AccessChange, AccessFileError};
use crate::proto;
use pitboss_ledger::{AppendRequest, Expected};

/// Why a reload of the access file did not happen, or was not recorded.
#[derive(Debug, thiserror::Error)]
pub enum ReloadError {
    /// The file was refused; the access in force is unchanged.
    #[error(transparent)]
    File(#[from] AccessFileError),
    /// The file is in force but its change could not be recorded.
    #[error("the access file is in force but its change was not recorded: {0}")]
    Record(#[from] FloorError),
}

impl Floor {
    async fn record_service_event(
        &self,
        stream: &str,
        kind: proto::payload::Kind,
        actor: &str,
    ) -> Result<(), FloorError> {
        if self.ledger.read_only() {
            // Nothing can be written to a replica: said in the server's log, not silently lost.
            tracing::warn!(
                stream,
                actor,
                "read-only server: this event of the service is not recorded in the log"
            );
            return Ok(());
        }
        self.ledger
            .append(AppendRequest::entries(
                stream.to_string(),
                Expected::Any,
                vec![proto::Payload { kind: Some(kind) }.encode_to_vec()],
                self.now(),
                actor,
            ))
            .await?;
        Ok(())
    }

    /// Records the access now in force, when it differs from what was in force (or at start):
    /// `how` is start, signal or rpc; `actor` who caused it.
    pub async fn record_access_change(
        &self,
        change: &AccessChange,
        how: &str,
        actor: &str,
    ) -> Result<(), FloorError> {
        let kind = proto::payload::Kind::AccessChanged(proto::AccessChanged {
            file_sha256: hex::encode(change.sha256),
            added: change.added.clone(),
            removed: change.removed.clone(),
            changed: change.changed.clone(),
            how: how.to_string(),
            at_ms: self.now(),
        });
        self.record_service_event("access", kind, actor).await
    }

    /// The file hash of the last access change recorded (`None`: none yet).
    pub fn last_access_sha256(&self) -> Result<Option<[u8; 32]>, FloorError> {
        let version = self.ledger.stream_version("access")?;
        let Some(last) = version.checked_sub(1) else {
            return Ok(None);
        };
        let entries = self.ledger.read_stream("access", last)?;
        let Some(entry) = entries.first() else {
            return Ok(None);
        };
        match Floor::payload(entry)?.kind {
            Some(proto::payload::Kind::AccessChanged(a)) => {
                let mut hash = [0u8; 32];
                Ok(hex::decode_to_slice(&a.file_sha256, &mut hash)
                    .ok()
                    .map(|()| hash))
            }
            _ => Ok(None),
        }
    }

    /// Reloads `access` from its file and records the change (if any) with `actor`.
    pub async fn reload_access(
        &self,
        access: &Access,
        how: &str,
        actor: &str,
    ) -> Result<AccessChange, ReloadError> {
        let change = access.reload()?;
        if !change.is_empty() {
            self.record_access_change(&change, how, actor).await?;
        }
        Ok(change)
    }

    /// Records that the service listens on `address`, beyond loopback, without TLS.
    pub async fn record_insecure_transport(
        &self,
        address: &str,
        actor: &str,
    ) -> Result<(), FloorError> {
        let kind = proto::payload::Kind::InsecureTransport(proto::InsecureTransport {
            address: address.to_string(),
            at_ms: self.now(),
        });
        self.record_service_event("transport", kind, actor).await
    }

    /// Records the software that runs (`trigger`: start, interval or challenge; for a challenge,
    /// its SHA-256), in the stream `software`; a read-only server records nothing (said in its
    /// log).
    pub async fn record_software(
        &self,
        identity: &crate::software::Identity,
        trigger: &str,
        challenge_sha256: Option<[u8; 32]>,
        actor: &str,
    ) -> Result<(), FloorError> {
        let kind = proto::payload::Kind::SoftwareAttested(proto::SoftwareAttested {
            executable_sha256: hex::encode(identity.sha256),
            version: crate::software::VERSION.to_string(),
            build: crate::software::BUILD.to_string(),
            trigger: trigger.to_string(),
            at_ms: self.now(),
            challenge_sha256: challenge_sha256.map(Vec::from).unwrap_or_default(),
        });
        self.record_service_event("software", kind, actor).await
    }
}
