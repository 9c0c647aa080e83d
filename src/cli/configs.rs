//! `pitboss configs`: the configurations in play on a server, each with its latest certification
//! report as the log holds it — the regulator's check that every configuration hands may open
//! under is certified. With `--uncertified`, only the others, and exit status 1 when there are
//! any, so that a scheduled job can raise it. Prints what `ListConfigs` answers; decides nothing.

use clap::Args;

use super::client::{block_on, refused, ServerArgs};
use pitboss::proto;
use pitboss::proto::operations_client::OperationsClient;
use pitboss_engine::game::GameId;

#[derive(Debug, Args)]
pub struct ConfigsArgs {
    /// Only this game's configurations (mississippi_stud, fortune_pai_gow, nutz, caribbean_stud).
    #[arg(long)]
    game: Option<GameId>,
    /// Only the configurations without a holding certification (none recorded, or the latest
    /// recorded report fails); exit status 1 when there are any.
    #[arg(long)]
    uncertified: bool,
    #[command(flatten)]
    server: ServerArgs,
}

/// One configuration, a line: its id, game, name and version, then its certification.
fn describe(c: &proto::ConfigSummary) -> String {
    let game = proto::Game::try_from(c.game)
        .map(|g| g.as_str_name().trim_start_matches("GAME_").to_lowercase())
        .unwrap_or_else(|_| c.game.to_string());
    let certification = match &c.certification {
        None => "not certified".to_string(),
        Some(s) => format!(
            "certification {} (entry {}, page sha256 {}, {} hands, {} by {}; {} report(s))",
            if s.holds { "holds" } else { "FAILS" },
            s.sequence,
            s.report_sha256,
            s.hands,
            pitboss_packet::utc(s.recorded_at_ms),
            s.recorded_by,
            s.reports
        ),
    };
    format!(
        "{}  {game} {:?} v{}  {certification}",
        c.config_id, c.name, c.version
    )
}

pub fn run(args: ConfigsArgs) -> anyhow::Result<std::process::ExitCode> {
    block_on(async {
        let mut ops = OperationsClient::new(args.server.connect().await?);
        let mut page_token = String::new();
        let mut listed = 0usize;
        loop {
            let page = ops
                .list_configs(proto::ListConfigsRequest {
                    game: args.game.map_or(0, pitboss::service::game_to_proto),
                    page_size: 100,
                    page_token: page_token.clone(),
                    uncertified_only: args.uncertified,
                })
                .await
                .map_err(refused)?
                .into_inner();
            for config in &page.configs {
                println!("{}", describe(config));
            }
            listed += page.configs.len();
            if page.next_page_token.is_empty() {
                break;
            }
            page_token = page.next_page_token;
        }
        if args.uncertified {
            println!("{listed} configuration(s) in play without a holding certification");
            if listed > 0 {
                return Ok(std::process::ExitCode::FAILURE);
            }
        }
        Ok(std::process::ExitCode::SUCCESS)
    })
}
