//! A configuration's certificate (`pitboss_lab::certificate`) as its page
//! (`pitboss_packet::certificate`), for `pitboss certify` and `Lab.Certify`; and the signed note
//! that travels with a recorded report: a checkpoint of the log including the report's
//! `CertificationRecorded` entry, whose extension line ([`NoteLine`]) names the configuration,
//! the page's SHA-256 and the entry, and its check ([`verify`]).
//!
//! Owns the mapping, the line's format and the check: MUST NOT compute a figure (the lab does),
//! lay out the page (the packet does) or read the log (the caller gives the note and the key).

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
        strategy: c.config.game.facts().strategy.to_string(),
        seed_sources: seed_sources(&c.config.seed_sources),
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
                model: f.reference == pitboss_lab::certificate::Reference::Model,
                exact: f.exact,
                simulated: f.simulated,
                low: f.low,
                high: f.high,
                inside: f.inside(),
            })
            .collect(),
        model_rounds: c.model.as_ref().map(|(_, sim)| sim.rounds),
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

/// The extension line of a report's signed note:
/// `pitboss-certificate <config id> <SHA-256 of the page> <entry sequence>` (hex, hex, decimal).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteLine {
    pub config_id: [u8; 32],
    pub report_sha256: [u8; 32],
    pub sequence: u64,
}

/// The first word of the line.
const NOTE_LINE_WORD: &str = "pitboss-certificate";

impl NoteLine {
    /// The line, as the note carries it.
    pub fn line(&self) -> String {
        format!(
            "{NOTE_LINE_WORD} {} {} {}",
            hex::encode(self.config_id),
            hex::encode(self.report_sha256),
            self.sequence
        )
    }

    /// The line read back; `None` for any other line.
    pub fn parse(line: &str) -> Option<NoteLine> {
        let mut words = line.split(' ');
        if words.next()? != NOTE_LINE_WORD {
            return None;
        }
        let hash =
            |word: Option<&str>| -> Option<[u8; 32]> { hex::decode(word?).ok()?.try_into().ok() };
        let line = NoteLine {
            config_id: hash(words.next())?,
            report_sha256: hash(words.next())?,
            sequence: words.next()?.parse().ok()?,
        };
        words.next().is_none().then_some(line)
    }
}

/// Why a report does not check against its note.
#[derive(Debug, thiserror::Error)]
pub enum CertificateError {
    #[error("the note is not a checkpoint of the log: {0}")]
    Note(#[from] pitboss_ledger::checkpoint::CheckpointError),
    #[error("the note carries no pitboss-certificate line")]
    NoLine,
    #[error("the note carries more than one pitboss-certificate line")]
    SeveralLines,
    #[error("the note's entry {sequence} is not inside the tree it signs ({size} entries)")]
    Outside { sequence: u64, size: u64 },
    #[error("the report's SHA-256 is {actual}; the note signs {signed}: the report was altered")]
    Altered { actual: String, signed: String },
}

/// Checks `report` (the page's bytes) against `note`: the note is the log's checkpoint signed by
/// `key`, its line names a recorded entry inside the tree it signs, and the page's SHA-256 is the
/// one signed. The line, when all holds.
pub fn verify(
    report: &[u8],
    note: &str,
    key: &ed25519_dalek::VerifyingKey,
) -> Result<NoteLine, CertificateError> {
    use sha2::{Digest, Sha256};
    let checkpoint = pitboss_ledger::checkpoint::Checkpoint::parse(note)?;
    checkpoint.verify(key)?;
    let lines: Vec<NoteLine> = checkpoint
        .extensions
        .iter()
        .filter_map(|l| NoteLine::parse(l))
        .collect();
    let line = match lines.as_slice() {
        [one] => one.clone(),
        [] => return Err(CertificateError::NoLine),
        _ => return Err(CertificateError::SeveralLines),
    };
    if line.sequence >= checkpoint.size {
        return Err(CertificateError::Outside {
            sequence: line.sequence,
            size: checkpoint.size,
        });
    }
    let actual: [u8; 32] = Sha256::digest(report).into();
    if actual != line.report_sha256 {
        return Err(CertificateError::Altered {
            actual: hex::encode(actual),
            signed: hex::encode(line.report_sha256),
        });
    }
    Ok(line)
}

/// Checks a report's `tlog-proof` (`certificate.tlog-proof`) against its checked `note` and
/// `line`: the proof verifies in the note's own tree (signed by `key`), proves the line's entry,
/// and that entry is a `CertificationRecorded` of the configuration and page the line names.
pub fn verify_tlog_proof(
    text: &str,
    note: &str,
    line: &NoteLine,
    key: &ed25519_dalek::VerifyingKey,
) -> Result<(), String> {
    use prost::Message;
    let origin = pitboss_ledger::checkpoint::Checkpoint::parse(note)
        .map_err(|e| e.to_string())?
        .origin;
    let proof = pitboss_witness::proof::TlogProof::parse(text).map_err(|e| e.to_string())?;
    if proof.checkpoint != note {
        return Err("its checkpoint is not the report's note".into());
    }
    let (sequence, envelope) = crate::audit::bundle::check_tlog_proof(text, &origin, key, None)?;
    if sequence != line.sequence {
        return Err(format!(
            "it proves entry {sequence}; the note names {}",
            line.sequence
        ));
    }
    let envelope =
        pitboss_ledger::proto::Envelope::decode(envelope.as_slice()).map_err(|e| e.to_string())?;
    let payload =
        crate::proto::Payload::decode(envelope.payload.as_slice()).map_err(|e| e.to_string())?;
    match payload.kind {
        Some(crate::proto::payload::Kind::CertificationRecorded(report))
            if report.config_id == line.config_id && report.report_sha256 == line.report_sha256 =>
        {
            Ok(())
        }
        _ => Err(format!(
            "entry {sequence} is not the CertificationRecorded of this configuration and page"
        )),
    }
}

/// A configuration's deal-seed sources in words, for its certificate.
fn seed_sources(sources: &pitboss_engine::config::SeedSources) -> String {
    let beacon = sources.beacon.as_ref().map(|b| {
        format!(
            "the beacon round of drand chain {} named at each round's opening (betting open at most {} ms, the beacon awaited {} ms past its time, late: {})",
            b.chain_hash,
            b.betting_ms,
            b.wait_ms,
            b.late.name()
        )
    });
    match (sources.players, beacon) {
        (false, None) => "the certified RNG's seed alone (seed sources: off)".to_string(),
        (true, None) => "the certified RNG's seed mixed with the players' seeds (seed sources: players)".to_string(),
        (false, Some(b)) => format!("the certified RNG's seed mixed with {b} (seed sources: beacon)"),
        (true, Some(b)) => format!("the certified RNG's seed mixed with the players' seeds and {b} (seed sources: players+beacon)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line reads back as written; anything else is not one.
    #[test]
    fn the_note_line_reads_back() {
        let line = NoteLine {
            config_id: [7; 32],
            report_sha256: [9; 32],
            sequence: 42,
        };
        assert_eq!(NoteLine::parse(&line.line()), Some(line.clone()));
        for other in [
            "pitboss-certificate",
            "pitboss-stream x 1 2",
            &format!("{} extra", line.line()),
            &line.line().replace(" 42", " -1"),
            &line.line().replace(&hex::encode([7u8; 32]), "07"),
        ] {
            assert_eq!(NoteLine::parse(other), None, "{other}");
        }
    }
}
