//! Settlement: one line per bet (stake, the hand it was judged on, the rule or paytable row and what
//! it pays, the uncapped payout, the per-bet cap and the amount it cut, the payout), then the
//! per-game cap line, then totals. Per-bet caps apply first, then the per-game cap, which is one line
//! of its own (GAMES.md, *Caps*). Integer minor units only.
//!
//! Also the bet ids and wagers every game shares. Which bet pays what is decided by each game's
//! module; this module only does the arithmetic and keeps the record.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::money::{difference, Money, MoneyOverflow, SignedMinor};
use super::paytable::{Outcome, Pay};

/// A bet position on the layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BetId {
    /// Mississippi Stud and Caribbean Stud ante.
    Ante,
    /// Mississippi Stud 3-card bonus; Caribbean Stud bonus.
    Bonus,
    /// Mississippi Stud 3rd street bet.
    #[serde(rename = "street_3")]
    Street3,
    /// Mississippi Stud 4th street bet.
    #[serde(rename = "street_4")]
    Street4,
    /// Mississippi Stud 5th street bet.
    #[serde(rename = "street_5")]
    Street5,
    /// Caribbean Stud raise.
    Raise,
    /// Fortune Pai Gow main bet.
    Main,
    /// Fortune Pai Gow Fortune bonus.
    FortuneBonus,
    /// Nutz boxes.
    BoxNutz,
    BoxFourOfAKind,
    BoxFullHouse,
    BoxThreeOfAKind,
    BoxTwoPairs,
    BoxOnePair,
    BoxStraightOrNoHand,
}

impl BetId {
    /// Every bet id.
    pub const ALL: [BetId; 15] = [
        BetId::Ante,
        BetId::Bonus,
        BetId::Street3,
        BetId::Street4,
        BetId::Street5,
        BetId::Raise,
        BetId::Main,
        BetId::FortuneBonus,
        BetId::BoxNutz,
        BetId::BoxFourOfAKind,
        BetId::BoxFullHouse,
        BetId::BoxThreeOfAKind,
        BetId::BoxTwoPairs,
        BetId::BoxOnePair,
        BetId::BoxStraightOrNoHand,
    ];

    /// The seven Nutz boxes, in settlement order.
    pub const NUTZ_BOXES: [BetId; 7] = [
        BetId::BoxNutz,
        BetId::BoxFourOfAKind,
        BetId::BoxFullHouse,
        BetId::BoxThreeOfAKind,
        BetId::BoxTwoPairs,
        BetId::BoxOnePair,
        BetId::BoxStraightOrNoHand,
    ];

    /// The stable snake_case id.
    pub const fn id(self) -> &'static str {
        match self {
            BetId::Ante => "ante",
            BetId::Bonus => "bonus",
            BetId::Street3 => "street_3",
            BetId::Street4 => "street_4",
            BetId::Street5 => "street_5",
            BetId::Raise => "raise",
            BetId::Main => "main",
            BetId::FortuneBonus => "fortune_bonus",
            BetId::BoxNutz => "box_nutz",
            BetId::BoxFourOfAKind => "box_four_of_a_kind",
            BetId::BoxFullHouse => "box_full_house",
            BetId::BoxThreeOfAKind => "box_three_of_a_kind",
            BetId::BoxTwoPairs => "box_two_pairs",
            BetId::BoxOnePair => "box_one_pair",
            BetId::BoxStraightOrNoHand => "box_straight_or_no_hand",
        }
    }
}

impl fmt::Display for BetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// A bet id that is not one of [`BetId::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown bet `{0}`")]
pub struct UnknownBet(pub String);

impl std::str::FromStr for BetId {
    type Err = UnknownBet;

    fn from_str(text: &str) -> Result<BetId, UnknownBet> {
        BetId::ALL
            .into_iter()
            .find(|b| b.id() == text)
            .ok_or_else(|| UnknownBet(text.to_string()))
    }
}

/// A stake placed on one bet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Wager {
    /// Which bet.
    pub bet: BetId,
    /// How much, in minor units.
    pub amount: Money,
}

/// One bet's settlement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BetLine {
    /// The bet.
    pub bet: BetId,
    /// Its stake.
    pub stake: Money,
    /// The hand it was judged on, in words and cards.
    pub judged_on: String,
    /// The paytable row or rule that decided it ("royal_flush", "dealer_not_qualifying", "fold").
    pub rule: String,
    /// What that row pays; `None` when the bet loses.
    pub pay: Option<Pay>,
    /// Win, push or lose.
    pub outcome: Outcome,
    /// The payout before any cap.
    pub uncapped: Money,
    /// The configured cap on this bet's payout, if any.
    pub cap: Option<Money>,
    /// How much the cap cut (zero when it did not bind).
    pub cut: Money,
    /// What the bet pays, stake included where returned.
    pub payout: Money,
}

/// The per-game cap applied to the sum of the bet lines' payouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameCapLine {
    /// Sum of the bet lines' payouts.
    pub total_before: Money,
    /// The configured cap.
    pub cap: Money,
    /// How much it cut (zero when it did not bind).
    pub cut: Money,
    /// What the hand pays in all.
    pub total_after: Money,
}

/// A hand's settlement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settlement {
    /// One line per bet, in the game's documented order.
    pub lines: Vec<BetLine>,
    /// The per-game cap line, when the configuration has a per-game cap.
    pub game_cap: Option<GameCapLine>,
    /// Sum of the stakes.
    pub total_staked: Money,
    /// What the hand pays in all, after every cap.
    pub total_paid: Money,
}

impl Settlement {
    /// The player's net result: total paid minus total staked.
    pub fn net(&self) -> SignedMinor {
        difference(self.total_paid, self.total_staked)
    }

    /// What one bet was paid, after its per-bet cap (the per-game cut is not spread over bets).
    pub(crate) fn payout_of(&self, bet: BetId) -> Option<Money> {
        self.lines.iter().find(|l| l.bet == bet).map(|l| l.payout)
    }
}

/// Builds a settlement line by line.
#[derive(Debug, Default)]
pub struct SettlementBuilder {
    lines: Vec<BetLine>,
}

impl SettlementBuilder {
    /// An empty settlement.
    pub fn new() -> SettlementBuilder {
        SettlementBuilder::default()
    }

    /// Adds a bet's line: it pays `pay` (or loses, for `None`), then its cap applies.
    pub fn line(
        &mut self,
        bet: BetId,
        stake: Money,
        judged_on: impl Into<String>,
        rule: impl Into<String>,
        pay: Option<Pay>,
        cap: Option<Money>,
    ) -> Result<&mut Self, MoneyOverflow> {
        let (uncapped, outcome) = match pay {
            Some(pay) => (pay.payout(stake)?, pay.outcome()),
            None => (Money::ZERO, Outcome::Lose),
        };
        let payout = cap.map_or(uncapped, |cap| uncapped.min(cap));
        self.lines.push(BetLine {
            bet,
            stake,
            judged_on: judged_on.into(),
            rule: rule.into(),
            pay,
            outcome,
            uncapped,
            cap,
            cut: uncapped.saturating_sub(payout),
            payout,
        });
        Ok(self)
    }

    /// Applies the per-game cap and totals the lines.
    pub fn finish(self, game_cap: Option<Money>) -> Result<Settlement, MoneyOverflow> {
        let total_before = Money::sum(self.lines.iter().map(|l| l.payout))?;
        let total_staked = Money::sum(self.lines.iter().map(|l| l.stake))?;
        let game_cap = game_cap.map(|cap| {
            let total_after = total_before.min(cap);
            GameCapLine {
                total_before,
                cap,
                cut: total_before.saturating_sub(total_after),
                total_after,
            }
        });
        Ok(Settlement {
            lines: self.lines,
            total_paid: game_cap.map_or(total_before, |g| g.total_after),
            game_cap,
            total_staked,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_apply_per_bet_then_per_game() {
        let mut b = SettlementBuilder::new();
        b.line(
            BetId::Ante,
            Money(5_000),
            "royal",
            "royal_flush",
            Some(Pay::Odds(500)),
            Some(Money(2_505_000)),
        )
        .unwrap()
        .line(
            BetId::Street3,
            Money(15_000),
            "royal",
            "royal_flush",
            Some(Pay::Odds(500)),
            Some(Money(7_000_000)),
        )
        .unwrap()
        .line(BetId::Bonus, Money(100), "nothing", "high_card", None, None)
        .unwrap();
        let s = b.finish(Some(Money(9_000_000))).unwrap();
        assert_eq!(s.lines[0].payout, Money(2_505_000));
        assert_eq!(s.lines[0].cut, Money::ZERO);
        assert_eq!(s.lines[1].uncapped, Money(7_515_000));
        assert_eq!(s.lines[1].cut, Money(515_000));
        assert_eq!(s.lines[1].payout, Money(7_000_000));
        assert_eq!(s.lines[2].outcome, Outcome::Lose);
        let cap = s.game_cap.unwrap();
        assert_eq!(cap.total_before, Money(9_505_000));
        assert_eq!(cap.cut, Money(505_000));
        assert_eq!(s.total_paid, Money(9_000_000));
        assert_eq!(s.total_staked, Money(20_100));
        assert_eq!(s.net(), 9_000_000 - 20_100);
        assert_eq!(s.payout_of(BetId::Street3), Some(Money(7_000_000)));
    }

    #[test]
    fn bet_ids_round_trip() {
        for bet in BetId::ALL {
            assert_eq!(bet.id().parse::<BetId>(), Ok(bet));
            assert_eq!(
                serde_json::to_string(&bet).unwrap(),
                format!("\"{}\"", bet.id())
            );
        }
    }
}
