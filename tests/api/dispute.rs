//! The dispute packet of real recorded hands, read in a real browser: scripted hands of
//! `fixtures/hands` (a seed found to deal each case) recorded in a log exactly as the floor records
//! them — the engine's own events, one append per command, under a published configuration — then
//! the server started on that log and asked for each hand's packet over gRPC. Headless Chromium
//! (Debian's `chromium`) renders every page to PNG and to PDF and dumps its DOM, which must carry
//! the settlement's figures; the bundle beside the page verifies offline with the key the page names.
//!
//! The cases: a Mississippi Stud royal whose ante cap binds, a Fortune Pai Gow main bet pushed on
//! the dealer's 9-high, a voided hand; and a hand of Nutz and of Caribbean Stud.
//! With `PITBOSS_PACKET_PICTURES=DIR` the test also keeps one picture of each game's page there
//! (`docs/packets/` holds the ones the README shows).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use pitboss::proto;
use pitboss_engine::config::Rules;
use pitboss_engine::games::Event;
use pitboss_engine::money::Money;
use pitboss_ledger::{AppendRequest, Expected};
use sha2::Digest;

use crate::support::*;
use pitboss_testkit::fixture_hands::{self, Played, Script};
use pitboss_testkit::server::Server;

/// One hand to record: a fixture, how it is changed, and what its packet must show.
struct Case {
    fixture: &'static str,
    script: Script,
    /// Figures the page must carry: `data-field` name → value in minor units.
    fields: &'static [(&'static str, u64)],
    /// Words the page must carry.
    words: &'static [&'static str],
    /// The game's picture for the README, when this case is the one kept.
    picture: Option<&'static str>,
}

fn fixture(name: &str) -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/hands")
        .join(format!("{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture")).expect("fixture JSON")
}

/// The Mississippi Stud ante cap of the capped-royal case, in minor units.
const ANTE_CAP: u64 = 1_000_000;

fn capped_ante(config: &mut pitboss_engine::config::GameConfig) {
    config.name = "capped ante".into();
    if let Rules::MississippiStud(rules) = &mut config.rules {
        rules.ante_cap = Some(Money(ANTE_CAP));
    }
}

/// A hand id for a fixture: 32 hex digits of its name's hash.
fn hand_id(name: &str) -> String {
    hex::encode(&sha2::Sha256::digest(name.as_bytes())[..16])
}

/// Records every case's hand in a fresh log at `data`, as the floor would: its configuration
/// published, its events appended one command at a time on the hand's stream.
async fn record(data: &Path, played: &[(String, Played)]) {
    let ledger = Arc::new(pitboss_testkit::server::open_ledger(
        data,
        1_699_999_000_000,
    ));
    let floor = pitboss::floor::Floor::open(ledger.clone(), Arc::new(|| 1_699_999_000_000))
        .await
        .expect("the floor");
    for (id, hand) in played {
        floor
            .publish(hand.config.clone(), None, "test:recorder")
            .await
            .expect("the configuration published");
        let mut version = 0u64;
        for (at, events) in &hand.steps {
            let payloads = events
                .iter()
                .map(|e| prost::Message::encode_to_vec(&pitboss::codec::event_to_payload(e)))
                .collect();
            ledger
                .append(AppendRequest::entries(
                    pitboss::floor::hand_stream(id),
                    Expected::Version(version),
                    payloads,
                    *at,
                    "player:P1",
                ))
                .await
                .expect("recorded");
            version += events.len() as u64;
        }
    }
    drop(floor);
    ledger.close();
}

/// Headless Chromium on `page`: `what` is `--screenshot=…`, `--print-to-pdf=…` or `--dump-dom`.
fn chromium(page: &Path, profile: &Path, what: &[&str]) -> String {
    let binary = std::env::var("PITBOSS_CHROMIUM").unwrap_or_else(|_| "chromium".into());
    let out = Command::new(&binary)
        .args(pitboss_packet::CHROMIUM_FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(what)
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap_or_else(|e| {
            panic!("{binary} cannot run ({e}): scripts/test installs Debian's chromium")
        });
    assert!(out.status.success(), "{binary} failed: {out:?}");
    String::from_utf8(out.stdout).expect("the DOM is UTF-8")
}

#[tokio::test(flavor = "multi_thread")]
async fn dispute_packets_render_in_chromium_with_their_figures() {
    let cases = [
        Case {
            fixture: "ms_royal_akq_max_bets",
            script: Script {
                config: Some(capped_ante),
                ..Script::default()
            },
            // Ante 50.00 at 500 to 1 would pay 25 050.00; the cap of 10 000.00 cuts 15 050.00.
            fields: &[
                ("lines[0].uncapped", 2_505_000),
                ("lines[0].cap", ANTE_CAP),
                ("lines[0].cut", 1_505_000),
                ("lines[0].payout", ANTE_CAP),
            ],
            words: &["CAP BOUND", "Royal flush", "capped ante"],
            picture: Some("mississippi-stud"),
        },
        Case {
            fixture: "pg_dealer_nine_high_pushes_a_loss",
            script: Script::default(),
            fields: &[],
            words: &["dealer_nine_high", "push"],
            picture: Some("fortune-pai-gow"),
        },
        Case {
            fixture: "ms_royal_akq_max_bets_malfunction_void",
            script: Script::default(),
            fields: &[],
            words: &["malfunction voids all pays and plays", "Voided"],
            picture: None,
        },
        Case {
            fixture: "nutz_first_shake_nutz",
            script: Script::default(),
            fields: &[],
            words: &["Nutz"],
            picture: Some("nutz"),
        },
        Case {
            fixture: "cs_dealer_not_qualifying",
            script: Script::default(),
            fields: &[],
            words: &["Caribbean Stud"],
            picture: Some("caribbean-stud"),
        },
    ];
    let data = tempfile::tempdir().unwrap();
    let played: Vec<(String, Played)> = cases
        .iter()
        .map(|case| {
            let hand = fixture_hands::play(&fixture(case.fixture), case.fixture, &case.script);
            (hand_id(case.fixture), hand)
        })
        .collect();
    record(data.path(), &played).await;

    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
    let key = c
        .audit
        .get_checkpoint(proto::GetCheckpointRequest::default())
        .await
        .unwrap()
        .into_inner()
        .public_key;
    let pages = tempfile::tempdir().unwrap();
    let pictures = std::env::var_os("PITBOSS_PACKET_PICTURES").map(PathBuf::from);
    for (case, (id, hand)) in cases.iter().zip(&played) {
        let packet = c
            .audit
            .get_dispute_packet(proto::GetDisputePacketRequest {
                hand_id: id.clone(),
            })
            .await
            .unwrap_or_else(|e| panic!("{}: {e:?}", case.fixture))
            .into_inner();
        assert!(packet.verified, "{}: the bundle verifies", case.fixture);
        assert_eq!(packet.html_file, format!("hand-{id}.html"));
        let dir = pages.path().join(case.fixture);
        std::fs::create_dir_all(&dir).unwrap();
        let page = dir.join(&packet.html_file);
        std::fs::write(&page, &packet.html).unwrap();
        std::fs::write(dir.join(&packet.bundle_file), &packet.bundle_json).unwrap();

        // The bundle beside the page verifies offline, with the command the page prints.
        let key_hex = hex::encode(&key);
        assert!(
            packet.html.contains(&format!(
                "pitboss verify-bundle {} --key {key_hex}",
                packet.bundle_file
            )),
            "{}: the page names the command and the key",
            case.fixture
        );
        let verified = Command::new(env!("CARGO_BIN_EXE_pitboss"))
            .current_dir(&dir)
            .args(["verify-bundle", &packet.bundle_file, "--key", &key_hex])
            .output()
            .unwrap();
        assert!(verified.status.success(), "{}: {verified:?}", case.fixture);

        let profile = dir.join("chromium-profile");
        let png = dir.join("page.png");
        chromium(
            &page,
            &profile,
            &[
                &format!("--screenshot={}", png.display()),
                "--window-size=1000,2600",
            ],
        );
        let png_bytes = std::fs::read(&png).expect("a screenshot");
        assert!(
            png_bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
            "{}: a PNG",
            case.fixture
        );
        assert!(
            png_bytes.len() > 20_000,
            "{}: a page drawn, not blank",
            case.fixture
        );
        let pdf = dir.join("page.pdf");
        chromium(
            &page,
            &profile,
            &[&format!("--print-to-pdf={}", pdf.display())],
        );
        let pdf_bytes = std::fs::read(&pdf).expect("a PDF");
        assert!(pdf_bytes.starts_with(b"%PDF-"), "{}: a PDF", case.fixture);
        let pages_in_pdf = pdf_bytes.windows(10).filter(|w| w == b"/Type /Pag").count();
        assert!(pages_in_pdf >= 2, "{}: a printed document", case.fixture);

        let dom = chromium(&page, &profile, &["--dump-dom"]);
        // The settlement's figures, from the hand the engine recorded, in the rendered DOM.
        let figure = |field: &str, value: u64| format!("data-field=\"{field}\" value=\"{value}\"");
        let mut fields: Vec<(String, u64)> = case
            .fields
            .iter()
            .map(|(f, v)| (f.to_string(), *v))
            .collect();
        let last_settlement = hand.events.iter().rev().find_map(|e| match e {
            Event::Settled(s) => Some(s.clone()),
            _ => None,
        });
        let void = hand.events.iter().find_map(|e| match e {
            Event::Voided(v) => Some(v.clone()),
            _ => None,
        });
        if let Some(s) = &last_settlement {
            fields.push(("total_staked".into(), s.total_staked.0));
            fields.push(("total_paid".into(), s.total_paid.0));
            for (i, line) in s.lines.iter().enumerate() {
                fields.push((format!("lines[{i}].payout"), line.payout.0));
            }
        }
        if let Some(v) = &void {
            fields.push(("void.paid_now".into(), v.paid_now.0));
            fields.push(("void.total_staked".into(), v.total_staked.0));
        }
        assert!(!fields.is_empty(), "{}: figures to look for", case.fixture);
        for (field, value) in fields {
            assert!(
                dom.contains(&figure(&field, value)),
                "{}: {field} = {value} not in the rendered page",
                case.fixture
            );
        }
        for words in case.words {
            assert!(
                dom.contains(words),
                "{}: {words:?} not on the page",
                case.fixture
            );
        }
        assert!(
            dom.contains("data-verdict=\"ok\""),
            "{}: verdict",
            case.fixture
        );
        if let (Some(dir), Some(name)) = (&pictures, case.picture) {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::copy(&png, dir.join(format!("{name}.png"))).unwrap();
        }
    }
    // A packet of nothing is NOT_FOUND, naming no file.
    let missing = c
        .audit
        .get_dispute_packet(proto::GetDisputePacketRequest {
            hand_id: "0".repeat(32),
        })
        .await
        .unwrap_err();
    assert_eq!(missing.code(), tonic::Code::NotFound, "{missing:?}");
}

/// A table round's dispute packet for one player: a four-seat Caribbean Stud round played over
/// gRPC, its packet asked for by one player's dispute. Chromium renders the page; its DOM carries
/// every place's settlement as the round's replay states it, the player's own name, and every
/// other player's name masked; the bundle beside it verifies offline with the command the page
/// prints, and the same bundle with one entry's bytes changed does not.
#[tokio::test(flavor = "multi_thread")]
async fn a_rounds_dispute_packet_shows_the_whole_table_with_the_others_masked() {
    use proto::round_command_request::Command as RoundCommand;
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
    let id = c
        .play
        .open_round(proto::OpenRoundRequest {
            game: proto::Game::CaribbeanStud as i32,
            table: "T-dispute".into(),
            dealer: "dealer-7".into(),
            shape: "seats".into(),
            seats: 4,
            max_players: 4,
            decision_window_ms: 600_000,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .round
        .unwrap()
        .round_id;
    let command = |command| proto::RoundCommandRequest {
        round_id: id.clone(),
        command: Some(command),
        request_id: String::new(),
    };
    for seat in 1..=4u32 {
        let bet = proto::RoundBetCommand {
            player_seed: Vec::new(),
            player: format!("player-{seat}"),
            seat,
            wagers: vec![wager("ante", 500 * u64::from(seat)), wager("bonus", 100)],
        };
        c.play
            .round_command(command(RoundCommand::Bet(bet)))
            .await
            .unwrap();
    }
    c.play
        .round_command(command(RoundCommand::CloseBetting(Default::default())))
        .await
        .unwrap();
    for seat in 1..=4u32 {
        let decide = proto::RoundDecisionCommand {
            player: format!("player-{seat}"),
            seat,
            action: Some(proto::Action {
                kind: if seat == 3 { "fold" } else { "raise" }.into(),
                ..Default::default()
            }),
        };
        c.play
            .round_command(command(RoundCommand::Decide(decide)))
            .await
            .unwrap();
    }
    let proof = c
        .audit
        .replay_round(proto::ReplayRoundRequest {
            round_id: id.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(proof.consistent, "{:?}", proof.report);
    let packet = c
        .audit
        .get_round_dispute_packet(proto::GetRoundDisputePacketRequest {
            round_id: id.clone(),
            player: "player-2".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(packet.verified);
    assert_eq!(packet.html_file, format!("round-{id}.html"));
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join(&packet.html_file);
    std::fs::write(&page, &packet.html).unwrap();
    std::fs::write(dir.path().join(&packet.bundle_file), &packet.bundle_json).unwrap();
    let key_hex = hex::encode(
        c.audit
            .get_checkpoint(proto::GetCheckpointRequest::default())
            .await
            .unwrap()
            .into_inner()
            .public_key,
    );
    assert!(packet.html.contains(&format!(
        "pitboss verify-bundle {} --key {key_hex}",
        packet.bundle_file
    )));
    let verify = |file: &str| {
        Command::new(env!("CARGO_BIN_EXE_pitboss"))
            .current_dir(dir.path())
            .args(["verify-bundle", file, "--key", &key_hex])
            .output()
            .unwrap()
    };
    let verified = verify(&packet.bundle_file);
    assert!(verified.status.success(), "{verified:?}");
    let out = String::from_utf8_lossy(&verified.stdout);
    assert!(
        out.contains("one shuffle") && out.contains("ALL CONSISTENT"),
        "{out}"
    );
    // One entry's bytes changed: the bundle no longer verifies.
    let mut bundle: serde_json::Value = serde_json::from_str(&packet.bundle_json).unwrap();
    let stored = bundle["entries"][3]["stored"].as_str().unwrap().to_string();
    let mut bytes = base64_decode(&stored);
    let last = bytes.len() - 40;
    bytes[last] ^= 1;
    bundle["entries"][3]["stored"] = base64_encode(&bytes).into();
    std::fs::write(dir.path().join("tampered.json"), bundle.to_string()).unwrap();
    assert!(!verify("tampered.json").status.success());

    let profile = dir.path().join("chromium-profile");
    let png = dir.path().join("round.png");
    chromium(
        &page,
        &profile,
        &[
            &format!("--screenshot={}", png.display()),
            "--window-size=1000,2600",
        ],
    );
    let png_bytes = std::fs::read(&png).expect("a screenshot");
    assert!(png_bytes.starts_with(b"\x89PNG\r\n\x1a\n") && png_bytes.len() > 20_000);
    let dom = chromium(&page, &profile, &["--dump-dom"]);
    assert!(dom.contains("data-verdict=\"ok\""));
    for place in &proof.places {
        let settlement = place.settlement.as_ref().unwrap();
        let field = format!(
            "data-field=\"places[{}].total_paid\" value=\"{}\"",
            place.place, settlement.total_paid
        );
        assert!(dom.contains(&field), "{field} not on the page");
    }
    assert!(dom.contains("player-2") && dom.contains("THE DISPUTED PLACE"));
    for other in ["player-1", "player-3", "player-4"] {
        assert!(!dom.contains(other), "{other} is named on player-2's page");
    }
    assert!(dom.contains("(another player)"));
    assert!(dom.contains("dealer-7") && dom.contains("T-dispute"));
    if let Some(pictures) = std::env::var_os("PITBOSS_PACKET_PICTURES").map(PathBuf::from) {
        std::fs::create_dir_all(&pictures).unwrap();
        std::fs::copy(&png, pictures.join("caribbean-stud-round.png")).unwrap();
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap()
}

fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
