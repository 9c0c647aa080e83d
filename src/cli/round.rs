//! `pitboss round …`: a table's round against a running server (`docs/rounds.md`) — open it, take
//! bets, close betting, relay decisions, close the decision window, hand it to another dealer,
//! void it or forfeit a place, and show it as the table or as one player sees it; list a table's,
//! a dealer's or a player's rounds (`list`). Each subcommand is one call; each prints the round as the server answers it
//! (`--json` for the protobuf view as JSON).

use clap::{Args, Subcommand};

use super::client::{block_on, money, refused, ServerArgs};
use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;
use pitboss::proto::operations_client::OperationsClient;
use pitboss::proto::play_client::PlayClient;
use pitboss::proto::round_command_request::Command;
use pitboss_engine::game::GameId;

#[derive(Debug, Args)]
pub struct RoundArgs {
    #[command(subcommand)]
    what: What,
}

/// What every subcommand takes: the server, and the output's form.
#[derive(Debug, Args)]
struct On {
    /// Print the round's view as JSON (the protobuf message's fields).
    #[arg(long)]
    json: bool,
    /// The request's id (printable ASCII, at most 128 characters): the same command again with
    /// the same id is answered with the first result and writes nothing (ignored by `show`).
    #[arg(long, default_value = "")]
    request_id: String,
    #[command(flatten)]
    server: ServerArgs,
}

#[derive(Debug, Subcommand)]
enum What {
    /// Open a round: its seed drawn and committed, betting open. Prints its id.
    Open {
        /// mississippi_stud, fortune_pai_gow, nutz or caribbean_stud.
        game: GameId,
        #[arg(long)]
        table: String,
        #[arg(long)]
        dealer: String,
        /// The shoe's or shuffler's reference.
        #[arg(long, default_value = "")]
        shoe: String,
        /// seats, shared_hand or one_shake.
        #[arg(long)]
        shape: String,
        /// For seats: how many.
        #[arg(long, default_value_t = 0)]
        seats: u32,
        #[arg(long, default_value_t = 7)]
        max_players: u32,
        /// The decision window after the deal, in milliseconds.
        #[arg(long, default_value_t = 60_000)]
        window_ms: u64,
        /// A published configuration's id (default: the game's).
        #[arg(long, default_value = "")]
        config_id: String,
        #[command(flatten)]
        on: On,
    },
    /// A player's bet: `--wager ante=500` (minor units), once per bet.
    Bet {
        round: String,
        #[arg(long)]
        player: String,
        #[arg(long, default_value_t = 0)]
        seat: u32,
        #[arg(long = "wager", value_parser = wager, required = true)]
        wagers: Vec<proto::Wager>,
        /// The player's seed, mixed into the deal seed where the round's configuration takes
        /// players' seeds (its UTF-8 bytes, 1 to 64; only its SHA-256 is recorded).
        #[arg(long, default_value = "")]
        player_seed: String,
        #[command(flatten)]
        on: On,
    },
    /// Close betting and deal; in Nutz, offer the cup to `--shaker`.
    Close {
        round: String,
        #[arg(long, default_value = "")]
        shaker: String,
        #[command(flatten)]
        on: On,
    },
    /// A player's decision: raise, fold, bet=3, max_bet_all, auto_set, set_hand=As,Kd, shake,
    /// shake=dealer.
    Decide {
        round: String,
        #[arg(long)]
        player: String,
        #[arg(long, default_value_t = 0)]
        seat: u32,
        #[arg(value_parser = action)]
        action: proto::Action,
        #[command(flatten)]
        on: On,
    },
    /// Close the decision window: every undecided place ended by its game's incomplete-game rule.
    Window {
        round: String,
        #[arg(long)]
        reason: String,
        #[command(flatten)]
        on: On,
    },
    /// Another dealer takes over the round from here (a shift's change, a break, a dealer relieved).
    Dealer {
        round: String,
        /// The dealer taking over.
        #[arg(long)]
        dealer: String,
        #[arg(long)]
        reason: String,
        #[command(flatten)]
        on: On,
    },
    /// Void the round (a malfunction, a misdeal), or forfeit one place with `--forfeit --player`.
    Void {
        round: String,
        #[arg(long)]
        reason: String,
        #[arg(long)]
        forfeit: bool,
        #[arg(long, default_value = "")]
        player: String,
        #[arg(long, default_value_t = 0)]
        seat: u32,
        #[command(flatten)]
        on: On,
    },
    /// Show the round: as the table, or as `--player` sees it; `--from` pages the table's places.
    Show {
        round: String,
        #[arg(long, default_value = "")]
        player: String,
        #[arg(long, default_value_t = 0)]
        from: u32,
        #[arg(long, default_value_t = 100)]
        page: u32,
        #[command(flatten)]
        on: On,
    },
    /// List rounds (`Audit.ListRounds`), newest first: a table's, a dealer's or a player's (one is
    /// required; the others filter), a line each with its totals; `--token` continues a listing.
    List {
        #[arg(long, default_value = "")]
        table: String,
        #[arg(long, default_value = "")]
        dealer: String,
        #[arg(long, default_value = "")]
        player: String,
        /// Only rounds of seats whose seat this (1 to 7) was occupied, with that seat's place.
        #[arg(long, default_value_t = 0)]
        seat: u32,
        /// betting, playing, ended or voided.
        #[arg(long, default_value = "")]
        phase: String,
        #[arg(long, default_value_t = 10)]
        page: u32,
        /// The token a listing printed to go on.
        #[arg(long, default_value = "")]
        token: String,
        #[command(flatten)]
        on: On,
    },
    /// Replay the round from its recorded events and print its proof report: one shuffle, every
    /// event re-derived, every place's settlement line by line (`--player`: the others masked).
    /// Exits 1 when the round is not consistent.
    Replay {
        round: String,
        #[arg(long, default_value = "")]
        player: String,
        #[arg(long, default_value_t = 0)]
        from: u32,
        #[arg(long, default_value_t = 100)]
        page: u32,
        #[command(flatten)]
        on: On,
    },
}

/// A call's answer, whichever call it is.
type Answer<'a> = std::pin::Pin<
    Box<
        dyn std::future::Future<
                Output = Result<tonic::Response<proto::RoundResponse>, tonic::Status>,
            > + 'a,
    >,
>;

fn boxed<'a>(
    call: impl std::future::Future<Output = Result<tonic::Response<proto::RoundResponse>, tonic::Status>>
        + 'a,
) -> Answer<'a> {
    Box::pin(call)
}

fn wager(text: &str) -> Result<proto::Wager, String> {
    let (bet, amount) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}`: a wager is bet=amount (minor units)"))?;
    Ok(proto::Wager {
        bet: bet.to_string(),
        amount: amount
            .parse()
            .map_err(|_| format!("`{amount}`: an amount in minor units"))?,
    })
}

fn action(text: &str) -> Result<proto::Action, String> {
    let (kind, value) = text.split_once('=').unwrap_or((text, ""));
    let mut action = proto::Action {
        kind: kind.to_string(),
        ..Default::default()
    };
    match (kind, value) {
        ("bet", v) => {
            action.multiple = v.parse().map_err(|_| format!("`{text}`: bet=MULTIPLE"))?;
        }
        ("set_hand", v) => action.low = v.split(',').map(str::to_string).collect(),
        ("shake", "") => action.by = "player".into(),
        ("shake", by) => action.by = by.to_string(),
        (_, "") => {}
        _ => return Err(format!("`{text}`: an action takes no value")),
    }
    Ok(action)
}

pub fn run(args: RoundArgs) -> anyhow::Result<()> {
    let on = match &args.what {
        What::Open { on, .. }
        | What::Bet { on, .. }
        | What::Close { on, .. }
        | What::Decide { on, .. }
        | What::Window { on, .. }
        | What::Dealer { on, .. }
        | What::Void { on, .. }
        | What::Show { on, .. }
        | What::List { on, .. }
        | What::Replay { on, .. } => (on.json, on.request_id.clone(), on.server.clone()),
    };
    let (json, request_id, server) = on;
    block_on(async {
        let channel = server.connect().await?;
        let mut play = PlayClient::new(channel.clone());
        let command = |round: &str, command: Command| proto::RoundCommandRequest {
            round_id: round.to_string(),
            command: Some(command),
            request_id: request_id.clone(),
        };
        let call: Answer<'_> = match args.what {
            What::Open {
                game,
                table,
                dealer,
                shoe,
                shape,
                seats,
                max_players,
                window_ms,
                config_id,
                ..
            } => boxed(play.open_round(proto::OpenRoundRequest {
                game: pitboss::codec::game_to(game) as i32,
                config_id,
                table,
                dealer,
                shoe,
                shape,
                seats,
                max_players,
                seats_per_player: 1,
                decision_window_ms: window_ms,
                request_id: request_id.clone(),
            })),
            What::Bet {
                round,
                player,
                seat,
                wagers,
                player_seed,
                ..
            } => boxed(play.round_command(command(
                &round,
                Command::Bet(proto::RoundBetCommand {
                    player_seed: player_seed.into_bytes(),
                    player,
                    seat,
                    wagers,
                }),
            ))),
            What::Close { round, shaker, .. } => boxed(play.round_command(command(
                &round,
                Command::CloseBetting(proto::RoundCloseBettingCommand { shaker }),
            ))),
            What::Decide {
                round,
                player,
                seat,
                action,
                ..
            } => boxed(play.round_command(command(
                &round,
                Command::Decide(proto::RoundDecisionCommand {
                    player,
                    seat,
                    action: Some(action),
                }),
            ))),
            What::Window { round, reason, .. } => boxed(play.round_command(command(
                &round,
                Command::CloseWindow(proto::RoundCloseWindowCommand { reason }),
            ))),
            What::Dealer {
                round,
                dealer,
                reason,
                ..
            } => boxed(play.round_command(command(
                &round,
                Command::ChangeDealer(proto::RoundChangeDealerCommand { dealer, reason }),
            ))),
            What::Show {
                round,
                player,
                from,
                page,
                ..
            } => boxed(play.get_round(proto::GetRoundRequest {
                round_id: round,
                player,
                from_place: from,
                page_size: page,
            })),
            What::Replay {
                round,
                player,
                from,
                page,
                ..
            } => {
                let mut audit = AuditClient::new(channel);
                let proof = audit
                    .replay_round(proto::ReplayRoundRequest {
                        round_id: round,
                        player,
                        from_place: from,
                        page_size: page,
                        from_event: 0,
                    })
                    .await
                    .map_err(refused)?
                    .into_inner();
                return print_proof(&proof, json);
            }
            What::List {
                table,
                dealer,
                player,
                seat,
                phase,
                page,
                token,
                ..
            } => {
                let mut audit = AuditClient::new(channel);
                let listed = audit
                    .list_rounds(proto::ListRoundsRequest {
                        table,
                        dealer,
                        player,
                        seat,
                        phase,
                        page_size: page,
                        page_token: token,
                        ..Default::default()
                    })
                    .await
                    .map_err(refused)?
                    .into_inner();
                return print_list(&listed, json);
            }
            What::Void {
                round,
                reason,
                forfeit,
                player,
                seat,
                ..
            } => {
                let mut ops = OperationsClient::new(channel);
                let answer = ops
                    .void_round(proto::VoidRoundRequest {
                        round_id: round,
                        kind: if forfeit {
                            "conduct_forfeit"
                        } else {
                            "malfunction"
                        }
                        .into(),
                        reason,
                        player,
                        seat,
                        request_id: request_id.clone(),
                    })
                    .await
                    .map_err(refused)?
                    .into_inner();
                // A settled round's void waits for a second principal: the proposal first (on
                // the error stream with --json, which prints the round alone).
                if let Some(p) = &answer.proposal {
                    if json {
                        eprintln!("proposed {}", p.proposal_id);
                    } else {
                        super::proposals::print_proposed(p);
                    }
                }
                return print(answer.round.unwrap_or_default(), json);
            }
        };
        let answer = call.await.map_err(refused)?.into_inner();
        print(answer.round.unwrap_or_default(), json)
    })
}

/// A listing of rounds: a line each (a player's places under it), then the token to go on.
fn print_list(listed: &proto::ListRoundsResponse, json: bool) -> anyhow::Result<()> {
    if json {
        let rounds: Vec<serde_json::Value> = listed
            .rounds
            .iter()
            .map(|r| {
                serde_json::json!({
                    "round_id": r.round_id, "game": r.game, "config_id": r.config_id,
                    "table": r.table, "dealer": r.dealer, "dealers": r.dealers,
                    "shape": r.shape, "phase": r.phase,
                    "opened_at_ms": r.opened_at_ms, "ended_at_ms": r.ended_at_ms,
                    "place_count": r.place_count, "total_staked": r.total_staked,
                    "total_paid": r.total_paid,
                    "places": r.places.iter().map(|p| serde_json::json!({
                        "place": p.place, "seat": p.seat, "player": p.player,
                        "status": p.status, "staked": p.staked, "paid": p.paid,
                        "void_kind": p.void_kind, "bet_at_ms": p.bet_at_ms,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        let out = serde_json::json!({"rounds": rounds, "next_page_token": listed.next_page_token});
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    for r in &listed.rounds {
        let currency = r.currency.as_ref();
        println!(
            "{}  {}  table {}  dealer {}  {}  {} place(s)  staked {}  paid {}",
            r.round_id,
            r.phase,
            r.table,
            match r.dealers.as_slice() {
                [] | [_] => r.dealer.clone(),
                all => all.join(" → "),
            },
            r.opened_at_ms,
            r.place_count,
            money(r.total_staked, currency),
            money(r.total_paid, currency)
        );
        for p in &r.places {
            println!(
                "    place {} seat {} {}: {} staked {} paid {}",
                p.place,
                p.seat,
                p.player,
                p.status,
                money(p.staked, currency),
                money(p.paid, currency)
            );
        }
    }
    if !listed.next_page_token.is_empty() {
        println!("more: --token {}", listed.next_page_token);
    }
    Ok(())
}

/// A round's proof report: its words, then each place's; exits 1 when it is not consistent.
fn print_proof(proof: &proto::ReplayRoundResponse, json: bool) -> anyhow::Result<()> {
    if json {
        let places: Vec<serde_json::Value> = proof
            .places
            .iter()
            .map(|p| {
                serde_json::json!({
                    "place": p.place, "seat": p.seat, "player": p.player, "yours": p.yours,
                    "status": p.status, "report": p.report,
                })
            })
            .collect();
        let out = serde_json::json!({
            "round_id": proof.round_id, "phase": proof.phase, "consistent": proof.consistent,
            "one_shuffle": proof.one_shuffle, "commitment_ok": proof.commitment_ok,
            "seed_revealed": proof.seed_revealed, "place_count": proof.place_count,
            "event_count": proof.event_count, "next_place": proof.next_place,
            "report": proof.report, "places": places,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        for line in &proof.report {
            println!("{line}");
        }
        for place in &proof.places {
            for line in &place.report {
                println!("  {line}");
            }
        }
        if proof.next_place != 0 {
            println!("(more places: --from {})", proof.next_place);
        }
    }
    if proof.consistent {
        Ok(())
    } else {
        std::process::exit(1)
    }
}

fn print(view: proto::RoundView, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(&view_json(&view))?);
        return Ok(());
    }
    let currency = view.currency.as_ref();
    println!(
        "round {}  {}  {} at table {} (dealer {}{})",
        view.round_id,
        view.phase,
        view.shape,
        view.table,
        view.dealer,
        if view.shoe.is_empty() {
            String::new()
        } else {
            format!(", shoe {}", view.shoe)
        }
    );
    println!("commitment {}", view.commitment);
    if let Some(sources) = view.sources.as_ref().filter(|s| s.kind != "off") {
        let beacon = sources.beacon.as_ref().map_or(String::new(), |b| {
            let state = if !sources.beacon_signature.is_empty() {
                format!("arrived, randomness {}", sources.beacon_randomness)
            } else if !sources.beacon_late_rule.is_empty() {
                format!(
                    "late ({}): {}",
                    sources.beacon_late_rule, sources.beacon_late_why
                )
            } else {
                "awaited".to_string()
            };
            format!(", beacon round {} ({state})", b.round)
        });
        println!("deal seed sources: {}{beacon}", sources.kind);
    }
    if !view.table_cards.is_empty() {
        let cards: Vec<String> = view
            .table_cards
            .iter()
            .map(|c| format!("{}@{}", c.card, c.position))
            .collect();
        println!("table: {}", cards.join(" "));
    }
    if let Some(dice) = &view.dice {
        println!("dice: {:?} after {} shake(s)", dice.faces, dice.shakes);
    }
    for p in &view.places {
        let staked: u64 = p.stakes.iter().map(|w| w.amount).sum();
        let outcome = match (&p.settlement, &p.void) {
            (_, Some(v)) => format!("void, paid {}", money(v.paid_now, currency)),
            (Some(s), None) => format!("paid {}", money(s.total_paid, currency)),
            _ if p.waiting => "waiting for the table".into(),
            _ => p.status.clone(),
        };
        let cards = if p.cards.is_empty() {
            String::new()
        } else {
            p.cards
                .iter()
                .map(|c| if c.is_empty() { "??" } else { c.as_str() })
                .collect::<Vec<_>>()
                .join(" ")
        };
        let legal: Vec<String> = p.legal_actions.iter().map(written).collect();
        println!(
            "  place {:>5}  seat {:>1}  {:<16} staked {:>10}  {:<14}  {}{}",
            p.place,
            p.seat,
            if p.player.is_empty() {
                "(masked)"
            } else {
                &p.player
            },
            money(staked, currency),
            cards,
            outcome,
            if legal.is_empty() {
                String::new()
            } else {
                format!("  may: {}", legal.join(", "))
            }
        );
    }
    if view.next_place != 0 {
        println!(
            "… {} places; next page from {}",
            view.place_count, view.next_place
        );
    }
    if !view.seed.is_empty() {
        println!("seed {}", view.seed);
    }
    Ok(())
}

/// An action as `decide` takes it (`bet=3`, `set_hand=As,Kd`, `shake=dealer`).
fn written(a: &proto::Action) -> String {
    match a.kind.as_str() {
        "bet" => format!("bet={}", a.multiple),
        "set_hand" => format!("set_hand={}", a.low.join(",")),
        "shake" if a.by == "dealer" => "shake=dealer".into(),
        kind => kind.to_string(),
    }
}

/// The view as JSON, field by field.
fn view_json(v: &proto::RoundView) -> serde_json::Value {
    use serde_json::json;
    json!({
        "round_id": v.round_id,
        "phase": v.phase,
        "shape": v.shape,
        "table": v.table,
        "dealer": v.dealer,
        "shoe": v.shoe,
        "seats": v.seats,
        "commitment": v.commitment,
        "table_cards": v.table_cards.iter().map(|c| json!({"position": c.position, "card": c.card})).collect::<Vec<_>>(),
        "dice": v.dice.as_ref().map(|d| json!({"faces": d.faces, "held": d.held, "shakes": d.shakes})),
        "places": v.places.iter().map(|p| json!({
            "place": p.place,
            "seat": p.seat,
            "player": p.player,
            "yours": p.yours,
            "status": p.status,
            "stakes": p.stakes.iter().map(|w| json!({"bet": w.bet, "amount": w.amount})).collect::<Vec<_>>(),
            "cards": p.cards,
            "legal_actions": p.legal_actions.iter().map(written).collect::<Vec<_>>(),
            "waiting": p.waiting,
            "total_paid": p.settlement.as_ref().map(|s| s.total_paid),
            "void_paid_now": p.void.as_ref().map(|s| s.paid_now),
            "seed_digest": p.seed_digest,
        })).collect::<Vec<_>>(),
        "place_count": v.place_count,
        "next_place": v.next_place,
        "seed": v.seed,
        "sources": v.sources.as_ref().map(|s| json!({
            "kind": s.kind,
            "beacon_round": s.beacon.as_ref().map(|b| b.round),
            "beacon_round_at_ms": s.beacon.as_ref().map(|b| b.round_at_ms),
            "betting_closes_ms": s.beacon.as_ref().map(|b| b.betting_closes_ms),
            "beacon_randomness": s.beacon_randomness,
            "beacon_signature": s.beacon_signature,
            "beacon_late_rule": s.beacon_late_rule,
            "beacon_late_why": s.beacon_late_why,
        })),
    })
}
