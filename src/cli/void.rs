//! `pitboss void HAND --kind K --reason R`, `pitboss void --table T --from MS --to MS ...` (a table
//! malfunction over a time range) and `pitboss sweep --as-of MS`: the void rules, for operators.
//! Who records them is the principal the credential names; a settled hand's void and a table
//! malfunction are proposals until another principal approves them (`pitboss approve`).

use clap::Args;

use super::client::{block_on, refused, ServerArgs};
use pitboss::proto;
use pitboss::proto::operations_client::OperationsClient;

#[derive(Debug, Args)]
pub struct VoidArgs {
    /// The hand to void (or use --table with --from and --to).
    hand: Option<String>,
    /// malfunction, incomplete or conduct_forfeit.
    #[arg(long, default_value = "malfunction")]
    kind: String,
    /// Why, in words.
    #[arg(long)]
    reason: String,
    /// A table malfunction: every hand of this table opened in [--from, --to].
    #[arg(long, requires_all = ["from", "to"], conflicts_with = "hand")]
    table: Option<String>,
    /// Start of the range (ms since the Unix epoch).
    #[arg(long)]
    from: Option<u64>,
    /// End of the range (ms since the Unix epoch, inclusive).
    #[arg(long)]
    to: Option<u64>,
    #[command(flatten)]
    server: ServerArgs,
}

pub fn run(args: VoidArgs) -> anyhow::Result<()> {
    block_on(async {
        let mut ops = OperationsClient::new(args.server.connect().await?);
        match (&args.hand, &args.table) {
            (Some(hand), None) => {
                let r = ops
                    .void_hand(proto::VoidHandRequest {
                        hand_id: hand.clone(),
                        kind: args.kind.clone(),
                        reason: args.reason.clone(),
                        ..Default::default()
                    })
                    .await
                    .map_err(refused)?
                    .into_inner();
                if let Some(p) = &r.proposal {
                    super::proposals::print_proposed(p);
                }
                let hand = r.hand.unwrap_or_default();
                if let Some(v) = hand.void {
                    println!("voided {}: {}", hand.hand_id, v.allowed_because);
                    println!(
                        "paid before {}, paid now {} (staked {})",
                        super::client::money(v.paid_before, hand.currency.as_ref()),
                        super::client::money(v.paid_now, hand.currency.as_ref()),
                        super::client::money(v.total_staked, hand.currency.as_ref())
                    );
                }
            }
            (None, Some(table)) => {
                let r = ops
                    .record_table_malfunction(proto::RecordTableMalfunctionRequest {
                        table: table.clone(),
                        from_ms: args.from.unwrap_or_default(),
                        to_ms: args.to.unwrap_or_default(),
                        reason: args.reason.clone(),
                        ..Default::default()
                    })
                    .await
                    .map_err(refused)?
                    .into_inner();
                if let Some(p) = &r.proposal {
                    super::proposals::print_proposed(p);
                    return Ok(());
                }
                println!(
                    "voided {} hand(s); {} already voided",
                    r.voided_hand_ids.len(),
                    r.skipped_hand_ids.len()
                );
                for id in r.voided_hand_ids {
                    println!("  {id}");
                }
            }
            _ => anyhow::bail!("give a hand id, or --table with --from and --to"),
        }
        Ok(())
    })
}

#[derive(Debug, Args)]
pub struct SweepArgs {
    /// The sweep's time (ms since the Unix epoch); now if omitted.
    #[arg(long)]
    as_of: Option<u64>,
    #[command(flatten)]
    server: ServerArgs,
}

pub fn run_sweep(args: SweepArgs) -> anyhow::Result<()> {
    block_on(async {
        let mut ops = OperationsClient::new(args.server.connect().await?);
        let r = ops
            .run_sweep(proto::RunSweepRequest {
                as_of_ms: args.as_of.unwrap_or_else(pitboss::floor::system_clock),
                ..Default::default()
            })
            .await
            .map_err(refused)?
            .into_inner();
        println!(
            "incomplete hands: {} voided with refunds, {} completed and settled, {} skipped",
            r.voided_hand_ids.len(),
            r.completed_hand_ids.len(),
            r.skipped_hand_ids.len()
        );
        for (what, ids) in [
            ("voided", &r.voided_hand_ids),
            ("completed", &r.completed_hand_ids),
            (
                "skipped (an event after the sweep's time)",
                &r.skipped_hand_ids,
            ),
        ] {
            for id in ids {
                println!("  {what} {id}");
            }
        }
        Ok(())
    })
}
