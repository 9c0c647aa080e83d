//! The void rules common to every game, the incomplete-game rule, and the Caribbean Stud conduct
//! forfeit.
//!
//! - **Malfunction** (*Toute défectuosité annule jeux et paiements*): on a hand in progress or
//!   settled. Every stake is refunded; a settled hand's settlement is reversed, so the player's net
//!   is exactly zero. The void lists each bet's payout and, under rules version 2, the settlement's
//!   per-game cap line, so its lines add up to the total reversed.
//! - **Incomplete game** (*Toute partie en cours depuis plus de 30 jours sera annulée*): on a hand
//!   still in progress more than the configured number of days after it opened (times from the
//!   command and the opening event; rules version 1: from the last millisecond of the period on).
//!   Mississippi Stud and Fortune Pai Gow: every stake is refunded. Under rules version 2, Nutz is
//!   completed by dealer shakes (*le croupier agitera les dés pour compléter la main*) and Caribbean
//!   Stud by a fold, each settled: one `Completed` event, then the game's own events.
//! - **Conduct forfeit** (Caribbean Stud only, in progress): the ante and the raise are lost
//!   (*ses mises (ante et bet) sont retirées*). Rules version 2: the bonus too, as after a fold, so
//!   a forfeit never costs less than folding; version 1 returned the bonus.
//!
//! A void is one `Voided` event with a line per bet: its stake, what it had been paid, what it is
//! paid now; then the seed is revealed if it was not already.

use serde::{Deserialize, Serialize};

use super::game::IncompleteRule;
use super::{Emitter, Event, RuleError, Status, Timestamp};
use crate::config::RulesVersion;
use crate::field::FieldPath;
use crate::game::GameId;
use crate::money::{difference, Money, SignedMinor};
use crate::settlement::{BetId, GameCapLine};

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
    /// Who recorded it (who proposed it, when a second person approved it).
    pub recorded_by: String,
    /// The second person who approved it, when the void needed one (a settled hand's void, a
    /// table malfunction): the two-person rule of `docs/security.md`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved_by: Option<String>,
    /// When.
    pub at: Timestamp,
}

/// Why a void order is refused for this hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VoidRefusal {
    /// A malfunction void of a hand neither in progress nor settled.
    #[error("a malfunction void needs a hand in progress or settled; this one is {0:?}")]
    MalfunctionNotInPlay(Status),
    /// An incomplete-game void of a hand not in progress.
    #[error("only a hand in progress is void as incomplete; this one is {0:?}")]
    IncompleteNotInProgress(Status),
    /// A conduct forfeit in a game other than Caribbean Stud.
    #[error("a conduct forfeit applies to Caribbean Stud only")]
    ForfeitNotThisGame(GameId),
    /// A conduct forfeit of a hand not in progress.
    #[error("a conduct forfeit applies to a hand in progress; this one is {0:?}")]
    ForfeitNotInProgress(Status),
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
    /// The reversed settlement's per-game cap line (rules version 2, when it had one): the bet
    /// lines' `paid_before` add up to its `total_before`, and its `total_after` is `paid_before`.
    pub game_cap: Option<GameCapLine>,
    /// Sum of the stakes.
    pub total_staked: Money,
    /// What the hand had paid in all (the settlement's total, after every cap).
    pub paid_before: Money,
    /// What the hand pays in all now.
    pub paid_now: Money,
}

/// The incomplete-game rule completing a hand instead of refunding it (rules version 2: Nutz and
/// Caribbean Stud). The completing events and the settlement follow it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Completion {
    /// The order (its kind is `incomplete`).
    pub order: VoidOrder,
    /// Why the rule allowed it, in words (for the proof report).
    pub allowed_because: String,
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

/// A round's decision window: from the deal, this long. When it closes, every hand of the round
/// still undecided is ended by its game's incomplete-game rule (as under rules version 2), without
/// waiting for the incomplete-game period.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    /// When the round dealt (betting closed).
    pub from: Timestamp,
    /// How long the window stays open, in milliseconds.
    pub ms: u64,
}

impl Window {
    /// When the window closes (`None` if the sum does not fit, which bounded inputs exclude).
    pub fn closes(&self) -> Option<Timestamp> {
        self.from.0.checked_add(self.ms).map(Timestamp)
    }
}

pub(super) fn decide(out: &mut Emitter, order: &VoidOrder) -> Result<(), RuleError> {
    decide_with(out, order, None)
}

/// The incomplete-game rule applied to a round's hand when its decision window closes.
pub(super) fn decide_closed(
    out: &mut Emitter,
    order: &VoidOrder,
    window: Window,
) -> Result<(), RuleError> {
    if order.kind != VoidKind::Incomplete {
        return Err(RuleError::Inconsistent(
            "a decision window is closed by the incomplete-game rule only".into(),
        ));
    }
    decide_with(out, order, Some(window))
}

fn decide_with(
    out: &mut Emitter,
    order: &VoidOrder,
    window: Option<Window>,
) -> Result<(), RuleError> {
    if order.reason.trim().is_empty() {
        return Err(RuleError::MissingField(FieldPath::dotted("void.reason")));
    }
    if order.recorded_by.trim().is_empty() {
        return Err(RuleError::MissingField(FieldPath::dotted(
            "void.recorded_by",
        )));
    }
    let hand = &out.hand;
    let refused = |why: VoidRefusal| Err(RuleError::VoidRefused(why));
    let status = hand.status;
    let opened = hand.opened.as_ref().ok_or(RuleError::NotOpened)?;
    let second = hand.rules_version() >= RulesVersion(2);
    let allowed_because = match order.kind {
        VoidKind::Malfunction => match status {
            Status::InProgress => "malfunction voids all pays and plays: every stake is refunded".to_string(),
            Status::Settled => {
                "malfunction voids all pays and plays: the settlement is reversed and every stake refunded".to_string()
            }
            _ => return refused(VoidRefusal::MalfunctionNotInPlay(status)),
        },
        VoidKind::Incomplete => {
            if status != Status::InProgress {
                return refused(VoidRefusal::IncompleteNotInProgress(status));
            }
            let rule = hand.play.game().incomplete_rule();
            if let Some(window) = window {
                let closes = window.closes().ok_or(RuleError::Overflow)?;
                if order.at < closes {
                    return Err(RuleError::TooEarly {
                        opened: window.from.0,
                        deadline: closes.0,
                        at: order.at.0,
                    });
                }
                let ending = match rule {
                    IncompleteRule::Complete { how } => how,
                    IncompleteRule::Refund => "void, every stake refunded",
                };
                let how = format!(
                    "undecided when the round's decision window of {} ms from the deal at {} closed: {ending}",
                    window.ms, window.from.0
                );
                if matches!(rule, IncompleteRule::Complete { .. }) {
                    return complete(out, order, how);
                }
                return refund(out, order, how);
            }
            let deadline = hand.incomplete_deadline().ok_or(RuleError::Overflow)?;
            if !hand.is_incomplete_at(order.at) {
                return Err(RuleError::TooEarly {
                    opened: opened.at.0,
                    deadline: deadline.0,
                    at: order.at.0,
                });
            }
            let days = hand.config.incomplete_void_days;
            let elapsed = order.at.0 - opened.at.0;
            let how = if !second {
                format!("in progress {elapsed} ms after opening, at least {days} days ({} ms): void, every stake refunded", deadline.0 - opened.at.0)
            } else {
                let ending = match rule {
                    IncompleteRule::Complete { how } => how,
                    IncompleteRule::Refund => "void, every stake refunded",
                };
                format!("in progress {elapsed} ms after opening, more than {days} days ({} ms): {ending}", deadline.0 - opened.at.0)
            };
            if second && matches!(rule, IncompleteRule::Complete { .. }) {
                return complete(out, order, how);
            }
            how
        }
        VoidKind::ConductForfeit => {
            if hand.game() != GameId::CaribbeanStud {
                return refused(VoidRefusal::ForfeitNotThisGame(hand.game()));
            }
            if status != Status::InProgress {
                return refused(VoidRefusal::ForfeitNotInProgress(status));
            }
            if second {
                "conduct rule broken: the hand is dead, as after a fold: the ante, the raise if placed and the bonus are lost".to_string()
            } else {
                "conduct rule broken: the ante and the raise are lost, the void hand's bonus is returned".to_string()
            }
        }
    };
    refund(out, order, allowed_because)
}

/// The `Voided` event of an allowed order: a line per bet, the conduct forfeit's bets lost and every
/// other stake refunded; then the seed, if not yet revealed.
fn refund(out: &mut Emitter, order: &VoidOrder, allowed_because: String) -> Result<(), RuleError> {
    let hand = &out.hand;
    let second = hand.rules_version() >= RulesVersion(2);
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
                (VoidKind::ConductForfeit, _) if second => Money::ZERO,
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
        game_cap: settlement.and_then(|s| s.game_cap).filter(|_| second),
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

/// The incomplete-game rule completing a Nutz or Caribbean Stud hand: the `Completed` event, then
/// the game's completion and settlement.
fn complete(
    out: &mut Emitter,
    order: &VoidOrder,
    allowed_because: String,
) -> Result<(), RuleError> {
    out.emit(Event::Completed(Completion {
        order: order.clone(),
        allowed_because,
    }))?;
    out.complete(order.at)
}
