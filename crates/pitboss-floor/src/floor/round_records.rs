//! A round's record as its stream tells it, read without replaying the round: its opening (table,
//! dealer, game, configuration), where it stands, when it ended, and each place — its player and
//! seat, what it staked and was paid, settled or voided and by which rule. What recall
//! (`ListRounds`) and the export's `places` table show of a round.
//!
//! The figures are the log's own: a place's stakes are its bet's wagers and its decisions' stakes,
//! its totals those of its settlement or void once recorded (a place is settled for the table only
//! at the showdown, as `docs/rounds.md` says). Replay (`audit::round_replay`) is what proves them.
//!
//! Read-only. A round's stream is bounded by the round's own bounds (at most
//! `pitboss_engine::round::PLAYERS_MAX` places); it is read once per call.

use std::sync::Arc;

use crate::codec::{self, EntryPayload};
use pitboss_engine::config::GameConfig;
use pitboss_engine::games::{Status, VoidKind};
use pitboss_engine::round::{Phase, RoundEvent, RoundOpened};

use super::{is_hand_id, round_stream, Floor, FloorError};

/// One place of a round, as its stream records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlaceRecord {
    /// The place's number, from 0 in the order bets were placed.
    pub place: u32,
    /// The player.
    pub player: String,
    /// The seat, in a round of seats.
    pub seat: Option<u8>,
    /// When the bet was placed.
    pub bet_at_ms: u64,
    /// Every stake placed (its settlement's or void's total once it has one), minor units.
    pub staked: u64,
    /// What the place pays in all: its settlement's total, what its void pays now, or 0 in play.
    pub paid: u64,
    /// In progress until its settlement is announced at the showdown, or until it is voided.
    pub status: Status,
    /// The rule that voided it (a malfunction, the incomplete-game rule, a conduct forfeit).
    pub void_kind: Option<VoidKind>,
}

impl PlaceRecord {
    /// `paid − staked`, minor units.
    pub fn net(&self) -> i128 {
        i128::from(self.paid) - i128::from(self.staked)
    }
}

/// A round as its stream records it.
#[derive(Clone, Debug)]
pub struct RoundRecord {
    /// The round's id.
    pub id: String,
    /// Its opening: game, configuration, table, dealer, shape, time.
    pub opened: RoundOpened,
    /// Every dealer who dealt it, in order: the opening's, then each who took over.
    pub dealers: Vec<String>,
    /// The configuration every place is played under (its name, version and currency).
    pub config: Arc<GameConfig>,
    /// Where it stands.
    pub phase: Phase,
    /// When it ended (the showdown, or its void), as the log recorded it.
    pub ended_at_ms: Option<u64>,
    /// Its places, by number.
    pub places: Vec<PlaceRecord>,
}

impl RoundRecord {
    /// Every place's stakes, summed (checked).
    pub fn staked(&self) -> Result<u64, FloorError> {
        self.sum(|p| p.staked, "stakes")
    }

    /// What every place pays, summed (checked).
    pub fn paid(&self) -> Result<u64, FloorError> {
        self.sum(|p| p.paid, "payouts")
    }

    fn sum(&self, of: impl Fn(&PlaceRecord) -> u64, what: &str) -> Result<u64, FloorError> {
        self.places
            .iter()
            .try_fold(0u64, |total, p| total.checked_add(of(p)))
            .ok_or_else(|| {
                FloorError::Corrupt(
                    format!("round {}", self.id),
                    format!("its places' {what} pass 2^64 minor units"),
                )
            })
    }

    /// The dealer at its end (or now): the last to take over, else the opening's.
    pub fn dealer(&self) -> &str {
        self.dealers
            .last()
            .map_or(&self.opened.dealer, String::as_str)
    }

    /// Whether `dealer` dealt the round, from its opening or after taking over.
    pub fn dealt_by(&self, dealer: &str) -> bool {
        self.dealers.iter().any(|d| d == dealer)
    }
}

/// A round's phase as views, reports and exports name it.
pub fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Pending => "pending",
        Phase::Betting => "betting",
        Phase::AwaitingBeacon => "awaiting_beacon",
        Phase::Playing => "playing",
        Phase::Ended => "ended",
        Phase::Voided => "voided",
    }
}

/// The phase named `name` (`betting`, `playing`, `ended`, `voided`).
pub fn phase_of_name(name: &str) -> Option<Phase> {
    [Phase::Betting, Phase::Playing, Phase::Ended, Phase::Voided]
        .into_iter()
        .find(|p| phase_name(*p) == name)
}

impl Floor {
    /// How many entries round `id`'s stream holds (0: no such round).
    pub fn round_version(&self, id: &str) -> Result<u64, FloorError> {
        if !is_hand_id(id) {
            return Ok(0);
        }
        Ok(self.ledger.stream_version(&round_stream(id))?)
    }

    /// Round `id` as its stream records it.
    pub fn round_record(&self, id: &str) -> Result<RoundRecord, FloorError> {
        let not_found = || FloorError::NotFound {
            what: "round",
            id: id.to_string(),
        };
        if !is_hand_id(id) {
            return Err(not_found());
        }
        let entries = self.ledger.read_stream(&round_stream(id), 0)?;
        let corrupt = |sequence: u64, e: String| {
            FloorError::Corrupt(format!("round {id}"), format!("entry {sequence}: {e}"))
        };
        let mut round: Option<RoundRecord> = None;
        for entry in &entries {
            let sequence = entry.envelope.sequence;
            let payload = entry
                .payload()
                .map_err(|e| corrupt(sequence, e.to_string()))?;
            let event = codec::payload_to_round_event(&payload)
                .map_err(|e| corrupt(sequence, e.to_string()))?
                .ok_or_else(|| corrupt(sequence, "not a round's event".into()))?;
            let Some(record) = round.as_mut() else {
                let RoundEvent::Opened(opened) = event else {
                    return Err(corrupt(
                        sequence,
                        "the first event is not the opening".into(),
                    ));
                };
                let config = self.config(&opened.config_id).ok_or_else(|| {
                    corrupt(
                        sequence,
                        format!("unknown configuration {}", opened.config_id),
                    )
                })?;
                round = Some(RoundRecord {
                    id: id.to_string(),
                    dealers: vec![opened.dealer.clone()],
                    opened,
                    config,
                    phase: Phase::Betting,
                    ended_at_ms: None,
                    places: Vec::new(),
                });
                continue;
            };
            let at = entry.envelope.recorded_at_ms;
            record_event(record, event, at).map_err(|e| corrupt(sequence, e))?;
        }
        round.ok_or_else(not_found)
    }
}

/// What one event changes of a round's record.
fn record_event(record: &mut RoundRecord, event: RoundEvent, at: u64) -> Result<(), String> {
    fn place(record: &mut RoundRecord, n: u32) -> Result<&mut PlaceRecord, String> {
        record
            .places
            .get_mut(n as usize)
            .ok_or_else(|| format!("place {n} has no bet"))
    }
    let add = |total: u64, more: u64| {
        total
            .checked_add(more)
            .ok_or_else(|| "a place's stakes pass 2^64 minor units".to_string())
    };
    match event {
        RoundEvent::Opened(_) => return Err("a second opening".into()),
        RoundEvent::BetPlaced(bet) => {
            if bet.place as usize != record.places.len() {
                return Err(format!("bet on place {} out of order", bet.place));
            }
            let staked = bet
                .wagers
                .iter()
                .try_fold(0u64, |total, w| add(total, w.amount.0))?;
            record.places.push(PlaceRecord {
                place: bet.place,
                player: bet.player,
                seat: bet.seat,
                bet_at_ms: bet.at.0,
                staked,
                paid: 0,
                status: Status::InProgress,
                void_kind: None,
            });
        }
        RoundEvent::BettingClosed { .. } => {
            record.phase = if record.opened.beacon.is_some() {
                Phase::AwaitingBeacon
            } else {
                Phase::Playing
            }
        }
        RoundEvent::BeaconArrived(_) => record.phase = Phase::Playing,
        RoundEvent::BeaconLate(late) => {
            record.phase = match late.rule {
                pitboss_engine::config::LateBeacon::DealWithout => Phase::Playing,
                pitboss_engine::config::LateBeacon::Void => Phase::Voided,
            }
        }
        RoundEvent::Decided {
            place: n, stakes, ..
        } => {
            let p = place(record, n)?;
            p.staked = stakes
                .iter()
                .try_fold(p.staked, |total, w| add(total, w.amount.0))?;
        }
        RoundEvent::Settled {
            place: n,
            settlement,
        } => {
            let p = place(record, n)?;
            p.staked = settlement.total_staked.0;
            p.paid = settlement.total_paid.0;
            p.status = Status::Settled;
        }
        RoundEvent::PlaceVoided { place: n, void } => {
            let p = place(record, n)?;
            p.staked = void.total_staked.0;
            p.paid = void.paid_now.0;
            p.status = Status::Voided;
            p.void_kind = Some(void.order.kind);
        }
        RoundEvent::RoundVoided(_) => record.phase = Phase::Voided,
        RoundEvent::DealerChanged(changed) => record.dealers.push(changed.to),
        RoundEvent::SeedRevealed { .. } => {
            if record.phase != Phase::Voided {
                record.phase = Phase::Ended;
            }
            record.ended_at_ms.get_or_insert(at);
        }
        RoundEvent::Dealt { .. }
        | RoundEvent::Revealed { .. }
        | RoundEvent::Shaken(_)
        | RoundEvent::WindowClosed(_)
        | RoundEvent::DealerSet { .. } => {}
    }
    Ok(())
}
