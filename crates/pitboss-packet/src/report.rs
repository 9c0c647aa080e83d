//! The significant-events report: one self-contained HTML page listing a period's events (every
//! entry that is not a hand's own play), from a plain model the caller fills, in the dispute
//! packet's stylesheet (A4 and Letter in print, so headless Chromium prints it to PDF as it prints a
//! packet).
//!
//! This module owns the report's structure. Like the packet's page it MUST NOT read, fetch or time
//! anything (the same model gives the same bytes), emit a script, a URL or an external reference,
//! or panic on what a log holds; every value goes through maud's escaping ([`Text`]).

use maud::{html, DOCTYPE};

use crate::escape::Text;
use crate::page::head;
use crate::time::utc;

/// One event as the report shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReportEvent {
    pub sequence: u64,
    pub at_ms: u64,
    pub kind: String,
    pub actors: Vec<String>,
    pub subject: String,
    pub before: String,
    pub after: String,
    pub reason: String,
    pub detail: String,
}

/// What the report covers and lists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventsReport {
    /// Where the events come from (the server's address, a data directory).
    pub source: String,
    pub from_ms: u64,
    /// `None`: to the log's end when it was read.
    pub to_ms: Option<u64>,
    pub events: Vec<ReportEvent>,
    /// How to reproduce it.
    pub command: String,
}

/// Renders the report as one HTML page.
pub fn render_events(report: &EventsReport) -> String {
    let to = report.to_ms.map_or("the log's end".to_string(), utc);
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for e in &report.events {
        *counts.entry(e.kind.as_str()).or_default() += 1;
    }
    let page = html! {
        (DOCTYPE) "\n"
        html lang="en" {
            "\n"
            (head(html! { "Significant events — " (utc(report.from_ms)) " to " (Text(&to)) }))
            "\n"
            body {
                "\n"
                main.wide {
                    "\n"
                    h1 { "Significant events" } "\n"
                    p { "From " (utc(report.from_ms)) " to " (Text(&to)) ", read from " (Text(&report.source)) ": every entry of the log that is not a hand's own play, in log order." } "\n"
                    section {
                        "\n" h2 { "Summary" } "\n"
                        table {
                            "\n" thead { tr { th { "kind" } th { "events" } } } "\n"
                            tbody {
                                @for (kind, n) in &counts {
                                    tr { td { (Text(kind)) } td { (n) } } "\n"
                                }
                            }
                            "\n"
                        }
                        "\n"
                        p { (report.events.len()) " events." } "\n"
                    }
                    "\n"
                    section {
                        "\n" h2 { "Events" } "\n"
                        table class="events" {
                            "\n"
                            colgroup {
                                col.e-entry; col.e-time; col.e-kind; col.e-who; col.e-subject;
                                col.e-before; col.e-after; col.e-reason; col.e-detail;
                            }
                            "\n"
                            thead { tr { th { "entry" } th { "time" } th { "kind" } th { "who" } th { "subject" } th { "before" } th { "after" } th { "reason" } th { "detail" } } } "\n"
                            tbody {
                                @for e in &report.events {
                                    tr id=(format!("entry-{}", e.sequence)) {
                                        td { (e.sequence) }
                                        td { (utc(e.at_ms)) }
                                        td { (Text(&e.kind)) }
                                        td { (Text(&e.actors.join(", "))) }
                                        td { (Text(&e.subject)) }
                                        td { (Text(&e.before)) }
                                        td { (Text(&e.after)) }
                                        td { (Text(&e.reason)) }
                                        td { (Text(&e.detail)) }
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
                        "\n" h2 { "Reproduce" } "\n"
                        pre { (Text(&report.command)) } "\n"
                        p { "Each event is the log entry of that sequence, signed and chained: `pitboss verify` checks every one." } "\n"
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

    /// Hostile text is escaped wherever it lands; the page names no URL and runs no script.
    #[test]
    fn every_value_is_escaped_and_nothing_is_fetched() {
        let report = EventsReport {
            source: "<b>server</b>".into(),
            from_ms: 0,
            to_ms: None,
            events: vec![ReportEvent {
                sequence: 7,
                at_ms: 86_400_000,
                kind: "hand_voided".into(),
                actors: vec!["<script>alert(1)</script>".into()],
                subject: "hand \"x\"".into(),
                reason: "a & b".into(),
                ..ReportEvent::default()
            }],
            command: "pitboss report events".into(),
        };
        let page = render_events(&report);
        assert!(!page.contains("<script>"), "{page}");
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(page.contains("&lt;b&gt;server&lt;/b&gt;"));
        assert!(page.contains("a &amp; b"));
        assert!(page.contains("1970-01-02 00:00:00.000 UTC"));
        assert!(
            !page.contains("http:") && !page.contains("https:") && !page.contains("url("),
            "{page}"
        );
        assert!(page.contains(&format!(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">",
            crate::CONTENT_SECURITY_POLICY
        )));
        assert_eq!(
            page,
            render_events(&report),
            "the same model, the same bytes"
        );
    }
}
