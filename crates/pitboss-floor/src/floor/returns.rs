//! What the floor records of the returns (`crate::returns`): a statement of a period's totals
//! (stream `returns/statements`, its parts in one append), an alert (stream
//! `returns/alert/<id>`, position 0) and the investigation that closes it (position 1 of the same
//! stream, so that an alert is closed once: a second is refused by the stream's version, not by
//! a check a race could pass).

use prost::Message;

use super::{Floor, FloorError};
use crate::proto;
use pitboss_ledger::{AppendRequest, Expected, LedgerError};

/// The stream of an alert.
fn alert_stream(alert_id: &str) -> String {
    format!("returns/alert/{alert_id}")
}

fn encode(kind: proto::payload::Kind) -> Vec<u8> {
    proto::Payload { kind: Some(kind) }.encode_to_vec()
}

impl Floor {
    /// Appends a statement's parts, in one append, as the server.
    pub async fn record_returns_statement(
        &self,
        parts: Vec<proto::ReturnsStatement>,
    ) -> Result<(), FloorError> {
        let payloads = parts
            .into_iter()
            .map(|p| encode(proto::payload::Kind::ReturnsStatement(p)))
            .collect();
        self.ledger
            .append(AppendRequest::entries(
                "returns/statements".to_string(),
                Expected::Any,
                payloads,
                self.now(),
                pitboss_ledger::SERVER_ACTOR,
            ))
            .await?;
        Ok(())
    }

    /// Opens an alert, as the server.
    pub async fn record_returns_alert(&self, alert: proto::ReturnsAlert) -> Result<(), FloorError> {
        self.ledger
            .append(AppendRequest::entries(
                alert_stream(&alert.alert_id),
                Expected::Version(0),
                vec![encode(proto::payload::Kind::ReturnsAlert(alert))],
                self.now(),
                pitboss_ledger::SERVER_ACTOR,
            ))
            .await?;
        Ok(())
    }

    /// The alert `alert_id` as recorded, if the log holds it.
    pub fn returns_alert(&self, alert_id: &str) -> Result<Option<proto::ReturnsAlert>, FloorError> {
        let entries = self.ledger.read_stream(&alert_stream(alert_id), 0)?;
        let Some(first) = entries.first() else {
            return Ok(None);
        };
        match Floor::payload(first)?.kind {
            Some(proto::payload::Kind::ReturnsAlert(alert)) => Ok(Some(alert)),
            _ => Ok(None),
        }
    }

    /// Closes alert `alert_id` with `actor`'s investigation: the entry's sequence. `NotFound` for
    /// an alert the log does not hold; `Investigated` for one closed already.
    pub async fn record_investigation(
        &self,
        alert_id: &str,
        outcome: &str,
        reason: &str,
        actor: &str,
    ) -> Result<u64, FloorError> {
        let stream = alert_stream(alert_id);
        match self.ledger.stream_version(&stream)? {
            0 => {
                return Err(FloorError::NotFound {
                    what: "alert",
                    id: alert_id.to_string(),
                })
            }
            1 => {}
            _ => {
                return Err(FloorError::Investigated {
                    alert_id: alert_id.to_string(),
                })
            }
        }
        let investigated = proto::ReturnsInvestigated {
            alert_id: alert_id.to_string(),
            outcome: outcome.to_string(),
            reason: reason.to_string(),
            at_ms: self.now(),
        };
        match self
            .ledger
            .append(AppendRequest::entries(
                stream,
                Expected::Version(1),
                vec![encode(proto::payload::Kind::ReturnsInvestigated(
                    investigated,
                ))],
                self.now(),
                actor,
            ))
            .await
        {
            Ok(appended) => Ok(appended.first_sequence),
            Err(LedgerError::VersionConflict { .. }) => Err(FloorError::Investigated {
                alert_id: alert_id.to_string(),
            }),
            Err(e) => Err(e.into()),
        }
    }
}
