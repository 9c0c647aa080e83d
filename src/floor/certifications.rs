//! What the floor records of a lab's certification reports (docs/certification.md): one
//! `CertificationRecorded` entry per report, in the stream `certifications/<config id in hex>`,
//! its actor the lab principal who asked for it; and the log's signed statement over it, a
//! checkpoint of the log up to that entry whose extension line names the report
//! ([`crate::certification::NoteLine`]).

use prost::Message;

use super::{Floor, FloorError};
use crate::proto;
use pitboss_ledger::{AppendRequest, Expected};

impl Floor {
    /// Records `report` as `actor`'s: the entry's sequence.
    pub async fn record_certification(
        &self,
        report: proto::CertificationRecorded,
        actor: &str,
    ) -> Result<u64, FloorError> {
        let stream = format!("certifications/{}", hex::encode(&report.config_id));
        let payload = proto::Payload {
            kind: Some(proto::payload::Kind::CertificationRecorded(report)),
        }
        .encode_to_vec();
        let appended = self
            .ledger
            .append(AppendRequest::entries(
                stream,
                Expected::Any,
                vec![payload],
                self.now(),
                actor,
            ))
            .await?;
        Ok(appended.first_sequence)
    }

    /// The log's checkpoint of its first `sequence + 1` entries (so including entry `sequence`)
    /// carrying `line`, signed with the body: a signed note over a report recorded at
    /// `sequence`.
    pub fn certification_note(&self, sequence: u64, line: String) -> Result<String, FloorError> {
        let (checkpoint, _) = self.checkpoint_with(sequence + 1, vec![line])?;
        Ok(checkpoint.note())
    }
}
