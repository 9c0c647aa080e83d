//! Every request is bounded: for every RPC of every pitboss service (enumerated from the
//! descriptor set: a method without a case fails the test), oversized strings, oversized repeated
//! fields and numbers at 0, 2^32 − 1 and 2^64 − 1 are refused with the right code and a field
//! violation naming the field and saying the limit, or served — never a panic, never INTERNAL —
//! and nothing is written. Refused calls do not grow the server's memory; messages beyond the
//! transport's limits are refused too; every limit is in `docs/limits.md`.

use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;

use pitboss::proto;
use tonic::{Code, Status};

use crate::support::{bet, opening, resident_kib, violation, Checked, Clients};
use pitboss_testkit::rpcs;
use pitboss_testkit::server::Server;

/// What a case expects.
enum Expect {
    /// Refused with this code, naming this field, the description containing `says`.
    Refused {
        code: Code,
        field: String,
        says: &'static str,
    },
    /// Answered with this code but no field (a state of the hand, not a bound: ABORTED...).
    Code(Code),
    /// Served.
    Served,
}

type Call = Pin<Box<dyn Future<Output = Result<(), Status>> + Send>>;

/// One hostile request to one method.
struct Case {
    method: &'static str,
    expect: Expect,
    call: Call,
}

fn call<T: Send + 'static>(
    future: impl Future<Output = Result<T, Status>> + Send + 'static,
) -> Call {
    Box::pin(async move { future.await.map(|_| ()) })
}

/// A call of `client.method(request)` on a clone of the client.
macro_rules! rpc {
    ($clients:expr, $service:ident . $method:ident ( $request:expr )) => {{
        let mut client = $clients.$service.clone();
        let request = $request;
        call(async move { client.$method(request).await })
    }};
}

fn refused(
    method: &'static str,
    code: Code,
    field: impl Into<String>,
    says: &'static str,
    call: Call,
) -> Case {
    Case {
        method,
        expect: Expect::Refused {
            code,
            field: field.into(),
            says,
        },
        call,
    }
}

fn served(method: &'static str, call: Call) -> Case {
    Case {
        method,
        expect: Expect::Served,
        call,
    }
}

const EXTREMES: [u64; 3] = [0, u32::MAX as u64, u64::MAX];
const INVALID: Code = Code::InvalidArgument;
const OUT: Code = Code::OutOfRange;

fn long(n: usize) -> String {
    "x".repeat(n)
}

fn wager(bet: &str, amount: u64) -> proto::Wager {
    proto::Wager {
        bet: bet.into(),
        amount,
    }
}

fn act(hand_id: &str, action: proto::Action) -> proto::ActRequest {
    proto::ActRequest {
        hand_id: hand_id.into(),
        action: Some(action),
        ..Default::default()
    }
}

fn void(hand_id: &str) -> proto::VoidHandRequest {
    proto::VoidHandRequest {
        hand_id: hand_id.into(),
        kind: "malfunction".into(),
        reason: "r".into(),
        recorded_by: String::new(),
        ..Default::default()
    }
}

fn malfunction(table: &str) -> proto::RecordTableMalfunctionRequest {
    proto::RecordTableMalfunctionRequest {
        table: table.into(),
        from_ms: 0,
        to_ms: u64::MAX,
        reason: "r".into(),
        recorded_by: String::new(),
        ..Default::default()
    }
}

/// Opening a Caribbean Stud round of `seats` seats at table `T-bounds`.
fn round_opening(seats: u32) -> proto::OpenRoundRequest {
    proto::OpenRoundRequest {
        game: proto::Game::CaribbeanStud as i32,
        table: "T-bounds".into(),
        dealer: "dealer-1".into(),
        shape: "seats".into(),
        seats,
        max_players: seats,
        decision_window_ms: 60_000,
        ..Default::default()
    }
}

fn round_bet(
    round: &str,
    player: &str,
    seat: u32,
    wagers: Vec<proto::Wager>,
) -> proto::RoundCommandRequest {
    proto::RoundCommandRequest {
        request_id: String::new(),
        round_id: round.into(),
        command: Some(proto::round_command_request::Command::Bet(
            proto::RoundBetCommand {
                player_seed: Vec::new(),
                player: player.into(),
                seat,
                wagers,
            },
        )),
    }
}

fn round_decide(
    round: &str,
    player: &str,
    seat: u32,
    action: Option<proto::Action>,
) -> proto::RoundCommandRequest {
    proto::RoundCommandRequest {
        request_id: String::new(),
        round_id: round.into(),
        command: Some(proto::round_command_request::Command::Decide(
            proto::RoundDecisionCommand {
                player: player.into(),
                seat,
                action,
            },
        )),
    }
}

fn void_round(round: &str, kind: &str, player: &str, seat: u32) -> proto::VoidRoundRequest {
    proto::VoidRoundRequest {
        round_id: round.into(),
        kind: kind.into(),
        reason: "r".into(),
        player: player.into(),
        seat,
        request_id: String::new(),
    }
}

/// Every hostile case, by method (`Service/Method`), one a line. `live` is a hand in progress,
/// `round` a round taking bets, `size` the log's size.
#[rustfmt::skip]
fn cases(c: &Clients, live: &str, round: &str, size: u64) -> Vec<Case> {
    let mut cases = Vec::new();
    let mi = proto::Game::MississippiStud as i32;

    // ---- Play ----
    let m = "Play/OpenHand";
    cases.push(refused(m, INVALID, "request_id", "at most 128 characters", rpc!(c, play.open_hand(opening("T", &long(129))))));
    cases.push(refused(m, INVALID, "request_id", "printable ASCII", rpc!(c, play.open_hand(opening("T", "a b")))));
    cases.push(refused(m, INVALID, "table", "1 to 200 characters", rpc!(c, play.open_hand(opening(&long(10_000), "")))));
    cases.push(refused(m, INVALID, "table", "1 to 200 characters", rpc!(c, play.open_hand(opening("", "")))));
    cases.push(refused(m, INVALID, "player", "no control characters", rpc!(c, play.open_hand(proto::OpenHandRequest { player: "a\u{0}b".into(), ..opening("T", "") }))));
    cases.push(refused(m, INVALID, "config_id", "64 hexadecimal digits", rpc!(c, play.open_hand(proto::OpenHandRequest { config_id: long(5000), ..opening("T", "") }))));
    cases.push(refused(m, INVALID, "rebet_of", "32 hexadecimal digits", rpc!(c, play.open_hand(proto::OpenHandRequest { rebet_of: long(5000), ..opening("T", "") }))));
    cases.push(refused(m, INVALID, "wagers", "at most 16 entries", rpc!(c, play.open_hand(proto::OpenHandRequest { wagers: vec![wager("ante", 500); 1000], ..opening("T", "") }))));
    cases.push(refused(m, INVALID, "wagers[1].bet", "1 to 32 characters", rpc!(c, play.open_hand(proto::OpenHandRequest { wagers: vec![wager("ante", 500), wager(&long(33), 1)], ..opening("T", "") }))));
    for amount in EXTREMES {
        cases.push(refused(m, INVALID, "wagers.ante", "", rpc!(c, play.open_hand(proto::OpenHandRequest { wagers: vec![wager("ante", amount)], ..opening("T", "") }))));
    }
    for game in [0, 99, i32::MAX, i32::MIN] {
        cases.push(refused(m, INVALID, "game", "", rpc!(c, play.open_hand(proto::OpenHandRequest { game, ..opening("T", "") }))));
    }

    let m = "Play/Act";
    cases.push(refused(m, INVALID, "hand_id", "exactly 32 hexadecimal digits", rpc!(c, play.act(act(&long(60_000), bet(1))))));
    cases.push(refused(m, INVALID, "request_id", "at most 128 characters", rpc!(c, play.act(proto::ActRequest { request_id: long(1000), ..act(live, bet(1)) }))));
    cases.push(refused(m, INVALID, "action", "required", rpc!(c, play.act(proto::ActRequest { action: None, ..act(live, bet(1)) }))));
    cases.push(refused(m, INVALID, "action.kind", "1 to 32 characters", rpc!(c, play.act(act(live, proto::Action { kind: long(100), ..bet(1) })))));
    cases.push(refused(m, INVALID, "action.low", "at most 2 entries", rpc!(c, play.act(act(live, proto::Action { kind: "set_hand".into(), low: vec!["As".into(); 5000], ..Default::default() })))));
    cases.push(refused(m, INVALID, "action.low[0]", "1 to 3 characters", rpc!(c, play.act(act(live, proto::Action { kind: "set_hand".into(), low: vec![long(4)], ..Default::default() })))));
    cases.push(refused(m, INVALID, "action.by", "at most 32 characters", rpc!(c, play.act(act(live, proto::Action { kind: "shake".into(), by: long(33), ..Default::default() })))));
    for multiple in [0, u32::MAX] {
        cases.push(refused(m, INVALID, "action.bet.multiple", "allowed multiples", rpc!(c, play.act(act(live, bet(multiple))))));
    }
    for version in EXTREMES {
        cases.push(Case { method: m, expect: Expect::Code(Code::Aborted), call: rpc!(c, play.act(proto::ActRequest { expected_version: Some(version), ..act(live, bet(1)) })) });
    }

    let m = "Play/GetHand";
    cases.push(refused(m, INVALID, "hand_id", "exactly 32 hexadecimal digits", rpc!(c, play.get_hand(proto::GetHandRequest { hand_id: long(60_000) }))));
    cases.push(refused(m, INVALID, "hand_id", "exactly 32 hexadecimal digits", rpc!(c, play.get_hand(proto::GetHandRequest { hand_id: String::new() }))));
    cases.push(served(m, rpc!(c, play.get_hand(proto::GetHandRequest { hand_id: live.into() }))));

    let m = "Play/PlayHand";
    let play = |open: Option<proto::OpenHandRequest>, decisions: Vec<proto::Action>| proto::PlayHandRequest { open, decisions, follow_advice: false };
    cases.push(refused(m, INVALID, "open", "required", rpc!(c, play.play_hand(play(None, vec![])))));
    cases.push(refused(m, INVALID, "open.table", "1 to 200 characters", rpc!(c, play.play_hand(play(Some(opening(&long(201), "")), vec![])))));
    cases.push(refused(m, INVALID, "open.request_id", "at most 128 characters", rpc!(c, play.play_hand(play(Some(opening("T", &long(129))), vec![])))));
    cases.push(refused(m, INVALID, "open.wagers[0].bet", "1 to 32 characters", rpc!(c, play.play_hand(play(Some(proto::OpenHandRequest { wagers: vec![wager(&long(40), 5)], ..opening("T", "") }), vec![])))));
    cases.push(refused(m, INVALID, "decisions", "at most 256 entries", rpc!(c, play.play_hand(play(Some(opening("T", "")), vec![bet(1); 257])))));
    cases.push(refused(m, INVALID, "decisions[2].low[1]", "1 to 3 characters", rpc!(c, play.play_hand(play(Some(opening("T", "")), vec![bet(1), bet(1), proto::Action { kind: "set_hand".into(), low: vec!["As".into(), long(9)], ..Default::default() }])))));
    for multiple in [0, u32::MAX] {
        cases.push(refused(m, INVALID, "decisions[1].action.bet.multiple", "allowed multiples", rpc!(c, play.play_hand(play(Some(opening("T", "")), vec![bet(1), bet(multiple)])))));
    }
    for amount in EXTREMES {
        cases.push(refused(m, INVALID, "open.wagers.ante", "", rpc!(c, play.play_hand(play(Some(proto::OpenHandRequest { wagers: vec![wager("ante", amount)], ..opening("T", "") }), vec![])))));
    }

    let m = "Play/OpenRound";
    let cs = proto::Game::CaribbeanStud as i32;
    cases.push(refused(m, INVALID, "table", "1 to 200 characters", rpc!(c, play.open_round(proto::OpenRoundRequest { table: long(10_000), ..round_opening(3) }))));
    cases.push(refused(m, INVALID, "dealer", "1 to 200 characters", rpc!(c, play.open_round(proto::OpenRoundRequest { dealer: String::new(), ..round_opening(3) }))));
    cases.push(refused(m, INVALID, "dealer", "no control characters", rpc!(c, play.open_round(proto::OpenRoundRequest { dealer: "a\u{7}".into(), ..round_opening(3) }))));
    cases.push(refused(m, INVALID, "shoe", "at most 200 characters", rpc!(c, play.open_round(proto::OpenRoundRequest { shoe: long(201), ..round_opening(3) }))));
    cases.push(refused(m, INVALID, "shape", "1 to 32 characters", rpc!(c, play.open_round(proto::OpenRoundRequest { shape: long(33), ..round_opening(3) }))));
    cases.push(refused(m, INVALID, "shape", "one of seats, shared_hand, one_shake", rpc!(c, play.open_round(proto::OpenRoundRequest { shape: "circle".into(), ..round_opening(3) }))));
    cases.push(refused(m, INVALID, "shape", "is not dealt as one_shake", rpc!(c, play.open_round(proto::OpenRoundRequest { shape: "one_shake".into(), seats: 0, ..round_opening(3) }))));
    cases.push(refused(m, INVALID, "seats", "required for a round of seats", rpc!(c, play.open_round(proto::OpenRoundRequest { max_players: 3, ..round_opening(0) }))));
    cases.push(refused(m, INVALID, "seats", "only a round of seats has seats", rpc!(c, play.open_round(proto::OpenRoundRequest { shape: "shared_hand".into(), ..round_opening(3) }))));
    for seats in [8, u32::MAX] {
        cases.push(refused(m, INVALID, "seats", "out of range: 0 to 7", rpc!(c, play.open_round(proto::OpenRoundRequest { max_players: 7, ..round_opening(seats) }))));
    }
    cases.push(refused(m, INVALID, "seats", "deals 1 to 6 seats", rpc!(c, play.open_round(proto::OpenRoundRequest { game: proto::Game::FortunePaiGow as i32, max_players: 7, ..round_opening(7) }))));
    for max_players in [0, 25_001, u32::MAX] {
        cases.push(refused(m, INVALID, "max_players", "out of range: 1 to 25000", rpc!(c, play.open_round(proto::OpenRoundRequest { max_players, ..round_opening(3) }))));
    }
    for seats_per_player in [2, u32::MAX] {
        cases.push(refused(m, INVALID, "seats_per_player", "out of range: 0 to 1", rpc!(c, play.open_round(proto::OpenRoundRequest { seats_per_player, ..round_opening(3) }))));
    }
    for decision_window_ms in EXTREMES.into_iter().chain([999, 86_400_001]) {
        cases.push(refused(m, INVALID, "decision_window_ms", "out of range: 1000 to 86400000", rpc!(c, play.open_round(proto::OpenRoundRequest { decision_window_ms, ..round_opening(3) }))));
    }
    for game in [0, 99, i32::MAX] {
        cases.push(refused(m, INVALID, "game", "", rpc!(c, play.open_round(proto::OpenRoundRequest { game, ..round_opening(3) }))));
    }
    cases.push(refused(m, INVALID, "config_id", "64 hexadecimal digits", rpc!(c, play.open_round(proto::OpenRoundRequest { config_id: long(5000), game: cs, ..round_opening(3) }))));
    cases.push(refused(m, INVALID, "request_id", "at most 128 characters", rpc!(c, play.open_round(proto::OpenRoundRequest { request_id: long(129), ..round_opening(3) }))));
    cases.push(refused(m, INVALID, "request_id", "printable ASCII", rpc!(c, play.open_round(proto::OpenRoundRequest { request_id: "a\nb".into(), ..round_opening(3) }))));

    let m = "Play/RoundCommand";
    let ante = |amount| vec![wager("ante", amount)];
    cases.push(refused(m, INVALID, "request_id", "at most 128 characters", rpc!(c, play.round_command(proto::RoundCommandRequest { request_id: long(129), ..round_bet(round, "p", 1, ante(500)) }))));
    cases.push(refused(m, INVALID, "round_id", "exactly 32 hexadecimal digits", rpc!(c, play.round_command(round_bet(&long(60_000), "p", 1, ante(500))))));
    cases.push(refused(m, INVALID, "command", "required", rpc!(c, play.round_command(proto::RoundCommandRequest { request_id: String::new(), round_id: round.into(), command: None }))));
    cases.push(refused(m, INVALID, "bet.player", "1 to 200 characters", rpc!(c, play.round_command(round_bet(round, &long(201), 1, ante(500))))));
    cases.push(refused(m, INVALID, "bet.player", "a dealer of the round does not bet", rpc!(c, play.round_command(round_bet(round, "dealer-1", 1, ante(500))))));
    for seat in [8, u32::MAX] {
        cases.push(refused(m, INVALID, "bet.seat", "out of range: 0 to 7", rpc!(c, play.round_command(round_bet(round, "p", seat, ante(500))))));
    }
    cases.push(refused(m, INVALID, "bet.seat", "not a seat of this round", rpc!(c, play.round_command(round_bet(round, "p", 5, ante(500))))));
    cases.push(refused(m, INVALID, "bet.seat", "required in a round of seats", rpc!(c, play.round_command(round_bet(round, "p", 0, ante(500))))));
    cases.push(refused(m, INVALID, "bet.wagers", "at most 16 entries", rpc!(c, play.round_command(round_bet(round, "p", 1, vec![wager("ante", 500); 1000])))));
    cases.push(refused(m, INVALID, "bet.wagers[0].bet", "1 to 32 characters", rpc!(c, play.round_command(round_bet(round, "p", 1, vec![wager(&long(33), 500)])))));
    for amount in EXTREMES {
        cases.push(refused(m, INVALID, "bet.wagers.ante", "", rpc!(c, play.round_command(round_bet(round, "p", 1, ante(amount))))));
    }
    cases.push(refused(m, INVALID, "close_betting.shaker", "at most 200 characters", rpc!(c, play.round_command(proto::RoundCommandRequest { request_id: String::new(), round_id: round.into(), command: Some(proto::round_command_request::Command::CloseBetting(proto::RoundCloseBettingCommand { shaker: long(201) })) }))));
    cases.push(refused(m, INVALID, "close_betting.shaker", "this round has no cup", rpc!(c, play.round_command(proto::RoundCommandRequest { request_id: String::new(), round_id: round.into(), command: Some(proto::round_command_request::Command::CloseBetting(proto::RoundCloseBettingCommand { shaker: "p".into() })) }))));
    cases.push(refused(m, INVALID, "decide.player", "1 to 200 characters", rpc!(c, play.round_command(round_decide(round, "", 1, Some(proto::Action { kind: "raise".into(), ..Default::default() }))))));
    cases.push(refused(m, INVALID, "decide.action", "required", rpc!(c, play.round_command(round_decide(round, "p", 1, None)))));
    cases.push(refused(m, INVALID, "decide.action.kind", "1 to 32 characters", rpc!(c, play.round_command(round_decide(round, "p", 1, Some(proto::Action { kind: long(33), ..Default::default() }))))));
    cases.push(refused(m, INVALID, "decide.action.low", "at most 2 entries", rpc!(c, play.round_command(round_decide(round, "p", 1, Some(proto::Action { kind: "set_hand".into(), low: vec!["As".into(); 5000], ..Default::default() }))))));
    cases.push(refused(m, INVALID, "decide.seat", "out of range: 0 to 7", rpc!(c, play.round_command(round_decide(round, "p", u32::MAX, Some(proto::Action { kind: "raise".into(), ..Default::default() }))))));
    // A decision while betting is open: the round's state, not a bound.
    cases.push(Case { method: m, expect: Expect::Code(Code::FailedPrecondition), call: rpc!(c, play.round_command(round_decide(round, "p", 1, Some(proto::Action { kind: "raise".into(), ..Default::default() })))) });
    for reason in [String::new(), "  ".into(), long(501)] {
        cases.push(refused(m, INVALID, "close_window.reason", "1 to 500 characters", rpc!(c, play.round_command(proto::RoundCommandRequest { request_id: String::new(), round_id: round.into(), command: Some(proto::round_command_request::Command::CloseWindow(proto::RoundCloseWindowCommand { reason: reason.clone() })) }))));
    }
    let change_dealer = |dealer: String, reason: String| proto::RoundCommandRequest { request_id: String::new(), round_id: round.into(), command: Some(proto::round_command_request::Command::ChangeDealer(proto::RoundChangeDealerCommand { dealer, reason })) };
    for dealer in [String::new(), long(201)] {
        cases.push(refused(m, INVALID, "change_dealer.dealer", "1 to 200 characters", rpc!(c, play.round_command(change_dealer(dealer.clone(), "shift".into())))));
    }
    cases.push(refused(m, INVALID, "change_dealer.dealer", "no control characters", rpc!(c, play.round_command(change_dealer("d\n2".into(), "shift".into())))));
    for reason in [String::new(), "  ".into(), long(501)] {
        cases.push(refused(m, INVALID, "change_dealer.reason", "1 to 500 characters", rpc!(c, play.round_command(change_dealer("d2".into(), reason.clone())))));
    }

    let batch = |commands: Vec<proto::RoundBatchItem>| proto::RoundCommandRequest { request_id: String::new(), round_id: round.into(), command: Some(proto::round_command_request::Command::Batch(proto::RoundBatchCommand { commands })) };
    let item_bet = |player: &str, seat: u32| proto::RoundBatchItem { command: Some(proto::round_batch_item::Command::Bet(proto::RoundBetCommand { player: player.into(), seat, wagers: ante(500), player_seed: Vec::new() })) };
    cases.push(refused(m, INVALID, "batch.commands", "at most 1000 entries", rpc!(c, play.round_command(batch(vec![item_bet("p", 1); 1001])))));
    cases.push(refused(m, INVALID, "batch.commands", "1 to 1000 entries", rpc!(c, play.round_command(batch(vec![])))));
    cases.push(refused(m, INVALID, "batch.commands[0].command", "required", rpc!(c, play.round_command(batch(vec![proto::RoundBatchItem { command: None }])))));
    cases.push(refused(m, INVALID, "batch.commands[1].bet.player", "1 to 200 characters", rpc!(c, play.round_command(batch(vec![item_bet("p", 1), item_bet(&long(201), 2)])))));
    // The first bet is good, the second names a seat the round has not: neither is recorded.
    cases.push(refused(m, INVALID, "batch.commands[1].bet.seat", "not a seat of this round", rpc!(c, play.round_command(batch(vec![item_bet("p", 1), item_bet("q", 6)])))));
    cases.push(refused(m, INVALID, "batch.commands[1].bet.wagers.ante", "", rpc!(c, play.round_command(batch(vec![item_bet("p", 1), proto::RoundBatchItem { command: Some(proto::round_batch_item::Command::Bet(proto::RoundBetCommand { player: "q".into(), seat: 2, wagers: ante(0), player_seed: Vec::new() })) }])))));

    let m = "Play/GetRound";
    cases.push(refused(m, INVALID, "round_id", "exactly 32 hexadecimal digits", rpc!(c, play.get_round(proto::GetRoundRequest { round_id: long(60_000), ..Default::default() }))));
    cases.push(refused(m, INVALID, "player", "at most 200 characters", rpc!(c, play.get_round(proto::GetRoundRequest { round_id: round.into(), player: long(201), ..Default::default() }))));
    for page_size in [501, u32::MAX] {
        cases.push(refused(m, INVALID, "page_size", "out of range: 0 to 500", rpc!(c, play.get_round(proto::GetRoundRequest { round_id: round.into(), page_size, ..Default::default() }))));
    }
    cases.push(Case { method: m, expect: Expect::Code(Code::NotFound), call: rpc!(c, play.get_round(proto::GetRoundRequest { round_id: "ab".repeat(16), ..Default::default() })) });
    for from_place in [0, u32::MAX] {
        cases.push(served(m, rpc!(c, play.get_round(proto::GetRoundRequest { round_id: round.into(), from_place, page_size: 500, ..Default::default() }))));
    }

    // ---- Audit ----
    let m = "Audit/DeriveDeal";
    for seed in [vec![], vec![1; 31], vec![1; 33], vec![1; 60_000]] {
        cases.push(refused(m, INVALID, "seed", "exactly 32 bytes", rpc!(c, audit.derive_deal(proto::DeriveDealRequest { game: mi, seed, seats: 0 }))));
    }
    cases.push(served(m, rpc!(c, audit.derive_deal(proto::DeriveDealRequest { game: mi, seed: vec![0xff; 32], seats: 0 }))));
    for seats in [8, u32::MAX] {
        cases.push(refused(m, INVALID, "seats", "out of range: 0 to 7", rpc!(c, audit.derive_deal(proto::DeriveDealRequest { game: mi, seed: vec![0xff; 32], seats }))));
    }
    cases.push(served(m, rpc!(c, audit.derive_deal(proto::DeriveDealRequest { game: mi, seed: vec![0xff; 32], seats: 7 }))));

    let m = "Audit/ReplayHand";
    cases.push(refused(m, INVALID, "hand_id", "exactly 32 hexadecimal digits", rpc!(c, audit.replay_hand(proto::ReplayHandRequest { hand_id: long(60_000) }))));
    cases.push(served(m, rpc!(c, audit.replay_hand(proto::ReplayHandRequest { hand_id: live.into() }))));

    let m = "Audit/VerifyLog";
    for n in EXTREMES.into_iter().filter(|&n| n >= size) {
        cases.push(refused(m, OUT, "from_sequence", "beyond the log", rpc!(c, audit.verify_log(proto::VerifyLogRequest { from_sequence: n, to_sequence: None }))));
    }
    for n in [u64::from(u32::MAX), u64::MAX] {
        cases.push(refused(m, OUT, "to_sequence", "beyond the log", rpc!(c, audit.verify_log(proto::VerifyLogRequest { from_sequence: 0, to_sequence: Some(n) }))));
    }
    cases.push(refused(m, INVALID, "to_sequence", "before from_sequence", rpc!(c, audit.verify_log(proto::VerifyLogRequest { from_sequence: 2, to_sequence: Some(1) }))));
    cases.push(served(m, rpc!(c, audit.verify_log(proto::VerifyLogRequest { from_sequence: 0, to_sequence: Some(0) }))));

    let m = "Audit/GetHandEvents";
    let events = |page_size: u32, page_token: &str| proto::GetHandEventsRequest { hand_id: live.into(), page_size, page_token: page_token.into() };
    cases.push(refused(m, INVALID, "hand_id", "exactly 32 hexadecimal digits", rpc!(c, audit.get_hand_events(proto::GetHandEventsRequest { hand_id: long(50_000), ..events(0, "") }))));
    cases.push(refused(m, INVALID, "page_size", "0 to 1000", rpc!(c, audit.get_hand_events(events(u32::MAX, "")))));
    cases.push(refused(m, INVALID, "page_token", "at most 20 characters", rpc!(c, audit.get_hand_events(events(0, &"9".repeat(21))))));
    cases.push(refused(m, INVALID, "page_token", "not a token", rpc!(c, audit.get_hand_events(events(0, &"9".repeat(20))))));
    cases.push(served(m, rpc!(c, audit.get_hand_events(events(0, &u64::MAX.to_string())))));
    cases.push(served(m, rpc!(c, audit.get_hand_events(events(1000, "0")))));

    let m = "Audit/ListHands";
    let list = |player: &str| proto::ListHandsRequest { player: player.into(), ..Default::default() };
    cases.push(refused(m, INVALID, "player", "at most 200 characters", rpc!(c, audit.list_hands(list(&long(201))))));
    cases.push(refused(m, INVALID, "table", "at most 200 characters", rpc!(c, audit.list_hands(proto::ListHandsRequest { table: long(60_000), ..list("P") }))));
    cases.push(refused(m, INVALID, "status", "at most 32 characters", rpc!(c, audit.list_hands(proto::ListHandsRequest { status: long(33), ..list("P") }))));
    cases.push(refused(m, INVALID, "page_size", "0 to 100", rpc!(c, audit.list_hands(proto::ListHandsRequest { page_size: u32::MAX, ..list("P") }))));
    cases.push(refused(m, INVALID, "page_token", "hexadecimal", rpc!(c, audit.list_hands(proto::ListHandsRequest { page_token: "xyz".into(), ..list("P") }))));
    cases.push(refused(m, INVALID, "page_token", "at most", rpc!(c, audit.list_hands(proto::ListHandsRequest { page_token: "ab".repeat(5000), ..list("P") }))));
    cases.push(refused(m, INVALID, "to_ms", "at least from_ms", rpc!(c, audit.list_hands(proto::ListHandsRequest { from_ms: u64::MAX, to_ms: 1, ..list("P") }))));
    for n in EXTREMES {
        cases.push(served(m, rpc!(c, audit.list_hands(proto::ListHandsRequest { from_ms: n, to_ms: 0, ..list("P") }))));
    }

    let m = "Audit/ReplayRound";
    let replay = |round_id: &str| proto::ReplayRoundRequest { round_id: round_id.into(), ..Default::default() };
    cases.push(refused(m, INVALID, "round_id", "exactly 32 hexadecimal digits", rpc!(c, audit.replay_round(replay(&long(60_000))))));
    cases.push(refused(m, INVALID, "player", "at most 200 characters", rpc!(c, audit.replay_round(proto::ReplayRoundRequest { player: long(201), ..replay(round) }))));
    cases.push(refused(m, INVALID, "page_size", "0 to 500", rpc!(c, audit.replay_round(proto::ReplayRoundRequest { page_size: u32::MAX, ..replay(round) }))));
    cases.push(served(m, rpc!(c, audit.replay_round(proto::ReplayRoundRequest { from_place: u32::MAX, page_size: 500, from_event: u64::MAX, ..replay(round) }))));

    let m = "Audit/ListRounds";
    let rounds = |dealer: &str| proto::ListRoundsRequest { dealer: dealer.into(), ..Default::default() };
    cases.push(refused(m, INVALID, "table", "a table, a dealer or a player is required", rpc!(c, audit.list_rounds(proto::ListRoundsRequest::default()))));
    cases.push(refused(m, INVALID, "table", "at most 200 characters", rpc!(c, audit.list_rounds(proto::ListRoundsRequest { table: long(60_000), ..rounds("D") }))));
    cases.push(refused(m, INVALID, "dealer", "at most 200 characters", rpc!(c, audit.list_rounds(rounds(&long(201))))));
    cases.push(refused(m, INVALID, "dealer", "no control characters", rpc!(c, audit.list_rounds(rounds("a\u{1}b")))));
    cases.push(refused(m, INVALID, "player", "at most 200 characters", rpc!(c, audit.list_rounds(proto::ListRoundsRequest { player: long(201), ..rounds("D") }))));
    cases.push(refused(m, INVALID, "phase", "at most 32 characters", rpc!(c, audit.list_rounds(proto::ListRoundsRequest { phase: long(33), ..rounds("D") }))));
    cases.push(refused(m, INVALID, "phase", "betting, playing, ended, voided", rpc!(c, audit.list_rounds(proto::ListRoundsRequest { phase: "settled".into(), ..rounds("D") }))));
    cases.push(refused(m, INVALID, "game", "", rpc!(c, audit.list_rounds(proto::ListRoundsRequest { game: 99, ..rounds("D") }))));
    cases.push(refused(m, INVALID, "page_size", "0 to 100", rpc!(c, audit.list_rounds(proto::ListRoundsRequest { page_size: u32::MAX, ..rounds("D") }))));
    for seat in [8, u32::MAX] {
        cases.push(refused(m, INVALID, "seat", "out of range: 0 to 7", rpc!(c, audit.list_rounds(proto::ListRoundsRequest { seat, ..rounds("D") }))));
    }
    cases.push(refused(m, INVALID, "page_size", "0 to 100", rpc!(c, audit.list_rounds(proto::ListRoundsRequest { page_size: 101, ..rounds("D") }))));
    cases.push(refused(m, INVALID, "page_token", "hexadecimal", rpc!(c, audit.list_rounds(proto::ListRoundsRequest { page_token: "xyz".into(), ..rounds("D") }))));
    cases.push(refused(m, INVALID, "page_token", "at most", rpc!(c, audit.list_rounds(proto::ListRoundsRequest { page_token: "ab".repeat(5000), ..rounds("D") }))));
    cases.push(refused(m, INVALID, "page_token", "not a token of this listing", rpc!(c, audit.list_rounds(proto::ListRoundsRequest { page_token: "ab".repeat(20), ..rounds("D") }))));
    cases.push(refused(m, INVALID, "to_ms", "at least from_ms", rpc!(c, audit.list_rounds(proto::ListRoundsRequest { from_ms: u64::MAX, to_ms: 1, ..rounds("D") }))));
    for n in EXTREMES {
        cases.push(served(m, rpc!(c, audit.list_rounds(proto::ListRoundsRequest { from_ms: n, to_ms: 0, ..rounds("D") }))));
        cases.push(served(m, rpc!(c, audit.list_rounds(proto::ListRoundsRequest { table: "T".into(), from_ms: 0, to_ms: n.max(1), page_size: 100, ..Default::default() }))));
    }
    cases.push(served(m, rpc!(c, audit.list_rounds(proto::ListRoundsRequest { player: long(200), dealer: long(200), table: long(200), phase: "ended".into(), ..Default::default() }))));

    let m = "Audit/StreamEvents";
    for n in [u64::from(u32::MAX), u64::MAX] {
        cases.push(refused(m, OUT, "from_sequence", "beyond the log", rpc!(c, audit.stream_events(proto::StreamEventsRequest {
            from_sequence: n,
            ..Default::default()
        }))));
    }

    let m = "Audit/GetCheckpoint";
    for n in [u64::from(u32::MAX), u64::MAX] {
        cases.push(refused(m, OUT, "tree_size", "beyond the log", rpc!(c, audit.get_checkpoint(proto::GetCheckpointRequest { tree_size: n }))));
    }
    cases.push(served(m, rpc!(c, audit.get_checkpoint(proto::GetCheckpointRequest { tree_size: 0 }))));

    let m = "Audit/GetInclusionProof";
    for n in [u64::from(u32::MAX), u64::MAX] {
        cases.push(refused(m, OUT, "sequence", "not in a tree", rpc!(c, audit.get_inclusion_proof(proto::GetInclusionProofRequest { sequence: n, tree_size: 0 }))));
        cases.push(refused(m, OUT, "tree_size", "beyond the log", rpc!(c, audit.get_inclusion_proof(proto::GetInclusionProofRequest { sequence: 0, tree_size: n }))));
    }
    cases.push(served(m, rpc!(c, audit.get_inclusion_proof(proto::GetInclusionProofRequest { sequence: 0, tree_size: 0 }))));

    let m = "Audit/GetTlogProofs";
    let tlog = |stream: &str, position: u64| proto::GetTlogProofsRequest { stream: stream.into(), position };
    cases.push(refused(m, INVALID, "stream", "returns/statements, or certifications/", rpc!(c, audit.get_tlog_proofs(tlog("hand/x", 0)))));
    cases.push(refused(m, INVALID, "stream", "returns/statements, or certifications/", rpc!(c, audit.get_tlog_proofs(tlog(&long(10_000), 0)))));
    cases.push(refused(m, INVALID, "stream", "a configuration id", rpc!(c, audit.get_tlog_proofs(tlog("certifications/", 0)))));
    cases.push(refused(m, INVALID, "stream", "64 hexadecimal digits", rpc!(c, audit.get_tlog_proofs(tlog("certifications/zz", 0)))));
    // Any position: past the stream's end, nothing to prove.
    cases.push(served(m, rpc!(c, audit.get_tlog_proofs(tlog("returns/statements", u64::MAX)))));
    cases.push(served(m, rpc!(c, audit.get_tlog_proofs(tlog(&format!("certifications/{}", "ab".repeat(32)), 0)))));

    let m = "Audit/GetConsistencyProof";
    for n in [u64::from(u32::MAX), u64::MAX] {
        cases.push(refused(m, OUT, "first_size", "beyond the log", rpc!(c, audit.get_consistency_proof(proto::GetConsistencyProofRequest { first_size: n, second_size: 1 }))));
        cases.push(refused(m, OUT, "second_size", "beyond the log", rpc!(c, audit.get_consistency_proof(proto::GetConsistencyProofRequest { first_size: 1, second_size: n }))));
    }
    cases.push(refused(m, INVALID, "first_size", "0 to second_size", rpc!(c, audit.get_consistency_proof(proto::GetConsistencyProofRequest { first_size: 2, second_size: 1 }))));
    cases.push(served(m, rpc!(c, audit.get_consistency_proof(proto::GetConsistencyProofRequest { first_size: 0, second_size: 0 }))));

    let m = "Audit/GetHandBundle";
    cases.push(refused(m, INVALID, "hand_id", "exactly 32 hexadecimal digits", rpc!(c, audit.get_hand_bundle(proto::GetHandBundleRequest { hand_id: long(60_000) }))));
    cases.push(served(m, rpc!(c, audit.get_hand_bundle(proto::GetHandBundleRequest { hand_id: live.into() }))));

    let m = "Audit/GetDisputePacket";
    cases.push(refused(m, INVALID, "hand_id", "exactly 32 hexadecimal digits", rpc!(c, audit.get_dispute_packet(proto::GetDisputePacketRequest { hand_id: long(60_000) }))));
    cases.push(served(m, rpc!(c, audit.get_dispute_packet(proto::GetDisputePacketRequest { hand_id: live.into() }))));

    let m = "Audit/GetRoundBundle";
    cases.push(refused(m, INVALID, "round_id", "exactly 32 hexadecimal digits", rpc!(c, audit.get_round_bundle(proto::GetRoundBundleRequest { round_id: long(60_000) }))));
    cases.push(served(m, rpc!(c, audit.get_round_bundle(proto::GetRoundBundleRequest { round_id: round.into() }))));

    let m = "Audit/GetRoundDisputePacket";
    cases.push(refused(m, INVALID, "round_id", "exactly 32 hexadecimal digits", rpc!(c, audit.get_round_dispute_packet(proto::GetRoundDisputePacketRequest { round_id: long(60_000), player: String::new() }))));
    cases.push(refused(m, INVALID, "player", "at most 200 characters", rpc!(c, audit.get_round_dispute_packet(proto::GetRoundDisputePacketRequest { round_id: round.into(), player: long(201) }))));
    cases.push(served(m, rpc!(c, audit.get_round_dispute_packet(proto::GetRoundDisputePacketRequest { round_id: round.into(), player: "p".into() }))));

    let m = "Audit/ExportHands";
    cases.push(refused(m, INVALID, "table", "at most 200 characters", rpc!(c, audit.export_hands(proto::ExportHandsRequest { table: long(60_000), ..Default::default() }))));
    cases.push(refused(m, INVALID, "to_ms", "at least from_ms", rpc!(c, audit.export_hands(proto::ExportHandsRequest { from_ms: u64::MAX, to_ms: 1, ..Default::default() }))));
    cases.push(refused(m, INVALID, "game", "", rpc!(c, audit.export_hands(proto::ExportHandsRequest { game: 99, ..Default::default() }))));
    cases.push(refused(m, INVALID, "player", "at most 200 characters", rpc!(c, audit.export_hands(proto::ExportHandsRequest { player: long(60_000), ..Default::default() }))));
    cases.push(refused(m, INVALID, "dealer", "at most 200 characters", rpc!(c, audit.export_hands(proto::ExportHandsRequest { dealer: long(201), ..Default::default() }))));
    cases.push(refused(m, INVALID, "dealer", "no control characters", rpc!(c, audit.export_hands(proto::ExportHandsRequest { dealer: "d\n".into(), ..Default::default() }))));
    cases.push(refused(m, INVALID, "round_id", "empty or exactly 32 hexadecimal digits", rpc!(c, audit.export_hands(proto::ExportHandsRequest { round_id: long(60_000), ..Default::default() }))));
    cases.push(refused(m, INVALID, "round_id", "empty or exactly 32 hexadecimal digits", rpc!(c, audit.export_hands(proto::ExportHandsRequest { round_id: "g".repeat(32), ..Default::default() }))));
    cases.push(refused(m, INVALID, "seat", "out of range: 0 to 7", rpc!(c, audit.export_hands(proto::ExportHandsRequest { seat: 8, ..Default::default() }))));
    cases.push(served(m, rpc!(c, audit.export_hands(proto::ExportHandsRequest { round_id: round.into(), player: long(200), dealer: long(200), ..Default::default() }))));
    for n in EXTREMES {
        cases.push(served(m, rpc!(c, audit.export_hands(proto::ExportHandsRequest { from_ms: n, to_ms: 0, ..Default::default() }))));
    }

    // ---- Operations ----
    let m = "Operations/PublishConfig";
    cases.push(refused(m, INVALID, "config_json", "1 to 65536 bytes", rpc!(c, ops.publish_config(proto::PublishConfigRequest { config_json: format!("\"{}\"", long(65_536)), ..Default::default() }))));
    cases.push(refused(m, INVALID, "config_json", "required", rpc!(c, ops.publish_config(proto::PublishConfigRequest::default()))));
    cases.push(refused(m, INVALID, "request_id", "at most 128 characters", rpc!(c, ops.publish_config(proto::PublishConfigRequest { request_id: long(129), config_json: "{}".into() }))));

    let m = "Operations/ListConfigs";
    cases.push(refused(m, INVALID, "page_size", "0 to 100", rpc!(c, ops.list_configs(proto::ListConfigsRequest { page_size: u32::MAX, ..Default::default() }))));
    cases.push(refused(m, INVALID, "page_token", "64 hexadecimal digits", rpc!(c, ops.list_configs(proto::ListConfigsRequest { page_token: long(60_000), ..Default::default() }))));
    cases.push(refused(m, INVALID, "game", "", rpc!(c, ops.list_configs(proto::ListConfigsRequest { game: i32::MAX, ..Default::default() }))));
    cases.push(served(m, rpc!(c, ops.list_configs(proto::ListConfigsRequest { page_size: 100, page_token: "f".repeat(64), ..Default::default() }))));

    let m = "Operations/VoidHand";
    cases.push(refused(m, INVALID, "hand_id", "exactly 32 hexadecimal digits", rpc!(c, ops.void_hand(void(&long(60_000))))));
    cases.push(refused(m, INVALID, "kind", "1 to 32 characters", rpc!(c, ops.void_hand(proto::VoidHandRequest { kind: long(33), ..void(live) }))));
    cases.push(refused(m, INVALID, "reason", "1 to 500 characters", rpc!(c, ops.void_hand(proto::VoidHandRequest { reason: long(501), ..void(live) }))));
    cases.push(refused(m, INVALID, "reason", "required", rpc!(c, ops.void_hand(proto::VoidHandRequest { reason: "   ".into(), ..void(live) }))));
    cases.push(refused(m, INVALID, "recorded_by", "at most 200 characters", rpc!(c, ops.void_hand(proto::VoidHandRequest { recorded_by: long(40_000), ..void(live) }))));
    cases.push(refused(m, INVALID, "recorded_by", "the authenticated principal", rpc!(c, ops.void_hand(proto::VoidHandRequest { recorded_by: "someone-else".into(), ..void(live) }))));
    cases.push(refused(m, INVALID, "request_id", "at most 128 characters", rpc!(c, ops.void_hand(proto::VoidHandRequest { request_id: long(129), ..void(live) }))));

    let m = "Operations/VoidRound";
    cases.push(refused(m, INVALID, "round_id", "exactly 32 hexadecimal digits", rpc!(c, ops.void_round(void_round(&long(60_000), "malfunction", "", 0)))));
    cases.push(refused(m, INVALID, "kind", "1 to 32 characters", rpc!(c, ops.void_round(void_round(round, &long(33), "", 0)))));
    cases.push(refused(m, INVALID, "request_id", "at most 128 characters", rpc!(c, ops.void_round(proto::VoidRoundRequest { request_id: long(129), ..void_round(round, "malfunction", "", 0) }))));
    cases.push(refused(m, INVALID, "kind", "closing its decision window", rpc!(c, ops.void_round(void_round(round, "incomplete", "", 0)))));
    cases.push(refused(m, INVALID, "reason", "1 to 500 characters", rpc!(c, ops.void_round(proto::VoidRoundRequest { reason: long(501), ..void_round(round, "malfunction", "", 0) }))));
    cases.push(refused(m, INVALID, "player", "at most 200 characters", rpc!(c, ops.void_round(void_round(round, "conduct_forfeit", &long(201), 1)))));
    cases.push(refused(m, INVALID, "player", "required for a forfeit", rpc!(c, ops.void_round(void_round(round, "conduct_forfeit", "", 1)))));
    cases.push(refused(m, INVALID, "player", "no place is named", rpc!(c, ops.void_round(void_round(round, "malfunction", "p", 0)))));
    for seat in [8, u32::MAX] {
        cases.push(refused(m, INVALID, "seat", "out of range: 0 to 7", rpc!(c, ops.void_round(void_round(round, "conduct_forfeit", "p", seat)))));
    }
    // A forfeit while betting is open: the round's state.
    cases.push(Case { method: m, expect: Expect::Code(Code::FailedPrecondition), call: rpc!(c, ops.void_round(void_round(round, "conduct_forfeit", "p", 1))) });

    let m = "Operations/RecordTableMalfunction";
    cases.push(refused(m, INVALID, "table", "1 to 200 characters", rpc!(c, ops.record_table_malfunction(malfunction(&long(60_000))))));
    cases.push(refused(m, INVALID, "reason", "1 to 500 characters", rpc!(c, ops.record_table_malfunction(proto::RecordTableMalfunctionRequest { reason: long(501), ..malfunction("T") }))));
    cases.push(refused(m, INVALID, "recorded_by", "at most 200 characters", rpc!(c, ops.record_table_malfunction(proto::RecordTableMalfunctionRequest { recorded_by: long(201), ..malfunction("T") }))));
    cases.push(refused(m, INVALID, "request_id", "printable ASCII", rpc!(c, ops.record_table_malfunction(proto::RecordTableMalfunctionRequest { request_id: "\u{7f}".into(), ..malfunction("T") }))));
    cases.push(refused(m, INVALID, "to_ms", "ends before it starts", rpc!(c, ops.record_table_malfunction(proto::RecordTableMalfunctionRequest { from_ms: u64::MAX, to_ms: u64::from(u32::MAX), ..malfunction("T") }))));
    // Another name than the caller's: refused (a proposal would be served, and written).
    cases.push(refused(m, INVALID, "recorded_by", "the authenticated principal", rpc!(c, ops.record_table_malfunction(proto::RecordTableMalfunctionRequest { recorded_by: "someone-else".into(), ..malfunction("no hands here") }))));

    let m = "Operations/RunSweep";
    cases.push(refused(m, INVALID, "recorded_by", "at most 200 characters", rpc!(c, ops.run_sweep(proto::RunSweepRequest { recorded_by: long(201), ..Default::default() }))));
    cases.push(refused(m, INVALID, "request_id", "at most 128 characters", rpc!(c, ops.run_sweep(proto::RunSweepRequest { request_id: long(129), ..Default::default() }))));
    for as_of_ms in [u64::MAX, u64::MAX / 2] {
        cases.push(refused(m, INVALID, "as_of_ms", "later than now", rpc!(c, ops.run_sweep(proto::RunSweepRequest { as_of_ms, ..Default::default() }))));
    }
    // As of the epoch: nothing is 30 days old then; nothing written.
    cases.push(served(m, rpc!(c, ops.run_sweep(proto::RunSweepRequest { as_of_ms: 0, ..Default::default() }))));

    let m = "Operations/ApproveProposal";
    cases.push(refused(m, INVALID, "proposal_id", "exactly 32 hexadecimal digits", rpc!(c, ops.approve_proposal(proto::ApproveProposalRequest { proposal_id: long(60_000) }))));
    cases.push(refused(m, INVALID, "proposal_id", "required", rpc!(c, ops.approve_proposal(proto::ApproveProposalRequest::default()))));
    cases.push(Case { method: m, expect: Expect::Code(Code::NotFound), call: rpc!(c, ops.approve_proposal(proto::ApproveProposalRequest { proposal_id: "ab".repeat(16) })) });

    let m = "Operations/RejectProposal";
    cases.push(refused(m, INVALID, "proposal_id", "exactly 32 hexadecimal digits", rpc!(c, ops.reject_proposal(proto::RejectProposalRequest { proposal_id: long(33), reason: "r".into() }))));
    cases.push(refused(m, INVALID, "reason", "1 to 500 characters", rpc!(c, ops.reject_proposal(proto::RejectProposalRequest { proposal_id: "ab".repeat(16), reason: long(501) }))));
    cases.push(refused(m, INVALID, "reason", "required", rpc!(c, ops.reject_proposal(proto::RejectProposalRequest { proposal_id: "ab".repeat(16), reason: " ".into() }))));

    let m = "Audit/GetReturns";
    cases.push(refused(m, INVALID, "game", "at most 32 characters", rpc!(c, audit.get_returns(proto::GetReturnsRequest { game: long(60_000), ..Default::default() }))));
    cases.push(refused(m, INVALID, "game", "unknown game", rpc!(c, audit.get_returns(proto::GetReturnsRequest { game: "roulette".into(), ..Default::default() }))));
    cases.push(refused(m, INVALID, "table", "at most 200 characters", rpc!(c, audit.get_returns(proto::GetReturnsRequest { table: long(201), ..Default::default() }))));
    cases.push(refused(m, INVALID, "config_id", "64 hexadecimal digits", rpc!(c, audit.get_returns(proto::GetReturnsRequest { config_id: long(64), ..Default::default() }))));
    cases.push(refused(m, INVALID, "windows", "at most 4", rpc!(c, audit.get_returns(proto::GetReturnsRequest { windows: vec![0; 5], ..Default::default() }))));
    cases.push(refused(m, INVALID, "windows[1]", "0 (the lifetime), 1, 7 or 30", rpc!(c, audit.get_returns(proto::GetReturnsRequest { windows: vec![1, 2], ..Default::default() }))));
    cases.push(refused(m, INVALID, "windows[1]", "each window at most once", rpc!(c, audit.get_returns(proto::GetReturnsRequest { windows: vec![7, 7], ..Default::default() }))));
    cases.push(refused(m, INVALID, "page_size", "0 to 1000", rpc!(c, audit.get_returns(proto::GetReturnsRequest { page_size: u32::MAX, ..Default::default() }))));
    cases.push(refused(m, INVALID, "page_token", "a token this service issued", rpc!(c, audit.get_returns(proto::GetReturnsRequest { page_token: "x1".into(), ..Default::default() }))));
    cases.push(refused(m, INVALID, "page_token", "at most 3544 characters", rpc!(c, audit.get_returns(proto::GetReturnsRequest { page_token: "0".repeat(3546), ..Default::default() }))));
    cases.push(refused(m, INVALID, "page_token", "not a token this service issued", rpc!(c, audit.get_returns(proto::GetReturnsRequest { page_token: "0".repeat(40), ..Default::default() }))));
    cases.push(refused(m, INVALID, "dealer", "at most 200 characters", rpc!(c, audit.get_returns(proto::GetReturnsRequest { dealer: long(60_000), ..Default::default() }))));
    for by in [2, -1, i32::MAX, i32::MIN] {
        cases.push(refused(m, INVALID, "by", "0 to 1", rpc!(c, audit.get_returns(proto::GetReturnsRequest { by, ..Default::default() }))));
    }
    cases.push(served(m, rpc!(c, audit.get_returns(proto::GetReturnsRequest { by: proto::ReturnsBy::Dealer as i32, dealer: long(200), ..Default::default() }))));
    cases.push(served(m, rpc!(c, audit.get_returns(proto::GetReturnsRequest { page_size: 1000, windows: vec![0, 1, 7, 30], ..Default::default() }))));

    let m = "Audit/ListSignificantEvents";
    cases.push(refused(m, INVALID, "to_ms", "0 (no end) or at least from_ms", rpc!(c, audit.list_significant_events(proto::ListSignificantEventsRequest { from_ms: 10, to_ms: 9, ..Default::default() }))));
    cases.push(refused(m, INVALID, "kinds", "at most 32", rpc!(c, audit.list_significant_events(proto::ListSignificantEventsRequest { kinds: vec!["key_rotated".into(); 33], ..Default::default() }))));
    cases.push(refused(m, INVALID, "kinds[0]", "one of config_published", rpc!(c, audit.list_significant_events(proto::ListSignificantEventsRequest { kinds: vec![long(60_000)], ..Default::default() }))));
    cases.push(refused(m, INVALID, "page_size", "0 to 1000", rpc!(c, audit.list_significant_events(proto::ListSignificantEventsRequest { page_size: 1001, ..Default::default() }))));
    cases.push(refused(m, INVALID, "page_token", "decimal digits", rpc!(c, audit.list_significant_events(proto::ListSignificantEventsRequest { page_token: "-1".into(), ..Default::default() }))));
    for (from_ms, to_ms) in [(0, 0), (u64::MAX, 0), (0, u64::MAX), (u64::MAX, u64::MAX)] {
        cases.push(served(m, rpc!(c, audit.list_significant_events(proto::ListSignificantEventsRequest { from_ms, to_ms, page_size: 1000, ..Default::default() }))));
    }
    cases.push(served(m, rpc!(c, audit.list_significant_events(proto::ListSignificantEventsRequest { page_token: "18446744073709551615".into(), ..Default::default() }))));

    let m = "Operations/RecordInvestigation";
    cases.push(refused(m, INVALID, "alert_id", "exactly 32 hexadecimal digits", rpc!(c, ops.record_investigation(proto::RecordInvestigationRequest { alert_id: long(60_000), outcome: "other".into(), reason: "r".into() }))));
    cases.push(refused(m, INVALID, "outcome", "explained, malfunction, fraud, other", rpc!(c, ops.record_investigation(proto::RecordInvestigationRequest { alert_id: "ab".repeat(16), outcome: long(60_000), reason: "r".into() }))));
    cases.push(refused(m, INVALID, "reason", "1 to 2000 characters", rpc!(c, ops.record_investigation(proto::RecordInvestigationRequest { alert_id: "ab".repeat(16), outcome: "other".into(), reason: long(2001) }))));
    cases.push(Case { method: m, expect: Expect::Code(Code::NotFound), call: rpc!(c, ops.record_investigation(proto::RecordInvestigationRequest { alert_id: "ab".repeat(16), outcome: "other".into(), reason: "r".into() })) });

    let m = "Operations/ListProposals";
    cases.push(refused(m, INVALID, "state", "at most 32 characters", rpc!(c, ops.list_proposals(proto::ListProposalsRequest { state: long(33), ..Default::default() }))));
    cases.push(refused(m, INVALID, "state", "pending", rpc!(c, ops.list_proposals(proto::ListProposalsRequest { state: "lost".into(), ..Default::default() }))));
    cases.push(refused(m, INVALID, "page_size", "0 to 100", rpc!(c, ops.list_proposals(proto::ListProposalsRequest { page_size: 101, ..Default::default() }))));
    cases.push(refused(m, INVALID, "page_token", "hexadecimal", rpc!(c, ops.list_proposals(proto::ListProposalsRequest { page_token: long(81), ..Default::default() }))));
    cases.push(served(m, rpc!(c, ops.list_proposals(proto::ListProposalsRequest { page_size: 100, page_token: "ff".repeat(40), ..Default::default() }))));

    let m = "Operations/ReloadAccess";
    // The file unchanged: served, nothing to record.
    cases.push(served(m, rpc!(c, ops.reload_access(proto::ReloadAccessRequest {}))));

    let m = "Operations/AuthenticateSoftware";
    for (len, words) in [(0, "0 bytes: 16 to 64 bytes"), (15, "15 bytes"), (65, "65 bytes"), (70_000, "70000 bytes")] {
        cases.push(refused(m, INVALID, "challenge", words, rpc!(c, ops.authenticate_software(proto::AuthenticateSoftwareRequest { challenge: vec![1; len] }))));
    }

    let m = "Operations/RotateSigningKey";
    cases.push(refused(m, INVALID, "expected_key_id", "exactly 32 hexadecimal digits", rpc!(c, ops.rotate_signing_key(proto::RotateSigningKeyRequest { expected_key_id: long(60_000) }))));
    // Not the key in use: refused before anything is written.
    cases.push(Case { method: m, expect: Expect::Code(Code::FailedPrecondition), call: rpc!(c, ops.rotate_signing_key(proto::RotateSigningKeyRequest { expected_key_id: "00".repeat(16) })) });

    // ---- Lab ----
    let m = "Lab/GetParSheets";
    let pg = proto::Game::FortunePaiGow as i32;
    let sheets = |main_bet_rounds: u64| proto::GetParSheetsRequest { game: pg, main_bet_rounds, ..Default::default() };
    for n in [u64::from(u32::MAX), u64::MAX] {
        cases.push(refused(m, INVALID, "main_bet_rounds", "0 to 1000000000", rpc!(c, lab.get_par_sheets(sheets(n)))));
    }
    cases.push(refused(m, INVALID, "seed", "empty or exactly 32 bytes", rpc!(c, lab.get_par_sheets(proto::GetParSheetsRequest { seed: vec![0; 33], ..sheets(0) }))));
    cases.push(refused(m, INVALID, "config_id", "64 hexadecimal digits", rpc!(c, lab.get_par_sheets(proto::GetParSheetsRequest { config_id: long(60_000), ..sheets(0) }))));
    cases.push(refused(m, INVALID, "main_bet_rounds", "0 for other games", rpc!(c, lab.get_par_sheets(proto::GetParSheetsRequest { game: proto::Game::Nutz as i32, main_bet_rounds: 1, ..Default::default() }))));
    cases.push(served(m, rpc!(c, lab.get_par_sheets(proto::GetParSheetsRequest { game: proto::Game::Nutz as i32, ..Default::default() }))));

    let m = "Lab/Simulate";
    let simulate = |hands: u64| proto::SimulateRequest { game: proto::Game::Nutz as i32, hands, ..Default::default() };
    for n in EXTREMES {
        cases.push(refused(m, INVALID, "hands", "1 to 100000000", rpc!(c, lab.simulate(simulate(n)))));
    }
    cases.push(refused(m, INVALID, "seed", "empty or exactly 32 bytes", rpc!(c, lab.simulate(proto::SimulateRequest { seed: vec![1; 5000], ..simulate(10) }))));
    cases.push(refused(m, INVALID, "strategy", "", rpc!(c, lab.simulate(proto::SimulateRequest { strategy: i32::MAX, ..simulate(10) }))));
    cases.push(served(m, rpc!(c, lab.simulate(simulate(1)))));

    let m = "Lab/TestRng";
    let battery = |sequences: u32, bits: u64| proto::TestRngRequest { sequences, bits, seed: Vec::new() };
    for n in [0, 10_001, u32::MAX] {
        cases.push(refused(m, INVALID, "sequences", "1 to 10000", rpc!(c, lab.test_rng(battery(n, 128)))));
    }
    for n in EXTREMES {
        cases.push(refused(m, INVALID, "bits", "128 to 8388608", rpc!(c, lab.test_rng(battery(1, n)))));
    }
    cases.push(refused(m, INVALID, "bits", "a multiple of 32", rpc!(c, lab.test_rng(battery(1, 130)))));
    cases.push(refused(m, INVALID, "bits", "at most 5000000000", rpc!(c, lab.test_rng(battery(10_000, 1 << 23)))));
    cases.push(refused(m, INVALID, "seed", "empty or exactly 32 bytes", rpc!(c, lab.test_rng(proto::TestRngRequest { seed: vec![7; 31], ..battery(1, 128) }))));
    cases.push(served(m, rpc!(c, lab.test_rng(battery(1, 128)))));

    let m = "Lab/Certify";
    let certify = |hands: u64| proto::CertifyRequest {
        game: proto::Game::Nutz as i32,
        hands,
        battery_sequences: 55,
        battery_bits: 128,
        ..Default::default()
    };
    for n in [0, 9_999, u64::MAX] {
        cases.push(refused(m, INVALID, "hands", "10000 to 10000000", rpc!(c, lab.certify(certify(n)))));
    }
    cases.push(refused(m, INVALID, "config_id", "64 hexadecimal digits", rpc!(c, lab.certify(proto::CertifyRequest { config_id: long(65), ..certify(10_000) }))));
    cases.push(refused(m, INVALID, "seed", "empty or exactly 32 bytes", rpc!(c, lab.certify(proto::CertifyRequest { seed: vec![1; 33], ..certify(10_000) }))));
    cases.push(refused(m, INVALID, "battery_sequences", "55 to 10000", rpc!(c, lab.certify(proto::CertifyRequest { battery_sequences: 54, ..certify(10_000) }))));
    cases.push(refused(m, INVALID, "battery_bits", "128 to 8388608", rpc!(c, lab.certify(proto::CertifyRequest { battery_bits: u64::MAX, ..certify(10_000) }))));
    cases.push(refused(m, INVALID, "battery_bits", "a multiple of 32", rpc!(c, lab.certify(proto::CertifyRequest { battery_bits: 130, ..certify(10_000) }))));
    cases.push(refused(m, INVALID, "battery_seed", "empty or exactly 32 bytes", rpc!(c, lab.certify(proto::CertifyRequest { battery_seed: vec![1; 3], ..certify(10_000) }))));
    cases.push(refused(m, INVALID, "transcripts", "at most 256 entries", rpc!(c, lab.certify(proto::CertifyRequest { transcripts: vec![String::new(); 257], ..certify(10_000) }))));
    cases.push(refused(m, INVALID, "transcripts[1]", "at most 61440", rpc!(c, lab.certify(proto::CertifyRequest { transcripts: vec![String::new(), long(61_441)], ..certify(10_000) }))));
    cases.push(refused(m, INVALID, "transcripts_source", "at most 200 characters", rpc!(c, lab.certify(proto::CertifyRequest { transcripts_source: long(201), ..certify(10_000) }))));
    cases.push(refused(m, INVALID, "game", "", rpc!(c, lab.certify(proto::CertifyRequest { game: 99, ..certify(10_000) }))));
    // Served, it writes its entry (tests/processes/certify.rs): no served case here, where nothing may be
    // written.

    let m = "Lab/StreamRngWords";
    for n in [0, u64::MAX] {
        cases.push(refused(m, INVALID, "words", "1 to 4294967296", rpc!(c, lab.stream_rng_words(proto::StreamRngWordsRequest { words: n, words_per_seed: 0 }))));
    }
    cases.push(refused(m, INVALID, "words_per_seed", "0 to 4294967296", rpc!(c, lab.stream_rng_words(proto::StreamRngWordsRequest { words: 1, words_per_seed: u64::MAX }))));
    cases.push(served(m, rpc!(c, lab.stream_rng_words(proto::StreamRngWordsRequest { words: 1, words_per_seed: u64::from(u32::MAX) }))));

    // The stream's messages, each checked as it comes: the first beyond a limit ends the stream
    // with its field named (the verdicts before it are sent first: tests/processes/transcripts_grpc.rs).
    let m = "Lab/CheckTranscripts";
    let one = |request: proto::CheckTranscriptsRequest| {
        let mut client = c.lab.clone();
        call(async move {
            let mut stream = client.check_transcripts(tonic::codegen::tokio_stream::iter(vec![request])).await?.into_inner();
            while stream.message().await?.is_some() {}
            Ok(tonic::Response::new(()))
        })
    };
    use proto::check_transcripts_request::Transcript;
    cases.push(refused(m, INVALID, "transcripts[0].transcript", "required", one(proto::CheckTranscriptsRequest::default())));
    cases.push(refused(m, INVALID, "transcripts[0].json", "at most 61440", one(proto::CheckTranscriptsRequest { transcript: Some(Transcript::Json(long(61_441))), ..Default::default() })));
    cases.push(refused(m, INVALID, "transcripts[0].reference", "at most 200 characters", one(proto::CheckTranscriptsRequest { transcript: Some(Transcript::Json("{}".into())), reference: long(201) })));
    let typed = |t: proto::TranscriptMessage| proto::CheckTranscriptsRequest { transcript: Some(Transcript::Typed(t)), ..Default::default() };
    cases.push(refused(m, INVALID, "transcripts[0].typed.decisions", "at most 256", one(typed(proto::TranscriptMessage { decisions: vec!["shake".into(); 257], ..Default::default() }))));
    cases.push(refused(m, INVALID, "transcripts[0].typed.dice", "at most 256", one(typed(proto::TranscriptMessage { dice: vec![proto::DiceRoll::default(); 257], ..Default::default() }))));
    cases.push(refused(m, INVALID, "transcripts[0].typed.dice[0]", "at most 5", one(typed(proto::TranscriptMessage { dice: vec![proto::DiceRoll { faces: vec![1; 6] }], ..Default::default() }))));
    cases.push(refused(m, INVALID, "transcripts[0].typed.cards", "at most 4", one(typed(proto::TranscriptMessage { cards: (0..5).map(|i| (format!("s{i}"), proto::CardList::default())).collect(), ..Default::default() }))));
    cases.push(refused(m, INVALID, "transcripts[0].typed.wagers", "at most 16", one(typed(proto::TranscriptMessage { wagers: (0..17).map(|i| (format!("b{i}"), 1)).collect(), ..Default::default() }))));
    cases.push(refused(m, INVALID, "transcripts[0].typed.config_json", "at most 61440", one(typed(proto::TranscriptMessage { config_json: long(61_441), ..Default::default() }))));
    // Within every limit but not a game's transcript: a verdict (refused, with the reason), served.
    cases.push(served(m, one(typed(proto::TranscriptMessage { decisions: vec!["shake".into(); 256], dice: vec![proto::DiceRoll { faces: vec![1; 5] }; 256], ..Default::default() }))));

    // A client's bits for the battery: the header checked first, the stream's bytes after.
    let m = "Lab/TestRngStream";
    let bits_of = |messages: Vec<proto::TestRngStreamRequest>| {
        let mut client = c.lab.clone();
        call(async move {
            client.test_rng_stream(tonic::codegen::tokio_stream::iter(messages)).await?;
            Ok(tonic::Response::new(()))
        })
    };
    use proto::test_rng_stream_request::Part;
    let head = |sequences: u32, bits: u64, format: i32, source: String| proto::TestRngStreamRequest {
        part: Some(Part::Header(proto::TestRngStreamHeader { sequences, bits, format, source })),
    };
    let chunk = |bytes: Vec<u8>| proto::TestRngStreamRequest { part: Some(Part::Bits(bytes)) };
    let raw = proto::BitFormat::Raw as i32;
    cases.push(refused(m, INVALID, "header", "the first message must be the header", bits_of(vec![chunk(vec![0; 16])])));
    cases.push(refused(m, INVALID, "header", "the first message must be the header", bits_of(Vec::new())));
    cases.push(refused(m, INVALID, "header.sequences", "1 to 10000", bits_of(vec![head(0, 128, raw, String::new())])));
    cases.push(refused(m, INVALID, "header.bits", "128 to 8388608", bits_of(vec![head(1, u64::MAX, raw, String::new())])));
    cases.push(refused(m, INVALID, "header.bits", "a multiple of 32", bits_of(vec![head(1, 130, raw, String::new())])));
    cases.push(refused(m, INVALID, "header.format", "raw or ascii", bits_of(vec![head(1, 128, 0, String::new())])));
    cases.push(refused(m, INVALID, "header.source", "at most 200 characters", bits_of(vec![head(1, 128, raw, long(201))])));
    cases.push(refused(m, INVALID, "messages[1]", "only bits", bits_of(vec![head(1, 128, raw, String::new()), head(1, 128, raw, String::new())])));
    cases.push(refused(m, INVALID, "bits", "the stream ended 64 bits into a sequence of 128", bits_of(vec![head(1, 128, raw, String::new()), chunk(vec![0x5a; 8])])));
    cases.push(refused(m, INVALID, "bits", "0x32", bits_of(vec![head(1, 128, proto::BitFormat::Ascii as i32, String::new()), chunk(b"0102".to_vec())])));
    // Within every limit: judged (a run that fails is still an answer), whatever follows the bits.
    cases.push(served(m, bits_of(vec![head(1, 128, raw, "x".into()), chunk(vec![0x5a; 16]), chunk(vec![1; 64])])));

    let m = "Lab/StreamShuffles";
    for n in EXTREMES {
        cases.push(refused(m, INVALID, "shuffles", "1 to 100000000", rpc!(c, lab.stream_shuffles(proto::StreamShufflesRequest { shuffles: n, deck: 0 }))));
    }
    cases.push(refused(m, INVALID, "deck", "", rpc!(c, lab.stream_shuffles(proto::StreamShufflesRequest { shuffles: 1, deck: -1 }))));

    cases
}

/// The pitboss services and their methods (`Service/Method`), from the descriptor set the server
/// reflects.
fn methods() -> BTreeSet<String> {
    rpcs::every_rpc()
        .iter()
        .map(|full| rpcs::short_name(full).to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn every_rpc_refuses_what_is_beyond_its_limits_and_writes_nothing() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let mut c = Clients::of(&server).await;
    let live = c.open_mississippi("T-bounds", "").await.hand_id;
    let round = c
        .play
        .open_round(round_opening(3))
        .await
        .expect("a round opens")
        .into_inner()
        .round
        .expect("its view")
        .round_id;
    c.assert_serving().await;
    let before = c.head().await;

    let cases = cases(&c, &live, &round, before.0);
    let covered: BTreeSet<String> = cases.iter().map(|c| c.method.to_string()).collect();
    let all = methods();
    let missing: Vec<_> = all.difference(&covered).collect();
    assert!(
        missing.is_empty(),
        "methods without a bounds case: {missing:?}"
    );
    let unknown: Vec<_> = covered.difference(&all).collect();
    assert!(unknown.is_empty(), "cases of no method: {unknown:?}");

    let total = cases.len();
    for (i, case) in cases.into_iter().enumerate() {
        let method = case.method;
        let result = case.call.await;
        match (case.expect, result) {
            (Expect::Served, Ok(())) => {}
            (Expect::Served, Err(e)) => panic!("case {i} ({method}) refused: {e:?}"),
            (Expect::Code(code), Err(e)) => {
                assert_eq!(e.code(), code, "case {i} ({method}): {e:?}")
            }
            (Expect::Refused { code, field, says }, Err(e)) => {
                assert_eq!(e.code(), code, "case {i} ({method}): {e:?}");
                let (named, description) = violation(&e);
                assert_eq!(named, field, "case {i} ({method}): {e:?}");
                assert!(
                    description.contains(says),
                    "case {i} ({method}): `{says}` not in `{description}`"
                );
            }
            (_, Ok(())) => panic!("case {i} ({method}) was served; it should be refused"),
        }
    }
    assert!(total > 100, "{total} cases");
    assert_eq!(c.head().await, before, "nothing written by any case");
    c.assert_serving().await;
    c.assert_verifies().await;
}

/// Messages beyond a service's transport limit are refused before they are decoded; the
/// connection and the server go on.
#[tokio::test(flavor = "multi_thread")]
async fn messages_beyond_the_transport_limits_are_refused() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let mut c = Clients::of(&server).await;
    let live = c.open_mississippi("T-transport", "").await.hand_id;
    let before = c.head().await;
    let huge = long(4 * 1024 * 1024);
    let e = c.play.act(act(&huge, bet(1))).await.unwrap_err();
    assert_eq!(e.code(), Code::OutOfRange, "{e:?}");
    assert!(
        e.message().contains("the limit is: 65536 bytes"),
        "{}",
        e.message()
    );
    let e = c
        .ops
        .publish_config(proto::PublishConfigRequest {
            config_json: long(300 * 1024),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::OutOfRange, "{e:?}");
    assert!(
        e.message().contains("the limit is: 262144 bytes"),
        "{}",
        e.message()
    );
    // Metadata beyond the header list limit: refused, the server goes on.
    let mut request = tonic::Request::new(proto::GetHandRequest {
        hand_id: live.clone(),
    });
    request
        .metadata_mut()
        .insert("x-padding", long(64 * 1024).parse().unwrap());
    assert!(c.play.get_hand(request).await.is_err());
    let mut c = Clients::of(&server).await;
    c.play
        .get_hand(proto::GetHandRequest { hand_id: live })
        .await
        .expect("served after the refusals");
    assert_eq!(c.head().await, before);
    c.assert_serving().await;
    c.assert_verifies().await;
}

/// A refusal holds nothing: after many refused calls with long hand ids (near the transport limit,
/// and far beyond it) the resident memory stays within a small bound.
#[tokio::test(flavor = "multi_thread")]
async fn refused_calls_do_not_grow_the_server() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let mut c = Clients::of(&server).await;
    c.open_mississippi("T-memory", "").await;
    let before = c.head().await;
    let near = long(60 * 1024);
    let beyond = long(4 * 1024 * 1024);
    let round = |c: &Clients, n: usize| {
        let tasks: Vec<_> = (0..n)
            .map(|i| {
                let mut c = c.clone();
                let id = if i % 4 == 0 {
                    beyond.clone()
                } else {
                    near.clone()
                };
                tokio::spawn(async move {
                    let e = match i % 3 {
                        0 => c.play.act(act(&id, bet(1))).await.map(|_| ()),
                        1 => c
                            .play
                            .get_hand(proto::GetHandRequest { hand_id: id })
                            .await
                            .map(|_| ()),
                        _ => c.ops.void_hand(void(&id)).await.map(|_| ()),
                    }
                    .unwrap_err();
                    // Messages far beyond the transport's limit, many at once on one
                    // connection: the server ends such a stream while the client is still
                    // sending it, and the client's HTTP/2 may then close the connection (its
                    // guard against many reset streams); the calls on it see their send cut (a
                    // transport error) rather than a status. Either way the call is refused.
                    let cut = matches!(e.code(), Code::Unknown | Code::Cancelled)
                        && std::error::Error::source(&e)
                            .is_some_and(|source| source.is::<tonic::transport::Error>());
                    assert!(
                        cut || matches!(e.code(), Code::InvalidArgument | Code::OutOfRange),
                        "{e:?}"
                    );
                    !cut
                })
            })
            .collect();
        async move {
            let mut answered = 0;
            for task in tasks {
                answered += usize::from(task.await.unwrap());
            }
            answered
        }
    };
    // Warm up: the allocator's arenas, the connection's buffers.
    let mut answered = round(&c, 200).await;
    let warm = resident_kib(&server);
    for _ in 0..5 {
        answered += round(&c, 200).await;
    }
    // Most refusals reach the client as statuses naming the field.
    assert!(
        answered >= 600,
        "{answered} of 1200 calls answered with a status"
    );
    let after = resident_kib(&server);
    eprintln!(
        "resident: {warm} KiB after warm-up, {after} KiB after 1000 more refused calls; \
         {answered} of 1200 answered with a status"
    );
    assert!(
        after <= warm + 16 * 1024,
        "the server grew from {warm} KiB to {after} KiB over 1000 refused calls"
    );
    assert_eq!(c.head().await, before);
    c.assert_serving().await;
    c.assert_verifies().await;
}

/// Every field of every request of every pitboss service is in `docs/limits.md`, under its method.
#[test]
fn every_field_is_documented_in_docs_limits() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/limits.md"))
        .expect("docs/limits.md");
    let set = rpcs::descriptor_set();
    let messages: std::collections::HashMap<String, &prost_types::DescriptorProto> = set
        .file
        .iter()
        .filter(|f| f.package() == rpcs::PACKAGE)
        .flat_map(|f| f.message_type.iter())
        .map(|m| (format!(".pitboss.v1.{}", m.name()), m))
        .collect();
    fn paths(
        messages: &std::collections::HashMap<String, &prost_types::DescriptorProto>,
        message: &str,
        prefix: &str,
        out: &mut Vec<String>,
    ) {
        for field in &messages[message].field {
            let repeated = field.label() == prost_types::field_descriptor_proto::Label::Repeated;
            let name = format!("{prefix}{}", field.name());
            out.push(name.clone());
            // A map's entries are its own (`name`), documented with it.
            if field.r#type() == prost_types::field_descriptor_proto::Type::Message
                && messages.contains_key(field.type_name())
            {
                let nested = if repeated {
                    format!("{name}[i].")
                } else {
                    format!("{name}.")
                };
                paths(messages, field.type_name(), &nested, out);
            }
        }
    }
    let mut missing = Vec::new();
    for file in set.file.iter().filter(|f| f.package() == rpcs::PACKAGE) {
        for service in &file.service {
            for method in &service.method {
                let heading = format!("### {}\n", method.name());
                let Some(start) = doc.find(&heading) else {
                    missing.push(format!("{}/{}: no section", service.name(), method.name()));
                    continue;
                };
                let body = &doc[start + heading.len()..];
                let body = &body[..body.find("\n#").unwrap_or(body.len())];
                let mut fields = Vec::new();
                paths(&messages, method.input_type(), "", &mut fields);
                for field in fields {
                    if !body.contains(&format!("`{field}`")) {
                        missing.push(format!("{}/{}: `{field}`", service.name(), method.name()));
                    }
                }
            }
        }
    }
    assert!(missing.is_empty(), "not in docs/limits.md: {missing:#?}");
}
