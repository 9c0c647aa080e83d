//! What the floor records of a lab's certification reports (docs/certification.md): one
//! `CertificationRecorded` entry per report, in the stream `certifications/<config id in hex>`,
//! its actor the lab principal who asked for it; and the log's signed statement over it, a
//! checkpoint of the log up to that entry whose extension line names the report
//! ([`crate::certification::NoteLine`]); and, for a configuration, the latest report recorded
//! ([`Certified`]), which the listing of the configurations in play and the check at opening read.

use prost::Message;

use super::{Floor, FloorError};
use crate::proto;
use pitboss_engine::config::ConfigId;
use pitboss_ledger::{AppendRequest, Expected};

/// A configuration's latest certification report, as the log holds it.
#[derive(Clone, Debug)]
pub struct Certified {
    /// The `CertificationRecorded` entry's sequence.
    pub sequence: u64,
    /// When the log recorded it (ms since the Unix epoch).
    pub recorded_at_ms: u64,
    /// Who asked for it: the entry's actor, a lab principal.
    pub recorded_by: String,
    /// The report as recorded.
    pub report: proto::CertificationRecorded,
    /// How many reports the log holds for the configuration, this one included.
    pub reports: u64,
}

/// The stream of a configuration's certification reports.
pub(super) fn stream_of(config_id: &[u8]) -> String {
    format!("certifications/{}", hex::encode(config_id))
}

impl Floor {
    /// The latest certification report recorded for `config` (`None`: none is): the last entry
    /// of its stream, two reads. A later report replaces an earlier one, whatever their verdicts.
    pub fn certification(&self, config: &ConfigId) -> Result<Option<Certified>, FloorError> {
        let stream = stream_of(&config.0);
        let reports = self.ledger.stream_version(&stream)?;
        let Some(last) = reports.checked_sub(1) else {
            return Ok(None);
        };
        let entry = self
            .ledger
            .read_stream(&stream, last)?
            .into_iter()
            .next()
            .ok_or_else(|| {
                FloorError::Corrupt(stream.clone(), format!("its entry {last} is missing"))
            })?;
        match Floor::payload(&entry)?.kind {
            Some(proto::payload::Kind::CertificationRecorded(report))
                if report.config_id == config.0 =>
            {
                Ok(Some(Certified {
                    sequence: entry.envelope.sequence,
                    recorded_at_ms: entry.envelope.recorded_at_ms,
                    recorded_by: entry.envelope.actor,
                    report,
                    reports,
                }))
            }
            _ => Err(FloorError::Corrupt(
                format!("entry {}", entry.envelope.sequence),
                format!("it is not a certification report of configuration {config}"),
            )),
        }
    }

    /// Records `report` as `actor`'s: the entry's sequence.
    pub async fn record_certification(
        &self,
        report: proto::CertificationRecorded,
        actor: &str,
    ) -> Result<u64, FloorError> {
        let stream = stream_of(&report.config_id);
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
        let (checkpoint, _) = self.log().checkpoint_with(sequence + 1, vec![line])?;
        Ok(checkpoint.note())
    }
}
