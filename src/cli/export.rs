//! `pitboss export --from T1 --to T2 [--table T] [--game G] [--player P] [--dealer D]
//! [--round R] [--seat S] --format parquet|csv|jsonl --out DIR`: the analysts' export from a running server
//! (`Audit.ExportHands`), written by `pitboss-export` as four files — `hands`, `bets`, `events`,
//! `places` — in `DIR` (`docs/export.md` has the schema). A bar
//! on a terminal shows how far the server's walk has come. The files appear under their names only
//! once complete; an interrupted export leaves none that looks complete.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{bail, Context};
use clap::Args;
use pitboss_export::{BetRow, EventRow, ExportWriter, Format, HandRow, PlaceRow};
use tokio_stream::StreamExt;

use super::client::{block_on, refused, ServerArgs};
use super::progress;
use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;
use proto::export_row::Row;

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Hands opened at or after this time: `YYYY-MM-DD` (midnight UTC), `YYYY-MM-DDTHH:MM:SSZ`,
    /// or milliseconds since the Unix epoch.
    #[arg(long)]
    from: String,
    /// Hands opened at or before this time, in the same forms; a date alone means the end of
    /// that day (UTC). Default: no bound.
    #[arg(long)]
    to: Option<String>,
    /// Only this table's hands and rounds.
    #[arg(long)]
    table: Option<String>,
    /// Only this game's hands and rounds (`mississippi_stud`, `fortune_pai_gow`, `nutz`,
    /// `caribbean_stud`).
    #[arg(long)]
    game: Option<String>,
    /// Only this player's hands and places (by the time of the player's bets on rounds).
    #[arg(long)]
    player: Option<String>,
    /// Only this dealer's rounds (no hands: they have no dealer).
    #[arg(long)]
    dealer: Option<String>,
    /// Only this round (32 hexadecimal digits; no hands).
    #[arg(long)]
    round: Option<String>,
    /// Only the places at this seat (1 to 7) of rounds of seats (no hands).
    #[arg(long, default_value_t = 0)]
    seat: u32,
    /// `parquet`, `csv` or `jsonl`.
    #[arg(long)]
    format: String,
    /// The directory of the four files (created if missing; existing files are never replaced).
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    server: ServerArgs,
}

fn hand_row(h: proto::ExportHand) -> anyhow::Result<HandRow> {
    Ok(HandRow {
        game: game_name(h.game),
        hand_id: h.hand_id,
        table: h.table,
        player: h.player,
        opened_at_ms: h.opened_at_ms,
        closed_at_ms: h.closed_at_ms,
        config_id: h.config_id,
        config_name: h.config_name,
        config_version: h.config_version,
        currency: h.currency,
        minor_digits: u8::try_from(h.minor_digits).context("minor digits beyond 255")?,
        status: h.status,
        staked: h.staked,
        paid: h.paid,
        net: h.net,
    })
}

fn bet_row(b: proto::ExportBet) -> BetRow {
    BetRow {
        hand_id: (!b.hand_id.is_empty()).then_some(b.hand_id),
        round_id: (!b.round_id.is_empty()).then_some(b.round_id),
        place: b.place,
        sequence: b.sequence,
        kind: b.kind,
        line: b.line,
        bet: b.bet,
        stake: b.stake,
        judged_on: b.judged_on,
        rule: b.rule,
        pay: b.pay,
        odds: b.odds,
        outcome: b.outcome,
        uncapped: b.uncapped,
        cap: b.cap,
        cut: b.cut,
        payout: b.payout,
        currency: b.currency,
    }
}

fn event_row(e: proto::ExportEvent) -> EventRow {
    EventRow {
        sequence: e.sequence,
        stream: e.stream,
        stream_position: e.stream_position,
        kind: e.kind,
        hand_id: (!e.hand_id.is_empty()).then_some(e.hand_id),
        recorded_at_ms: e.recorded_at_ms,
        actor: e.actor,
        hash: e.hash,
        signature: e.signature,
        key_id: e.key_id,
        round_id: (!e.round_id.is_empty()).then_some(e.round_id),
    }
}

fn place_row(p: proto::ExportPlace) -> anyhow::Result<PlaceRow> {
    Ok(PlaceRow {
        game: game_name(p.game),
        round_id: p.round_id,
        place: p.place,
        seat: p
            .seat
            .map(|s| u8::try_from(s).context("a seat beyond 255"))
            .transpose()?,
        player: p.player,
        table: p.table,
        dealer: p.dealer,
        shape: p.shape,
        config_id: p.config_id,
        config_name: p.config_name,
        config_version: p.config_version,
        currency: p.currency,
        minor_digits: u8::try_from(p.minor_digits).context("minor digits beyond 255")?,
        opened_at_ms: p.opened_at_ms,
        ended_at_ms: p.ended_at_ms,
        bet_at_ms: p.bet_at_ms,
        round_phase: p.round_phase,
        status: p.status,
        staked: p.staked,
        paid: p.paid,
        net: p.net,
        void_kind: (!p.void_kind.is_empty()).then_some(p.void_kind),
    })
}

/// A game's id, as the export writes it (`mississippi_stud`, …).
fn game_name(game: i32) -> String {
    proto::Game::try_from(game)
        .map(|g| g.as_str_name().trim_start_matches("GAME_").to_lowercase())
        .unwrap_or_else(|_| game.to_string())
}

pub fn run(args: ExportArgs) -> anyhow::Result<()> {
    let format: Format = args.format.parse()?;
    let from_ms = super::times::parse_time(&args.from, false).context("--from")?;
    let to_ms = match &args.to {
        Some(to) => super::times::parse_time(to, true).context("--to")?,
        None => 0,
    };
    if to_ms != 0 && to_ms < from_ms {
        bail!("--to is before --from");
    }
    let game = match &args.game {
        None => proto::Game::Unspecified,
        Some(g) => proto::Game::from_str_name(&format!("GAME_{}", g.to_uppercase()))
            .filter(|g| *g != proto::Game::Unspecified)
            .with_context(|| format!("--game {g}: not a game"))?,
    };
    let request = proto::ExportHandsRequest {
        from_ms,
        to_ms,
        table: args.table.clone().unwrap_or_default(),
        game: game as i32,
        player: args.player.clone().unwrap_or_default(),
        dealer: args.dealer.clone().unwrap_or_default(),
        round_id: args.round.clone().unwrap_or_default(),
        seat: args.seat,
    };
    let mut writer = ExportWriter::create(&args.out, format)?;
    let (scanned, total) = (AtomicU64::new(0), AtomicU64::new(0));
    let indexed = [&args.table, &args.player, &args.dealer, &args.round]
        .iter()
        .any(|a| a.is_some());
    let unit = if indexed {
        "hands and rounds"
    } else {
        "entries"
    };
    progress::while_running_to(&scanned, &total, unit, || {
        block_on(async {
            let mut audit = AuditClient::new(args.server.connect().await?);
            let mut rows = audit
                .export_hands(request)
                .await
                .map_err(refused)?
                .into_inner();
            while let Some(row) = rows.next().await {
                match row.map_err(refused)?.row {
                    Some(Row::Hand(h)) => writer.hand(&hand_row(h)?)?,
                    Some(Row::Bet(b)) => writer.bet(&bet_row(b))?,
                    Some(Row::Event(e)) => writer.event(&event_row(e))?,
                    Some(Row::Place(p)) => writer.place(&place_row(p)?)?,
                    Some(Row::Progress(p)) => {
                        scanned.store(p.scanned, Ordering::Relaxed);
                        total.store(p.total, Ordering::Relaxed);
                    }
                    None => {}
                }
            }
            Ok(())
        })
    })?;
    let written = writer.finish()?;
    for table in written.tables() {
        println!("{}", serde_json::to_string(&table_line(table))?);
    }
    Ok(())
}

/// One line of the summary: the table, its file and its rows.
fn table_line(table: &pitboss_export::TableWritten) -> serde_json::Value {
    serde_json::json!({
        "table": table.table.name(),
        "file": table.path.display().to_string(),
        "rows": table.rows,
    })
}
