//! The floor: where hands are played. It joins the engine (the rules) and the ledger (the evidence):
//! draws each hand's seed from the operating system, decides commands with the engine, records the
//! events (with the seed kept secret beside the log until the hand ends), and answers with the
//! hand's state. It also keeps the published configurations and the recall indexes.
//!
//! It decides nothing itself (the engine does) and stores nothing itself (the ledger does); it holds
//! no protobuf service code (the service layer does).

mod index;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, RwLock};

use prost::Message;

use crate::codec;
use crate::engine::config::{ConfigId, GameConfig};
use crate::engine::game::GameId;
use crate::engine::games::{
    Action, Command, Hand, OpenHand, RuleError, Status, Timestamp, VoidKind, VoidOrder,
};
use crate::engine::rng::Seed;
use crate::engine::settlement::Wager;
use crate::ledger::store::cf;
use crate::ledger::{AppendRequest, Appended, Expected, Ledger, LedgerError};
use crate::proto;

pub use index::{HandFilter, HandSummary, Page};

/// Why a floor operation failed. Nothing was recorded.
#[derive(Debug, thiserror::Error)]
pub enum FloorError {
    #[error("{what} `{id}` not found")]
    NotFound { what: &'static str, id: String },
    #[error("{field}: {problem}")]
    Invalid { field: String, problem: String },
    #[error(transparent)]
    Rule(#[from] RuleError),
    #[error("decisions[{index}]: {source}")]
    Decision { index: usize, source: RuleError },
    #[error("hand {hand} is at version {actual}, not the expected {expected}")]
    Conflict {
        hand: String,
        expected: u64,
        actual: u64,
    },
    #[error(transparent)]
    Ledger(LedgerError),
    #[error("the record of {0} is damaged: {1}")]
    Corrupt(String, String),
}

impl From<LedgerError> for FloorError {
    fn from(e: LedgerError) -> FloorError {
        FloorError::Ledger(e)
    }
}

fn invalid(field: &str, problem: impl Into<String>) -> FloorError {
    FloorError::Invalid {
        field: field.to_string(),
        problem: problem.into(),
    }
}

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
}

/// The result of an operation over many hands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperationResult {
    /// Hands voided.
    pub voided: Vec<String>,
    /// Hands in range already voided (table malfunction).
    pub skipped: Vec<String>,
    /// True when this is the recorded result of an earlier request with the same id.
    pub duplicate: bool,
}

/// The stream of a hand.
pub fn hand_stream(id: &str) -> String {
    format!("hand/{id}")
}

/// The floor.
pub struct Floor {
    ledger: Arc<Ledger>,
    configs: RwLock<BTreeMap<ConfigId, Arc<GameConfig>>>,
    defaults: HashMap<GameId, ConfigId>,
    locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    cache: Mutex<HashMap<String, Hand>>,
    clock: Arc<dyn Fn() -> u64 + Send + Sync>,
}

/// Milliseconds since the Unix epoch from the system clock.
pub fn system_clock() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl Floor {
    /// Opens the floor on a ledger: loads the published configurations and publishes the default
    /// ones that are not yet in the log.
    pub async fn open(
        ledger: Arc<Ledger>,
        clock: Arc<dyn Fn() -> u64 + Send + Sync>,
    ) -> Result<Floor, FloorError> {
        let mut floor = Floor {
            ledger,
            configs: RwLock::new(BTreeMap::new()),
            defaults: HashMap::new(),
            locks: Mutex::new(HashMap::new()),
            cache: Mutex::new(HashMap::new()),
            clock,
        };
        floor.load_configs()?;
        for game in GameId::ALL {
            let config = GameConfig::default_for(game);
            let (id, _) = floor.publish(config).await?;
            floor.defaults.insert(game, id);
        }
        Ok(floor)
    }

    /// The ledger.
    pub fn ledger(&self) -> &Arc<Ledger> {
        &self.ledger
    }

    /// Now, by the floor's clock.
    pub fn now(&self) -> u64 {
        (self.clock)()
    }

    fn load_configs(&self) -> Result<(), FloorError> {
        let store = self.ledger.store();
        let mut from = Vec::new();
        loop {
            let page = store
                .index_scan(index::CONFIG, &[], &from, 256)
                .map_err(|e| FloorError::Ledger(e.into()))?;
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

    fn insert_config(&self, config: GameConfig) -> ConfigId {
        let id = config.id();
        if let Ok(mut configs) = self.configs.write() {
            configs.insert(id, Arc::new(config));
        }
        id
    }

    /// A published configuration.
    pub fn config(&self, id: &ConfigId) -> Option<Arc<GameConfig>> {
        self.configs.read().ok()?.get(id).cloned()
    }

    /// Every published configuration, by id.
    pub fn configs(&self) -> Vec<Arc<GameConfig>> {
        self.configs
            .read()
            .map(|c| c.values().cloned().collect())
            .unwrap_or_default()
    }

    /// The default configuration's id of a game.
    pub fn default_config(&self, game: GameId) -> Option<ConfigId> {
        self.defaults.get(&game).copied()
    }

    /// Publishes a configuration (checked); returns its id and whether it was already published.
    pub async fn publish(&self, config: GameConfig) -> Result<(ConfigId, bool), FloorError> {
        config
            .validate()
            .map_err(|e| invalid("config_json", e.to_string()))?;
        let id = config.id();
        if self.config(&id).is_some() {
            return Ok((id, true));
        }
        let request = AppendRequest {
            stream: format!("config/{id}"),
            expected: Expected::Any,
            payloads: vec![codec::config_to_payload(&config).encode_to_vec()],
            request_id: None,
            indexes: vec![(index::CONFIG.to_string(), id.0.to_vec())],
            secrets: Vec::new(),
            unindex: Vec::new(),
            recorded_at_ms: self.now(),
        };
        let appended = self.ledger.append(request).await?;
        self.insert_config(config);
        Ok((id, appended.stream_version > 1))
    }

    fn lock(&self, hand_id: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self.locks.lock().unwrap_or_else(|e| e.into_inner());
        locks.entry(hand_id.to_string()).or_default().clone()
    }

    /// Loads a hand from the log (its first `upto` events, or all).
    pub fn load(&self, hand_id: &str, upto: Option<u64>) -> Result<Hand, FloorError> {
        if upto.is_none() {
            if let Some(hand) = self.cache.lock().ok().and_then(|c| c.get(hand_id).cloned()) {
                return Ok(hand);
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
        let Some(crate::engine::games::Event::Opened(opened)) = events.first() else {
            return Err(corrupt("the first event is not the opening".into()));
        };
        let config = self
            .config(&opened.config_id)
            .ok_or_else(|| corrupt(format!("unknown configuration {}", opened.config_id)))?;
        let seed = self.seed_of(hand_id)?;
        let mut hand = Hand::new(seed, config);
        let limit = upto.map_or(events.len(), |u| (u as usize).min(events.len()));
        for event in &events[..limit] {
            hand = hand.evolve(event).map_err(|e| corrupt(e.to_string()))?;
        }
        if upto.is_none() {
            if let Ok(mut cache) = self.cache.lock() {
                if cache.len() > 100_000 {
                    cache.clear();
                }
                cache.insert(hand_id.to_string(), hand.clone());
            }
        }
        Ok(hand)
    }

    fn seed_of(&self, hand_id: &str) -> Result<Seed, FloorError> {
        let bytes = self
            .ledger
            .store()
            .get(cf::SECRETS, hand_id.as_bytes())
            .map_err(|e| FloorError::Ledger(e.into()))?
            .ok_or_else(|| {
                FloorError::Corrupt(format!("hand {hand_id}"), "its seed is missing".into())
            })?;
        Seed::from_slice(&bytes)
            .map_err(|e| FloorError::Corrupt(format!("hand {hand_id}"), e.to_string()))
    }

    /// Opens a hand.
    pub async fn open_hand(&self, request: OpenRequest) -> Result<HandSnapshot, FloorError> {
        self.open_and_play(request, |_, _| Ok(None)).await
    }

    /// Opens a hand and takes decisions on it at once, recording everything in one append: `next`
    /// is asked for the decision number `n` (from 0) with the hand as it stands, until it answers
    /// `None` or the hand ends. A refused decision refuses the whole request and records nothing.
    /// (A laboratory playing complete hands by the million, or a client replaying a script, needs
    /// one call per hand, not one per decision.)
    pub async fn open_and_play(
        &self,
        request: OpenRequest,
        mut next: impl FnMut(&Hand, usize) -> Result<Option<Action>, FloorError>,
    ) -> Result<HandSnapshot, FloorError> {
        let game = request.game.ok_or_else(|| invalid("game", "required"))?;
        if request.table.trim().is_empty() {
            return Err(invalid("table", "required"));
        }
        if request.player.trim().is_empty() {
            return Err(invalid("player", "required"));
        }
        for (field, value) in [("table", &request.table), ("player", &request.player)] {
            if value.chars().any(char::is_control) || value.len() > 200 {
                return Err(invalid(
                    field,
                    "at most 200 characters, no control characters",
                ));
            }
        }
        let config_id = match request.config_id {
            Some(id) => id,
            None => self
                .default_config(game)
                .ok_or_else(|| invalid("game", "no default configuration"))?,
        };
        let config = self
            .config(&config_id)
            .ok_or_else(|| FloorError::NotFound {
                what: "configuration",
                id: config_id.to_string(),
            })?;
        if config.game != game {
            return Err(invalid(
                "config_id",
                format!(
                    "configuration {config_id} is for {}, not {game}",
                    config.game
                ),
            ));
        }
        let mut wagers = request.wagers.clone();
        if let Some(earlier) = &request.rebet_of {
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
        let mut id_bytes = [0u8; 16];
        let mut seed = [0u8; 32];
        getrandom::fill(&mut id_bytes)
            .and_then(|()| getrandom::fill(&mut seed))
            .map_err(|e| FloorError::Ledger(LedgerError::Storage(format!("random source: {e}"))))?;
        let hand_id = hex::encode(id_bytes);
        let seed = Seed::from_bytes(seed);
        let at = self.now();
        let mut hand = Hand::new(seed, config);
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
        if next(&hand, index)?.is_some() {
            return Err(invalid(
                &format!("decisions[{index}]"),
                "the hand has already ended",
            ));
        }
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
                request_id: request.request_id.clone(),
                indexes,
                secrets: vec![(hand_id.as_bytes().to_vec(), seed.as_bytes().to_vec())],
                unindex: Vec::new(),
                recorded_at_ms: at,
            })
            .await?;
        if appended.duplicate {
            let first = self.hand_of_entry(appended.first_sequence)?;
            let hand = self.load(&first, Some(appended.stream_version))?;
            return Ok(HandSnapshot {
                id: first,
                hand,
                duplicate: true,
            });
        }
        self.cache_put(&hand_id, &hand);
        Ok(HandSnapshot {
            id: hand_id,
            hand,
            duplicate: false,
        })
    }

    fn hand_of_entry(&self, sequence: u64) -> Result<String, FloorError> {
        let entry = self
            .ledger
            .entry(sequence)?
            .ok_or_else(|| FloorError::Corrupt(format!("entry {sequence}"), "missing".into()))?;
        entry
            .envelope
            .stream
            .strip_prefix("hand/")
            .map(str::to_string)
            .ok_or_else(|| {
                FloorError::Corrupt(format!("entry {sequence}"), "not a hand's entry".into())
            })
    }

    fn cache_put(&self, id: &str, hand: &Hand) {
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(id.to_string(), hand.clone());
        }
    }

    /// Applies a decision or a void to a hand, records it, and returns the hand after it.
    pub async fn command(
        &self,
        hand_id: &str,
        command: Command,
        request_id: Option<String>,
        expected_version: Option<u64>,
    ) -> Result<HandSnapshot, FloorError> {
        let lock = self.lock(hand_id);
        let _guard = lock.lock().await;
        let hand = self.load(hand_id, None)?;
        if let Some(expected) = expected_version {
            if expected != hand.version() {
                return Err(FloorError::Conflict {
                    hand: hand_id.to_string(),
                    expected,
                    actual: hand.version(),
                });
            }
        }
        // A retry of a request id already recorded answers with the first result.
        if let Some(id) = &request_id {
            if let Some(stored) = self
                .ledger
                .store()
                .get(cf::REQUESTS, id.as_bytes())
                .map_err(|e| FloorError::Ledger(e.into()))?
            {
                let version = crate::ledger::store::be_u64(stored.get(16..24).unwrap_or(&[]))
                    .ok_or_else(|| {
                        FloorError::Corrupt(format!("request {id}"), "damaged".into())
                    })?;
                let first = crate::ledger::store::be_u64(&stored).unwrap_or(0);
                let first_hand = self.hand_of_entry(first)?;
                let hand = self.load(&first_hand, Some(version))?;
                return Ok(HandSnapshot {
                    id: first_hand,
                    hand,
                    duplicate: true,
                });
            }
        }
        let events = hand.decide(&command)?;
        // A hand that ends leaves the index of open hands (the 30-day sweep reads only that).
        let ends = events.iter().any(|e| {
            matches!(
                e,
                crate::engine::games::Event::Settled(_) | crate::engine::games::Event::Voided(_)
            )
        });
        let unindex = match hand.opened() {
            Some(opened) if ends && hand.status() == Status::InProgress => {
                vec![index::open_hand_entry(hand_id, opened.at.0)]
            }
            _ => Vec::new(),
        };
        let appended: Appended = self
            .ledger
            .append(AppendRequest {
                stream: hand_stream(hand_id),
                expected: Expected::Version(hand.version()),
                payloads: events
                    .iter()
                    .map(|e| codec::event_to_payload(e).encode_to_vec())
                    .collect(),
                request_id,
                indexes: Vec::new(),
                secrets: Vec::new(),
                unindex,
                recorded_at_ms: self.now(),
            })
            .await
            .map_err(|e| match e {
                LedgerError::VersionConflict {
                    expected, actual, ..
                } => FloorError::Conflict {
                    hand: hand_id.to_string(),
                    expected,
                    actual,
                },
                other => FloorError::Ledger(other),
            })?;
        let mut hand = hand;
        for event in &events {
            hand = hand.evolve(event)?;
        }
        debug_assert_eq!(hand.version(), appended.stream_version);
        self.cache_put(hand_id, &hand);
        Ok(HandSnapshot {
            id: hand_id.to_string(),
            hand,
            duplicate: false,
        })
    }

    /// A decision.
    pub async fn act(
        &self,
        hand_id: &str,
        action: crate::engine::games::Action,
        request_id: Option<String>,
        expected_version: Option<u64>,
    ) -> Result<HandSnapshot, FloorError> {
        let command = Command::Act {
            action,
            at: Timestamp(self.now()),
        };
        self.command(hand_id, command, request_id, expected_version)
            .await
    }

    /// A void of one hand, now.
    pub async fn void(
        &self,
        hand_id: &str,
        kind: VoidKind,
        reason: &str,
        recorded_by: &str,
        request_id: Option<String>,
    ) -> Result<HandSnapshot, FloorError> {
        let order = VoidOrder {
            kind,
            reason: reason.to_string(),
            recorded_by: recorded_by.to_string(),
            at: Timestamp(self.now()),
        };
        self.command(hand_id, Command::Void(order), request_id, None)
            .await
    }

    /// The recorded result of an operation over many hands, if `request_id` was used before.
    fn recorded_operation(
        &self,
        request_id: Option<&str>,
    ) -> Result<Option<OperationResult>, FloorError> {
        let Some(id) = request_id else {
            return Ok(None);
        };
        let entries = self.ledger.read_stream(&format!("operation/{id}"), 0)?;
        let Some(entry) = entries.first() else {
            return Ok(None);
        };
        match Floor::payload(entry)?.kind {
            Some(proto::payload::Kind::OperationRecorded(r)) => Ok(Some(OperationResult {
                voided: r.voided_hand_ids,
                skipped: r.skipped_hand_ids,
                duplicate: true,
            })),
            _ => Err(FloorError::Corrupt(
                format!("operation {id}"),
                "not an operation record".into(),
            )),
        }
    }

    /// Records an operation's result under its request id (a retry then returns it).
    async fn record_operation(
        &self,
        kind: &str,
        request_id: Option<&str>,
        result: &OperationResult,
    ) -> Result<(), FloorError> {
        let Some(id) = request_id else { return Ok(()) };
        let payload = proto::Payload {
            kind: Some(proto::payload::Kind::OperationRecorded(
                proto::OperationRecorded {
                    kind: kind.to_string(),
                    request_id: id.to_string(),
                    voided_hand_ids: result.voided.clone(),
                    skipped_hand_ids: result.skipped.clone(),
                    at_ms: self.now(),
                },
            )),
        };
        self.ledger
            .append(AppendRequest {
                stream: format!("operation/{id}"),
                expected: Expected::Version(0),
                payloads: vec![payload.encode_to_vec()],
                request_id: None,
                indexes: Vec::new(),
                secrets: Vec::new(),
                unindex: Vec::new(),
                recorded_at_ms: self.now(),
            })
            .await?;
        Ok(())
    }

    /// Voids, for a malfunction, every hand of `table` opened from `from_ms` to `to_ms` (inclusive)
    /// that is not voided already. A retry with the same request id returns the first result.
    pub async fn void_table(
        &self,
        table: &str,
        from_ms: u64,
        to_ms: u64,
        reason: &str,
        recorded_by: &str,
        request_id: Option<&str>,
    ) -> Result<OperationResult, FloorError> {
        if table.trim().is_empty() {
            return Err(invalid("table", "required"));
        }
        if from_ms > to_ms {
            return Err(invalid("to_ms", "the range ends before it starts"));
        }
        if let Some(first) = self.recorded_operation(request_id)? {
            return Ok(first);
        }
        let hands = index::hands_of_table_between(self.ledger.store(), table, from_ms, to_ms)
            .map_err(|e| FloorError::Ledger(e.into()))?;
        let (mut voided, mut skipped) = (Vec::new(), Vec::new());
        for id in hands {
            if self.load(&id, None)?.status() == Status::Voided {
                skipped.push(id);
                continue;
            }
            self.void(&id, VoidKind::Malfunction, reason, recorded_by, None)
                .await?;
            voided.push(id);
        }
        let result = OperationResult {
            voided,
            skipped,
            duplicate: false,
        };
        self.record_operation("table_malfunction", request_id, &result)
            .await?;
        Ok(result)
    }

    /// Voids every hand still in progress whose incomplete-game period has passed at `as_of_ms`.
    /// A retry with the same request id returns the first result.
    pub async fn sweep(
        &self,
        as_of_ms: u64,
        recorded_by: &str,
        request_id: Option<&str>,
    ) -> Result<OperationResult, FloorError> {
        if as_of_ms > self.now() {
            return Err(invalid(
                "as_of_ms",
                "a sweep cannot be run as of a time later than now",
            ));
        }
        if let Some(first) = self.recorded_operation(request_id)? {
            return Ok(first);
        }
        let mut voided = Vec::new();
        for id in index::open_hands_opened_before(self.ledger.store(), as_of_ms)
            .map_err(|e| FloorError::Ledger(e.into()))?
        {
            let hand = self.load(&id, None)?;
            let Some(opened) = hand.opened() else {
                continue;
            };
            let period =
                u64::from(hand.config().incomplete_void_days) * crate::engine::games::DAY_MS;
            if hand.status() != Status::InProgress || as_of_ms < opened.at.0.saturating_add(period)
            {
                continue;
            }
            let order = VoidOrder {
                kind: VoidKind::Incomplete,
                reason: format!("30-day sweep as of {as_of_ms} ms"),
                recorded_by: recorded_by.to_string(),
                at: Timestamp(as_of_ms),
            };
            self.command(&id, Command::Void(order), None, None).await?;
            voided.push(id);
        }
        let result = OperationResult {
            voided,
            skipped: Vec::new(),
            duplicate: false,
        };
        self.record_operation("sweep", request_id, &result).await?;
        Ok(result)
    }

    /// Recall: hands by player or table, newest first.
    pub fn list_hands(
        &self,
        filter: &HandFilter,
        page: &Page,
    ) -> Result<(Vec<HandSummary>, Option<String>), FloorError> {
        index::list(self, filter, page)
    }

    /// The recorded entries of a hand from `position` on.
    pub fn hand_entries(
        &self,
        hand_id: &str,
        position: u64,
    ) -> Result<Vec<crate::ledger::Entry>, FloorError> {
        self.load(hand_id, None)?;
        Ok(self.ledger.read_stream(&hand_stream(hand_id), position)?)
    }

    /// Decodes a stored payload (for the audit layer and the service).
    pub fn payload(entry: &crate::ledger::Entry) -> Result<proto::Payload, FloorError> {
        entry.payload().map_err(|e| {
            FloorError::Corrupt(format!("entry {}", entry.envelope.sequence), e.to_string())
        })
    }
}
