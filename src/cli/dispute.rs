//! `pitboss dispute HAND --out DIR`: a hand's dispute packet from a running server — the page a
//! person reads (`hand-<id>.html`, self-contained, printable) and the offline bundle it describes
//! (`hand-<id>.bundle.json`) side by side in `DIR`. Refuses to overwrite either. `--round`: a
//! table round's (`round-<id>.html`, `round-<id>.bundle.json`), `--player`'s places named and
//! every other player's name masked on the page.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::client::{block_on, refused, ServerArgs};
use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;

#[derive(Debug, Args)]
pub struct DisputeArgs {
    /// The hand id (with `--round`, the round id).
    hand: String,
    /// The id is a table round's.
    #[arg(long)]
    round: bool,
    /// With `--round`: the player the dispute is about (the others' names masked on the page).
    #[arg(long, requires = "round", default_value = "")]
    player: String,
    /// The directory to write the page and the bundle in (created if missing).
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    server: ServerArgs,
}

pub fn run(args: DisputeArgs) -> anyhow::Result<()> {
    block_on(async {
        let mut audit = AuditClient::new(args.server.connect().await?);
        let answer = if args.round {
            audit
                .get_round_dispute_packet(proto::GetRoundDisputePacketRequest {
                    round_id: args.hand.clone(),
                    player: args.player.clone(),
                })
                .await
        } else {
            audit
                .get_dispute_packet(proto::GetDisputePacketRequest {
                    hand_id: args.hand.clone(),
                })
                .await
        };
        let packet = answer.map_err(refused)?.into_inner();
        std::fs::create_dir_all(&args.out)
            .with_context(|| format!("cannot make {}", args.out.display()))?;
        let html = args.out.join(super::plain(&packet.html_file)?);
        let bundle = args.out.join(super::plain(&packet.bundle_file)?);
        let mut files = vec![
            (bundle.clone(), &packet.bundle_json),
            (html.clone(), &packet.html),
        ];
        if !packet.deal_file.is_empty() {
            files.push((
                args.out.join(super::plain(&packet.deal_file)?),
                &packet.deal_json,
            ));
        }
        for (path, text) in &files {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
                .with_context(|| {
                    format!("cannot write {} (it may exist already)", path.display())
                })?;
            std::io::Write::write_all(&mut file, text.as_bytes())
                .and_then(|()| file.sync_all())
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        for (path, _) in &files {
            println!("{}", path.display());
        }
        // A C2SP tlog-proof for each entry, beside the bundle they are derived from.
        let bundle: pitboss::audit::bundle::Bundle = serde_json::from_str(&packet.bundle_json)
            .context("the server's bundle does not read")?;
        for path in super::bundle::write_tlog_proofs(&bundle, &args.out)? {
            println!("{}", path.display());
        }
        eprintln!(
            "{} {}: {}",
            if args.round { "round" } else { "hand" },
            args.hand,
            if packet.verified {
                "the bundle verifies; the page says how to check it again offline"
            } else {
                "THE BUNDLE DOES NOT VERIFY: the page lists the problems"
            }
        );
        Ok(())
    })
}
