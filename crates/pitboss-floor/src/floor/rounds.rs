//! The rounds room: a table's round (`docs/rounds.md`) opened with its seed drawn from the operating
//! system (kept secret beside the log until the round ends), its commands decided by the engine's
//! `Round` one at a time per round (the floor's per-stream locks), every command's events recorded
//! in one append on the round's stream, and a round loaded by replaying its stream.
//!
//! Rounds in play are kept in memory, at most [`KEPT`] of them: a command on a kept round steps it
//! in place (a round of thousands of places is never copied); a round not kept, or kept behind a
//! log other servers also write, is replayed from its stream first. A refused command leaves the
//! kept round as it was; a command whose append fails drops it, so the next is decided on the log.
//!
//! Must not decide a rule (the engine's round does) nor touch the ledger's storage but through its
//! methods.

use std::sync::{Mutex, PoisonError};

use prost::Message;

use crate::codec::{self, EntryPayload};
use pitboss_engine::config::ConfigId;
use pitboss_engine::game::GameId;
use pitboss_engine::games::Timestamp;
use pitboss_engine::rng::Seed;
use pitboss_engine::round::{OpenRound, Phase, Round, RoundCommand, RoundEvent, RoundOpened};
use pitboss_ledger::{AppendRequest, Expected};

use super::{actor_given, is_hand_id, Floor, FloorError};

/// The most rounds kept in memory at once.
pub const KEPT: usize = 64;

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

/// The rounds kept in memory, and the opening records of more.
pub(super) struct KeptRounds {
    rounds: Mutex<crate::lru::Lru<String, Round>>,
    openings: Mutex<crate::lru::Lru<String, RoundOpened>>,
}

impl Default for KeptRounds {
    fn default() -> KeptRounds {
        KeptRounds {
            rounds: Mutex::new(crate::lru::bounded(KEPT)),
            openings: Mutex::new(crate::lru::bounded(OPENINGS_KEPT)),
        }
    }
}

impl KeptRounds {
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
            .peek(id)
            .map(f)
    }

    fn keep(&self, id: &str, round: Round) {
        self.remember(id, &round);
        self.rounds
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .put(id.to_string(), round);
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
}

impl Floor {
    /// Opens a round: its seed drawn and kept secret, its opening recorded. Answers with its id and
    /// `answer` of the round.
    pub async fn open_round<T>(
        &self,
        request: OpenRoundRequest,
        answer: impl FnOnce(&Round) -> T,
    ) -> Result<(String, T), FloorError> {
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
        self.opens_under(config_id, &config)?;
        let (id, seed) = super::hands::fresh_hand()?;
        let at = self.now();
        let mut round = Round::new(seed, config.identified.clone());
        let mut open = request.open.clone();
        open.at = Timestamp(at);
        let events = round.step(&RoundCommand::Open(open))?;
        self.ledger
            .append(append_of(&id, 0, &events, Some(seed), at, &request.actor))
            .await?;
        let answered = answer(&round);
        self.rounds.keep(&id, round);
        Ok((id, answered))
    }

    /// Applies a command to a round, made from the time of the floor's clock (never before the
    /// round's last event), records its events and answers with `answer` of the round after it and
    /// the events it recorded (the round is never copied: it may hold thousands of places).
    pub async fn round_command<T>(
        &self,
        id: &str,
        command: impl Fn(Timestamp) -> RoundCommand,
        actor: &str,
        answer: impl FnOnce(&Round, &[RoundEvent]) -> T,
    ) -> Result<T, FloorError> {
        self.round_commands(id, |at| vec![command(at)], actor, answer)
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
        actor: &str,
        answer: impl FnOnce(&Round, &[RoundEvent]) -> T,
    ) -> Result<T, FloorError> {
        if !is_hand_id(id) {
            return Err(FloorError::NotFound {
                what: "round",
                id: id.to_string(),
            });
        }
        actor_given(actor)?;
        let stream = round_stream(id);
        let place = self.hand_lock(&stream);
        let shared = self.ledger.shared();
        let (pending, answered) = {
            let _guard = place.mutex.lock().await;
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
                None => self.load_round(id)?,
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
            let pending = self
                .ledger
                .submit(append_of(id, before, &events, None, at.0, actor))
                .await?;
            let answered = answer(&round, &events);
            let in_play = matches!(round.phase(), Phase::Playing | Phase::Betting);
            if shared {
                // Another server may append next: this one's append is durable first.
                pending.wait().await?;
                if in_play {
                    self.rounds.keep(id, round);
                }
                return Ok(answered);
            }
            if in_play {
                self.rounds.keep(id, round);
            }
            (pending, answered)
        };
        match pending.wait().await {
            Ok(_) => Ok(answered),
            Err(error) => {
                // The kept round moved on and the log did not: it is dropped, and the next
                // command replays the round from the log (the appends submitted after this one
                // fail on its version, as they must).
                self.rounds.take(id);
                Err(error.into())
            }
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
        let round = self.load_round(id)?;
        self.rounds.remember(id, &round);
        let f = f.ok_or_else(|| FloorError::Corrupt(format!("round {id}"), "read twice".into()))?;
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

    /// A round as its stream records it, replayed from its seed.
    pub fn load_round(&self, id: &str) -> Result<Round, FloorError> {
        let not_found = || FloorError::NotFound {
            what: "round",
            id: id.to_string(),
        };
        if !is_hand_id(id) {
            return Err(not_found());
        }
        let entries = self.ledger.read_stream(&round_stream(id), 0)?;
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
        Round::replay(seed, config.identified.clone(), &events).map_err(|e| corrupt(e.to_string()))
    }
}

/// The append of a command's events to the round's stream, at the version they were decided on
/// (with the seed, kept secret, at the opening).
fn append_of(
    id: &str,
    version: u64,
    events: &[RoundEvent],
    seed: Option<Seed>,
    at: u64,
    actor: &str,
) -> AppendRequest {
    AppendRequest {
        stream: round_stream(id),
        expected: Expected::Version(version),
        payloads: events
            .iter()
            .map(|e| codec::round_event_to_payload(e).encode_to_vec())
            .collect(),
        request: None,
        indexes: Vec::new(),
        secrets: seed
            .map(|s| vec![(id.as_bytes().to_vec(), s.as_bytes().to_vec())])
            .unwrap_or_default(),
        unindex: Vec::new(),
        recorded_at_ms: at,
        actor: actor.to_string(),
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
        let (id, ()) = floor.open_round(open(3), |_| ()).await.unwrap();
        for seat in 1..=3u8 {
            floor
                .round_command(
                    &id,
                    |at| {
                        RoundCommand::Bet(PlaceBet {
                            player: format!("p{seat}"),
                            seat: Some(seat),
                            wagers: vec![Wager {
                                bet: BetId::Ante,
                                amount: Money(500),
                            }],
                            at,
                        })
                    },
                    "table-T9",
                    |_, _| (),
                )
                .await
                .unwrap();
        }
        let size = log_size(&floor);
        let taken = floor
            .round_command(
                &id,
                |at| {
                    RoundCommand::Bet(PlaceBet {
                        player: "p4".into(),
                        seat: Some(2),
                        wagers: vec![Wager {
                            bet: BetId::Ante,
                            amount: Money(500),
                        }],
                        at,
                    })
                },
                "table-T9",
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
                "table-T9",
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
                        "table-T9",
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
        let (phase, version, settled) = last.unwrap();
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
                "table-T9",
                |_, _| (),
            )
            .await
            .unwrap_err();
        assert!(
            matches!(ended, FloorError::Round(RoundError::Ended(Phase::Ended))),
            "{ended}"
        );
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
