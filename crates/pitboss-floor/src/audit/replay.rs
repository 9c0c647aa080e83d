//! Replay: from a hand's recorded events alone, check the seed against its commitment, re-derive
//! the deal, re-decide each recorded decision and void, re-settle, and compare with what was
//! recorded, event by event and line by line; check every entry's chain link and signature. The
//! result is a [`ProofReport`]: which configuration and paytable rows were used, each cap that
//! bound and what it cut, the void rule that fired and why it was allowed, and the first place the
//! recorded hand and the rules disagree (the event, the field, both values).

use crate::codec::EntryPayload;
use std::sync::Arc;

use crate::codec;
use crate::floor::Floor;
use pitboss_engine::config::{ConfigId, GameConfig};
use pitboss_engine::game::GameId;
use pitboss_engine::games::{
    Action, Command, Completion, Event, Hand, OpenHand, Status, Void, VoidKind,
};
use pitboss_engine::money::Money;
use pitboss_engine::paytable::Pay;
use pitboss_engine::rng::Seed;
use pitboss_engine::settlement::{GameCapLine, Settlement};
use pitboss_ledger::{Entry, ProblemKind};

/// One recorded event, as checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventCheck {
    pub sequence: u64,
    pub stream_position: u64,
    pub kind: String,
    /// Its bytes hash to its hash and it links to the entry before it.
    pub chain_ok: bool,
    /// Its signature verifies with a key the log established (an unsigned entry: the signature that
    /// seals its group in the log; in a bundle, the checkpoint's, through its inclusion).
    pub signature_ok: bool,
    /// Re-deciding produced exactly this event.
    pub rederived: bool,
    pub note: String,
    /// Who caused it: the principal in the signed envelope.
    pub actor: String,
}

/// Where the recorded hand and the rules disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub sequence: u64,
    pub event: String,
    pub field: String,
    pub recorded: String,
    pub rederived: String,
}

/// The proof report of one hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProofReport {
    pub hand_id: String,
    pub game: Option<GameId>,
    pub config_id: Option<ConfigId>,
    pub status: Status,
    pub commitment_ok: bool,
    pub seed_revealed: bool,
    pub events: Vec<EventCheck>,
    pub mismatches: Vec<Mismatch>,
    pub settlement: Option<Settlement>,
    pub void: Option<Void>,
    /// The incomplete-game rule's completion, if it ended the hand (rules version 2).
    pub completion: Option<Completion>,
    pub refunds_equal_stakes: bool,
    pub consistent: bool,
    /// The report in words.
    pub report: Vec<String>,
}

/// A hand that cannot be replayed at all.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("hand `{0}` not found")]
    NotFound(String),
    #[error("the log cannot be read: {0}")]
    Ledger(String),
}

/// The command whose first event this is, if it starts one.
fn command_of(event: &Event) -> Option<Command> {
    Some(match event {
        Event::Opened(o) => Command::Open(OpenHand {
            table: o.table.clone(),
            player: o.player.clone(),
            wagers: o.wagers.clone(),
            at: o.at,
            rebet_of: o.rebet_of.clone(),
        }),
        Event::Acted { action, at, .. } => Command::Act {
            action: *action,
            at: *at,
        },
        Event::DiceShaken { by, at, .. } => Command::Act {
            action: Action::Shake { by: *by },
            at: *at,
        },
        Event::Voided(v) => Command::Void(v.order.clone()),
        Event::Completed(c) => Command::Void(c.order.clone()),
        _ => return None,
    })
}

/// The first field where two events differ, with both values.
fn difference(recorded: &Event, rederived: &Event) -> (String, String, String) {
    if let (Event::Settled(a), Event::Settled(b)) = (recorded, rederived) {
        for (i, (x, y)) in a.lines.iter().zip(&b.lines).enumerate() {
            let fields: [(&str, String, String); 8] = [
                ("bet", x.bet.id().into(), y.bet.id().into()),
                ("stake", x.stake.0.to_string(), y.stake.0.to_string()),
                ("rule", x.rule.clone(), y.rule.clone()),
                ("pay", format!("{:?}", x.pay), format!("{:?}", y.pay)),
                (
                    "uncapped",
                    x.uncapped.0.to_string(),
                    y.uncapped.0.to_string(),
                ),
                ("cap", format!("{:?}", x.cap), format!("{:?}", y.cap)),
                ("cut", x.cut.0.to_string(), y.cut.0.to_string()),
                ("payout", x.payout.0.to_string(), y.payout.0.to_string()),
            ];
            if let Some((name, r, d)) = fields.into_iter().find(|(_, r, d)| r != d) {
                return (format!("lines[{i}].{name}"), r, d);
            }
        }
        if a.lines.len() != b.lines.len() {
            return (
                "lines".into(),
                a.lines.len().to_string(),
                b.lines.len().to_string(),
            );
        }
        if a.game_cap != b.game_cap {
            return (
                "game_cap".into(),
                format!("{:?}", a.game_cap),
                format!("{:?}", b.game_cap),
            );
        }
        return (
            "total_paid".into(),
            a.total_paid.0.to_string(),
            b.total_paid.0.to_string(),
        );
    }
    if recorded.kind() != rederived.kind() {
        return (
            "kind".into(),
            recorded.kind().into(),
            rederived.kind().into(),
        );
    }
    (
        "event".into(),
        format!("{recorded:?}"),
        format!("{rederived:?}"),
    )
}

/// A per-game cap line in words.
fn game_cap_words(g: &GameCapLine, m: &impl Fn(Money) -> String) -> String {
    if g.cut > Money::ZERO {
        format!(
            "PER-GAME CAP {} BOUND: total {} -> {}, cut {}",
            m(g.cap),
            m(g.total_before),
            m(g.total_after),
            m(g.cut)
        )
    } else {
        format!(
            "per-game cap {}: total {} not reached",
            m(g.cap),
            m(g.total_before)
        )
    }
}

fn pays(pay: Option<Pay>, minor_digits: u8) -> String {
    match pay {
        Some(Pay::Odds(x)) => format!("{x} to 1"),
        Some(Pay::Push) => "push".into(),
        Some(Pay::Fixed(m)) => format!("a fixed {}", m.display(minor_digits)),
        None => "loses".into(),
    }
}

/// Whether the revealed `seed` opens the `commitment` recorded at the opening, said in words.
pub(super) fn commitment_opens(
    commitment: &pitboss_engine::rng::Commitment,
    seed: &Seed,
    words: &mut Vec<String>,
) -> bool {
    let opens = commitment.opens_to(seed);
    words.push(if opens {
        format!(
            "seed {} opens the commitment {commitment} recorded at the opening",
            seed.to_hex()
        )
    } else {
        format!("SEED MISMATCH: SHA-256 of the revealed seed is not the commitment {commitment}")
    });
    opens
}

/// How one entry's storage checked: (bytes and link or inclusion, signature, a note).
pub type EntryStatus = (bool, bool, String);

/// Replays `hand_id` from the log. `configs` finds a published configuration by id.
pub fn replay(floor: &Floor, hand_id: &str) -> Result<ProofReport, ReplayError> {
    let entries = floor
        .hand_stream_entries(hand_id)
        .map_err(|e| ReplayError::Ledger(e.to_string()))?;
    if entries.is_empty() {
        return Err(ReplayError::NotFound(hand_id.to_string()));
    }
    let statuses = entry_statuses(floor, &entries);
    Ok(replay_entries(hand_id, &entries, statuses, |id| {
        floor.config(id)
    }))
}

/// The chain link and signature of every entry, checked against the live log.
pub(super) fn entry_statuses(floor: &Floor, entries: &[Entry]) -> Vec<EntryStatus> {
    entries
        .iter()
        .map(|entry| {
            let seq = entry.envelope.sequence;
            let check = floor.log().verify_range(seq, Some(seq));
            match &check.problem {
                None => (true, true, String::new()),
                Some(p) => match &p.kind {
                    ProblemKind::BadSignature | ProblemKind::UnknownKey(_) => {
                        (true, false, p.to_string())
                    }
                    _ => (false, false, p.to_string()),
                },
            }
        })
        .collect()
}

/// Replays a hand from its entries, whose storage was checked by the caller (`statuses`, one per
/// entry: against the log's chain live, against a checkpoint's Merkle root in an offline bundle).
pub fn replay_entries(
    hand_id: &str,
    entries: &[Entry],
    statuses: Vec<EntryStatus>,
    configs: impl Fn(&ConfigId) -> Option<Arc<GameConfig>>,
) -> ProofReport {
    let mut report = ProofReport {
        hand_id: hand_id.to_string(),
        game: None,
        config_id: None,
        status: Status::Pending,
        commitment_ok: false,
        seed_revealed: false,
        events: Vec::new(),
        mismatches: Vec::new(),
        settlement: None,
        void: None,
        completion: None,
        refunds_equal_stakes: true,
        consistent: false,
        report: Vec::new(),
    };
    let events = decode_events(entries, statuses, &mut report);
    let Some(Event::Opened(opened)) = events.first().cloned() else {
        report
            .report
            .push("the hand's first event is not its opening".into());
        return report;
    };
    report.game = Some(opened.game);
    report.config_id = Some(opened.config_id);
    report.report.push(format!(
        "hand {hand_id}: {}, table {}, player {}, opened at {} ms, configuration {}",
        opened.game, opened.table, opened.player, opened.at.0, opened.config_id
    ));
    let config = configs(&opened.config_id);
    if let Some(config) = &config {
        report.report.push(format!(
            "configuration {} version {}, rules version {}, currency {} ({} minor digits)",
            config.name,
            config.version,
            config.rules_version,
            config.currency.code,
            config.currency.minor_digits
        ));
    }
    let seed: Option<Seed> = events.iter().find_map(|e| match e {
        Event::SeedRevealed { seed } => Some(*seed),
        _ => None,
    });
    let Some(seed) = seed else {
        report.status = Status::InProgress;
        report.report.push(
            "in progress: the seed stays secret until the hand ends; chain and signatures checked, re-derivation waits for the end".into(),
        );
        report.consistent = report.events.iter().all(|e| e.chain_ok && e.signature_ok)
            && report.mismatches.is_empty();
        return report;
    };
    report.seed_revealed = true;
    report.commitment_ok = commitment_opens(&opened.commitment, &seed, &mut report.report);
    let Some(config) = config else {
        report.report.push(format!(
            "configuration {} is not published in the log",
            opened.config_id
        ));
        return report;
    };

    // Re-decide every recorded command and compare.
    let Some(hand) = rederive(&events, seed, config, &mut report) else {
        return report;
    };
    report.status = hand.status();
    report.settlement = hand.settlement().cloned();
    report.void = hand.void().cloned();

    report.completion = hand.completion().cloned();
    let m = |amount: Money| amount.display(hand.config().currency.minor_digits);

    completion_words(&mut report);
    if let Some(settlement) = &report.settlement {
        let digits = hand.config().currency.minor_digits;
        settlement_words(&mut report.report, settlement, digits, &m);
    }
    if let Some(void) = &report.void {
        report.refunds_equal_stakes = void_words(&mut report.report, void, &m);
    }
    verdict(&mut report);
    report
}

/// The events the entries carry, each entry's check added to the report (its storage's status from
/// the caller); an entry that carries no hand event is a mismatch, and the events stop there.
fn decode_events(
    entries: &[Entry],
    statuses: Vec<EntryStatus>,
    report: &mut ProofReport,
) -> Vec<Event> {
    let mut events: Vec<Event> = Vec::new();
    for (entry, (chain_ok, signature_ok, note)) in entries.iter().zip(statuses) {
        let seq = entry.envelope.sequence;
        let decoded = entry
            .payload()
            .map_err(|e| e.to_string())
            .and_then(|payload| {
                codec::payload_to_event(&payload)
                    .map_err(|e| e.to_string())?
                    .ok_or_else(|| "not a hand event".to_string())
            });
        let kind = decoded
            .as_ref()
            .map_or("undecodable", |e| e.kind())
            .to_string();
        report.events.push(EventCheck {
            sequence: seq,
            stream_position: entry.envelope.stream_position,
            kind,
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
                    sequence: seq,
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

/// Re-decides every recorded command from the seed with the engine and compares what it gives with
/// what was recorded, event by event: the hand as re-derived, or `None` if the engine refused to
/// evolve it (said in the report). Stops at the first mismatch, which the report holds.
fn rederive(
    events: &[Event],
    seed: Seed,
    config: Arc<GameConfig>,
    report: &mut ProofReport,
) -> Option<Hand> {
    let mut hand = Hand::new(seed, config);
    let mut i = 0;
    while i < events.len() && report.mismatches.is_empty() {
        let seq = report.events[i].sequence;
        let Some(command) = command_of(&events[i]) else {
            report.mismatches.push(Mismatch {
                sequence: seq,
                event: events[i].kind().into(),
                field: "kind".into(),
                recorded: events[i].kind().into(),
                rederived: "a decision, a shake, an opening or a void".into(),
            });
            break;
        };
        match hand.decide(&command) {
            Err(refusal) => report.mismatches.push(Mismatch {
                sequence: seq,
                event: events[i].kind().into(),
                field: "command".into(),
                recorded: "accepted".into(),
                rederived: format!("refused: {refusal}"),
            }),
            Ok(expected) => {
                for (k, want) in expected.iter().enumerate() {
                    let at = i + k;
                    match events.get(at) {
                        Some(got) if got == want => {
                            report.events[at].rederived = true;
                        }
                        Some(got) => {
                            let (field, recorded, rederived) = difference(got, want);
                            report.mismatches.push(Mismatch {
                                sequence: report.events[at].sequence,
                                event: got.kind().into(),
                                field,
                                recorded,
                                rederived,
                            });
                            break;
                        }
                        None => {
                            report.mismatches.push(Mismatch {
                                sequence: seq,
                                event: want.kind().into(),
                                field: "missing".into(),
                                recorded: "no such event".into(),
                                rederived: want.kind().into(),
                            });
                            break;
                        }
                    }
                }
                if report.mismatches.is_empty() {
                    for event in &expected {
                        hand = match hand.evolve(event) {
                            Ok(h) => h,
                            Err(e) => {
                                report.report.push(format!("internal: {e}"));
                                return None;
                            }
                        };
                    }
                    i += expected.len();
                }
            }
        }
    }
    Some(hand)
}

/// A completion by rule, in words.
fn completion_words(report: &mut ProofReport) {
    if let Some(c) = &report.completion {
        report.report.push(format!(
            "COMPLETED BY RULE ({}) recorded by {} at {} ms: {}. Allowed because: {}",
            codec::id_of(&c.order.kind),
            c.order.recorded_by,
            c.order.at.0,
            c.order.reason,
            c.allowed_because
        ));
    }
}

/// The settlement in words: every line with its rule, pay, cap and payout, the game's cap, totals.
pub(super) fn settlement_words(
    out: &mut Vec<String>,
    s: &Settlement,
    minor_digits: u8,
    m: &impl Fn(Money) -> String,
) {
    for line in &s.lines {
        let cap = match line.cap {
            Some(cap) if line.cut > Money::ZERO => {
                format!("; CAP {} BOUND, cut {}", m(cap), m(line.cut))
            }
            Some(cap) => format!("; cap {} not reached", m(cap)),
            None => String::new(),
        };
        out.push(format!(
            "{} {}: {} -> {} ({}): uncapped {}, paid {}{cap}",
            line.bet,
            m(line.stake),
            line.judged_on,
            line.rule,
            pays(line.pay, minor_digits),
            m(line.uncapped),
            m(line.payout)
        ));
    }
    if let Some(g) = &s.game_cap {
        out.push(game_cap_words(g, &m));
    }
    out.push(format!(
        "staked {}, paid {}",
        m(s.total_staked),
        m(s.total_paid)
    ));
}

/// A void in words; answers whether its refunds equal the stakes (a malfunction or an incomplete
/// game refunds every stake).
pub(super) fn void_words(out: &mut Vec<String>, v: &Void, m: &impl Fn(Money) -> String) -> bool {
    let refunds_equal_stakes = match v.order.kind {
        VoidKind::Malfunction | VoidKind::Incomplete => {
            v.lines.iter().all(|l| l.paid_now == l.stake)
        }
        VoidKind::ConductForfeit => true,
    };
    out.push(format!(
        "VOID ({}) recorded by {}{} at {} ms: {}. Allowed because: {}. Paid before {}, paid now {}; refunds equal stakes: {}",
        codec::id_of(&v.order.kind),
        v.order.recorded_by,
        v.order
            .approved_by
            .as_ref()
            .map(|a| format!(", approved by {a}"))
            .unwrap_or_default(),
        v.order.at.0,
        v.order.reason,
        v.allowed_because,
        m(v.paid_before),
        m(v.paid_now),
        if refunds_equal_stakes { "yes" } else { "NO" }
    ));
    for line in &v.lines {
        out.push(format!(
            "  void {} {}: paid before {}, paid now {}",
            line.bet,
            m(line.stake),
            m(line.paid_before),
            m(line.paid_now)
        ));
    }
    if let Some(g) = &v.game_cap {
        out.push(format!("  void repeats the {}", game_cap_words(g, &m)));
    }
    refunds_equal_stakes
}

/// The verdict: every link and signature, every event re-derived, no mismatch, the commitment
/// opened; and each mismatch in words.
fn verdict(report: &mut ProofReport) {
    let chained = report.events.iter().all(|e| e.chain_ok && e.signature_ok);
    let rederived = report.events.iter().all(|e| e.rederived);
    report.consistent =
        chained && rederived && report.mismatches.is_empty() && report.commitment_ok;
    let counted = format!("{} events", report.events.len());
    verdict_words(
        &mut report.report,
        &counted,
        (chained, rederived, report.consistent),
        &report.mismatches,
    );
}

/// A replay's verdict in words — `counted` (what was checked), then whether every link and
/// signature checks, every event was re-derived and the whole is consistent — and each mismatch.
pub(super) fn verdict_words(
    out: &mut Vec<String>,
    counted: &str,
    (chained, rederived, consistent): (bool, bool, bool),
    mismatches: &[Mismatch],
) {
    out.push(format!(
        "{counted}: {}; {}; {}",
        if chained {
            "every link, hash and signature checks"
        } else {
            "CHAIN OR SIGNATURE FAILURES (see events)"
        },
        if rederived {
            "every event re-derived from the seed and the rules"
        } else {
            "NOT every event re-derived"
        },
        if consistent {
            "ALL CONSISTENT"
        } else {
            "INCONSISTENT"
        }
    ));
    for m in mismatches {
        out.push(format!(
            "MISMATCH at entry {} ({}), field {}: recorded {} / re-derived {}",
            m.sequence, m.event, m.field, m.recorded, m.rederived
        ));
    }
}
