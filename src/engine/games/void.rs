//! The void rules common to every game, and the Caribbean Stud conduct forfeit.
//!
//! - **Malfunction** (*Toute défectuosité annule jeux et paiements*): on a hand in progress or
//!   settled. Every stake is refunded; a settled hand's settlement is reversed, so the player's net
//!   is exactly zero.
//! - **Incomplete game** (*Toute partie en cours depuis plus de 30 jours sera annulée*): on a hand
//!   still in progress once the configured number of days has passed since it opened (times from
//!   the command and the opening event). Every stake is refunded.
//! - **Conduct forfeit** (Caribbean Stud only, in progress): the ante and the raise are lost
//!   (*ses mises (ante et bet) sont retirées*); the hand is void, so the bonus is returned.
//!
//! Each is one `Voided` event with a line per bet: its stake, what it had been paid, what it is
//! paid now; then the seed is revealed if it was not already.

use serde::{Deserialize, Serialize};

use super::{Emitter, Event, RuleError, Status, Timestamp, DAY_MS};
use crate::engine::game::GameId;
use crate::engine::money::{difference, Money, SignedMinor};
use crate::engine::settlement::BetId;

/// Which void rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VoidKind {
    Malfunction,
    Incomplete,
    ConductForfeit,
}

/// An operator's (or the system's) order to void a hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VoidOrder {
    /// Which rule.
    pub kind: VoidKind,
    /// Why, in words.
    pub reason: String,
    /// Who recorded it.
    pub recorded_by: String,
    /// When.
    pub at: Timestamp,
}

/// One bet's void line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VoidLine {
    /// The bet.
    pub bet: BetId,
    /// Its stake.
    pub stake: Money,
    /// What the settlement had paid it (after its per-bet cap), zero if unsettled.
    pub paid_before: Money,
    /// What it is paid now.
    pub paid_now: Money,
}

/// A recorded void.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Void {
    /// The order.
    pub order: VoidOrder,
    /// Why the rule allowed it, in words (for the proof report).
    pub allowed_because: String,
    /// One line per bet.
    pub lines: Vec<VoidLine>,
    /// Sum of the stakes.
    pub total_staked: Money,
    /// What the hand had paid in all (the settlement's total, after every cap).
    pub paid_before: Money,
    /// What the hand pays in all now.
    pub paid_now: Money,
}

impl Void {
    /// What changes hands now: `paid_now − paid_before` (negative takes winnings back).
    pub fn adjustment(&self) -> SignedMinor {
        difference(self.paid_now, self.paid_before)
    }

    /// The player's net result after the void: `paid_now − total_staked`.
    pub fn net(&self) -> SignedMinor {
        difference(self.paid_now, self.total_staked)
    }
}

pub(super) fn decide(out: &mut Emitter, order: &VoidOrder) -> Result<(), RuleError> {
    if order.reason.trim().is_empty() {
        return Err(RuleError::MissingField("void.reason"));
    }
    if order.recorded_by.trim().is_empty() {
        return Err(RuleError::MissingField("void.recorded_by"));
    }
    let hand = &out.hand;
    let refused = |why: String| Err(RuleError::VoidRefused(why));
    let status = hand.status;
    let opened = hand.opened.as_ref().ok_or(RuleError::NotOpened)?;
    let allowed_because = match order.kind {
        VoidKind::Malfunction => match status {
            Status::InProgress => "malfunction voids all pays and plays: every stake is refunded".to_string(),
            Status::Settled => {
                "malfunction voids all pays and plays: the settlement is reversed and every stake refunded".to_string()
            }
            _ => return refused(format!("a malfunction void needs a hand in progress or settled; this one is {status:?}")),
        },
        VoidKind::Incomplete => {
            if status != Status::InProgress {
                return refused(format!("only a hand in progress is void as incomplete; this one is {status:?}"));
            }
            let days = hand.config.incomplete_void_days;
            let period = u64::from(days).checked_mul(DAY_MS).ok_or(RuleError::Overflow)?;
            let earliest = opened.at.0.checked_add(period).ok_or(RuleError::Overflow)?;
            if order.at.0 < earliest {
                return Err(RuleError::TooEarly {
                    opened: opened.at.0,
                    earliest,
                    at: order.at.0,
                });
            }
            format!(
                "in progress {} ms after opening, at least {days} days ({period} ms): void, every stake refunded",
                order.at.0 - opened.at.0
            )
        }
        VoidKind::ConductForfeit => {
            if hand.game() != GameId::CaribbeanStud {
                return refused("a conduct forfeit applies to Caribbean Stud only".into());
            }
            if status != Status::InProgress {
                return refused(format!("a conduct forfeit applies to a hand in progress; this one is {status:?}"));
            }
            "conduct rule broken: the ante and the raise are lost, the void hand's bonus is returned".to_string()
        }
    };
    let settlement = hand.settlement.as_ref();
    let lines: Vec<VoidLine> = hand
        .stakes
        .iter()
        .map(|w| VoidLine {
            bet: w.bet,
            stake: w.amount,
            paid_before: settlement
                .and_then(|s| s.payout_of(w.bet))
                .unwrap_or(Money::ZERO),
            paid_now: match (order.kind, w.bet) {
                (VoidKind::ConductForfeit, BetId::Ante | BetId::Raise) => Money::ZERO,
                _ => w.amount,
            },
        })
        .collect();
    let void = Void {
        order: order.clone(),
        allowed_because,
        total_staked: Money::sum(lines.iter().map(|l| l.stake))?,
        paid_before: settlement.map_or(Money::ZERO, |s| s.total_paid),
        paid_now: Money::sum(lines.iter().map(|l| l.paid_now))?,
        lines,
    };
    let reveal = !hand.seed_revealed;
    let seed = hand.seed;
    out.emit(Event::Voided(void))?;
    if reveal {
        out.emit(Event::SeedRevealed { seed })?;
    }
    Ok(())
}
