//! `Audit.ExportHands`: the floor's walk over the hands and rounds of a selection
//! (`floor/export.rs`), each hand translated into rows of the exported tables — the hand (the same
//! totals `ListHands` gives), its settlement and void lines, its log entries — and each round into
//! a row per place kept (its record, `floor/round_records.rs`), those places' settlement and void
//! lines, and its log entries, streamed with progress reports. The writer of files is the
//! client's (`pitboss export`, with `pitboss-export`).
//!
//! Owns the translation to rows and the stream's pacing; decides nothing and writes nothing. A
//! client that reads nothing for [`limits::STREAM_STALL`] has its stream ended; at most 256 rows
//! wait for it.

use std::sync::Arc;

use pitboss_engine::games::{Event, Void};
use pitboss_engine::paytable::Pay;
use pitboss_engine::round::RoundEvent;
use pitboss_engine::settlement::Settlement;
use tonic::Status;

use super::convert;
use super::limits;
use super::status::status;
use super::work::Shutdown;
use crate::codec;
use crate::floor::{ExportSelection, Exported, Floor, RoundRecord};
use crate::proto;
use proto::export_row::Row;

/// A pay in the export's words, and its odds when it has some.
fn pay_words(pay: Option<Pay>) -> (String, Option<u32>) {
    match pay {
        Some(Pay::Odds(x)) => (format!("{x} to 1"), Some(x)),
        Some(Pay::Push) => ("push".into(), None),
        Some(Pay::Fixed(m)) => (format!("fixed {}", m.0), None),
        None => (String::new(), None),
    }
}

/// The rows of one hand: itself, its bet lines, its entries. None when the selection leaves it
/// out.
/// Whose bet lines: a hand's, or a round's place's.
enum Owner<'a> {
    Hand(&'a str),
    Place { round: &'a str, place: u32 },
}

impl Owner<'_> {
    /// An empty line of this owner, filled by the caller.
    fn line(&self) -> proto::ExportBet {
        match self {
            Owner::Hand(id) => proto::ExportBet {
                hand_id: id.to_string(),
                ..Default::default()
            },
            Owner::Place { round, place } => proto::ExportBet {
                round_id: round.to_string(),
                place: Some(*place),
                ..Default::default()
            },
        }
    }
}

fn line_number(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// A settlement's lines as rows of `bets` (`kind = settlement`).
fn settlement_rows<'a>(
    owner: &'a Owner<'_>,
    sequence: u64,
    settlement: &'a Settlement,
    currency: &'a str,
) -> impl Iterator<Item = Row> + 'a {
    settlement.lines.iter().enumerate().map(move |(i, line)| {
        let (pay, odds) = pay_words(line.pay);
        Row::Bet(proto::ExportBet {
            sequence,
            kind: "settlement".into(),
            line: line_number(i),
            bet: line.bet.id().to_string(),
            stake: line.stake.0,
            judged_on: line.judged_on.clone(),
            rule: line.rule.clone(),
            pay,
            odds,
            outcome: codec::id_of(&line.outcome),
            uncapped: line.uncapped.0,
            cap: line.cap.map(|c| c.0),
            cut: line.cut.0,
            payout: line.payout.0,
            currency: currency.to_string(),
            ..owner.line()
        })
    })
}

/// A void's lines as rows of `bets` (`kind = void`: the stake and what the line pays now).
fn void_rows<'a>(
    owner: &'a Owner<'_>,
    sequence: u64,
    void: &'a Void,
    currency: &'a str,
) -> impl Iterator<Item = Row> + 'a {
    void.lines.iter().enumerate().map(move |(i, line)| {
        Row::Bet(proto::ExportBet {
            sequence,
            kind: "void".into(),
            line: line_number(i),
            bet: line.bet.id().to_string(),
            stake: line.stake.0,
            judged_on: String::new(),
            rule: codec::id_of(&void.order.kind),
            pay: String::new(),
            odds: None,
            outcome: "void".into(),
            uncapped: line.paid_now.0,
            cap: None,
            cut: 0,
            payout: line.paid_now.0,
            currency: currency.to_string(),
            ..owner.line()
        })
    })
}

fn hand_rows(floor: &Floor, id: &str, selection: &ExportSelection) -> Result<Vec<Row>, Status> {
    let hand = floor.load(id, None).map_err(status)?;
    let Some(opened) = hand.opened() else {
        return Ok(Vec::new());
    };
    if !selection.keeps_hand(hand.game(), &opened.table, &opened.player) {
        return Ok(Vec::new());
    }
    let entries = floor.hand_entries(id, 0).map_err(status)?;
    let config = hand.config();
    let currency = config.currency.code.clone();
    let staked = hand
        .total_staked()
        .map_err(|_| Status::data_loss(format!("hand {id}: its stakes overflow")))?;
    let paid = hand.paid();
    let net = i64::try_from(i128::from(paid.0) - i128::from(staked.0))
        .map_err(|_| Status::data_loss(format!("hand {id}: its net does not fit 64 bits")))?;
    let status_name = codec::id_of(&hand.status());
    let ended = status_name != "in_progress";
    let mut rows = vec![Row::Hand(proto::ExportHand {
        hand_id: id.to_string(),
        game: convert::game_to_proto(hand.game()),
        table: opened.table.clone(),
        player: opened.player.clone(),
        opened_at_ms: opened.at.0,
        closed_at_ms: entries
            .last()
            .filter(|_| ended)
            .map(|e| e.envelope.recorded_at_ms),
        config_id: opened.config_id.to_string(),
        config_name: config.name.clone(),
        config_version: config.version,
        currency: currency.clone(),
        minor_digits: u32::from(config.currency.minor_digits),
        status: status_name,
        staked: staked.0,
        paid: paid.0,
        net,
    })];
    for entry in &entries {
        let envelope = &entry.envelope;
        // A hand's entry that is not one of its events is damage, said, never exported as a guess.
        let event = Floor::payload(entry)
            .ok()
            .and_then(|p| codec::payload_to_event(&p).ok().flatten())
            .ok_or_else(|| {
                Status::data_loss(format!(
                    "entry {} of hand {id} is not an event of the hand",
                    envelope.sequence
                ))
            })?;
        match &event {
            Event::Settled(settlement) => {
                rows.extend(settlement_rows(
                    &Owner::Hand(id),
                    envelope.sequence,
                    settlement,
                    &currency,
                ));
            }
            Event::Voided(void) => {
                rows.extend(void_rows(
                    &Owner::Hand(id),
                    envelope.sequence,
                    void,
                    &currency,
                ));
            }
            _ => {}
        }
        rows.push(Row::Event(proto::ExportEvent {
            sequence: envelope.sequence,
            stream: envelope.stream.clone(),
            stream_position: envelope.stream_position,
            kind: event.kind().to_string(),
            hand_id: id.to_string(),
            recorded_at_ms: envelope.recorded_at_ms,
            actor: envelope.actor.clone(),
            hash: hex::encode(entry.hash),
            signature: entry.signature.map(hex::encode).unwrap_or_default(),
            key_id: hex::encode(&envelope.key_id),
            round_id: String::new(),
        }));
    }
    Ok(rows)
}

/// The rows of one round: a row per place the selection keeps, then its entries. None when the
/// selection leaves it out.
fn round_rows(floor: &Floor, id: &str, selection: &ExportSelection) -> Result<Vec<Row>, Status> {
    let record = floor.round_record(id).map_err(status)?;
    let Some(round) = selection.keep_round(record) else {
        return Ok(Vec::new());
    };
    let mut rows = place_rows(&round)?;
    // A player's export keeps that player's places only: their lines only.
    let kept: std::collections::BTreeSet<u32> = round.places.iter().map(|p| p.place).collect();
    let currency = round.config.currency.code.clone();
    for entry in floor.round_stream_entries(id).map_err(ledger_status)? {
        let envelope = &entry.envelope;
        let event = Floor::payload(&entry)
            .ok()
            .and_then(|p| codec::payload_to_round_event(&p).ok().flatten())
            .ok_or_else(|| {
                Status::data_loss(format!(
                    "entry {} of round {id} is not an event of the round",
                    envelope.sequence
                ))
            })?;
        match &event {
            RoundEvent::Settled { place, settlement } if kept.contains(place) => {
                let owner = Owner::Place {
                    round: id,
                    place: *place,
                };
                rows.extend(settlement_rows(
                    &owner,
                    envelope.sequence,
                    settlement,
                    &currency,
                ));
            }
            RoundEvent::PlaceVoided { place, void } if kept.contains(place) => {
                let owner = Owner::Place {
                    round: id,
                    place: *place,
                };
                rows.extend(void_rows(&owner, envelope.sequence, void, &currency));
            }
            _ => {}
        }
        rows.push(Row::Event(proto::ExportEvent {
            sequence: envelope.sequence,
            stream: envelope.stream.clone(),
            stream_position: envelope.stream_position,
            kind: event.kind().to_string(),
            hand_id: String::new(),
            recorded_at_ms: envelope.recorded_at_ms,
            actor: envelope.actor.clone(),
            hash: hex::encode(entry.hash),
            signature: entry.signature.map(hex::encode).unwrap_or_default(),
            key_id: hex::encode(&envelope.key_id),
            round_id: id.to_string(),
        }));
    }
    Ok(rows)
}

/// A row per place of `round`.
fn place_rows(round: &RoundRecord) -> Result<Vec<Row>, Status> {
    let opened = &round.opened;
    let config = &round.config;
    round
        .places
        .iter()
        .map(|place| {
            let net = i64::try_from(place.net()).map_err(|_| {
                Status::data_loss(format!(
                    "round {} place {}: its net does not fit 64 bits",
                    round.id, place.place
                ))
            })?;
            Ok(Row::Place(proto::ExportPlace {
                round_id: round.id.clone(),
                place: place.place,
                seat: place.seat.map(u32::from),
                player: place.player.clone(),
                table: opened.table.clone(),
                dealer: round.dealer().to_string(),
                game: convert::game_to_proto(opened.game),
                shape: opened.shape.name().to_string(),
                config_id: opened.config_id.to_string(),
                config_name: config.name.clone(),
                config_version: config.version,
                currency: config.currency.code.clone(),
                minor_digits: u32::from(config.currency.minor_digits),
                opened_at_ms: opened.at.0,
                ended_at_ms: round.ended_at_ms,
                bet_at_ms: place.bet_at_ms,
                round_phase: crate::floor::phase_name(round.phase).to_string(),
                status: codec::id_of(&place.status),
                staked: place.staked,
                paid: place.paid,
                net,
                void_kind: place
                    .void_kind
                    .map(|k| codec::id_of(&k))
                    .unwrap_or_default(),
            }))
        })
        .collect()
}

fn ledger_status(e: pitboss_ledger::LedgerError) -> Status {
    status(crate::floor::FloorError::from(e))
}

/// Streams the export of `selection` into `tx` until it ends, the client goes away or stops
/// reading, or the server stops.
pub async fn export(
    floor: Arc<Floor>,
    selection: ExportSelection,
    tx: tokio::sync::mpsc::Sender<Result<proto::ExportRow, Status>>,
    shutdown: Shutdown,
) {
    let send = |item: Result<Row, Status>| {
        let tx = tx.clone();
        async move {
            let item = item.map(|row| proto::ExportRow { row: Some(row) });
            limits::send_within_stall(&tx, item, "export").await
        }
    };
    let mut cursor = selection.start();
    let mut scanned = 0;
    loop {
        if shutdown.is_set() {
            let _ = tx.try_send(Err(Status::unavailable("the server is stopping")));
            return;
        }
        let page = match floor.export_page(&selection, &cursor, scanned) {
            Ok(page) => page,
            Err(e) => {
                send(Err(status(e))).await;
                return;
            }
        };
        for found in &page.found {
            let rows = match found {
                Exported::Hand(id) => hand_rows(&floor, id, &selection),
                Exported::Round(id) => round_rows(&floor, id, &selection),
            };
            let rows = match rows {
                Ok(rows) => rows,
                Err(e) => {
                    send(Err(e)).await;
                    return;
                }
            };
            for row in rows {
                if !send(Ok(row)).await {
                    return;
                }
            }
        }
        scanned = page.scanned;
        let progress = Row::Progress(proto::ExportProgress {
            scanned,
            total: page.total,
        });
        if !send(Ok(progress)).await {
            return;
        }
        match page.next {
            Some(next) => cursor = next,
            None => return,
        }
        tokio::task::yield_now().await;
    }
}
