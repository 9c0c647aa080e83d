//! What a server prepares before it says it is ready (`[advice] warm`, on by default): the
//! strategy tables of every game's default configuration, and the theoretical returns of those
//! configurations (`crate::returns::theory`). Issue 23: a restart on a busy floor must not slow
//! a game. Computed after the start, beside the first hands, the theory alone took about five
//! core-seconds per server, and on this two-core machine any work beside serving — even in
//! Linux's idle scheduling class — halved the hands per second of two servers sharing one log
//! while it ran. Before the ready line it costs a few seconds of start, on every core, and
//! nothing after.
//!
//! Owns only that computation and its hand-over ([`Warmed`]); the tables are kept by
//! `advice.rs`, the theories by `crate::returns`. MUST NOT run on an async worker (it is a
//! blocking computation on threads of its own) and MUST NOT write anything.

use std::collections::BTreeMap;
use std::sync::Arc;

use pitboss_engine::config::{ConfigId, GameConfig};
use pitboss_engine::game::GameId;
use pitboss_lab::advice::StrategyTables;

use crate::floor::Floor;
use crate::returns::theory::{self, Theory};

/// A configuration's theory as computed: its bet groups' figures, or why not.
pub type Computed = Result<BTreeMap<String, Theory>, String>;

/// What was prepared, handed to the server's parts that keep it.
#[derive(Default)]
pub struct Warmed {
    /// Built strategy tables: (configuration, game, tables).
    pub(crate) tables: Vec<(ConfigId, GameId, Arc<StrategyTables>)>,
    /// The theory of each default configuration (when the returns are kept).
    pub(crate) theories: Vec<(ConfigId, Computed)>,
}

impl Warmed {
    /// How many strategy tables and theories were prepared.
    pub fn counts(&self) -> (usize, usize) {
        (self.tables.len(), self.theories.len())
    }
}

/// Prepares the default configurations' tables, and their theories when `theories`: each
/// configuration's theory on a thread of its own while the tables are built on every core.
/// A build or theory that fails is left to be tried again when first needed (and said in the
/// server's log).
pub async fn warm(floor: Arc<Floor>, theories: bool) -> Warmed {
    let configs: Vec<Arc<GameConfig>> = GameId::ALL
        .iter()
        .filter_map(|game| floor.default_config(*game))
        .filter_map(|id| floor.config(&id))
        .collect();
    let prepared = tokio::task::spawn_blocking(move || prepare(&configs, theories)).await;
    prepared.unwrap_or_else(|e| {
        tracing::warn!(error = %e, "the warm start stopped; tables and theories are prepared when first needed");
        Warmed::default()
    })
}

fn prepare(configs: &[Arc<GameConfig>], theories: bool) -> Warmed {
    std::thread::scope(|scope| {
        let computing: Vec<_> = configs
            .iter()
            .filter(|_| theories)
            .map(|config| {
                let id = config.id();
                (
                    id,
                    scope.spawn(move || theory::of(config, &pitboss_lab::Run::default())),
                )
            })
            .collect();
        let mut warmed = Warmed::default();
        for config in configs
            .iter()
            .filter(|c| super::advice::needs_tables(c.game))
        {
            match StrategyTables::build(config, pitboss_lab::threads()) {
                Ok(built) => warmed
                    .tables
                    .push((config.id(), config.game, Arc::new(built))),
                Err(e) => {
                    tracing::warn!(config = %config.id(), error = %e, "strategy tables not built at start")
                }
            }
        }
        for (id, handle) in computing {
            let computed = handle
                .join()
                .unwrap_or_else(|_| Err("the computation panicked".to_string()));
            warmed.theories.push((id, computed));
        }
        warmed
    })
}
