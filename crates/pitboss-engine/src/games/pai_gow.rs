//! Fortune Pai Gow Poker (`spec/GAMES.md`, `spec/HOUSE_WAY.md`, source `001_e02c539cab1224ae.txt`).
//!
//! Deal: player cards at deck positions 0–6, dealer cards at 7–13 (53 cards, joker last in the
//! canonical deck). The player sets a two-card low hand and a five-card high hand, which must
//! outrank the low hand (a fouled setting is refused), or asks for the house way (auto-set). Then
//! the dealer's cards are shown and set by the house way.
//!
//! Settlement lines: main bet, then the Fortune bonus (if placed), then the per-game cap. High
//! against high and low against low; an identical hand (a copy) goes to the dealer. Both player hands
//! win: the main bet wins at the configured odds (1 to 1, no commission); one wins: push; neither:
//! lose. A dealer low hand that is 9-high (a 9 and a lower card, not a pair) returns the main bet,
//! by the configuration's 9-high rule. The bonus pays on the player's seven cards, whatever the
//! setting.

use super::game::{Dealt, Game, GameView, IncompleteRule};
use super::{
    judged, only_bets, wager_on, within, Action, ConfigMisfit, Emitter, Event, Hand, RuleError,
    Status, Timestamp,
};
use crate::card::{format_cards, Card, Deck, Rank};
use crate::config::{FortunePaiGowRules, GameConfig, NineHighRule};
use crate::facts::{rule_names_row, Advice, BetGroup, GameFacts, TableFacts};
use crate::game::{GameId, Material, Seat, SeatLayout};
use crate::hand::fortune;
use crate::house_way::{house_way_unchecked, Edition, HouseWay, Setting, SettingError};
use crate::paytable::{row_for, Pay};
use crate::settlement::{BetId, Settlement, SettlementBuilder, Wager};

/// Fortune Pai Gow Poker's facts.
pub(crate) const FACTS: GameFacts = GameFacts {
    name: "Fortune Pai Gow Poker",
    material: Material::Cards(Deck::WithJoker53),
    layout: &[
        SeatLayout::new(Seat::Player, 0..7, "the player's seven cards"),
        SeatLayout::new(Seat::Dealer, 7..14, "the dealer's seven cards"),
    ],
    max_seats: Some(6),
    seats_per_player: 1,
    groups: &[
        BetGroup {
            name: "main",
            bets: &[BetId::Main],
        },
        BetGroup {
            name: "fortune_bonus",
            bets: &[BetId::FortuneBonus],
        },
    ],
    tables: &[
        TableFacts {
            field: "main_win",
            title: "Main bet",
            bets: &[BetId::Main],
            row: Some("Both hands win"),
            paid_by: rule_names_row,
        },
        TableFacts {
            field: "bonus_paytable",
            title: "Fortune bonus (the player's seven cards)",
            bets: &[BetId::FortuneBonus],
            row: None,
            paid_by: rule_names_row,
        },
    ],
    advice: Advice::HouseWay,
    strategy: "the house way (spec/HOUSE_WAY.md), as the engine sets every hand",
};

/// The two settings, once made.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct State {
    player: Option<Setting>,
    dealer: Option<Setting>,
}

fn rules(hand: &Hand) -> Result<&FortunePaiGowRules, RuleError> {
    super::rules_of(hand)
}

/// Why the player's low hand is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SettingRefused {
    /// A low card is not one of the player's (or is named twice).
    #[error(transparent)]
    NotTheHand(#[from] SettingError),
    /// The setting fouls: the high hand does not outrank the low hand.
    #[error(
        "{} low against {} high fouls: the high hand must outrank the low hand",
        format_cards(low),
        format_cards(high)
    )]
    Fouls { low: [Card; 2], high: [Card; 5] },
}

/// The house way edition a configuration names (a validated one names a known edition).
fn edition(config: &GameConfig) -> Result<Edition, RuleError> {
    let r: &FortunePaiGowRules = config.rules_of()?;
    Ok(Edition::from_name(&r.house_way)
        .ok_or_else(|| ConfigMisfit::UnknownHouseWay(r.house_way.clone()))?)
}

/// The dealer's hand set by the house way of `config`'s edition: a round sets it once, against
/// every seat.
pub(crate) fn dealer_way(config: &GameConfig, dealer: &[Card; 7]) -> Result<HouseWay, RuleError> {
    Ok(house_way_unchecked(dealer, edition(config)?))
}

fn seven(hand: &Hand, seat: Seat) -> Result<[Card; 7], RuleError> {
    Ok(hand
        .seat_cards(seat)
        .try_into()
        .map_err(|_| ConfigMisfit::NotSevenCards(seat))?)
}

/// True if the setting uses exactly these seven cards.
fn uses_exactly(setting: &Setting, cards: &[Card; 7]) -> bool {
    let mut used: Vec<Card> = setting.low.iter().chain(&setting.high).copied().collect();
    let mut all = cards.to_vec();
    used.sort_unstable();
    all.sort_unstable();
    used == all
}

/// The house way's low hand for the player's cards (the suggestion shown to the player).
fn suggested_low(hand: &Hand) -> Option<[Card; 2]> {
    let edition = edition(hand.config()).ok()?;
    seven(hand, Seat::Player)
        .ok()
        .map(|cards| house_way_unchecked(&cards, edition).setting.low)
}

impl Game for State {
    /// The main bet (required) and the Fortune bonus (optional), each within its limit.
    fn check_wagers(&self, hand: &Hand, wagers: &[Wager]) -> Result<(), RuleError> {
        let r = rules(hand)?;
        only_bets(
            GameId::FortunePaiGow,
            wagers,
            &[BetId::Main, BetId::FortuneBonus],
        )?;
        let main =
            wager_on(wagers, BetId::Main).ok_or(RuleError::MissingWager { bet: BetId::Main })?;
        within(hand, BetId::Main, main, r.main)?;
        if let Some(bonus) = wager_on(wagers, BetId::FortuneBonus) {
            within(hand, BetId::FortuneBonus, bonus, r.bonus)?;
        }
        Ok(())
    }

    /// The player's seven cards, face up.
    fn deal(&self, out: &mut Emitter) -> Result<(), RuleError> {
        out.show(Seat::Player)
    }

    /// Auto-set, or any legal low hand.
    fn legal(&self, hand: &Hand) -> Vec<Action> {
        let Ok(cards) = seven(hand, Seat::Player) else {
            return Vec::new();
        };
        let mut sorted = cards;
        sorted.sort_unstable();
        let mut legal = vec![Action::AutoSet];
        for a in 0..7 {
            for b in a + 1..7 {
                let low = [sorted[a], sorted[b]];
                if Setting::from_low(&cards, low).is_ok_and(|s| s.is_legal()) {
                    legal.push(Action::SetHand { low });
                }
            }
        }
        legal
    }

    fn act(&self, out: &mut Emitter, action: Action, at: Timestamp) -> Result<(), RuleError> {
        set_hands(out, action, at)
    }

    fn apply(&mut self, event: &Event, dealt: Dealt<'_>) -> Result<(), RuleError> {
        let edition = edition(dealt.config)?;
        let deck = dealt.deck;
        let wrong = |what: &str| Err(RuleError::Inconsistent(what.to_string()));
        match event {
            Event::HandSet {
                seat,
                setting,
                house_way_rule,
            } => {
                let range = if *seat == Seat::Player { 0..7 } else { 7..14 };
                let cards: [Card; 7] = deck
                    .get(range)
                    .and_then(|c| c.try_into().ok())
                    .ok_or(RuleError::Inconsistent("deck too short".into()))?;
                if !uses_exactly(setting, &cards) {
                    return wrong("a setting that is not the seat's seven cards");
                }
                if !setting.is_legal() {
                    return wrong("a fouled setting");
                }
                match seat {
                    Seat::Player if self.player.is_none() => self.player = Some(*setting),
                    Seat::Dealer if self.player.is_some() && self.dealer.is_none() => {
                        let hw = house_way_unchecked(&cards, edition);
                        if hw.setting != *setting || Some(hw.rule) != *house_way_rule {
                            return wrong("the dealer's setting is not the house way's");
                        }
                        self.dealer = Some(*setting);
                    }
                    _ => return wrong("a hand set out of turn"),
                }
            }
            Event::Acted { action, .. }
                if self.player.is_some()
                    || !matches!(action, Action::SetHand { .. } | Action::AutoSet) =>
            {
                return wrong("a decision out of turn in Fortune Pai Gow");
            }
            _ => {}
        }
        Ok(())
    }

    /// The house way's suggestion, while the player has not set.
    fn view(&self, hand: &Hand) -> GameView {
        GameView {
            dice: None,
            suggested_low: (hand.status == Status::InProgress)
                .then(|| suggested_low(hand))
                .flatten(),
        }
    }

    fn settle(&self, hand: &Hand) -> Result<Settlement, RuleError> {
        let r = rules(hand)?;
        let (Some(player), Some(dealer)) = (self.player, self.dealer) else {
            return Err(RuleError::Inconsistent(
                "settling before both hands are set".into(),
            ));
        };
        let (pay, rule) = main_bet(r, &player, &dealer);
        let words = format!(
            "player high {} low {} vs dealer high {} low {}",
            judged(player.high_value().category(), &player.high),
            format_cards(&player.low),
            judged(dealer.high_value().category(), &dealer.high),
            format_cards(&dealer.low),
        );
        let mut lines = SettlementBuilder::new();
        let main = hand
            .stake(BetId::Main)
            .ok_or(RuleError::MissingWager { bet: BetId::Main })?;
        lines.line(BetId::Main, main, words, rule, pay, None)?;
        if let Some(stake) = hand.stake(BetId::FortuneBonus) {
            let cards = seven(hand, Seat::Player)?;
            let category = fortune::classify_masks(fortune::SuitMasks::of(&cards));
            let row = row_for(&r.bonus_paytable, category);
            lines.line(
                BetId::FortuneBonus,
                stake,
                judged(category, &cards),
                crate::id_of(&category),
                row.map(|row| row.pay),
                None,
            )?;
        }
        Ok(lines.finish(r.game_cap)?)
    }

    fn incomplete_rule(&self) -> IncompleteRule {
        IncompleteRule::Refund
    }
}

/// What the main bet pays (`None`: it loses) and the rule that decided it, for two settings: high
/// against high and low against low, a copy to the dealer, then the dealer's 9-high rule.
pub fn main_bet(
    rules: &FortunePaiGowRules,
    player: &Setting,
    dealer: &Setting,
) -> (Option<Pay>, &'static str) {
    let wins_high = player.high_value() > dealer.high_value();
    let wins_low = player.low_value() > dealer.low_value();
    let dealer_low = dealer.low_value();
    let nine_high = !dealer_low.is_pair() && dealer_low.top_rank() == Rank::Nine;
    let (pay, rule) = match (wins_high, wins_low) {
        (true, true) => (Some(rules.main_win), "both_hands_win"),
        (true, false) | (false, true) => (Some(Pay::Push), "one_hand_wins"),
        (false, false) => (None, "neither_hand_wins"),
    };
    match (nine_high, rules.dealer_nine_high, wins_high && wins_low) {
        (true, NineHighRule::PushEveryOutcome, _) | (true, NineHighRule::PushWouldBeWins, true) => {
            (Some(Pay::Push), "dealer_nine_high")
        }
        _ => (pay, rule),
    }
}

/// The player's setting (or auto-set), then the dealer's by the house way, then the settlement.
fn set_hands(out: &mut Emitter, action: Action, at: Timestamp) -> Result<(), RuleError> {
    let cards = seven(&out.hand, Seat::Player)?;
    let edition = edition(out.hand.config())?;
    let (setting, rule) = match action {
        Action::SetHand { low } => {
            let setting = Setting::from_low(&cards, low)
                .map_err(|e| RuleError::BadSetting(SettingRefused::NotTheHand(e)))?;
            if !setting.is_legal() {
                return Err(RuleError::BadSetting(SettingRefused::Fouls {
                    low: setting.low,
                    high: setting.high,
                }));
            }
            (setting, None)
        }
        Action::AutoSet => {
            let hw = house_way_unchecked(&cards, edition);
            (hw.setting, Some(hw.rule))
        }
        other => {
            return Err(RuleError::ActionNotInGame {
                game: GameId::FortunePaiGow,
                action: other.name(),
            })
        }
    };
    out.emit(Event::Acted {
        action,
        at,
        stakes: Vec::new(),
    })?;
    out.emit(Event::HandSet {
        seat: Seat::Player,
        setting,
        house_way_rule: rule,
    })?;
    out.show(Seat::Dealer)?;
    let dealer = house_way_unchecked(&seven(&out.hand, Seat::Dealer)?, edition);
    out.emit(Event::HandSet {
        seat: Seat::Dealer,
        setting: dealer.setting,
        house_way_rule: Some(dealer.rule),
    })?;
    out.finish()
}
