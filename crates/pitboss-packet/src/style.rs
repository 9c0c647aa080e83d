//! The page's one stylesheet: screen layout, and print rules for A4 (and Letter: nothing is wider
//! than either page's printable width). Every table cell may break a long word anywhere (an id of 64
//! hexadecimal digits has no other break), so no column is pushed past the page's edge; the wide
//! significant-events table has fixed column widths and prints landscape (the `wide` page).
//!
//! This module owns presentation only. It must not reference anything outside the page: no
//! `@import`, no `url(…)`, no web fonts (only fonts the reader's system already has).

/// How headless Chromium (Debian's `chromium`) is run to print or look at a page: no sandbox (as
/// root), no GPU, no network of its own (a closed network refuses every background connection),
/// no header or footer on a printed page. The caller adds a fresh `--user-data-dir`, what to do
/// (`--print-to-pdf=…`, `--screenshot=…`, `--dump-dom`) and the page's `file://` URL.
pub const CHROMIUM_FLAGS: [&str; 10] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--no-pdf-header-footer",
];

/// The stylesheet, inlined in the page's `<style>`.
pub(crate) const STYLESHEET: &str = r#"
:root { color-scheme: light; }
body { margin: 0; color: #000; background: #fff; font-family: system-ui, "Segoe UI", Helvetica, Arial, sans-serif; font-size: 15px; line-height: 1.4; }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem; }
h1 { font-size: 1.6rem; margin: 0 0 0.5rem; }
h2 { font-size: 1.25rem; margin: 1.8rem 0 0.6rem; border-bottom: 2px solid #000; padding-bottom: 0.15rem; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 0.4rem; }
code, pre, .hash { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.85em; overflow-wrap: break-word; }
pre, .hash { overflow-wrap: anywhere; word-break: break-all; }
pre { white-space: pre-wrap; border: 1px solid #888; padding: 0.5rem; margin: 0.4rem 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.15rem 1rem; margin: 0; }
dl.facts dt { font-weight: bold; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; margin: 0.4rem 0 0.8rem; }
th, td { border: 1px solid #999; padding: 0.2rem 0.35rem; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
table.timeline { table-layout: fixed; font-size: 0.9em; }
table.timeline td { overflow-wrap: anywhere; }
table.settlement { font-size: 0.88em; }
table.timeline th { font-size: 0.85em; }
col.c-entry { width: 9%; } col.c-time { width: 12%; } col.c-what { width: 36%; } col.c-by { width: 12%; }
col.c-check { width: 6.5%; } col.c-note { width: 11.5%; }
table.events { table-layout: fixed; font-size: 0.85em; }
col.e-entry { width: 6%; } col.e-time { width: 10%; } col.e-kind { width: 10%; } col.e-who { width: 9%; }
col.e-subject { width: 15%; } col.e-before, col.e-after, col.e-reason, col.e-detail { width: 12.5%; }
th { background: #eee; }
td.amount, th.amount { text-align: right; }
td.check { text-align: center; white-space: nowrap; }
.check.yes { color: #0a5d0a; }
.check.no { color: #b00000; font-weight: bold; }
tr.applied td { background: #fff3b0; font-weight: bold; }
tr.cap-bound td { background: #fde2e2; }
.flag { display: inline-block; white-space: nowrap; border: 1.5px solid #b00000; color: #b00000; font-weight: bold; font-size: 0.8em; padding: 0 0.25rem; margin-left: 0.3rem; }
.seat, .setting, .shake { margin: 0.6rem 0 1rem; }
.place { border-top: 1px solid #999; margin: 0.8rem 0; padding-top: 0.4rem; break-inside: avoid; }
.place.yours { border: 2px solid #b00000; padding: 0.4rem; }
.cards { display: flex; flex-wrap: wrap; gap: 0.6rem; align-items: flex-start; }
figure { margin: 0; text-align: center; }
figure.card-box { width: 27mm; }
figure.die-box { width: 18mm; }
figcaption { font-size: 0.75rem; line-height: 1.2; margin-top: 0.2rem; }
.row-label { font-weight: bold; margin: 0.3rem 0 0.2rem; }
.held-mark { font-weight: bold; }
.verdict { border: 4px solid; padding: 0.8rem 1rem; margin: 0.6rem 0 1rem; font-size: 1.05rem; }
.verdict.ok { border-color: #0a5d0a; background: #e8f5e8; }
.verdict.fail { border-color: #b00000; background: #fdeaea; }
.verdict .headline { font-size: 1.3rem; font-weight: bold; margin: 0 0 0.3rem; }
.statement { font-weight: bold; }
.muted { color: #444; font-size: 0.85em; }
footer { max-width: 60rem; margin: 2rem auto 0; padding: 0.4rem 1.5rem 1.5rem; border-top: 1px solid #000; font-size: 0.85rem; }
@media print {
  @page { size: A4; margin: 15mm; }
  @page wide { size: A4 landscape; margin: 12mm; }
  main.wide { page: wide; }
  body { font-size: 9.5pt; }
  main, footer { max-width: none; padding: 0; }
  h2 { font-size: 13pt; break-after: avoid; }
  h3 { font-size: 11pt; break-after: avoid; }
  th { background: none; }
  tr, figure, .setting, .shake, .verdict, pre, dl.facts, .totals { break-inside: avoid; }
  thead { display: table-header-group; }
  section#hand, section#verdict .verdict { break-inside: avoid; }
  tr.applied td, tr.cap-bound td { background: none; }
  tr.applied td:first-child { border-left: 3pt solid #000; }
  .verdict.ok, .verdict.fail { background: none; }
  .check.yes, .check.no, .flag { color: #000; }
  figure.card-box { width: 20mm; }
  figure.die-box { width: 15mm; }
}
"#;
