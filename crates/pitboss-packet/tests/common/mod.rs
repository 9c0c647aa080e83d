//! Genuine hands for the packet's tests: a scripted hand of `fixtures/hands/*.json` (its seed, its
//! wagers, its decisions and voids) played through the engine's own `Hand::decide`/`evolve`, so that
//! every event, settlement and void on the page is one the engine really produces. The log's checks
//! (signatures, checkpoint) are facts the server supplies; here they are filled in as all good,
//! and a test that wants a failure changes them.
//!
//! Also a small well-formedness check of the page's markup.

#![allow(dead_code)]

use std::path::PathBuf;

use pitboss_engine::games::{Event, Status};
use pitboss_packet::{CheckpointFacts, Packet, PacketEvent, Verdict};
use serde_json::Value;

/// The hand id every test packet uses.
pub const HAND_ID: &str = "0123456789abcdef0123456789abcdef";
/// The checkpoint key every test packet names.
pub const PUBLIC_KEY: &str = "5a3b2f9e4c1d8a7b6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d";

pub use fixture_hands::{Played, Script};
use pitboss_testkit::fixture_hands;

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/hands")
        .join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).expect("fixture JSON")
}

/// Plays fixture `name` as `script` changes it, skipping the steps the fixture expects refused.
pub fn play(name: &str, script: &Script) -> Played {
    fixture_hands::play(&fixture(name), name, script)
}

/// When an event is dated, if it carries a time.
fn time_of(event: &Event) -> Option<u64> {
    match event {
        Event::Opened(opened) => Some(opened.at.0),
        Event::Acted { at, .. } | Event::DiceShaken { at, .. } => Some(at.0),
        Event::Voided(void) => Some(void.order.at.0),
        Event::Completed(completion) => Some(completion.order.at.0),
        _ => None,
    }
}

/// The first entry's sequence number in the test log.
pub const FIRST_SEQUENCE: u64 = 1_000;

/// The packet the server would build for a played hand whose every check is good.
pub fn packet_of(played: &Played) -> Packet {
    let hand = &played.hand;
    let opened = hand.opened().expect("opened");
    let mut at = opened.at.0;
    let events: Vec<PacketEvent> = played
        .events
        .iter()
        .enumerate()
        .map(|(i, event)| {
            at = time_of(event).unwrap_or(at);
            let position = i as u64;
            PacketEvent {
                sequence: FIRST_SEQUENCE + position,
                stream_position: position,
                recorded_at_ms: at,
                actor: if matches!(event, Event::Voided(_) | Event::Completed(_)) {
                    "operator-7".into()
                } else {
                    "player:P1".into()
                },
                key_id: "key-1".into(),
                hash_hex: format!("{:064x}", 0xabc0_u64 + position),
                event: event.clone(),
                in_checkpoint: true,
                signature_ok: true,
                rederived: true,
                note: String::new(),
            }
        })
        .collect();
    let status = match hand.status() {
        Status::InProgress | Status::Pending => "in_progress",
        Status::Settled => "settled",
        Status::Voided => "voided",
    };
    let closed_at_ms = (hand.status() != Status::InProgress).then_some(at);
    let tree_size = FIRST_SEQUENCE + events.len() as u64 + 20;
    Packet {
        hand_id: HAND_ID.into(),
        game: hand.game(),
        table: opened.table.clone(),
        player: opened.player.clone(),
        opened_at_ms: opened.at.0,
        closed_at_ms,
        status: status.into(),
        config_id: hand.config_id().to_string(),
        config: played.config.clone(),
        events,
        verdict: Verdict {
            consistent: true,
            commitment_ok: true,
            seed_revealed: hand.revealed_seed().is_some(),
            refunds_equal_stakes: hand.void().is_some_and(|v| v.paid_now == v.total_staked),
            mismatches: Vec::new(),
            report: vec![
                "the seed opens the commitment".into(),
                "every event re-derived from the seed".into(),
            ],
            problems: Vec::new(),
            settlement: hand.settlement().cloned(),
            void: hand.void().cloned(),
            completion: hand.completion().cloned(),
            checkpoint: CheckpointFacts {
                origin: "pitboss.test/log".into(),
                tree_size,
                root_hex: "ab".repeat(32),
                note: format!(
                    "pitboss.test/log\n{tree_size}\nq83vEjRWeJA=\n\n— pitboss.test/log sig"
                ),
                key_id: "checkpoint-key".into(),
                public_key_hex: PUBLIC_KEY.into(),
            },
            bundle_file: format!("hand-{HAND_ID}.bundle.json"),
        },
    }
}

/// The fixture played unchanged, as a packet.
pub fn packet(name: &str) -> Packet {
    packet_of(&play(name, &Script::default()))
}

/// The text of the element carrying `data-field="field"`, if any.
pub fn field<'a>(page: &'a str, field: &str) -> Option<&'a str> {
    let marker = format!("data-field=\"{field}\"");
    let start = page.find(&marker)?;
    let open_end = start + page[start..].find('>')? + 1;
    let close = open_end + page[open_end..].find('<')?;
    Some(&page[open_end..close])
}

/// The `<tr …>` element (start tag to `</tr>`) whose start tag holds `attribute`.
pub fn row<'a>(page: &'a str, attribute: &str) -> Option<&'a str> {
    let mut from = 0;
    while let Some(found) = page[from..].find("<tr") {
        let start = from + found;
        let tag_end = start + page[start..].find('>')?;
        let end = start + page[start..].find("</tr>")? + "</tr>".len();
        if page[start..tag_end].contains(attribute) {
            return Some(&page[start..end]);
        }
        from = end;
    }
    None
}

/// The region of the page from the element holding `marker` to the end of its `</section>`.
pub fn section<'a>(page: &'a str, id: &str) -> Option<&'a str> {
    let start = page.find(&format!("<section id=\"{id}\">"))?;
    let end = start + page[start..].find("</section>")?;
    Some(&page[start..end])
}

/// Elements that have no end tag in HTML.
const VOID_ELEMENTS: [&str; 5] = ["meta", "br", "hr", "img", "col"];

/// Checks that every element is closed, in order: a stack of start tags, popped by end tags and
/// by `/>`. Returns the first problem.
pub fn well_formed(page: &str) -> Result<(), String> {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = page;
    while let Some(lt) = rest.find('<') {
        rest = &rest[lt + 1..];
        let Some(gt) = rest.find('>') else {
            return Err("a tag is not closed by `>`".into());
        };
        let tag = &rest[..gt];
        rest = &rest[gt + 1..];
        if tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            let name = name.trim();
            match stack.pop() {
                Some(open) if open == name => {}
                other => return Err(format!("</{name}> closes {other:?}")),
            }
            continue;
        }
        let name: String = tag
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if name.is_empty() {
            return Err(format!("a `<` that starts no tag: <{tag}>"));
        }
        if tag.ends_with('/') || VOID_ELEMENTS.contains(&name.as_str()) {
            continue;
        }
        if name == "style" {
            // Its content is CSS, with no `<` in it; skip to its end tag.
            let Some(end) = rest.find("</style>") else {
                return Err("<style> not closed".into());
            };
            rest = &rest[end + "</style>".len()..];
            continue;
        }
        stack.push(name);
    }
    if stack.is_empty() {
        Ok(())
    } else {
        Err(format!("left open: {stack:?}"))
    }
}

/// What no page may ever hold: anything that fetches, or runs.
pub fn assert_self_contained(page: &str) {
    let lower = page.to_ascii_lowercase();
    for forbidden in [
        "http://",
        "https://",
        "<script",
        "@import",
        "url(",
        "javascript:",
    ] {
        assert!(!lower.contains(forbidden), "the page holds `{forbidden}`");
    }
    assert!(lower.contains("<meta charset=\"utf-8\">"));
    // The policy that lets a browser apply the inline style and load or run nothing else.
    assert!(page.contains(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">",
        pitboss_packet::CONTENT_SECURITY_POLICY
    )));
    assert_eq!(
        pitboss_packet::CONTENT_SECURITY_POLICY,
        "default-src 'none'; style-src 'unsafe-inline'"
    );
    assert!(lower.contains("<html lang=\"en\">"));
    well_formed(page).unwrap();
}
