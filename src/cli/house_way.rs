//! `pitboss house-way "<seven cards>"`: how the house way sets a hand, and which rule of
//! `HOUSE_WAY.md` fired: what an operator checks when a player disputes how the dealer set.
//! `-` in place of the cards reads one hand per line from standard input; `--json` prints one JSON
//! object per hand.

use std::io::BufRead;

use anyhow::bail;
use clap::Args;
use serde_json::json;

use pitboss_engine::card::{format_cards, parse_exact, Card};
use pitboss_engine::house_way::{house_way, Edition, HouseWay};

#[derive(Debug, Args)]
pub struct HouseWayArgs {
    /// Seven cards, e.g. "Kd Qh Jc Ts 9d JK 3c", or `-` to read one hand per line from stdin.
    cards: String,
    /// One JSON object per hand: {"hand", "low", "high", "rule", ...}.
    #[arg(long)]
    json: bool,
    /// The house way edition, as a configuration names it (for a hand recorded under an earlier
    /// one): bally-atlantic-city-2026.2 (current) or bally-atlantic-city-2026.1.
    #[arg(long, default_value = Edition::CURRENT.name(), value_parser = parse_edition)]
    edition: Edition,
}

fn parse_edition(name: &str) -> Result<Edition, String> {
    Edition::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = Edition::ALL.iter().map(|e| e.name()).collect();
        format!("`{name}` is not a house way edition ({})", known.join(", "))
    })
}

pub fn run(args: HouseWayArgs) -> anyhow::Result<()> {
    if args.cards != "-" {
        let (hand, hw) = set(&args.cards, args.edition)?;
        print(&hand, &hw, args.json);
        return Ok(());
    }
    let mut failures = 0;
    for (number, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        match set(&line, args.edition) {
            Ok((hand, hw)) => print(&hand, &hw, args.json),
            Err(err) => {
                failures += 1;
                if args.json {
                    println!(
                        "{}",
                        json!({ "line": number + 1, "error": err.to_string() })
                    );
                } else {
                    eprintln!("line {}: {err}", number + 1);
                }
            }
        }
    }
    if failures > 0 {
        bail!("{failures} line(s) could not be set");
    }
    Ok(())
}

fn set(text: &str, edition: Edition) -> anyhow::Result<([Card; 7], HouseWay)> {
    let hand = parse_exact::<7>(text)?;
    Ok((hand, house_way(&hand, edition)?))
}

fn print(hand: &[Card; 7], hw: &HouseWay, as_json: bool) {
    let s = &hw.setting;
    let strings = |cards: &[Card]| cards.iter().map(Card::to_string).collect::<Vec<_>>();
    if as_json {
        let rule = serde_json::to_value(hw.rule).unwrap_or_default();
        println!(
            "{}",
            json!({
                "hand": strings(hand),
                "low": strings(&s.low),
                "high": strings(&s.high),
                "rule": rule,
                "rule_text": hw.rule.describe(),
                "low_hand": if s.low_value().is_pair() { "pair" } else { "high card" },
                "high_hand": s.high_value().category().to_string(),
            })
        );
    } else {
        println!("hand  {}", format_cards(hand));
        println!("low   {}", format_cards(&s.low));
        println!(
            "high  {}  ({})",
            format_cards(&s.high),
            s.high_value().category()
        );
        println!("rule  {}", hw.rule.describe());
    }
}
