//! The operations room: what acts on many hands or after the fact, under a principal's name — a
//! hand's void, a table malfunction over a time range (its hands and its rounds), and the
//! incomplete-game sweep — each run one at a time and recorded with its result under its request
//! id (`operation/<id>`).
//!
//! Owns the attribution of operations and their recorded results; must not apply the two-person
//! rule itself (`proposals.rs` does, before calling here).

use prost::Message;

use crate::proto;
use pitboss_engine::games::{Command, Hand, Status, Timestamp, VoidKind, VoidOrder};
use pitboss_ledger::{AppendRequest, Expected, RequestKey};

use super::{
    index, invalid, requests, requests::Target, Floor, FloorError, HandSnapshot, RoundCall,
};
use pitboss_engine::round::{Phase, RoundCommand, RoundError};

/// Who records a void: the principal, and the second principal who approved it when one had to
/// (the two-person rule). The entries are the approver's when there is one.
#[derive(Clone, Copy, Debug)]
pub struct Attribution<'a> {
    /// Who recorded it (who proposed it, when approved by another).
    pub by: &'a str,
    /// The second principal, when there was one.
    pub approved_by: Option<&'a str>,
}

impl<'a> Attribution<'a> {
    /// One principal, acting alone.
    pub fn by(by: &'a str) -> Attribution<'a> {
        Attribution {
            by,
            approved_by: None,
        }
    }

    /// The actor of the entries written: the approver when there is one.
    pub(super) fn actor(&self) -> &'a str {
        self.approved_by.unwrap_or(self.by)
    }
}

/// The most hand ids an operation over many hands lists in its result, per list: the counts are
/// complete, the lists their first ids (so that the recorded result and the reply stay small,
/// however many hands a table holds).
pub const MAX_LISTED_HANDS: usize = 10_000;

/// The result of an operation over many hands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OperationResult {
    /// Hands voided (the first [`MAX_LISTED_HANDS`]).
    pub voided: Vec<String>,
    /// Hands in range already voided (table malfunction), or, for a sweep, hands it could not end
    /// as of its time (a hand of rules version 1 with an event recorded after that time).
    pub skipped: Vec<String>,
    /// Hands the incomplete-game rule completed and settled (a sweep; rules version 2: Nutz and
    /// Caribbean Stud).
    pub completed: Vec<String>,
    /// A table malfunction's rounds voided (the first [`MAX_LISTED_HANDS`]).
    pub voided_rounds: Vec<String>,
    /// A table malfunction's rounds in range already voided.
    pub skipped_rounds: Vec<String>,
    /// How many hands (and rounds) each list holds in all.
    pub counts: OperationCounts,
    /// True when this is the recorded result of an earlier request with the same id.
    pub duplicate: bool,
}

/// How many hands (and rounds) an operation voided, skipped and completed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OperationCounts {
    pub voided: u64,
    pub skipped: u64,
    pub completed: u64,
    pub voided_rounds: u64,
    pub skipped_rounds: u64,
}

/// Which list of an [`OperationResult`].
#[derive(Clone, Copy)]
pub(super) enum Listed {
    Voided,
    Skipped,
    Completed,
    VoidedRound,
    SkippedRound,
}

impl OperationResult {
    /// Counts `id` in a list, listing it while the list is short.
    pub(super) fn add(&mut self, list: Listed, id: String) {
        let (ids, count) = match list {
            Listed::Voided => (&mut self.voided, &mut self.counts.voided),
            Listed::Skipped => (&mut self.skipped, &mut self.counts.skipped),
            Listed::Completed => (&mut self.completed, &mut self.counts.completed),
            Listed::VoidedRound => (&mut self.voided_rounds, &mut self.counts.voided_rounds),
            Listed::SkippedRound => (&mut self.skipped_rounds, &mut self.counts.skipped_rounds),
        };
        *count += 1;
        if ids.len() < MAX_LISTED_HANDS {
            ids.push(id);
        }
    }
}

/// The stream recording the result of an operation over many hands, under its request id.
pub(super) fn operation_stream(request_id: &str) -> String {
    format!("operation/{request_id}")
}

impl Floor {
    /// A void of one hand, now. A settled hand's void needs a second principal's approval
    /// ([`FloorError::SecondPersonRequired`] without one; checked under the hand's lock, so a hand
    /// settled meanwhile is not voided by one person). With a request id, a retry returns the
    /// first answer.
    pub async fn void(
        &self,
        hand_id: &str,
        kind: VoidKind,
        reason: &str,
        who: Attribution<'_>,
        request_id: Option<String>,
    ) -> Result<HandSnapshot, FloorError> {
        let key = request_id.map(|id| requests::void(&id, hand_id, kind, reason, &who));
        let order = |hand: &Hand| {
            if hand.status() == Status::Settled && who.approved_by.is_none() {
                return Err(FloorError::SecondPersonRequired {
                    hand: hand_id.to_string(),
                });
            }
            Ok(Command::Void(self.void_order(hand, kind, reason, who)))
        };
        self.command(hand_id, order, key, None, who.actor()).await
    }

    /// The order voiding `hand` now, attributed to `who`.
    pub(super) fn void_order(
        &self,
        hand: &Hand,
        kind: VoidKind,
        reason: &str,
        who: Attribution<'_>,
    ) -> VoidOrder {
        VoidOrder {
            kind,
            reason: reason.to_string(),
            recorded_by: who.by.to_string(),
            approved_by: who.approved_by.map(str::to_string),
            at: self.now_for(hand),
        }
    }

    /// The recorded result of an operation over many hands, if its request id was used before
    /// (by this operation: anything else is refused).
    pub(super) fn recorded_operation(
        &self,
        kind: &str,
        key: Option<&RequestKey>,
    ) -> Result<Option<OperationResult>, FloorError> {
        let Some(key) = key else {
            return Ok(None);
        };
        let stream = operation_stream(&key.id);
        let entry = match self.bound_record(key, &Target::Stream(stream.clone()))? {
            Some(record) => {
                let sequence = record.appended.first_sequence;
                self.ledger.entry(sequence)?.ok_or_else(|| {
                    FloorError::Corrupt(format!("entry {sequence}"), "missing".into())
                })?
            }
            // An earlier release kept the record in the operation's stream only.
            None => match self.ledger.read_stream(&stream, 0)?.into_iter().next() {
                Some(entry) => entry,
                None => return Ok(None),
            },
        };
        match Floor::payload(&entry)?.kind {
            Some(proto::payload::Kind::OperationRecorded(r)) if r.kind == kind => {
                // Records before the counts existed listed every hand.
                let count = |recorded: u64, ids: &[String]| recorded.max(ids.len() as u64);
                Ok(Some(OperationResult {
                    counts: OperationCounts {
                        voided: count(r.voided_count, &r.voided_hand_ids),
                        skipped: count(r.skipped_count, &r.skipped_hand_ids),
                        completed: count(r.completed_count, &r.completed_hand_ids),
                        voided_rounds: count(r.voided_round_count, &r.voided_round_ids),
                        skipped_rounds: count(r.skipped_round_count, &r.skipped_round_ids),
                    },
                    voided: r.voided_hand_ids,
                    skipped: r.skipped_hand_ids,
                    completed: r.completed_hand_ids,
                    voided_rounds: r.voided_round_ids,
                    skipped_rounds: r.skipped_round_ids,
                    duplicate: true,
                }))
            }
            Some(proto::payload::Kind::OperationRecorded(_)) => {
                Err(FloorError::RequestReused { id: key.id.clone() })
            }
            _ => Err(FloorError::Corrupt(
                format!("operation {}", key.id),
                "not an operation record".into(),
            )),
        }
    }

    /// Records an operation's result under its request id (a retry then returns it).
    pub(super) async fn record_operation(
        &self,
        kind: &str,
        key: Option<RequestKey>,
        result: &OperationResult,
        actor: &str,
    ) -> Result<(), FloorError> {
        let Some(key) = key else { return Ok(()) };
        let payload = proto::Payload {
            kind: Some(proto::payload::Kind::OperationRecorded(
                proto::OperationRecorded {
                    kind: kind.to_string(),
                    request_id: key.id.clone(),
                    voided_hand_ids: result.voided.clone(),
                    skipped_hand_ids: result.skipped.clone(),
                    at_ms: self.now(),
                    completed_hand_ids: result.completed.clone(),
                    voided_count: result.counts.voided,
                    skipped_count: result.counts.skipped,
                    completed_count: result.counts.completed,
                    voided_round_ids: result.voided_rounds.clone(),
                    skipped_round_ids: result.skipped_rounds.clone(),
                    voided_round_count: result.counts.voided_rounds,
                    skipped_round_count: result.counts.skipped_rounds,
                },
            )),
        };
        self.ledger
            .append(AppendRequest {
                request: Some(key.clone()),
                ..AppendRequest::entries(
                    operation_stream(&key.id),
                    Expected::Version(0),
                    vec![payload.encode_to_vec()],
                    self.now(),
                    actor,
                )
            })
            .await?;
        Ok(())
    }

    /// Voids, for a malfunction, every hand and every round of `table` opened from `from_ms` to
    /// `to_ms` (inclusive) that is not voided already (a round: every place, pays and plays; a
    /// round settled at its showdown only with `who.approved_by`). A retry with the same request id
    /// returns the first result.
    pub async fn void_table(
        &self,
        table: &str,
        from_ms: u64,
        to_ms: u64,
        reason: &str,
        who: Attribution<'_>,
        request_id: Option<&str>,
    ) -> Result<OperationResult, FloorError> {
        if table.trim().is_empty() {
            return Err(invalid("table", "required"));
        }
        if from_ms > to_ms {
            return Err(invalid("to_ms", "the range ends before it starts"));
        }
        let key = request_id
            .map(|id| requests::table_malfunction(id, table, from_ms, to_ms, reason, &who));
        let _one_at_a_time = self.operations.lock().await;
        if let Some(first) = self.recorded_operation("table_malfunction", key.as_ref())? {
            return Ok(first);
        }
        let mut result = OperationResult::default();
        let mut after: Option<Vec<u8>> = None;
        loop {
            let page =
                index::table_hands_page(&self.ledger, table, from_ms, to_ms, after.as_deref())?;
            for id in page.ids {
                if self.load(&id, None)?.status() == Status::Voided {
                    result.add(Listed::Skipped, id);
                    continue;
                }
                self.void(&id, VoidKind::Malfunction, reason, who, None)
                    .await?;
                result.add(Listed::Voided, id);
            }
            match page.next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        self.void_table_rounds(table, from_ms, to_ms, reason, who, &mut result)
            .await?;
        self.record_operation("table_malfunction", key, &result, who.actor())
            .await?;
        Ok(result)
    }

    /// The rounds of a table malfunction: each of `table`'s rounds opened in the range voided for
    /// the malfunction, or counted as skipped when voided already.
    async fn void_table_rounds(
        &self,
        table: &str,
        from_ms: u64,
        to_ms: u64,
        reason: &str,
        who: Attribution<'_>,
        result: &mut OperationResult,
    ) -> Result<(), FloorError> {
        let mut after: Option<Vec<u8>> = None;
        loop {
            let page = index::owner_page(
                &self.ledger,
                index::ROUND_TABLE,
                table,
                from_ms,
                to_ms,
                after.as_deref(),
            )?;
            for id in page.ids {
                let order = |at| VoidOrder {
                    kind: VoidKind::Malfunction,
                    reason: reason.to_string(),
                    recorded_by: who.by.to_string(),
                    approved_by: who.approved_by.map(str::to_string),
                    at,
                };
                let voided = self
                    .round_command(
                        &id,
                        |at| RoundCommand::VoidRound(order(at)),
                        &RoundCall::by(who.actor()),
                        |_, _| (),
                    )
                    .await;
                match voided {
                    Ok(_) => result.add(Listed::VoidedRound, id),
                    Err(FloorError::Round(RoundError::Ended(Phase::Voided))) => {
                        result.add(Listed::SkippedRound, id)
                    }
                    Err(e) => return Err(e),
                }
            }
            match page.next {
                Some(next) => after = Some(next),
                None => return Ok(()),
            }
        }
    }

    /// Ends, by the incomplete-game rule as of `as_of_ms`, every hand still in progress that is
    /// incomplete then (more than its period after it opened): voided with refunds, or (rules
    /// version 2) completed and settled in Nutz and Caribbean Stud. A hand with an event recorded
    /// after `as_of_ms` is skipped, never ended at a time before it. A retry with the same request id
    /// returns the first result.
    pub async fn sweep(
        &self,
        as_of_ms: u64,
        recorded_by: &str,
        request_id: Option<&str>,
    ) -> Result<OperationResult, FloorError> {
        if as_of_ms > self.now() {
            return Err(invalid(
                "as_of_ms",
                "a sweep cannot be run as of a time later than now",
            ));
        }
        let key = request_id.map(|id| requests::sweep(id, as_of_ms, recorded_by));
        let _one_at_a_time = self.operations.lock().await;
        if let Some(first) = self.recorded_operation("sweep", key.as_ref())? {
            return Ok(first);
        }
        let as_of = Timestamp(as_of_ms);
        let mut result = OperationResult::default();
        let mut after: Option<Vec<u8>> = None;
        loop {
            let page = index::open_hands_page(&self.ledger, as_of_ms, after.as_deref())?;
            for id in page.ids {
                let hand = self.load(&id, None)?;
                if !hand.is_incomplete_at(as_of) {
                    continue;
                }
                if hand.last_at() > as_of {
                    result.add(Listed::Skipped, id);
                    continue;
                }
                let order = VoidOrder {
                    kind: VoidKind::Incomplete,
                    reason: format!("incomplete-game sweep as of {as_of_ms} ms"),
                    recorded_by: recorded_by.to_string(),
                    approved_by: None,
                    at: as_of,
                };
                let ended = self
                    .command(
                        &id,
                        |_| Ok(Command::Void(order.clone())),
                        None,
                        None,
                        recorded_by,
                    )
                    .await?;
                let list = if ended.hand.completion().is_some() {
                    Listed::Completed
                } else {
                    Listed::Voided
                };
                result.add(list, id);
            }
            match page.next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        self.record_operation("sweep", key, &result, recorded_by)
            .await?;
        self.expire_proposals().await?;
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{floor_in, log_size, mississippi};
    use super::*;
    use std::sync::atomic::Ordering;

    /// A table malfunction voids the table's hands in its time range, only those, and records its
    /// result: a retry under the same request id is that result, and writes nothing.
    #[tokio::test(flavor = "multi_thread")]
    async fn a_table_malfunction_voids_its_range_and_a_retry_reads_the_result() {
        let dir = tempfile::tempdir().unwrap();
        let (floor, clock) = floor_in(dir.path()).await;
        let early = floor
            .open_hand(mississippi("T1", "P1", None))
            .await
            .unwrap();
        let t1 = clock.fetch_add(60_000, Ordering::SeqCst) + 60_000;
        let inside = floor
            .open_hand(mississippi("T1", "P2", None))
            .await
            .unwrap();
        let other_table = floor
            .open_hand(mississippi("T2", "P3", None))
            .await
            .unwrap();
        let who = Attribution::by("supervisor");
        let malfunction = || {
            floor.void_table(
                "T1",
                t1,
                t1 + 1_000,
                "shoe jammed",
                who,
                Some("malfunction-1"),
            )
        };
        let result = malfunction().await.unwrap();
        assert_eq!(result.voided, vec![inside.id.clone()]);
        assert_eq!(result.counts.voided, 1);
        assert!(!result.duplicate);
        for (id, status) in [
            (&early.id, Status::InProgress),
            (&inside.id, Status::Voided),
            (&other_table.id, Status::InProgress),
        ] {
            assert_eq!(floor.load(id, None).unwrap().status(), status, "{id}");
        }
        let size = log_size(&floor);
        let retry = malfunction().await.unwrap();
        assert!(retry.duplicate);
        assert_eq!(
            OperationResult {
                duplicate: false,
                ..retry
            },
            result
        );
        assert_eq!(log_size(&floor), size);
    }
}
