//! `pitboss certify`: a certification report for each game's default configuration, computed from
//! the engine alone, rendered as one HTML page and printed by Chromium to PDF. Every exact figure
//! lies inside its simultaneous 99 % interval and the battery holds, so each certificate holds; the
//! printed SHA-256 is the page's; the same seeds give the same page, byte for byte; and the
//! vendor's transcripts, with an error planted, fail the certificate.

use sha2::{Digest, Sha256};

fn certify(game: &str, out: &std::path::Path, extra: &[&str]) -> (bool, String) {
    let run = std::process::Command::new(pitboss_testkit::binary())
        .args([
            "certify",
            game,
            "--hands",
            "20000",
            "--sequences",
            "4",
            "--bits",
            "65536",
        ])
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    let said =
        String::from_utf8_lossy(&run.stdout).into_owned() + &String::from_utf8_lossy(&run.stderr);
    (run.status.success(), said)
}

#[test]
fn each_default_configuration_is_certified_as_html_and_pdf() {
    let dirs = tempfile::tempdir().unwrap();
    for game in [
        "nutz",
        "mississippi_stud",
        "caribbean_stud",
        "fortune_pai_gow",
    ] {
        let out = dirs.path().join(game);
        let (ok, said) = certify(game, &out, &[]);
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
        assert!(
            page.contains("inside") && !page.contains("OUTSIDE"),
            "{game}"
        );
        assert!(page.contains("pitboss rng-test --sequences 4 --bits 65536 --seed "));
        assert!(page.contains(&format!("pitboss simulate {game} --hands 20000 --seed ")));
        assert!(page.contains("Verdict: <strong>holds</strong>"), "{game}");
        let pdf = std::fs::read(out.join("certificate.pdf")).unwrap();
        assert!(
            pdf.starts_with(b"%PDF-") && pdf.len() > 10_000,
            "{game}: a PDF"
        );
    }
    // The same seeds, the same page, byte for byte; and the files are never overwritten.
    let again = dirs.path().join("again");
    let (ok, said) = certify("nutz", &again, &["--no-pdf"]);
    assert!(ok, "{said}");
    assert_eq!(
        std::fs::read(again.join("certificate.html")).unwrap(),
        std::fs::read(dirs.path().join("nutz/certificate.html")).unwrap()
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
    let read = |game: &str| -> serde_json::Value {
        let path = pitboss_testkit::root().join(format!("fixtures/transcripts/{game}.json"));
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
    };
    let nutz = read("nutz");
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
    let mut off = nutz.clone();
    let payouts = off
        .pointer_mut("/claimed/payouts")
        .and_then(|p| p.as_object_mut())
        .expect("the fixture claims its payouts");
    let (_, amount) = payouts.iter_mut().next().expect("a claimed payout");
    *amount = serde_json::json!(amount.as_u64().unwrap() + 1);
    let (ok, said, page) = run("off", &[nutz.clone(), off]);
    assert!(!ok && said.contains("the certificate FAILS"), "{said}");
    assert!(
        page.contains("1 agree with the rules, 1 differ, 0 refused"),
        "{page}"
    );
    // A hand of another game is not evidence for this configuration.
    let (ok, said, page) = run("other", &[nutz, read("mississippi_stud")]);
    assert!(!ok, "{said}");
    assert!(page.contains(", 1 of another configuration"), "{page}");
}
