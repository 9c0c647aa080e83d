//! A configuration's certificate, as data: what a certification lab signs for one configuration
//! of a game. It holds the configuration (its canonical text and id), its exact PAR sheets, and the
//! strategy they assume. It holds a simulation of whole hands through the engine, with every exact
//! figure held to it: each group's return and each row's probability must lie in its interval.
//! The intervals are simultaneous at 99 %: Bonferroni, each at 1 − 0.01/k for k figures. The
//! Fortune Pai Gow main bet, which has no exact sheet, is held to a model of it: the engine's house
//! way for both sides and its `main_bet` rule applied to dealt cards, simulated apart from the
//! engine's hands (so it checks the hands' dealing, setting and settlement, not the rule itself):
//! the two estimates must agree within their difference's interval. It
//! holds the RNG battery's judgement, the vendor's transcripts checked when given, and the command
//! that reproduces each part.
//!
//! Owns the assembly and the verdict; the page is `pitboss_packet::certificate`'s and the
//! recording the server's. MUST NOT read or write anything: the caller gives the configuration,
//! the seeds and the transcripts' verdicts.

use statrs::distribution::{ContinuousCDF, Normal};

use pitboss_engine::config::GameConfig;
use pitboss_engine::rng::Seed;

use crate::rng_battery::{self, Plan};
use crate::simulate::{self, Strategy};
use crate::{LabError, ParSheet, Run};

/// The family-wise confidence of the simulation's intervals.
pub const CONFIDENCE: f64 = 0.99;

/// What to certify.
#[derive(Clone, Debug)]
pub struct Request {
    pub config: GameConfig,
    /// Hands simulated through the engine.
    pub hands: u64,
    /// The simulation's seed.
    pub seed: Seed,
    /// The RNG battery run with the certificate.
    pub battery: Plan,
    pub threads: usize,
}

/// What a figure of the simulation is held to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reference {
    /// An exact PAR sheet's figure.
    Exact,
    /// The lab's own model of the bet, simulated apart from the engine's hands (the Pai Gow main
    /// bet, which has no exact sheet): the interval is then that of the two estimates' difference.
    Model,
}

/// One figure held to the simulation.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// The group (`main`, `bonus`, a Nutz box).
    pub group: String,
    /// `return`, or the row's id.
    pub what: String,
    /// What `exact` is.
    pub reference: Reference,
    /// The reference value: the exact figure, or the model's estimate.
    pub exact: f64,
    pub simulated: f64,
    /// The simultaneous interval around the simulated value.
    pub low: f64,
    pub high: f64,
}

impl Figure {
    /// Whether the exact figure lies in the interval.
    pub fn inside(&self) -> bool {
        self.low <= self.exact && self.exact <= self.high
    }
}

/// The vendor's transcripts, checked by the engine's rules (as `pitboss check` and
/// `Lab.CheckTranscripts` check them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Transcripts {
    /// Where they came from (a file's name).
    pub source: String,
    /// Played as the rules say, with the payouts claimed (if any) the rules'.
    pub agree: u64,
    /// A claimed payout the rules do not pay.
    pub differ: u64,
    /// Not a transcript the rules can play (unreadable, an illegal decision, …).
    pub refused: u64,
    /// A hand of another game or configuration than the one certified.
    pub other_configuration: u64,
}

impl Transcripts {
    /// Checks each of `transcripts` (docs/transcripts.md, one JSON text each) against `config`.
    pub fn check<'a>(
        config: &GameConfig,
        source: String,
        transcripts: impl IntoIterator<Item = &'a str>,
    ) -> Transcripts {
        let id = config.id();
        let mut tally = Transcripts {
            source,
            ..Transcripts::default()
        };
        for text in transcripts {
            match crate::transcript::parse(text).and_then(|t| crate::transcript::check(&t)) {
                Ok(checked) if checked.hand.config().id() != id => tally.other_configuration += 1,
                Ok(checked) if checked.differences.is_empty() => tally.agree += 1,
                Ok(_) => tally.differ += 1,
                Err(_) => tally.refused += 1,
            }
        }
        tally
    }

    /// Every transcript played as the rules say, of the configuration certified.
    pub fn hold(&self) -> bool {
        self.differ == 0 && self.refused == 0 && self.other_configuration == 0
    }
}

/// A configuration's certificate.
#[derive(Clone, Debug)]
pub struct Certificate {
    pub config: GameConfig,
    /// The configuration's canonical JSON (the bytes its id hashes).
    pub config_text: String,
    pub sheets: Vec<ParSheet>,
    pub strategy: Strategy,
    pub simulation: simulate::Report,
    /// The lab's model of the Pai Gow main bet (house way both sides, the engine's `main_bet`
    /// rule), simulated over as many rounds as the engine's hands, for the game that has no exact
    /// main-bet sheet: its seed and totals.
    pub model: Option<(Seed, crate::pai_gow::Simulation)>,
    /// Every figure the simulation can be held to: the exact ones, and the model's.
    pub figures: Vec<Figure>,
    /// The z of each interval: Φ⁻¹(1 − (1 − CONFIDENCE)/(2k)).
    pub z: f64,
    pub battery: rng_battery::Report,
    pub transcripts: Option<Transcripts>,
}

impl Certificate {
    /// Every exact figure inside its interval, the battery holding, and every transcript given
    /// played as the rules say, of this configuration.
    pub fn holds(&self) -> bool {
        self.figures.iter().all(Figure::inside)
            && self.battery.holds()
            && self.transcripts.as_ref().is_none_or(Transcripts::hold)
    }

    /// The commands that reproduce its parts: (what, command), the configuration given by
    /// `config_file` (`--config FILE`), or the game's default when `None`.
    pub fn commands(&self, config_file: Option<&str>) -> Vec<(&'static str, String)> {
        let game = self.config.game;
        let config = config_file.map_or(String::new(), |f| format!(" --config {f}"));
        vec![
            (
                "the exact PAR sheets",
                format!("pitboss par {game}{config}"),
            ),
            (
                "the simulation",
                format!(
                    "pitboss simulate {game}{config} --hands {} --seed {}",
                    self.simulation.hands,
                    self.simulation.seed.to_hex()
                ),
            ),
            ("the RNG battery", self.battery.plan.command()),
        ]
        .into_iter()
        .chain(self.model.as_ref().map(|(seed, sim)| {
            (
                "the main bet's model",
                format!(
                    "pitboss par {game}{config} --rounds {} --seed {}",
                    sim.rounds,
                    seed.to_hex()
                ),
            )
        }))
        .collect()
    }
}

/// How a figure is held: a row's frequency (its hits), a group's return against its exact sheet,
/// or the main bet's return against the model (the model's standard error).
#[derive(Clone, Copy)]
enum Held {
    Row(u64),
    Return,
    Model(f64),
}

/// The seed of the main bet's model run: `SHA-256("pitboss certificate model" ‖ the simulation's
/// seed)`, apart from the engine's hands and reproducible from the certificate's seed.
fn model_seed(seed: &Seed) -> Seed {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    hash.update(b"pitboss certificate model");
    hash.update(seed.as_bytes());
    Seed::from_bytes(hash.finalize().into())
}

/// The Wilson score interval of a proportion `hits`/`n` at `z`.
fn wilson(hits: u64, n: u64, z: f64) -> (f64, f64) {
    let n = n.max(1) as f64;
    let p = hits as f64 / n;
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Certifies `request.config`: its exact sheets, a simulation held to them, the RNG battery.
pub fn certify(
    request: &Request,
    transcripts: Option<Transcripts>,
    run: &Run,
) -> Result<Certificate, LabError> {
    let config = &request.config;
    let sheets = crate::exact_par_sheets(config, request.threads)?;
    let strategy = Strategy::Optimal;
    let simulation = simulate::run(
        &simulate::Request {
            config: config.clone(),
            hands: request.hands,
            strategy,
            seed: request.seed,
            threads: request.threads,
        },
        run,
    )?;
    // The main bet of Fortune Pai Gow has no exact sheet: the lab's own model of it, simulated
    // from a seed of its own, is what the engine's hands are held to.
    let model = match (
        &config.rules,
        simulation.groups.iter().find(|g| g.name == "main"),
    ) {
        (pitboss_engine::config::Rules::FortunePaiGow(_), Some(main)) if main.exact.is_none() => {
            let seed = model_seed(&request.seed);
            let sim =
                crate::pai_gow::simulate_main(config, request.hands, &seed, request.threads, run)?;
            Some((seed, sim))
        }
        _ => None,
    };
    // The figures first, to know k; then the intervals at the Bonferroni z.
    let mut raw: Vec<(&simulate::GroupReport, String, f64, Held, f64)> = Vec::new();
    for group in &simulation.groups {
        match (&group.exact, &model) {
            (Some(sheet), _) => {
                raw.push((
                    group,
                    "return".into(),
                    sheet.return_rate(),
                    Held::Return,
                    group.tally.return_rate(),
                ));
                for (row, hits, frequency, exact) in group.rows() {
                    if let Some(exact) = exact {
                        raw.push((group, row, exact, Held::Row(hits), frequency));
                    }
                }
            }
            (None, Some((_, sim))) if group.name == "main" => raw.push((
                group,
                "return".into(),
                sim.return_rate(),
                Held::Model(sim.standard_error()),
                group.tally.return_rate(),
            )),
            (None, _) => {}
        }
    }
    let k = raw.len().max(1) as f64;
    let z = Normal::standard().inverse_cdf(1.0 - (1.0 - CONFIDENCE) / (2.0 * k));
    let figures = raw
        .into_iter()
        .map(|(group, what, exact, held, simulated)| {
            let (low, high) = match held {
                Held::Row(hits) => wilson(hits, group.tally.hands, z),
                Held::Return => group.tally.interval_at(z),
                Held::Model(model_error) => {
                    // Two independent estimates: their difference's standard error.
                    let ours = group.tally.standard_error();
                    let half = z * (ours * ours + model_error * model_error).sqrt();
                    (simulated - half, simulated + half)
                }
            };
            Figure {
                group: group.name.clone(),
                what,
                reference: match held {
                    Held::Model(_) => Reference::Model,
                    _ => Reference::Exact,
                },
                exact,
                simulated,
                low,
                high,
            }
        })
        .collect();
    let battery = rng_battery::run(&request.battery, run)?;
    Ok(Certificate {
        config: config.clone(),
        config_text: String::from_utf8_lossy(&config.canonical_bytes()).into_owned(),
        sheets,
        strategy,
        simulation,
        model,
        figures,
        z,
        battery,
        transcripts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Wilson's interval: 0 of 10⁶ still admits a probability of 10⁻⁶; 500 of 1 000 is 0.5 ±
    /// z·0.0158.
    #[test]
    fn wilson_intervals() {
        let (low, high) = wilson(0, 1_000_000, 3.0);
        assert!(low == 0.0 && high > 1e-6 && high < 1e-5);
        let (low, high) = wilson(500, 1_000, 1.959964);
        assert!((low - 0.4691).abs() < 1e-3 && (high - 0.5309).abs() < 1e-3);
    }

    /// A small certificate's request for `game`'s default configuration.
    fn request(game: pitboss_engine::game::GameId) -> Request {
        Request {
            config: GameConfig::default_for(game),
            hands: 20_000,
            seed: Seed::from_bytes([1; 32]),
            battery: Plan::new([2; 32], 4, 65_536).unwrap(),
            threads: 2,
        }
    }

    /// Fortune Pai Gow's default configuration: the main bet, which has no exact sheet, is held
    /// to the lab's model of it simulated from a seed of its own, within the interval of the two
    /// estimates' difference (wider than the engine's own); the bonus to its exact sheet; the
    /// certificate holds and names the model's command.
    #[test]
    fn a_fortune_pai_gow_certificate_holds_its_main_bet_to_the_model() {
        let request = request(pitboss_engine::game::GameId::FortunePaiGow);
        let c = certify(&request, None, &Run::default()).unwrap();
        let models: Vec<&Figure> = c
            .figures
            .iter()
            .filter(|f| f.reference == Reference::Model)
            .collect();
        assert_eq!(models.len(), 1, "{:?}", c.figures);
        let main = models[0];
        assert_eq!(
            (main.group.as_str(), main.what.as_str()),
            ("main", "return")
        );
        let (seed, sim) = c.model.as_ref().expect("the model's run");
        assert_eq!(sim.rounds, 20_000);
        assert_ne!(seed, &request.seed, "a seed of its own");
        assert_eq!(main.exact, sim.return_rate());
        let engine = c
            .simulation
            .groups
            .iter()
            .find(|g| g.name == "main")
            .unwrap();
        let (low, high) = engine.tally.interval_at(c.z);
        assert!(
            main.low < low && main.high > high,
            "the difference's interval is wider"
        );
        assert!(
            c.figures
                .iter()
                .any(|f| f.group == "fortune_bonus" && f.reference == Reference::Exact),
            "{:?}",
            c.figures
        );
        assert!(c.figures.iter().all(Figure::inside), "{:?}", c.figures);
        assert!(c.holds());
        let commands = c.commands(None);
        assert_eq!(
            commands.last().unwrap().1,
            format!(
                "pitboss par fortune_pai_gow --rounds 20000 --seed {}",
                seed.to_hex()
            )
        );
    }

    /// Nutz's default configuration: every exact figure inside its simultaneous interval, the
    /// battery run, the certificate holding; the commands name the seeds.
    #[test]
    fn a_nutz_certificate_holds() {
        let request = request(pitboss_engine::game::GameId::Nutz);
        let c = certify(&request, None, &Run::default()).unwrap();
        assert!(c.figures.len() > 5, "{:?}", c.figures);
        assert!(c.figures.iter().all(Figure::inside), "{:?}", c.figures);
        assert!(c.z > 2.5758, "simultaneous: wider than one 99 % interval");
        assert!(c.holds());
        assert!(c.model.is_none() && c.figures.iter().all(|f| f.reference == Reference::Exact));
        let commands = c.commands(None);
        assert_eq!(commands.len(), 3);
        assert!(commands[1].1.contains(&Seed::from_bytes([1; 32]).to_hex()));
        assert_eq!(commands[2].1, request.battery.command());
    }
}
