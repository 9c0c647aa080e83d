//! Replay of a table's round (`docs/rounds.md`): from the round's recorded entries alone, check
//! every entry's link and signature, the seed against the commitment recorded at the opening, that
//! the table was dealt from one shuffle (no deck position holding two cards, no card at two
//! positions), then re-run every recorded command with the engine's `Round` and compare what it
//! gives with what was recorded, event by event; and state each place's settlement or void line
//! by line, as a hand's proof report states one. The result is a [`RoundProofReport`].
//!
//! A report for one player ([`Reader::Player`]) names that player's places and masks every other
//! player's name; their cards, settlements and voids are shown as the table saw them at the
//! showdown. Reads entries it is given; never writes.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::codec::{self, EntryPayload};
use crate::floor::Floor;
use pitboss_engine::card::Card;
use pitboss_engine::config::{ConfigId, GameConfig};
use pitboss_engine::game::GameId;
use pitboss_engine::games::{Status, Void};
use pitboss_engine::money::Money;
use pitboss_engine::round::{Phase, Round, RoundError, RoundEvent, PAGE_MAX};
use pitboss_engine::settlement::Settlement;
use pitboss_ledger::Entry;

use super::replay::{self, EntryStatus, EventCheck, Mismatch, ReplayError};

/// The name a report for one player shows in place of another player's.
pub const MASKED: &str = "(another player)";

/// Whose report: the table's (every name shown) or one player's (the others' names masked).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reader<'a> {
    /// An auditor: every place's player named.
    Table,
    /// One player: their places named, the others masked.
    Player(&'a str),
}

/// One place of a round, as re-derived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlaceProof {
    /// The place's number (from 0, in the order bets were placed).
    pub place: u32,
    /// Its seat, at a round of seats.
    pub seat: Option<u8>,
    /// Its player, or [`MASKED`].
    pub player: String,
    /// Whether it is the reader's own place.
    pub yours: bool,
    /// In progress, settled or voided.
    pub status: Status,
    /// Its own cards as the table saw them (a seat's; a shared hand's are the table's), by round
    /// deck position.
    pub cards: Vec<(u8, Card)>,
    /// Its settlement, line by line.
    pub settlement: Option<Settlement>,
    /// Its void (the round's, a forfeit, or the incomplete-game rule's refund).
    pub void: Option<Void>,
    /// The place in words.
    pub report: Vec<String>,
}

/// The proof report of one round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundProofReport {
    pub round_id: String,
    pub game: Option<GameId>,
    pub config_id: Option<ConfigId>,
    /// As re-derived (`None`: not re-derived: in progress, or refused).
    pub phase: Option<Phase>,
    pub table: String,
    pub dealer: String,
    pub commitment_ok: bool,
    pub seed_revealed: bool,
    /// Every card dealt or shown stands at one deck position, and no position holds two cards.
    pub one_shuffle: bool,
    pub events: Vec<EventCheck>,
    pub mismatches: Vec<Mismatch>,
    /// Every place, once the round is re-derived.
    pub places: Vec<PlaceProof>,
    /// The cards turned for the whole table (a dealer's, community cards, a shared hand), by
    /// round deck position.
    pub table_cards: Vec<(u8, Card)>,
    /// Nutz: the dice after the last shake.
    pub dice: Option<[u8; 5]>,
    /// Every link and signature checks, every event is re-derived, the commitment opens, one
    /// shuffle.
    pub consistent: bool,
    /// The report in words.
    pub report: Vec<String>,
}

/// Replays round `round_id` from the log, for `reader`.
pub fn replay_round(
    floor: &Floor,
    round_id: &str,
    reader: Reader<'_>,
) -> Result<RoundProofReport, ReplayError> {
    let entries = floor
        .round_stream_entries(round_id)
        .map_err(|e| ReplayError::Ledger(e.to_string()))?;
    if entries.is_empty() {
        return Err(ReplayError::NotFound(round_id.to_string()));
    }
    let statuses = replay::entry_statuses(floor, &entries);
    Ok(replay_round_entries(
        round_id,
        &entries,
        statuses,
        |id| floor.config(id),
        reader,
    ))
}

/// Replays a round from its entries, whose storage the caller checked (`statuses`, one per entry:
/// against the live log, or against a checkpoint in an offline bundle).
pub fn replay_round_entries(
    round_id: &str,
    entries: &[Entry],
    statuses: Vec<EntryStatus>,
    configs: impl Fn(&ConfigId) -> Option<Arc<GameConfig>>,
    reader: Reader<'_>,
) -> RoundProofReport {
    let mut report = RoundProofReport {
        round_id: round_id.to_string(),
        game: None,
        config_id: None,
        phase: None,
        table: String::new(),
        dealer: String::new(),
        commitment_ok: false,
        seed_revealed: false,
        one_shuffle: false,
        events: Vec::new(),
        mismatches: Vec::new(),
        places: Vec::new(),
        table_cards: Vec::new(),
        dice: None,
        consistent: false,
        report: Vec::new(),
    };
    let events = decode(entries, statuses, &mut report);
    let Some(RoundEvent::Opened(opened)) = events.first() else {
        report
            .report
            .push("the round's first event is not its opening".into());
        return report;
    };
    report.game = Some(opened.game);
    report.config_id = Some(opened.config_id);
    report.table = opened.table.clone();
    report.dealer = opened.dealer.clone();
    report.report.push(format!(
        "round {round_id}: {}, table {}, dealer {}{}, shape {}, opened at {} ms, configuration {}",
        opened.game,
        opened.table,
        opened.dealer,
        opened
            .shoe
            .as_ref()
            .map(|s| format!(", shoe {s}"))
            .unwrap_or_default(),
        opened.shape.name(),
        opened.at.0,
        opened.config_id
    ));
    for event in &events {
        if let RoundEvent::DealerChanged(d) = event {
            report.report.push(format!(
                "dealer {} took over from {} at {} ms: {}",
                d.to, d.from, d.at.0, d.reason
            ));
        }
    }
    report.one_shuffle = one_shuffle(&events, &mut report.report);
    let seed = events.iter().find_map(|e| match e {
        RoundEvent::SeedRevealed { seed } => Some(*seed),
        _ => None,
    });
    let chained = report.events.iter().all(|e| e.chain_ok && e.signature_ok);
    let Some(seed) = seed else {
        report.report.push(
            "in progress: the seed stays secret until the round ends; links and signatures \
             checked, re-derivation waits for the end"
                .into(),
        );
        report.consistent = chained && report.mismatches.is_empty() && report.one_shuffle;
        return report;
    };
    report.seed_revealed = true;
    report.commitment_ok = replay::commitment_opens(&opened.commitment, &seed, &mut report.report);
    let Some(config) = configs(&opened.config_id) else {
        report.report.push(format!(
            "configuration {} is not published in the log",
            opened.config_id
        ));
        return report;
    };
    match Round::replay(seed, config, &events) {
        Ok(round) => {
            for check in &mut report.events {
                check.rederived = true;
            }
            report.phase = Some(round.phase());
            places(&round, reader, &mut report);
        }
        Err(RoundError::Replay { index, why }) => {
            for check in report.events.iter_mut().take(index) {
                check.rederived = true;
            }
            let (sequence, event) = report
                .events
                .get(index)
                .map_or((0, "missing".to_string()), |e| (e.sequence, e.kind.clone()));
            report.mismatches.push(Mismatch {
                sequence,
                event,
                field: "event".into(),
                recorded: "as recorded".into(),
                rederived: why,
            });
        }
        Err(other) => report.mismatches.push(Mismatch {
            sequence: 0,
            event: "round".into(),
            field: "replay".into(),
            recorded: "replayable".into(),
            rederived: other.to_string(),
        }),
    }
    verdict(&mut report, chained);
    report
}

/// The round events the entries carry, each entry's check added to the report; an entry that
/// carries no round event is a mismatch, and the events stop there.
fn decode(
    entries: &[Entry],
    statuses: Vec<EntryStatus>,
    report: &mut RoundProofReport,
) -> Vec<RoundEvent> {
    let mut events = Vec::with_capacity(entries.len());
    for (entry, (chain_ok, signature_ok, note)) in entries.iter().zip(statuses) {
        let decoded = entry
            .payload()
            .map_err(|e| e.to_string())
            .and_then(|payload| {
                codec::payload_to_round_event(&payload)
                    .map_err(|e| e.to_string())?
                    .ok_or_else(|| "not a round's event".to_string())
            });
        report.events.push(EventCheck {
            sequence: entry.envelope.sequence,
            stream_position: entry.envelope.stream_position,
            kind: decoded
                .as_ref()
                .map_or("undecodable", RoundEvent::kind)
                .to_string(),
            chain_ok,
            signature_ok,
            rederived: false,
            note,
            actor: entry.envelope.actor.clone(),
        });
        match decoded {
            Ok(event) => events.push(event),
            Err(problem) => {
                report.mismatches.push(Mismatch {
                    sequence: entry.envelope.sequence,
                    event: "undecodable".into(),
                    field: "payload".into(),
                    recorded: problem,
                    rederived: String::new(),
                });
                break;
            }
        }
    }
    events
}

/// One shuffle: every card the events deal or show stands at one round deck position, and no
/// position holds two different cards; said in words.
fn one_shuffle(events: &[RoundEvent], words: &mut Vec<String>) -> bool {
    let mut at: BTreeMap<u8, Card> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut record = |positions: &[u8], cards: &[Card]| {
        if positions.len() != cards.len() {
            problems.push(format!(
                "{} positions for {} cards",
                positions.len(),
                cards.len()
            ));
        }
        for (&position, &card) in positions.iter().zip(cards) {
            match at.insert(position, card) {
                Some(before) if before != card => problems.push(format!(
                    "deck position {position} holds both {before} and {card}"
                )),
                _ => {}
            }
        }
    };
    for event in events {
        match event {
            RoundEvent::Dealt { seats } => {
                for seat in seats {
                    record(&seat.positions, &seat.cards);
                }
            }
            RoundEvent::Revealed { positions, cards } => record(positions, cards),
            _ => {}
        }
    }
    let mut seen: BTreeMap<Card, u8> = BTreeMap::new();
    for (&position, &card) in &at {
        if let Some(first) = seen.insert(card, position) {
            problems.push(format!(
                "{card} stands at deck positions {first} and {position}"
            ));
        }
    }
    if problems.is_empty() {
        words.push(format!(
            "one shuffle: {} cards dealt or shown, each at its own deck position, none twice",
            at.len()
        ));
        true
    } else {
        for problem in problems {
            words.push(format!("NOT ONE SHUFFLE: {problem}"));
        }
        false
    }
}

/// Every place of the re-derived round, in words, as `reader` may see it, with the cards the
/// table saw (the table's view of the round, page by page).
fn places(round: &Round, reader: Reader<'_>, report: &mut RoundProofReport) {
    let digits = round.config().currency.minor_digits;
    let m = |amount: Money| amount.display(digits);
    let mut from = 0;
    loop {
        let view = round.view(None, from, PAGE_MAX);
        if from == 0 {
            report.table_cards = view.table_cards.clone();
            report.dice = view.dice.as_ref().map(|d| d.faces);
        }
        for seen in &view.places {
            let Some(place) = usize::try_from(seen.place)
                .ok()
                .and_then(|i| round.places().get(i))
            else {
                continue;
            };
            let yours = matches!(reader, Reader::Player(p) if p == place.player());
            let player = match reader {
                Reader::Table => place.player().to_string(),
                Reader::Player(_) if yours => place.player().to_string(),
                Reader::Player(_) => MASKED.to_string(),
            };
            let hand = place.hand();
            let mut words = vec![format!(
                "place {}{}: {player}, {}",
                seen.place,
                place
                    .seat()
                    .map(|s| format!(" (seat {s})"))
                    .unwrap_or_default(),
                codec::id_of(&hand.status())
            )];
            if let Some(settlement) = hand.settlement() {
                replay::settlement_words(&mut words, settlement, digits, &m);
            }
            if let Some(void) = hand.void() {
                replay::void_words(&mut words, void, &m);
            }
            report.places.push(PlaceProof {
                place: seen.place,
                seat: place.seat(),
                player,
                yours,
                status: hand.status(),
                cards: seen
                    .cards
                    .iter()
                    .filter_map(|&(position, card)| card.map(|c| (position, c)))
                    .collect(),
                settlement: hand.settlement().cloned(),
                void: hand.void().cloned(),
                report: words,
            });
        }
        match view.next_place {
            Some(next) if next > from => from = next,
            _ => break,
        }
    }
}

/// The verdict, and each mismatch in words.
fn verdict(report: &mut RoundProofReport, chained: bool) {
    let rederived = report.events.iter().all(|e| e.rederived);
    report.consistent = chained
        && rederived
        && report.mismatches.is_empty()
        && report.commitment_ok
        && report.one_shuffle;
    let counted = format!(
        "{} events, {} places",
        report.events.len(),
        report.places.len()
    );
    replay::verdict_words(
        &mut report.report,
        &counted,
        (chained, rederived, report.consistent),
        &report.mismatches,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_engine::round::SeatDealt;

    fn cards(texts: &[&str]) -> Vec<Card> {
        texts.iter().map(|t| t.parse().unwrap()).collect()
    }

    /// One shuffle holds when every card stands at one position; a position shown with another
    /// card than dealt, or a card at two positions, is named.
    #[test]
    fn one_shuffle_names_a_position_with_two_cards_and_a_card_at_two_positions() {
        let dealt = |positions: Vec<u8>, texts: &[&str]| RoundEvent::Dealt {
            seats: vec![SeatDealt {
                seat: 1,
                positions,
                cards: cards(texts),
            }],
        };
        let mut words = Vec::new();
        let good = [
            dealt(vec![0, 1], &["As", "Kd"]),
            RoundEvent::Revealed {
                positions: vec![1, 2],
                cards: cards(&["Kd", "2c"]),
            },
        ];
        assert!(one_shuffle(&good, &mut words), "{words:?}");
        assert!(words[0].contains("3 cards"), "{words:?}");

        let mut words = Vec::new();
        let moved = [
            dealt(vec![0, 1], &["As", "Kd"]),
            RoundEvent::Revealed {
                positions: vec![1],
                cards: cards(&["Qh"]),
            },
        ];
        assert!(!one_shuffle(&moved, &mut words));
        assert!(
            words
                .iter()
                .any(|w| w.contains("position 1 holds both Kd and Qh")),
            "{words:?}"
        );

        let mut words = Vec::new();
        let twice = [dealt(vec![0, 5], &["As", "As"])];
        assert!(!one_shuffle(&twice, &mut words));
        assert!(
            words
                .iter()
                .any(|w| w.contains("As stands at deck positions 0 and 5")),
            "{words:?}"
        );
    }
}
