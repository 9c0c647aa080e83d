//! The `pitboss.v1.Lab` service: PAR sheets, simulation, raw RNG output, the RNG battery and the
//! certification report, by delegating to `pitboss_lab`. Read-only but for `Certify`, which
//! records its report through the floor once it is computed.
//!
//! Exact sheets and simulations take seconds of every core, so they run in the lab's pool of
//! workers (`work.rs`: one at a time, off the async workers that serve play); a simulation whose
//! caller has gone stops within a few thousand hands. Exact sheets are kept per configuration once
//! computed (they cannot change: the id is the configuration's hash), for a bounded number of
//! configurations. At most a few streams run at once, each ended when its client reads nothing for
//! a minute. Every request is held to its limits (`limits/`) before anything else.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use sha2::{Digest, Sha256};
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use super::bit_stream;
use super::convert;
use super::guard;
use super::limits::{self, Bounded};
use super::scope;
use super::status::{invalid_argument, status};
use super::work::{lab_status, Pool, Shutdown};
use crate::certification::NoteLine;
use crate::floor::Floor;
use crate::lru::{bounded, Lru};
use crate::proto;
use crate::proto::lab_server::Lab;
use pitboss_engine::card::Deck;
use pitboss_engine::config::{ConfigId, GameConfig};
use pitboss_engine::game::GameId;
use pitboss_engine::rng::Seed;
use pitboss_lab::certificate::{self, Transcripts};
use pitboss_lab::rng_battery::{self, Detail, Plan};
use pitboss_lab::simulate::{self, Strategy};
use pitboss_lab::{rng_output, ParSheet};

/// The Lab service.
pub struct LabService {
    floor: Arc<Floor>,
    /// The lab's workers, shared with the Play service's strategy-table builds.
    pool: Pool,
    sheets: Mutex<Lru<ConfigId, Arc<Vec<ParSheet>>>>,
    /// Permits of the streams running now.
    streams: Arc<Semaphore>,
    /// Streams end when the server shuts down.
    shutdown: Shutdown,
}

impl LabService {
    /// Serves `floor`'s configurations, computing in `pool`.
    pub fn new(floor: Arc<Floor>, pool: Pool, shutdown: Shutdown) -> LabService {
        LabService {
            floor,
            pool,
            sheets: Mutex::new(bounded(limits::PAR_SHEETS_KEPT)),
            streams: Arc::new(Semaphore::new(limits::LAB_STREAMS)),
            shutdown,
        }
    }

    /// A permit for one more stream, or `RESOURCE_EXHAUSTED` when as many run as the limit.
    fn stream_permit(&self) -> Result<OwnedSemaphorePermit, Status> {
        self.streams.clone().try_acquire_owned().map_err(|_| {
            Status::resource_exhausted(format!(
                "{} lab streams are running, the most at once; try again when one ends",
                limits::LAB_STREAMS
            ))
        })
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
            return Err(invalid_argument(
                "config_id",
                format!("configuration {id} is for {}, not {game}", config.game),
            ));
        }
        Ok((*config).clone())
    }

    /// Runs `work` in the lab's pool, after the computations before it; it stops early when its
    /// caller goes away.
    async fn compute<T: Send + 'static>(
        &self,
        work: impl FnOnce(&pitboss_lab::Run) -> Result<T, pitboss_lab::LabError> + Send + 'static,
    ) -> Result<T, Status> {
        self.pool
            .run(move |run| work(run).map_err(lab_status))
            .await
    }
}

/// The seed a request gives in `field` (32 bytes), or a fresh one from the operating system when
/// it gives none.
fn given_or_fresh(field: &str, bytes: &[u8]) -> Result<Seed, Status> {
    if bytes.is_empty() {
        rng_output::os_seed().map_err(|e| Status::internal(e.to_string()))
    } else {
        convert::seed(field, bytes)
    }
}

fn battery_to_proto(report: &rng_battery::Report) -> proto::TestRngResponse {
    proto::TestRngResponse {
        seed: report.plan.master.to_vec(),
        sequences: report.plan.sequences,
        bits: report.plan.bits,
        rows: report
            .judged
            .iter()
            .map(|j| proto::RngTestRow {
                test: j.name.clone(),
                sequences: j.assessment.sequences as u32,
                passed: j.assessment.passed as u32,
                least_proportion: j.assessment.least_proportion,
                uniformity: j.assessment.uniformity,
                holds: j.assessment.holds(),
            })
            .collect(),
        not_run: report
            .not_run
            .iter()
            .map(|n| proto::RngTestNotRun {
                test: n.test.to_string(),
                sequences: n.sequences,
                reason: n.reason.clone(),
            })
            .collect(),
        holds: report.holds(),
        command: report.plan.command(),
        failing_rows: report.failing,
        expected_failing_rows: report.expected_failing,
        allowed_failing_rows: report.allowed_failing,
    }
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
                wagered_sq: r.wagered_sq.to_string(),
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
        variance: sheet.variance(),
        standard_deviation: sheet.standard_deviation(),
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

/// Sends what is written as stream messages (`wrap` makes one from the bytes of a `write` call).
/// Fails, ending the producer, once the client is gone, when it has read nothing for
/// [`limits::STREAM_STALL`], or when the server is stopping.
struct ChannelWriter<M, F: Fn(Vec<u8>) -> M> {
    tx: mpsc::Sender<Result<M, Status>>,
    wrap: F,
    runtime: tokio::runtime::Handle,
    stopping: Arc<AtomicBool>,
}

impl<M, F: Fn(Vec<u8>) -> M> Write for ChannelWriter<M, F> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        use std::io::{Error, ErrorKind};
        use tokio::sync::mpsc::error::SendTimeoutError;
        if self.stopping.load(Ordering::Relaxed) {
            return Err(Error::new(ErrorKind::Interrupted, "the server is stopping"));
        }
        let message = Ok((self.wrap)(buf.to_vec()));
        match self
            .runtime
            .block_on(self.tx.send_timeout(message, limits::STREAM_STALL))
        {
            Ok(()) => Ok(buf.len()),
            Err(SendTimeoutError::Closed(_)) => Err(ErrorKind::BrokenPipe.into()),
            Err(SendTimeoutError::Timeout(_)) => Err(ErrorKind::TimedOut.into()),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs a producer writing into a stream of messages on the blocking pool, holding `permit` until
/// it ends; a failure other than the client going away (a panic too) ends the stream with an
/// error, never a silent end. The memory held is the channel's 16 messages, whatever the client
/// asked for.
fn produce<M: Send + 'static>(
    method: &'static str,
    permit: OwnedSemaphorePermit,
    stopping: Arc<AtomicBool>,
    wrap: impl Fn(Vec<u8>) -> M + Send + 'static,
    work: impl FnOnce(&mut dyn Write) -> std::io::Result<()> + Send + 'static,
) -> ReceiverStream<Result<M, Status>> {
    let (tx, rx) = mpsc::channel(16);
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let failed = tx.clone();
        let mut out = ChannelWriter {
            tx,
            wrap,
            runtime,
            stopping,
        };
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || work(&mut out)));
        let status = match outcome {
            Ok(Ok(())) => return,
            Ok(Err(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => return,
            Ok(Err(e)) if e.kind() == std::io::ErrorKind::TimedOut => {
                Status::deadline_exceeded(format!(
                    "the client read nothing for {} s: the stream is ended",
                    limits::STREAM_STALL.as_secs()
                ))
            }
            Ok(Err(e)) if e.kind() == std::io::ErrorKind::Interrupted => {
                Status::unavailable("the server is stopping")
            }
            Ok(Err(e)) => Status::internal(e.to_string()),
            Err(panic) => {
                tracing::error!(method, panic = %guard::panic_text(&*panic), "a stream producer panicked");
                Status::internal(guard::PANIC_MESSAGE)
            }
        };
        // Best effort: a client that reads nothing does not get it.
        let _ = failed.try_send(Err(status));
    });
    ReceiverStream::new(rx)
}

#[tonic::async_trait]
impl Lab for LabService {
    type CheckTranscriptsStream = ReceiverStream<Result<proto::CheckTranscriptsResponse, Status>>;

    async fn check_transcripts(
        &self,
        request: Request<tonic::Streaming<proto::CheckTranscriptsRequest>>,
    ) -> Result<Response<Self::CheckTranscriptsStream>, Status> {
        let permit = self.stream_permit()?;
        // The verdicts wait here for a client that reads slowly: at most 16 of them.
        let (tx, rx) = mpsc::channel(16);
        tokio::spawn(super::transcripts::run(
            request.into_inner(),
            tx,
            permit,
            self.shutdown.flag(),
        ));
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    type StreamRngWordsStream = ReceiverStream<Result<proto::RngWordsChunk, Status>>;
    type StreamShufflesStream = ReceiverStream<Result<proto::ShuffleSamples, Status>>;

    async fn get_par_sheets(
        &self,
        request: Request<proto::GetParSheetsRequest>,
    ) -> Result<Response<proto::GetParSheetsResponse>, Status> {
        let r = request.into_inner();
        r.check()?;
        let game = convert::game("game", r.game)?;
        if game != GameId::FortunePaiGow && r.main_bet_rounds > 0 {
            return Err(invalid_argument(
                "main_bet_rounds",
                "only Fortune Pai Gow's main bet is simulated: 0 for other games",
            ));
        }
        let config = self.config(game, &r.config_id)?;
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
            .unwrap_or_else(PoisonError::into_inner)
            .get(&id)
            .cloned();
        let sheets = match cached {
            Some(sheets) => sheets,
            None => {
                let for_work = config.clone();
                let sheets = Arc::new(
                    self.compute(move |_| {
                        pitboss_lab::exact_par_sheets(&for_work, pitboss_lab::threads())
                    })
                    .await?,
                );
                self.sheets
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .put(id, sheets.clone());
                sheets
            }
        };
        let main_bet = if r.main_bet_rounds > 0 {
            let rounds = r.main_bet_rounds;
            let for_work = config.clone();
            let sim = self
                .compute(move |run| {
                    pitboss_lab::pai_gow::simulate_main(
                        &for_work,
                        rounds,
                        &seed,
                        pitboss_lab::threads(),
                        run,
                    )
                })
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
        r.check()?;
        let game = convert::game("game", r.game)?;
        let hands = r.hands;
        let strategy = match proto::Strategy::try_from(r.strategy) {
            Ok(proto::Strategy::Optimal | proto::Strategy::Unspecified) => Strategy::Optimal,
            Ok(proto::Strategy::Always) => Strategy::Always,
            Err(_) => {
                return Err(invalid_argument(
                    "strategy",
                    format!("{} is not a known Strategy value", r.strategy),
                ))
            }
        };
        if !simulate::supports(game, strategy) {
            return Err(invalid_argument(
                "strategy",
                format!("{game} has one way to play: STRATEGY_OPTIMAL"),
            ));
        }
        let config = self.config(game, &r.config_id)?;
        let seed = given_or_fresh("seed", &r.seed)?;
        let request = simulate::Request {
            config,
            hands,
            strategy,
            seed,
            threads: pitboss_lab::threads(),
        };
        let report = self
            .compute(move |run| simulate::run(&request, run))
            .await?;
        Ok(Response::new(report_to_proto(&report)))
    }

    async fn test_rng(
        &self,
        request: Request<proto::TestRngRequest>,
    ) -> Result<Response<proto::TestRngResponse>, Status> {
        let r = request.into_inner();
        r.check()?;
        let master = given_or_fresh("seed", &r.seed)?;
        let plan = Plan::new(*master.as_bytes(), r.sequences, r.bits)
            .map_err(|e| invalid_argument(e.field, e.problem))?;
        let report = self
            .compute(move |run| rng_battery::run(&plan, run))
            .await?;
        Ok(Response::new(battery_to_proto(&report)))
    }

    async fn test_rng_stream(
        &self,
        request: Request<tonic::Streaming<proto::TestRngStreamRequest>>,
    ) -> Result<Response<proto::TestRngResponse>, Status> {
        let mut stream = request.into_inner();
        let bit_stream::Header {
            plan,
            format,
            source,
        } = bit_stream::header(&mut stream).await?;
        let (tx, mut reader) = bit_stream::channel();
        let for_job = plan.clone();
        let job = self.pool.run(move |run| {
            rng_battery::run_input(&for_job, &mut reader, format, Detail::Rows, run).map_err(|e| {
                match e {
                    // The stream ended short, or held a character that is not a bit.
                    pitboss_lab::LabError::Input { problem } => invalid_argument("bits", problem),
                    other => lab_status(other),
                }
            })
        });
        let feed = bit_stream::feed(stream, tx, &plan, format);
        let stopping = self.shutdown.wait();
        tokio::pin!(job, feed, stopping);
        // The battery reads what the feed hands over; the feed stops once the plan's bits have
        // come. The server stopping ends both (the job is told to stop as its future is dropped).
        let mut fed = None;
        let judged = loop {
            tokio::select! {
                judged = &mut job => break judged,
                outcome = &mut feed, if fed.is_none() => fed = Some(outcome),
                () = &mut stopping => return Err(Status::unavailable("the server is stopping")),
            }
        };
        if let Some(Err(status)) = fed {
            return Err(status);
        }
        let report = judged?;
        let mut response = battery_to_proto(&report);
        response.seed = Vec::new();
        response.command = plan.input_command(&source, format);
        Ok(Response::new(response))
    }

    async fn certify(
        &self,
        request: Request<proto::CertifyRequest>,
    ) -> Result<Response<proto::CertifyResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        let game = convert::game("game", r.game)?;
        scope::reach_game(&caller, "game", game)?;
        let config = self.config(game, &r.config_id)?;
        let seed = given_or_fresh("seed", &r.seed)?;
        let battery_seed = if r.battery_seed.is_empty() {
            seed
        } else {
            convert::seed("battery_seed", &r.battery_seed)?
        };
        let plan = Plan::new(
            *battery_seed.as_bytes(),
            r.battery_sequences,
            r.battery_bits,
        )
        .map_err(|e| invalid_argument(&format!("battery_{}", e.field), e.problem))?;
        let request = certificate::Request {
            config: config.clone(),
            hands: r.hands,
            seed,
            battery: plan.clone(),
            threads: pitboss_lab::threads(),
        };
        let given = r.transcripts.len() as u64;
        let (transcripts, source) = (r.transcripts, r.transcripts_source);
        let certificate = self
            .compute(move |run| {
                let checked = (!transcripts.is_empty()).then(|| {
                    Transcripts::check(
                        &request.config,
                        source,
                        transcripts.iter().map(String::as_str),
                    )
                });
                certificate::certify(&request, checked, run)
            })
            .await?;
        // A published configuration is named in the commands by the file of its canonical text.
        let config_file = (!r.config_id.is_empty()).then(|| format!("{}.json", config.id()));
        let html = pitboss_packet::render_certificate(&crate::certification::page(
            &certificate,
            config_file.as_deref(),
        ));
        let report_sha256: [u8; 32] = Sha256::digest(html.as_bytes()).into();
        let holds = certificate.holds();
        let recorded = proto::CertificationRecorded {
            game: game.id().to_string(),
            config_id: config.id().0.to_vec(),
            report_sha256: report_sha256.to_vec(),
            holds,
            hands: r.hands,
            simulation_seed: seed.as_bytes().to_vec(),
            battery_seed: plan.master.to_vec(),
            battery_sequences: plan.sequences,
            battery_bits: plan.bits,
            transcripts: given,
        };
        let sequence = self
            .floor
            .record_certification(recorded, &caller.id)
            .await
            .map_err(status)?;
        let line = NoteLine {
            config_id: config.id().0,
            report_sha256,
            sequence,
        }
        .line();
        let floor = self.floor.clone();
        let (note, tlog_proof) = tokio::task::spawn_blocking(move || {
            let note = floor.certification_note(sequence, line).map_err(status)?;
            let proof = crate::audit::tlog_proofs::entry_proof(&floor, sequence, &note)
                .map_err(|e| Status::internal(e.to_string()))?;
            Ok::<_, Status>((note, proof.text))
        })
        .await
        .map_err(|e| Status::internal(e.to_string()))??;
        Ok(Response::new(proto::CertifyResponse {
            html,
            note,
            sequence,
            report_sha256: report_sha256.to_vec(),
            holds,
            tlog_proof,
        }))
    }

    async fn stream_rng_words(
        &self,
        request: Request<proto::StreamRngWordsRequest>,
    ) -> Result<Response<Self::StreamRngWordsStream>, Status> {
        let r = request.into_inner();
        r.check()?;
        let words = r.words;
        let per_seed = if r.words_per_seed == 0 {
            1024
        } else {
            r.words_per_seed
        };
        Ok(Response::new(produce(
            "StreamRngWords",
            self.stream_permit()?,
            self.shutdown.flag(),
            |data| proto::RngWordsChunk { data },
            move |out| rng_output::write_words(out, words, per_seed, rng_output::os_seed),
        )))
    }

    async fn stream_shuffles(
        &self,
        request: Request<proto::StreamShufflesRequest>,
    ) -> Result<Response<Self::StreamShufflesStream>, Status> {
        let r = request.into_inner();
        r.check()?;
        let shuffles = r.shuffles;
        let deck = match proto::DeckKind::try_from(r.deck) {
            Ok(proto::DeckKind::Standard52 | proto::DeckKind::Unspecified) => Deck::Standard52,
            Ok(proto::DeckKind::WithJoker53) => Deck::WithJoker53,
            Err(_) => {
                return Err(invalid_argument(
                    "deck",
                    format!("{} is not a known DeckKind value", r.deck),
                ))
            }
        };
        let deck_size = deck.len() as u32;
        Ok(Response::new(produce(
            "StreamShuffles",
            self.stream_permit()?,
            self.shutdown.flag(),
            move |cards| proto::ShuffleSamples { cards, deck_size },
            move |out| rng_output::write_shuffles(out, shuffles, deck, rng_output::os_seed),
        )))
    }
}
