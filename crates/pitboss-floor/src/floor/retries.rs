//! Retries: a request id already used is answered from the log (the first result, read back),
//! never from state computed again; the same id for another request is refused (`requests.rs`
//! says what "the same request" is).
//!
//! Owns the reading of request records; must not write anything.

use pitboss_engine::round::{Round, RoundEvent};
use pitboss_ledger::{Appended, RequestKey, RequestRecord};

use super::{operation_stream, requests::Target, Floor, FloorError, HandSnapshot};

/// What a request on a round answers: the round's id, the answer made of the round as the request
/// left it (and the events it recorded), and whether it repeats an earlier request id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundAnswer<T> {
    /// The round's id.
    pub id: String,
    /// The caller's answer.
    pub answer: T,
    /// True when this answers a retry of an earlier request id (nothing was written now).
    pub duplicate: bool,
}

impl Floor {
    /// The id of the hand or round (`of_stream`) whose stream holds entry `sequence`.
    fn owner_of_entry(
        &self,
        sequence: u64,
        of_stream: fn(&str) -> Option<&str>,
    ) -> Result<String, FloorError> {
        let entry = self
            .ledger
            .entry(sequence)?
            .ok_or_else(|| FloorError::Corrupt(format!("entry {sequence}"), "missing".into()))?;
        of_stream(&entry.envelope.stream)
            .map(str::to_string)
            .ok_or_else(|| {
                FloorError::Corrupt(
                    format!("entry {sequence}"),
                    "not an entry of the request's stream".into(),
                )
            })
    }

    pub(super) fn hand_of_entry(&self, sequence: u64) -> Result<String, FloorError> {
        self.owner_of_entry(sequence, super::hands::hand_of_stream)
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
                    Target::NewRound => {
                        super::round_of_stream(&envelope.stream).is_some()
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

impl Floor {
    /// The first answer to a request on a round whose id was used before: `answer` of the round as
    /// the first request left it and of the events it recorded, read from the log.
    pub(super) fn answered_round<T>(
        &self,
        key: &RequestKey,
        target: &Target,
        answer: impl Fn(&Round, &[RoundEvent]) -> T,
    ) -> Result<Option<RoundAnswer<T>>, FloorError> {
        match self.bound_record(key, target)? {
            None => Ok(None),
            Some(record) => self.round_answer_of(&record.appended, answer).map(Some),
        }
    }

    /// `answer` of a round as the append `appended` (a request's first result) left it.
    pub(super) fn round_answer_of<T>(
        &self,
        appended: &Appended,
        answer: impl Fn(&Round, &[RoundEvent]) -> T,
    ) -> Result<RoundAnswer<T>, FloorError> {
        let id = self.owner_of_entry(appended.first_sequence, super::round_of_stream)?;
        let (round, events) = self.replayed_round(&id, Some(appended.stream_version))?;
        let first = usize::try_from(appended.count)
            .ok()
            .and_then(|count| events.len().checked_sub(count))
            .ok_or_else(|| {
                FloorError::Corrupt(
                    format!("round {id}"),
                    "a request's entries are missing".into(),
                )
            })?;
        Ok(RoundAnswer {
            answer: answer(&round, &events[first..]),
            id,
            duplicate: true,
        })
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
