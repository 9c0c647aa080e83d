//! `Lab.CheckTranscripts` translated: each request's transcript (JSON, or a typed message turned
//! into the same JSON) checked by the lab's `transcript` module, its verdict as a message; the
//! limits of a typed transcript; the stream's loop, one transcript at a time, bounded like every
//! other stream. Holds no rule: the engine decides, through `pitboss_lab::transcript`.

use serde_json::{json, Map, Value};
use tokio::sync::{mpsc, OwnedSemaphorePermit};
use tonic::{Status, Streaming};

use super::limits::{self, Bounded};
use super::status::invalid_argument;
use crate::proto;
use pitboss_lab::round_transcript;

/// The largest transcript or configuration, as JSON.
pub const MAX_JSON: usize = limits::TRANSCRIPT_JSON;
/// Seats of a typed transcript's cards, and cards of a seat.
pub const MAX_SEATS: usize = 4;
pub const MAX_SEAT_CARDS: usize = 53;
/// Shakes of a typed transcript, and dice of a shake.
pub const MAX_SHAKES: usize = 256;
pub const MAX_SHAKE_DICE: usize = 5;
/// Decisions of a transcript, wagers and claimed payouts.
pub const MAX_DECISIONS: usize = 256;
pub const MAX_BETS: usize = 16;

fn at_most(field: &str, len: usize, max: usize, what: &str) -> Result<(), Status> {
    if len > max {
        Err(invalid_argument(
            field,
            format!("{len} {what}: at most {max}"),
        ))
    } else {
        Ok(())
    }
}

impl Bounded for proto::CheckTranscriptsRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        limits::NAME_FILTER.check(&format!("{place}reference"), &self.reference)?;
        match &self.transcript {
            None => Err(invalid_argument(
                &format!("{place}transcript"),
                "required: json or typed",
            )),
            Some(proto::check_transcripts_request::Transcript::Json(text)) => {
                at_most(&format!("{place}json"), text.len(), MAX_JSON, "bytes")
            }
            Some(proto::check_transcripts_request::Transcript::Typed(t)) => {
                let field = |name: &str| format!("{place}typed.{name}");
                limits::NAME_FILTER.check(&field("id"), &t.id)?;
                at_most(
                    &field("config_json"),
                    t.config_json.len(),
                    MAX_JSON,
                    "bytes",
                )?;
                at_most(&field("seed"), t.seed.len(), 64, "characters")?;
                at_most(&field("cards"), t.cards.len(), MAX_SEATS, "seats")?;
                for (seat, cards) in &t.cards {
                    limits::OPTIONAL_ID.check(&field("cards"), seat)?;
                    at_most(
                        &field(&format!("cards.{seat}")),
                        cards.cards.len(),
                        MAX_SEAT_CARDS,
                        "cards",
                    )?;
                    for (i, card) in cards.cards.iter().enumerate() {
                        limits::CARD.check(&field(&format!("cards.{seat}[{i}]")), card)?;
                    }
                }
                at_most(&field("dice"), t.dice.len(), MAX_SHAKES, "shakes")?;
                for (i, roll) in t.dice.iter().enumerate() {
                    at_most(
                        &field(&format!("dice[{i}]")),
                        roll.faces.len(),
                        MAX_SHAKE_DICE,
                        "dice",
                    )?;
                }
                at_most(&field("wagers"), t.wagers.len(), MAX_BETS, "bets")?;
                for bet in t.wagers.keys() {
                    limits::ID.check(&field("wagers"), bet)?;
                }
                at_most(
                    &field("decisions"),
                    t.decisions.len(),
                    MAX_DECISIONS,
                    "decisions",
                )?;
                for (i, d) in t.decisions.iter().enumerate() {
                    limits::NAME.check(&field(&format!("decisions[{i}]")), d)?;
                }
                if let Some(c) = &t.claimed {
                    at_most(&field("claimed.payouts"), c.payouts.len(), MAX_BETS, "bets")?;
                    for bet in c.payouts.keys() {
                        limits::ID.check(&field("claimed.payouts"), bet)?;
                    }
                }
                Ok(())
            }
        }
    }
}

/// A typed transcript as the JSON docs/transcripts.md describes (the one parser then reads both).
fn typed_json(t: &proto::TranscriptMessage) -> Result<String, String> {
    let game = proto::Game::try_from(t.game)
        .ok()
        .and_then(|g| super::convert::game("game", g as i32).ok())
        .ok_or_else(|| format!("typed.game: {} is not a game", t.game))?;
    let mut out = Map::new();
    if !t.id.is_empty() {
        out.insert("id".into(), json!(t.id));
    }
    out.insert("game".into(), json!(game.id()));
    if !t.config_json.is_empty() {
        let config: Value =
            serde_json::from_str(&t.config_json).map_err(|e| format!("typed.config_json: {e}"))?;
        out.insert("config".into(), config);
    }
    if !t.seed.is_empty() {
        out.insert("seed".into(), json!(t.seed));
    }
    if !t.cards.is_empty() {
        let cards: Map<String, Value> = t
            .cards
            .iter()
            .map(|(seat, c)| (seat.clone(), json!(c.cards)))
            .collect();
        out.insert("cards".into(), Value::Object(cards));
    }
    if !t.dice.is_empty() {
        out.insert(
            "dice".into(),
            json!(t.dice.iter().map(|r| r.faces.clone()).collect::<Vec<_>>()),
        );
    }
    out.insert("wagers".into(), json!(t.wagers));
    out.insert("decisions".into(), json!(t.decisions));
    if let Some(c) = &t.claimed {
        let mut claimed = Map::new();
        claimed.insert("payouts".into(), json!(c.payouts));
        if let Some(total) = c.total_paid {
            claimed.insert("total_paid".into(), json!(total));
        }
        out.insert("claimed".into(), Value::Object(claimed));
    }
    Ok(Value::Object(out).to_string())
}

/// The verdict on one transcript (checked against its limits already).
fn verdict(index: u64, request: &proto::CheckTranscriptsRequest) -> proto::TranscriptVerdict {
    use proto::check_transcripts_request::Transcript as T;
    let mut v = proto::TranscriptVerdict {
        index,
        reference: request.reference.clone(),
        ..Default::default()
    };
    let text = match &request.transcript {
        Some(T::Json(text)) => Ok(text.clone()),
        Some(T::Typed(t)) => typed_json(t),
        None => Err("no transcript".into()),
    };
    let checked = text.and_then(|text| {
        round_transcript::parse_any(&text)
            .and_then(|t| t.check())
            .map_err(|e| e.to_string())
    });
    match checked {
        Ok(c) => {
            v.id = c.id().unwrap_or_default().to_string();
            v.total_paid = c.total_paid().unwrap_or(u64::MAX);
            v.verdict = if c.agrees() { "agrees" } else { "differs" }.into();
            v.differences = c
                .named_differences()
                .into_iter()
                .map(|(d, rule)| proto::TranscriptDifference {
                    bet: d.what,
                    claimed: d.claimed,
                    rules_pay: d.ours,
                    rule,
                })
                .collect();
        }
        Err(why) => {
            v.verdict = "refused".into();
            v.refused = why;
        }
    }
    v
}

/// Transcripts checked together: those already arrived when one is read, at most this many (at
/// most 64 × 60 KiB held per stream), on two threads.
const BATCH: usize = 64;

/// The stream: transcripts read as they arrive (a batch of those already there, at most
/// [`BATCH`]), checked on the blocking pool, answered in order before more are read, then the
/// totals; `permit` held to the end. A request beyond its limits ends the stream with
/// `INVALID_ARGUMENT` naming `transcripts[i].…`, after the verdicts before it.
pub async fn run(
    mut inbound: Streaming<proto::CheckTranscriptsRequest>,
    tx: mpsc::Sender<Result<proto::CheckTranscriptsResponse, Status>>,
    permit: OwnedSemaphorePermit,
    stopping: std::sync::Arc<std::sync::atomic::AtomicBool>,
) {
    use futures_util::FutureExt;
    use proto::check_transcripts_response::Kind;
    let _permit = permit;
    let mut totals = proto::TranscriptTotals::default();
    let send = |message: Result<proto::CheckTranscriptsResponse, Status>| {
        let tx = tx.clone();
        async move { limits::send_within_stall(&tx, message, "stream").await }
    };
    let mut ended = false;
    while !ended {
        if stopping.load(std::sync::atomic::Ordering::Relaxed) {
            let _ = send(Err(Status::unavailable("the server is stopping"))).await;
            return;
        }
        // One transcript waited for, then those already arrived.
        let mut batch = Vec::new();
        let mut refusal = None;
        // A client that sends nothing for as long as a reader may stall is ended the same way.
        let Ok(first) = tokio::time::timeout(limits::STREAM_STALL, inbound.message()).await else {
            let _ = send(Err(Status::deadline_exceeded(format!(
                "the client sent nothing for {} s: the stream is ended",
                limits::STREAM_STALL.as_secs()
            ))))
            .await;
            return;
        };
        let mut next = Some(first);
        while let Some(read) = next.take() {
            match read {
                Ok(Some(request)) => {
                    let index = totals.transcripts + batch.len() as u64;
                    if let Err(status) = request.check_in(&format!("transcripts[{index}].")) {
                        refusal = Some(status);
                        break;
                    }
                    batch.push((index, request));
                    if batch.len() < BATCH {
                        next = inbound.message().now_or_never();
                    }
                }
                Ok(None) => ended = true,
                // The client went away or broke its side: nobody to answer.
                Err(_) => return,
            }
        }
        let verdicts = match tokio::task::spawn_blocking(move || check_batch(batch)).await {
            Ok(v) => v,
            Err(_) => {
                let _ = send(Err(Status::internal(super::guard::PANIC_MESSAGE))).await;
                return;
            }
        };
        for v in verdicts {
            totals.transcripts += 1;
            match v.verdict.as_str() {
                "agrees" => totals.agree += 1,
                "differs" => totals.differ += 1,
                _ => totals.refused += 1,
            }
            if !send(Ok(proto::CheckTranscriptsResponse {
                kind: Some(Kind::Verdict(v)),
            }))
            .await
            {
                return;
            }
        }
        if let Some(status) = refusal {
            let _ = send(Err(status)).await;
            return;
        }
    }
    let _ = send(Ok(proto::CheckTranscriptsResponse {
        kind: Some(Kind::Totals(totals)),
    }))
    .await;
}

/// The verdict on one transcript; a panic in its check (the engine's bug) is that transcript's
/// refusal, never the stream's end.
fn verdict_or_refused(
    index: u64,
    request: &proto::CheckTranscriptsRequest,
) -> proto::TranscriptVerdict {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| verdict(index, request)))
        .unwrap_or_else(|_| proto::TranscriptVerdict {
            index,
            reference: request.reference.clone(),
            verdict: "refused".into(),
            refused: super::guard::PANIC_MESSAGE.into(),
            ..Default::default()
        })
}

/// The verdicts of a batch, in order, its halves on two threads.
fn check_batch(batch: Vec<(u64, proto::CheckTranscriptsRequest)>) -> Vec<proto::TranscriptVerdict> {
    let half = batch.len().div_ceil(2);
    let (first, second) = batch.split_at(half);
    let check = |part: &[(u64, proto::CheckTranscriptsRequest)]| {
        part.iter()
            .map(|(i, r)| verdict_or_refused(*i, r))
            .collect::<Vec<_>>()
    };
    if second.is_empty() {
        return check(first);
    }
    std::thread::scope(|scope| {
        let other = scope.spawn(|| check(second));
        let mut out = check(first);
        // Each check catches its own panic: the thread ends normally.
        out.extend(other.join().unwrap_or_default());
        out
    })
}
