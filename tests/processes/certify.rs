//! `pitboss certify`: a certification report for each game's default configuration, computed by a
//! server and recorded in its log, rendered as one HTML page and printed by Chromium to PDF. Every
//! exact figure lies inside its simultaneous 99 % interval and the battery holds, so each
//! certificate holds; the printed SHA-256 is the page's and the log's; the same seeds give the same
//! page, byte for byte, offline or on a server; the vendor's transcripts, with an error planted,
//! fail the certificate; an altered report is refused against its signed note; the configurations
//! in play are listed against the reports the log holds; and a server that requires certification
//! opens hands only under a configuration whose latest report holds.

use sha2::{Digest, Sha256};

/// `pitboss ARGS`: (exit status 0, what it printed on both outputs).
fn pitboss(args: &[&std::ffi::OsStr]) -> (bool, String) {
    let run = std::process::Command::new(pitboss_testkit::binary())
        .args(args)
        .output()
        .unwrap();
    let said =
        String::from_utf8_lossy(&run.stdout).into_owned() + &String::from_utf8_lossy(&run.stderr);
    (run.status.success(), said)
}

fn certify(game: &str, out: &std::path::Path, extra: &[&str]) -> (bool, String) {
    let fixed = [
        "certify",
        game,
        "--hands",
        "20000",
        "--sequences",
        "55",
        "--bits",
        "131072",
        "--out",
    ];
    let mut args: Vec<&std::ffi::OsStr> = fixed.iter().map(std::ffi::OsStr::new).collect();
    args.push(out.as_os_str());
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    pitboss(&args)
}

/// The fixture's transcript of `game` (`fixtures/transcripts/`).
fn transcript(game: &str) -> serde_json::Value {
    let path = pitboss_testkit::root().join(format!("fixtures/transcripts/{game}.json"));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// `transcript` with one claimed payout off by one: a hand the rules do not pay so.
fn off_by_one(transcript: &serde_json::Value) -> serde_json::Value {
    let mut off = transcript.clone();
    let payouts = off
        .pointer_mut("/claimed/payouts")
        .and_then(|p| p.as_object_mut())
        .expect("the fixture claims its payouts");
    let (_, amount) = payouts.iter_mut().next().expect("a claimed payout");
    *amount = serde_json::json!(amount.as_u64().unwrap() + 1);
    off
}

/// `pitboss configs ARGS` against a server: (exit status 0, what it printed).
fn configs(server: &str, token: &std::path::Path, extra: &[&str]) -> (bool, String) {
    let fixed = ["configs", "--server", server, "--token-file"];
    let mut args: Vec<&std::ffi::OsStr> = fixed.iter().map(std::ffi::OsStr::new).collect();
    args.push(token.as_os_str());
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    pitboss(&args)
}

/// A report for Nutz's default recorded through `server` into `out`: one that holds, or
/// (`failing`) one given a vendor's transcript off by one, which fails it.
fn record_nutz(server: &str, token: &std::path::Path, out: &std::path::Path, failing: bool) {
    let vendor = out.with_extension("jsonl");
    let mut args = vec![
        "--no-pdf",
        "--record",
        "--server",
        server,
        "--token-file",
        token.to_str().unwrap(),
    ];
    if failing {
        std::fs::write(&vendor, off_by_one(&transcript("nutz")).to_string()).unwrap();
        args.extend(["--transcripts", vendor.to_str().unwrap()]);
    }
    let (ok, said) = certify("nutz", out, &args);
    assert_eq!(ok, !failing, "{said}");
    assert_eq!(said.contains("the certificate FAILS"), failing, "{said}");
}

/// A server on `dir/log` started with `args`, and a file in `dir` holding its administrator's
/// token (for the commands that ask it).
fn server_and_token(
    dir: &std::path::Path,
    args: &[&str],
) -> (pitboss_testkit::server::Server, std::path::PathBuf) {
    let server = pitboss_testkit::server::Server::start_with(&dir.join("log"), args);
    let token = dir.join("token");
    std::fs::write(&token, pitboss_testkit::server::ADMIN_TOKEN).unwrap();
    (server, token)
}

type Audit = pitboss::proto::audit_client::AuditClient<pitboss_client::Authorized>;

/// The `certification_recorded` events of the log, in order.
async fn certifications(audit: &mut Audit) -> Vec<pitboss::proto::SignificantEvent> {
    audit
        .list_significant_events(pitboss::proto::ListSignificantEventsRequest {
            kinds: vec!["certification_recorded".into()],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .events
}

/// The log's public key, in hex, as a checkpoint names it.
async fn log_key(audit: &mut Audit) -> String {
    hex::encode(
        audit
            .get_checkpoint(pitboss::proto::GetCheckpointRequest::default())
            .await
            .unwrap()
            .into_inner()
            .public_key,
    )
}

/// Each game's default configuration certified by a server (`--record`): the page and its PDF
/// printed by Chromium, every exact figure inside, the certificate holding, its hash the one the
/// log records (a `certification_recorded` event per game) and the one its note signs.
#[tokio::test(flavor = "multi_thread")]
async fn each_default_configuration_is_certified_as_html_and_pdf_its_hash_in_the_log() {
    use pitboss::proto::audit_client::AuditClient;
    let dirs = tempfile::tempdir().unwrap();
    let (server, token) = server_and_token(dirs.path(), &[]);
    let mut audit = AuditClient::new(server.channel().await);
    let key = log_key(&mut audit).await;
    let mut hashes = Vec::new();
    for game in [
        "nutz",
        "mississippi_stud",
        "caribbean_stud",
        "fortune_pai_gow",
    ] {
        let out = dirs.path().join(game);
        let record = [
            "--record",
            "--server",
            &server.address,
            "--token-file",
            token.to_str().unwrap(),
        ];
        let (ok, said) = certify(game, &out, &record);
        assert!(ok, "{game}:\n{said}");
        let html = std::fs::read(out.join("certificate.html")).unwrap();
        let page = String::from_utf8(html.clone()).unwrap();
        // The printed hash is the page's.
        let hash = hex::encode(Sha256::digest(&html));
        assert!(said.contains(&format!("sha256 {hash}")), "{said}");
        // The configuration's id, its sheets and figures, the battery, the commands.
        let id = pitboss_engine::config::GameConfig::default_for(game.parse().unwrap()).id();
        assert!(page.contains(&id.to_string()), "{game}: the id");
        assert!(
            page.contains("PAR sheet: ") && page.contains("house edge"),
            "{game}"
        );
        assert!(page.contains("variance (per unit)") && page.contains("hit frequency"));
        assert!(
            page.contains("inside") && !page.contains("OUTSIDE"),
            "{game}"
        );
        assert!(page.contains("pitboss rng-test --sequences 55 --bits 131072 --seed "));
        assert!(page.contains(&format!("pitboss simulate {game} --hands 20000 --seed ")));
        assert!(page.contains("Verdict: <strong>holds</strong>"), "{game}");
        // The Pai Gow main bet, with no exact sheet, is held to the lab's model of it (and only
        // there).
        assert_eq!(
            page.contains(" (model)")
                && page.contains(&format!("pitboss par {game} --rounds 20000 --seed ")),
            game == "fortune_pai_gow",
            "{game}"
        );
        let pdf = std::fs::read(out.join("certificate.pdf")).unwrap();
        assert!(
            pdf.starts_with(b"%PDF-") && pdf.len() > 10_000,
            "{game}: a PDF"
        );
        // Its note signs this page.
        let checked = std::process::Command::new(pitboss_testkit::binary())
            .arg("verify-certificate")
            .arg(&out)
            .args(["--key", &key])
            .output()
            .unwrap();
        assert!(checked.status.success(), "{game}: {checked:?}");
        hashes.push((id.to_string(), hash));
    }
    // The log records each, with its page's hash.
    let events = certifications(&mut audit).await;
    assert_eq!(events.len(), 4, "{events:?}");
    for ((id, hash), event) in hashes.iter().zip(&events) {
        assert!(
            event.subject.contains(id.as_str()) && event.after.contains(hash.as_str()),
            "{event:?}"
        );
    }
}

/// Offline, the same seeds give the same page, byte for byte; the files are never overwritten.
#[test]
fn an_offline_certificate_is_reproduced_by_its_seeds() {
    let dirs = tempfile::tempdir().unwrap();
    let first = dirs.path().join("first");
    let (ok, said) = certify("nutz", &first, &[]);
    assert!(ok, "{said}");
    assert!(std::fs::read(first.join("certificate.pdf"))
        .unwrap()
        .starts_with(b"%PDF-"));
    let again = dirs.path().join("again");
    let (ok, said) = certify("nutz", &again, &["--no-pdf"]);
    assert!(ok, "{said}");
    assert_eq!(
        std::fs::read(again.join("certificate.html")).unwrap(),
        std::fs::read(first.join("certificate.html")).unwrap()
    );
    assert!(!again.join("certificate.pdf").exists());
    let (ok, said) = certify("nutz", &again, &["--no-pdf"]);
    assert!(!ok && said.contains("refusing to overwrite"), "{said}");
}

/// The vendor's transcripts: played as the rules say, the certificate holds and says so; one
/// payout claimed one unit off, or a hand of another game, and it fails (exit status 1), the page
/// naming the count.
#[test]
fn a_vendors_transcripts_are_part_of_the_certificate() {
    let dirs = tempfile::tempdir().unwrap();
    let nutz = transcript("nutz");
    let run = |name: &str, lines: &[serde_json::Value]| {
        let file = dirs.path().join(format!("{name}.jsonl"));
        let text: Vec<String> = lines.iter().map(|t| t.to_string()).collect();
        std::fs::write(&file, text.join("\n")).unwrap();
        let out = dirs.path().join(name);
        let (ok, said) = certify(
            "nutz",
            &out,
            &["--no-pdf", "--transcripts", file.to_str().unwrap()],
        );
        (
            ok,
            said,
            std::fs::read_to_string(out.join("certificate.html")).unwrap(),
        )
    };
    let (ok, said, page) = run("good", &[nutz.clone(), nutz.clone()]);
    assert!(ok, "{said}");
    assert!(
        page.contains("2 agree with the rules, 0 differ, 0 refused, 0 of another configuration"),
        "{page}"
    );
    // One claimed payout off by one.
    let (ok, said, page) = run("off", &[nutz.clone(), off_by_one(&nutz)]);
    assert!(!ok && said.contains("the certificate FAILS"), "{said}");
    assert!(
        page.contains("1 agree with the rules, 1 differ, 0 refused"),
        "{page}"
    );
    // A hand of another game is not evidence for this configuration.
    let (ok, said, page) = run("other", &[nutz, transcript("mississippi_stud")]);
    assert!(!ok, "{said}");
    assert!(page.contains(", 1 of another configuration"), "{page}");
}

/// `pitboss certify --record`: the server computes the report, records it in the log as the
/// caller's (`CertificationRecorded`, listed among the significant events with the page's
/// SHA-256) and signs a note over it; `pitboss verify-certificate` holds the page to the note with
/// the log's key, and refuses a page altered by one character, a note from another report, and
/// another key. The same seeds give the same page as the offline command.
#[tokio::test(flavor = "multi_thread")]
async fn a_recorded_certificate_is_in_the_log_and_an_altered_one_is_refused() {
    use pitboss::proto::audit_client::AuditClient;
    let dirs = tempfile::tempdir().unwrap();
    let (server, token) = server_and_token(dirs.path(), &[]);
    let address = server.address.clone();
    let recorded = dirs.path().join("recorded");
    let (ok, said) = certify(
        "nutz",
        &recorded,
        &[
            "--record",
            "--server",
            &address,
            "--token-file",
            token.to_str().unwrap(),
        ],
    );
    assert!(ok, "{said}");
    let page = std::fs::read(recorded.join("certificate.html")).unwrap();
    let hash = hex::encode(Sha256::digest(&page));
    assert!(said.contains(&format!("sha256 {hash}")), "{said}");
    assert!(std::fs::read(recorded.join("certificate.pdf"))
        .unwrap()
        .starts_with(b"%PDF-"));
    // The server's page is the offline command's, byte for byte (the same seeds).
    let offline = dirs.path().join("offline");
    let (ok, said) = certify("nutz", &offline, &["--no-pdf"]);
    assert!(ok, "{said}");
    assert_eq!(
        std::fs::read(offline.join("certificate.html")).unwrap(),
        page
    );

    // The log holds it: a significant event with the configuration and the page's hash.
    let mut audit = AuditClient::new(server.channel().await);
    let events = certifications(&mut audit).await;
    assert_eq!(events.len(), 1, "{events:?}");
    let id =
        pitboss_engine::config::GameConfig::default_for(pitboss_engine::game::GameId::Nutz).id();
    assert!(
        events[0].subject.contains(&id.to_string()),
        "{:?}",
        events[0]
    );
    assert!(events[0].after.contains(&hash) && events[0].after.contains("holds"));
    assert!(
        events[0].actors.iter().any(|a| a == "admin"),
        "{:?}",
        events[0]
    );

    // Held to its note with the log's key.
    let key = log_key(&mut audit).await;
    let verify = |dir: &std::path::Path, key: &str| {
        let out = std::process::Command::new(pitboss_testkit::binary())
            .arg("verify-certificate")
            .arg(dir)
            .args(["--key", key])
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr),
        )
    };
    let (ok, said) = verify(&recorded, &key);
    assert!(
        ok && said.contains(&format!("entry {}", events[0].sequence)),
        "{said}"
    );
    // The recorded entry as a tlog-proof in the note's tree: checked beside the note, and alone
    // (`verify-tlog-proof`, which names the entry's stream); the Python steps hold it too. A proof
    // of another entry (the note's entry one off) is refused.
    assert!(
        said.contains("certificate.tlog-proof: entry"),
        "the proof was checked: {said}"
    );
    let proof = recorded.join("certificate.tlog-proof");
    let alone = std::process::Command::new(pitboss_testkit::binary())
        .arg("verify-tlog-proof")
        .arg(&proof)
        .args(["--key", &key])
        .output()
        .unwrap();
    let told = String::from_utf8_lossy(&alone.stdout);
    assert!(
        alone.status.success() && told.contains("stream certifications/"),
        "{told}"
    );
    let log_vkey = pitboss_witness::note::Vkey {
        name: pitboss_ledger::checkpoint::Checkpoint::parse(
            &std::fs::read_to_string(recorded.join("certificate.note")).unwrap(),
        )
        .unwrap()
        .origin,
        kind: pitboss_witness::note::ED25519,
        key: ed25519_dalek::VerifyingKey::from_bytes(
            &hex::decode(&key).unwrap().try_into().unwrap(),
        )
        .unwrap(),
    };
    let python = std::process::Command::new(pitboss_testkit::python())
        .arg(pitboss_testkit::root().join("fixtures/reference/verify_tlog_proof.py"))
        .arg(&proof)
        .args(["--log", &log_vkey.to_string()])
        .output()
        .unwrap();
    assert!(
        python.status.success(),
        "{}",
        String::from_utf8_lossy(&python.stderr)
    );
    let moved = dirs.path().join("moved");
    std::fs::create_dir(&moved).unwrap();
    for file in ["certificate.html", "certificate.note"] {
        std::fs::copy(recorded.join(file), moved.join(file)).unwrap();
    }
    let text = std::fs::read_to_string(&proof).unwrap();
    let index = format!("\nindex {}\n", events[0].sequence);
    assert!(text.contains(&index), "{text}");
    std::fs::write(
        moved.join("certificate.tlog-proof"),
        text.replace(&index, &format!("\nindex {}\n", events[0].sequence - 1)),
    )
    .unwrap();
    let (ok, said) = verify(&moved, &key);
    assert!(!ok && said.contains("certificate.tlog-proof"), "{said}");
    // One character of the page altered: refused, the hashes named.
    let altered = dirs.path().join("altered");
    std::fs::create_dir(&altered).unwrap();
    let text = String::from_utf8(page.clone()).unwrap();
    std::fs::write(
        altered.join("certificate.html"),
        text.replacen("holds", "holdz", 1),
    )
    .unwrap();
    std::fs::copy(
        recorded.join("certificate.note"),
        altered.join("certificate.note"),
    )
    .unwrap();
    let (ok, said) = verify(&altered, &key);
    assert!(!ok && said.contains("the report was altered"), "{said}");
    // The note's own text altered (another hash put in its line): its signature fails.
    let note = std::fs::read_to_string(recorded.join("certificate.note")).unwrap();
    std::fs::write(altered.join("certificate.html"), &page).unwrap();
    std::fs::write(
        altered.join("certificate.note"),
        note.replace(&hash, &hex::encode([0u8; 32])),
    )
    .unwrap();
    let (ok, said) = verify(&altered, &key);
    assert!(!ok && said.contains("refused"), "{said}");
    // Another key.
    let other = hex::encode(
        ed25519_dalek::SigningKey::from_bytes(&[5; 32])
            .verifying_key()
            .as_bytes(),
    );
    let (ok, said) = verify(&recorded, &other);
    assert!(!ok, "{said}");
}

/// The configurations in play against the certifications the log holds (`pitboss configs`,
/// `ListConfigs`): on a new server the four defaults are uncertified and `--uncertified` exits 1;
/// a holding report recorded for Nutz's takes it off that list, with the entry, the page's hash,
/// the lab principal and the hands shown; a later report that fails (a vendor's transcript off by
/// one) puts it back, as the latest.
#[tokio::test(flavor = "multi_thread")]
async fn the_configurations_in_play_are_listed_against_their_certifications() {
    use pitboss::proto::operations_client::OperationsClient;
    let dirs = tempfile::tempdir().unwrap();
    let (server, token) = server_and_token(dirs.path(), &[]);
    let nutz = pitboss_engine::config::GameConfig::default_for(pitboss_engine::game::GameId::Nutz)
        .id()
        .to_string();
    let defaults: Vec<String> = ["mississippi_stud", "fortune_pai_gow", "caribbean_stud"]
        .iter()
        .map(|g| {
            pitboss_engine::config::GameConfig::default_for(g.parse().unwrap())
                .id()
                .to_string()
        })
        .collect();

    let (ok, said) = configs(&server.address, &token, &["--uncertified"]);
    assert!(!ok, "uncertified configurations fail the check:\n{said}");
    for id in defaults.iter().chain([&nutz]) {
        assert!(
            said.lines()
                .any(|l| l.starts_with(id.as_str()) && l.ends_with("not certified")),
            "{id}:\n{said}"
        );
    }
    assert!(said.contains("4 configuration(s) in play without a holding certification"));

    // A holding report for Nutz's default.
    record_nutz(&server.address, &token, &dirs.path().join("holds"), false);
    let page = std::fs::read(dirs.path().join("holds/certificate.html")).unwrap();
    let hash = hex::encode(Sha256::digest(&page));
    let mut audit = pitboss::proto::audit_client::AuditClient::new(server.channel().await);
    let recorded = certifications(&mut audit).await;
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    let mut ops = OperationsClient::new(server.channel().await);
    let listed = |ops: &mut OperationsClient<_>| {
        let mut ops = ops.clone();
        async move {
            ops.list_configs(pitboss::proto::ListConfigsRequest {
                game: pitboss::proto::Game::Nutz as i32,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner()
            .configs
        }
    };
    let shown = listed(&mut ops).await;
    assert_eq!(shown.len(), 1);
    assert_eq!(shown[0].config_id, nutz);
    let status = shown[0].certification.clone().expect("a certification");
    assert_eq!(
        (
            status.sequence,
            status.holds,
            status.report_sha256.as_str(),
            status.recorded_by.as_str(),
            status.hands,
            status.reports
        ),
        (
            recorded[0].sequence,
            true,
            hash.as_str(),
            "admin",
            20_000,
            1
        )
    );
    let (ok, said) = configs(&server.address, &token, &["--uncertified"]);
    assert!(!ok && !said.contains(&nutz), "{said}");
    assert!(said.contains("3 configuration(s) in play without a holding certification"));
    let (ok, said) = configs(
        &server.address,
        &token,
        &["--uncertified", "--game", "nutz"],
    );
    assert!(ok, "{said}");
    let (ok, said) = configs(&server.address, &token, &["--game", "nutz"]);
    assert!(
        ok && said.contains(&format!("{nutz}  nutz"))
            && said.contains(&format!(
                "certification holds (entry {}",
                recorded[0].sequence
            ))
            && said.contains(&hash),
        "{said}"
    );

    // A later report that fails replaces it.
    record_nutz(&server.address, &token, &dirs.path().join("fails"), true);
    let recorded = certifications(&mut audit).await;
    assert_eq!(recorded.len(), 2, "{recorded:?}");
    let status = listed(&mut ops).await[0]
        .certification
        .clone()
        .expect("a certification");
    assert_eq!(
        (status.sequence, status.holds, status.reports),
        (recorded[1].sequence, false, 2)
    );
    let (ok, said) = configs(
        &server.address,
        &token,
        &["--uncertified", "--game", "nutz"],
    );
    assert!(
        !ok && said.contains(&nutz) && said.contains("certification FAILS"),
        "{said}"
    );
}

/// A server that requires certification (`--require-certification true`) opens no hand under a
/// configuration whose latest report does not hold — none recorded, or the latest fails: each
/// `OpenHand` and `PlayHand` is refused `FAILED_PRECONDITION` (`CONFIGURATION_NOT_CERTIFIED`,
/// `config_id`), naming the configuration (and the failing report's entry), and writes nothing;
/// once a holding report is recorded, hands open under it (and only under it).
#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_requires_certification_opens_hands_only_under_certified_ones() {
    use pitboss::proto::audit_client::AuditClient;
    use pitboss::proto::play_client::PlayClient;
    let dirs = tempfile::tempdir().unwrap();
    let (server, token) = server_and_token(dirs.path(), &["--require-certification", "true"]);
    let mut play = PlayClient::new(server.channel().await);
    let mut audit = AuditClient::new(server.channel().await);
    let nutz_id =
        pitboss_engine::config::GameConfig::default_for(pitboss_engine::game::GameId::Nutz)
            .id()
            .to_string();
    let open = |game: pitboss::proto::Game, bet: &str| pitboss::proto::OpenHandRequest {
        game: game as i32,
        table: "T1".into(),
        player: "P1".into(),
        wagers: vec![pitboss::proto::Wager {
            bet: bet.into(),
            amount: 500,
        }],
        ..Default::default()
    };
    let nutz = || open(pitboss::proto::Game::Nutz, "box_one_pair");
    let size = |audit: &mut Audit| {
        let mut audit = audit.clone();
        async move {
            audit
                .get_checkpoint(pitboss::proto::GetCheckpointRequest::default())
                .await
                .unwrap()
                .into_inner()
                .tree_size
        }
    };
    // Refused, naming the configuration and why, and nothing written.
    let refused_as = |status: tonic::Status, why: &str| {
        assert_eq!(status.code(), tonic::Code::FailedPrecondition, "{status:?}");
        let names = pitboss_testkit::refusal::names(&status);
        assert!(
            names.contains(&"CONFIGURATION_NOT_CERTIFIED".to_string())
                && names.contains(&"config_id".to_string()),
            "{names:?}"
        );
        assert!(
            status.message().contains(&nutz_id) && status.message().contains(why),
            "{status:?}"
        );
    };
    let before = size(&mut audit).await;
    refused_as(
        play.open_hand(nutz()).await.unwrap_err(),
        "holds no certification report",
    );
    refused_as(
        play.play_hand(pitboss::proto::PlayHandRequest {
            open: Some(nutz()),
            decisions: Vec::new(),
            follow_advice: true,
        })
        .await
        .unwrap_err(),
        "holds no certification report",
    );
    assert_eq!(
        size(&mut audit).await,
        before,
        "a refused opening writes nothing"
    );

    // A holding report: Nutz hands open; the others' configurations are still refused.
    record_nutz(&server.address, &token, &dirs.path().join("holds"), false);
    let opened = play.open_hand(nutz()).await.unwrap().into_inner();
    assert!(opened.hand.is_some_and(|h| h.config_id == nutz_id));
    let other = play
        .open_hand(open(pitboss::proto::Game::MississippiStud, "ante"))
        .await
        .unwrap_err();
    assert_eq!(other.code(), tonic::Code::FailedPrecondition, "{other:?}");
    assert!(
        pitboss_testkit::refusal::names(&other).contains(&"CONFIGURATION_NOT_CERTIFIED".into()),
        "{other:?}"
    );

    // A later report that fails: refused again, naming its entry.
    record_nutz(&server.address, &token, &dirs.path().join("fails"), true);
    let recorded = certifications(&mut audit).await;
    assert_eq!(recorded.len(), 2, "{recorded:?}");
    refused_as(
        play.open_hand(nutz()).await.unwrap_err(),
        &format!(
            "latest certification report (entry {}) fails",
            recorded[1].sequence
        ),
    );
}
