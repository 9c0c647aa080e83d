//! The `pitboss.v1.Lab` service: PAR sheets, simulation and raw RNG output, by delegating to
//! `crate::lab`. Read-only; nothing here touches the log.
//!
//! Exact sheets and simulations take seconds of every core, so they run on the blocking pool one at
//! a time (a semaphore), never on the async workers that serve play; exact sheets are kept per
//! configuration once computed (they cannot change: the id is the configuration's hash).

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, Semaphore};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use super::convert;
use crate::engine::card::Deck;
use crate::engine::config::{ConfigId, GameConfig};
use crate::engine::game::GameId;
use crate::engine::rng::Seed;
use crate::floor::Floor;
use crate::lab::simulate::{self, Strategy};
use crate::lab::{self, rng_output, ParSheet};
use crate::proto;
use crate::proto::lab_server::Lab;

/// Largest simulation of one call.
const MAX_HANDS: u64 = 100_000_000;
/// Largest Pai Gow main-bet simulation of one call.
const MAX_ROUNDS: u64 = 1_000_000_000;
/// Largest RNG stream of one call (words).
const MAX_WORDS: u64 = 1 << 32;
/// Largest shuffle stream of one call.
const MAX_SHUFFLES: u64 = 100_000_000;

/// The Lab service.
pub struct LabService {
    floor: Arc<Floor>,
    busy: Arc<Semaphore>,
    sheets: Mutex<HashMap<ConfigId, Arc<Vec<ParSheet>>>>,
}

impl LabService {
    /// Serves `floor`'s configurations.
    pub fn new(floor: Arc<Floor>) -> LabService {
        LabService {
            floor,
            busy: Arc::new(Semaphore::new(1)),
            sheets: Mutex::new(HashMap::new()),
        }
    }

    /// The configuration asked for: a published one by id, or the game's default.
    fn config(&self, game: GameId, id: &str) -> Result<GameConfig, Status> {
        if id.is_empty() {
            return Ok(GameConfig::default_for(game));
        }
        let id = convert::config_id("config_id", id)?;
        let config = self
            .floor
            .config(&id)
            .ok_or_else(|| Status::not_found(format!("configuration {id} is not published")))?;
        if config.game != game {
            return Err(convert::invalid_argument(
                "config_id",
                format!("configuration {id} is for {}, not {game}", config.game),
            ));
        }
        Ok((*config).clone())
    }

    /// Runs `work` on the blocking pool, after the computations before it.
    async fn compute<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> Result<T, String> + Send + 'static,
    ) -> Result<T, Status> {
        let _permit = self
            .busy
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| Status::unavailable(e.to_string()))?;
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|e| Status::internal(e.to_string()))?
            .map_err(Status::internal)
    }
}

fn threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

fn sheet_to_proto(sheet: &ParSheet) -> proto::ParSheet {
    proto::ParSheet {
        title: sheet.title.clone(),
        config_id: sheet.config_id.clone(),
        notes: sheet.notes.clone(),
        rows: sheet
            .rows
            .iter()
            .map(|r| proto::ParRow {
                row: r.row.clone(),
                count: r.count.to_string(),
                wagered: r.wagered.to_string(),
                returned: r.returned.to_string(),
                probability: r.count as f64 / sheet.denominator as f64,
            })
            .collect(),
        denominator: sheet.denominator.to_string(),
        wagered: sheet.wagered().to_string(),
        returned: sheet.returned().to_string(),
        r#return: sheet.return_rate(),
        house_edge: sheet.house_edge(),
        element_of_risk: sheet.element_of_risk(),
        average_wager: sheet.average_wager(),
        hit_frequency: sheet.hit_frequency(),
    }
}

fn report_to_proto(report: &simulate::Report) -> proto::SimulateResponse {
    proto::SimulateResponse {
        config_id: report.config_id.clone(),
        seed: report.seed.as_bytes().to_vec(),
        hands: report.hands,
        seconds: report.seconds,
        groups: report
            .groups
            .iter()
            .map(|g| {
                let (low, high) = g.tally.interval();
                proto::SimulatedGroup {
                    name: g.name.clone(),
                    hands: g.tally.hands,
                    wagered: g.tally.wagered.to_string(),
                    returned: g.tally.returned.to_string(),
                    r#return: g.tally.return_rate(),
                    interval_low: low,
                    interval_high: high,
                    exact_return: g.exact.as_ref().map(ParSheet::return_rate),
                    rows: g
                        .rows()
                        .into_iter()
                        .map(|(row, hits, frequency, exact)| proto::SimulatedRow {
                            row,
                            hits,
                            frequency,
                            exact_probability: exact,
                        })
                        .collect(),
                    chi_square: g.chi_square.as_ref().map(|c| proto::ChiSquare {
                        statistic: c.statistic,
                        degrees_of_freedom: c.degrees_of_freedom,
                        p_value: c.p_value,
                        unknown_rows: c.unknown_rows.clone(),
                    }),
                }
            })
            .collect(),
    }
}

fn within(field: &str, value: u64, max: u64) -> Result<u64, Status> {
    if value == 0 || value > max {
        Err(convert::invalid_argument(
            field,
            format!("{value} is out of range: 1 to {max}"),
        ))
    } else {
        Ok(value)
    }
}

/// Sends what is written as stream messages (`wrap` makes one from the bytes of a `write` call);
/// fails, ending the producer, once the client is gone.
struct ChannelWriter<M, F: Fn(Vec<u8>) -> M> {
    tx: mpsc::Sender<Result<M, Status>>,
    wrap: F,
}

impl<M, F: Fn(Vec<u8>) -> M> Write for ChannelWriter<M, F> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.tx
            .blocking_send(Ok((self.wrap)(buf.to_vec())))
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs a producer writing into a stream of messages on the blocking pool; a failure other than
/// the client going away ends the stream with an error.
fn produce<M: Send + 'static>(
    wrap: impl Fn(Vec<u8>) -> M + Send + 'static,
    work: impl FnOnce(&mut dyn Write) -> std::io::Result<()> + Send + 'static,
) -> ReceiverStream<Result<M, Status>> {
    let (tx, rx) = mpsc::channel(16);
    tokio::task::spawn_blocking(move || {
        let failed = tx.clone();
        let mut out = ChannelWriter { tx, wrap };
        if let Err(e) = work(&mut out) {
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                let _ = failed.blocking_send(Err(Status::internal(e.to_string())));
            }
        }
    });
    ReceiverStream::new(rx)
}

#[tonic::async_trait]
impl Lab for LabService {
    type StreamRngWordsStream = ReceiverStream<Result<proto::RngWordsChunk, Status>>;
    type StreamShufflesStream = ReceiverStream<Result<proto::ShuffleSamples, Status>>;

    async fn get_par_sheets(
        &self,
        request: Request<proto::GetParSheetsRequest>,
    ) -> Result<Response<proto::GetParSheetsResponse>, Status> {
        let r = request.into_inner();
        let game = convert::game("game", r.game)?;
        let config = self.config(game, &r.config_id)?;
        if game != GameId::FortunePaiGow && r.main_bet_rounds > 0 {
            return Err(convert::invalid_argument(
                "main_bet_rounds",
                "only Fortune Pai Gow's main bet is simulated",
            ));
        }
        if r.main_bet_rounds > MAX_ROUNDS {
            return Err(convert::invalid_argument(
                "main_bet_rounds",
                format!("{} is above the limit of {MAX_ROUNDS}", r.main_bet_rounds),
            ));
        }
        let seed = if r.seed.is_empty() {
            Seed::from_bytes([0; 32])
        } else {
            convert::seed("seed", &r.seed)?
        };
        let id = config.id();
        let started = std::time::Instant::now();
        let cached = self
            .sheets
            .lock()
            .map_err(|_| Status::internal("sheet cache poisoned"))?
            .get(&id)
            .cloned();
        let sheets = match cached {
            Some(sheets) => sheets,
            None => {
                let for_work = config.clone();
                let sheets = Arc::new(
                    self.compute(move || lab::exact_par_sheets(&for_work, threads()))
                        .await?,
                );
                self.sheets
                    .lock()
                    .map_err(|_| Status::internal("sheet cache poisoned"))?
                    .insert(id, sheets.clone());
                sheets
            }
        };
        let main_bet = if r.main_bet_rounds > 0 {
            let rounds = r.main_bet_rounds;
            let for_work = config.clone();
            let sim = self
                .compute(move || lab::pai_gow::simulate_main(&for_work, rounds, &seed, threads()))
                .await?;
            let (low, high) = sim.interval();
            Some(proto::SimulatedMainBet {
                rounds: sim.rounds,
                wins: sim.wins,
                pushes: sim.pushes,
                losses: sim.losses,
                dealer_nine_high_pushes: sim.nine_high,
                r#return: sim.return_rate(),
                interval_low: low,
                interval_high: high,
            })
        } else {
            None
        };
        Ok(Response::new(proto::GetParSheetsResponse {
            config_id: id.to_string(),
            sheets: sheets.iter().map(sheet_to_proto).collect(),
            main_bet,
            seconds: started.elapsed().as_secs_f64(),
        }))
    }

    async fn simulate(
        &self,
        request: Request<proto::SimulateRequest>,
    ) -> Result<Response<proto::SimulateResponse>, Status> {
        let r = request.into_inner();
        let game = convert::game("game", r.game)?;
        let config = self.config(game, &r.config_id)?;
        let hands = within("hands", r.hands, MAX_HANDS)?;
        let strategy = match proto::Strategy::try_from(r.strategy) {
            Ok(proto::Strategy::Optimal | proto::Strategy::Unspecified) => Strategy::Optimal,
            Ok(proto::Strategy::Always) => Strategy::Always,
            Err(_) => {
                return Err(convert::invalid_argument(
                    "strategy",
                    format!("{} is not a known Strategy value", r.strategy),
                ))
            }
        };
        if !simulate::supports(game, strategy) {
            return Err(convert::invalid_argument(
                "strategy",
                format!("{game} has one way to play: STRATEGY_OPTIMAL"),
            ));
        }
        let seed = if r.seed.is_empty() {
            rng_output::os_seed().map_err(|e| Status::internal(e.to_string()))?
        } else {
            convert::seed("seed", &r.seed)?
        };
        let request = simulate::Request {
            config,
            hands,
            strategy,
            seed,
            threads: threads(),
        };
        let report = self
            .compute(move || simulate::run(&request, &AtomicU64::new(0)))
            .await?;
        Ok(Response::new(report_to_proto(&report)))
    }

    async fn stream_rng_words(
        &self,
        request: Request<proto::StreamRngWordsRequest>,
    ) -> Result<Response<Self::StreamRngWordsStream>, Status> {
        let r = request.into_inner();
        let words = within("words", r.words, MAX_WORDS)?;
        let per_seed = if r.words_per_seed == 0 {
            1024
        } else {
            r.words_per_seed
        };
        Ok(Response::new(produce(
            |data| proto::RngWordsChunk { data },
            move |out| rng_output::write_words(out, words, per_seed, rng_output::os_seed),
        )))
    }

    async fn stream_shuffles(
        &self,
        request: Request<proto::StreamShufflesRequest>,
    ) -> Result<Response<Self::StreamShufflesStream>, Status> {
        let r = request.into_inner();
        let shuffles = within("shuffles", r.shuffles, MAX_SHUFFLES)?;
        let deck = match proto::DeckKind::try_from(r.deck) {
            Ok(proto::DeckKind::Standard52 | proto::DeckKind::Unspecified) => Deck::Standard52,
            Ok(proto::DeckKind::WithJoker53) => Deck::WithJoker53,
            Err(_) => {
                return Err(convert::invalid_argument(
                    "deck",
                    format!("{} is not a known DeckKind value", r.deck),
                ))
            }
        };
        let deck_size = deck.len() as u32;
        Ok(Response::new(produce(
            move |cards| proto::ShuffleSamples { cards, deck_size },
            move |out| rng_output::write_shuffles(out, shuffles, deck, rng_output::os_seed),
        )))
    }
}
