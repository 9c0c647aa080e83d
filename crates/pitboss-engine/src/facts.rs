//! What the rest of the system knows of a game beyond its rules: its name for people, what it deals
//! and to whom, how its bets group in the returns, how its paytables read on a page, and how a
//! player is advised. Each game's module declares its [`GameFacts`]; `GameId::facts` (in
//! `games/play.rs`, from the roster) is the one place that picks them, so the floor, the server,
//! the pages and the CLI keep no table of their own keyed by game.
//!
//! Facts are constants: no I/O, nothing computed from a configuration (a configuration's numbers
//! are its rules').

use crate::game::{Material, SeatLayout};
use crate::settlement::BetId;

/// One game's facts.
#[derive(Debug)]
pub struct GameFacts {
    /// The name people read (`Mississippi Stud`).
    pub name: &'static str,
    /// What the game's randomness draws: a shuffled deck, or dice.
    pub material: Material,
    /// The seats of a card game in deal order, each with the deck positions it receives (empty
    /// for dice games): one player's hand, as a one-seat round deals it.
    pub layout: &'static [SeatLayout],
    /// The most player seats a round deals from one deck (`spec/GAMES.md`, *Rounds*); `None` for
    /// a game that deals no seat, whose round is one shake every bettor plays.
    pub max_seats: Option<u8>,
    /// The most seats of one round one player may hold (a round may allow fewer). One in every
    /// game today: caps apply per player (`spec/GAMES.md`, *Rounds*) and a place's caps are its
    /// hand's, so a second seat waits for one cap across a player's seats; Caribbean Stud would
    /// stay at one (players may not see each other's cards). A bettor on a shake or on a shared
    /// hand holds one place, however many bets it carries.
    pub seats_per_player: u8,
    /// The bet groups the PAR sheets and the live returns are kept by; every bet of the game is in
    /// exactly one.
    pub groups: &'static [BetGroup],
    /// The configuration's paytables (the rules' fields), as a page shows them.
    pub tables: &'static [TableFacts],
    /// How a player's decisions are advised.
    pub advice: Advice,
    /// The strategy the PAR sheets and the simulation assume, in words.
    pub strategy: &'static str,
}

impl GameFacts {
    /// The group holding `bet` (named by its id), if any; no allocation.
    pub fn group_of(&self, bet: &str) -> Option<&'static str> {
        self.groups
            .iter()
            .find(|group| group.bets.iter().any(|b| b.id() == bet))
            .map(|group| group.name)
    }

    /// The paytable held in the rules' field `field`, if the game has it.
    pub fn table(&self, field: &str) -> Option<&'static TableFacts> {
        self.tables.iter().find(|table| table.field == field)
    }

    /// Whether the player makes choices (so there is an optimal strategy and an "always" one).
    pub fn has_choices(&self) -> bool {
        matches!(self.advice, Advice::Tables { .. })
    }
}

/// A bet group: its name and its bets.
#[derive(Debug)]
pub struct BetGroup {
    /// The group's name (`main`, `bonus`, a Nutz box's bet id).
    pub name: &'static str,
    /// Its bets.
    pub bets: &'static [BetId],
}

/// One paytable of a configuration.
#[derive(Debug)]
pub struct TableFacts {
    /// The rules' field holding it (`paytable`, `bonus_paytable`, `main_win`).
    pub field: &'static str,
    /// Its title for people.
    pub title: &'static str,
    /// The bets it judges.
    pub bets: &'static [BetId],
    /// The words for its one row, for a table that is a single pay (`main_win`); `None` where each
    /// row is named by its hand.
    pub row: Option<&'static str>,
    /// Whether a paying settlement line with this `rule` was paid by the row named `row`.
    pub paid_by: fn(row: &str, rule: &str) -> bool,
}

/// The rule most tables follow: a paying line's rule names its row.
pub fn rule_names_row(row: &str, rule: &str) -> bool {
    row == rule
}

/// How a player's decisions are advised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advice {
    /// From strategy tables the lab builds per configuration; `exact_while_building` says whether
    /// the exact advice can also be had without them while they are built.
    Tables { exact_while_building: bool },
    /// By the house way, which the engine applies itself.
    HouseWay,
    /// There is nothing to choose but to shake.
    Shaking,
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::sync::Arc;

    use crate::config::GameConfig;
    use crate::game::GameId;
    use crate::games::{Command, Hand, OpenHand, RuleError, Timestamp};
    use crate::money::Money;
    use crate::rng::Seed;
    use crate::settlement::{BetId, Wager};

    #[test]
    fn each_games_facts_hold_together() {
        let mut names = BTreeSet::new();
        for game in GameId::ALL {
            let facts = game.facts();
            assert!(names.insert(facts.name), "{game}: names differ");
            // The groups are disjoint and named once.
            let mut grouped = BTreeSet::new();
            let mut group_names = BTreeSet::new();
            for group in facts.groups {
                assert!(group_names.insert(group.name), "{game}: {}", group.name);
                assert!(!group.bets.is_empty(), "{game}: {}", group.name);
                for bet in group.bets {
                    assert!(grouped.insert(*bet), "{game}: {bet} in two groups");
                    assert_eq!(facts.group_of(bet.id()), Some(group.name));
                }
            }
            assert_eq!(facts.group_of("no_such_bet"), None);
            // Every table judges grouped bets, and each field is named once.
            let mut fields = BTreeSet::new();
            for table in facts.tables {
                assert!(fields.insert(table.field), "{game}: {}", table.field);
                assert!(table.bets.iter().all(|bet| grouped.contains(bet)));
            }
            // A game with choices is one whose strategy the lab builds tables for.
            assert_eq!(
                facts.has_choices(),
                matches!(game, GameId::MississippiStud | GameId::CaribbeanStud)
            );
        }
    }

    /// The groups hold every bet the game takes at the opening, and beyond those only bets placed
    /// by a decision, which a table judges.
    #[test]
    fn the_groups_hold_exactly_the_bets_a_game_takes() {
        for game in GameId::ALL {
            let config = Arc::new(GameConfig::default_for(game));
            let grouped: BTreeSet<BetId> = game
                .facts()
                .groups
                .iter()
                .flat_map(|g| g.bets.iter().copied())
                .collect();
            for bet in BetId::ALL {
                let hand = Hand::new(Seed::from_bytes([7; 32]), config.clone());
                let open = OpenHand {
                    table: "t".into(),
                    player: "p".into(),
                    wagers: vec![Wager {
                        bet,
                        amount: Money(1),
                    }],
                    at: Timestamp(0),
                    rebet_of: None,
                };
                let refused_as_foreign = matches!(
                    hand.decide(&Command::Open(open)),
                    Err(RuleError::NotThisGame { .. })
                );
                if !refused_as_foreign {
                    assert!(
                        grouped.contains(&bet),
                        "{game} takes {bet} but groups it nowhere"
                    );
                } else if grouped.contains(&bet) {
                    // A bet placed by a decision (a street bet, the raise): a table judges it.
                    let judged = game.facts().tables.iter().any(|t| t.bets.contains(&bet));
                    assert!(
                        judged,
                        "{game} groups {bet}, which it neither takes nor judges"
                    );
                }
            }
        }
    }
}
