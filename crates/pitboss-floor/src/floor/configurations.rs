//! The configurations room: the published configurations, loaded from the log at start, the
//! defaults published when missing, a new configuration's publication (checked whole first), and
//! their listing with each one's latest certification.
//!
//! Owns the registry of configurations; must not open or change hands.

use std::ops::Bound;
use std::sync::{Arc, OnceLock, PoisonError};

use prost::Message;

use crate::codec::{self, EntryPayload};
use pitboss_engine::config::{ConfigError, ConfigId, GameConfig, Identified};
use pitboss_engine::game::GameId;
use pitboss_ledger::{AppendRequest, Expected};

use super::certifications::{stream_of, Certified};
use super::{index, requests, requests::Target, Floor, FloorError};

/// At most how many configurations one page of [`Floor::config_page`] looks at: each look reads
/// the log (the configuration's certifications), so a page that filters may hold fewer than its
/// size rather than read without end.
pub const LOOKED_AT_MOST: usize = 1_000;

/// A configuration as a listing shows it.
pub struct Listed {
    pub id: ConfigId,
    pub config: Arc<GameConfig>,
    /// Its latest certification report, if the log holds one.
    pub certification: Option<Certified>,
}

/// One page of a listing of the configurations.
pub struct ConfigPage {
    pub configs: Vec<Listed>,
    /// The last configuration looked at, when some remain after it: where the next page starts.
    pub next: Option<ConfigId>,
}

/// A published configuration as the floor keeps it: its id computed once (hands are dealt from
/// it), and whether new hands may open under it, judged at the first opening and kept (the
/// judgement depends only on the configuration and this release: [`Floor::playable`]).
pub(super) struct Kept {
    pub(super) identified: Identified,
    playable: OnceLock<Result<(), ConfigError>>,
    /// Its certification as last read, when the server requires one (read again when its
    /// stream's version has moved).
    pub(super) certification: std::sync::Mutex<Option<Seen>>,
}

impl Kept {
    /// [`Floor::playable`], judged once.
    pub(super) fn playable(&self) -> Result<(), ConfigError> {
        self.playable
            .get_or_init(|| Floor::playable(self.identified.config()))
            .clone()
    }
}

/// A configuration's certification as the check at opening last read it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Seen {
    /// The version of its certifications' stream then.
    version: u64,
    /// The latest report's sequence and verdict (`None`: no report).
    latest: Option<(u64, bool)>,
}

impl Floor {
    pub(super) fn load_configs(&self) -> Result<(), FloorError> {
        let mut from = Vec::new();
        loop {
            let page = self.ledger.index_page(index::CONFIG, &[], &from, 256)?;
            let Some((last, _)) = page.last().cloned() else {
                break;
            };
            for (key, sequence) in &page {
                if self.is_kept(key) {
                    continue;
                }
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

    /// Whether the configuration whose id is `key` is kept already.
    fn is_kept(&self, key: &[u8]) -> bool {
        <[u8; 32]>::try_from(key).is_ok_and(|id| {
            self.configs
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .contains_key(&ConfigId(id))
        })
    }

    /// The published configurations after `after`, in the order of their ids, each with its
    /// latest certification: at most `size` (at least one); with `uncertified_only`, only those
    /// without a holding certification (none recorded, or the latest fails), looking at no more
    /// than [`LOOKED_AT_MOST`]. Where others write the log, the configurations it holds but this
    /// server has not kept — published through other servers sharing it, or copied since a
    /// mirror started — are learned first (the index of configurations read whole, and the entry
    /// of each one not kept).
    pub fn config_page(
        &self,
        game: Option<GameId>,
        after: Option<ConfigId>,
        size: usize,
        uncertified_only: bool,
    ) -> Result<ConfigPage, FloorError> {
        self.listed(game, after, size, uncertified_only, LOOKED_AT_MOST)
    }

    /// [`Floor::config_page`], looking at no more than `looked_at_most` configurations.
    fn listed(
        &self,
        game: Option<GameId>,
        after: Option<ConfigId>,
        size: usize,
        uncertified_only: bool,
        looked_at_most: usize,
    ) -> Result<ConfigPage, FloorError> {
        // What the log holds now, not only what was kept at start, wherever others write it:
        // configurations published through other servers sharing the log, or copied since a
        // mirror started.
        if self.ledger.shared() {
            self.load_configs()?;
        }
        let candidates: Vec<(ConfigId, Arc<GameConfig>)> = {
            let configs = self.configs.read().unwrap_or_else(PoisonError::into_inner);
            let from = after.map_or(Bound::Unbounded, Bound::Excluded);
            configs
                .range((from, Bound::Unbounded))
                .map(|(id, kept)| (*id, kept.identified.config().clone()))
                .filter(|(_, config)| game.is_none_or(|g| config.game == g))
                .collect()
        };
        let mut candidates = candidates.into_iter().peekable();
        let (mut configs, mut looked, mut last) = (Vec::new(), 0, None);
        while configs.len() < size.max(1) && looked < looked_at_most {
            let Some((id, config)) = candidates.next() else {
                break;
            };
            looked += 1;
            last = Some(id);
            let certification = self.certification(&id)?;
            if uncertified_only && certification.as_ref().is_some_and(|c| c.report.holds) {
                continue;
            }
            configs.push(Listed {
                id,
                config,
                certification,
            });
        }
        let next = last.filter(|_| candidates.peek().is_some());
        Ok(ConfigPage { configs, next })
    }

    /// Whether a hand may open under `kept` (id `id`) on a server that requires certification
    /// (`[certification] required`): its latest report must hold. One read of the log per
    /// opening (its certifications' version); the report is read again only when one was
    /// recorded since, through whichever server.
    pub(super) fn check_certified(&self, id: ConfigId, kept: &Kept) -> Result<(), FloorError> {
        let version = self.ledger.stream_version(&stream_of(&id.0))?;
        let seen = *kept
            .certification
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let latest = match seen {
            Some(seen) if seen.version == version => seen.latest,
            _ => {
                let certified = self.certification(&id)?;
                let read = Seen {
                    version: certified.as_ref().map_or(0, |c| c.reports),
                    latest: certified.map(|c| (c.sequence, c.report.holds)),
                };
                *kept
                    .certification
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(read);
                read.latest
            }
        };
        match latest {
            Some((_, true)) => Ok(()),
            latest => Err(FloorError::NotCertified {
                id,
                latest: latest.map(|(sequence, _)| sequence),
            }),
        }
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
                    certification: std::sync::Mutex::new(None),
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
    use super::super::testing::{floor_in, floor_on, log_size};
    use super::*;

    /// The defaults are published once, on the first start; a second start loads every
    /// configuration back from the log and writes nothing.
    #[tokio::test(flavor = "multi_thread")]
    async fn configurations_are_loaded_back_from_the_log_and_published_once() {
        let dir = tempfile::tempdir().unwrap();
        let log = pitboss_ledger::mem::MemoryLog::new();
        let (floor, _) = floor_on(&log, dir.path()).await;
        let ids: Vec<ConfigId> = floor.configs().iter().map(|c| c.id()).collect();
        assert_eq!(ids.len(), 4, "one default per game");
        let size = log_size(&floor);
        assert!(size > 4, "the key's entry and one per default");
        floor.close_log();
        drop(floor);
        let (again, _) = floor_on(&log, dir.path()).await;
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

    /// A listing shows each configuration's latest certification report (a later one replaces an
    /// earlier, whatever their verdicts); the uncertified are those with none or whose latest
    /// fails; a page looks at no more configurations than its bound, says where the next starts,
    /// and the pages together list each uncertified configuration once, in order.
    #[tokio::test(flavor = "multi_thread")]
    async fn a_listing_shows_the_latest_certification_and_pages_the_uncertified() {
        let dir = tempfile::tempdir().unwrap();
        let (floor, _) = floor_in(dir.path()).await;
        let mut ids: Vec<ConfigId> = floor.configs().iter().map(|c| c.id()).collect();
        ids.sort();
        let report = |id: &ConfigId, holds| crate::proto::CertificationRecorded {
            config_id: id.0.to_vec(),
            report_sha256: vec![7; 32],
            holds,
            hands: 10_000,
            ..Default::default()
        };
        let held = floor
            .record_certification(report(&ids[0], true), "lab")
            .await
            .unwrap();
        floor
            .record_certification(report(&ids[1], true), "lab")
            .await
            .unwrap();
        let failed = floor
            .record_certification(report(&ids[1], false), "auditor")
            .await
            .unwrap();

        let all = floor.config_page(None, None, 100, false).unwrap();
        assert_eq!(all.configs.iter().map(|l| l.id).collect::<Vec<_>>(), ids);
        assert!(all.next.is_none());
        let status = |i: usize| {
            all.configs[i].certification.as_ref().map(|c| {
                (
                    c.sequence,
                    c.report.holds,
                    c.reports,
                    c.recorded_by.as_str(),
                )
            })
        };
        assert_eq!(status(0), Some((held, true, 1, "lab")));
        assert_eq!(status(1), Some((failed, false, 2, "auditor")));
        assert_eq!((status(2), status(3)), (None, None));

        // One configuration a page, two looks a page at most: the pages walk past the certified
        // one and list the three others.
        let (mut seen, mut after, mut pages) = (Vec::new(), None, 0);
        loop {
            let page = floor.listed(None, after, 1, true, 2).unwrap();
            assert!(page.configs.len() <= 1);
            seen.extend(page.configs.iter().map(|l| l.id));
            pages += 1;
            assert!(pages <= ids.len(), "the pages end");
            match page.next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        assert_eq!(seen, ids[1..].to_vec());
        // A bound of one look: the first page looks at the certified configuration only, lists
        // nothing, and the next page starts after it.
        let first = floor.listed(None, None, 5, true, 1).unwrap();
        assert!(first.configs.is_empty());
        assert_eq!(first.next, Some(ids[0]));
        // The bound met at the last configuration: nothing remains, no next page.
        let last = floor.listed(None, Some(ids[1]), 5, true, 2).unwrap();
        assert_eq!(
            last.configs.iter().map(|l| l.id).collect::<Vec<_>>(),
            ids[2..].to_vec()
        );
        assert!(last.next.is_none());
        // By game: one default each.
        let nutz = floor
            .config_page(Some(GameId::Nutz), None, 100, false)
            .unwrap();
        assert_eq!(
            nutz.configs.iter().map(|l| l.id).collect::<Vec<_>>(),
            vec![floor.default_config(GameId::Nutz).unwrap()]
        );
    }
}
