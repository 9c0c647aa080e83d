//! A table's rounds over gRPC (`docs/rounds.md`): `Play.OpenRound`, `Play.RoundCommand`,
//! `Play.GetRound` and `Operations.VoidRound`. Each checks its request's limits and the caller's
//! scope (the round's table and game), translates, and delegates to the floor; the answer is the
//! round as the reader may see it (`Round::view`: a player's own cards, never a card the table has
//! not been shown). Owns no rule.

use tonic::Status;

use super::convert::{self, optional};
use super::limits::Bounded;
use super::scope;
use super::status::{invalid_argument, status};
use crate::access::Principal;
use crate::audit::round_replay::RoundProofReport;
use crate::codec;
use crate::floor::{Floor, FloorError, OpenRoundRequest, RoundAnswer, RoundCall};
use crate::proto;
use pitboss_engine::games::{Timestamp, VoidKind, VoidOrder};
use pitboss_engine::round::{
    ChangeDealer, Decide, OpenRound, Phase, PlaceBet, Round, RoundCommand, RoundError, RoundView,
    Shape,
};

/// A command of a request, made once the floor knows its time.
type MakeCommand = Box<dyn Fn(Timestamp) -> RoundCommand + Send + Sync>;

/// The places a view lists when the request asks for none.
const DEFAULT_PAGE: u32 = 100;

/// `Play.OpenRound`.
pub(super) async fn open_round(
    floor: &Floor,
    caller: &Principal,
    r: proto::OpenRoundRequest,
) -> Result<proto::RoundResponse, Status> {
    r.check()?;
    let game = convert::game("game", r.game)?;
    let config_id = match r.config_id.as_str() {
        "" => None,
        text => Some(convert::config_id("config_id", text)?),
    };
    scope::reach(caller, "table", &r.table, Some(game))?;
    let shape = match (r.shape.as_str(), r.seats) {
        ("seats", 0) => return Err(invalid_argument("seats", "required for a round of seats")),
        ("seats", seats) => Shape::Seats {
            seats: u8::try_from(seats).map_err(|_| invalid_argument("seats", "too many"))?,
        },
        ("shared_hand" | "one_shake", 1..) => {
            return Err(invalid_argument("seats", "only a round of seats has seats"))
        }
        ("shared_hand", 0) => Shape::SharedHand,
        ("one_shake", 0) => Shape::OneShake,
        _ => {
            return Err(invalid_argument(
                "shape",
                "one of seats, shared_hand, one_shake",
            ))
        }
    };
    let open = OpenRound {
        table: r.table,
        dealer: r.dealer,
        shoe: optional(&r.shoe),
        shape,
        max_players: r.max_players,
        seats_per_player: r.seats_per_player.max(1) as u8,
        decision_window_ms: r.decision_window_ms,
        at: Timestamp(0),
    };
    let answered = floor
        .open_round(
            OpenRoundRequest {
                game,
                config_id,
                open,
                actor: caller.id.clone(),
                request_id: optional(&r.request_id),
            },
            |round| view_of(round, None, 0, DEFAULT_PAGE),
        )
        .await
        .map_err(status)?;
    Ok(respond(answered))
}

/// `Play.RoundCommand`: a bet, closing betting, a decision, closing the decision window, or a
/// batch of bets and decisions.
pub(super) async fn round_command(
    floor: &Floor,
    caller: &Principal,
    r: proto::RoundCommandRequest,
) -> Result<proto::RoundResponse, Status> {
    use proto::round_batch_item::Command as Item;
    use proto::round_command_request::Command;
    r.check()?;
    reach_round(floor, caller, &r.round_id)?;
    // Each command with the place of its fields in the request, and whose view answers.
    let (made, reader): (Vec<(String, MakeCommand)>, Option<String>) = match r
        .command
        .ok_or_else(|| invalid_argument("command", "required"))?
    {
        Command::Bet(bet) => {
            let reader = Some(bet.player.clone());
            (vec![("bet".to_string(), bet_command("bet", bet)?)], reader)
        }
        Command::Decide(decide) => {
            let reader = Some(decide.player.clone());
            (
                vec![("decide".to_string(), decide_command("decide", decide)?)],
                reader,
            )
        }
        Command::CloseBetting(close) => {
            let shaker = optional(&close.shaker);
            let make: MakeCommand = Box::new(move |at| RoundCommand::CloseBetting {
                at,
                shaker: shaker.clone(),
            });
            (vec![("close_betting".to_string(), make)], None)
        }
        Command::CloseWindow(close) => {
            let (reason, by) = (close.reason, caller.id.clone());
            let make: MakeCommand = Box::new(move |at| {
                RoundCommand::CloseWindow(VoidOrder {
                    kind: VoidKind::Incomplete,
                    reason: reason.clone(),
                    recorded_by: by.clone(),
                    approved_by: None,
                    at,
                })
            });
            (vec![("close_window".to_string(), make)], None)
        }
        Command::ChangeDealer(change) => {
            let make: MakeCommand = Box::new(move |at| {
                RoundCommand::ChangeDealer(ChangeDealer {
                    dealer: change.dealer.clone(),
                    reason: change.reason.clone(),
                    at,
                })
            });
            (vec![("change_dealer".to_string(), make)], None)
        }
        Command::Batch(batch) => {
            let mut made = Vec::with_capacity(batch.commands.len());
            for (i, item) in batch.commands.into_iter().enumerate() {
                let place = format!("batch.commands[{i}]");
                made.push(match item.command {
                    Some(Item::Bet(bet)) => {
                        let place = format!("{place}.bet");
                        let make = bet_command(&place, bet)?;
                        (place, make)
                    }
                    Some(Item::Decide(decide)) => {
                        let place = format!("{place}.decide");
                        let make = decide_command(&place, decide)?;
                        (place, make)
                    }
                    None => return Err(invalid_argument(&format!("{place}.command"), "required")),
                });
            }
            (made, None)
        }
    };
    let places: Vec<String> = made.iter().map(|(place, _)| place.clone()).collect();
    let makes: Vec<MakeCommand> = made.into_iter().map(|(_, make)| make).collect();
    let answered = floor
        .round_commands(
            &r.round_id,
            |at| makes.iter().map(|make| make(at)).collect(),
            &RoundCall {
                actor: &caller.id,
                request_id: optional_ref(&r.request_id),
            },
            |round, _| view_of(round, reader.as_deref(), 0, DEFAULT_PAGE),
        )
        .await
        .map_err(|e| match e {
            crate::floor::FloorError::RoundBatch { index, source } => {
                round_refusal(source, places.get(index).map_or("command", String::as_str))
            }
            other => status(other),
        })?;
    Ok(respond(answered))
}

/// An optional text of a request: empty is none.
fn optional_ref(text: &str) -> Option<&str> {
    Some(text).filter(|t| !t.is_empty())
}

/// A refusal of one command, named under its place in the request.
fn round_refusal(source: pitboss_engine::round::RoundError, place: &str) -> Status {
    super::status::round_status_in(source, place)
}

/// A bet, made once the floor knows its time (its wagers and seat read here, named under `place`).
fn bet_command(place: &str, bet: proto::RoundBetCommand) -> Result<MakeCommand, Status> {
    let wagers = codec::wagers_from(&format!("{place}.wagers"), &bet.wagers)
        .map_err(|e| invalid_argument(&e.field, e.problem))?;
    let seat = seat_of(&format!("{place}.seat"), bet.seat)?;
    let seed_digest = match bet.player_seed.as_slice() {
        [] => None,
        bytes => {
            Some(pitboss_engine::round::player_seed(bytes).map_err(|e| round_refusal(e, place))?)
        }
    };
    let player = bet.player;
    Ok(Box::new(move |at| {
        RoundCommand::Bet(PlaceBet {
            player: player.clone(),
            seat,
            wagers: wagers.clone(),
            seed_digest,
            at,
        })
    }))
}

/// A decision, made once the floor knows its time.
fn decide_command(place: &str, decide: proto::RoundDecisionCommand) -> Result<MakeCommand, Status> {
    let field = format!("{place}.action");
    let action = decide
        .action
        .as_ref()
        .ok_or_else(|| invalid_argument(&field, "required"))?;
    let action =
        codec::action_from(&field, action).map_err(|e| invalid_argument(&e.field, e.problem))?;
    let seat = seat_of(&format!("{place}.seat"), decide.seat)?;
    let player = decide.player;
    Ok(Box::new(move |at| {
        RoundCommand::Decide(Decide {
            player: player.clone(),
            seat,
            action,
            at,
        })
    }))
}

/// A seat of a request: 0 is none.
fn seat_of(field: &str, seat: u32) -> Result<Option<u8>, Status> {
    match seat {
        0 => Ok(None),
        s => u8::try_from(s)
            .map(Some)
            .map_err(|_| invalid_argument(field, "too large")),
    }
}

/// `Play.GetRound`.
pub(super) fn get_round(
    floor: &Floor,
    caller: &Principal,
    r: proto::GetRoundRequest,
) -> Result<proto::RoundResponse, Status> {
    r.check()?;
    reach_round(floor, caller, &r.round_id)?;
    let page = page_of(r.page_size);
    let reader = optional(&r.player);
    let view = floor
        .with_round(&r.round_id, |round| {
            view_of(round, reader.as_deref(), r.from_place, page)
        })
        .map_err(status)?;
    Ok(respond(RoundAnswer {
        id: r.round_id,
        answer: view,
        duplicate: false,
    }))
}

/// `Operations.VoidRound`: a malfunction of the whole round, or one place's conduct forfeit.
/// `None` when the round's showdown has announced its settlements: its void is then a proposal,
/// for a second principal to approve (the caller proposes it; nothing is written here).
pub(super) async fn void_round(
    floor: &Floor,
    caller: &Principal,
    r: proto::VoidRoundRequest,
) -> Result<Option<proto::RoundResponse>, Status> {
    r.check()?;
    let kind = match codec::from_id::<VoidKind>("kind", &r.kind) {
        Ok(kind @ (VoidKind::Malfunction | VoidKind::ConductForfeit)) => kind,
        _ => {
            return Err(invalid_argument(
                "kind",
                "malfunction (the whole round) or conduct_forfeit (one place); a round's undecided places are ended by closing its decision window",
            ))
        }
    };
    reach_round(floor, caller, &r.round_id)?;
    let seat = seat_of("seat", r.seat)?;
    let (reason, by, player) = (r.reason, caller.id.clone(), r.player);
    let forfeit = kind == VoidKind::ConductForfeit;
    if forfeit && player.is_empty() {
        return Err(invalid_argument(
            "player",
            "required for a forfeit: whose place",
        ));
    }
    if !forfeit && (!player.is_empty() || seat.is_some()) {
        return Err(invalid_argument(
            if player.is_empty() { "seat" } else { "player" },
            "a malfunction voids the whole round: no place is named",
        ));
    }
    let settled = || {
        floor
            .with_round(&r.round_id, |round| round.phase() == Phase::Ended)
            .map_err(status)
    };
    if !forfeit && settled()? {
        return Ok(None);
    }
    let answered = floor
        .round_command(
            &r.round_id,
            move |at| {
                let order = VoidOrder {
                    kind,
                    reason: reason.clone(),
                    recorded_by: by.clone(),
                    approved_by: None,
                    at,
                };
                if forfeit {
                    RoundCommand::Forfeit {
                        player: player.clone(),
                        seat,
                        order,
                    }
                } else {
                    RoundCommand::VoidRound(order)
                }
            },
            &RoundCall {
                actor: &caller.id,
                request_id: optional_ref(&r.request_id),
            },
            |round, _| view_of(round, None, 0, DEFAULT_PAGE),
        )
        .await;
    match answered {
        Ok(answered) => Ok(Some(respond(answered))),
        // Settled meanwhile: proposed by the caller.
        Err(FloorError::Round(RoundError::SecondPerson)) if !forfeit => Ok(None),
        Err(e) => Err(status(e)),
    }
}

/// The round as the table sees it (its first places), answered with a proposal to void it.
pub(super) fn table_view(floor: &Floor, id: &str) -> Result<proto::RoundView, Status> {
    let mut view = floor
        .with_round(id, |round| view_of(round, None, 0, DEFAULT_PAGE))
        .map_err(status)?;
    view.round_id = id.to_string();
    Ok(view)
}

/// A scoped caller reaches only its tables' rounds (an unscoped one reaches every round).
pub(super) fn reach_round(floor: &Floor, caller: &Principal, id: &str) -> Result<(), Status> {
    reach_round_as(floor, caller, "round_id", id)
}

/// [`reach_round`], a refusal naming `field`.
pub(super) fn reach_round_as(
    floor: &Floor,
    caller: &Principal,
    field: &str,
    id: &str,
) -> Result<(), Status> {
    if caller.unscoped() {
        return Ok(());
    }
    let opened = floor.round_opened(id).map_err(status)?;
    scope::reach(caller, field, &opened.table, Some(opened.game))
}

/// The most events a page of `Audit.ReplayRound` lists.
const EVENTS_PAGE: u64 = 1000;

/// A round's proof report as `Audit.ReplayRound` answers it: the request's page of places and of
/// events (the round's words and mismatches whole).
pub(super) fn replay_round_to(
    report: RoundProofReport,
    r: &proto::ReplayRoundRequest,
) -> proto::ReplayRoundResponse {
    let page = page_of(r.page_size);
    let place_count = u32::try_from(report.places.len()).unwrap_or(u32::MAX);
    let event_count = report.events.len() as u64;
    let next_place = r
        .from_place
        .checked_add(page)
        .filter(|&next| next < place_count)
        .unwrap_or(0);
    let next_event = r
        .from_event
        .checked_add(EVENTS_PAGE)
        .filter(|&next| next < event_count)
        .unwrap_or(0);
    let skip = |from: u64| usize::try_from(from).unwrap_or(usize::MAX);
    proto::ReplayRoundResponse {
        round_id: report.round_id,
        game: report.game.map_or(0, convert::game_to_proto),
        config_id: report.config_id.map(|c| c.to_string()).unwrap_or_default(),
        phase: report.phase.map(phase_name).unwrap_or_default().to_string(),
        table: report.table,
        dealer: report.dealer,
        commitment_ok: report.commitment_ok,
        seed_revealed: report.seed_revealed,
        one_shuffle: report.one_shuffle,
        events: report
            .events
            .into_iter()
            .skip(skip(r.from_event))
            .take(skip(EVENTS_PAGE))
            .map(convert::event_check_to)
            .collect(),
        mismatches: report
            .mismatches
            .into_iter()
            .map(convert::mismatch_to)
            .collect(),
        places: report
            .places
            .into_iter()
            .skip(skip(u64::from(r.from_place)))
            .take(skip(u64::from(page)))
            .map(|p| proto::RoundPlaceProof {
                place: p.place,
                seat: p.seat.map_or(0, u32::from),
                player: p.player,
                yours: p.yours,
                status: codec::id_of(&p.status),
                settlement: p.settlement.as_ref().map(codec::settlement_to),
                void: p.void.as_ref().map(codec::void_to),
                report: p.report,
            })
            .collect(),
        consistent: report.consistent,
        report: report.report,
        place_count,
        event_count,
        next_place,
        next_event,
    }
}

/// A page's size as a request asks it: 0 is the default.
fn page_of(size: u32) -> u32 {
    if size == 0 {
        DEFAULT_PAGE
    } else {
        size
    }
}

/// A phase's name, as views and reports write it.
fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Pending => "pending",
        Phase::Betting => "betting",
        Phase::AwaitingBeacon => "awaiting_beacon",
        Phase::Playing => "playing",
        Phase::Ended => "ended",
        Phase::Voided => "voided",
    }
}

fn respond(answered: RoundAnswer<proto::RoundView>) -> proto::RoundResponse {
    let mut view = answered.answer;
    view.round_id = answered.id;
    proto::RoundResponse {
        round: Some(view),
        duplicate: answered.duplicate,
    }
}

/// The protobuf view of a round as `reader` may see it (its id filled by the caller).
fn view_of(round: &Round, reader: Option<&str>, from: u32, page: u32) -> proto::RoundView {
    let view: RoundView = round.view(reader, from, page);
    let opened = view.opened.as_ref();
    let sources = sources_of(round.config(), opened, &view);
    proto::RoundView {
        round_id: String::new(),
        game: convert::game_to_proto(round.game()),
        phase: phase_name(view.phase).to_string(),
        version: view.version,
        config_id: opened.map(|o| o.config_id.to_string()).unwrap_or_default(),
        table: opened.map(|o| o.table.clone()).unwrap_or_default(),
        dealer: round.dealer().to_string(),
        shoe: opened.and_then(|o| o.shoe.clone()).unwrap_or_default(),
        shape: opened
            .map(|o| o.shape.name().to_string())
            .unwrap_or_default(),
        seats: match opened.map(|o| o.shape) {
            Some(Shape::Seats { seats }) => u32::from(seats),
            _ => 0,
        },
        max_players: opened.map_or(0, |o| o.max_players),
        decision_window_ms: opened.map_or(0, |o| o.decision_window_ms),
        opened_at_ms: opened.map_or(0, |o| o.at.0),
        window_closes_at_ms: view.window_closes.map_or(0, |t| t.0),
        commitment: opened.map(|o| o.commitment.to_string()).unwrap_or_default(),
        shaker: view.shaker.clone().unwrap_or_default(),
        table_cards: view
            .table_cards
            .iter()
            .map(|(p, c)| proto::RoundTableCard {
                position: u32::from(*p),
                card: c.to_string(),
            })
            .collect(),
        dice: view.dice.map(|d| proto::DiceView {
            faces: d.faces.iter().map(|&f| u32::from(f)).collect(),
            held: d.held.iter().map(|&p| u32::from(p)).collect(),
            shakes: u32::from(d.shakes),
        }),
        places: view
            .places
            .iter()
            .map(|p| proto::RoundPlaceView {
                place: p.place,
                seat: p.seat.map_or(0, u32::from),
                player: p.player.clone().unwrap_or_default(),
                yours: p.yours,
                status: codec::id_of(&p.status),
                stakes: codec::wagers_to(&p.stakes),
                cards: p
                    .cards
                    .iter()
                    .map(|(_, c)| c.map(|c| c.to_string()).unwrap_or_default())
                    .collect(),
                legal_actions: p.legal.iter().map(codec::action_to).collect(),
                waiting: p.waiting,
                settlement: p.settlement.as_ref().map(codec::settlement_to),
                void: p.void.as_ref().map(codec::void_to),
                seed_digest: p.seed_digest.map(hex::encode).unwrap_or_default(),
            })
            .collect(),
        place_count: view.place_count,
        next_place: view.next_place.unwrap_or(0),
        seed: view.seed.map(|s| s.to_hex()).unwrap_or_default(),
        currency: Some(convert::currency_to_proto(&round.config().currency)),
        sources: Some(sources),
    }
}

/// The round's deal seed's sources as a view shows them.
fn sources_of(
    config: &pitboss_engine::config::GameConfig,
    opened: Option<&pitboss_engine::round::RoundOpened>,
    view: &RoundView,
) -> proto::RoundSeedSources {
    let named = opened
        .and_then(|o| o.beacon.as_ref())
        .map(codec::named_beacon_to);
    proto::RoundSeedSources {
        kind: config.seed_sources.name().to_string(),
        beacon: named,
        beacon_randomness: view
            .beacon
            .as_ref()
            .map(|b| hex::encode(b.value.randomness))
            .unwrap_or_default(),
        beacon_signature: view
            .beacon
            .as_ref()
            .map(|b| hex::encode(&b.signature))
            .unwrap_or_default(),
        beacon_arrived_at_ms: view.beacon.as_ref().map_or(0, |b| b.at.0),
        beacon_late_rule: view
            .beacon_late
            .as_ref()
            .map(|l| l.rule.name().to_string())
            .unwrap_or_default(),
        beacon_late_why: view
            .beacon_late
            .as_ref()
            .map(|l| l.why.clone())
            .unwrap_or_default(),
    }
}
