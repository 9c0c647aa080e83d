//! A configuration's certificate (`pitboss_lab::certificate`) as its page
//! (`pitboss_packet::certificate`): the one translation, for `pitboss certify` and the server.
//!
//! Owns the mapping only: MUST NOT compute a figure (the lab does) or lay out the page (the
//! packet does).

use pitboss_lab::certificate::Certificate;
use pitboss_packet::{BatteryView, CertificatePage, FigureView, SheetRow, SheetView};

/// The page of `certificate`; `config_file` names the configuration's file in the commands (the
/// game's default when `None`).
pub fn page(certificate: &Certificate, config_file: Option<&str>) -> CertificatePage {
    let c = certificate;
    CertificatePage {
        game: c.config.game.to_string(),
        config_id: c.config.id().to_string(),
        config_text: c.config_text.clone(),
        strategy: strategy(c),
        sheets: c
            .sheets
            .iter()
            .map(|s| SheetView {
                title: s.title.clone(),
                bets: s.bets.clone(),
                rows: s
                    .rows
                    .iter()
                    .map(|r| SheetRow {
                        row: r.row.clone(),
                        probability: r.count as f64 / s.denominator as f64,
                        contribution: r.returned as f64 / s.wagered().max(1) as f64,
                    })
                    .collect(),
                return_rate: s.return_rate(),
                house_edge: s.house_edge(),
                element_of_risk: s.element_of_risk(),
                standard_deviation: s.standard_deviation(),
                hit_frequency: s.hit_frequency(),
                notes: s.notes.clone(),
            })
            .collect(),
        hands: c.simulation.hands,
        simulation_seed: c.simulation.seed.to_hex(),
        confidence: pitboss_lab::certificate::CONFIDENCE,
        z: c.z,
        figures: c
            .figures
            .iter()
            .map(|f| FigureView {
                group: f.group.clone(),
                what: f.what.clone(),
                exact: f.exact,
                simulated: f.simulated,
                low: f.low,
                high: f.high,
                inside: f.inside(),
            })
            .collect(),
        battery: BatteryView {
            sequences: c.battery.plan.sequences,
            bits: c.battery.plan.bits,
            rows: c.battery.judged.len(),
            failing: c
                .battery
                .judged
                .iter()
                .filter(|j| !j.assessment.holds())
                .map(|j| {
                    (
                        j.name.clone(),
                        format!("{}/{}", j.assessment.passed, j.assessment.sequences),
                    )
                })
                .collect(),
            expected_failing: c.battery.expected_failing,
            allowed_failing: c.battery.allowed_failing,
            not_run: c
                .battery
                .not_run
                .iter()
                .map(|n| {
                    (
                        n.test.to_string(),
                        format!(
                            "{} ({} of {} sequences)",
                            n.reason, n.sequences, c.battery.plan.sequences
                        ),
                    )
                })
                .collect(),
            holds: c.battery.holds(),
        },
        transcripts: c.transcripts.as_ref().map(|t| {
            (
                t.source.clone(),
                t.agree,
                t.differ,
                t.refused,
                t.other_configuration,
            )
        }),
        commands: c
            .commands(config_file)
            .into_iter()
            .map(|(what, command)| (what.to_string(), command))
            .collect(),
        holds: c.holds(),
    }
}

/// The strategy the sheets and the simulation assume, in words.
fn strategy(c: &Certificate) -> String {
    use pitboss_engine::game::GameId;
    match c.config.game {
        GameId::MississippiStud => "the lab's optimal strategy, by exact backward induction".into(),
        GameId::CaribbeanStud => {
            "the lab's optimal strategy (raise or fold), by a counting sweep over every deal".into()
        }
        GameId::FortunePaiGow => {
            "the house way (spec/HOUSE_WAY.md), as the engine sets every hand".into()
        }
        GameId::Nutz => "plain shaking: the game leaves the player no choice".into(),
    }
}
