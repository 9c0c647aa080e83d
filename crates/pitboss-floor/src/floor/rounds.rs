//! The rounds room: a table's round (`docs/rounds.md`) opened with its seed drawn from the operating
//! system (kept secret beside the log until the round ends), its commands decided by the engine's
//! `Round` one at a time per round (the floor's per-stream locks), every command's events recorded
//! in one append on the round's stream, and a round loaded by replaying its stream.
//!
//! Rounds in play are kept in memory, at most [`KEPT`] of them holding at most [`PLACES_KEPT`]
//! places in all (the least recently used pushed out first): a command on a kept round steps it in
//! place (a round of thousands of places is never copied); a round not kept, or kept behind a log
//! other servers also write, is replayed from its stream first. A refused command leaves the
//! kept round as it was; a command whose append fails drops it, so the next is decided on the log.
//! Rounds that have ended are kept for reading (a studio's players all read their settlement at
//! the showdown), at most [`ENDED_KEPT`] of them and [`ENDED_PLACES_KEPT`] places in all; every
//! read, of a round in play or ended, uses a kept round only when the log holds all of it.
//!
//! A request id binds the call to its content (`requests.rs`): a retry is answered from the log
//! with the round as the first call left it (`retries.rs`), even when the first call's append was
//! still in flight when the retry was decided (the writer finds the id; the round kept in memory,
//! stepped twice, is dropped).
//!
//! Must not decide a rule (the engine's round does) nor touch the ledger's storage but through its
//! methods.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::watch;

use prost::Message;

use crate::codec::{self, EntryPayload};
use pitboss_engine::config::ConfigId;
use pitboss_engine::game::GameId;
use pitboss_engine::games::Timestamp;
use pitboss_engine::rng::Seed;
use pitboss_engine::round::{OpenRound, Phase, Round, RoundCommand, RoundEvent, RoundOpened};
use pitboss_ledger::{AppendRequest, Expected};

use super::requests::{self, Target};
use super::{actor_given, is_hand_id, Floor, FloorError, RoundAnswer};
use pitboss_ledger::{Appended, Fingerprint, LedgerError, RequestKey};

/// The most rounds in play kept in memory at once: every table of a large floor.
pub const KEPT: usize = 4_096;

/// The most places the rounds in play kept hold in all (about 2.2 KB each: about 330 MB at most;
/// six studio rounds of the most players, or every seat of [`KEPT`] tables).
pub const PLACES_KEPT: usize = 150_000;

/// The most ended rounds kept in memory for reading.
pub const ENDED_KEPT: usize = 16;

/// The most places the ended rounds kept for reading hold in all (about 2.7 KB each settled:
/// about 160 MB at most; a round larger than this alone is read from the log each time).
pub const ENDED_PLACES_KEPT: usize = 60_000;

/// Rounds kept in memory by id (in play: `Round`; ended, for reading: `Arc<Round>`), bounded by
/// their number and by the places they hold in all; the least recently used are pushed out first.
struct Kept<R> {
    rounds: crate::lru::Lru<String, R>,
    places: usize,
    most_rounds: usize,
    most_places: usize,
}

impl<R: Borrow<Round>> Kept<R> {
    fn new(most_rounds: usize, most_places: usize) -> Kept<R> {
        Kept {
            rounds: crate::lru::bounded(most_rounds),
            places: 0,
            most_rounds,
            most_places,
        }
    }

    /// Takes round `id` out, if kept.
    fn pop(&mut self, id: &str) -> Option<R> {
        let round = self.rounds.pop(id)?;
        self.places -= round.borrow().places().len();
        Some(round)
    }

    /// Keeps `round` as `id`'s, pushing out the least recently used while either bound would be
    /// passed; a round alone above the places' bound is not kept.
    fn put(&mut self, id: &str, round: R) {
        self.pop(id);
        let size = round.borrow().places().len();
        if size > self.most_places {
            return;
        }
        while self.places + size > self.most_places || self.rounds.len() >= self.most_rounds {
            match self.rounds.pop_lru() {
                Some((_, out)) => self.places -= out.borrow().places().len(),
                None => break,
            }
        }
        self.places += size;
        self.rounds.put(id.to_string(), round);
    }
}

/// The prefix of every round's stream name.
const ROUND_STREAM: &str = "round/";

/// The stream of a round.
pub fn round_stream(id: &str) -> String {
    format!("{ROUND_STREAM}{id}")
}

/// The round whose stream `stream` is (`None` for any other stream).
pub fn round_of_stream(stream: &str) -> Option<&str> {
    stream.strip_prefix(ROUND_STREAM)
}

/// The most rounds' opening records kept in memory (for the scope checks: a round's table and game
/// never change).
pub const OPENINGS_KEPT: usize = 4096;

/// The rounds kept in memory, the opening records of more, and the request ids whose appends are
/// in flight (a retry decided meanwhile waits for the first's record instead of being refused by
/// a round that already took the command).
pub(super) struct KeptRounds {
    rounds: Mutex<Kept<Round>>,
    ended: Mutex<Kept<Arc<Round>>>,
    openings: Mutex<crate::lru::Lru<String, RoundOpened>>,
    in_flight: Mutex<HashMap<String, (Fingerprint, watch::Receiver<()>)>>,
    /// Each round's last append in flight: ends (its sender dropped) once the append is answered.
    landing: Mutex<HashMap<String, watch::Receiver<()>>>,
    /// Rounds replayed from the log to serve a command or a read, since the floor opened.
    replayed: std::sync::atomic::AtomicU64,
}

impl Default for KeptRounds {
    fn default() -> KeptRounds {
        KeptRounds {
            rounds: Mutex::new(Kept::new(KEPT, PLACES_KEPT)),
            ended: Mutex::new(Kept::new(ENDED_KEPT, ENDED_PLACES_KEPT)),
            openings: Mutex::new(crate::lru::bounded(OPENINGS_KEPT)),
            in_flight: Mutex::new(HashMap::new()),
            landing: Mutex::new(HashMap::new()),
            replayed: std::sync::atomic::AtomicU64::new(0),
        }
    }
}

/// A request id's append in flight, registered until it is dropped (once the writer has answered
/// the append, whether or not its caller is still there); dropping it wakes whoever waits for it.
struct InFlight {
    kept: Arc<KeptRounds>,
    id: String,
    _done: watch::Sender<()>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.kept
            .in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.id);
    }
}

/// Whether a request id is in flight, and for what.
enum Flying {
    /// Not in flight.
    No,
    /// In flight with this request: wait for it.
    Same(watch::Receiver<()>),
    /// In flight with another request.
    Other,
}

impl KeptRounds {
    /// Registers the request `key` as in flight (at most one per id: the calls of an id are
    /// decided under their round's lock and a retry waits for the first).
    fn fly(self: &Arc<Self>, key: &RequestKey) -> InFlight {
        let (done, waiting) = watch::channel(());
        self.in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key.id.clone(), (key.fingerprint, waiting));
        InFlight {
            kept: self.clone(),
            id: key.id.clone(),
            _done: done,
        }
    }

    /// Registers round `id`'s newest append as in flight until the returned sender is dropped.
    fn launch(&self, id: &str) -> watch::Sender<()> {
        let (landed, landing) = watch::channel(());
        self.landing
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.to_string(), landing);
        landed
    }

    /// Once round `id`'s appends in flight (if any) are answered: every append before the newest
    /// is answered before it (the writer answers in order).
    async fn landed(&self, id: &str) {
        let landing = self
            .landing
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned();
        if let Some(mut landing) = landing {
            let _ = landing.changed().await;
        }
    }

    /// Forgets round `id`'s append `landed` once it is answered, unless a newer one replaced it.
    fn forget_landing(&self, id: &str, landed: &watch::Sender<()>) {
        let mut landing = self.landing.lock().unwrap_or_else(PoisonError::into_inner);
        if landing
            .get(id)
            .is_some_and(|r| r.same_channel(&landed.subscribe()))
        {
            landing.remove(id);
        }
    }

    fn flying(&self, key: &RequestKey) -> Flying {
        match self
            .in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key.id)
        {
            None => Flying::No,
            Some((fingerprint, waiting)) if *fingerprint == key.fingerprint => {
                Flying::Same(waiting.clone())
            }
            Some(_) => Flying::Other,
        }
    }

    fn take(&self, id: &str) -> Option<Round> {
        self.rounds
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop(id)
    }

    /// `f` of the kept round `id`, if it is kept (under the map's lock: `f` must be short and
    /// do no I/O).
    fn with<T>(&self, id: &str, f: impl FnOnce(&Round) -> T) -> Option<T> {
        self.rounds
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .rounds
            .peek(id)
            .map(f)
    }

    /// Keeps a round in play (the least recently used pushed out while the rounds or the places
    /// kept exceed their bounds).
    fn keep(&self, id: &str, round: Round) {
        self.remember(id, &round);
        self.rounds
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .put(id, round);
    }

    /// Keeps an ended round for reading (the least recently read pushed out while the rounds or
    /// the places kept exceed their bounds; a round alone above it is not kept).
    fn keep_ended(&self, id: &str, round: Arc<Round>) {
        self.remember(id, &round);
        self.ended
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .put(id, round);
    }

    /// The ended round `id`, if it is kept.
    fn ended(&self, id: &str) -> Option<Arc<Round>> {
        self.ended
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .rounds
            .get(id)
            .cloned()
    }

    /// Drops round `id` from memory, in play or ended.
    fn drop_round(&self, id: &str) {
        self.take(id);
        self.ended
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop(id);
    }

    /// Keeps the round's opening record, if it has one.
    fn remember(&self, id: &str, round: &Round) {
        if let Some(opened) = round.opened() {
            let mut openings = self.openings.lock().unwrap_or_else(PoisonError::into_inner);
            if openings.peek(id).is_none() {
                openings.put(id.to_string(), opened.clone());
            }
        }
    }

    fn opening(&self, id: &str) -> Option<RoundOpened> {
        self.openings
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
    }
}

/// What opening a round needs (its time is the floor's clock).
#[derive(Clone, Debug)]
pub struct OpenRoundRequest {
    /// The game.
    pub game: GameId,
    /// A published configuration, or the game's default.
    pub config_id: Option<ConfigId>,
    /// The opening; its `at` is replaced by the floor's clock.
    pub open: OpenRound,
    /// Who opens it: the authenticated principal.
    pub actor: String,
    /// The request's id: a retry answers with the round first opened.
    pub request_id: Option<String>,
}

impl Floor {
    /// Opens a round: its seed drawn and kept secret, its opening recorded. Answers with its id and
    /// `answer` of the round (with a request id used before, of the round first opened).
    pub async fn open_round<T>(
        &self,
        request: OpenRoundRequest,
        answer: impl Fn(&Round) -> T,
    ) -> Result<RoundAnswer<T>, FloorError> {
        actor_given(&request.actor)?;
        let mut names = vec![
            ("table", &request.open.table),
            ("dealer", &request.open.dealer),
        ];
        if let Some(shoe) = &request.open.shoe {
            names.push(("shoe", shoe));
        }
        for (field, value) in names {
            super::name_within(field, value)?;
        }
        let (config_id, config) = self.opening_under(request.game, request.config_id)?;
        let key = request
            .request_id
            .as_deref()
            .map(|id| requests::open_round(id, &request));
        if let Some(key) = &key {
            if let Some(first) =
                self.answered_round(key, &Target::NewRound, |round, _| answer(round))?
            {
                return Ok(first);
            }
        }
        self.opens_under(config_id, &config)?;
        let (id, seed) = super::hands::fresh_hand()?;
        let at = self.now();
        let mut round = Round::new(seed, config.identified.clone());
        let mut open = request.open.clone();
        open.at = Timestamp(at);
        let events = round.step(&RoundCommand::Open(open))?;
        let appended = self
            .ledger
            .append(append_of(
                &id,
                0,
                &events,
                Some(seed),
                at,
                &request.actor,
                key,
            ))
            .await?;
        if appended.duplicate {
            // The same request, in flight when this one looked, opened its round first.
            return self.round_answer_of(&appended, |round, _| answer(round));
        }
        let answered = answer(&round);
        self.rounds.keep(&id, round);
        Ok(RoundAnswer {
            id,
            answer: answered,
            duplicate: false,
        })
    }

    /// Applies a command to a round, made from the time of the floor's clock (never before the
    /// round's last event), records its events and answers with `answer` of the round after it and
    /// the events it recorded (the round is never copied: it may hold thousands of places). With
    /// a request id used before, answers with the first call's round and events.
    pub async fn round_command<T>(
        &self,
        id: &str,
        command: impl Fn(Timestamp) -> RoundCommand,
        call: &RoundCall<'_>,
        answer: impl Fn(&Round, &[RoundEvent]) -> T,
    ) -> Result<RoundAnswer<T>, FloorError> {
        self.round_commands(id, |at| vec![command(at)], call, answer)
            .await
            .map_err(|e| match e {
                FloorError::RoundBatch { source, .. } => FloorError::Round(source),
                other => other,
            })
    }

    /// Applies commands to a round in order, as [`Floor::round_command`] does one, all recorded in
    /// one append: one refused refuses them all ([`FloorError::RoundBatch`], naming it) and
    /// nothing is written (a round a batch moved on before its refusal is dropped from memory and
    /// read again from the log).
    pub async fn round_commands<T>(
        &self,
        id: &str,
        commands: impl Fn(Timestamp) -> Vec<RoundCommand>,
        call: &RoundCall<'_>,
        answer: impl Fn(&Round, &[RoundEvent]) -> T,
    ) -> Result<RoundAnswer<T>, FloorError> {
        if !is_hand_id(id) {
            return Err(FloorError::NotFound {
                what: "round",
                id: id.to_string(),
            });
        }
        let actor = call.actor;
        actor_given(actor)?;
        let stream = round_stream(id);
        // The request's key, of its commands without their times.
        let key = call
            .request_id
            .map(|request| requests::round_commands(request, id, &commands(Timestamp(0)), actor));
        let target = Target::Stream(stream.clone());
        let done = |answered: T| RoundAnswer {
            id: id.to_string(),
            answer: answered,
            duplicate: false,
        };
        let place = self.hand_lock(&stream);
        let shared = self.ledger.shared();
        let in_flight = {
            let _guard = place.mutex.lock().await;
            if let Some(key) = &key {
                if let Some(first) = self.answered_round(key, &target, &answer)? {
                    return Ok(first);
                }
                match self.rounds.flying(key) {
                    Flying::No => {}
                    Flying::Other => return Err(FloorError::RequestReused { id: key.id.clone() }),
                    Flying::Same(mut waiting) => {
                        // The first call's append is in flight: its end (durable, failed or
                        // abandoned) is awaited, then its record answers, if there is one.
                        let _ = waiting.changed().await;
                        if let Some(first) = self.answered_round(key, &target, &answer)? {
                            return Ok(first);
                        }
                    }
                }
            }
            // On a log other servers write too, the kept round is used only when the log holds
            // exactly what it was built from; on this server's own log it may be ahead of what
            // is durable by the appends in flight, which reach the writer in order.
            let kept = self.rounds.take(id).filter(|round| {
                !shared
                    || self
                        .ledger
                        .stream_version(&stream)
                        .is_ok_and(|version| version == round.version())
            });
            let mut round = match kept {
                Some(round) => round,
                None => {
                    // Not kept (pushed out of memory, or dropped): its appends in flight land
                    // first, so the log holds all of it.
                    self.rounds.landed(id).await;
                    self.load_round(id)?
                }
            };
            let before = round.version();
            let at = Timestamp(self.now().max(round.last_at().0));
            let mut events = Vec::new();
            for (index, command) in commands(at).iter().enumerate() {
                match round.step(command) {
                    Ok(caused) => events.extend(caused),
                    Err(source) => {
                        if index == 0 {
                            // Refused before anything changed: the round is kept as it was.
                            self.rounds.keep(id, round);
                        }
                        return Err(FloorError::RoundBatch { index, source });
                    }
                }
            }
            // Handed to the writer under the round's lock: the next command's append follows it.
            let flying = key.as_ref().map(|key| self.rounds.fly(key));
            let pending = self
                .ledger
                .submit(append_of(id, before, &events, None, at.0, actor, key))
                .await?;
            // Registered under the round's lock: whoever takes the lock next sees it.
            let landed = (!shared).then(|| self.rounds.launch(id));
            let answered = answer(&round, &events);
            let in_play = matches!(
                round.phase(),
                Phase::Playing | Phase::Betting | Phase::AwaitingBeacon
            );
            let awaiting = round.phase() == Phase::AwaitingBeacon;
            if shared {
                // Another server may append next: this one's append is durable first.
                let appended = pending.wait().await?;
                if appended.duplicate {
                    return self.round_answer_of(&appended, &answer);
                }
                if in_play {
                    self.rounds.keep(id, round);
                } else {
                    self.rounds.keep_ended(id, Arc::new(round));
                }
                if awaiting {
                    self.awaiting_beacon(id);
                }
                return Ok(done(answered));
            }
            if in_play {
                self.rounds.keep(id, round);
            } else {
                // Read once its append is durable (a read checks the log's version first).
                self.rounds.keep_ended(id, Arc::new(round));
            }
            (pending, answered, flying, landed, awaiting)
        };
        let (pending, answered, flying, landed, awaiting) = in_flight;
        // The append's end is awaited by a task of its own, so that a caller gone away (its
        // handler dropped mid-call) ends nothing early: the round's landing and the request's
        // registration last until the writer answers, and a failed append still drops the round.
        let kept = self.rounds.clone();
        let round_id = id.to_string();
        // Told by the waiter itself, so that a round left awaiting its beacon is driven even when
        // the caller has gone away.
        let watch = self.beacon_watch().filter(|_| awaiting);
        let waiter = tokio::spawn(async move {
            let appended = pending.wait().await;
            if let (
                Some(watch),
                Ok(Appended {
                    duplicate: false, ..
                }),
            ) = (&watch, &appended)
            {
                watch(&round_id);
            }
            if !matches!(
                appended,
                Ok(Appended {
                    duplicate: false,
                    ..
                })
            ) {
                // The kept round moved on and the log did not (a failure), or took the commands
                // twice (a duplicate): it is dropped before anyone waiting for this append goes on.
                kept.drop_round(&round_id);
            }
            if let Some(landed) = landed {
                kept.forget_landing(&round_id, &landed);
            }
            drop(flying);
            appended
        });
        let appended = match waiter.await {
            Ok(appended) => appended,
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            // The runtime is shutting down.
            Err(_) => Err(LedgerError::Stopped),
        };
        match appended {
            Ok(appended) if appended.duplicate => {
                // The same request was in flight when this one looked: the writer answered with
                // its record (the appends decided on the round after this one fail on their
                // version), and the answer is the log's.
                self.round_answer_of(&appended, &answer)
            }
            Ok(_) => Ok(done(answered)),
            // The next command replays the round from the log.
            Err(error) => Err(error.into()),
        }
    }

    /// `f` of a round as the log holds it: the kept round when it is current, else the round
    /// replayed from its stream.
    pub fn with_round<T>(&self, id: &str, f: impl FnOnce(&Round) -> T) -> Result<T, FloorError> {
        // The kept round only when the log holds all of it: never a state whose appends are still
        // in flight. The log is asked first, outside the map's lock.
        let durable = self.ledger.stream_version(&round_stream(id))?;
        let mut f = Some(f);
        if let Some(Some(answer)) = self.rounds.with(id, |round| {
            if round.version() == durable {
                f.take().map(|f| f(round))
            } else {
                None
            }
        }) {
            return Ok(answer);
        }
        let f = f.ok_or_else(|| FloorError::Corrupt(format!("round {id}"), "read twice".into()))?;
        if let Some(round) = self.rounds.ended(id).filter(|r| r.version() == durable) {
            return Ok(f(&round));
        }
        let round = self.load_round(id)?;
        if matches!(round.phase(), Phase::Ended | Phase::Voided) {
            let round = Arc::new(round);
            self.rounds.keep_ended(id, round.clone());
            return Ok(f(&round));
        }
        self.rounds.remember(id, &round);
        Ok(f(&round))
    }

    /// A round's opening record (its table, game and dealer never change): from the round kept in
    /// memory, whose opening is durable (a round is kept only once its opening is), else from its
    /// stream.
    pub fn round_opened(&self, id: &str) -> Result<RoundOpened, FloorError> {
        if let Some(opened) = self.rounds.opening(id) {
            return Ok(opened);
        }
        if let Some(Some(opened)) = self.rounds.with(id, |round| round.opened().cloned()) {
            return Ok(opened);
        }
        let round = self.load_round(id)?;
        self.rounds.remember(id, &round);
        round
            .opened()
            .cloned()
            .ok_or_else(|| FloorError::Corrupt(format!("round {id}"), "not opened".into()))
    }

    /// A round as its stream records it, replayed from its seed (counted:
    /// [`Floor::rounds_replayed`]).
    pub fn load_round(&self, id: &str) -> Result<Round, FloorError> {
        let round = self.replayed_round(id, None).map(|(round, _)| round)?;
        self.rounds
            .replayed
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if round.phase() == Phase::AwaitingBeacon {
            // Read from the log (after a restart, say): whoever fetches beacons is told again.
            self.awaiting_beacon(id);
        }
        Ok(round)
    }

    /// How many times a round was replayed from the log to serve a command or a read since the
    /// floor opened (a round kept in memory, in play or ended, is not): what the metrics show.
    pub fn rounds_replayed(&self) -> u64 {
        self.rounds
            .replayed
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// A round as its stream records it up to `version` (all of it: `None`), replayed from its
    /// seed, and the events it was replayed from.
    pub(super) fn replayed_round(
        &self,
        id: &str,
        version: Option<u64>,
    ) -> Result<(Round, Vec<RoundEvent>), FloorError> {
        let not_found = || FloorError::NotFound {
            what: "round",
            id: id.to_string(),
        };
        if !is_hand_id(id) {
            return Err(not_found());
        }
        let mut entries = self.ledger.read_stream(&round_stream(id), 0)?;
        if let Some(version) = version {
            entries.truncate(usize::try_from(version).unwrap_or(usize::MAX));
        }
        if entries.is_empty() {
            return Err(not_found());
        }
        let corrupt = |e: String| FloorError::Corrupt(format!("round {id}"), e);
        let mut events = Vec::with_capacity(entries.len());
        for entry in &entries {
            let payload = entry.payload().map_err(|e| corrupt(e.to_string()))?;
            let event = codec::payload_to_round_event(&payload)
                .map_err(|e| corrupt(e.to_string()))?
                .ok_or_else(|| corrupt("an entry that is not a round's event".into()))?;
            events.push(event);
        }
        let Some(RoundEvent::Opened(opened)) = events.first() else {
            return Err(corrupt("the first event is not the opening".into()));
        };
        let config = self
            .kept(&opened.config_id)
            .ok_or_else(|| corrupt(format!("unknown configuration {}", opened.config_id)))?;
        let seed = self.seed_of(id)?;
        let round = Round::replay(seed, config.identified.clone(), &events)
            .map_err(|e| corrupt(e.to_string()))?;
        Ok((round, events))
    }
}

/// Who asks a command of a round, and the request's id.
#[derive(Clone, Copy, Debug)]
pub struct RoundCall<'a> {
    /// The authenticated principal.
    pub actor: &'a str,
    /// The request's id: a retry answers with the first call's round.
    pub request_id: Option<&'a str>,
}

impl<'a> RoundCall<'a> {
    /// A call without a request id.
    pub fn by(actor: &'a str) -> RoundCall<'a> {
        RoundCall {
            actor,
            request_id: None,
        }
    }
}

/// The append of a command's events to the round's stream, at the version they were decided on
/// (with the seed, kept secret, at the opening), and the recall indexes its events write: the
/// table's and the dealer's at the opening, the player's at each bet (`index.rs`).
fn append_of(
    id: &str,
    version: u64,
    events: &[RoundEvent],
    seed: Option<Seed>,
    at: u64,
    actor: &str,
    request: Option<RequestKey>,
) -> AppendRequest {
    AppendRequest {
        stream: round_stream(id),
        expected: Expected::Version(version),
        payloads: events
            .iter()
            .map(|e| codec::round_event_to_payload(e).encode_to_vec())
            .collect(),
        request,
        indexes: events.iter().flat_map(|e| indexes_of(id, e)).collect(),
        secrets: seed
            .map(|s| vec![(id.as_bytes().to_vec(), s.as_bytes().to_vec())])
            .unwrap_or_default(),
        unindex: Vec::new(),
        recorded_at_ms: at,
        actor: actor.to_string(),
    }
}

/// The recall index entries a round's event is written with.
pub(super) fn indexes_of(id: &str, event: &RoundEvent) -> Vec<(String, Vec<u8>)> {
    match event {
        RoundEvent::Opened(opened) => {
            super::index::for_opened_round(id, &opened.table, &opened.dealer, opened.at.0)
        }
        RoundEvent::BetPlaced(bet) => vec![super::index::for_round_bet(id, &bet.player, bet.at.0)],
        RoundEvent::DealerChanged(changed) => vec![super::index::for_dealer_change(
            id,
            &changed.to,
            changed.at.0,
        )],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{floor_in, floor_on, log_size};
    use super::*;
    use pitboss_engine::games::Action;
    use pitboss_engine::money::Money;
    use pitboss_engine::round::{Decide, PlaceBet, RoundError, Shape};
    use pitboss_engine::settlement::{BetId, Wager};
    use pitboss_ledger::mem::MemoryLog;

    fn open(seats: u8) -> OpenRoundRequest {
        OpenRoundRequest {
            game: GameId::CaribbeanStud,
            config_id: None,
            open: OpenRound {
                table: "T9".into(),
                dealer: "dealer-3".into(),
                shoe: Some("shuffler-1".into()),
                shape: Shape::Seats { seats },
                max_players: u32::from(seats),
                seats_per_player: 1,
                decision_window_ms: 60_000,
                at: Timestamp(0),
            },
            actor: "table-T9".into(),
            request_id: None,
        }
    }

    /// A 3-seat round played through the floor: each command one append on the round's stream; a
    /// refused command writes nothing; the round read back from the log (by another floor on the
    /// same log, which keeps nothing in memory) is the one played, and the log verifies.
    #[tokio::test]
    async fn a_round_is_recorded_command_by_command_and_replays_from_its_stream() {
        let dir = tempfile::tempdir().unwrap();
        let log = MemoryLog::new();
        let (floor, _) = floor_on(&log, dir.path()).await;
        let id = floor.open_round(open(3), |_| ()).await.unwrap().id;
        for seat in 1..=3u8 {
            floor
                .round_command(&id, bet(seat), &RoundCall::by("table-T9"), |_, _| ())
                .await
                .unwrap();
        }
        let size = log_size(&floor);
        let taken = floor
            .round_command(
                &id,
                |at| {
                    RoundCommand::Bet(PlaceBet {
                        seed_digest: None,
                        player: "p4".into(),
                        seat: Some(2),
                        wagers: vec![Wager {
                            bet: BetId::Ante,
                            amount: Money(500),
                        }],
                        at,
                    })
                },
                &RoundCall::by("table-T9"),
                |_, _| (),
            )
            .await
            .unwrap_err();
        assert!(
            matches!(taken, FloorError::Round(RoundError::SeatTaken { seat: 2 })),
            "{taken}"
        );
        assert_eq!(log_size(&floor), size, "a refused command writes nothing");
        floor
            .round_command(
                &id,
                |at| RoundCommand::CloseBetting { at, shaker: None },
                &RoundCall::by("table-T9"),
                |_, _| (),
            )
            .await
            .unwrap();
        let mut last = None;
        for seat in 1..=3u8 {
            last = Some(
                floor
                    .round_command(
                        &id,
                        |at| {
                            RoundCommand::Decide(Decide {
                                player: format!("p{seat}"),
                                seat: Some(seat),
                                action: if seat == 2 {
                                    Action::Fold
                                } else {
                                    Action::Raise
                                },
                                at,
                            })
                        },
                        &RoundCall::by("table-T9"),
                        |round, _| {
                            let settled: Vec<Option<pitboss_engine::settlement::Settlement>> =
                                round
                                    .places()
                                    .iter()
                                    .map(|p| p.hand().settlement().cloned())
                                    .collect();
                            (round.phase(), round.version(), settled)
                        },
                    )
                    .await
                    .unwrap(),
            );
        }
        let (phase, version, settled) = last.unwrap().answer;
        assert_eq!(phase, Phase::Ended);
        // Another floor on the same log: the round from its stream alone.
        let (other, _) = floor_on(&log, dir.path()).await;
        let read = other.load_round(&id).unwrap();
        assert_eq!(read.phase(), Phase::Ended);
        assert_eq!(read.version(), version);
        let again: Vec<_> = read
            .places()
            .iter()
            .map(|p| p.hand().settlement().cloned())
            .collect();
        assert_eq!(again, settled);
        assert!(settled.iter().all(Option::is_some));
        assert!(other
            .log()
            .verify_in_parts(0, log_size(&other), &|| false)
            .is_ok());
        // An ended round takes no more commands.
        let ended = other
            .round_command(
                &id,
                |at| RoundCommand::CloseBetting { at, shaker: None },
                &RoundCall::by("table-T9"),
                |_, _| (),
            )
            .await
            .unwrap_err();
        assert!(
            matches!(ended, FloorError::Round(RoundError::Ended(Phase::Ended))),
            "{ended}"
        );
        // The ended round is kept for reading, and read from memory while the log holds all of it:
        // a thousand reads replay nothing.
        let kept = floor.rounds.ended(&id).expect("kept for reading");
        assert_eq!(kept.version(), version);
        let replayed = floor.rounds_replayed();
        for _ in 0..1000 {
            assert_eq!(floor.with_round(&id, Round::version).unwrap(), version);
        }
        assert_eq!(floor.rounds_replayed(), replayed);
        // Pushed out of memory: the next read replays it once, and keeps it for the reads after.
        floor.rounds.drop_round(&id);
        for _ in 0..10 {
            assert_eq!(floor.with_round(&id, Round::phase).unwrap(), Phase::Ended);
        }
        assert_eq!(floor.rounds_replayed(), replayed + 1);
        // Voided after its showdown (by two people): reads follow the log, even when a round
        // kept for reading is behind it.
        floor
            .round_command(
                &id,
                |at| {
                    RoundCommand::VoidRound(pitboss_engine::games::VoidOrder {
                        kind: pitboss_engine::games::VoidKind::Malfunction,
                        reason: "misdeal".into(),
                        recorded_by: "a".into(),
                        approved_by: Some("b".into()),
                        at,
                    })
                },
                &RoundCall::by("b"),
                |_, _| (),
            )
            .await
            .unwrap();
        floor.rounds.keep_ended(&id, kept.clone());
        assert_eq!(floor.with_round(&id, Round::phase).unwrap(), Phase::Voided);
        assert_eq!(floor.rounds.ended(&id).unwrap().phase(), Phase::Voided);
        // Bounded by rounds and by places.
        for i in 0..ENDED_KEPT + 3 {
            floor.rounds.keep_ended(&format!("{i:032x}"), kept.clone());
        }
        let ended = floor.rounds.ended.lock().unwrap();
        assert_eq!(ended.rounds.len(), ENDED_KEPT);
        assert_eq!(ended.places, ENDED_KEPT * kept.places().len());
        drop(ended);
        floor.rounds.drop_round("00000000000000000000000000000010");
        assert_eq!(
            floor.rounds.ended.lock().unwrap().places,
            (ENDED_KEPT - 1) * kept.places().len()
        );
    }

    /// A Caribbean Stud shared hand with `players` bets, as the engine alone gives it.
    fn round_of(players: u32) -> Round {
        let config = std::sync::Arc::new(pitboss_engine::config::GameConfig::default_for(
            GameId::CaribbeanStud,
        ));
        let mut round = Round::new(Seed::from_bytes([7; 32]), config);
        round
            .step(&RoundCommand::Open(OpenRound {
                table: "T".into(),
                dealer: "D".into(),
                shoe: None,
                shape: Shape::SharedHand,
                max_players: players + 1,
                seats_per_player: 1,
                decision_window_ms: 60_000,
                at: Timestamp(1),
            }))
            .unwrap();
        for p in 0..players {
            round
                .step(&RoundCommand::Bet(PlaceBet {
                    seed_digest: None,
                    player: format!("p{p}"),
                    seat: None,
                    wagers: vec![Wager {
                        bet: BetId::Ante,
                        amount: Money(500),
                    }],
                    at: Timestamp(2),
                }))
                .unwrap();
        }
        round
    }

    /// The rounds kept are bounded by their number and by their places in all: the least
    /// recently used go first, a round above the places' bound alone is not kept, and the count
    /// of places follows every round taken out and put back.
    #[test]
    fn kept_rounds_are_bounded_by_their_number_and_their_places() {
        let mut kept: Kept<Round> = Kept::new(3, 10);
        kept.put("a", round_of(4));
        kept.put("b", round_of(4));
        assert_eq!((kept.rounds.len(), kept.places), (2, 8));
        // Three more would pass ten places: "a", the least recently used, makes room.
        kept.put("c", round_of(3));
        assert_eq!((kept.rounds.len(), kept.places), (2, 7));
        assert!(kept.rounds.peek("a").is_none());
        // Taken out and put back with more places: counted once, at its new size.
        let mut b = kept.pop("b").unwrap();
        assert_eq!(kept.places, 3);
        b.step(&RoundCommand::Bet(PlaceBet {
            seed_digest: None,
            player: "late".into(),
            seat: None,
            wagers: vec![Wager {
                bet: BetId::Ante,
                amount: Money(500),
            }],
            at: Timestamp(3),
        }))
        .unwrap();
        kept.put("b", b);
        assert_eq!(kept.places, 8);
        // The number's bound: a third and a fourth round push out the least recently used.
        kept.put("d", round_of(1));
        kept.put("e", round_of(1));
        assert_eq!(kept.rounds.len(), 3);
        assert!(kept.rounds.peek("c").is_none());
        assert_eq!(kept.places, 7);
        // Too large alone: not kept, nothing pushed out.
        kept.put("huge", round_of(11));
        assert!(kept.rounds.peek("huge").is_none());
        assert_eq!((kept.rounds.len(), kept.places), (3, 7));
        assert_eq!(
            kept.places,
            kept.rounds
                .iter()
                .map(|(_, r)| r.places().len())
                .sum::<usize>()
        );
    }

    fn bet(seat: u8) -> impl Fn(Timestamp) -> RoundCommand {
        move |at| {
            RoundCommand::Bet(PlaceBet {
                seed_digest: None,
                player: format!("p{seat}"),
                seat: Some(seat),
                wagers: vec![Wager {
                    bet: BetId::Ante,
                    amount: Money(500),
                }],
                at,
            })
        }
    }

    /// Request ids on rounds: a retried opening answers with the round first opened, a retried
    /// command with the round as it first left it, each writing nothing; the same id for other
    /// content is refused naming it; two identical calls at once (the second decided while the
    /// first's append may be in flight) record one append, and the round plays on.
    #[tokio::test(flavor = "multi_thread")]
    async fn a_retried_round_call_is_answered_from_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let (floor, _) = floor_in(dir.path()).await;
        let with_id = |id: &str| OpenRoundRequest {
            request_id: Some(id.into()),
            ..open(3)
        };
        let first = floor
            .open_round(with_id("open-1"), |r| r.version())
            .await
            .unwrap();
        assert!(!first.duplicate);
        let size = log_size(&floor);
        let again = floor
            .open_round(with_id("open-1"), |r| r.version())
            .await
            .unwrap();
        assert_eq!(
            (again.id.as_str(), again.answer, again.duplicate),
            (first.id.as_str(), 1, true)
        );
        assert_eq!(log_size(&floor), size);
        let other = floor
            .open_round(
                OpenRoundRequest {
                    open: OpenRound {
                        dealer: "dealer-4".into(),
                        ..open(3).open
                    },
                    ..with_id("open-1")
                },
                |_| (),
            )
            .await
            .unwrap_err();
        assert!(
            matches!(&other, FloorError::RequestReused { id } if id == "open-1"),
            "{other}"
        );

        let id = first.id;
        let call = RoundCall {
            actor: "table-T9",
            request_id: Some("bet-1"),
        };
        let answer = |round: &Round, events: &[RoundEvent]| (round.version(), events.len());
        let placed = floor
            .round_command(&id, bet(1), &call, answer)
            .await
            .unwrap();
        let size = log_size(&floor);
        let retried = floor
            .round_command(&id, bet(1), &call, answer)
            .await
            .unwrap();
        assert_eq!((retried.answer, retried.duplicate), (placed.answer, true));
        assert_eq!(log_size(&floor), size, "a retry writes nothing");
        let reused = floor
            .round_command(&id, bet(2), &call, answer)
            .await
            .unwrap_err();
        assert!(
            matches!(&reused, FloorError::RequestReused { id } if id == "bet-1"),
            "{reused}"
        );
        assert_eq!(log_size(&floor), size);

        // Two identical calls at once: one append, the same answer twice.
        let call = RoundCall {
            actor: "table-T9",
            request_id: Some("bet-2"),
        };
        let (a, b) = tokio::join!(
            floor.round_command(&id, bet(2), &call, answer),
            floor.round_command(&id, bet(2), &call, answer)
        );
        let (a, b) = (a.unwrap(), b.unwrap());
        assert_eq!(a.answer, b.answer);
        assert!(a.duplicate != b.duplicate, "exactly one is the first");
        assert_eq!(log_size(&floor), size + 1);
        // The round plays on from what the log holds.
        let third = floor
            .round_command(&id, bet(3), &RoundCall::by("table-T9"), answer)
            .await
            .unwrap();
        assert_eq!(third.answer.0, a.answer.0 + 1);
        assert_eq!(floor.load_round(&id).unwrap().places().len(), 3);
    }

    /// A round pushed out of memory while its append is in flight: the next command waits for
    /// that append to land, reads the round from the log with it, and is decided on it.
    #[tokio::test(flavor = "multi_thread")]
    async fn a_round_pushed_out_with_an_append_in_flight_plays_on_from_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let (floor, _) = floor_in(dir.path()).await;
        let id = floor.open_round(open(3), |_| ()).await.unwrap().id;
        let call = RoundCall::by("table-T9");
        let version = |round: &Round, _: &[RoundEvent]| round.version();
        let (first, second) =
            tokio::join!(floor.round_command(&id, bet(1), &call, version), async {
                // As the memory's bound would: the round is dropped while the bet is in flight.
                floor.rounds.take(&id);
                floor.round_command(&id, bet(2), &call, version).await
            });
        let (first, second) = (first.unwrap(), second.unwrap());
        assert_eq!(second.answer, first.answer + 1);
        assert_eq!(floor.load_round(&id).unwrap().places().len(), 2);
    }

    /// A caller gone away mid-append (its handler dropped while the writer syncs) leaves the
    /// append in flight as it was: a round pushed out of memory meanwhile is read from the log only
    /// once that append has landed, so the next command is decided on it.
    #[tokio::test]
    async fn a_call_dropped_with_its_append_in_flight_leaves_the_round_whole() {
        let dir = tempfile::tempdir().unwrap();
        let (floor, _) = floor_in(dir.path()).await;
        let id = floor.open_round(open(3), |_| ()).await.unwrap().id;
        let call = RoundCall::by("table-T9");
        let version = |round: &Round, _: &[RoundEvent]| round.version();
        let before = floor.with_round(&id, Round::version).unwrap();
        let mut first = Box::pin(floor.round_command(&id, bet(1), &call, version));
        // Polled once: decided and handed to the writer, then waiting for it.
        let polled = std::future::poll_fn(|cx| {
            std::task::Poll::Ready(std::future::Future::poll(first.as_mut(), cx))
        })
        .await;
        assert!(
            polled.is_pending(),
            "the append is in flight after one poll"
        );
        drop(first);
        floor.rounds.take(&id);
        let second = floor
            .round_command(&id, bet(2), &call, version)
            .await
            .expect("decided on the round with the first bet");
        assert_eq!(second.answer, before + 2);
        assert_eq!(floor.load_round(&id).unwrap().places().len(), 2);
    }

    #[tokio::test]
    async fn an_unknown_round_is_not_found_and_a_name_over_its_bound_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (floor, _) = floor_in(dir.path()).await;
        let unknown = floor.load_round(&"ab".repeat(16)).unwrap_err();
        assert!(matches!(
            unknown,
            FloorError::NotFound { what: "round", .. }
        ));
        let mut long = open(2);
        long.open.dealer = "d".repeat(super::super::MAX_NAME_CHARS + 1);
        let refused = floor.open_round(long, |_| ()).await.unwrap_err();
        assert!(
            matches!(&refused, FloorError::Invalid { field, .. } if field == "dealer"),
            "{refused}"
        );
        assert_eq!(log_size(&floor), log_size(&floor));
    }
}
