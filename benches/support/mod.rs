//! What the benches share: a seed per index, and one-player Caribbean Stud hands played through
//! the engine (the reference rate other measurements are put beside).

use std::sync::Arc;
use std::time::Instant;

use pitboss_engine::config::GameConfig;
use pitboss_engine::game::GameId;
use pitboss_engine::games::{Action, Command, Hand, OpenHand, Timestamp};
use pitboss_engine::money::Money;
use pitboss_engine::rng::Seed;
use pitboss_engine::settlement::{BetId, Wager};

/// The seed whose first eight bytes are `n` (little-endian), the rest zero.
pub fn seed(n: u64) -> Seed {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&n.to_le_bytes());
    Seed::from_bytes(bytes)
}

/// `n` one-player Caribbean Stud hands (an ante of 500; every third folds, the others raise),
/// dealt, decided and settled through the engine: hands per second.
pub fn caribbean_hands(n: u64) -> f64 {
    let config = Arc::new(GameConfig::default_for(GameId::CaribbeanStud));
    let started = Instant::now();
    for i in 0..n {
        let mut hand = Hand::new(seed(i), config.clone());
        for command in [
            Command::Open(OpenHand {
                table: "t".into(),
                player: "p".into(),
                wagers: vec![Wager {
                    bet: BetId::Ante,
                    amount: Money(500),
                }],
                at: Timestamp(2),
                rebet_of: None,
            }),
            Command::Act {
                action: if i % 3 == 0 {
                    Action::Fold
                } else {
                    Action::Raise
                },
                at: Timestamp(4),
            },
        ] {
            for event in hand.decide(&command).expect("decided") {
                hand = hand.evolve(&event).expect("evolved");
            }
        }
    }
    n as f64 / started.elapsed().as_secs_f64()
}
