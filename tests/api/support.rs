//! The helpers every module of the suite shares: the clients of one server (two administrators'
//! operations, so proposals can be approved), request builders, playing a hand to its end,
//! replaying it, and the log's head (verified) to show that a refused request wrote nothing.

use pitboss::proto;
use pitboss_testkit::server::Server;

pub(crate) use pitboss_testkit::clients::Clients;

/// A round's command (`Play.RoundCommand`, no request id): the view it answers, or the refusal.
pub(crate) async fn round_command(
    c: &mut Clients,
    round: &str,
    command: proto::round_command_request::Command,
) -> Result<proto::RoundView, tonic::Status> {
    c.play
        .round_command(proto::RoundCommandRequest {
            request_id: String::new(),
            round_id: round.into(),
            command: Some(command),
        })
        .await
        .map(|r| r.into_inner().round.expect("a view"))
}

/// A round's decision of `kind` by `player` on `seat` (0: none).
pub(crate) fn round_decision(
    player: &str,
    seat: u32,
    kind: &str,
) -> proto::round_command_request::Command {
    proto::round_command_request::Command::Decide(proto::RoundDecisionCommand {
        player: player.into(),
        seat,
        action: Some(proto::Action {
            kind: kind.into(),
            ..Default::default()
        }),
    })
}

/// The clients of `server`.
pub(crate) async fn clients(server: &Server) -> Clients {
    Clients::of(server).await
}

pub(crate) fn wager(bet: &str, amount: u64) -> proto::Wager {
    proto::Wager {
        bet: bet.into(),
        amount,
    }
}

pub(crate) fn action(kind: &str) -> proto::Action {
    proto::Action {
        kind: kind.into(),
        ..Default::default()
    }
}

pub(crate) fn bet(multiple: u32) -> proto::Action {
    proto::Action {
        kind: "bet".into(),
        multiple,
        ..Default::default()
    }
}

pub(crate) fn open(
    game: proto::Game,
    table: &str,
    player: &str,
    wagers: Vec<proto::Wager>,
) -> proto::OpenHandRequest {
    proto::OpenHandRequest {
        game: game as i32,
        table: table.into(),
        player: player.into(),
        wagers,
        ..Default::default()
    }
}

/// Opens a hand as `request` says, which must be accepted; its view.
pub(crate) async fn opened(c: &mut Clients, request: proto::OpenHandRequest) -> proto::HandView {
    c.play
        .open_hand(request)
        .await
        .expect("an accepted opening")
        .into_inner()
        .hand
        .expect("hand")
}

pub(crate) async fn act(c: &mut Clients, hand: &str, a: proto::Action) -> proto::HandView {
    c.play
        .act(proto::ActRequest {
            hand_id: hand.into(),
            action: Some(a),
            ..Default::default()
        })
        .await
        .expect("a legal decision")
        .into_inner()
        .hand
        .expect("hand")
}

/// Plays a hand of `game` to its end with the first legal decision each time (Pai Gow: auto-set).
pub(crate) async fn play_to_end(
    c: &mut Clients,
    game: proto::Game,
    table: &str,
    player: &str,
) -> proto::HandView {
    let wagers = match game {
        proto::Game::MississippiStud => vec![wager("ante", 500), wager("bonus", 100)],
        proto::Game::FortunePaiGow => vec![wager("main", 1000), wager("fortune_bonus", 300)],
        proto::Game::Nutz => vec![wager("box_one_pair", 200), wager("box_nutz", 100)],
        _ => vec![wager("ante", 1000), wager("bonus", 100)],
    };
    let mut hand = c
        .play
        .open_hand(open(game, table, player, wagers))
        .await
        .expect("open")
        .into_inner()
        .hand
        .expect("hand");
    while hand.status == "in_progress" {
        let next = match game {
            proto::Game::MississippiStud => bet(1),
            proto::Game::FortunePaiGow => action("auto_set"),
            proto::Game::Nutz => proto::Action {
                kind: "shake".into(),
                by: "player".into(),
                ..Default::default()
            },
            _ => action("raise"),
        };
        assert!(
            hand.legal_actions.iter().any(|a| a.kind == next.kind),
            "{} not legal: {:?}",
            next.kind,
            hand.legal_actions
        );
        hand = act(c, &hand.hand_id.clone(), next).await;
    }
    hand
}

pub(crate) async fn replay(c: &mut Clients, hand: &str) -> proto::ReplayHandResponse {
    c.audit
        .replay_hand(proto::ReplayHandRequest {
            hand_id: hand.into(),
        })
        .await
        .expect("replay")
        .into_inner()
}

pub(crate) async fn head(c: &mut Clients) -> (Option<u64>, String) {
    let v = c
        .audit
        .verify_log(proto::VerifyLogRequest::default())
        .await
        .expect("verify")
        .into_inner();
    assert!(v.ok, "{}", v.problem);
    (v.head_sequence, v.head_hash)
}

/// Voids `hand` for a malfunction (a hand in play: no second approval needed).
pub(crate) async fn void_for_malfunction(c: &mut Clients, hand: &str) {
    c.ops
        .void_hand(proto::VoidHandRequest {
            hand_id: hand.to_string(),
            kind: "malfunction".into(),
            reason: "the shuffler jammed".into(),
            recorded_by: String::new(),
            ..Default::default()
        })
        .await
        .expect("a void");
}

/// Runs `pitboss export` against `server` with `args`: (success, stdout, stderr).
pub(crate) fn export(server: &Server, args: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .arg("export")
        .args(args)
        .args(["--server", &server.address])
        .env("PITBOSS_TOKEN_FILE", server.data.join("admin.token"))
        .output()
        .expect("run pitboss export");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// What the Python reader `tests/python/<script>` (pyarrow, DuckDB) prints, as JSON, of the export
/// in `dir` written as `format`.
pub(crate) fn python_reads(script: &str, dir: &std::path::Path, format: &str) -> serde_json::Value {
    let python = pitboss_testkit::python();
    let out = std::process::Command::new(&python)
        .arg(format!(
            "{}/tests/python/{script}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .arg(dir)
        .arg(format)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", python.display()));
    assert!(
        out.status.success(),
        "{} could not read the export (scripts/test installs pyarrow and duckdb in .venv; \
         PITBOSS_PYTHON names that interpreter): {}",
        python.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the reader's JSON")
}
