//! `pitboss check FILE.json`: a hand or a whole round (`places`: several players on one shuffle or
//! one shake) played by another system, run through our engine's rules; the
//! deal and settlement as JSON on standard output, the differences from the claimed payouts listed
//! on standard error. `--jsonl`: one transcript per line, one JSON result per line. Exit status 0
//! only if every transcript was accepted and agrees; 1 if any differs; 2 if any was refused.
//! `--jsonl --server URL`: the same lines checked by a server (`Lab.CheckTranscripts`, streamed),
//! one verdict per line.

use std::io::Read;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use serde_json::json;

use pitboss_lab::round_transcript::{self, AnyChecked};

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The transcript file (`-` for standard input); see docs/transcripts.md.
    file: PathBuf,
    /// The file holds one transcript per line (JSON Lines); print one result per line.
    #[arg(long)]
    jsonl: bool,
    /// With `--jsonl`: have this server check them (`Lab.CheckTranscripts`, one stream), not this
    /// process.
    #[arg(long, requires = "jsonl")]
    server: Option<String>,
    /// The bearer token file for `--server`.
    #[arg(long, env = "PITBOSS_TOKEN_FILE", requires = "server")]
    token_file: Option<PathBuf>,
}

/// How a transcript came out.
enum Verdict {
    Agrees,
    Differs,
    Refused,
}

fn check_one(text: &str) -> (serde_json::Value, Verdict, Option<AnyChecked>) {
    match round_transcript::parse_any(text).and_then(|t| t.check()) {
        Ok(checked) => {
            let verdict = if checked.agrees() {
                Verdict::Agrees
            } else {
                Verdict::Differs
            };
            (checked.json(), verdict, Some(checked))
        }
        Err(refusal) => (
            json!({ "refused": refusal.to_string() }),
            Verdict::Refused,
            None,
        ),
    }
}

/// Whether the transcript claimed any payout (a round's: any place).
fn claimed(checked: &AnyChecked) -> bool {
    match checked {
        AnyChecked::Hand(c) => c.claimed,
        AnyChecked::Round(c) => c.places.iter().any(|p| p.claimed),
    }
}

fn describe(checked: &AnyChecked) -> Vec<String> {
    let money = |m: Option<u64>| m.map_or("nothing".to_string(), |m| m.to_string());
    checked
        .named_differences()
        .iter()
        .map(|(d, _)| {
            format!(
                "{}: claimed {}, our rules pay {}",
                d.what,
                money(d.claimed),
                money(d.ours)
            )
        })
        .collect()
}

pub fn run(args: CheckArgs) -> anyhow::Result<std::process::ExitCode> {
    let mut text = String::new();
    if args.file.as_os_str() == "-" {
        std::io::stdin().read_to_string(&mut text)?;
    } else {
        text = std::fs::read_to_string(&args.file)
            .with_context(|| format!("cannot read {}", args.file.display()))?;
    }
    let (mut differ, mut refused) = (0, 0);
    if let Some(server) = &args.server {
        let mut client = super::client::ServerArgs::at(server.clone());
        client.token_file = args.token_file.clone();
        let totals = remote(&client, &text)?;
        eprintln!(
            "{} transcripts: {} agree, {} differ, {} refused (checked by {server})",
            totals.transcripts, totals.agree, totals.differ, totals.refused
        );
        differ = totals.differ;
        refused = totals.refused;
    } else if args.jsonl {
        let mut total = 0;
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let (mut value, verdict, _) = check_one(line);
            total += 1;
            value["line"] = json!(n + 1);
            match verdict {
                Verdict::Agrees => {}
                Verdict::Differs => differ += 1,
                Verdict::Refused => refused += 1,
            }
            println!("{}", serde_json::to_string(&value)?);
        }
        eprintln!(
            "{total} transcripts: {} agree, {differ} differ, {refused} refused",
            total - differ - refused
        );
    } else {
        let (value, verdict, checked) = check_one(&text);
        println!("{}", serde_json::to_string_pretty(&value)?);
        match (verdict, checked) {
            (Verdict::Agrees, Some(c)) if claimed(&c) => {
                eprintln!("no differences: the claimed payouts are what our rules pay");
            }
            (Verdict::Agrees, _) => eprintln!("no payouts claimed: nothing to compare"),
            (Verdict::Differs, Some(c)) => {
                differ += 1;
                let lines = describe(&c);
                eprintln!("{} difference(s):", lines.len());
                for line in lines {
                    eprintln!("  {line}");
                }
            }
            (_, _) => {
                refused += 1;
                eprintln!(
                    "refused: {}",
                    value["refused"].as_str().unwrap_or("unknown reason")
                );
            }
        }
    }
    Ok(if refused > 0 {
        std::process::ExitCode::from(2)
    } else if differ > 0 {
        std::process::ExitCode::from(1)
    } else {
        std::process::ExitCode::SUCCESS
    })
}

/// The lines of `text` streamed to the server, each verdict printed as a JSON line as it comes;
/// the totals the server ends with.
fn remote(
    server: &super::client::ServerArgs,
    text: &str,
) -> anyhow::Result<pitboss::proto::TranscriptTotals> {
    use pitboss::proto;
    use proto::check_transcripts_response::Kind;
    let lines: Vec<(usize, String)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| (n + 1, l.to_string()))
        .collect();
    let numbers: Vec<usize> = lines.iter().map(|(n, _)| *n).collect();
    super::client::block_on(async {
        let mut lab = proto::lab_client::LabClient::new(server.connect().await?);
        let requests =
            tokio_stream::iter(
                lines
                    .into_iter()
                    .map(|(n, json)| proto::CheckTranscriptsRequest {
                        transcript: Some(proto::check_transcripts_request::Transcript::Json(json)),
                        reference: format!("line {n}"),
                    }),
            );
        let mut verdicts = lab
            .check_transcripts(requests)
            .await
            .map_err(super::client::refused)?
            .into_inner();
        while let Some(message) = verdicts.message().await.map_err(super::client::refused)? {
            match message.kind {
                Some(Kind::Verdict(v)) => {
                    let line = numbers.get(v.index as usize).copied().unwrap_or_default();
                    println!(
                        "{}",
                        json!({
                            "line": line,
                            "id": v.id,
                            "verdict": v.verdict,
                            "refused": (!v.refused.is_empty()).then_some(&v.refused),
                            "total_paid": v.total_paid,
                            "differences": v.differences.iter().map(|d| json!({
                                "bet": d.bet, "claimed": d.claimed, "rules_pay": d.rules_pay, "rule": d.rule,
                            })).collect::<Vec<_>>(),
                        })
                    );
                }
                Some(Kind::Totals(t)) => return Ok(t),
                None => {}
            }
        }
        anyhow::bail!("the server ended the stream without its totals")
    })
}
