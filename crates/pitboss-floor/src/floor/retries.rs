//! Retries: a request id already used is answered from the log (the first result, read back),
//! never from state computed again; the same id for another request is refused (`requests.rs`
//! says what "the same request" is).
//!
//! Owns the reading of request records; must not write anything.

use pitboss_ledger::{RequestKey, RequestRecord};

use super::{operation_stream, requests::Target, Floor, FloorError, HandSnapshot};

impl Floor {
    pub(super) fn hand_of_entry(&self, sequence: u64) -> Result<String, FloorError> {
        let entry = self
            .ledger
            .entry(sequence)?
            .ok_or_else(|| FloorError::Corrupt(format!("entry {sequence}"), "missing".into()))?;
        super::hands::hand_of_stream(&entry.envelope.stream)
            .map(str::to_string)
            .ok_or_else(|| {
                FloorError::Corrupt(format!("entry {sequence}"), "not a hand's entry".into())
            })
    }

    /// The record of a request id already used, if this request may be answered from it: the
    /// same fingerprint, or (for a record of an earlier release, which has none) a first entry in
    /// the stream this request targets. Anything else is [`FloorError::RequestReused`].
    pub(super) fn bound_record(
        &self,
        key: &RequestKey,
        target: &Target,
    ) -> Result<Option<RequestRecord>, FloorError> {
        let reused = || FloorError::RequestReused { id: key.id.clone() };
        let operation = operation_stream(&key.id);
        let Some(record) = self.ledger.request(&key.id)? else {
            // An earlier release recorded operations under their id in their own stream only.
            if *target != Target::Stream(operation.clone())
                && self.ledger.stream_version(&operation)? > 0
            {
                return Err(reused());
            }
            return Ok(None);
        };
        match record.fingerprint {
            Some(bound) if bound == key.fingerprint => Ok(Some(record)),
            Some(_) => Err(reused()),
            None => {
                let sequence = record.appended.first_sequence;
                let entry = self.ledger.entry(sequence)?.ok_or_else(|| {
                    FloorError::Corrupt(
                        format!("request {}", key.id),
                        "its entry is missing".into(),
                    )
                })?;
                let envelope = &entry.envelope;
                let same = match target {
                    Target::NewHand => {
                        super::hands::hand_of_stream(&envelope.stream).is_some()
                            && envelope.stream_position == 0
                    }
                    Target::OnHand(stream) => {
                        envelope.stream == *stream && envelope.stream_position > 0
                    }
                    Target::Stream(stream) => envelope.stream == *stream,
                };
                if same {
                    Ok(Some(record))
                } else {
                    Err(reused())
                }
            }
        }
    }

    /// The first answer to a request on a hand whose id was used before: the hand as the first
    /// request left it, read from the log.
    pub(super) fn answered(
        &self,
        key: &RequestKey,
        target: &Target,
    ) -> Result<Option<HandSnapshot>, FloorError> {
        let Some(record) = self.bound_record(key, target)? else {
            return Ok(None);
        };
        let id = self.hand_of_entry(record.appended.first_sequence)?;
        let hand = self.load(&id, Some(record.appended.stream_version))?;
        Ok(Some(HandSnapshot {
            id,
            hand,
            duplicate: true,
        }))
    }

    /// [`Floor::answered`] after the writer said the append repeats a recorded request (so its
    /// record is durable now).
    pub(super) fn answered_after_append(
        &self,
        key: Option<&RequestKey>,
        target: &Target,
    ) -> Result<HandSnapshot, FloorError> {
        let damaged = |id: &str| {
            FloorError::Corrupt(format!("request {id}"), "answered but not recorded".into())
        };
        let key = key.ok_or_else(|| damaged(""))?;
        self.answered(key, target)?.ok_or_else(|| damaged(&key.id))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{floor_in, log_size, mississippi};
    use super::*;

    /// A retry (same id, same request) is answered from the log with the first hand and writes
    /// nothing; the same id for another request is refused and writes nothing either.
    #[tokio::test(flavor = "multi_thread")]
    async fn a_retry_is_answered_from_the_log_and_a_reused_id_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (floor, _) = floor_in(dir.path()).await;
        let first = floor
            .open_hand(mississippi("T1", "P1", Some("open-1")))
            .await
            .unwrap();
        let size = log_size(&floor);
        let retry = floor
            .open_hand(mississippi("T1", "P1", Some("open-1")))
            .await
            .unwrap();
        assert!(retry.duplicate);
        assert_eq!(retry.id, first.id);
        assert_eq!(format!("{:?}", retry.hand), format!("{:?}", first.hand));
        let reused = floor
            .open_hand(mississippi("T2", "P1", Some("open-1")))
            .await;
        assert!(
            matches!(&reused, Err(FloorError::RequestReused { id }) if id == "open-1"),
            "{reused:?}"
        );
        assert_eq!(log_size(&floor), size);
    }
}
