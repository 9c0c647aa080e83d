//! `pitboss proposals`, `pitboss approve ID` and `pitboss reject ID --reason R`: the two-person
//! rule from the command line (a second principal approves what the first proposed).

use clap::Args;

use super::client::{block_on, refused, ServerArgs};
use pitboss::proto;
use pitboss::proto::operations_client::OperationsClient;

/// Prints a proposal just made, and how to approve it.
pub fn print_proposed(p: &proto::Proposal) {
    println!(
        "proposed {} by {}: it takes effect when another principal approves it (`pitboss approve {}`) before {} ms",
        p.proposal_id, p.proposed_by, p.proposal_id, p.expires_at_ms
    );
}

fn describe(p: &proto::Proposal) -> String {
    use proto::proposed_action::Kind;
    let action = match p.action.as_ref().and_then(|a| a.kind.as_ref()) {
        Some(Kind::VoidHand(v)) => format!("void hand {} ({}): {}", v.hand_id, v.kind, v.reason),
        Some(Kind::VoidRound(v)) => {
            format!("void round {} (malfunction): {}", v.round_id, v.reason)
        }
        Some(Kind::TableMalfunction(t)) => format!(
            "malfunction of table {} from {} to {} ms: {}",
            t.table, t.from_ms, t.to_ms, t.reason
        ),
        Some(Kind::PublishConfig(c)) => format!("publish configuration {}", c.config_id),
        None => "nothing".into(),
    };
    let decided = if p.decided_by.is_empty() {
        String::new()
    } else {
        format!(" by {}", p.decided_by)
    };
    format!(
        "{}  {:<8}{}  proposed by {} at {} ms: {}",
        p.proposal_id, p.state, decided, p.proposed_by, p.proposed_at_ms, action
    )
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// pending, approved, rejected or expired (all if omitted).
    #[arg(long)]
    state: Option<String>,
    #[command(flatten)]
    server: ServerArgs,
}

pub fn run_list(args: ListArgs) -> anyhow::Result<()> {
    block_on(async {
        let mut ops = OperationsClient::new(args.server.connect().await?);
        let r = ops
            .list_proposals(proto::ListProposalsRequest {
                state: args.state.clone().unwrap_or_default(),
                ..Default::default()
            })
            .await
            .map_err(refused)?
            .into_inner();
        for p in &r.proposals {
            println!("{}", describe(p));
        }
        Ok(())
    })
}

#[derive(Debug, Args)]
pub struct DecideArgs {
    /// The proposal's id.
    proposal: String,
    #[command(flatten)]
    server: ServerArgs,
}

pub fn run_approve(args: DecideArgs) -> anyhow::Result<()> {
    block_on(async {
        let mut ops = OperationsClient::new(args.server.connect().await?);
        let r = ops
            .approve_proposal(proto::ApproveProposalRequest {
                proposal_id: args.proposal.clone(),
            })
            .await
            .map_err(refused)?
            .into_inner();
        if let Some(p) = &r.proposal {
            println!("{}", describe(p));
        }
        if let Some(v) = r.void_hand.and_then(|v| v.hand) {
            println!("voided hand {}", v.hand_id);
        }
        if let Some(v) = r.void_round.and_then(|v| v.round) {
            println!("voided round {}", v.round_id);
        }
        if let Some(t) = r.table_malfunction {
            println!(
                "voided {} hand(s) and {} round(s); {} hand(s) and {} round(s) already voided",
                t.voided_count, t.voided_round_count, t.skipped_count, t.skipped_round_count
            );
        }
        if let Some(c) = r.publish_config {
            println!("published configuration {}", c.config_id);
        }
        Ok(())
    })
}

#[derive(Debug, Args)]
pub struct RejectArgs {
    /// The proposal's id.
    proposal: String,
    /// Why, in words.
    #[arg(long)]
    reason: String,
    #[command(flatten)]
    server: ServerArgs,
}

pub fn run_reject(args: RejectArgs) -> anyhow::Result<()> {
    block_on(async {
        let mut ops = OperationsClient::new(args.server.connect().await?);
        let p = ops
            .reject_proposal(proto::RejectProposalRequest {
                proposal_id: args.proposal.clone(),
                reason: args.reason.clone(),
            })
            .await
            .map_err(refused)?
            .into_inner();
        println!("{}", describe(&p));
        Ok(())
    })
}
