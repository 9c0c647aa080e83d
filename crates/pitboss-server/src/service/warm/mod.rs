//! What a server prepares before it serves its calls (`[advice] warm`, on by default): the
//! strategy tables of every game's default configuration, and the theoretical returns of those
//! configurations (`crate::returns::theory`), so that no hand waits for them and nothing heavy
//! runs beside the first hands.
//!
//! Each is loaded from the data directory when kept there (`kept.rs`: keyed by the configuration's
//! id and the lab's revision, checked whole), else computed — each theory on a thread of its own
//! while the tables are built on every core — and kept for the next start; a file that does not
//! check is said in the server's log, computed again and replaced. A first start computes for
//! seconds; a restart reads a few megabytes.
//!
//! Owns only that preparation and its hand-over ([`Warmed`]); the tables are kept in memory by
//! `advice.rs`, the theories by `crate::returns`. MUST NOT run on an async worker (it is blocking
//! work on threads of its own) and MUST NOT write to the log.

pub mod kept;

use std::sync::Arc;

use pitboss_engine::config::{ConfigId, GameConfig};
use pitboss_engine::game::GameId;
use pitboss_lab::advice::StrategyTables;

use crate::floor::Floor;
use crate::returns::theory::{self, Computed};
use kept::{Kept, Kind};

/// What was prepared, handed to the server's parts that keep it.
#[derive(Default)]
pub struct Warmed {
    /// Built strategy tables: (configuration, game, tables).
    pub(crate) tables: Vec<(ConfigId, GameId, Arc<StrategyTables>)>,
    /// The theory of each default configuration (when the returns are kept).
    pub(crate) theories: Vec<(ConfigId, Computed)>,
    /// How many of the tables and theories were read from the data directory.
    pub loaded: usize,
    /// How many were computed.
    pub computed: usize,
}

impl Warmed {
    /// How many strategy tables and theories were prepared.
    pub fn counts(&self) -> (usize, usize) {
        (self.tables.len(), self.theories.len())
    }
}

/// Every game's default configuration, as published on `floor`.
pub fn defaults(floor: &Floor) -> Vec<Arc<GameConfig>> {
    GameId::ALL
        .iter()
        .filter_map(|game| floor.default_config(*game))
        .filter_map(|id| floor.config(&id))
        .collect()
}

/// Starts preparing the default configurations' tables, and their theories when `theories`,
/// loading what `kept` holds and keeping what is computed. A build or theory that fails is left to
/// be tried again when first needed (and said in the server's log).
pub fn start(floor: &Floor, kept: Option<Kept>, theories: bool) -> tokio::task::JoinHandle<Warmed> {
    let configs = defaults(floor);
    tokio::task::spawn_blocking(move || prepare(&configs, kept.as_ref(), theories))
}

/// What is read back of a kept file, or why not (the reason is logged: nothing is kept, or what is
/// kept does not check).
fn load<T>(
    kept: Option<&Kept>,
    kind: Kind,
    config: &GameConfig,
    read: impl FnOnce(&[u8]) -> Result<T, String>,
) -> Option<T> {
    let kept = kept?;
    let id = config.id();
    match kept.load(kind, &id) {
        Ok(Some(bytes)) => match read(&bytes) {
            Ok(value) => Some(value),
            Err(e) => {
                tracing::warn!(config = %id, ?kind, error = %e, "kept computation does not read; computing it again");
                None
            }
        },
        Ok(None) => None,
        Err(e) => {
            tracing::warn!(config = %id, ?kind, error = %e, "kept computation refused; computing it again");
            None
        }
    }
}

/// Keeps `bytes` of `kind` for `id`; a failure is said and changes nothing else (the next start
/// computes again).
fn keep(kept: Option<&Kept>, kind: Kind, id: &ConfigId, bytes: Option<Vec<u8>>) {
    let (Some(kept), Some(bytes)) = (kept, bytes) else {
        return;
    };
    if let Err(e) = kept.store(kind, id, &bytes) {
        tracing::warn!(config = %id, ?kind, error = %e, "a computation could not be kept for the next start");
    }
}

fn prepare(configs: &[Arc<GameConfig>], kept: Option<&Kept>, theories: bool) -> Warmed {
    let mut warmed = Warmed::default();
    std::thread::scope(|scope| {
        let mut computing = Vec::new();
        for config in configs.iter().filter(|_| theories) {
            let id = config.id();
            match load(kept, Kind::Theory, config, theory::from_bytes) {
                Some(figures) => {
                    warmed.loaded += 1;
                    warmed.theories.push((id, Ok(figures)));
                }
                None => computing.push((
                    id,
                    scope.spawn(move || theory::of(config, &pitboss_lab::Run::default())),
                )),
            }
        }
        for config in configs
            .iter()
            .filter(|c| super::advice::needs_tables(c.game))
        {
            let id = config.id();
            let read =
                |bytes: &[u8]| StrategyTables::from_bytes(config, bytes).map_err(|e| e.to_string());
            if let Some(tables) = load(kept, Kind::Tables, config, read) {
                warmed.loaded += 1;
                warmed.tables.push((id, config.game, Arc::new(tables)));
                continue;
            }
            match StrategyTables::build(config, pitboss_lab::threads()) {
                Ok(built) => {
                    warmed.computed += 1;
                    keep(kept, Kind::Tables, &id, built.to_bytes());
                    warmed.tables.push((id, config.game, Arc::new(built)));
                }
                Err(e) => {
                    tracing::warn!(config = %id, error = %e, "strategy tables not built at start")
                }
            }
        }
        for (id, handle) in computing {
            let computed: Computed = handle
                .join()
                .unwrap_or_else(|_| Err("the computation panicked".to_string()));
            if let Ok(figures) = &computed {
                warmed.computed += 1;
                keep(kept, Kind::Theory, &id, theory::to_bytes(figures));
            }
            warmed.theories.push((id, computed));
        }
    });
    warmed
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    type Figures = BTreeMap<String, crate::returns::theory::Theory>;

    /// A first preparation computes and keeps; a second loads the same tables and figures; a
    /// damaged file is computed again and replaced.
    #[test]
    fn what_is_prepared_is_kept_and_loaded_back_the_same() {
        let data = tempfile::tempdir().unwrap();
        let kept = Kept::new(data.path());
        let configs: Vec<Arc<GameConfig>> = [GameId::MississippiStud, GameId::Nutz]
            .into_iter()
            .map(|g| Arc::new(GameConfig::default_for(g)))
            .collect();
        let first = prepare(&configs, Some(&kept), true);
        assert_eq!((first.loaded, first.computed), (0, 3));
        let second = prepare(&configs, Some(&kept), true);
        assert_eq!((second.loaded, second.computed), (3, 0));
        assert_eq!(first.tables.len(), 1);
        assert_eq!(first.tables[0].2, second.tables[0].2);
        let figures = |w: &Warmed| -> Vec<(ConfigId, Figures)> {
            w.theories
                .iter()
                .map(|(id, t)| (*id, t.clone().unwrap()))
                .collect()
        };
        assert_eq!(figures(&first), figures(&second));
        let tables = data
            .path()
            .join(kept::DIR)
            .join(format!("tables-{}", configs[0].id()));
        let mut bytes = std::fs::read(&tables).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0xff;
        std::fs::write(&tables, &bytes).unwrap();
        let third = prepare(&configs, Some(&kept), true);
        assert_eq!((third.loaded, third.computed), (2, 1));
        assert_eq!(third.tables[0].2, first.tables[0].2);
        let fourth = prepare(&configs, Some(&kept), true);
        assert_eq!(
            (fourth.loaded, fourth.computed),
            (3, 0),
            "the damaged file was replaced"
        );
    }
}
