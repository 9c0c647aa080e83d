//! `pitboss house-way` through the real binary: text, JSON, standard input, and bad input.

use std::io::Write;
use std::process::{Command, Stdio};

fn run(args: &[&str], stdin: Option<&str>) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .arg("house-way")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut input = child.stdin.take().expect("stdin");
    input
        .write_all(stdin.unwrap_or("").as_bytes())
        .expect("write");
    drop(input);
    child.wait_with_output().expect("wait")
}

#[test]
fn prints_the_setting_and_the_rule() {
    let out = run(&["Kd Qh Jc Ts 9d JK 3c"], None);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("low   3c JK"), "{text}");
    assert!(text.contains("(straight)"), "{text}");
    assert!(text.contains("rule 10"), "{text}");
}

#[test]
fn json_one_object_per_line_from_stdin() {
    let out = run(
        &["-", "--json"],
        Some("As Ah Ad Ac JK Kd Kh\n\n8c 8d 8h 8s Kh 7d 3c\n"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["low"], serde_json::json!(["Kd", "Kh"]));
    assert_eq!(lines[0]["rule"], "five_aces_kings_low");
    assert_eq!(lines[0]["high_hand"], "five aces");
    assert_eq!(lines[1]["rule"], "quads_middle_split");
    assert_eq!(lines[1]["low"].as_array().unwrap().len(), 2);
}

#[test]
fn bad_hands_are_refused_naming_the_problem() {
    let out = run(&["Kd Qh Jc Ts 9d JK 3x"], None);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("`3x`"));
    let out = run(&["Kd Qh"], None);
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected 7 cards, got 2"));
    let out = run(&["-"], Some("Kd Qh Jc Ts 9d JK 3c\nKd Kd Jc Ts 9d JK 3c\n"));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("low   3c JK"));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("line 2: card `Kd` appears more than once")
    );
}
