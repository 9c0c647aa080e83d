//! The RNG derivation against published ChaCha20 vectors, the committed test vectors in
//! `fixtures/rng-vectors.json`, and an independent Python implementation of `spec/RNG.md`.

use std::path::Path;
use std::process::Command;

use pitboss_engine::rng::Seed;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

fn words_le(hex_bytes: &str) -> Vec<u32> {
    let bytes = hex::decode(hex_bytes).expect("hex");
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// RFC 8439 appendix A.1, test vectors #1 and #2: the all-zero key and nonce, block counter 0 and
/// 1. With the 64-bit layout these are exactly words 0–31 of the all-zero seed's stream.
#[test]
fn zero_seed_stream_matches_rfc_8439_appendix_a1() {
    let mut stream = Seed::from_bytes([0; 32]).stream();
    let words: Vec<u32> = (0..32).map(|_| stream.next_word()).collect();
    let block0 = words_le(
        "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7\
         da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586",
    );
    let block1 = words_le(
        "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed\
         29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f",
    );
    assert_eq!(words[..16], block0[..]);
    assert_eq!(words[16..], block1[..]);
    assert_eq!(stream.words_consumed(), 32);
}

/// RFC 8439 §2.3.2, the block function vector (key 00..1f, nonce 00:00:00:09:00:00:00:4a:00:00:00:00,
/// counter 1), adapted to the 64-bit layout: state words 12–13 are the counter, 14–15 the nonce.
/// This pins how the ChaCha20 implementation we use lays out counter and nonce.
#[test]
fn block_function_matches_rfc_8439_section_2_3_2() {
    let key: [u8; 32] = std::array::from_fn(|i| i as u8);
    let mut chacha = ChaCha20Rng::from_seed(key);
    let counter: u128 = (0x0900_0000u128 << 32) | 1;
    chacha.set_stream(0x4a00_0000);
    chacha.set_word_pos(counter * 16);
    let words: Vec<u32> = (0..16).map(|_| chacha.next_u32()).collect();
    let expected = words_le(
        "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e\
         d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e",
    );
    assert_eq!(words, expected);
}

fn pitboss(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(args)
        .output()
        .expect("run pitboss")
}

#[test]
fn committed_vectors_are_what_the_code_derives() {
    let output = pitboss(&["rng-vectors"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/rng-vectors.json");
    let committed = std::fs::read_to_string(&path).expect("fixtures/rng-vectors.json");
    assert_eq!(
        String::from_utf8(output.stdout).expect("utf-8"),
        committed,
        "the derivation changed: every recorded hand would re-derive differently"
    );
}

#[test]
fn an_independent_python_implementation_derives_the_same_vectors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new("python3")
        .arg(root.join("fixtures/reference/rng_reference.py"))
        .arg(root.join("fixtures/rng-vectors.json"))
        .output()
        .expect("python3 is part of the test toolchain (see README)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("checked 3 seeds and 5 deal seeds: all match"),
        "{stdout}"
    );
}

#[test]
fn deal_prints_each_game_in_its_deal_order() {
    let seed = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    let commitment = Seed::from_hex(seed).unwrap().commitment().to_string();
    for (game, deck_len, seats) in [
        (
            "mississippi_stud",
            52,
            vec![("player", 2), ("community", 3)],
        ),
        ("fortune_pai_gow", 53, vec![("player", 7), ("dealer", 7)]),
        ("caribbean_stud", 52, vec![("player", 5), ("dealer", 5)]),
        ("nutz", 0, vec![]),
    ] {
        let output = pitboss(&["deal", "--game", game, "--seed", seed]);
        assert!(
            output.status.success(),
            "{game}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let json: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("one JSON object");
        assert_eq!(json["commitment"], commitment.as_str());
        if game == "nutz" {
            let dice = json["dice"].as_array().expect("dice");
            assert_eq!(dice.len(), 15);
            assert!(dice.iter().all(|d| (1..=6).contains(&d.as_u64().unwrap())));
            continue;
        }
        let deck: Vec<&str> = json["deck"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        assert_eq!(deck.len(), deck_len);
        let mut next = 0;
        for (seat, (name, count)) in json["seats"].as_array().unwrap().iter().zip(&seats) {
            assert_eq!(seat["seat"], *name);
            let cards: Vec<&str> = seat["cards"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap())
                .collect();
            assert_eq!(
                cards,
                deck[next..next + count],
                "{game} {name} takes the next cards of the deck"
            );
            next += count;
        }
    }
}

#[test]
fn deal_refuses_bad_input_naming_it() {
    let output = pitboss(&["deal", "--game", "poker", "--seed", &"00".repeat(32)]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown game `poker`"));
    let output = pitboss(&["deal", "--game", "nutz", "--seed", "abcd"]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("64 hexadecimal digits"));
}

/// `pitboss deal --seats N` prints a round's deal: the hand's one shuffle, each numbered seat's
/// block in seat order and then the dealer's or community cards, seat 1 holding what the hand's
/// player holds; a number of seats the game does not deal (none for Nutz, seven at Pai Gow, zero)
/// is refused, naming the range, and prints no deal.
#[test]
fn deal_prints_a_rounds_seats_from_one_shuffle() {
    let seed = "ab8dacfac1a36fb4a40646f751654cb339679ab1ed253c1643f15cad6b418ad0";
    let json = |args: &[&str]| -> serde_json::Value {
        let output = pitboss(args);
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).expect("one JSON object")
    };
    for (game, seats, per_player) in [
        ("caribbean_stud", 7, 5),
        ("fortune_pai_gow", 6, 7),
        ("mississippi_stud", 3, 2),
    ] {
        let hand = json(&["deal", "--game", game, "--seed", seed]);
        let round = json(&[
            "deal",
            "--game",
            game,
            "--seed",
            seed,
            "--seats",
            &seats.to_string(),
        ]);
        assert_eq!(round["deck"], hand["deck"], "{game}: one shuffle");
        assert_eq!(round["seats"], seats);
        let places = round["places"].as_array().unwrap();
        assert_eq!(
            places.len(),
            seats + 1,
            "{game}: the seats and the dealer's"
        );
        assert_eq!(
            places[0]["cards"], hand["seats"][0]["cards"],
            "{game}: seat 1"
        );
        let mut dealt = std::collections::BTreeSet::new();
        for (k, place) in places.iter().enumerate() {
            let positions: Vec<u64> = place["positions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_u64().unwrap())
                .collect();
            if k < seats {
                assert_eq!(place["seat"], "player");
                assert_eq!(place["number"], k + 1);
                let first = (k * per_player) as u64;
                assert_eq!(
                    positions,
                    (first..first + per_player as u64).collect::<Vec<_>>()
                );
            } else {
                assert_eq!(place["number"], serde_json::Value::Null);
                assert_eq!(
                    positions[0],
                    (seats * per_player) as u64,
                    "{game}: after the seats"
                );
            }
            for (position, card) in positions.iter().zip(place["cards"].as_array().unwrap()) {
                assert_eq!(round["deck"][*position as usize], *card);
                assert!(
                    dealt.insert(card.as_str().unwrap().to_string()),
                    "{card} twice"
                );
            }
        }
    }
    for (game, seats, named) in [
        ("nutz", "2", "deals no seats"),
        ("fortune_pai_gow", "7", "1 to 6 seats"),
        ("caribbean_stud", "0", "1 to 7 seats"),
    ] {
        let output = pitboss(&["deal", "--game", game, "--seed", seed, "--seats", seats]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{game} {seats}: dealt");
        assert!(output.stdout.is_empty(), "{game} {seats}: printed a deal");
        assert!(stderr.contains(named), "{game} {seats}: {stderr}");
    }
}

/// The reference re-derives every mixed deal seed from its recorded inputs (docs/rng.md §1a): one
/// player's seed altered, it names that input and the deal seed and deck that no longer follow.
#[test]
fn the_python_reference_refuses_a_deal_seed_with_an_altered_input() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("fixtures/rng-vectors.json")).expect("vectors");
    let mut vectors: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let both = vectors["deal_seeds"]
        .as_array_mut()
        .and_then(|cases| cases.iter_mut().find(|c| c["name"] == "both"))
        .expect("the case mixing both sources");
    both["player_seeds"][1]["seed"] = "00".into();
    let dir = tempfile::tempdir().expect("a directory");
    let altered = dir.path().join("altered.json");
    std::fs::write(&altered, vectors.to_string()).expect("written");
    let output = Command::new("python3")
        .arg(root.join("fixtures/reference/rng_reference.py"))
        .arg(&altered)
        .output()
        .expect("python3");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success(), "{stdout}");
    for named in [
        "deal seed both place 3 digest",
        "deal seed both: reference",
        "deal seed both mixed deck",
    ] {
        assert!(stdout.contains(named), "{named}: {stdout}");
    }
    assert!(!stdout.contains("deal seed players"), "{stdout}");
}
