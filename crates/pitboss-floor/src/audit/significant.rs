//! The significant events of the log (`docs/significant-events.md`): every entry in a time range
//! that is not a hand's own play, described as a regulator's exception report lists it — kind,
//! time, actors, subject, the value before and after, the reason, the sequence. Owns the
//! description of each kind and the bounded walk over a time range; reads the log through the
//! floor. MUST NOT write, and MUST NOT examine more than [`MAX_EXAMINED`] entries in one call.

use crate::codec::EntryPayload;
use crate::floor::{Floor, FloorError};
use crate::proto;
use crate::proto::payload::Kind;

/// One significant event: what the report's page shows of it (`pitboss_packet`'s row), filled
/// from the entry.
pub type Significant = pitboss_packet::ReportEvent;

/// Entries one call examines at most (a page may then be short, with a token to go on).
pub const MAX_EXAMINED: u64 = 50_000;

/// Entries read at a time.
const BATCH: u64 = 512;

/// Every kind an event may have, in the order `docs/significant-events.md` lists them.
pub const KINDS: [&str; 23] = [
    "config_published",
    "proposal_recorded",
    "proposal_decided",
    "hand_voided",
    "hand_completed",
    "operation_recorded",
    "key_published",
    "key_rotated",
    "log_recovered",
    "access_changed",
    "insecure_transport",
    "server_started",
    "server_stopped",
    "software_attested",
    "returns_alert",
    "returns_investigated",
    "returns_statement",
    "certification_recorded",
    "round_voided",
    "round_place_voided",
    "round_window_closed",
    "round_dealer_changed",
    "round_beacon_late",
];

/// One page of events, and where the next begins (`None`: the range is done).
pub struct Page {
    pub events: Vec<Significant>,
    pub next: Option<u64>,
}

/// The events recorded from `from_ms` to `to_ms` (inclusive; `None`: no end) whose kind `kinds`
/// holds (empty: all), from sequence `start` (a page token) or else from the first entry recorded
/// at `from_ms` or later, at most `page_size` of them.
pub fn list(
    floor: &Floor,
    from_ms: u64,
    to_ms: Option<u64>,
    kinds: &[String],
    page_size: usize,
    start: Option<u64>,
) -> Result<Page, FloorError> {
    let size = floor.log().size();
    let mut next = match start {
        Some(s) => s,
        None => first_at_or_after(floor, from_ms, size)?,
    };
    let stop = next.saturating_add(MAX_EXAMINED).min(size);
    let mut events = Vec::new();
    while next < stop {
        let count = BATCH.min(stop - next);
        let records = floor.log().stored_entries(next, count)?;
        if records.is_empty() {
            // The log said it holds them: a page that could not move on would loop forever.
            return Err(FloorError::Corrupt(
                format!("entry {next}"),
                "missing, below the log's size".into(),
            ));
        }
        for (sequence, stored) in records {
            let entry = pitboss_ledger::Entry::decode(&stored)
                .map_err(|e| FloorError::Corrupt(format!("entry {sequence}"), e.to_string()))?;
            let at_ms = entry.envelope.recorded_at_ms;
            if to_ms.is_some_and(|to| at_ms > to) {
                return Ok(Page { events, next: None });
            }
            next = sequence + 1;
            let Some(event) = describe(&entry) else {
                continue;
            };
            if at_ms < from_ms || !(kinds.is_empty() || kinds.contains(&event.kind)) {
                continue;
            }
            events.push(event);
            if events.len() >= page_size {
                return Ok(Page {
                    events,
                    next: (next < size).then_some(next),
                });
            }
        }
    }
    Ok(Page {
        events,
        next: (next < size).then_some(next),
    })
}

/// The first sequence recorded at `from_ms` or later (`size` if none), by bisection over the
/// entries' recorded times (which the writer takes in order; a clock stepped back shifts where a
/// range begins, never what an entry says).
fn first_at_or_after(floor: &Floor, from_ms: u64, size: u64) -> Result<u64, FloorError> {
    let (mut low, mut high) = (0, size);
    while low < high {
        let middle = low + (high - low) / 2;
        let at = floor
            .log()
            .entry(middle)?
            .map_or(u64::MAX, |e| e.envelope.recorded_at_ms);
        if at < from_ms {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    Ok(low)
}

fn money(amount: u64) -> String {
    amount.to_string()
}

/// The event an entry is, if it is one.
pub fn describe(entry: &pitboss_ledger::Entry) -> Option<Significant> {
    let payload = entry.payload().ok()?;
    let envelope = &entry.envelope;
    let hand = crate::floor::hand_of_stream(&envelope.stream).unwrap_or_default();
    let round = crate::floor::round_of_stream(&envelope.stream).unwrap_or_default();
    let mut event = Significant {
        sequence: envelope.sequence,
        at_ms: envelope.recorded_at_ms,
        actors: if envelope.actor.is_empty() {
            Vec::new()
        } else {
            vec![envelope.actor.clone()]
        },
        ..Default::default()
    };
    let kind = match payload.kind? {
        Kind::ConfigPublished(c) => {
            event.subject = format!("configuration {}", hex::encode(&c.config_id));
            event.after = "published".into();
            "config_published"
        }
        Kind::ProposalRecorded(p) => {
            use proto::proposed_action::Kind as Action;
            event.subject = format!("proposal {}", p.proposal_id);
            let (what, reason) = match p.action.and_then(|a| a.kind) {
                Some(Action::VoidHand(v)) => {
                    (format!("void hand {} ({})", v.hand_id, v.kind), v.reason)
                }
                Some(Action::VoidRound(v)) => {
                    (format!("void round {} (malfunction)", v.round_id), v.reason)
                }
                Some(Action::TableMalfunction(t)) => (
                    format!(
                        "malfunction of table {} from {} to {}",
                        t.table,
                        pitboss_packet::utc(t.from_ms),
                        pitboss_packet::utc(t.to_ms)
                    ),
                    t.reason,
                ),
                Some(Action::PublishConfig(c)) => (
                    format!("publish configuration {}", c.config_id),
                    String::new(),
                ),
                None => ("nothing".into(), String::new()),
            };
            event.after = "pending".into();
            event.reason = reason;
            event.detail = format!("{what}; expires {}", pitboss_packet::utc(p.expires_at_ms));
            "proposal_recorded"
        }
        Kind::ProposalDecided(d) => {
            event.subject = format!("proposal {}", d.proposal_id);
            event.before = "pending".into();
            event.after = d.outcome;
            event.reason = d.reason;
            if !d.decided_by.is_empty() && !event.actors.contains(&d.decided_by) {
                event.actors.push(d.decided_by);
            }
            "proposal_decided"
        }
        Kind::Voided(v) => {
            event.subject = format!("hand {hand}");
            event.before = format!("paid {}", money(v.paid_before));
            event.after = format!("paid {}", money(v.paid_now));
            event.reason = v.reason;
            event.detail = format!(
                "{} void; staked {}; allowed because {}",
                v.kind,
                money(v.total_staked),
                v.allowed_because
            );
            for who in [v.recorded_by, v.approved_by] {
                if !who.is_empty() && !event.actors.contains(&who) {
                    event.actors.push(who);
                }
            }
            "hand_voided"
        }
        Kind::HandCompleted(c) => {
            event.subject = format!("hand {hand}");
            event.before = "in progress".into();
            event.after = "completed".into();
            event.reason = c.reason;
            event.detail = format!("{}; allowed because {}", c.kind, c.allowed_because);
            if !c.recorded_by.is_empty() && !event.actors.contains(&c.recorded_by) {
                event.actors.push(c.recorded_by);
            }
            "hand_completed"
        }
        Kind::OperationRecorded(o) => {
            event.subject = o.kind.clone();
            event.detail = format!(
                "{} voided, {} completed, {} skipped (request {})",
                o.voided_count.max(o.voided_hand_ids.len() as u64),
                o.completed_count.max(o.completed_hand_ids.len() as u64),
                o.skipped_count.max(o.skipped_hand_ids.len() as u64),
                o.request_id
            );
            "operation_recorded"
        }
        Kind::KeyPublished(k) => {
            event.subject = format!("key {}", hex::encode(&k.key_id));
            event.after = "signing".into();
            "key_published"
        }
        Kind::KeyRotated(k) => {
            event.subject = "the log's signing key".into();
            event.before = hex::encode(&k.old_key_id);
            event.after = hex::encode(&k.new_key_id);
            "key_rotated"
        }
        Kind::LogRecovered(r) => {
            event.subject = "the log".into();
            event.before = if r.acknowledged_known {
                format!("{} entries acknowledged", r.acknowledged_size)
            } else {
                "acknowledged size unknown".into()
            };
            event.after = format!("{} entries kept", r.kept_size);
            event.reason = r.reason;
            event.detail = r.findings.join("; ");
            "log_recovered"
        }
        Kind::AccessChanged(a) => {
            event.subject = "the access file".into();
            event.after = format!("file SHA-256 {}", a.file_sha256);
            event.detail = format!(
                "{}: added [{}], removed [{}], changed [{}]",
                a.how,
                a.added.join(", "),
                a.removed.join(", "),
                a.changed.join(", ")
            );
            "access_changed"
        }
        Kind::InsecureTransport(t) => {
            event.subject = t.address;
            event.after = "serving without TLS".into();
            "insecure_transport"
        }
        Kind::SoftwareAttested(s) => {
            event.subject = format!("executable {}", s.executable_sha256);
            event.detail = format!("version {}, build {}", s.version, s.build);
            match s.trigger.as_str() {
                "start" => "server_started",
                "stop" => "server_stopped",
                other => {
                    event.after = other.to_string();
                    "software_attested"
                }
            }
        }
        Kind::ReturnsAlert(a) => {
            event.subject = format!("alert {}", a.alert_id);
            if let Some(t) = &a.totals {
                event.detail = format!(
                    "{} table {} {} over {}: {} hands, z {:.2}, band {:.4} to {:.4}",
                    t.game,
                    t.table,
                    t.bet,
                    if a.window_days == 0 {
                        "the lifetime".to_string()
                    } else {
                        format!("{} days", a.window_days)
                    },
                    t.hands.saturating_sub(t.voided_hands),
                    a.z,
                    a.band_low,
                    a.band_high
                );
            }
            event.before = format!("theoretical {:.4}", a.theoretical);
            event.after = format!("actual {:.4}", a.actual);
            "returns_alert"
        }
        Kind::ReturnsInvestigated(i) => {
            event.subject = format!("alert {}", i.alert_id);
            event.before = "open".into();
            event.after = format!("closed: {}", i.outcome);
            event.reason = i.reason;
            "returns_investigated"
        }
        Kind::ReturnsStatement(s) => {
            event.subject = format!("entries {}..{}", s.from_sequence, s.to_sequence);
            event.detail = format!(
                "period {} to {}, part {} of {}, {} totals",
                pitboss_packet::utc(s.period_start_ms),
                pitboss_packet::utc(s.period_end_ms),
                s.part,
                s.parts,
                s.totals.len()
            );
            "returns_statement"
        }
        Kind::CertificationRecorded(c) => {
            event.subject = format!("{} configuration {}", c.game, hex::encode(&c.config_id));
            event.after = format!(
                "report sha256 {} ({})",
                hex::encode(&c.report_sha256),
                if c.holds { "holds" } else { "fails" }
            );
            event.detail = format!(
                "{} hands, battery {} × {} bits, {} transcripts",
                c.hands, c.battery_sequences, c.battery_bits, c.transcripts
            );
            "certification_recorded"
        }
        Kind::RoundVoided(v) => {
            event.subject = format!("round {round}");
            event.after = "void".into();
            event.reason = v.reason;
            event.detail = format!("{}; allowed because {}", v.kind, v.allowed_because);
            for who in [v.recorded_by, v.approved_by] {
                if !who.is_empty() && !event.actors.contains(&who) {
                    event.actors.push(who);
                }
            }
            "round_voided"
        }
        Kind::RoundPlaceVoided(p) => {
            let v = p.void?;
            event.subject = format!("round {round}, place {}", p.place);
            event.before = format!("paid {}", money(v.paid_before));
            event.after = format!("paid {}", money(v.paid_now));
            event.reason = v.reason;
            event.detail = format!(
                "{}; staked {}; allowed because {}",
                v.kind,
                money(v.total_staked),
                v.allowed_because
            );
            if !v.recorded_by.is_empty() && !event.actors.contains(&v.recorded_by) {
                event.actors.push(v.recorded_by);
            }
            "round_place_voided"
        }
        Kind::RoundWindowClosed(w) => {
            event.subject = format!("round {round}");
            event.before = "in play".into();
            event.after = format!("{} place(s) ended", w.ended);
            event.reason = w.reason;
            event.detail = w.allowed_because;
            if !w.recorded_by.is_empty() && !event.actors.contains(&w.recorded_by) {
                event.actors.push(w.recorded_by);
            }
            "round_window_closed"
        }
        Kind::RoundDealerChanged(d) => {
            event.subject = format!("round {round}");
            event.before = format!("dealer {}", d.from);
            event.after = format!("dealer {}", d.to);
            event.reason = d.reason;
            "round_dealer_changed"
        }
        Kind::RoundBeaconLate(l) => {
            event.subject = format!("round {round}");
            event.before = "awaiting the beacon round".into();
            event.after = match l.rule.as_str() {
                "void" => "void: every bet refunded".into(),
                _ => "dealt without the beacon".into(),
            };
            event.reason = l.why;
            event.detail = format!("late-beacon rule: {}", l.rule);
            "round_beacon_late"
        }
        Kind::RoundOpened(_)
        | Kind::RoundBeaconArrived(_)
        | Kind::RoundBet(_)
        | Kind::RoundBettingClosed(_)
        | Kind::RoundDealt(_)
        | Kind::RoundRevealed(_)
        | Kind::RoundDecided(_)
        | Kind::RoundShaken(_)
        | Kind::RoundDealerSet(_)
        | Kind::RoundSettled(_)
        | Kind::RoundSeedRevealed(_)
        | Kind::HandOpened(_)
        | Kind::CardsShown(_)
        | Kind::Acted(_)
        | Kind::DiceShaken(_)
        | Kind::HandSet(_)
        | Kind::Settled(_)
        | Kind::SeedRevealed(_) => return None,
    };
    event.kind = kind.to_string();
    Some(event)
}
