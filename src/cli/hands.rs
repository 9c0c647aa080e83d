//! `pitboss hands --player P | --table T`: game recall, newest first (the last 10 by default).

use clap::Args;

use super::client::{block_on, money, refused, ServerArgs};
use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;

#[derive(Debug, Args)]
pub struct HandsArgs {
    /// A player's hands.
    #[arg(long)]
    player: Option<String>,
    /// A table's hands.
    #[arg(long)]
    table: Option<String>,
    /// in_progress, settled or voided.
    #[arg(long)]
    status: Option<String>,
    /// How many (at most 100).
    #[arg(long, default_value_t = 10)]
    last: u32,
    #[command(flatten)]
    server: ServerArgs,
}

pub fn run(args: HandsArgs) -> anyhow::Result<()> {
    block_on(async {
        let mut audit = AuditClient::new(args.server.connect().await?);
        let list = audit
            .list_hands(proto::ListHandsRequest {
                player: args.player.clone().unwrap_or_default(),
                table: args.table.clone().unwrap_or_default(),
                status: args.status.clone().unwrap_or_default(),
                page_size: args.last,
                ..Default::default()
            })
            .await
            .map_err(refused)?
            .into_inner();
        println!(
            "{:<34} {:<18} {:<10} {:<12} {:<12} {:<27} {:>12} {:>12}",
            "hand", "game", "table", "player", "status", "opened", "staked", "paid"
        );
        for h in &list.hands {
            let game = proto::Game::try_from(h.game).map_or("?".to_string(), |g| {
                g.as_str_name().trim_start_matches("GAME_").to_lowercase()
            });
            println!(
                "{:<34} {:<18} {:<10} {:<12} {:<12} {:<27} {:>12} {:>12}",
                h.hand_id,
                game,
                h.table,
                h.player,
                h.status,
                pitboss_packet::utc(h.opened_at_ms),
                money(h.total_staked, h.currency.as_ref()),
                money(h.total_paid, h.currency.as_ref())
            );
        }
        Ok(())
    })
}
