//! The floor: where hands are played. It joins the engine (the rules) and the ledger (the evidence):
//! draws each hand's seed from the operating system, decides commands with the engine, records the
//! events (with the seed kept secret beside the log until the hand ends), and answers with the
//! hand's state. It also keeps the published configurations and the recall indexes.
//!
//! A request id means one request (`requests.rs`): a retry is answered from the log, never from
//! state the floor computed for it, and the same id for anything else is refused.
//!
//! It decides nothing itself (the engine does) and stores nothing itself (the ledger does); it holds
//! no protobuf service code (the service layer does).

mod cache;
mod index;
mod proposals;
mod records;
mod requests;

use crate::codec::EntryPayload;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use prost::Message;

use crate::codec;
use pitboss_engine::config::{ConfigError, ConfigId, GameConfig};
use pitboss_engine::game::GameId;
use pitboss_engine::games::{
    Action, Command, Hand, OpenHand, RuleError, Status, Timestamp, VoidKind, VoidOrder,
};
use pitboss_engine::rng::Seed;
use pitboss_engine::settlement::Wager;
use pitboss_ledger::{
    AppendRequest, Appended, Expected, Ledger, LedgerError, RequestKey, RequestRecord,
};
use crate::proto;

use cache::HandCache;
pub use index::{HandFilter, HandSummary, Page, MAX_PAGE as MAX_HANDS_PAGE};
pub use proposals::{Done, Proposal, PROPOSAL_TTL_MS};
pub use records::ReloadError;
pub use requests::Script;
use requests::{Method, Target};

/// A hand id: 16 random bytes as lower-case hex.
pub const HAND_ID_LEN: usize = 32;
/// The longest table or player reference recorded with a hand, in characters.
pub const MAX_NAME_CHARS: usize = 200;

/// True for a string shaped as a hand id (32 lower-case hexadecimal digits).
pub fn is_hand_id(id: &str) -> bool {
    id.len() == HAND_ID_LEN && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

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
    #[error("{}", pitboss_ledger::reused_message(.id))]
    RequestReused { id: String },
    #[error(transparent)]
    Ledger(LedgerError),
    /// The operating system gave no randomness for a seed or an id.
    #[error("no randomness from the operating system: {0}")]
    Randomness(#[source] getrandom::Error),
    #[error("the record of {0} is damaged: {1}")]
    Corrupt(String, String),
    #[error("config_id: configuration {id} opens no new hand: {problem}")]
    ConfigNotPlayable { id: ConfigId, problem: ConfigError },
    #[error("hand {hand} is settled: voiding it moves money after the fact, so a second principal must approve it (a proposal)")]
    SecondPersonRequired { hand: String },
    #[error("proposal {id}: {problem}")]
    Proposal {
        id: String,
        problem: ProposalProblem,
    },
}

/// Why a proposal cannot be approved or rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProposalProblem {
    #[error("its proposer cannot approve it: a second, different principal must")]
    OwnProposal,
    #[error("it is {state} already")]
    Decided { state: String },
    #[error("it expired at {expires_at_ms} ms, unapproved")]
    Expired { expires_at_ms: u64 },
}

/// Who records a void: the principal, and the second principal who approved it when one had to
/// (the two-person rule). The entries are the approver's when there is one.
#[derive(Clone, Copy, Debug)]
pub struct Attribution<'a> {
    /// Who recorded it (who proposed it, when approved by another).
    pub by: &'a str,
    /// The second principal, when there was one.
    pub approved_by: Option<&'a str>,
}

impl<'a> Attribution<'a> {
    /// One principal, acting alone.
    pub fn by(by: &'a str) -> Attribution<'a> {
        Attribution {
            by,
            approved_by: None,
        }
    }

    /// The actor of the entries written: the approver when there is one.
    fn actor(&self) -> &'a str {
        self.approved_by.unwrap_or(self.by)
    }
}

/// A configuration refused, as a field of the request that carried it (`config_json.<path>`).
impl From<ConfigError> for FloorError {
    fn from(e: ConfigError) -> FloorError {
        match e.field() {
            Some(path) => invalid(&format!("config_json.{path}"), e.problem()),
            None => invalid("config_json", e.to_string()),
        }
    }
}

impl From<LedgerError> for FloorError {
    fn from(e: LedgerError) -> FloorError {
        match e {
            LedgerError::RequestReused { id } => FloorError::RequestReused { id },
            other => FloorError::Ledger(other),
        }
    }
}

/// Every entry names who caused it: an empty actor is a caller's mistake, refused.
fn actor_given(actor: &str) -> Result<(), FloorError> {
    if actor.trim().is_empty() {
        return Err(invalid("actor", "required: who causes the entries"));
    }
    Ok(())
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
    /// Who opens it: the authenticated principal, recorded as the entries' actor.
    pub actor: String,
}

/// The most hand ids an operation over many hands lists in its result, per list: the counts are
/// complete, the lists their first ids (so that the recorded result and the reply stay small,
/// however many hands a table holds).
pub const MAX_LISTED_HANDS: usize = 10_000;

/// The result of an operation over many hands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OperationResult {
    /// Hands voided (the first [`MAX_LISTED_HANDS`]).
    pub voided: Vec<String>,
    /// Hands in range already voided (table malfunction), or, for a sweep, hands it could not end
    /// as of its time (a hand of rules version 1 with an event recorded after that time).
    pub skipped: Vec<String>,
    /// Hands the incomplete-game rule completed and settled (a sweep; rules version 2: Nutz and
    /// Caribbean Stud).
    pub completed: Vec<String>,
    /// How many hands each list holds in all.
    pub counts: OperationCounts,
    /// True when this is the recorded result of an earlier request with the same id.
    pub duplicate: bool,
}

/// How many hands an operation voided, skipped and completed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OperationCounts {
    pub voided: u64,
    pub skipped: u64,
    pub completed: u64,
}

/// Which list of an [`OperationResult`].
#[derive(Clone, Copy)]
enum Listed {
    Voided,
    Skipped,
    Completed,
}

impl OperationResult {
    /// Counts `id` in a list, listing it while the list is short.
    fn add(&mut self, list: Listed, id: String) {
        let (ids, count) = match list {
            Listed::Voided => (&mut self.voided, &mut self.counts.voided),
            Listed::Skipped => (&mut self.skipped, &mut self.counts.skipped),
            Listed::Completed => (&mut self.completed, &mut self.counts.completed),
        };
        *count += 1;
        if ids.len() < MAX_LISTED_HANDS {
            ids.push(id);
        }
    }
}

/// The stream of a hand.
pub fn hand_stream(id: &str) -> String {
    format!("hand/{id}")
}

/// The stream recording the result of an operation over many hands, under its request id.
fn operation_stream(request_id: &str) -> String {
    format!("operation/{request_id}")
}

/// A hand's place in the floor's per-hand locks; leaving it removes the hand's lock when nobody
/// else holds or waits for it, so the map holds only hands being worked on.
struct HandLock<'a> {
    locks: &'a Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    hand_id: &'a str,
    mutex: Arc<tokio::sync::Mutex<()>>,
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

/// The floor.
pub struct Floor {
    ledger: Arc<Ledger>,
    configs: RwLock<BTreeMap<ConfigId, Arc<GameConfig>>>,
    defaults: HashMap<GameId, ConfigId>,
    locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    /// Hands in progress, bounded (`cache.rs`).
    cache: HandCache,
    /// Operations over many hands run one at a time (a retry then finds the first one's record).
    operations: tokio::sync::Mutex<()>,
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
            cache: HandCache::new(cache::CAPACITY),
            operations: tokio::sync::Mutex::new(()),
            clock,
        };
        floor.load_configs()?;
        for game in GameId::ALL {
            let config = GameConfig::default_for(game);
            let (id, _) = floor
                .publish(config, None, pitboss_ledger::SERVER_ACTOR)
                .await?;
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

    fn insert_config(&self, config: GameConfig) -> ConfigId {
        let id = config.id();
        self.configs
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, Arc::new(config));
        id
    }

    /// A published configuration.
    pub fn config(&self, id: &ConfigId) -> Option<Arc<GameConfig>> {
        self.configs
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
    }

    /// Every published configuration, by id.
    pub fn configs(&self) -> Vec<Arc<GameConfig>> {
        self.configs
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .cloned()
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
    /// the lab's budget), also before it is proposed.
    pub fn check_publishable(config: &GameConfig) -> Result<(), FloorError> {
        config.check_current()?;
        pitboss_lab::budget::check(config, pitboss_lab::threads())?;
        Ok(())
    }

    /// The hand's place in the per-hand locks (its `mutex` serialises the hand's commands).
    fn hand_lock<'a>(&'a self, hand_id: &'a str) -> HandLock<'a> {
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
        let Some(pitboss_engine::games::Event::Opened(opened)) = events.first() else {
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
            self.cache.put(hand_id, &hand);
        }
        Ok(hand)
    }

    fn seed_of(&self, hand_id: &str) -> Result<Seed, FloorError> {
        let bytes = self
            .ledger
            .secret(hand_id.as_bytes())?
            .ok_or_else(|| {
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

    async fn open_and_play(
        &self,
        request: OpenRequest,
        method: Method,
        script: &Script,
        advise: impl Fn(&Hand) -> Result<Option<Action>, FloorError>,
    ) -> Result<HandSnapshot, FloorError> {
        let game = request.game.ok_or_else(|| invalid("game", "required"))?;
        actor_given(&request.actor)?;
        if request.table.trim().is_empty() {
            return Err(invalid("table", "required"));
        }
        if request.player.trim().is_empty() {
            return Err(invalid("player", "required"));
        }
        for (field, value) in [("table", &request.table), ("player", &request.player)] {
            if value.chars().any(char::is_control) || value.chars().count() > MAX_NAME_CHARS {
                return Err(invalid(
                    field,
                    format!("at most {MAX_NAME_CHARS} characters, no control characters"),
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
        let key = requests::open(method, &request, script);
        if let Some(key) = &key {
            if let Some(first) = self.answered(key, &Target::NewHand)? {
                return Ok(first);
            }
        }
        // Recorded by an earlier release, a configuration may be of a retired rules version, or
        // outside today's bounds: its hands replay, but no new one opens under it.
        config
            .check_current()
            .map_err(|problem| FloorError::ConfigNotPlayable {
                id: config_id,
                problem,
            })?;
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
        let mut id_bytes = [0u8; 16];
        let mut seed = [0u8; 32];
        getrandom::fill(&mut id_bytes)
            .and_then(|()| getrandom::fill(&mut seed))
            .map_err(FloorError::Randomness)?;
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

    /// The record of a request id already used, if this request may be answered from it: the
    /// same fingerprint, or (for a record of an earlier release, which has none) a first entry in
    /// the stream this request targets. Anything else is [`FloorError::RequestReused`].
    fn bound_record(
        &self,
        key: &RequestKey,
        target: &Target,
    ) -> Result<Option<RequestRecord>, FloorError> {
        let reused = || FloorError::RequestReused { id: key.id.clone() };
        let operation = operation_stream(&key.id);
        let Some(record) = self.ledger.request(&key.id)? else {
            // An earlier release recorded operations under their id in their own stream only.
            if *target != Target::Stream(operation.clone())
                && self.ledger.stream_version(&operation)? > 0
            {
                return Err(reused());
            }
            return Ok(None);
        };
        match record.fingerprint {
            Some(bound) if bound == key.fingerprint => Ok(Some(record)),
            Some(_) => Err(reused()),
            None => {
                let sequence = record.appended.first_sequence;
                let entry = self.ledger.entry(sequence)?.ok_or_else(|| {
                    FloorError::Corrupt(
                        format!("request {}", key.id),
                        "its entry is missing".into(),
                    )
                })?;
                let envelope = &entry.envelope;
                let same = match target {
                    Target::NewHand => {
                        envelope.stream.starts_with("hand/") && envelope.stream_position == 0
                    }
                    Target::OnHand(stream) => {
                        envelope.stream == *stream && envelope.stream_position > 0
                    }
                    Target::Stream(stream) => envelope.stream == *stream,
                };
                if same {
                    Ok(Some(record))
                } else {
                    Err(reused())
                }
            }
        }
    }

    /// The first answer to a request on a hand whose id was used before: the hand as the first
    /// request left it, read from the log.
    fn answered(
        &self,
        key: &RequestKey,
        target: &Target,
    ) -> Result<Option<HandSnapshot>, FloorError> {
        let Some(record) = self.bound_record(key, target)? else {
            return Ok(None);
        };
        let id = self.hand_of_entry(record.appended.first_sequence)?;
        let hand = self.load(&id, Some(record.appended.stream_version))?;
        Ok(Some(HandSnapshot {
            id,
            hand,
            duplicate: true,
        }))
    }

    /// [`Floor::answered`] after the writer said the append repeats a recorded request (so its
    /// record is durable now).
    fn answered_after_append(
        &self,
        key: Option<&RequestKey>,
        target: &Target,
    ) -> Result<HandSnapshot, FloorError> {
        let damaged = |id: &str| {
            FloorError::Corrupt(format!("request {id}"), "answered but not recorded".into())
        };
        let key = key.ok_or_else(|| damaged(""))?;
        self.answered(key, target)?.ok_or_else(|| damaged(&key.id))
    }

    fn cache_put(&self, id: &str, hand: &Hand) {
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
    async fn command(
        &self,
        hand_id: &str,
        command: impl FnOnce(&Hand) -> Result<Command, FloorError>,
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
        let events = hand.decide(&command(&hand)?)?;
        // A hand that ends leaves the index of open hands (the 30-day sweep reads only that).
        let ends = events.iter().any(|e| {
            matches!(
                e,
                pitboss_engine::games::Event::Settled(_) | pitboss_engine::games::Event::Voided(_)
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
                request: request.clone(),
                indexes: Vec::new(),
                secrets: Vec::new(),
                unindex,
                recorded_at_ms: self.now(),
                actor: actor.to_string(),
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
                other => FloorError::from(other),
            })?;
        if appended.duplicate {
            // The same request was recorded first (in flight when this one checked): its answer,
            // from the log; nothing of this one is kept or cached.
            return self.answered_after_append(request.as_ref(), &target);
        }
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
    fn now_for(&self, hand: &Hand) -> Timestamp {
        Timestamp(self.now()).max(hand.last_at())
    }

    /// A void of one hand, now. A settled hand's void needs a second principal's approval
    /// ([`FloorError::SecondPersonRequired`] without one; checked under the hand's lock, so a hand
    /// settled meanwhile is not voided by one person). With a request id, a retry returns the
    /// first answer.
    pub async fn void(
        &self,
        hand_id: &str,
        kind: VoidKind,
        reason: &str,
        who: Attribution<'_>,
        request_id: Option<String>,
    ) -> Result<HandSnapshot, FloorError> {
        let key = request_id.map(|id| requests::void(&id, hand_id, kind, reason, &who));
        let order = |hand: &Hand| {
            if hand.status() == Status::Settled && who.approved_by.is_none() {
                return Err(FloorError::SecondPersonRequired {
                    hand: hand_id.to_string(),
                });
            }
            Ok(Command::Void(self.void_order(hand, kind, reason, who)))
        };
        self.command(hand_id, order, key, None, who.actor()).await
    }

    /// The order voiding `hand` now, attributed to `who`.
    fn void_order(
        &self,
        hand: &Hand,
        kind: VoidKind,
        reason: &str,
        who: Attribution<'_>,
    ) -> VoidOrder {
        VoidOrder {
            kind,
            reason: reason.to_string(),
            recorded_by: who.by.to_string(),
            approved_by: who.approved_by.map(str::to_string),
            at: self.now_for(hand),
        }
    }

    /// The recorded result of an operation over many hands, if its request id was used before
    /// (by this operation: anything else is refused).
    fn recorded_operation(
        &self,
        kind: &str,
        key: Option<&RequestKey>,
    ) -> Result<Option<OperationResult>, FloorError> {
        let Some(key) = key else {
            return Ok(None);
        };
        let stream = operation_stream(&key.id);
        let entry = match self.bound_record(key, &Target::Stream(stream.clone()))? {
            Some(record) => {
                let sequence = record.appended.first_sequence;
                self.ledger.entry(sequence)?.ok_or_else(|| {
                    FloorError::Corrupt(format!("entry {sequence}"), "missing".into())
                })?
            }
            // An earlier release kept the record in the operation's stream only.
            None => match self.ledger.read_stream(&stream, 0)?.into_iter().next() {
                Some(entry) => entry,
                None => return Ok(None),
            },
        };
        match Floor::payload(&entry)?.kind {
            Some(proto::payload::Kind::OperationRecorded(r)) if r.kind == kind => {
                // Records before the counts existed listed every hand.
                let count = |recorded: u64, ids: &[String]| recorded.max(ids.len() as u64);
                Ok(Some(OperationResult {
                    counts: OperationCounts {
                        voided: count(r.voided_count, &r.voided_hand_ids),
                        skipped: count(r.skipped_count, &r.skipped_hand_ids),
                        completed: count(r.completed_count, &r.completed_hand_ids),
                    },
                    voided: r.voided_hand_ids,
                    skipped: r.skipped_hand_ids,
                    completed: r.completed_hand_ids,
                    duplicate: true,
                }))
            }
            Some(proto::payload::Kind::OperationRecorded(_)) => {
                Err(FloorError::RequestReused { id: key.id.clone() })
            }
            _ => Err(FloorError::Corrupt(
                format!("operation {}", key.id),
                "not an operation record".into(),
            )),
        }
    }

    /// Records an operation's result under its request id (a retry then returns it).
    async fn record_operation(
        &self,
        kind: &str,
        key: Option<RequestKey>,
        result: &OperationResult,
        actor: &str,
    ) -> Result<(), FloorError> {
        let Some(key) = key else { return Ok(()) };
        let payload = proto::Payload {
            kind: Some(proto::payload::Kind::OperationRecorded(
                proto::OperationRecorded {
                    kind: kind.to_string(),
                    request_id: key.id.clone(),
                    voided_hand_ids: result.voided.clone(),
                    skipped_hand_ids: result.skipped.clone(),
                    at_ms: self.now(),
                    completed_hand_ids: result.completed.clone(),
                    voided_count: result.counts.voided,
                    skipped_count: result.counts.skipped,
                    completed_count: result.counts.completed,
                },
            )),
        };
        self.ledger
            .append(AppendRequest {
                request: Some(key.clone()),
                ..AppendRequest::entries(
                    operation_stream(&key.id),
                    Expected::Version(0),
                    vec![payload.encode_to_vec()],
                    self.now(),
                    actor,
                )
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
        who: Attribution<'_>,
        request_id: Option<&str>,
    ) -> Result<OperationResult, FloorError> {
        if table.trim().is_empty() {
            return Err(invalid("table", "required"));
        }
        if from_ms > to_ms {
            return Err(invalid("to_ms", "the range ends before it starts"));
        }
        let key = request_id
            .map(|id| requests::table_malfunction(id, table, from_ms, to_ms, reason, &who));
        let _one_at_a_time = self.operations.lock().await;
        if let Some(first) = self.recorded_operation("table_malfunction", key.as_ref())? {
            return Ok(first);
        }
        let mut result = OperationResult::default();
        let mut after: Option<Vec<u8>> = None;
        loop {
            let page =
                index::table_hands_page(&self.ledger, table, from_ms, to_ms, after.as_deref())?;
            for id in page.ids {
                if self.load(&id, None)?.status() == Status::Voided {
                    result.add(Listed::Skipped, id);
                    continue;
                }
                self.void(&id, VoidKind::Malfunction, reason, who, None)
                    .await?;
                result.add(Listed::Voided, id);
            }
            match page.next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        self.record_operation("table_malfunction", key, &result, who.actor())
            .await?;
        Ok(result)
    }

    /// Ends, by the incomplete-game rule as of `as_of_ms`, every hand still in progress that is
    /// incomplete then (more than its period after it opened): voided with refunds, or (rules
    /// version 2) completed and settled in Nutz and Caribbean Stud. A hand with an event recorded
    /// after `as_of_ms` is skipped, never ended at a time before it. A retry with the same request id
    /// returns the first result.
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
        let key = request_id.map(|id| requests::sweep(id, as_of_ms, recorded_by));
        let _one_at_a_time = self.operations.lock().await;
        if let Some(first) = self.recorded_operation("sweep", key.as_ref())? {
            return Ok(first);
        }
        let as_of = Timestamp(as_of_ms);
        let mut result = OperationResult::default();
        let mut after: Option<Vec<u8>> = None;
        loop {
            let page = index::open_hands_page(&self.ledger, as_of_ms, after.as_deref())?;
            for id in page.ids {
                let hand = self.load(&id, None)?;
                if !hand.is_incomplete_at(as_of) {
                    continue;
                }
                if hand.last_at() > as_of {
                    result.add(Listed::Skipped, id);
                    continue;
                }
                let order = VoidOrder {
                    kind: VoidKind::Incomplete,
                    reason: format!("incomplete-game sweep as of {as_of_ms} ms"),
                    recorded_by: recorded_by.to_string(),
                    approved_by: None,
                    at: as_of,
                };
                let ended = self
                    .command(&id, |_| Ok(Command::Void(order)), None, None, recorded_by)
                    .await?;
                let list = if ended.hand.completion().is_some() {
                    Listed::Completed
                } else {
                    Listed::Voided
                };
                result.add(list, id);
            }
            match page.next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        self.record_operation("sweep", key, &result, recorded_by)
            .await?;
        self.expire_proposals().await?;
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
    ) -> Result<Vec<pitboss_ledger::Entry>, FloorError> {
        self.load(hand_id, None)?;
        Ok(self.ledger.read_stream(&hand_stream(hand_id), position)?)
    }

    /// Decodes a stored payload (for the audit layer and the service).
    pub fn payload(entry: &pitboss_ledger::Entry) -> Result<proto::Payload, FloorError> {
        entry.payload().map_err(|e| {
            FloorError::Corrupt(format!("entry {}", entry.envelope.sequence), e.to_string())
        })
    }
}
