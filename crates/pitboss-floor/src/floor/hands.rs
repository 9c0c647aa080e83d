//! The hands room: opening a hand (its seed drawn from the operating system, kept secret beside the
//! log until the hand ends), taking its decisions through the engine, one at a time per hand
//! (per-hand locks), and loading a hand from its stream (through the cache of hands in progress).
//!
//! Owns the per-hand locks and the cache; must not decide a rule itself (the engine does) nor touch
//! the ledger's storage but through its methods. Retries are answered by `retries.rs`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use prost::Message;

use crate::codec::{self, EntryPayload};
use pitboss_engine::config::ConfigId;
use pitboss_engine::game::GameId;
use pitboss_engine::games::{Action, Command, Event, Hand, OpenHand, Status, Timestamp};
use pitboss_engine::rng::Seed;
use pitboss_engine::settlement::Wager;
use pitboss_ledger::{AppendRequest, Appended, Expected, LedgerError, RequestKey};

use super::{
    actor_given, index, invalid, is_hand_id, requests,
    requests::{Method, Script, Target},
    Floor, FloorError,
};

/// A hand and its id, as an operation left it.
#[derive(Clone, Debug)]
pub struct HandSnapshot {
    /// The hand id.
    pub id: String,
    /// The hand.
    pub hand: Hand,
    /// True when the operation was a retry of an earlier request id and wrote nothing.
    pub duplicate: bool,
}

/// What opening a hand needs.
#[derive(Clone, Debug, Default)]
pub struct OpenRequest {
    /// Idempotency key.
    pub request_id: Option<String>,
    /// The game.
    pub game: Option<GameId>,
    /// A published configuration, or the game's default.
    pub config_id: Option<ConfigId>,
    /// Table reference.
    pub table: String,
    /// Player reference.
    pub player: String,
    /// Wagers placed before the deal.
    pub wagers: Vec<Wager>,
    /// Rebet of this earlier hand.
    pub rebet_of: Option<String>,
    /// Who opens it: the authenticated principal, recorded as the entries' actor.
    pub actor: String,
}

/// The prefix of every hand's stream name.
const HAND_STREAM: &str = "hand/";

/// The stream of a hand.
pub fn hand_stream(id: &str) -> String {
    format!("{HAND_STREAM}{id}")
}

/// The hand whose stream `stream` is (`None` for any other stream): [`hand_stream`] read back.
pub fn hand_of_stream(stream: &str) -> Option<&str> {
    stream.strip_prefix(HAND_STREAM)
}

/// A hand's place in the floor's per-hand locks; leaving it removes the hand's lock when nobody
/// else holds or waits for it, so the map holds only hands being worked on.
pub(super) struct HandLock<'a> {
    locks: &'a Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    hand_id: &'a str,
    pub(super) mutex: Arc<tokio::sync::Mutex<()>>,
}

impl Drop for HandLock<'_> {
    fn drop(&mut self) {
        let mut locks = self.locks.lock().unwrap_or_else(PoisonError::into_inner);
        // The map's reference and this one only: nobody else holds or waits for it (clones are
        // made under the map's lock, which is held here).
        if Arc::strong_count(&self.mutex) == 2
            && locks
                .get(self.hand_id)
                .is_some_and(|m| Arc::ptr_eq(m, &self.mutex))
        {
            locks.remove(self.hand_id);
        }
    }
}

impl Floor {
    /// The hand's place in the per-hand locks (its `mutex` serialises the hand's commands).
    pub(super) fn hand_lock<'a>(&'a self, hand_id: &'a str) -> HandLock<'a> {
        let mut locks = self.locks.lock().unwrap_or_else(PoisonError::into_inner);
        let mutex = locks.entry(hand_id.to_string()).or_default().clone();
        HandLock {
            locks: &self.locks,
            hand_id,
            mutex,
        }
    }

    /// How many hands have a lock now (those being worked on).
    pub fn hands_locked(&self) -> usize {
        self.locks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Loads a hand from the log (its first `upto` events, or all).
    pub fn load(&self, hand_id: &str, upto: Option<u64>) -> Result<Hand, FloorError> {
        if upto.is_none() {
            if let Some(hand) = self.cache.get(hand_id) {
                // Other servers may have moved the hand on a shared log: the cached state is
                // used only while the stream holds exactly what it was built from.
                if !self.ledger.shared()
                    || self.ledger.stream_version(&hand_stream(hand_id))? == hand.version()
                {
                    return Ok(hand);
                }
            }
        }
        let not_found = || FloorError::NotFound {
            what: "hand",
            id: hand_id.to_string(),
        };
        if hand_id.is_empty() || !hand_id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(not_found());
        }
        let entries = self.ledger.read_stream(&hand_stream(hand_id), 0)?;
        if entries.is_empty() {
            return Err(not_found());
        }
        let corrupt = |e: String| FloorError::Corrupt(format!("hand {hand_id}"), e);
        let mut events = Vec::new();
        for entry in &entries {
            let payload = entry.payload().map_err(|e| corrupt(e.to_string()))?;
            if let Some(event) =
                codec::payload_to_event(&payload).map_err(|e| corrupt(e.to_string()))?
            {
                events.push(event);
            }
        }
        let Some(pitboss_engine::games::Event::Opened(opened)) = events.first() else {
            return Err(corrupt("the first event is not the opening".into()));
        };
        let config = self
            .kept(&opened.config_id)
            .ok_or_else(|| corrupt(format!("unknown configuration {}", opened.config_id)))?;
        let seed = self.seed_of(hand_id)?;
        let mut hand = Hand::new(seed, config.identified.clone());
        let limit = upto.map_or(events.len(), |u| (u as usize).min(events.len()));
        for event in &events[..limit] {
            hand = hand.evolve(event).map_err(|e| corrupt(e.to_string()))?;
        }
        if upto.is_none() {
            self.cache.put(hand_id, &hand);
        }
        Ok(hand)
    }

    pub(super) fn seed_of(&self, hand_id: &str) -> Result<Seed, FloorError> {
        let bytes = self.ledger.secret(hand_id.as_bytes())?.ok_or_else(|| {
            FloorError::Corrupt(format!("hand {hand_id}"), "its seed is missing".into())
        })?;
        Seed::from_slice(&bytes)
            .map_err(|e| FloorError::Corrupt(format!("hand {hand_id}"), e.to_string()))
    }

    /// Opens a hand.
    pub async fn open_hand(&self, request: OpenRequest) -> Result<HandSnapshot, FloorError> {
        self.open_and_play(request, Method::OpenHand, &Script::default(), |_| Ok(None))
            .await
    }

    /// Opens a hand and plays its `script` at once, recording everything in one append: the listed
    /// decisions in order, then, with `follow_advice`, what `advise` answers for the hand as it
    /// stands (`None`: stop), until the hand ends. A refused decision refuses the whole request and
    /// records nothing. (A laboratory playing complete hands by the million, or a client replaying
    /// a script, needs one call per hand, not one per decision.)
    pub async fn play_hand(
        &self,
        request: OpenRequest,
        script: &Script,
        advise: impl Fn(&Hand) -> Result<Option<Action>, FloorError>,
    ) -> Result<HandSnapshot, FloorError> {
        self.open_and_play(request, Method::PlayHand, script, advise)
            .await
    }

    pub(super) async fn open_and_play(
        &self,
        request: OpenRequest,
        method: Method,
        script: &Script,
        advise: impl Fn(&Hand) -> Result<Option<Action>, FloorError>,
    ) -> Result<HandSnapshot, FloorError> {
        let (game, config_id, config) = self.opening_config(&request)?;
        let key = requests::open(method, &request, script);
        if let Some(key) = &key {
            if let Some(first) = self.answered(key, &Target::NewHand)? {
                return Ok(first);
            }
        }
        self.opens_under(config_id, &config)?;
        // A one-player hand is dealt from the server's seed alone: a configuration whose deal seed
        // is mixed (docs/rng.md §1a) is played as rounds only.
        if !config.identified.config().seed_sources.is_off() {
            return Err(FloorError::ConfigNotPlayable {
                id: config_id,
                problem: pitboss_engine::config::ConfigError::Field {
                    field: "seed_sources".into(),
                    problem: "its deal seed is mixed from players' seeds or a beacon, which a one-player hand does not take: play it as a round (Play.OpenRound)".into(),
                },
            });
        }
        let wagers = self.wagers_of(&request, game)?;
        let (hand_id, seed) = fresh_hand()?;
        let at = self.now();
        let mut hand = Hand::new(seed, config.identified.clone());
        let mut events = hand.decide(&Command::Open(OpenHand {
            table: request.table.clone(),
            player: request.player.clone(),
            wagers,
            at: Timestamp(at),
            rebet_of: request.rebet_of.clone(),
        }))?;
        for event in &events {
            hand = hand.evolve(event)?;
        }
        let hand = play_script(hand, at, script, advise, &mut events)?;
        let mut indexes = index::for_opened_hand(&hand_id, &request.table, &request.player, at);
        if hand.status() != Status::InProgress {
            // Ended in the same append: never in the index of open hands.
            let open = index::open_hand_entry(&hand_id, at);
            indexes.retain(|entry| *entry != open);
        }
        let appended = self
            .ledger
            .append(AppendRequest {
                stream: hand_stream(&hand_id),
                expected: Expected::Version(0),
                payloads: events
                    .iter()
                    .map(|e| codec::event_to_payload(e).encode_to_vec())
                    .collect(),
                request: key.clone(),
                indexes,
                secrets: vec![(hand_id.as_bytes().to_vec(), seed.as_bytes().to_vec())],
                unindex: Vec::new(),
                recorded_at_ms: at,
                actor: request.actor.clone(),
            })
            .await?;
        if appended.duplicate {
            // Another call with the same id and request was first (it was in flight when this one
            // checked): answer with that hand, from the log; this one's hand never existed.
            return self.answered_after_append(key.as_ref(), &Target::NewHand);
        }
        self.tally.record(game, &events);
        self.cache_put(&hand_id, &hand);
        Ok(HandSnapshot {
            id: hand_id,
            hand,
            duplicate: false,
        })
    }

    /// An opening's game and configuration, its table and player checked: the configuration named,
    /// or the game's default, which must be of that game.
    fn opening_config(
        &self,
        request: &OpenRequest,
    ) -> Result<(GameId, ConfigId, Arc<super::configurations::Kept>), FloorError> {
        let game = request.game.ok_or_else(|| invalid("game", "required"))?;
        actor_given(&request.actor)?;
        if request.table.trim().is_empty() {
            return Err(invalid("table", "required"));
        }
        if request.player.trim().is_empty() {
            return Err(invalid("player", "required"));
        }
        for (field, value) in [("table", &request.table), ("player", &request.player)] {
            super::name_within(field, value)?;
        }
        let (config_id, config) = self.opening_under(game, request.config_id)?;
        Ok((game, config_id, config))
    }

    /// The configuration a new hand or round of `game` opens under: the one named, or the game's
    /// default, which must be of that game.
    pub(super) fn opening_under(
        &self,
        game: GameId,
        config_id: Option<ConfigId>,
    ) -> Result<(ConfigId, Arc<super::configurations::Kept>), FloorError> {
        let config_id = match config_id {
            Some(id) => id,
            None => self
                .default_config(game)
                .ok_or_else(|| invalid("game", "no default configuration"))?,
        };
        let config = self.kept(&config_id).ok_or_else(|| FloorError::NotFound {
            what: "configuration",
            id: config_id.to_string(),
        })?;
        let of = config.identified.config().game;
        if of != game {
            return Err(invalid(
                "config_id",
                format!("configuration {config_id} is for {of}, not {game}"),
            ));
        }
        Ok((config_id, config))
    }

    /// Refuses to open anything new under a configuration that opens nothing new here.
    /// Recorded by an earlier release, a configuration may be of a retired rules version, or
    /// outside today's bounds, or one the lab cannot analyse: its hands replay, but no new one
    /// opens under it; and a server that requires certification opens only under a configuration
    /// whose latest report holds.
    pub(super) fn opens_under(
        &self,
        config_id: ConfigId,
        config: &super::configurations::Kept,
    ) -> Result<(), FloorError> {
        config
            .playable()
            .map_err(|problem| FloorError::ConfigNotPlayable {
                id: config_id,
                problem,
            })?;
        if self.certification_required {
            self.check_certified(config_id, config)?;
        }
        Ok(())
    }

    /// The opening's wagers: as asked, or for a rebet with none, the earlier hand's (which must be
    /// the same player's, at the same game).
    fn wagers_of(&self, request: &OpenRequest, game: GameId) -> Result<Vec<Wager>, FloorError> {
        let mut wagers = request.wagers.clone();
        if let Some(earlier) = &request.rebet_of {
            if !is_hand_id(earlier) {
                return Err(invalid("rebet_of", format!("hand {earlier} not found")));
            }
            let before = self.load(earlier, None).map_err(|e| match e {
                FloorError::NotFound { .. } => {
                    invalid("rebet_of", format!("hand {earlier} not found"))
                }
                other => other,
            })?;
            let opened = before
                .opened()
                .ok_or_else(|| invalid("rebet_of", "not an opened hand"))?;
            if opened.player != request.player || before.game() != game {
                return Err(invalid(
                    "rebet_of",
                    "a rebet repeats an earlier hand of the same player and game",
                ));
            }
            if wagers.is_empty() {
                wagers = opened.wagers.clone();
            }
        }
        Ok(wagers)
    }

    pub(super) fn cache_put(&self, id: &str, hand: &Hand) {
        self.cache.put(id, hand);
    }

    /// How many hands in progress are kept in memory (at most 10 000, the cache's capacity).
    pub fn hands_cached(&self) -> usize {
        self.cache.len()
    }

    /// Applies a decision or a void to a hand, records it, and returns the hand after it. A
    /// request id already used answers with its first result (read from the log) before anything
    /// else is checked. The command is made from the hand as it stands under the hand's lock (so
    /// that a time taken from the clock is never earlier than the hand's last event).
    ///
    /// On a log other servers write too, a hand kept in memory may be behind the log. It is used as
    /// it stands, without asking the database first: the append names the version it was decided
    /// on, so a hand another server moved is refused there and nothing is written; the hand is then
    /// read from the log and the command made and decided again, once. A client's expected version
    /// that differs from the kept hand's, and a command the kept hand refuses, are judged against
    /// the log the same way.
    pub(super) async fn command(
        &self,
        hand_id: &str,
        command: impl Fn(&Hand) -> Result<Command, FloorError>,
        request: Option<RequestKey>,
        expected_version: Option<u64>,
        actor: &str,
    ) -> Result<HandSnapshot, FloorError> {
        if !is_hand_id(hand_id) {
            return Err(FloorError::NotFound {
                what: "hand",
                id: hand_id.to_string(),
            });
        }
        actor_given(actor)?;
        let place = self.hand_lock(hand_id);
        let _guard = place.mutex.lock().await;
        let target = Target::OnHand(hand_stream(hand_id));
        if let Some(key) = &request {
            if let Some(first) = self.answered(key, &target)? {
                return Ok(first);
            }
        }
        // `checked`: the hand is known to be what the log holds (read from it, or the log is this
        // server's alone).
        let kept = if self.ledger.shared() {
            self.cache.get(hand_id)
        } else {
            None
        };
        let mut checked = kept.is_none();
        let mut hand = match kept {
            Some(hand) => hand,
            None => self.load(hand_id, None)?,
        };
        loop {
            if let Some(expected) = expected_version {
                if expected != hand.version() {
                    if !checked {
                        hand = self.load(hand_id, None)?;
                        checked = true;
                        continue;
                    }
                    return Err(FloorError::Conflict {
                        hand: hand_id.to_string(),
                        expected,
                        actual: hand.version(),
                    });
                }
            }
            let decided = command(&hand).and_then(|c| Ok(hand.decide(&c)?));
            let events = match decided {
                Ok(events) => events,
                // Refused on a kept hand that may be behind the log: judged on the log's.
                Err(_) if !checked => {
                    hand = self.load(hand_id, None)?;
                    checked = true;
                    continue;
                }
                Err(refused) => return Err(refused),
            };
            // A hand that ends leaves the index of open hands (the 30-day sweep reads only that).
            let ends = events.iter().any(|e| {
                matches!(
                    e,
                    pitboss_engine::games::Event::Settled(_)
                        | pitboss_engine::games::Event::Voided(_)
                )
            });
            let unindex = match hand.opened() {
                Some(opened) if ends && hand.status() == Status::InProgress => {
                    vec![index::open_hand_entry(hand_id, opened.at.0)]
                }
                _ => Vec::new(),
            };
            let appended = self
                .ledger
                .append(AppendRequest {
                    stream: hand_stream(hand_id),
                    expected: Expected::Version(hand.version()),
                    payloads: events
                        .iter()
                        .map(|e| codec::event_to_payload(e).encode_to_vec())
                        .collect(),
                    request: request.clone(),
                    indexes: Vec::new(),
                    secrets: Vec::new(),
                    unindex,
                    recorded_at_ms: self.now(),
                    actor: actor.to_string(),
                })
                .await;
            let appended: Appended = match appended {
                // Another server moved the hand since it was kept: decide again on the log's.
                Err(LedgerError::VersionConflict { .. }) if !checked => {
                    hand = self.load(hand_id, None)?;
                    checked = true;
                    continue;
                }
                Err(LedgerError::VersionConflict {
                    expected, actual, ..
                }) => {
                    return Err(FloorError::Conflict {
                        hand: hand_id.to_string(),
                        expected,
                        actual,
                    })
                }
                Err(other) => return Err(FloorError::from(other)),
                Ok(appended) => appended,
            };
            if appended.duplicate {
                // The same request was recorded first (in flight when this one checked): its
                // answer, from the log; nothing of this one is kept or cached.
                return self.answered_after_append(request.as_ref(), &target);
            }
            self.tally.record(hand.game(), &events);
            for event in &events {
                hand = hand.evolve(event)?;
            }
            debug_assert_eq!(hand.version(), appended.stream_version);
            self.cache_put(hand_id, &hand);
            return Ok(HandSnapshot {
                id: hand_id.to_string(),
                hand,
                duplicate: false,
            });
        }
    }

    /// A decision. With a request id, a retry returns the first answer.
    pub async fn act(
        &self,
        hand_id: &str,
        action: pitboss_engine::games::Action,
        request_id: Option<String>,
        expected_version: Option<u64>,
        actor: &str,
    ) -> Result<HandSnapshot, FloorError> {
        let key =
            request_id.map(|id| requests::act(&id, hand_id, &action, expected_version, actor));
        let command = |hand: &Hand| {
            Ok(Command::Act {
                action,
                at: self.now_for(hand),
            })
        };
        self.command(hand_id, command, key, expected_version, actor)
            .await
    }

    /// Now by the floor's clock, but never before the hand's last recorded event (a clock stepped
    /// back must not make a command look backdated).
    pub(super) fn now_for(&self, hand: &Hand) -> Timestamp {
        Timestamp(self.now()).max(hand.last_at())
    }
}

/// A new hand's id (16 random bytes, hex) and seed (32), from the operating system.
/// A new hand's or round's id and seed, from the operating system.
pub(super) fn fresh_hand() -> Result<(String, Seed), FloorError> {
    let mut id_bytes = [0u8; 16];
    let mut seed = [0u8; 32];
    getrandom::fill(&mut id_bytes)
        .and_then(|()| getrandom::fill(&mut seed))
        .map_err(FloorError::Randomness)?;
    let hand_id = hex::encode(id_bytes);
    let seed = Seed::from_bytes(seed);
    Ok((hand_id, seed))
}

/// Plays `script` on the opened `hand` (recorded at `at`): its decisions in order, then, with
/// `follow_advice`, what `advise` answers, until the hand ends; the events are added to `events`.
/// A refused decision refuses the whole script, naming it; decisions left over after the hand
/// ended are refused too.
fn play_script(
    mut hand: Hand,
    at: u64,
    script: &Script,
    advise: impl Fn(&Hand) -> Result<Option<Action>, FloorError>,
    events: &mut Vec<Event>,
) -> Result<Hand, FloorError> {
    let next = |hand: &Hand, n: usize| match script.decisions.get(n) {
        Some(action) => Ok(Some(*action)),
        None if script.follow_advice => advise(hand),
        None => Ok(None),
    };
    let mut index = 0;
    while hand.status() == Status::InProgress {
        let Some(action) = next(&hand, index)? else {
            break;
        };
        let more = hand
            .decide(&Command::Act {
                action,
                at: Timestamp(at),
            })
            .map_err(|source| FloorError::Decision { index, source })?;
        for event in &more {
            hand = hand.evolve(event)?;
        }
        events.extend(more);
        index += 1;
    }
    if index < script.decisions.len() {
        return Err(FloorError::Script {
            field: format!("decisions[{index}]"),
            problem: "the hand has already ended".into(),
        });
    }
    Ok(hand)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{floor_in, log_size, mississippi};
    use super::super::HAND_ID_LEN;
    use super::*;
    use pitboss_engine::games::Action;

    /// A hand opens, takes a decision under its lock, and leaves no lock behind; its seed stays
    /// beside the log until the hand ends, and a reload from the log is the same hand.
    #[tokio::test(flavor = "multi_thread")]
    async fn a_hand_opens_and_acts_and_reloads_from_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let (floor, _) = floor_in(dir.path()).await;
        let opened = floor
            .open_hand(mississippi("T1", "P1", None))
            .await
            .unwrap();
        assert!(is_hand_id(&opened.id));
        assert!(!opened.duplicate);
        let acted = floor
            .act(
                &opened.id,
                Action::Bet { multiple: 1 },
                None,
                None,
                "tester",
            )
            .await
            .unwrap();
        assert_eq!(
            acted.hand.version(),
            opened.hand.version() + 2,
            "the bet and the card it shows"
        );
        assert_eq!(floor.hands_locked(), 0);
        assert!(
            floor.seed_of(&opened.id).is_ok(),
            "the seed is kept beside the log"
        );
        let reloaded = floor.load(&opened.id, None).unwrap();
        // The whole state, as it prints (`Hand` has no equality of its own).
        assert_eq!(format!("{reloaded:?}"), format!("{:?}", acted.hand));
        let unknown = floor.load(&"0".repeat(HAND_ID_LEN), None);
        assert!(
            matches!(unknown, Err(FloorError::NotFound { .. })),
            "{unknown:?}"
        );
        assert!(log_size(&floor) > 0);
    }
}
