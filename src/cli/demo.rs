//! `pitboss demo`: plays a few hands of each game against a running server, prints them, and
//! replays each to show it consistent.

use clap::Args;

use super::client::{block_on, hand_of, money, refused, ServerArgs};
use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;
use pitboss::proto::play_client::PlayClient;

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Hands per game.
    #[arg(long, default_value_t = 2)]
    hands: u32,
    #[command(flatten)]
    server: ServerArgs,
}

fn wager(bet: &str, amount: u64) -> proto::Wager {
    proto::Wager {
        bet: bet.into(),
        amount,
    }
}

/// The opening wagers and the decision the demo takes for each game.
pub(super) fn plan(game: proto::Game) -> (Vec<proto::Wager>, proto::Action) {
    let a = |kind: &str| proto::Action {
        kind: kind.into(),
        ..Default::default()
    };
    match game {
        proto::Game::MississippiStud => (
            vec![wager("ante", 500), wager("bonus", 100)],
            proto::Action {
                kind: "bet".into(),
                multiple: 1,
                ..Default::default()
            },
        ),
        proto::Game::FortunePaiGow => (
            vec![wager("main", 1000), wager("fortune_bonus", 100)],
            a("auto_set"),
        ),
        proto::Game::Nutz => (
            vec![
                wager("box_one_pair", 100),
                wager("box_straight_or_no_hand", 100),
            ],
            proto::Action {
                kind: "shake".into(),
                by: "player".into(),
                ..Default::default()
            },
        ),
        _ => (vec![wager("ante", 1000), wager("bonus", 100)], a("raise")),
    }
}

pub fn run(args: DemoArgs) -> anyhow::Result<()> {
    block_on(async {
        let channel = args.server.connect().await?;
        let mut play = PlayClient::new(channel.clone());
        let mut audit = AuditClient::new(channel);
        for game in [
            proto::Game::MississippiStud,
            proto::Game::FortunePaiGow,
            proto::Game::Nutz,
            proto::Game::CaribbeanStud,
        ] {
            for _ in 0..args.hands {
                let (wagers, decision) = plan(game);
                let mut hand = hand_of(
                    play.open_hand(proto::OpenHandRequest {
                        game: game as i32,
                        table: "demo".into(),
                        player: "demo-player".into(),
                        wagers,
                        ..Default::default()
                    })
                    .await,
                )?;
                while hand.status == "in_progress" {
                    hand = hand_of(
                        play.act(proto::ActRequest {
                            hand_id: hand.hand_id.clone(),
                            action: Some(decision.clone()),
                            ..Default::default()
                        })
                        .await,
                    )?;
                }
                println!("{} hand {}", game.as_str_name(), hand.hand_id);
                for seat in &hand.seats {
                    println!(
                        "  {:<10} {}",
                        seat.seat,
                        seat.cards
                            .iter()
                            .map(|c| if c.is_empty() { "??" } else { c.as_str() })
                            .collect::<Vec<_>>()
                            .join(" ")
                    );
                }
                if let Some(dice) = &hand.dice {
                    println!(
                        "  dice       {:?} after {} shake(s)",
                        dice.faces, dice.shakes
                    );
                }
                if let Some(s) = &hand.settlement {
                    for l in &s.lines {
                        println!(
                            "  {:<24} stake {:>8}  {:<26} {:<5} paid {:>9}",
                            l.bet,
                            money(l.stake, hand.currency.as_ref()),
                            l.rule,
                            l.outcome,
                            money(l.payout, hand.currency.as_ref())
                        );
                    }
                    println!(
                        "  staked {}, paid {}",
                        money(s.total_staked, hand.currency.as_ref()),
                        money(s.total_paid, hand.currency.as_ref())
                    );
                }
                let report = audit
                    .replay_hand(proto::ReplayHandRequest {
                        hand_id: hand.hand_id.clone(),
                    })
                    .await
                    .map_err(refused)?
                    .into_inner();
                println!(
                    "  replay: {}\n",
                    if report.consistent {
                        "all consistent"
                    } else {
                        "INCONSISTENT"
                    }
                );
            }
        }
        Ok(())
    })
}
