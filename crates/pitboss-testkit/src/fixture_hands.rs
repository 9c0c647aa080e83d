//! Scripted hands of `fixtures/hands/*.json` (a seed, wagers, decisions and voids) played through
//! the engine's own `Hand::decide`/`evolve`, so that every event a test shows or records is one the
//! engine really produces. Shared by the packet crate's tests and the server's.

use std::sync::Arc;

use pitboss_engine::config::GameConfig;
use pitboss_engine::game::GameId;
use pitboss_engine::games::{Action, Command, Event, Hand, OpenHand, Timestamp, VoidOrder};
use pitboss_engine::money::Money;
use pitboss_engine::rng::Seed;
use pitboss_engine::settlement::{BetId, Wager};
use serde_json::Value;

/// How a test changes a fixture's hand before it is played.
#[derive(Default)]
pub struct Script {
    /// Replaces the table reference.
    pub table: Option<String>,
    /// Replaces the player reference.
    pub player: Option<String>,
    /// Replaces every void order's reason.
    pub void_reason: Option<String>,
    /// Replaces every void order's recorder.
    pub recorded_by: Option<String>,
    /// Changes the game's default configuration.
    pub config: Option<fn(&mut GameConfig)>,
}

/// A played hand: the engine's hand and the events it recorded, in order.
pub struct Played {
    pub hand: Hand,
    pub events: Vec<Event>,
    /// The events of each command, with the command's time: what one append records.
    pub steps: Vec<(u64, Vec<Event>)>,
    pub config: GameConfig,
}

/// A fixture's configuration: the game's default, moved to the fixture's currency when its
/// `config` block says so (`currency`, `amounts_divided_by`).
pub fn configuration(game: GameId, derived: Option<&Value>) -> GameConfig {
    let config = GameConfig::default_for(game);
    let Some(derived) = derived else {
        return config;
    };
    let divisor = derived["amounts_divided_by"].as_u64().expect("a divisor");
    let currency = serde_json::from_value(derived["currency"].clone()).expect("a currency");
    crate::currency::in_currency(&config, currency, crate::currency::Scale::Divide(divisor))
}

/// The wagers of a fixture's `open` block (bet id → minor units).
pub fn wagers(open: &Value) -> Vec<Wager> {
    open["wagers"]
        .as_object()
        .expect("wagers by bet")
        .iter()
        .map(|(bet, amount)| Wager {
            bet: bet.parse::<BetId>().expect("a bet id"),
            amount: Money(amount.as_u64().expect("an amount in minor units")),
        })
        .collect()
}

/// Plays `fixture` (named `name` in messages) as `script` changes it, skipping the steps the
/// fixture expects refused.
pub fn play(fixture: &Value, name: &str, script: &Script) -> Played {
    let game: GameId = fixture["game"].as_str().unwrap().parse().unwrap();
    let seed = Seed::from_hex(fixture["seed"].as_str().unwrap()).expect("seed hex");
    let mut config = configuration(game, fixture.get("config"));
    if let Some(change) = script.config {
        change(&mut config);
    }
    let mut hand = Hand::new(seed, Arc::new(config.clone()));
    let open = &fixture["open"];
    let wagers = wagers(open);
    let mut commands = vec![Command::Open(OpenHand {
        table: script
            .table
            .clone()
            .unwrap_or_else(|| open["table"].as_str().unwrap().into()),
        player: script
            .player
            .clone()
            .unwrap_or_else(|| open["player"].as_str().unwrap().into()),
        wagers,
        at: Timestamp(open["at"].as_u64().unwrap()),
        rebet_of: None,
    })];
    for step in fixture["steps"].as_array().unwrap() {
        if step.get("refused").is_some() {
            continue;
        }
        if let Some(act) = step.get("act") {
            let action: Action = serde_json::from_value(act.clone()).expect("an action");
            commands.push(Command::Act {
                action,
                at: Timestamp(step["at"].as_u64().unwrap()),
            });
        } else {
            let mut order: VoidOrder =
                serde_json::from_value(step["void"].clone()).expect("a void order");
            if let Some(reason) = &script.void_reason {
                order.reason = reason.clone();
            }
            if let Some(who) = &script.recorded_by {
                order.recorded_by = who.clone();
            }
            commands.push(Command::Void(order));
        }
    }
    let mut events = Vec::new();
    let mut steps = Vec::new();
    for command in commands {
        let at = command.at().0;
        let new = hand
            .decide(&command)
            .unwrap_or_else(|e| panic!("{name}: {command:?} refused: {e}"));
        for event in &new {
            hand = hand.evolve(event).expect("decided events fold in");
        }
        events.extend(new.iter().cloned());
        steps.push((at, new));
    }
    Played {
        hand,
        events,
        steps,
        config,
    }
}
