//! The strategy tables behind the Play service's advice and `PlayHand`'s `follow_advice`, built so
//! that no game freezes while they are (a Caribbean Stud build takes seconds of every core: waited
//! for, it would hold the first hands after a start, and every other game's with them):
//!
//! - **One build per configuration**, shared by every caller that needs it (a `OnceCell` per
//!   configuration; [`Strategies::builds`] counts them, and the metrics show the count).
//! - **Builds nobody waits for yield to play**: Caribbean Stud's runs on a thread of its own at a
//!   lower scheduling priority (`nice` 10), so hands of every game go on at full speed while it
//!   takes what is left; a build callers wait for (Mississippi Stud's) runs at full priority.
//! - **Nobody waits for Caribbean Stud's table** (seconds of counting): until it is built, its
//!   advice is the same decision by plain enumeration of the dealer's 163 185 completions (about
//!   a millisecond; the lab's tests hold the table to it). Mississippi Stud's tables (under a
//!   second) are waited for, by every caller at once on the one build.
//! - **Warmed at start** when the settings ask (the default): the defaults' tables are built
//!   before the server says it is ready (`warm.rs`) and handed over here ([`Strategies::adopt`]).
//!
//! Owns the cache of built tables (bounded) and the builds' counts. Must not hold a lock across a
//! build, run a build on an async worker, or fail a call whose hand is already written: advice
//! that cannot be had is absent, with its reason ([`Unavailable`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use pitboss_engine::config::{ConfigId, GameConfig};
use pitboss_engine::facts::Advice;
use pitboss_engine::game::GameId;
use pitboss_engine::games::{Action, Hand};
use pitboss_lab::advice::{Advisor, StrategyTables};

use super::limits;
use super::work::Pool;
use crate::floor::Floor;
use crate::lru::{bounded, Lru};

/// One configuration's tables, built once by whichever caller needs them first.
#[derive(Default)]
struct Tables {
    built: tokio::sync::OnceCell<Arc<StrategyTables>>,
    /// A background build was started (one is enough: callers that cannot wait do without).
    background: std::sync::atomic::AtomicBool,
}

type Slot = Arc<Tables>;

/// Why a hand's advice is absent. Its text is what the client reads in `advice_unavailable`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unavailable {
    /// The hand's configuration is not (or no longer) published on this server.
    #[error("configuration {0} is not published")]
    NotPublished(ConfigId),
    /// The lab refused the configuration or its build failed; `reason` is the lab's.
    #[error("the strategy tables of configuration {id} cannot be built: {reason}")]
    Build { id: ConfigId, reason: String },
    /// The strategy has no decision for the hand as it stands.
    #[error("the strategy has no decision for this hand: {0}")]
    NoDecision(String),
}

/// Builds started and finished, by game (for the metrics and the tests that count them).
#[derive(Debug, Default)]
pub struct BuildCounts {
    started: [AtomicU64; GameId::ALL.len()],
    finished: [AtomicU64; GameId::ALL.len()],
}

impl BuildCounts {
    fn slot(game: GameId) -> usize {
        GameId::ALL.iter().position(|g| *g == game).unwrap_or(0)
    }

    /// Builds of `game`'s tables begun since the server started.
    pub fn started(&self, game: GameId) -> u64 {
        self.started[Self::slot(game)].load(Ordering::Relaxed)
    }

    /// Builds of `game`'s tables completed since the server started.
    pub fn finished(&self, game: GameId) -> u64 {
        self.finished[Self::slot(game)].load(Ordering::Relaxed)
    }
}

/// The strategy tables of the configurations in use, and their builds.
pub struct Strategies {
    floor: Arc<Floor>,
    /// The configurations used lately, a bounded number of them (each up to 64 MiB).
    kept: Mutex<Lru<ConfigId, Slot>>,
    /// The builds' permits: one at a time (a build uses every core it is given).
    pool: Pool,
    counts: Arc<BuildCounts>,
}

/// Whether a game's advice needs tables at all (Pai Gow's is the house way, Nutz's is to shake).
pub(super) fn needs_tables(game: GameId) -> bool {
    matches!(game.facts().advice, Advice::Tables { .. })
}

/// Whether a game's advice can be had, exactly, without its tables while they are built.
fn decides_without_tables(game: GameId) -> bool {
    matches!(
        game.facts().advice,
        Advice::Tables {
            exact_while_building: true
        }
    )
}

impl Strategies {
    /// The tables of `floor`'s configurations, built in `pool`.
    pub fn new(floor: Arc<Floor>, pool: Pool) -> Strategies {
        Strategies {
            floor,
            kept: Mutex::new(bounded(limits::STRATEGY_TABLES_KEPT)),
            pool,
            counts: Arc::default(),
        }
    }

    /// The builds' counts.
    pub fn builds(&self) -> Arc<BuildCounts> {
        self.counts.clone()
    }

    /// Keeps tables built before the server was ready (`warm.rs`), counted as builds.
    pub fn adopt(&self, built: Vec<(ConfigId, GameId, Arc<StrategyTables>)>) {
        for (id, game, tables) in built {
            if self.slot(id).built.set(tables).is_ok() {
                let at = BuildCounts::slot(game);
                self.counts.started[at].fetch_add(1, Ordering::Relaxed);
                self.counts.finished[at].fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    fn slot(&self, id: ConfigId) -> Slot {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(slot) = kept.get(&id) {
            return slot.clone();
        }
        let slot = Slot::default();
        kept.put(id, slot.clone());
        slot
    }

    /// The tables of `id`, built once: the first caller builds them, every other waits for that
    /// build. The build runs in a task of its own, so a caller that goes away does not stop it.
    async fn tables(&self, id: ConfigId) -> Result<Arc<StrategyTables>, Unavailable> {
        let slot = self.slot(id);
        if let Some(tables) = slot.built.get() {
            return Ok(tables.clone());
        }
        let config = self
            .floor
            .config(&id)
            .ok_or(Unavailable::NotPublished(id))?;
        let pool = self.pool.clone();
        let counts = self.counts.clone();
        let build = tokio::spawn(async move {
            slot.built
                .get_or_try_init(|| async move {
                    let game = config.game;
                    counts.started[BuildCounts::slot(game)].fetch_add(1, Ordering::Relaxed);
                    // Nobody waits for a table its game can do without: that build yields to play.
                    let yielding = decides_without_tables(game);
                    let built = pool
                        .run(move |_| Ok(build(config, yielding)))
                        .await
                        .map_err(|status| status.message().to_string())?
                        .map(Arc::new)?;
                    counts.finished[BuildCounts::slot(game)].fetch_add(1, Ordering::Relaxed);
                    Ok::<_, String>(built)
                })
                .await
                .cloned()
        });
        match build.await {
            Ok(Ok(tables)) => Ok(tables),
            Ok(Err(reason)) => Err(Unavailable::Build { id, reason }),
            Err(e) => Err(Unavailable::Build {
                id,
                reason: e.to_string(),
            }),
        }
    }

    /// Builds `id`'s tables in the background when its game needs them and nobody has.
    fn build_in_background(self: &Arc<Self>, id: ConfigId) {
        let needed = self
            .floor
            .config(&id)
            .is_some_and(|config| needs_tables(config.game));
        if !needed {
            return;
        }
        let slot = self.slot(id);
        if slot.built.initialized() || slot.background.swap(true, Ordering::Relaxed) {
            return;
        }
        let this = self.clone();
        tokio::spawn(async move {
            if let Err(e) = this.tables(id).await {
                tracing::warn!(config = %id, "strategy tables not built: {e}");
            }
        });
    }

    /// What advises the hands of configuration `id` now: its tables when built; for a game whose
    /// advice can do without them while they are built, none (and the build is started); for the
    /// others, the tables once built (waiting for the one build).
    pub async fn for_config(
        self: &Arc<Self>,
        id: ConfigId,
        game: GameId,
    ) -> Result<Option<Arc<StrategyTables>>, Unavailable> {
        if !needs_tables(game) {
            return Ok(None);
        }
        if let Some(tables) = self.slot(id).built.get() {
            return Ok(Some(tables.clone()));
        }
        if decides_without_tables(game) {
            self.build_in_background(id);
            return Ok(None);
        }
        self.tables(id).await.map(Some)
    }

    /// The strategy's decision for `hand` as it stands (`None` when it awaits none).
    pub async fn advise(self: &Arc<Self>, hand: &Hand) -> Result<Option<Action>, Unavailable> {
        let tables = self
            .for_config(hand.config_id(), hand.config().game)
            .await?;
        advisor(tables.as_deref())
            .advise(hand)
            .map_err(|e| Unavailable::NoDecision(e.to_string()))
    }
}

/// The advisor reading `tables`, or deciding without them.
pub fn advisor(tables: Option<&StrategyTables>) -> Advisor<'_> {
    tables.map_or_else(Advisor::default, StrategyTables::advisor)
}

/// Builds a configuration's tables; with `yielding`, on a thread of its own whose scheduling
/// priority is lowered, so that the hands being played keep the cores while it runs. The lab's
/// refusal, or a build that panicked, as text.
fn build(config: Arc<GameConfig>, yielding: bool) -> Result<StrategyTables, String> {
    let build = |config: &GameConfig| {
        StrategyTables::build(config, pitboss_lab::threads()).map_err(|e| e.to_string())
    };
    if !yielding {
        return build(&config);
    }
    let kept = config.clone();
    let spawned = std::thread::Builder::new()
        .name("strategy-build".into())
        .spawn(move || {
            crate::priority::lower();
            build(&config)
        });
    match spawned {
        Ok(handle) => handle
            .join()
            .unwrap_or_else(|_| Err("the build panicked".to_string())),
        // No thread could be started: build on this one, at its priority.
        Err(_) => build(&kept),
    }
}
