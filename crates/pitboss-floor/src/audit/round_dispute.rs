//! The dispute packet of a table's round: the round's offline bundle, checked here exactly as
//! `pitboss verify-bundle` checks it, and the page a person reads, drawn by `pitboss-packet` from
//! what that check found — the whole table as the dealer showed it, the disputing player's places
//! named and every other player's name masked (the bundle beside it holds the signed entries as
//! recorded, every name in them).
//!
//! Reads the log (through the bundle) and never changes it; draws nothing itself.

use ed25519_dalek::VerifyingKey;
use pitboss_engine::card::Card;
use pitboss_engine::config::GameConfig;
use pitboss_engine::round::RoundEvent;
use pitboss_packet::{RoundPacket, RoundPacketEvent, RoundPacketPlace, RoundVerdict};

use super::bundle::{self, Bundle, BundleError, Subject, Verified};
use super::dispute::Dispute;
use super::replay::EntryStatus;
use super::round_replay::{replay_round_entries, Reader, RoundProofReport, MASKED};
use crate::codec::{self, EntryPayload};
use crate::floor::Floor;

/// Builds the dispute packet of round `round_id` for `player` (their places named, the others
/// masked; `None`: every name shown), proven as `source` says.
pub fn build_round(
    floor: &Floor,
    round_id: &str,
    player: Option<&str>,
    source: bundle::Source<'_>,
) -> Result<Dispute, BundleError> {
    let (bundle, key) = bundle::build_of(floor, Subject::Round(round_id), source)?;
    let bundle_json = serde_json::to_string_pretty(&bundle)
        .map_err(|e| BundleError::Malformed(format!("the bundle does not serialize: {e}")))?;
    let bundle_file = format!("round-{round_id}.bundle.json");
    let policy = match source {
        bundle::Source::Mirror(mirror) => {
            Some(mirror.self_policy(&key).map_err(BundleError::NotHeld)?)
        }
        bundle::Source::Log(_) => None,
    };
    let verified = bundle::verify(&bundle, &key, policy.as_ref());
    let reader = player.map_or(Reader::Table, Reader::Player);
    let packet = packet(&bundle, &key, &verified, &bundle_file, reader)?;
    let config = GameConfig::from_json(bundle.config_json.as_bytes())
        .map_err(|e| BundleError::Malformed(format!("the configuration does not read: {e}")))?;
    let events: Vec<RoundEvent> = verified
        .entries
        .iter()
        .filter_map(|e| {
            e.payload()
                .ok()
                .and_then(|p| codec::payload_to_round_event(&p).ok().flatten())
        })
        .collect();
    let deal_json = super::deal_inputs::deal_inputs(round_id, &config, &events)
        .map(|inputs| serde_json::to_string_pretty(&inputs))
        .transpose()
        .map_err(|e| BundleError::Malformed(format!("the deal inputs do not serialize: {e}")))?
        .unwrap_or_default();
    Ok(Dispute {
        html: pitboss_packet::render_round(&packet),
        bundle_json,
        bundle_file,
        html_file: format!("round-{round_id}.html"),
        verified: verified.ok(),
        deal_file: format!("round-{round_id}.deal.json"),
        deal_json,
    })
}

/// What the page shows, from the bundle and its check, as `reader` may see it.
fn packet(
    bundle: &Bundle,
    key: &VerifyingKey,
    verified: &Verified,
    bundle_file: &str,
    reader: Reader<'_>,
) -> Result<RoundPacket, BundleError> {
    let malformed = |what: String| BundleError::Malformed(what);
    let config = GameConfig::from_json(bundle.config_json.as_bytes())
        .map_err(|e| malformed(format!("the configuration does not read: {e}")))?;
    let table_report = verified.round.as_ref();
    // The report again, for the reader: the same entries and checks, names masked.
    let statuses: Vec<EntryStatus> = table_report
        .map(|r| {
            r.events
                .iter()
                .map(|e| (e.chain_ok, e.signature_ok, e.note.clone()))
                .collect()
        })
        .unwrap_or_default();
    let shared = std::sync::Arc::new(config.clone());
    let report: Option<RoundProofReport> = (statuses.len() == verified.entries.len()).then(|| {
        replay_round_entries(
            &bundle.round_id,
            &verified.entries,
            statuses,
            |_| Some(shared.clone()),
            reader,
        )
    });
    let mut events = Vec::with_capacity(verified.entries.len());
    let mut decoded = Vec::with_capacity(verified.entries.len());
    for entry in &verified.entries {
        let event = entry
            .payload()
            .ok()
            .and_then(|p| codec::payload_to_round_event(&p).ok().flatten())
            .ok_or_else(|| {
                malformed(format!(
                    "entry {} is not an event of the round",
                    entry.envelope.sequence
                ))
            })?;
        decoded.push(event);
    }
    let ended = decoded
        .iter()
        .any(|e| matches!(e, RoundEvent::SeedRevealed { .. }));
    let seats_of: Vec<(u32, Option<u8>, String)> = decoded
        .iter()
        .filter_map(|e| match e {
            RoundEvent::BetPlaced(bet) => Some((bet.place, bet.seat, bet.player.clone())),
            _ => None,
        })
        .collect();
    let name = |player: &str| match reader {
        Reader::Player(p) if p != player => MASKED.to_string(),
        _ => player.to_string(),
    };
    let own_seat = |seat: u8| match reader {
        Reader::Table => true,
        Reader::Player(p) => seats_of
            .iter()
            .any(|(_, s, who)| *s == Some(seat) && who == p),
    };
    let currency = &config.currency;
    for (entry, event) in verified.entries.iter().zip(&decoded) {
        let envelope = &entry.envelope;
        let check = report
            .as_ref()
            .and_then(|r| r.events.iter().find(|e| e.sequence == envelope.sequence));
        events.push(RoundPacketEvent {
            sequence: envelope.sequence,
            stream_position: envelope.stream_position,
            recorded_at_ms: envelope.recorded_at_ms,
            actor: envelope.actor.clone(),
            kind: event.kind().to_string(),
            words: words(event, &name, &own_seat, ended, currency),
            in_checkpoint: check.is_some_and(|c| c.chain_ok),
            signature_ok: check.is_some_and(|c| c.signature_ok),
            rederived: check.is_some_and(|c| c.rederived),
            note: check.map(|c| c.note.clone()).unwrap_or_default(),
        });
    }
    let Some(RoundEvent::Opened(opened)) = decoded.first() else {
        return Err(malformed(format!(
            "round {}'s first entry is not its opening",
            bundle.round_id
        )));
    };
    let checkpoint = super::dispute::checkpoint_facts(bundle, key)?;
    let places = report
        .as_ref()
        .map(|r| {
            r.places
                .iter()
                .map(|p| RoundPacketPlace {
                    place: p.place,
                    seat: p.seat,
                    player: p.player.clone(),
                    yours: p.yours,
                    status: codec::id_of(&p.status),
                    cards: p.cards.clone(),
                    settlement: p.settlement.clone(),
                    void: p.void.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(RoundPacket {
        round_id: bundle.round_id.clone(),
        game: opened.game,
        table: opened.table.clone(),
        dealer: std::iter::once(opened.dealer.as_str())
            .chain(decoded.iter().filter_map(|e| match e {
                RoundEvent::DealerChanged(d) => Some(d.to.as_str()),
                _ => None,
            }))
            .collect::<Vec<_>>()
            .join(" → "),
        shoe: opened.shoe.clone().unwrap_or_default(),
        shape: opened.shape.name().to_string(),
        opened_at_ms: opened.at.0,
        last_at_ms: events.last().map_or(0, |e| e.recorded_at_ms),
        phase: report
            .as_ref()
            .and_then(|r| r.phase)
            .map(|p| format!("{p:?}").to_lowercase())
            .unwrap_or_default(),
        config_id: bundle.config_id.clone(),
        player: match reader {
            Reader::Table => String::new(),
            Reader::Player(p) => p.to_string(),
        },
        table_cards: report
            .as_ref()
            .map(|r| r.table_cards.clone())
            .unwrap_or_default(),
        dice: report.as_ref().and_then(|r| r.dice),
        places,
        events,
        verdict: RoundVerdict {
            consistent: verified.ok(),
            commitment_ok: table_report.is_some_and(|r| r.commitment_ok),
            seed_revealed: table_report.is_some_and(|r| r.seed_revealed),
            one_shuffle: table_report.is_some_and(|r| r.one_shuffle),
            mismatches: table_report
                .map(|r| super::dispute::mismatches(&r.mismatches))
                .unwrap_or_default(),
            report: report.map(|r| r.report).unwrap_or_default(),
            problems: verified.problems.clone(),
            checkpoint,
            bundle_file: bundle_file.to_string(),
        },
        config,
    })
}

fn cards_text(cards: &[Card]) -> String {
    cards
        .iter()
        .map(Card::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// An event in words, names as the reader may see them; a seat's cards shown to its own player,
/// or to everyone once the round has ended.
fn words(
    event: &RoundEvent,
    name: &impl Fn(&str) -> String,
    own_seat: &impl Fn(u8) -> bool,
    ended: bool,
    currency: &pitboss_engine::config::Currency,
) -> String {
    let m = |amount: pitboss_engine::money::Money| amount.display(currency.minor_digits);
    match event {
        RoundEvent::Opened(o) => format!(
            "round opened at table {}, dealer {}, {} (at most {} players); seed committed {}",
            o.table,
            o.dealer,
            o.shape.name(),
            o.max_players,
            o.commitment
        ),
        RoundEvent::BetPlaced(bet) => format!(
            "place {}{}: {} bets {}{}",
            bet.place,
            bet.seat.map(|s| format!(" (seat {s})")).unwrap_or_default(),
            name(&bet.player),
            bet.wagers
                .iter()
                .map(|w| format!("{} {}", w.bet, m(w.amount)))
                .collect::<Vec<_>>()
                .join(", "),
            bet.seed_digest
                .map(|d| format!("; their seed's digest {}", hex::encode(d)))
                .unwrap_or_default()
        ),
        RoundEvent::BettingClosed { shaker, .. } => match shaker {
            Some(shaker) => format!("betting closed; the cup offered to {}", name(shaker)),
            None => "betting closed".into(),
        },
        RoundEvent::BeaconArrived(a) => format!(
            "beacon round {} arrived, its signature verified: randomness {}",
            a.value.round,
            hex::encode(a.value.randomness)
        ),
        RoundEvent::BeaconLate(l) => format!(
            "the beacon round was late ({}): {}",
            match l.rule {
                pitboss_engine::config::LateBeacon::DealWithout => "dealt without it",
                pitboss_engine::config::LateBeacon::Void => "every bet voided and refunded",
            },
            l.why
        ),
        RoundEvent::Dealt { seats } => {
            let shown: Vec<String> = seats
                .iter()
                .map(|s| {
                    if ended || own_seat(s.seat) {
                        format!("seat {}: {}", s.seat, cards_text(&s.cards))
                    } else {
                        format!("seat {}: face down", s.seat)
                    }
                })
                .collect();
            format!("dealt from one shuffle — {}", shown.join("; "))
        }
        RoundEvent::Revealed { positions, cards } => format!(
            "turned for the table: {}",
            positions
                .iter()
                .zip(cards)
                .map(|(p, c)| format!("{c} (position {p})"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        RoundEvent::Decided { place, action, .. } => {
            format!(
                "place {place} decides: {}",
                pitboss_packet::action_words(action)
            )
        }
        RoundEvent::Shaken(shake) => format!(
            "shake {} by {}: {:?}{}",
            shake.shake,
            name(&shake.who),
            shake.faces,
            if shake.last { ", the last" } else { "" }
        ),
        RoundEvent::WindowClosed(w) => format!(
            "the decision window closed ({}): {} places ended by the incomplete-game rule",
            w.order.reason, w.ended
        ),
        RoundEvent::DealerSet { setting, .. } => {
            format!("the dealer's hand set once by the house way: {setting:?}")
        }
        RoundEvent::DealerChanged(d) => {
            format!("dealer {} takes over from {}: {}", d.to, d.from, d.reason)
        }
        RoundEvent::Settled { place, settlement } => format!(
            "place {place} settled: staked {}, paid {}",
            m(settlement.total_staked),
            m(settlement.total_paid)
        ),
        RoundEvent::RoundVoided(v) => format!(
            "THE ROUND VOIDED ({}), recorded by {}{}: {}",
            codec::id_of(&v.order.kind),
            v.order.recorded_by,
            v.order
                .approved_by
                .as_ref()
                .map(|a| format!(", approved by {a}"))
                .unwrap_or_default(),
            v.order.reason
        ),
        RoundEvent::PlaceVoided { place, void } => format!(
            "place {place} voided ({}): paid before {}, paid now {}",
            codec::id_of(&void.order.kind),
            m(void.paid_before),
            m(void.paid_now)
        ),
        RoundEvent::SeedRevealed { seed } => format!("seed revealed: {}", seed.to_hex()),
    }
}
