//! Fuzzing: a mutation fuzzer of our own, run by CI briefly and by hand at
//! length, over five targets — protobuf bytes into every RPC handler in-process (`rpc.rs`), and
//! transcript JSON, configuration JSON, bundle JSON and stored entry bytes (`documents.rs`). Every
//! target asserts no panic, and the oracles its module names (refused input writes nothing; what a
//! check accepts is sound).
//!
//! Each target runs `PITBOSS_FUZZ_INPUTS` inputs (CI: the default below, a few seconds each) from
//! the generator seed `PITBOSS_FUZZ_SEED` (default: fixed, so CI is reproducible); a failure names
//! the input's bytes. The long run recorded in `docs/security.md`:
//!
//! ```text
//! PITBOSS_FUZZ_INPUTS=1000000 PITBOSS_FUZZ_SEED=$RANDOM cargo test --release --test fuzz -- --nocapture --test-threads 1
//! ```

mod documents;
mod mutate;
mod rpc;

use std::time::Instant;

use pitboss::proto;
use pitboss::proto::audit_server::Audit;
use pitboss::proto::play_server::Play;
use pitboss_engine::config::GameConfig;
use pitboss_engine::game::GameId;
use serde_json::Value;

/// A request as the transport hands it to a handler: with its authenticated principal (here one
/// with every role, reaching every table).
fn as_admin<T>(message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request
        .extensions_mut()
        .insert(pitboss::access::Caller(std::sync::Arc::new(
            pitboss::access::Principal {
                id: "admin".into(),
                token_sha256: None,
                certificate_subject: None,
                roles: pitboss::access::Role::ALL.into_iter().collect(),
                tables: None,
                games: None,
            },
        )));
    request
}

/// What a target's inputs came to.
#[derive(Debug, Default)]
pub struct Tally {
    pub accepted: u64,
    pub refused: u64,
    /// Reads dropped after their moment (the `rpc` target only).
    pub cut_off: u64,
}

fn inputs(ci_default: u64) -> u64 {
    std::env::var("PITBOSS_FUZZ_INPUTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(ci_default)
}

fn generator(target: &str) -> mutate::Gen {
    let seed: u64 = std::env::var("PITBOSS_FUZZ_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20_261_123);
    // Each target its own sequence from the one seed.
    let salt = target
        .bytes()
        .fold(0u64, |h, b| h.wrapping_mul(31) ^ u64::from(b));
    mutate::Gen::new(seed ^ salt)
}

/// Runs `n` inputs through `one`, prints the tally (the numbers `docs/security.md` records) and
/// checks that both refusals and acceptances were reached (a fuzzer that only ever hits one side
/// tests little).
fn run(
    target: &str,
    n: u64,
    expect_accepted: bool,
    mut one: impl FnMut(&mut mutate::Gen, &mut Tally),
) -> Tally {
    let mut gen = generator(target);
    let mut tally = Tally::default();
    let started = Instant::now();
    for _ in 0..n {
        one(&mut gen, &mut tally);
    }
    report(target, n, &tally, started, expect_accepted);
    tally
}

fn report(target: &str, n: u64, tally: &Tally, started: Instant, expect_accepted: bool) {
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "fuzz {target}: {n} inputs in {seconds:.1} s ({:.0}/s): {} accepted, {} refused, {} cut off, 0 panics",
        n as f64 / seconds.max(1e-9),
        tally.accepted,
        tally.refused,
        tally.cut_off
    );
    assert_eq!(tally.accepted + tally.refused + tally.cut_off, n);
    assert!(
        tally.accepted > 0 || !expect_accepted,
        "{target}: no input was accepted"
    );
    assert!(tally.refused > 0, "{target}: no input was refused");
}

/// A runtime of two workers, as the server has on this machine.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

fn config_seeds() -> Vec<Value> {
    GameId::ALL
        .iter()
        .map(|&game| {
            serde_json::from_slice(&GameConfig::default_for(game).canonical_bytes())
                .expect("canonical JSON")
        })
        .collect()
}

#[test]
fn rpc_handlers() {
    let n = inputs(3_000);
    let runtime = runtime();
    runtime.block_on(async {
        let mut target = rpc::Target::new().await;
        let mut gen = generator("rpc");
        let mut tally = Tally::default();
        let started = Instant::now();
        for done in 1..=n {
            target.run_one(&mut gen, &mut tally).await;
            // A long run says how far it has come (and what it found so far) as it goes.
            if done % 50_000 == 0 && done < n {
                println!(
                    "fuzz rpc: {done} of {n} inputs after {:.0} s: {} accepted, {} refused, {} cut off, 0 panics",
                    started.elapsed().as_secs_f64(),
                    tally.accepted,
                    tally.refused,
                    tally.cut_off
                );
            }
        }
        report("rpc", n, &tally, started, true);
        // Whatever was accepted, the log still verifies from its first entry.
        let verified = target.floor.log().verify_range(0, None);
        assert!(
            verified.ok(),
            "the log verifies after the fuzzing: {:?}",
            verified.problem
        );
    });
}

#[test]
fn transcripts() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/transcripts");
    let seeds: Vec<Value> = std::fs::read_dir(dir)
        .expect("the transcript examples")
        .map(|f| {
            let text = std::fs::read_to_string(f.expect("a file").path()).expect("read");
            serde_json::from_str(&text).expect("an example is JSON")
        })
        .collect();
    assert_eq!(seeds.len(), 4, "one example per game");
    run("transcript", inputs(20_000), true, |gen, tally| {
        documents::transcript(gen, &seeds, tally)
    });
}

#[test]
fn configurations() {
    let seeds = config_seeds();
    run("config", inputs(20_000), true, |gen, tally| {
        documents::config(gen, &seeds, tally)
    });
}

/// A real ledger with a settled hand of each game: its bundle and its stored entries are the seeds.
fn recorded() -> (documents::BundleSeed, Vec<Vec<u8>>) {
    let runtime = runtime();
    runtime.block_on(async {
        let target = rpc::Target::new().await;
        let stop = pitboss::service::work::Shutdown::default();
        let pool = |name| pitboss::service::work::Pool::new(name, 1, stop.clone());
        let play = pitboss::service::play::PlayService::new(
            target.floor.clone(),
            std::sync::Arc::new(pitboss::service::advice::Strategies::new(
                target.floor.clone(),
                pool("tables"),
            )),
        );
        let audit = pitboss::service::audit::AuditService::new(
            target.floor.clone(),
            pool("audit"),
            stop.clone(),
            None,
            None,
            None,
        );
        let mut hand = String::new();
        for (game, bet) in [
            (proto::Game::Nutz, "box_one_pair"),
            (proto::Game::FortunePaiGow, "main"),
            (proto::Game::CaribbeanStud, "ante"),
            (proto::Game::MississippiStud, "ante"),
        ] {
            let request = proto::PlayHandRequest {
                open: Some(proto::OpenHandRequest {
                    game: game as i32,
                    table: "T".into(),
                    player: "P".into(),
                    wagers: vec![proto::Wager {
                        bet: bet.into(),
                        amount: 500,
                    }],
                    ..Default::default()
                }),
                decisions: Vec::new(),
                follow_advice: true,
            };
            let view = play
                .play_hand(as_admin(request))
                .await
                .expect("a hand")
                .into_inner()
                .hand
                .expect("a view");
            hand = view.hand_id;
        }
        let json = audit
            .get_hand_bundle(as_admin(proto::GetHandBundleRequest { hand_id: hand }))
            .await
            .expect("a bundle")
            .into_inner()
            .bundle_json;
        let bundle: pitboss::audit::bundle::Bundle = serde_json::from_str(&json).expect("JSON");
        let floor = target.floor.clone();
        let (_, key) = tokio::task::spawn_blocking(move || floor.log().checkpoint(None))
            .await
            .expect("joined")
            .expect("a checkpoint");
        assert!(pitboss::audit::bundle::verify(&bundle, &key, None).ok());
        let floor = &target.floor;
        let size = floor.log().tree_size().expect("size");
        let entries = (0..size)
            .map(|s| {
                floor
                    .log()
                    .entry(s)
                    .expect("read")
                    .expect("stored")
                    .encode()
            })
            .collect();
        (documents::BundleSeed { bundle, key }, entries)
    })
}

#[test]
fn bundles_and_stored_entries() {
    let (seed, entries) = recorded();
    assert!(entries.len() > 20, "a key, configurations and four hands");
    // A mutated bundle that still verifies is rare (and must be the genuine one): not expected.
    run("bundle", inputs(20_000), false, |gen, tally| {
        documents::bundle(gen, &seed, tally)
    });
    run("entry", inputs(20_000), true, |gen, tally| {
        documents::entry(gen, &entries, tally)
    });
}
