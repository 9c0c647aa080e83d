//! The certification report: one self-contained HTML page for one configuration of a game. It
//! shows the configuration's text and id, the exact PAR sheets row by row, the strategy assumed,
//! and the simulation with every exact figure against its simultaneous 99 % interval. It shows
//! the RNG battery's verdict, the vendor's transcripts when given, and the command that
//! reproduces each part. It is built from a plain model the caller fills, in the dispute packet's
//! stylesheet, so headless Chromium prints it to PDF as it prints a packet.
//!
//! This module owns the page's structure. Like the packet's page it MUST NOT read, fetch or time
//! anything (the same model gives the same bytes: the page's hash is what the log records), emit
//! a script, a URL or an external reference, or panic on what it is given; every value goes
//! through maud's escaping ([`Text`]).

use maud::{html, Markup, DOCTYPE};

use crate::escape::Text;
use crate::page::head;

/// One row of an exact sheet.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SheetRow {
    pub row: String,
    pub probability: f64,
    /// Its share of the return: what the row returns per unit wagered on the sheet.
    pub contribution: f64,
}

/// One exact PAR sheet.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SheetView {
    pub title: String,
    pub bets: String,
    pub rows: Vec<SheetRow>,
    pub return_rate: f64,
    pub house_edge: f64,
    pub element_of_risk: f64,
    pub standard_deviation: f64,
    pub hit_frequency: f64,
    pub notes: Vec<String>,
}

/// One figure against the simulation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FigureView {
    pub group: String,
    pub what: String,
    /// Whether `exact` is the lab's model simulated apart (the Pai Gow main bet), not an exact
    /// figure.
    pub model: bool,
    pub exact: f64,
    pub simulated: f64,
    pub low: f64,
    pub high: f64,
    pub inside: bool,
}

/// The RNG battery's verdict.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BatteryView {
    pub sequences: u32,
    pub bits: u64,
    pub rows: usize,
    pub failing: Vec<(String, String)>,
    pub expected_failing: f64,
    pub allowed_failing: u32,
    pub not_run: Vec<(String, String)>,
    pub holds: bool,
}

/// Everything the page shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CertificatePage {
    pub game: String,
    pub config_id: String,
    pub config_text: String,
    pub strategy: String,
    /// What the configuration's rounds mix their deal seed from besides the certified RNG's
    /// seed, in words (`docs/rng.md` §1a).
    pub seed_sources: String,
    pub sheets: Vec<SheetView>,
    pub hands: u64,
    pub simulation_seed: String,
    pub confidence: f64,
    pub z: f64,
    pub figures: Vec<FigureView>,
    /// When a figure is held to the lab's model: the rounds the model was simulated over.
    pub model_rounds: Option<u64>,
    pub battery: BatteryView,
    /// When the vendor's transcripts were checked: (source, agree, differ, refused, of another
    /// configuration).
    pub transcripts: Option<(String, u64, u64, u64, u64)>,
    /// (what, command).
    pub commands: Vec<(String, String)>,
    pub holds: bool,
}

fn percent(x: f64) -> String {
    format!("{:.4} %", x * 100.0)
}

fn verdict(holds: bool) -> Markup {
    html! { @if holds { strong { "holds" } } @else { strong { "FAILS" } } }
}

/// Renders the certificate as one HTML page.
pub fn render_certificate(c: &CertificatePage) -> String {
    let inside = c.figures.iter().filter(|f| f.inside).count();
    let page = html! {
        (DOCTYPE) "\n"
        html lang="en" {
            "\n"
            (head(html! { "Certification report — " (Text(&c.game)) " " (Text(&c.config_id)) }))
            "\n"
            body {
                "\n"
                main {
                    "\n"
                    h1 { "Certification report: " (Text(&c.game)) } "\n"
                    p { "Configuration " code { (Text(&c.config_id)) } ". Verdict: " (verdict(c.holds)) "." } "\n"
                    section {
                        "\n" h2 { "The configuration" } "\n"
                        p { "Its id is the SHA-256 of this canonical text." } "\n"
                        pre { (Text(&c.config_text)) } "\n"
                        p { "Strategy assumed: " (Text(&c.strategy)) "." } "\n"
                        p { "Deal seed: " (Text(&c.seed_sources)) "." } "\n"
                    }
                    "\n"
                    @for sheet in &c.sheets {
                        section {
                            "\n" h2 { "PAR sheet: " (Text(&sheet.title)) } "\n"
                            p { "Bets: " (Text(&sheet.bets)) } "\n"
                            table {
                                "\n" thead { tr { th { "row" } th { "probability" } th { "contribution" } } } "\n"
                                tbody {
                                    @for r in &sheet.rows {
                                        tr { td { (Text(&r.row)) } td { (format!("{:.10}", r.probability)) } td { (percent(r.contribution)) } } "\n"
                                    }
                                }
                                "\n"
                            }
                            "\n"
                            table {
                                "\n"
                                tbody {
                                    tr { th { "return" } td { (percent(sheet.return_rate)) } } "\n"
                                    tr { th { "house edge" } td { (percent(sheet.house_edge)) } } "\n"
                                    tr { th { "element of risk" } td { (percent(sheet.element_of_risk)) } } "\n"
                                    tr { th { "variance (per unit)" } td { (format!("{:.4}", sheet.standard_deviation * sheet.standard_deviation)) } } "\n"
                                    tr { th { "standard deviation (per unit)" } td { (format!("{:.4}", sheet.standard_deviation)) } } "\n"
                                    tr { th { "hit frequency" } td { (percent(sheet.hit_frequency)) } } "\n"
                                }
                                "\n"
                            }
                            "\n"
                            @for note in &sheet.notes { p { (Text(note)) } "\n" }
                        }
                        "\n"
                    }
                    section {
                        "\n" h2 { "Simulation through the engine" } "\n"
                        p {
                            (c.hands) " hands, seed " code { (Text(&c.simulation_seed)) } ". "
                            "Each exact figure against its simulated value's interval, simultaneous at "
                            (format!("{:.0} %", c.confidence * 100.0)) " (Bonferroni over "
                            (c.figures.len()) " figures: z = " (format!("{:.4}", c.z)) "). "
                            (inside) " of " (c.figures.len()) " inside."
                        } "\n"
                        @if let Some(rounds) = c.model_rounds {
                            p {
                                "The main bet has no exact sheet: its return is held to the lab's own model of it "
                                "(the house way for both sides, the engine's main-bet rule), simulated apart over "
                                (rounds) " rounds from a seed of its own (marked model); its interval is that of "
                                "the two estimates' difference."
                            } "\n"
                        }
                        table {
                            "\n" thead { tr { th { "group" } th { "figure" } th { "exact" } th { "simulated" } th { "interval" } th { "" } } } "\n"
                            tbody {
                                @for f in &c.figures {
                                    tr {
                                        td { (Text(&f.group)) } td { (Text(&f.what)) }
                                        td { (format!("{:.8}", f.exact)) @if f.model { " (model)" } } td { (format!("{:.8}", f.simulated)) }
                                        td { (format!("[{:.8}, {:.8}]", f.low, f.high)) }
                                        td { @if f.inside { "inside" } @else { strong { "OUTSIDE" } } }
                                    }
                                    "\n"
                                }
                            }
                            "\n"
                        }
                        "\n"
                    }
                    "\n"
                    section {
                        "\n" h2 { "The RNG battery" } "\n"
                        p {
                            "NIST SP 800-22 (all fifteen tests) and the table games' own tests over "
                            (c.battery.sequences) " sequences of " (c.battery.bits) " bits: "
                            (c.battery.rows) " rows judged, " (c.battery.failing.len()) " failing; chance explains up to "
                            (c.battery.allowed_failing) " (a perfect generator fails "
                            (format!("{:.2}", c.battery.expected_failing)) " on average). " (verdict(c.battery.holds)) "."
                        } "\n"
                        @if !c.battery.failing.is_empty() {
                            table {
                                "\n" thead { tr { th { "failing row" } th { "passed" } } } "\n"
                                tbody { @for (row, passed) in &c.battery.failing { tr { td { (Text(row)) } td { (Text(passed)) } } "\n" } }
                                "\n"
                            }
                            "\n"
                        }
                        @for (test, reason) in &c.battery.not_run { p { (Text(test)) ": " (Text(reason)) } "\n" }
                    }
                    "\n"
                    @if let Some((source, agree, differ, refused, other)) = &c.transcripts {
                        section {
                            "\n" h2 { "The vendor's transcripts" } "\n"
                            p { (Text(source)) ": " (agree) " agree with the rules, " (differ) " differ, " (refused) " refused, " (other) " of another configuration." } "\n"
                        }
                        "\n"
                    }
                    section {
                        "\n" h2 { "Reproduce" } "\n"
                        table {
                            "\n"
                            tbody { @for (what, command) in &c.commands { tr { th { (Text(what)) } td { code { (Text(command)) } } } "\n" } }
                            "\n"
                        }
                        "\n"
                    }
                    "\n"
                }
                "\n"
            }
            "\n"
        }
        "\n"
    };
    page.into_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hostile text is escaped wherever it lands; the page names no URL and runs no script; the
    /// same model gives the same bytes.
    #[test]
    fn every_value_is_escaped_and_the_page_is_a_function_of_its_model() {
        let page = CertificatePage {
            game: "<script>alert(1)</script>".into(),
            config_text: "{\"a\":\"</pre><b>\"}".into(),
            figures: vec![FigureView {
                group: "main & <i>".into(),
                inside: false,
                ..FigureView::default()
            }],
            commands: vec![("x".into(), "pitboss par --config \"<f>\"".into())],
            ..CertificatePage::default()
        };
        let html = render_certificate(&page);
        assert!(!html.contains("<script") && !html.contains("<b>") && !html.contains("<i>"));
        assert!(html.contains("&lt;script&gt;") && html.contains("OUTSIDE"));
        assert!(!html.contains("http:") && !html.contains("https:") && !html.contains("src="));
        assert!(html.contains("http-equiv=\"Content-Security-Policy\""));
        assert_eq!(html, render_certificate(&page));
    }
}
