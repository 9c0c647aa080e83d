//! The client commands of the `pitboss` binary against a real server: demo, recall, replay (text
//! and JSON), void, sweep and the load generator.

mod common;

use std::process::Command;

use common::server::Server;

fn pitboss(server: &Server, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(args)
        .args(["--server", &server.address])
        .output()
        .expect("run pitboss");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn client_commands_play_recall_replay_void_and_load() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());

    let (ok, out, err) = pitboss(&server, &["demo", "--hands", "1"]);
    assert!(ok, "{err}");
    for game in [
        "GAME_MISSISSIPPI_STUD",
        "GAME_FORTUNE_PAI_GOW",
        "GAME_NUTZ",
        "GAME_CARIBBEAN_STUD",
    ] {
        assert!(out.contains(game), "{out}");
    }
    assert_eq!(out.matches("replay: all consistent").count(), 4, "{out}");

    let (ok, out, _) = pitboss(&server, &["hands", "--player", "demo-player"]);
    assert!(ok);
    let rows: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(rows.len(), 4, "{out}");
    assert!(rows[0].contains("caribbean_stud"), "newest first: {out}");
    let hand = rows[0].split_whitespace().next().unwrap().to_string();

    let (ok, out, _) = pitboss(&server, &["replay", &hand]);
    assert!(ok, "a consistent hand exits 0");
    assert!(
        out.contains("ALL CONSISTENT") && out.contains("seed_revealed"),
        "{out}"
    );
    let (ok, out, _) = pitboss(&server, &["replay", &hand, "--json"]);
    assert!(ok);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["consistent"], true);
    assert_eq!(json["events"].as_array().unwrap().len(), 7);

    let (ok, out, err) = pitboss(
        &server,
        &[
            "void",
            &hand,
            "--reason",
            "card reader fault",
            "--by",
            "operator-1",
        ],
    );
    assert!(ok, "{err}");
    assert!(out.contains("settlement is reversed"), "{out}");
    let (ok, _, err) = pitboss(
        &server,
        &["void", &hand, "--reason", "again", "--by", "operator-1"],
    );
    assert!(!ok);
    assert!(err.contains("FailedPrecondition"), "{err}");
    let (ok, out, _) = pitboss(&server, &["replay", &hand, "--json"]);
    assert!(ok);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["void"]["kind"], "malfunction");
    assert_eq!(json["void"]["paid_now"], json["void"]["total_staked"]);

    let (ok, out, _) = pitboss(&server, &["verify"]);
    assert!(ok);
    assert!(
        out.contains("OK: every link, hash and signature checks"),
        "{out}"
    );

    let (ok, out, _) = pitboss(&server, &["sweep"]);
    assert!(ok);
    assert!(out.contains("voided 0 incomplete hand(s)"), "{out}");

    let (ok, out, err) = pitboss(&server, &["bench-load", "--clients", "2", "--seconds", "1"]);
    assert!(ok, "{err}");
    let hands: f64 = out
        .lines()
        .find_map(|l| l.strip_prefix("hands/s"))
        .map(|v| v.trim().parse().unwrap())
        .expect("hands/s line");
    assert!(hands > 0.0, "{out}");
}
