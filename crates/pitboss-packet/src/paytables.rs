//! The configuration's paytables and caps, found generically, and which paytable rows a settlement
//! applied.
//!
//! Paytables are found in the configuration's JSON form, so that a paytable added to a game shows
//! without a change here: every array field whose name ends in `paytable` holding `{hand, pay}`
//! rows, and the single-row pays `main_win` (Fortune Pai Gow) and `ante_win` (Caribbean Stud).
//! Caps are every field ending in `_cap`. Which bets a table judges, and how a settlement line's
//! `rule` names a row, are the games' own facts (`pitboss_engine::facts`).
//!
//! This module owns that reading only. It must not format HTML, and never fails: a field it does
//! not understand is shown as its raw JSON, and an unknown game or field matches rows by rule name
//! alone.

use pitboss_engine::config::Rules;
use pitboss_engine::game::GameId;
use pitboss_engine::money::Money;
use pitboss_engine::paytable::Pay;
use pitboss_engine::settlement::BetLine;
use serde_json::Value;

use crate::words::readable;

/// One paytable of the configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PayTable {
    /// The field's name in the configuration (`"bonus_paytable"`).
    pub field: String,
    /// Its rows, in the configuration's order.
    pub rows: Vec<PayTableRow>,
}

/// One row: a hand id and what it pays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PayTableRow {
    /// The hand's id (`"royal_flush"`), or the rule a single-row pay stands for.
    pub hand: String,
    /// What it pays, when the configuration's JSON reads as a pay.
    pub pay: Option<Pay>,
    /// The pay as the configuration's JSON has it, for a pay that does not read.
    pub raw: String,
}

/// One configured cap: its field and amount (`None`: no cap).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CapSetting {
    /// The field's name (`"street_cap"`).
    pub field: String,
    /// The cap, if set.
    pub cap: Option<Money>,
    /// The value as the configuration's JSON has it, for one that is not an amount.
    pub raw: String,
}

/// The game's own object inside the rules' JSON (`{"mississippi_stud": {…}}` → `{…}`).
fn game_fields(rules: &Rules) -> serde_json::Map<String, Value> {
    match serde_json::to_value(rules) {
        Ok(Value::Object(outer)) => outer
            .into_iter()
            .find_map(|(_, inner)| match inner {
                Value::Object(fields) => Some(fields),
                _ => None,
            })
            .unwrap_or_default(),
        _ => serde_json::Map::new(),
    }
}

/// The synthetic hand id a single-row pay stands for.
fn single_row_hand(field: &str) -> String {
    match field {
        "main_win" => "both_hands_win".to_string(),
        "ante_win" => "ante_wins".to_string(),
        other => other.to_string(),
    }
}

fn row(hand: String, pay: &Value) -> PayTableRow {
    PayTableRow {
        hand,
        pay: serde_json::from_value(pay.clone()).ok(),
        raw: pay.to_string(),
    }
}

/// Where a table comes on the page: the main pays first, the bonus tables last.
fn order(field: &str) -> u8 {
    match field {
        "paytable" | "main_win" | "ante_win" => 0,
        f if f.starts_with("bonus") => 2,
        _ => 1,
    }
}

/// Every paytable of the rules, main pays first, each table's rows in order.
pub(crate) fn paytables(rules: &Rules) -> Vec<PayTable> {
    let mut tables: Vec<PayTable> = game_fields(rules)
        .iter()
        .filter_map(|(field, value)| {
            if field.ends_with("paytable") {
                let rows = value
                    .as_array()?
                    .iter()
                    .map(|entry| {
                        let hand = match entry.get("hand") {
                            Some(Value::String(id)) => id.clone(),
                            Some(other) => other.to_string(),
                            None => String::new(),
                        };
                        row(hand, entry.get("pay").unwrap_or(&Value::Null))
                    })
                    .collect();
                Some(PayTable {
                    field: field.clone(),
                    rows,
                })
            } else if field == "main_win" || field == "ante_win" {
                Some(PayTable {
                    field: field.clone(),
                    rows: vec![row(single_row_hand(field), value)],
                })
            } else {
                None
            }
        })
        .collect();
    tables.sort_by_key(|t| order(&t.field));
    tables
}

/// Every cap of the rules (fields ending in `_cap`), in field order.
pub(crate) fn caps(rules: &Rules) -> Vec<CapSetting> {
    game_fields(rules)
        .iter()
        .filter(|(field, _)| field.ends_with("_cap"))
        .map(|(field, value)| CapSetting {
            field: field.clone(),
            cap: value.as_u64().map(Money),
            raw: value.to_string(),
        })
        .collect()
}

/// A table's title for people: the game's own title for it, else its field made readable.
pub(crate) fn table_title(game: GameId, field: &str) -> String {
    match game.facts().table(field) {
        Some(table) => table.title.into(),
        None => readable(field),
    }
}

/// A row's hand for people: the table's words for its one row, else the hand made readable.
pub(crate) fn hand_title(game: GameId, field: &str, hand: &str) -> String {
    match game.facts().table(field).and_then(|table| table.row) {
        Some(row) => row.into(),
        None => readable(hand),
    }
}

/// Whether a settlement line was paid by this row of table `field`: the line's bet is one the
/// table judges, the line pays, and its rule names the row (as the game's table reads rules; by
/// the rule's name alone for a table the game does not know).
pub(crate) fn applies(game: GameId, field: &str, hand: &str, line: &BetLine) -> bool {
    if line.pay.is_none() {
        return false;
    }
    match game.facts().table(field) {
        Some(table) => table.bets.contains(&line.bet) && (table.paid_by)(hand, &line.rule),
        None => line.rule == hand,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_engine::config::GameConfig;
    use pitboss_engine::paytable::Outcome;
    use pitboss_engine::settlement::BetId;

    fn line(bet: BetId, rule: &str, pay: Option<Pay>) -> BetLine {
        BetLine {
            bet,
            stake: Money(100),
            judged_on: String::new(),
            rule: rule.into(),
            pay,
            outcome: Outcome::Win,
            uncapped: Money(0),
            cap: None,
            cut: Money(0),
            payout: Money(0),
        }
    }

    #[test]
    fn every_game_has_its_tables_found() {
        let fields = |game| {
            paytables(&GameConfig::default_for(game).rules)
                .into_iter()
                .map(|t| t.field)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            fields(GameId::MississippiStud),
            ["paytable", "bonus_paytable"]
        );
        assert_eq!(
            fields(GameId::FortunePaiGow),
            ["main_win", "bonus_paytable"]
        );
        assert_eq!(fields(GameId::Nutz), ["paytable"]);
        assert_eq!(
            fields(GameId::CaribbeanStud),
            ["ante_win", "raise_paytable", "bonus_paytable"]
        );
        // The games' facts describe exactly the tables found, in the same order.
        for game in GameId::ALL {
            let described: Vec<&str> = game.facts().tables.iter().map(|t| t.field).collect();
            assert_eq!(fields(game), described, "{game}");
        }
        let ms = paytables(&GameConfig::default_for(GameId::MississippiStud).rules);
        assert_eq!(ms[0].rows[0].hand, "royal_flush");
        assert_eq!(ms[0].rows[0].pay, Some(Pay::Odds(500)));
        let caps = caps(&GameConfig::default_for(GameId::MississippiStud).rules);
        assert!(caps
            .iter()
            .any(|c| c.field == "game_cap" && c.cap.is_some()));
        assert!(caps.iter().any(|c| c.field == "street_cap"));
    }

    #[test]
    fn rows_apply_by_rule_and_bet() {
        let royal = line(BetId::Street3, "royal_flush", Some(Pay::Odds(500)));
        assert!(applies(
            GameId::MississippiStud,
            "paytable",
            "royal_flush",
            &royal
        ));
        assert!(!applies(
            GameId::MississippiStud,
            "bonus_paytable",
            "royal_flush",
            &royal
        ));
        assert!(!applies(
            GameId::MississippiStud,
            "paytable",
            "flush",
            &royal
        ));
        let lost = line(BetId::Ante, "royal_flush", None);
        assert!(!applies(
            GameId::MississippiStud,
            "paytable",
            "royal_flush",
            &lost
        ));
        let raise = line(BetId::Raise, "player_higher_flush", Some(Pay::Odds(5)));
        assert!(applies(
            GameId::CaribbeanStud,
            "raise_paytable",
            "flush",
            &raise
        ));
        assert!(!applies(
            GameId::CaribbeanStud,
            "raise_paytable",
            "straight",
            &raise
        ));
        let ante = line(BetId::Ante, "dealer_not_qualifying", Some(Pay::Odds(1)));
        assert!(applies(
            GameId::CaribbeanStud,
            "ante_win",
            "ante_wins",
            &ante
        ));
        let main = line(BetId::Main, "both_hands_win", Some(Pay::Odds(1)));
        assert!(applies(
            GameId::FortunePaiGow,
            "main_win",
            "both_hands_win",
            &main
        ));
        let unknown = line(BetId::Ante, "anything", Some(Pay::Push));
        assert!(applies(GameId::Nutz, "new_paytable", "anything", &unknown));
    }
}
