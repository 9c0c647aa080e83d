//! `pitboss returns` (the floor's returns against the theoretical, from a server: one line per
//! game, table (or dealer, `--by dealer`), configuration, bet group and window, then the alerts;
//! `--json` for the whole answer) and `pitboss investigate ALERT --outcome O --reason R` (a supervisor closes an alert).

use clap::Args;

use super::client::{block_on, refused, ServerArgs};
use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;
use pitboss::proto::operations_client::OperationsClient;

#[derive(Debug, Args)]
pub struct ReturnsArgs {
    /// Only this game.
    #[arg(long)]
    game: Option<String>,
    /// Only this table.
    #[arg(long)]
    table: Option<String>,
    /// Only this dealer's rounds.
    #[arg(long)]
    dealer: Option<String>,
    /// A row per `table` (every dealer's rounds and the hands) or per `dealer` (every table's
    /// rounds of the dealer; hands have no dealer).
    #[arg(long, default_value = "table", value_parser = ["table", "dealer"])]
    by: String,
    /// Only this configuration (64 hexadecimal digits).
    #[arg(long)]
    config_id: Option<String>,
    /// Only this bet group (main, bonus, fortune_bonus, a Nutz box).
    #[arg(long)]
    bet: Option<String>,
    /// Windows in days: 0 (the lifetime), 1, 7, 30 (all if omitted; repeat for several).
    #[arg(long)]
    window: Vec<u32>,
    /// Print every page's answer as JSON lines instead of the table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    server: ServerArgs,
}

fn percent(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{:.4} %", v * 100.0))
}

pub fn run(args: ReturnsArgs) -> anyhow::Result<()> {
    block_on(async {
        let mut audit = AuditClient::new(args.server.connect().await?);
        let mut token = String::new();
        let mut first = true;
        // Each page carries the newest alerts and any older one its rows name: each printed once.
        let mut printed = std::collections::HashSet::new();
        loop {
            let r = audit
                .get_returns(proto::GetReturnsRequest {
                    game: args.game.clone().unwrap_or_default(),
                    table: args.table.clone().unwrap_or_default(),
                    config_id: args.config_id.clone().unwrap_or_default(),
                    bet: args.bet.clone().unwrap_or_default(),
                    windows: args.window.clone(),
                    page_size: 1000,
                    page_token: token.clone(),
                    dealer: args.dealer.clone().unwrap_or_default(),
                    by: if args.by == "dealer" {
                        proto::ReturnsBy::Dealer as i32
                    } else {
                        proto::ReturnsBy::Table as i32
                    },
                })
                .await
                .map_err(refused)?
                .into_inner();
            if args.json {
                println!("{}", serde_json::to_string(&answer_json(&r))?);
            } else {
                if first {
                    println!(
                        "through entry {}{}{}",
                        r.through_sequence,
                        if r.caught_up {
                            ""
                        } else {
                            " (still reading the log)"
                        },
                        if r.untracked_hands > 0 {
                            format!("; {} hands untracked (too many keys)", r.untracked_hands)
                        } else {
                            String::new()
                        }
                    );
                    println!(
                        "{:<16} {:<12} {:<12} {:<16} {:<14} {:>6} {:>9} {:>12} {:>12} {:>8}  band (99 %)",
                        "game",
                        "table",
                        "dealer",
                        "config",
                        "bet",
                        "window",
                        "hands",
                        "actual",
                        "theory",
                        "z"
                    );
                }
                for row in &r.rows {
                    let Some(t) = &row.totals else { continue };
                    let config = hex::encode(&t.config_id);
                    let all = |name: &str| {
                        if name.is_empty() {
                            "*".to_string()
                        } else {
                            name.to_string()
                        }
                    };
                    println!(
                        "{:<16} {:<12} {:<12} {:<16} {:<14} {:>6} {:>9} {:>12} {:>12} {:>8}  {}{}{}",
                        t.game,
                        all(&t.table),
                        all(&t.dealer),
                        &config[..config.len().min(16)],
                        t.bet,
                        if row.window_days == 0 {
                            "life".to_string()
                        } else {
                            format!("{}d", row.window_days)
                        },
                        t.hands.saturating_sub(t.voided_hands),
                        percent(row.actual),
                        percent(row.theoretical),
                        row.z.map_or("-".into(), |z| format!("{z:+.2}")),
                        match (row.band_low, row.band_high) {
                            (Some(l), Some(h)) =>
                                format!("{} .. {}", percent(Some(l)), percent(Some(h))),
                            _ => row.theory_note.clone(),
                        },
                        if row.out_of_band { "  OUT OF BAND" } else { "" },
                        if row.open_alert_id.is_empty() {
                            String::new()
                        } else {
                            format!("  alert {}", row.open_alert_id)
                        },
                    );
                }
            }
            if !args.json {
                for a in &r.alerts {
                    let Some(alert) = &a.alert else { continue };
                    if !printed.insert(alert.alert_id.clone()) {
                        continue;
                    }
                    let t = alert.totals.clone().unwrap_or_default();
                    let state = match &a.investigation {
                        Some(i) => format!(
                            "closed by {} ({}: {})",
                            a.investigated_by, i.outcome, i.reason
                        ),
                        None => "OPEN".to_string(),
                    };
                    println!(
                        "alert {} at entry {}: {} {}{} {} window {} d, actual {} against {}, z {:+.2}: {state}",
                        alert.alert_id,
                        a.sequence,
                        t.game,
                        t.table,
                        if t.dealer.is_empty() { String::new() } else { format!("dealer {}", t.dealer) },
                        t.bet,
                        alert.window_days,
                        percent(Some(alert.actual)),
                        percent(Some(alert.theoretical)),
                        alert.z
                    );
                }
            }
            first = false;
            if r.next_page_token.is_empty() {
                return Ok(());
            }
            token = r.next_page_token;
        }
    })
}

fn totals_json(t: &proto::ReturnsTotals) -> serde_json::Value {
    serde_json::json!({
        "game": t.game, "table": t.table, "dealer": t.dealer, "config_id": hex::encode(&t.config_id), "bet": t.bet,
        "hands": t.hands, "staked": t.staked, "paid": t.paid, "initial": t.initial,
        "initial_squares": t.initial_squares, "voided_hands": t.voided_hands,
        "voided_staked": t.voided_staked, "voided_paid": t.voided_paid,
    })
}

fn answer_json(r: &proto::GetReturnsResponse) -> serde_json::Value {
    serde_json::json!({
        "through_sequence": r.through_sequence,
        "caught_up": r.caught_up,
        "untracked_hands": r.untracked_hands,
        "rows": r.rows.iter().map(|row| serde_json::json!({
            "totals": row.totals.as_ref().map(totals_json),
            "window_days": row.window_days,
            "actual": row.actual,
            "theoretical": row.theoretical,
            "standard_deviation": row.standard_deviation,
            "theoretical_exact": row.theoretical_exact,
            "theory_note": row.theory_note,
            "z": row.z,
            "band_low": row.band_low,
            "band_high": row.band_high,
            "out_of_band": row.out_of_band,
            "deviation_over_4_percent": row.deviation_over_4_percent,
            "open_alert_id": row.open_alert_id,
        })).collect::<Vec<_>>(),
        "alerts": r.alerts.iter().map(|a| serde_json::json!({
            "alert_id": a.alert.as_ref().map(|x| x.alert_id.clone()),
            "sequence": a.sequence,
            "window_days": a.alert.as_ref().map(|x| x.window_days),
            "totals": a.alert.as_ref().and_then(|x| x.totals.as_ref()).map(totals_json),
            "outcome": a.investigation.as_ref().map(|i| i.outcome.clone()),
            "investigated_by": a.investigated_by,
        })).collect::<Vec<_>>(),
    })
}

#[derive(Debug, Args)]
pub struct InvestigateArgs {
    /// The alert's id (`pitboss returns` lists them).
    alert_id: String,
    /// explained, malfunction, fraud or other.
    #[arg(long)]
    outcome: String,
    /// What was found.
    #[arg(long)]
    reason: String,
    #[command(flatten)]
    server: ServerArgs,
}

pub fn run_investigate(args: InvestigateArgs) -> anyhow::Result<()> {
    block_on(async {
        let mut ops = OperationsClient::new(args.server.connect().await?);
        let r = ops
            .record_investigation(proto::RecordInvestigationRequest {
                alert_id: args.alert_id.clone(),
                outcome: args.outcome.clone(),
                reason: args.reason.clone(),
            })
            .await
            .map_err(refused)?
            .into_inner();
        println!("alert {} closed by entry {}", args.alert_id, r.sequence);
        Ok(())
    })
}
