//! `pitboss replay HAND`: the proof report of a hand, as text (or `--json`), from a running server.

use clap::Args;
use serde_json::json;

use super::client::{block_on, refused, ServerArgs};
use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The hand id.
    hand: String,
    /// Print the report as one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    server: ServerArgs,
}

pub fn run(args: ReplayArgs) -> anyhow::Result<std::process::ExitCode> {
    block_on(async {
        let mut audit = AuditClient::new(args.server.connect().await?);
        let r = audit
            .replay_hand(proto::ReplayHandRequest {
                hand_id: args.hand.clone(),
            })
            .await
            .map_err(refused)?
            .into_inner();
        if args.json {
            println!("{}", serde_json::to_string_pretty(&report_json(&r))?);
        } else {
            for line in &r.report {
                println!("{line}");
            }
            for e in &r.events {
                println!(
                    "  entry {:>8}  #{:<3} {:<14} by {:<16} chain {}  signature {}  re-derived {}{}",
                    e.sequence,
                    e.stream_position,
                    e.kind,
                    if e.actor.is_empty() { "-" } else { &e.actor },
                    mark(e.chain_ok),
                    mark(e.signature_ok),
                    mark(e.rederived),
                    if e.note.is_empty() {
                        String::new()
                    } else {
                        format!("  ({})", e.note)
                    }
                );
            }
        }
        Ok(if r.consistent {
            std::process::ExitCode::SUCCESS
        } else {
            std::process::ExitCode::from(1)
        })
    })
}

fn mark(ok: bool) -> &'static str {
    if ok {
        "ok"
    } else {
        "FAIL"
    }
}

fn report_json(r: &proto::ReplayHandResponse) -> serde_json::Value {
    json!({
        "hand_id": r.hand_id,
        "config_id": r.config_id,
        "status": r.status,
        "commitment_ok": r.commitment_ok,
        "seed_revealed": r.seed_revealed,
        "consistent": r.consistent,
        "refunds_equal_stakes": r.refunds_equal_stakes,
        "events": r.events.iter().map(|e| json!({
            "sequence": e.sequence, "stream_position": e.stream_position, "kind": e.kind,
            "chain_ok": e.chain_ok, "signature_ok": e.signature_ok, "rederived": e.rederived, "note": e.note,
            "actor": e.actor,
        })).collect::<Vec<_>>(),
        "mismatches": r.mismatches.iter().map(|m| json!({
            "sequence": m.sequence, "event": m.event, "field": m.field, "recorded": m.recorded, "rederived": m.rederived,
        })).collect::<Vec<_>>(),
        "settlement": r.settlement.as_ref().map(|s| json!({
            "lines": s.lines.iter().map(|l| json!({
                "bet": l.bet, "stake": l.stake, "judged_on": l.judged_on, "rule": l.rule, "outcome": l.outcome,
                "uncapped": l.uncapped, "cap": l.cap, "cut": l.cut, "payout": l.payout,
            })).collect::<Vec<_>>(),
            "game_cap": s.game_cap.map(|g| json!({"total_before": g.total_before, "cap": g.cap, "cut": g.cut, "total_after": g.total_after})),
            "total_staked": s.total_staked,
            "total_paid": s.total_paid,
        })),
        "void": r.void.as_ref().map(|v| json!({
            "kind": v.kind, "reason": v.reason, "recorded_by": v.recorded_by, "approved_by": v.approved_by, "at_ms": v.at_ms,
            "allowed_because": v.allowed_because, "total_staked": v.total_staked,
            "paid_before": v.paid_before, "paid_now": v.paid_now,
        })),
        "report": r.report,
    })
}
