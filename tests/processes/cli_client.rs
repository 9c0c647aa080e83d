//! The client commands of the `pitboss` binary against a real server: demo, recall, replay (text
//! and JSON), void, sweep and the load generator.

use std::process::Command;

use pitboss_testkit::server::Server;

fn pitboss(server: &Server, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(args)
        .args(["--server", &server.address])
        .env("PITBOSS_TOKEN_FILE", server.data.join("admin.token"))
        .output()
        .expect("run pitboss");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Plays a round of `pitboss demo` and returns the newest hand's id.
fn newest_demo_hand(server: &Server) -> String {
    let (ok, _, _) = pitboss(server, &["demo", "--hands", "1"]);
    assert!(ok);
    let (ok, out, _) = pitboss(server, &["hands", "--player", "demo-player"]);
    assert!(ok);
    out.lines()
        .nth(1)
        .and_then(|row| row.split_whitespace().next())
        .expect("a hand")
        .to_string()
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// The public key `pitboss checkpoint` prints on standard error.
fn printed_key(err: &str) -> String {
    err.split("public key ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .expect("the key is printed")
        .to_string()
}

#[test]
fn client_commands_play_recall_replay_void_and_load() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());

    let started = now_ms();
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
    // When it opened, as a person reads it: a UTC date between the demo's start and now.
    let dates = [started, now_ms()].map(|ms| pitboss_packet::utc(ms)[..10].to_string());
    assert!(
        rows.iter()
            .all(|r| r.contains(" UTC") && dates.iter().any(|d| r.contains(d.as_str()))),
        "{out}"
    );
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

    // A settled hand's void is a proposal; the same principal cannot approve it, a second can.
    let (ok, out, err) = pitboss(&server, &["void", &hand, "--reason", "card reader fault"]);
    assert!(ok, "{err}");
    assert!(out.contains("proposed "), "{out}");
    let proposal = out
        .split_whitespace()
        .nth(1)
        .expect("the proposal id")
        .trim_end_matches(':')
        .to_string();
    let (ok, _, err) = pitboss(&server, &["approve", &proposal]);
    assert!(!ok && err.contains("PermissionDenied"), "{err}");
    let second = server.data.join("second.token");
    std::fs::write(&second, pitboss_testkit::server::SECOND_TOKEN).unwrap();
    let (ok, out, err) = pitboss(
        &server,
        &[
            "approve",
            &proposal,
            "--token-file",
            second.to_str().unwrap(),
        ],
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("approved") && out.contains("by second"),
        "{out}"
    );
    assert!(out.contains(&format!("voided hand {hand}")), "{out}");
    let (ok, out, _) = pitboss(&server, &["proposals", "--state", "approved"]);
    assert!(ok && out.contains(&proposal), "{out}");
    let (ok, _, err) = pitboss(&server, &["void", &hand, "--reason", "again"]);
    assert!(!ok);
    assert!(err.contains("FailedPrecondition"), "{err}");
    let (ok, out, _) = pitboss(&server, &["replay", &hand, "--json"]);
    assert!(ok);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["void"]["kind"], "malfunction");
    assert_eq!(json["void"]["paid_now"], json["void"]["total_staked"]);
    assert_eq!(json["void"]["recorded_by"], "admin");
    assert_eq!(json["void"]["approved_by"], "second");
    let actors: Vec<&str> = json["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["actor"].as_str().unwrap())
        .collect();
    assert_eq!(actors.first(), Some(&"admin"), "the opening's actor");
    assert_eq!(actors.last(), Some(&"second"), "the approved void's actor");

    let (ok, out, _) = pitboss(&server, &["verify"]);
    assert!(ok);
    assert!(
        out.contains("OK: every link, hash and signature checks"),
        "{out}"
    );

    let (ok, out, _) = pitboss(&server, &["sweep"]);
    assert!(ok);
    assert!(
        out.contains("incomplete hands: 0 voided with refunds, 0 completed and settled"),
        "{out}"
    );

    // A fixed amount of work: 12 hands of the four games mixed, interactive then in one call each.
    for batch in [false, true] {
        let mut args = vec![
            "bench-load",
            "--clients",
            "3",
            "--hands",
            "12",
            "--games",
            "all",
        ];
        if batch {
            args.push("--batch");
        }
        let (ok, out, err) = pitboss(&server, &args);
        assert!(ok, "{err}");
        let line = |prefix: &str| {
            out.lines()
                .find_map(|l| l.strip_prefix(prefix))
                .map(|v| v.trim().to_string())
                .unwrap_or_else(|| panic!("no {prefix} line in {out}"))
        };
        assert_eq!(line("hands   "), "12", "{out}");
        let per_game: u64 = out
            .lines()
            .filter(|l| {
                [
                    "mississippi_stud ",
                    "fortune_pai_gow ",
                    "nutz ",
                    "caribbean_stud ",
                ]
                .iter()
                .any(|g| l.starts_with(g))
            })
            .map(|l| l.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap())
            .sum();
        assert_eq!(per_game, 12, "the games' rows add up to the hands: {out}");
    }
}

/// A regulator's round trip: take a checkpoint away, play on, take another; `pitboss prove` shows
/// the newer one extends the older one and that every event of a hand is in it, checked with the
/// log's public key pinned from the first checkpoint; a forged checkpoint file is refused.
#[test]
fn checkpoints_taken_away_prove_the_log_unchanged_and_a_hand_included() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let files = tempfile::tempdir().unwrap();
    let old = files.path().join("old.checkpoint");
    let new = files.path().join("new.checkpoint");
    let (ok, _, _) = pitboss(&server, &["demo", "--hands", "1"]);
    assert!(ok);
    let (ok, _, err) = pitboss(&server, &["checkpoint", "--out", old.to_str().unwrap()]);
    assert!(ok, "{err}");
    let key = printed_key(&err);
    assert_eq!(key.len(), 64);
    let note = std::fs::read_to_string(&old).unwrap();
    assert!(note.starts_with("pitboss.v1/"), "{note}");
    let hand = newest_demo_hand(&server);
    let (ok, _, err) = pitboss(&server, &["checkpoint", "--out", new.to_str().unwrap()]);
    assert!(ok, "{err}");

    let (ok, out, err) = pitboss(
        &server,
        &[
            "prove",
            "--checkpoint",
            new.to_str().unwrap(),
            "--key",
            &key,
            "--since",
            old.to_str().unwrap(),
            "--hand",
            &hand,
        ],
    );
    assert!(ok, "{out}{err}");
    assert!(out.contains("signature valid"), "{out}");
    assert!(out.starts_with("checkpoint"), "{out}");
    assert!(out.contains("consistent: the first"), "{out}");
    assert!(out.matches(": included").count() >= 5, "{out}");
    assert!(!out.contains("NOT PROVEN"));

    // The older checkpoint does not hold the newer hand.
    let (ok, out, _) = pitboss(
        &server,
        &[
            "prove",
            "--checkpoint",
            old.to_str().unwrap(),
            "--key",
            &key,
            "--hand",
            &hand,
        ],
    );
    assert!(!ok);
    assert!(out.contains("after the checkpoint"), "{out}");

    // A checkpoint file with its size changed no longer verifies.
    let forged = files.path().join("forged.checkpoint");
    let text = std::fs::read_to_string(&new).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[1] = (lines[1].parse::<u64>().unwrap() - 1).to_string();
    std::fs::write(&forged, lines.join("\n") + "\n").unwrap();
    let (ok, _, err) = pitboss(
        &server,
        &[
            "prove",
            "--checkpoint",
            forged.to_str().unwrap(),
            "--key",
            &key,
            "--since",
            old.to_str().unwrap(),
        ],
    );
    assert!(!ok);
    assert!(err.contains("signature does not verify"), "{err}");
}

/// An offline bundle: taken from the server, checked with no server and the pinned key; a changed
/// byte in an entry, a changed payout in the configuration, or another key are each caught.
#[test]
fn a_hand_bundle_verifies_offline_and_tampering_is_named() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let files = tempfile::tempdir().unwrap();
    let hand = newest_demo_hand(&server);
    let (ok, _, err) = pitboss(&server, &["checkpoint"]);
    assert!(ok);
    let key = printed_key(&err);
    let file = files.path().join("hand.bundle.json");
    let (ok, _, err) = pitboss(&server, &["bundle", &hand, "--out", file.to_str().unwrap()]);
    assert!(ok, "{err}");
    drop(server);

    let verify = |path: &std::path::Path, key: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_pitboss"))
            .args(["verify-bundle", path.to_str().unwrap(), "--key", key])
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (ok, out) = verify(&file, &key);
    assert!(ok, "{out}");
    assert!(
        out.contains("ALL CONSISTENT") && out.contains("bundle verified"),
        "{out}"
    );
    // The same bundle checked by the independent Python reading of the format.
    let python = |path: &std::path::Path, key: &str| {
        let out = Command::new("python3")
            .arg(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/fixtures/reference/verify_bundle.py"
            ))
            .arg(path)
            .arg(key)
            .output()
            .expect("python3 is part of the test toolchain (see README)");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr),
        )
    };
    let (ok, out) = python(&file, &key);
    assert!(ok, "{out}");
    assert!(
        out.contains("signature valid") && out.ends_with("bundle verified\n"),
        "{out}"
    );

    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let write = |value: &serde_json::Value, name: &str| {
        let path = files.path().join(name);
        std::fs::write(&path, serde_json::to_string(value).unwrap()).unwrap();
        path
    };
    // A byte of the second entry's stored record changed (inside its envelope).
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD;
    let mut tampered = original.clone();
    let mut bytes = b64
        .decode(tampered["entries"][1]["stored"].as_str().unwrap())
        .unwrap();
    bytes[12] ^= 1;
    tampered["entries"][1]["stored"] = b64.encode(bytes).into();
    let (ok, out) = verify(&write(&tampered, "t1.json"), &key);
    assert!(!ok);
    let (python_ok, python_out) = python(&files.path().join("t1.json"), &key);
    assert!(!python_ok, "{python_out}");
    assert!(python_out.contains("FAIL"), "{python_out}");
    let sequence = original["entries"][1]["sequence"].as_u64().unwrap();
    assert!(
        out.lines()
            .any(|l| l.contains(&format!("entry {sequence:>8}")) && l.contains("FAIL")),
        "{out}"
    );
    // The configuration rewritten to pay more: it no longer hashes to the hand's id.
    let mut richer = original.clone();
    let json = richer["config_json"]
        .as_str()
        .unwrap()
        .replacen("{\"odds\":", "{\"odds\":1", 1);
    richer["config_json"] = json.into();
    let (ok, out) = verify(&write(&richer, "t2.json"), &key);
    assert!(!ok);
    assert!(out.contains("does not hash to"), "{out}");
    // Another key.
    let other = hex::encode(
        ed25519_dalek::SigningKey::from_bytes(&[5; 32])
            .verifying_key()
            .as_bytes(),
    );
    let (ok, out) = verify(&file, &other);
    assert!(!ok);
    assert!(out.contains("PROBLEM: checkpoint"), "{out}");
}

/// `pitboss round …`: a two-seat Caribbean Stud round opened, bet, dealt, decided and shown from
/// the command line; a refusal says why and exits non-zero; the JSON view reads back.
#[test]
fn a_round_is_played_from_the_command_line() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let (ok, out, err) = pitboss(
        &server,
        &[
            "round",
            "open",
            "caribbean_stud",
            "--table",
            "T-cli",
            "--dealer",
            "dealer-2",
            "--shape",
            "seats",
            "--seats",
            "2",
            "--max-players",
            "2",
        ],
    );
    assert!(ok, "{err}");
    let id = out
        .split_whitespace()
        .nth(1)
        .expect("the round's id")
        .to_string();
    assert!(out.contains("betting"), "{out}");
    for (player, seat) in [("ann", "1"), ("bob", "2")] {
        let (ok, _, err) = pitboss(
            &server,
            &[
                "round", "bet", &id, "--player", player, "--seat", seat, "--wager", "ante=500",
            ],
        );
        assert!(ok, "{err}");
    }
    let (ok, _, err) = pitboss(
        &server,
        &[
            "round", "bet", &id, "--player", "cy", "--seat", "1", "--wager", "ante=500",
        ],
    );
    assert!(!ok && err.contains("seat 1 is taken"), "{err}");
    let (ok, out, err) = pitboss(&server, &["round", "close", &id]);
    assert!(ok && out.contains("playing"), "{err}{out}");
    let (ok, out, _) = pitboss(&server, &["round", "show", &id, "--player", "ann"]);
    assert!(
        ok && out.contains("(masked)") && out.contains("may: raise, fold"),
        "{out}"
    );
    // Another dealer takes over; a player of the round may not.
    let (ok, _, err) = pitboss(
        &server,
        &[
            "round",
            "dealer",
            &id,
            "--dealer",
            "bob",
            "--reason",
            "shift change",
        ],
    );
    assert!(!ok && err.contains("change_dealer.dealer"), "{err}");
    let (ok, out, err) = pitboss(
        &server,
        &[
            "round",
            "dealer",
            &id,
            "--dealer",
            "dealer-5",
            "--reason",
            "shift change",
        ],
    );
    assert!(ok && out.contains("dealer dealer-5"), "{err}{out}");
    for (player, seat, action) in [("ann", "1", "raise"), ("bob", "2", "fold")] {
        let (ok, _, err) = pitboss(
            &server,
            &[
                "round", "decide", &id, "--player", player, "--seat", seat, action,
            ],
        );
        assert!(ok, "{err}");
    }
    let (ok, out, err) = pitboss(&server, &["round", "show", &id, "--json"]);
    assert!(ok, "{err}");
    let view: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(view["phase"], "ended");
    assert_eq!(view["table_cards"].as_array().unwrap().len(), 5);
    assert_eq!(view["seed"].as_str().unwrap().len(), 64);
    let places = view["places"].as_array().unwrap();
    assert_eq!(places.len(), 2);
    assert!(places.iter().all(|p| p["total_paid"].is_u64()), "{view}");
    assert_eq!(places[1]["total_paid"], 0, "bob folded");
    // The round's proof from the command line: consistent, bob's name masked in ann's report.
    let (ok, out, err) = pitboss(&server, &["round", "replay", &id, "--player", "ann"]);
    assert!(ok, "{err}{out}");
    assert!(
        out.contains("ALL CONSISTENT") && out.contains("one shuffle"),
        "{out}"
    );
    assert!(out.contains("ann") && !out.contains("bob"), "{out}");
    assert!(out.contains("(another player)"), "{out}");
    // Recall: the dealer's rounds, and ann's with her place only.
    let (ok, out, err) = pitboss(
        &server,
        &["round", "list", "--dealer", "dealer-2", "--json"],
    );
    assert!(ok, "{err}");
    let listed: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let rounds = listed["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 1, "{listed}");
    assert_eq!(rounds[0]["round_id"], id.as_str());
    assert_eq!(rounds[0]["place_count"], 2);
    assert_eq!(
        rounds[0]["dealers"],
        serde_json::json!(["dealer-2", "dealer-5"])
    );
    assert_eq!(
        rounds[0]["total_staked"],
        places
            .iter()
            .map(|p| p["stakes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| w["amount"].as_u64().unwrap())
                .sum::<u64>())
            .sum::<u64>()
    );
    let (ok, out, err) = pitboss(&server, &["round", "list", "--player", "ann"]);
    assert!(ok, "{err}");
    assert!(
        out.contains(&id) && out.contains("place 0 seat 1 ann: settled"),
        "{out}"
    );
    assert!(!out.contains("bob"), "{out}");
    // By seat: seat 2 of the table is bob's place, and the line names both dealers.
    let (ok, out, err) = pitboss(
        &server,
        &["round", "list", "--table", "T-cli", "--seat", "2"],
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("place 1 seat 2 bob") && !out.contains("ann"),
        "{out}"
    );
    assert!(out.contains("dealer-2 → dealer-5"), "{out}");
}

/// `pitboss dispute` writes the page, the bundle and a C2SP tlog-proof for each of the bundle's
/// entries side by side; `verify-bundle --tlog-proofs` holds every proof to the bundle with the
/// pinned key, and `verify-tlog-proof` checks one alone, naming the hand's stream.
#[test]
fn a_dispute_packet_carries_a_tlog_proof_for_each_entry() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let hand = newest_demo_hand(&server);
    let (ok, _, err) = pitboss(&server, &["checkpoint"]);
    assert!(ok, "{err}");
    let key = printed_key(&err);
    let out = tempfile::tempdir().unwrap();
    let (ok, listed, err) = pitboss(
        &server,
        &["dispute", &hand, "--out", out.path().to_str().unwrap()],
    );
    assert!(ok, "{err}");
    let proofs: Vec<&str> = listed
        .lines()
        .filter(|l| l.ends_with(".tlog-proof"))
        .collect();
    let bundle = out.path().join(format!("hand-{hand}.bundle.json"));
    let entries =
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&bundle).unwrap())
            .unwrap()["entries"]
            .as_array()
            .unwrap()
            .len();
    assert_eq!(proofs.len(), entries, "{listed}");
    let checked = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args([
            "verify-bundle",
            bundle.to_str().unwrap(),
            "--key",
            &key,
            "--tlog-proofs",
        ])
        .arg(out.path())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&checked.stdout);
    assert!(checked.status.success(), "{said}");
    assert_eq!(
        said.matches("tlog-proof of entry").count(),
        entries,
        "{said}"
    );
    let alone = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(["verify-tlog-proof", proofs[0], "--key", &key])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&alone.stdout);
    assert!(
        alone.status.success() && said.contains(&format!("stream hand/{hand}")),
        "{said}"
    );
}
