//! The `--config FILE` option of the lab commands: a configuration from a JSON file, or the game's
//! default, checked to be for the game asked.

use std::path::Path;

use anyhow::{bail, Context};

use pitboss_engine::config::GameConfig;
use pitboss_engine::game::GameId;

/// The configuration in `path`, or `game`'s default.
pub fn load(path: Option<&Path>, game: GameId) -> anyhow::Result<GameConfig> {
    let config = match path {
        Some(path) => GameConfig::from_json(
            &std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?,
        )?,
        None => GameConfig::default_for(game),
    };
    if config.game != game {
        bail!("the configuration is for {}, not {game}", config.game);
    }
    config.check_limits()?;
    Ok(config)
}
