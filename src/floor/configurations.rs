//! The configurations room: the published configurations, loaded from the log at start, the
//! defaults published when missing, and a new configuration's publication (checked whole first).
//!
//! Owns the registry of configurations; must not open or change hands.

use std::sync::{Arc, OnceLock, PoisonError};

use prost::Message;

use crate::codec::{self, EntryPayload};
use pitboss_engine::config::{ConfigError, ConfigId, GameConfig, Identified};
use pitboss_engine::game::GameId;
use pitboss_ledger::{AppendRequest, Expected};

use super::{index, requests, requests::Target, Floor, FloorError};

/// A published configuration as the floor keeps it: its id computed once (hands are dealt from
/// it), and whether new hands may open under it, judged at the first opening and kept (the
/// judgement depends only on the configuration and this release: [`Floor::playable`]).
pub(super) struct Kept {
    pub(super) identified: Identified,
    playable: OnceLock<Result<(), ConfigError>>,
}

impl Kept {
    /// [`Floor::playable`], judged once.
    pub(super) fn playable(&self) -> Result<(), ConfigError> {
        self.playable
            .get_or_init(|| Floor::playable(self.identified.config()))
            .clone()
    }
}

impl Floor {
    pub(super) fn load_configs(&self) -> Result<(), FloorError> {
        let mut from = Vec::new();
        loop {
            let page = self.ledger.index_page(index::CONFIG, &[], &from, 256)?;
            let Some((last, _)) = page.last().cloned() else {
                break;
            };
            for (_, sequence) in &page {
                let entry = self.ledger.entry(*sequence)?.ok_or_else(|| {
                    FloorError::Corrupt(format!("entry {sequence}"), "missing".into())
                })?;
                let payload = entry
                    .payload()
                    .map_err(|e| FloorError::Corrupt(format!("entry {sequence}"), e.to_string()))?;
                if let Some(config) = codec::payload_to_config(&payload)
                    .map_err(|e| FloorError::Corrupt(format!("entry {sequence}"), e.to_string()))?
                {
                    self.insert_config(config);
                }
            }
            from = last;
            from.push(0);
        }
        Ok(())
    }

    pub(super) fn insert_config(&self, config: GameConfig) -> ConfigId {
        self.insert_identified(Identified::new(Arc::new(config)))
    }

    fn insert_identified(&self, identified: Identified) -> ConfigId {
        let id = identified.id();
        self.configs
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(id)
            .or_insert_with(|| {
                Arc::new(Kept {
                    identified,
                    playable: OnceLock::new(),
                })
            });
        id
    }

    /// A published configuration. On a log other servers write too (PostgreSQL), one this
    /// server has not seen is looked for in the log (its stream, one read), so a hand opened
    /// elsewhere under a configuration published elsewhere is found here.
    pub fn config(&self, id: &ConfigId) -> Option<Arc<GameConfig>> {
        self.kept(id).map(|kept| kept.identified.config().clone())
    }

    /// [`Floor::config`], as the floor keeps it.
    pub(super) fn kept(&self, id: &ConfigId) -> Option<Arc<Kept>> {
        let known = self
            .configs
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned();
        if known.is_some() || !self.ledger.shared() {
            return known;
        }
        let entries = self.ledger.read_stream(&format!("config/{id}"), 0).ok()?;
        let payload = entries.first()?.payload().ok()?;
        let config = Identified::new(Arc::new(codec::payload_to_config(&payload).ok()??));
        if config.id() != *id {
            return None;
        }
        self.insert_identified(config);
        self.kept(id)
    }

    /// Every published configuration, by id.
    pub fn configs(&self) -> Vec<Arc<GameConfig>> {
        self.configs
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .map(|kept| kept.identified.config().clone())
            .collect()
    }

    /// The default configuration's id of a game.
    pub fn default_config(&self, game: GameId) -> Option<ConfigId> {
        self.defaults.get(&game).copied()
    }

    /// Publishes a configuration, checked: its structure, its bounds (every hand under it settles
    /// without overflow), the current rules version, and the lab's budget for its strategy tables.
    /// Returns its id and whether it was already published. With a request id, a retry returns
    /// the first answer; the id is bound when the publication writes (publishing a configuration
    /// already published writes nothing and binds nothing: it is idempotent by its content).
    pub async fn publish(
        &self,
        config: GameConfig,
        request_id: Option<&str>,
        actor: &str,
    ) -> Result<(ConfigId, bool), FloorError> {
        Floor::check_publishable(&config)?;
        let id = config.id();
        let stream = format!("config/{id}");
        let key = request_id.map(|r| requests::publish(r, &id, actor));
        if let Some(key) = &key {
            if let Some(first) = self.bound_record(key, &Target::Stream(stream.clone()))? {
                return Ok((id, first.appended.stream_version > 1));
            }
        }
        if self.config(&id).is_some() {
            return Ok((id, true));
        }
        let request = AppendRequest {
            request: key,
            indexes: vec![(index::CONFIG.to_string(), id.0.to_vec())],
            ..AppendRequest::entries(
                stream,
                Expected::Any,
                vec![codec::config_to_payload(&config).encode_to_vec()],
                self.now(),
                actor,
            )
        };
        let appended = self.ledger.append(request).await?;
        self.insert_config(config);
        Ok((id, appended.stream_version > 1))
    }

    /// What publishing a configuration checks (its structure, bounds, the current rules version,
    /// and that the lab can analyse it: strategy tables within budget, advice, PAR sheets), also
    /// before it is proposed.
    pub fn check_publishable(config: &GameConfig) -> Result<(), FloorError> {
        Ok(Floor::playable(config)?)
    }

    /// [`Floor::check_publishable`]'s checks, as the configuration's own error: a hand opens only
    /// under a configuration that passes them today (one recorded by an earlier release may not).
    pub(super) fn playable(config: &GameConfig) -> Result<(), ConfigError> {
        config.check_current()?;
        pitboss_lab::analysable::check(config, pitboss_lab::threads())
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{floor_in, log_size};
    use super::*;

    /// The defaults are published once, on the first start; a second start loads every
    /// configuration back from the log and writes nothing.
    #[tokio::test(flavor = "multi_thread")]
    async fn configurations_are_loaded_back_from_the_log_and_published_once() {
        let dir = tempfile::tempdir().unwrap();
        let (floor, _) = floor_in(dir.path()).await;
        let ids: Vec<ConfigId> = floor.configs().iter().map(|c| c.id()).collect();
        assert_eq!(ids.len(), 4, "one default per game");
        let size = log_size(&floor);
        assert!(size > 4, "the key's entry and one per default");
        floor.close_log();
        drop(floor);
        let (again, _) = floor_in(dir.path()).await;
        let loaded: Vec<ConfigId> = again.configs().iter().map(|c| c.id()).collect();
        assert_eq!(loaded, ids);
        assert_eq!(log_size(&again), size, "nothing published again");
        for game in [
            GameId::MississippiStud,
            GameId::FortunePaiGow,
            GameId::Nutz,
            GameId::CaribbeanStud,
        ] {
            let id = again.default_config(game).expect("a default");
            assert_eq!(again.config(&id).map(|c| c.game), Some(game));
        }
    }

    /// A configuration refused by its checks writes nothing; publishing one already published is
    /// answered without a second entry.
    #[tokio::test(flavor = "multi_thread")]
    async fn a_refused_configuration_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (floor, _) = floor_in(dir.path()).await;
        let size = log_size(&floor);
        let mut broken = GameConfig::default_for(GameId::Nutz);
        broken.incomplete_void_days = 0;
        let refused = floor.publish(broken, None, "tester").await;
        assert!(refused.is_err(), "{refused:?}");
        assert_eq!(log_size(&floor), size);
        let default = GameConfig::default_for(GameId::Nutz);
        let (id, _) = floor.publish(default, None, "tester").await.unwrap();
        assert_eq!(Some(id), floor.default_config(GameId::Nutz));
        assert_eq!(log_size(&floor), size, "already in the log");
    }
}
