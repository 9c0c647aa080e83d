//! `pitboss report events --from … --to … --format html|pdf|csv --out FILE`: the significant-events
//! report of a period from a server (`Audit.ListSignificantEvents`, every page), written as the
//! page `pitboss-packet` draws (HTML), that page printed by headless Chromium (PDF, as the dispute
//! packet is), or CSV (one row per event).

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use super::client::{block_on, refused, ServerArgs};
use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;

#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(subcommand)]
    what: Report,
}

#[derive(Debug, Subcommand)]
enum Report {
    /// Every entry of a period that is not a hand's own play (docs/significant-events.md).
    Events(EventsArgs),
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Format {
    Html,
    Pdf,
    Csv,
}

#[derive(Debug, Args)]
struct EventsArgs {
    /// The period's start: a UTC date (YYYY-MM-DD) or milliseconds since the epoch.
    #[arg(long, default_value = "0")]
    from: String,
    /// The period's end (inclusive; a date means its whole day): as --from; omitted: the log's end.
    #[arg(long)]
    to: Option<String>,
    /// Only these kinds (repeat for several).
    #[arg(long)]
    kind: Vec<String>,
    #[arg(long, value_enum, default_value = "html")]
    format: Format,
    /// Where to write it.
    #[arg(long)]
    out: PathBuf,
    /// Chromium, for `--format pdf` [default: chromium]. Env: PITBOSS_CHROMIUM.
    #[arg(long, env = "PITBOSS_CHROMIUM", default_value = "chromium")]
    chromium: String,
    #[command(flatten)]
    server: ServerArgs,
}

pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    let Report::Events(args) = args.what;
    let from_ms = super::times::parse_time(&args.from, false)?;
    let to_ms = args
        .to
        .as_deref()
        .map(|t| super::times::parse_time(t, true))
        .transpose()?;
    let events = block_on(async {
        let mut audit = AuditClient::new(args.server.connect().await?);
        let mut events = Vec::new();
        let mut token = String::new();
        loop {
            let page = audit
                .list_significant_events(proto::ListSignificantEventsRequest {
                    from_ms,
                    to_ms: to_ms.unwrap_or(0),
                    kinds: args.kind.clone(),
                    page_size: 1000,
                    page_token: token.clone(),
                })
                .await
                .map_err(refused)?
                .into_inner();
            events.extend(page.events);
            if page.next_page_token.is_empty() {
                return anyhow::Ok(events);
            }
            token = page.next_page_token;
        }
    })?;
    let report = pitboss_packet::EventsReport {
        source: args.server.server.clone(),
        from_ms,
        to_ms,
        events: events
            .into_iter()
            .map(|e| pitboss_packet::ReportEvent {
                sequence: e.sequence,
                at_ms: e.at_ms,
                kind: e.kind,
                actors: e.actors,
                subject: e.subject,
                before: e.before,
                after: e.after,
                reason: e.reason,
                detail: e.detail,
            })
            .collect(),
        command: format!(
            "pitboss report events --from {} {}{}--format {} --server {}",
            args.from,
            args.to
                .as_ref()
                .map(|t| format!("--to {t} "))
                .unwrap_or_default(),
            args.kind
                .iter()
                .map(|k| format!("--kind {k} "))
                .collect::<String>(),
            format!("{:?}", args.format).to_lowercase(),
            args.server.server.clone()
        ),
    };
    match args.format {
        Format::Html => {
            super::pages::write_new(&args.out, pitboss_packet::render_events(&report).as_bytes())?
        }
        Format::Csv => super::pages::write_new(&args.out, &csv_of(&report)?)?,
        Format::Pdf => super::pages::print_pdf(
            &pitboss_packet::render_events(&report),
            &args.out,
            &args.chromium,
        )?,
    }
    println!(
        "{} events written to {}",
        report.events.len(),
        args.out.display()
    );
    Ok(())
}

fn csv_of(report: &pitboss_packet::EventsReport) -> anyhow::Result<Vec<u8>> {
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record([
        "sequence", "at_ms", "at_utc", "kind", "actors", "subject", "before", "after", "reason",
        "detail",
    ])?;
    for e in &report.events {
        out.write_record([
            e.sequence.to_string(),
            e.at_ms.to_string(),
            pitboss_packet::utc(e.at_ms),
            e.kind.clone(),
            e.actors.join(" "),
            e.subject.clone(),
            e.before.clone(),
            e.after.clone(),
            e.reason.clone(),
            e.detail.clone(),
        ])?;
    }
    Ok(out.into_inner()?)
}
