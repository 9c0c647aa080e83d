//! Every printed page holds every cell: each page pitboss prints — the significant-events report,
//! a dispute packet, a certificate — filled with the longest values a log holds (ids of 64
//! hexadecimal digits, changes written as one long word, long names), printed to PDF by headless
//! Chromium (Debian's `chromium`, as `pitboss report events --format pdf` prints it), and its text
//! read back by Poppler's `pdftotext` (readers nobody here wrote): the text of every table cell of
//! the page must be found in the PDF. Text laid out past a page's edge is not on the page, and
//! `pdftotext` does not find it.
//!
//! The text is read with `-raw` (in the order the PDF draws it, cell after cell) rather than
//! `-layout` (the page's lines across all columns, so a cell broken over three lines comes out in
//! three pieces between its neighbours'), and compared with white space and hyphens removed: a
//! cell's text may be broken anywhere, and a soft hyphen prints as a hyphen where it breaks.

mod common;

use std::path::Path;

use pitboss_packet::{
    render, render_certificate, render_events, BatteryView, CertificatePage, EventsReport,
    FigureView, ReportEvent, SheetRow, SheetView,
};

/// A digest-like id: 64 hexadecimal digits, no break anywhere.
fn id(n: u64) -> String {
    (0..8)
        .map(|i| format!("{:08x}", n.wrapping_mul(0x9e37_79b9).wrapping_add(i * 7919)))
        .collect()
}

/// Prints `html` to PDF with Chromium and reads its text back with `pdftotext -raw`.
fn printed_text(html: &str, dir: &Path, name: &str) -> String {
    let page = dir.join(format!("{name}.html"));
    let pdf = dir.join(format!("{name}.pdf"));
    std::fs::write(&page, html).unwrap();
    let chromium = std::env::var("PITBOSS_CHROMIUM").unwrap_or_else(|_| "chromium".into());
    let printed = std::process::Command::new(&chromium)
        .args(pitboss_packet::CHROMIUM_FLAGS)
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("--print-to-pdf={}", pdf.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap_or_else(|e| panic!("{chromium} cannot run ({e}): scripts/test installs it"));
    assert!(
        pdf.exists(),
        "{name}: Chromium printed no PDF: {}",
        String::from_utf8_lossy(&printed.stderr)
    );
    let text = std::process::Command::new("pdftotext")
        .arg("-raw")
        .arg(&pdf)
        .arg("-")
        .output()
        .unwrap_or_else(|e| {
            panic!("pdftotext cannot run ({e}): scripts/test installs poppler-utils")
        });
    assert!(text.status.success(), "{name}: pdftotext failed");
    String::from_utf8(text.stdout).expect("UTF-8 text")
}

/// The text of every `<td>` and `<th>` of a page we wrote, its markup removed and its entities
/// read.
fn cells(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(found) = html[at..].find("<t") {
        let start = at + found;
        at = start + 2;
        let tag = &html[start + 1..];
        let name_end = tag.find([' ', '>']).unwrap_or(tag.len());
        let name = &tag[..name_end];
        if name != "td" && name != "th" {
            continue;
        }
        let open_end = start + html[start..].find('>').expect("a closed tag") + 1;
        let close = open_end
            + html[open_end..]
                .find(&format!("</{name}>"))
                .expect("a closed cell");
        let inner = &html[open_end..close];
        let mut text = String::new();
        let mut in_tag = false;
        for c in inner.chars() {
            match c {
                '<' => in_tag = true,
                '>' => in_tag = false,
                c if !in_tag => text.push(c),
                _ => {}
            }
        }
        let text = text
            .replace("&shy;", "")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&");
        out.push(text);
        at = close;
    }
    out
}

/// `text` without white space, and without hyphens: a soft hyphen (`&shy;`) that breaks a word
/// prints as one (which `pdftotext` reads as U+2010).
fn squeezed(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '-' | '\u{ad}' | '\u{2010}'))
        .collect()
}

/// Every cell of `html` is in its printed text.
fn assert_every_cell_printed(html: &str, name: &str) {
    let dir = tempfile::tempdir().unwrap();
    let printed = squeezed(&printed_text(html, dir.path(), name));
    let cells = cells(html);
    assert!(cells.len() > 10, "{name}: only {} cells found", cells.len());
    let missing: Vec<&String> = cells
        .iter()
        .filter(|cell| !printed.contains(&squeezed(cell)))
        .collect();
    assert!(
        missing.is_empty(),
        "{name}: {} of {} cells are not on any printed page, the first: {:?}",
        missing.len(),
        cells.len(),
        missing.first()
    );
}

#[test]
fn the_significant_events_report_prints_every_cell() {
    let events = (1..=12)
        .map(|n| ReportEvent {
            sequence: 1_000_000 + n,
            at_ms: 1_764_590_400_000 + n * 61_000,
            kind: ["configuration_published", "hand_voided", "key_rotated"][n as usize % 3].into(),
            actors: vec![
                format!("supervisor-{}", id(n)),
                format!("local:{}", id(n + 1)),
            ],
            subject: format!("config {}", id(n)),
            before: format!("{{\"max_bet\":{},\"paytable\":\"{}\"}}", 100 * n, id(n + 2)),
            after: format!("{{\"max_bet\":{},\"paytable\":\"{}\"}}", 200 * n, id(n + 3)),
            reason: format!("table-{}-malfunction-reported-by-the-dealer", id(n + 4)),
            detail: format!("proposal={};approval={}", id(n + 5), id(n + 6)),
        })
        .collect();
    let report = EventsReport {
        source: format!("https-less server {}", id(99)),
        from_ms: 1_764_547_200_000,
        to_ms: Some(1_764_633_600_000),
        events,
        command: "pitboss report events --from 2025-12-01 --format pdf".into(),
    };
    assert_every_cell_printed(&render_events(&report), "events");
}

#[test]
fn every_dispute_packet_prints_every_cell() {
    for fixture in [
        "cs_fold_forfeits_bonus",
        "ms_royal_akq_max_bets_malfunction_void",
        "nutz_incomplete_completed_by_dealer",
        "pg_royal_ace_joker_exception",
    ] {
        let mut packet = common::packet(fixture);
        packet.table = format!("table-{}", id(1));
        packet.player = format!("player-{}", id(2));
        for (i, event) in packet.events.iter_mut().enumerate() {
            event.actor = format!("operator-{}", id(i as u64));
            event.hash_hex = id(i as u64 + 100);
            event.key_id = id(i as u64 + 200);
        }
        assert_every_cell_printed(&render(&packet), fixture);
    }
}

#[test]
fn a_certificate_prints_every_cell() {
    let rows = (0..12)
        .map(|i| SheetRow {
            row: format!("row_{}_{}", i, id(i)),
            probability: 1.0 / (i as f64 + 3.0),
            contribution: 0.01 * i as f64,
        })
        .collect::<Vec<_>>();
    let page = CertificatePage {
        game: "caribbean_stud".into(),
        config_id: id(7),
        config_text: format!("{{\"name\":\"{}\"}}", id(8)),
        seed_sources: format!("the beacon round of drand chain {}", id(10)),
        strategy: "optimal".into(),
        sheets: vec![SheetView {
            title: format!("Bonus of {}", id(9)),
            bets: "bonus".into(),
            rows,
            return_rate: 0.95,
            house_edge: 0.05,
            element_of_risk: 0.04,
            standard_deviation: 2.5,
            hit_frequency: 0.3,
            notes: vec![id(10)],
        }],
        hands: 1_000_000,
        simulation_seed: id(11),
        confidence: 0.99,
        z: 3.1,
        figures: (0..6)
            .map(|i| FigureView {
                group: format!("group_{}", id(i + 20)),
                what: format!("return of {}", id(i + 30)),
                model: i == 0,
                exact: 0.97,
                simulated: 0.969,
                low: 0.96,
                high: 0.98,
                inside: i != 3,
            })
            .collect(),
        model_rounds: Some(1_000_000),
        battery: BatteryView {
            sequences: 100,
            bits: 1_000_000,
            rows: 188,
            failing: vec![(format!("serial {}", id(40)), id(41))],
            expected_failing: 1.88,
            allowed_failing: 6,
            not_run: vec![(id(42), id(43))],
            holds: true,
        },
        transcripts: Some((format!("vendor-{}.jsonl", id(44)), 10, 1, 0, 2)),
        commands: vec![(
            id(45),
            format!("pitboss certify caribbean_stud --config {}.json", id(46)),
        )],
        holds: false,
    };
    assert_every_cell_printed(&render_certificate(&page), "certificate");
}
