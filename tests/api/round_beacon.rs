//! Rounds whose deal seed the operator cannot steer (`docs/rng.md` §1a; issue 40), over gRPC: the
//! players' seeds sent with their bets and a beacon round named when the round opens, fetched by
//! the server from a local source (drand's HTTP API on loopback, a chain signed with the tests'
//! own key), verified, and mixed into the deal. The cards dealt are re-derived here from what the
//! round shows (the revealed server seed, the players' seeds' digests, the beacon round): the
//! mixed seed's, not the server seed's alone. A beacon with a bad signature is refused before any
//! card is dealt and the configured late rule applies (dealt without it, or void and refunded),
//! listed among the significant events; a player's seed over its bound, or where the
//! configuration takes none, is refused naming it and writes nothing.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::support::{clients, head, round_command as command, round_decision as decide, wager};
use pitboss::proto;
use pitboss::proto::round_command_request::Command;
use pitboss_engine::card::Card;
use pitboss_engine::config::{BeaconRule, GameConfig, LateBeacon, SeedSources};
use pitboss_engine::deal;
use pitboss_engine::game::GameId;
use pitboss_engine::mix::{self, BeaconValue, Sources};
use pitboss_engine::rng::Seed;
use pitboss_testkit::beacon::{BeaconSource, Signer};
use pitboss_testkit::clients::Clients;
use pitboss_testkit::refusal;
use pitboss_testkit::server::Server;
use tonic::Code;

const PERIOD_S: u64 = 1;

fn now_s() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A Caribbean Stud configuration whose rounds mix the players' seeds and `signer`'s chain's
/// rounds, late beacons met by `late`.
fn mixed_config(name: &str, signer: &Signer, genesis_s: u64, late: LateBeacon) -> GameConfig {
    let chain = signer.chain(PERIOD_S, genesis_s);
    let mut config = GameConfig::default_for(GameId::CaribbeanStud);
    config.name = name.into();
    config.seed_sources = SeedSources {
        players: true,
        beacon: Some(BeaconRule {
            chain_hash: hex::encode(chain.hash),
            public_key: hex::encode(chain.public_key),
            genesis_time: genesis_s,
            period: PERIOD_S as u32,
            betting_ms: 1_000,
            wait_ms: 5_000,
            late,
        }),
    };
    config
}

async fn open(c: &mut Clients, config_id: &str, table: &str) -> String {
    c.play
        .open_round(proto::OpenRoundRequest {
            game: proto::Game::CaribbeanStud as i32,
            config_id: config_id.into(),
            table: table.into(),
            dealer: "dealer-b".into(),
            shape: "seats".into(),
            seats: 3,
            max_players: 3,
            decision_window_ms: 600_000,
            ..Default::default()
        })
        .await
        .expect("opened")
        .into_inner()
        .round
        .expect("a view")
        .round_id
}

fn bet(player: &str, seat: u32, player_seed: &[u8]) -> Command {
    Command::Bet(proto::RoundBetCommand {
        player: player.into(),
        seat,
        wagers: vec![wager("ante", 500)],
        player_seed: player_seed.to_vec(),
    })
}

async fn view(c: &mut Clients, round: &str) -> proto::RoundView {
    c.play
        .get_round(proto::GetRoundRequest {
            round_id: round.into(),
            ..Default::default()
        })
        .await
        .expect("the round")
        .into_inner()
        .round
        .expect("a view")
}

/// The round once it has left `awaiting_beacon` (the server's beacon task moves it on: waited for
/// by its phase, never by a time).
async fn past_the_beacon(c: &mut Clients, round: &str) -> proto::RoundView {
    let started = Instant::now();
    loop {
        let seen = view(c, round).await;
        if seen.phase != "awaiting_beacon" {
            return seen;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the round still awaits its beacon"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The deal seed re-derived from what the ended round shows, and each seat's cards by it.
fn rederived(seen: &proto::RoundView, beacon_chain: [u8; 32]) -> (Seed, Seed, Sources) {
    let server: [u8; 32] = hex::decode(&seen.seed).unwrap().try_into().unwrap();
    let server = Seed::from_bytes(server);
    let sources = seen.sources.as_ref().expect("the sources");
    let players: BTreeMap<u32, [u8; 32]> = seen
        .places
        .iter()
        .filter(|p| !p.seed_digest.is_empty())
        .map(|p| {
            (
                p.place,
                hex::decode(&p.seed_digest).unwrap().try_into().unwrap(),
            )
        })
        .collect();
    let beacon = (!sources.beacon_randomness.is_empty()).then(|| BeaconValue {
        chain: beacon_chain,
        round: sources.beacon.as_ref().unwrap().round,
        randomness: hex::decode(&sources.beacon_randomness)
            .unwrap()
            .try_into()
            .unwrap(),
    });
    let sources = Sources {
        players: Some(players),
        beacon,
    };
    (server, mix::deal_seed(&server, &sources), sources)
}

fn seat_cards(seen: &proto::RoundView, seat: u32) -> Vec<Card> {
    seen.places
        .iter()
        .find(|p| p.seat == seat)
        .expect("the seat")
        .cards
        .iter()
        .map(|c| c.parse().expect("a card shown at the showdown"))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_beacon_round_and_the_players_seeds_mix_the_deal_and_the_player_rederives_it() {
    let signer = Signer::from_seed([0xa1; 32]);
    let genesis_s = now_s() - 100;
    let source = BeaconSource::signed(Signer::from_seed([0xa1; 32]), PERIOD_S, genesis_s);
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process_beacon(data.path(), Some(&source.url));
    let mut c = clients(&server).await;
    let config = mixed_config("beacon-good", &signer, genesis_s, LateBeacon::Void);
    let config_id = server.publish(&config).await;
    let chain = signer.chain(PERIOD_S, genesis_s);

    // A one-player hand is dealt from the server's seed alone: refused under this configuration.
    let hand = c
        .play
        .open_hand(proto::OpenHandRequest {
            game: proto::Game::CaribbeanStud as i32,
            config_id: config_id.clone(),
            table: "T-beacon".into(),
            player: "ann".into(),
            wagers: vec![wager("ante", 500)],
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(hand.code(), Code::FailedPrecondition, "{hand:?}");
    assert!(
        hand.message().contains("seed_sources"),
        "{}",
        hand.message()
    );
    let round = open(&mut c, &config_id, "T-beacon").await;
    command(&mut c, &round, bet("ann", 1, b"ann's own seed"))
        .await
        .unwrap();
    // A seed over 64 bytes: refused naming it, nothing written.
    let before = head(&mut c).await;
    let long = command(&mut c, &round, bet("bob", 2, &[7; 65]))
        .await
        .unwrap_err();
    assert_eq!(long.code(), Code::InvalidArgument);
    assert_eq!(refusal::field(&long).as_deref(), Some("bet.player_seed"));
    assert_eq!(head(&mut c).await, before, "nothing written");
    command(&mut c, &round, bet("bob", 2, b"")).await.unwrap();
    command(&mut c, &round, bet("cy", 3, &[0xee; 64]))
        .await
        .unwrap();
    let closed = command(
        &mut c,
        &round,
        Command::CloseBetting(proto::RoundCloseBettingCommand::default()),
    )
    .await
    .unwrap();
    assert_eq!(
        closed.phase, "awaiting_beacon",
        "nothing dealt before the beacon"
    );
    assert!(closed
        .places
        .iter()
        .all(|p| p.cards.iter().all(String::is_empty)));
    let named = closed
        .sources
        .as_ref()
        .and_then(|s| s.beacon.clone())
        .expect("the beacon round named at the opening");
    assert!(named.round_at_ms > named.betting_closes_ms);
    assert_eq!(
        named.round_at_ms,
        (genesis_s + (named.round - 1) * PERIOD_S) * 1000,
        "the round's time by the chain"
    );

    let dealt = past_the_beacon(&mut c, &round).await;
    assert_eq!(dealt.phase, "playing");
    let sources = dealt.sources.as_ref().unwrap();
    assert_eq!(sources.kind, "players+beacon");
    assert_eq!(
        sources.beacon_signature,
        hex::encode(signer.sign(named.round)),
        "the source's round, as signed"
    );
    for (seat, player, action) in [(1, "ann", "raise"), (2, "bob", "fold"), (3, "cy", "raise")] {
        command(&mut c, &round, decide(player, seat, action))
            .await
            .unwrap();
    }
    let ended = view(&mut c, &round).await;
    assert_eq!(ended.phase, "ended");
    let (server_seed, mixed, used) = rederived(&ended, chain.hash);
    assert_eq!(
        used.players.as_ref().unwrap().len(),
        2,
        "ann's and cy's seeds"
    );
    let by_mixed = deal::derive_round(GameId::CaribbeanStud, &mixed, 3).unwrap();
    let by_server = deal::derive_round(GameId::CaribbeanStud, &server_seed, 3).unwrap();
    for seat in 1..=3u32 {
        assert_eq!(
            seat_cards(&ended, seat),
            by_mixed.seats[seat as usize - 1].cards,
            "seat {seat}: the mixed seed's cards"
        );
    }
    assert!(
        (1..=3u32).any(|s| seat_cards(&ended, s) != by_server.seats[s as usize - 1].cards),
        "the server's seed alone deals otherwise"
    );

    // The player checks their own deal outside pitboss: the dispute packet's deal inputs and
    // bundle, by the reference checker (py_ecc for the beacon), and refused with one input
    // altered, naming it.
    let packet = c
        .audit
        .get_round_dispute_packet(proto::GetRoundDisputePacketRequest {
            round_id: round.clone(),
            player: "ann".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(packet.verified);
    assert_eq!(packet.deal_file, format!("round-{round}.deal.json"));
    let dir = tempfile::tempdir().unwrap();
    let bundle_path = dir.path().join(&packet.bundle_file);
    std::fs::write(&bundle_path, &packet.bundle_json).unwrap();
    let deal: serde_json::Value = serde_json::from_str(&packet.deal_json).unwrap();
    // The log's public key, as the operator publishes it (not the bundle's copy).
    let log_key = hex::encode(
        c.audit
            .get_checkpoint(proto::GetCheckpointRequest::default())
            .await
            .unwrap()
            .into_inner()
            .public_key,
    );
    let check = |deal: &serde_json::Value, name: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, deal.to_string()).unwrap();
        let out = std::process::Command::new(pitboss_testkit::python())
            .arg(pitboss_testkit::root().join("fixtures/reference/verify_deal.py"))
            .arg(&path)
            .arg("--bundle")
            .arg(&bundle_path)
            .arg("--key")
            .arg(&log_key)
            .arg("--seed")
            .arg(format!("0:{}", hex::encode(b"ann's own seed")))
            .output()
            .expect("the reference checker runs");
        (
            out.status.success(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
        )
    };
    let (ok, said) = check(&deal, "as-given.json");
    assert!(ok, "{said}");
    assert!(said.contains(&hex::encode(mixed.as_bytes())), "{said}");
    let flip = |hex_text: &str| {
        let mut bytes = hex::decode(hex_text).unwrap();
        bytes[0] ^= 1;
        hex::encode(bytes)
    };
    let mut altered = deal.clone();
    altered["beacon"]["signature"] = flip(deal["beacon"]["signature"].as_str().unwrap()).into();
    let mut other_seed = deal.clone();
    other_seed["server_seed"] = flip(deal["server_seed"].as_str().unwrap()).into();
    let mut other_digest = deal.clone();
    other_digest["players"][1]["digest"] =
        flip(deal["players"][1]["digest"].as_str().unwrap()).into();
    for (altered, names) in [
        (altered, "beacon.signature"),
        (other_seed, "server_seed"),
        (other_digest, "players[place 2].digest"),
    ] {
        let (ok, said) = check(&altered, "altered.json");
        assert!(!ok, "{names} altered, yet: {said}");
        assert!(said.contains(&format!("{names}: ")), "{names}: {said}");
    }

    // Under a configuration without sources, a player's seed is refused naming it.
    let plain = c
        .play
        .open_round(proto::OpenRoundRequest {
            game: proto::Game::CaribbeanStud as i32,
            table: "T-plain".into(),
            dealer: "dealer-b".into(),
            shape: "seats".into(),
            seats: 2,
            max_players: 2,
            decision_window_ms: 600_000,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .round
        .unwrap();
    assert_eq!(plain.sources.as_ref().unwrap().kind, "off");
    let before = head(&mut c).await;
    let refused = command(&mut c, &plain.round_id, bet("ann", 1, b"seed"))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition);
    let names = refusal::names(&refused);
    assert!(
        names.iter().any(|n| n == "PLAYER_SEED_NOT_TAKEN"),
        "{names:?}"
    );
    assert_eq!(head(&mut c).await, before, "nothing written");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_beacon_with_a_bad_signature_is_refused_before_the_deal_and_the_late_rule_applies() {
    // The configurations name chain B (its key); the source serves chain A's signatures.
    let genesis_s = now_s() - 100;
    let source = BeaconSource::signed(Signer::from_seed([0xa1; 32]), PERIOD_S, genesis_s);
    let named_key = Signer::from_seed([0xb2; 32]);
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process_beacon(data.path(), Some(&source.url));
    let mut c = clients(&server).await;
    for late in [LateBeacon::Void, LateBeacon::DealWithout] {
        let config = mixed_config(
            &format!("beacon-bad-{}", late.name()),
            &named_key,
            genesis_s,
            late,
        );
        let config_id = server.publish(&config).await;
        let round = open(&mut c, &config_id, &format!("T-{}", late.name())).await;
        command(&mut c, &round, bet("ann", 1, b"ann's seed"))
            .await
            .unwrap();
        command(&mut c, &round, bet("bob", 2, b"")).await.unwrap();
        command(
            &mut c,
            &round,
            Command::CloseBetting(proto::RoundCloseBettingCommand::default()),
        )
        .await
        .unwrap();
        let after = past_the_beacon(&mut c, &round).await;
        let sources = after.sources.clone().unwrap();
        assert_eq!(sources.beacon_late_rule, late.name());
        assert!(
            sources.beacon_late_why.contains("does not verify"),
            "{}",
            sources.beacon_late_why
        );
        assert!(sources.beacon_signature.is_empty(), "no beacon taken");
        match late {
            LateBeacon::Void => {
                assert_eq!(after.phase, "voided");
                for place in &after.places {
                    let void = place.void.as_ref().expect("every place voided");
                    assert_eq!(void.paid_now, void.total_staked, "refunded");
                    assert!(place.cards.iter().all(String::is_empty), "nothing dealt");
                }
            }
            LateBeacon::DealWithout => {
                assert_eq!(after.phase, "playing");
                for (seat, player) in [(1, "ann"), (2, "bob")] {
                    command(&mut c, &round, decide(player, seat, "fold"))
                        .await
                        .unwrap();
                }
                let ended = view(&mut c, &round).await;
                let (_, mixed, used) = rederived(&ended, [0; 32]);
                assert_eq!(used.beacon, None, "dealt without the beacon");
                let by_mixed = deal::derive_round(GameId::CaribbeanStud, &mixed, 3).unwrap();
                assert_eq!(seat_cards(&ended, 1), by_mixed.seats[0].cards);
            }
        }
    }
    let events = c
        .audit
        .list_significant_events(proto::ListSignificantEventsRequest {
            kinds: vec!["round_beacon_late".into()],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .events;
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(events.iter().all(|e| e.reason.contains("does not verify")));
}
