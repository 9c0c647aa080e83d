//! Audit: a tampered event named by the server refusing to start and by `pitboss verify`, the
//! event stream (catch-up, then live), and the Merkle tree's checkpoints and proofs.

use crate::support::{clients, head, open, play_to_end, wager};
use pitboss::proto;
use pitboss_testkit::server::Server;
use tonic::Code;

#[tokio::test(flavor = "multi_thread")]
async fn a_tampered_event_is_named_by_the_server_refusing_and_by_verification() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let mut c = clients(&server).await;
    let hand = play_to_end(&mut c, proto::Game::CaribbeanStud, "T-3", "p").await;
    let events = c
        .audit
        .get_hand_events(proto::GetHandEventsRequest {
            hand_id: hand.hand_id.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .events;
    let target = events[3].sequence;
    let data_dir = server.kill();
    if let Some(url) = pitboss_testkit::server::store_url(&data_dir) {
        return tampered_row_is_named(&data_dir, &url, target).await;
    }
    {
        // Flip one byte of the stored entry through the raw RocksDB handle.
        let store = pitboss_ledger::tamper::Tamper::open(&data_dir).unwrap();
        let mut value = store.entry(target).unwrap().unwrap();
        let last = value.len() - 70; // inside the envelope, before the hash and signature
        value[last] ^= 0x20;
        store.put_entry(target, &value).unwrap();
    }
    // The server refuses to serve the altered log, naming the entry; so does verification.
    let refusal = Server::refuses(&data_dir);
    assert!(
        refusal.contains(&format!("entry {target}: altered bytes")),
        "{refusal}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(["verify", "--data"])
        .arg(&data_dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(&format!("FAILED at entry {target}: altered bytes")),
        "{stdout}"
    );
}

/// On PostgreSQL: one byte of the row changed with `psql`; a server still starts (it checks the
/// head, not the whole chain, at every start) and its VerifyLog names the entry, as does
/// `pitboss verify --store`.
async fn tampered_row_is_named(data_dir: &std::path::Path, url: &str, target: u64) {
    let out = std::process::Command::new("/usr/lib/postgresql/15/bin/psql")
        .arg(url)
        .args(["-v", "ON_ERROR_STOP=1", "-c"])
        .arg(format!(
            "UPDATE pitboss_entries SET stored = overlay(stored PLACING \
             set_byte(substring(stored FROM length(stored) - 69 FOR 1), 0, \
             get_byte(stored, length(stored) - 70) # 32) FROM length(stored) - 69 FOR 1) \
             WHERE sequence = {target}"
        ))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let server = Server::in_process(data_dir);
    let mut c = clients(&server).await;
    let report = c
        .audit
        .verify_log(proto::VerifyLogRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(!report.ok);
    assert_eq!(report.bad_sequence, Some(target), "{report:?}");
    assert!(report.problem.contains("altered bytes"), "{report:?}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(["verify", "--store", url])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(&format!("FAILED at entry {target}: altered bytes")),
        "{stdout}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn stream_events_catches_up_then_follows_live() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
    let (head_before, _) = head(&mut c).await;
    let head_before = head_before.unwrap();
    let mut stream = c
        .audit
        .stream_events(proto::StreamEventsRequest {
            from_sequence: 0,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    // Catch-up: everything recorded so far (the key and the default configurations), in order.
    for expected in 0..=head_before {
        let event = stream.message().await.unwrap().expect("an entry");
        assert_eq!(event.sequence, expected);
    }
    // Live: a hand played now arrives as it is recorded.
    let hand = play_to_end(&mut c, proto::Game::CaribbeanStud, "T-8", "p").await;
    let mut kinds = Vec::new();
    while kinds.len() < usize::try_from(hand.version).unwrap() {
        let event = tokio::time::timeout(std::time::Duration::from_secs(60), stream.message())
            .await
            .expect("live entries arrive")
            .unwrap()
            .expect("an entry");
        assert_eq!(event.sequence, head_before + 1 + kinds.len() as u64);
        kinds.push(event.payload.unwrap().kind.unwrap());
    }
    assert!(matches!(
        kinds.first(),
        Some(proto::payload::Kind::HandOpened(_))
    ));
    assert!(matches!(
        kinds.last(),
        Some(proto::payload::Kind::SeedRevealed(_))
    ));
}

/// The Merkle tree over gRPC: a checkpoint's root is what the inclusion proofs of its entries
/// lead to; sizes beyond the log are refused as OUT_OF_RANGE, naming the sizes.
#[tokio::test(flavor = "multi_thread")]
async fn checkpoints_and_proofs_over_grpc() {
    use pitboss_ledger::merkle::{leaf_hash, verify_inclusion};
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
    for _ in 0..3 {
        c.play
            .play_hand(proto::PlayHandRequest {
                open: Some(open(
                    proto::Game::Nutz,
                    "T-30",
                    "p30",
                    vec![wager("box_nutz", 100)],
                )),
                decisions: vec![],
                follow_advice: true,
            })
            .await
            .unwrap();
    }
    let checkpoint = c
        .audit
        .get_checkpoint(proto::GetCheckpointRequest::default())
        .await
        .unwrap()
        .into_inner();
    let parsed = pitboss_ledger::checkpoint::Checkpoint::parse(&checkpoint.note).unwrap();
    let key =
        ed25519_dalek::VerifyingKey::from_bytes(&checkpoint.public_key.clone().try_into().unwrap())
            .unwrap();
    parsed.verify(&key).unwrap();
    assert_eq!(parsed.root.to_vec(), checkpoint.root_hash);
    for sequence in 0..checkpoint.tree_size {
        let p = c
            .audit
            .get_inclusion_proof(proto::GetInclusionProofRequest {
                sequence,
                tree_size: checkpoint.tree_size,
            })
            .await
            .unwrap()
            .into_inner();
        let hashes: Vec<[u8; 32]> = p
            .hashes
            .iter()
            .map(|h| h.clone().try_into().unwrap())
            .collect();
        let leaf = leaf_hash(&p.entry_hash.clone().try_into().unwrap());
        assert!(verify_inclusion(
            sequence,
            checkpoint.tree_size,
            &leaf,
            &hashes,
            &parsed.root
        ));
    }
    for (e, field) in [
        (
            c.audit
                .get_inclusion_proof(proto::GetInclusionProofRequest {
                    sequence: checkpoint.tree_size,
                    tree_size: checkpoint.tree_size,
                })
                .await
                .unwrap_err(),
            "sequence",
        ),
        (
            c.audit
                .get_checkpoint(proto::GetCheckpointRequest {
                    tree_size: checkpoint.tree_size + 100,
                })
                .await
                .unwrap_err(),
            "tree_size",
        ),
        (
            c.audit
                .get_consistency_proof(proto::GetConsistencyProofRequest {
                    first_size: 5,
                    second_size: checkpoint.tree_size + 1,
                })
                .await
                .unwrap_err(),
            "second_size",
        ),
    ] {
        use tonic_types::StatusExt;
        assert_eq!(e.code(), Code::OutOfRange, "{e:?}");
        let violation = &e
            .get_details_bad_request()
            .expect("a BadRequest")
            .field_violations[0];
        assert_eq!(violation.field, field, "{e:?}");
        assert!(
            e.message().contains("beyond the log") || e.message().contains("not in a tree of"),
            "{}",
            e.message()
        );
    }
}

/// While hands are being recorded, every checkpoint answered states a log size at least its own
/// tree's: the two are read from the same place, the tree first.
#[tokio::test(flavor = "multi_thread")]
async fn a_checkpoint_is_never_ahead_of_the_log_size_it_states() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let c = clients(&server).await;
    let players: Vec<_> = (0..4)
        .map(|i| {
            let mut play = c.play.clone();
            tokio::spawn(async move {
                for _ in 0..40 {
                    play.play_hand(proto::PlayHandRequest {
                        open: Some(open(
                            proto::Game::Nutz,
                            &format!("T-4{i}"),
                            "p",
                            vec![wager("box_nutz", 100)],
                        )),
                        decisions: vec![],
                        follow_advice: true,
                    })
                    .await
                    .unwrap();
                }
            })
        })
        .collect();
    let mut audit = c.audit.clone();
    let mut last = 0;
    for _ in 0..300 {
        let answer = audit
            .get_checkpoint(proto::GetCheckpointRequest::default())
            .await
            .unwrap()
            .into_inner();
        assert!(answer.log_size >= answer.tree_size, "{answer:?}");
        assert!(answer.tree_size >= last, "{answer:?} after {last}");
        last = answer.tree_size;
    }
    for player in players {
        player.await.unwrap();
    }
}

/// `DeriveDeal` with `seats` derives a round's deal as the engine does (`deal::derive_round`):
/// the hand's one shuffle, each numbered seat's block, then the dealer's or community cards; a
/// number of seats the game does not deal is refused as `INVALID_ARGUMENT` naming `seats`.
#[tokio::test(flavor = "multi_thread")]
async fn derive_deal_deals_a_rounds_seats_from_one_shuffle() {
    use pitboss_engine::game::GameId;
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
    let seed: Vec<u8> = (100..132).collect();
    let engine_seed = pitboss_engine::rng::Seed::from_slice(&seed).unwrap();
    for game in GameId::ALL {
        let proto_game = pitboss::codec::game_to(game) as i32;
        let Some(most) = game.facts().max_seats else {
            let refused = c
                .audit
                .derive_deal(proto::DeriveDealRequest {
                    game: proto_game,
                    seed: seed.clone(),
                    seats: 2,
                })
                .await
                .expect_err("a dice game deals no seats");
            assert_eq!(refused.code(), Code::InvalidArgument);
            assert_eq!(
                pitboss_testkit::refusal::field(&refused).as_deref(),
                Some("seats")
            );
            continue;
        };
        for seats in [1, most] {
            let reply = c
                .audit
                .derive_deal(proto::DeriveDealRequest {
                    game: proto_game,
                    seed: seed.clone(),
                    seats: u32::from(seats),
                })
                .await
                .expect("a round's deal")
                .into_inner();
            let local = pitboss_engine::deal::derive_round(game, &engine_seed, seats).unwrap();
            let deck: Vec<String> = local.deck.iter().map(ToString::to_string).collect();
            assert_eq!(reply.deck, deck, "{game}");
            assert_eq!(reply.seats.len(), local.seats.len());
            for (got, want) in reply.seats.iter().zip(&local.seats) {
                assert_eq!(got.name, want.seat.id());
                assert_eq!(got.number, want.number.map_or(0, u32::from));
                let positions: Vec<u32> = want.positions.iter().map(|&p| p as u32).collect();
                assert_eq!(got.deck_positions, positions, "{game} {seats}");
                let cards: Vec<String> = want.cards.iter().map(ToString::to_string).collect();
                assert_eq!(got.cards, cards);
            }
        }
        for seats in [u32::from(most) + 1, 1_000] {
            let refused = c
                .audit
                .derive_deal(proto::DeriveDealRequest {
                    game: proto_game,
                    seed: seed.clone(),
                    seats,
                })
                .await
                .expect_err("more seats than the table");
            assert_eq!(refused.code(), Code::InvalidArgument, "{game} {seats}");
            assert_eq!(
                pitboss_testkit::refusal::field(&refused).as_deref(),
                Some("seats")
            );
        }
    }
    // Without seats, one player's hand, as before.
    let hand = c
        .audit
        .derive_deal(proto::DeriveDealRequest {
            game: proto::Game::CaribbeanStud as i32,
            seed: seed.clone(),
            seats: 0,
        })
        .await
        .unwrap()
        .into_inner();
    let names: Vec<(&str, u32)> = hand
        .seats
        .iter()
        .map(|s| (s.name.as_str(), s.number))
        .collect();
    assert_eq!(names, [("player", 0), ("dealer", 0)]);
}
