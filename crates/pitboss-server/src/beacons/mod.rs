//! The beacon rounds that mix rounds' deal seeds (`docs/rng.md` §1a): for each round that awaits
//! its beacon round (the floor says which, [`pitboss_floor::floor::Floor::watch_beacons`]), one
//! task that waits for the round's time, fetches it from the configured source (`source.rs`),
//! verifies its BLS signature against the chain the round's configuration names, and hands it to
//! the round (`RoundCommand::Beacon`: the deal); or, once the wait is over without a round that
//! verifies, applies the configuration's late rule (`RoundCommand::BeaconLate`), saying why.
//!
//! A beacon round verified once is kept (at most [`VERIFIED_KEPT`]): every round that names it
//! shares its one fetch and its one pairing check. Owns no rule: which round is named, what a late
//! beacon does, and what the deal is are the engine's round's.

mod source;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

pub use source::{FetchError, HttpSource, FETCH_TIMEOUT};

use crate::floor::{Floor, RoundCall};
use pitboss_beacon::{Chain, Round as PublicRound};
use pitboss_engine::config::BeaconRule;
use pitboss_engine::mix::BeaconValue;
use pitboss_engine::round::{BeaconArrival, NamedBeacon, Phase, RoundCommand};

/// The most verified beacon rounds kept.
pub const VERIFIED_KEPT: usize = 4096;

/// How often a round awaiting its beacon looks again (for its time, or for the source).
pub const POLL: Duration = Duration::from_millis(500);

/// Who records a round's beacon and the late rule.
pub const BEACON_ACTOR: &str = "pitboss:beacon";

/// The rounds awaiting a beacon, and the beacon rounds verified.
pub struct Beacons {
    floor: Arc<Floor>,
    source: Option<HttpSource>,
    /// Rounds a task is driving now.
    driving: Mutex<HashSet<String>>,
    /// Verified rounds' signatures by chain, key and round.
    verified: Mutex<HashMap<BeaconRoundId, Vec<u8>>>,
}

/// A beacon round as verified: its chain's hash, the public key it was verified against (hex, as
/// the configuration names it: two configurations naming one chain with two keys share nothing),
/// and its number.
type BeaconRoundId = ([u8; 32], String, u64);

impl Beacons {
    /// Starts watching the floor's rounds for beacons from `source` (`None`: no source; every
    /// beacon is then late, and the late rule applies once its wait is over).
    pub fn start(floor: Arc<Floor>, source: Option<HttpSource>) -> Arc<Beacons> {
        let beacons = Arc::new(Beacons {
            floor: floor.clone(),
            source,
            driving: Mutex::new(HashSet::new()),
            verified: Mutex::new(HashMap::new()),
        });
        let weak = Arc::downgrade(&beacons);
        floor.watch_beacons(Arc::new(move |id: &str| {
            if let Some(beacons) = weak.upgrade() {
                beacons.watch(id);
            }
        }));
        beacons
    }

    /// Drives round `id` to its deal (or its late rule), unless a task already does.
    fn watch(self: &Arc<Self>, id: &str) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if !self
            .driving
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.to_string())
        {
            return;
        }
        let beacons = self.clone();
        let id = id.to_string();
        runtime.spawn(async move {
            beacons.drive(&id).await;
            beacons
                .driving
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&id);
        });
    }

    async fn drive(&self, id: &str) {
        let mut why = match self.source {
            Some(_) => "the source was not asked yet".to_string(),
            None => "no beacon source is configured".to_string(),
        };
        loop {
            let state = self.floor.with_round(id, |round| {
                (
                    round.phase(),
                    round.opened().and_then(|o| o.beacon),
                    round.config().seed_sources.beacon.clone(),
                )
            });
            let (phase, named, rule) = match state {
                Ok(state) => state,
                // A round the log does not hold: nothing to drive.
                Err(crate::floor::FloorError::NotFound { .. }) => return,
                // The log unreadable for now: try again.
                Err(e) => {
                    tracing::warn!(round = id, "reading a round awaiting its beacon: {e}");
                    tokio::time::sleep(POLL).await;
                    continue;
                }
            };
            let (Phase::AwaitingBeacon, Some(named), Some(rule)) = (phase, named, rule) else {
                return;
            };
            let now = self.floor.now();
            // Once the wait is over, the beacon is no longer asked for: the late rule applies.
            if now >= named.round_at.0 && now < named.awaited_until.0 {
                match self.beacon_of(&rule, &named).await {
                    Ok((value, signature)) => {
                        let arrival = |at| {
                            RoundCommand::Beacon(BeaconArrival {
                                value,
                                signature: signature.clone(),
                                at,
                            })
                        };
                        match self.step(id, arrival).await {
                            Ok(()) => return,
                            Err(e) => why = e,
                        }
                    }
                    Err(e) => why = e,
                }
            }
            if self.floor.now() >= named.awaited_until.0 {
                let late = |at| RoundCommand::BeaconLate {
                    at,
                    why: why.clone(),
                };
                match self.step(id, late).await {
                    Ok(()) => return,
                    Err(e) => tracing::warn!(round = id, "the late-beacon rule: {e}"),
                }
            }
            let until = named.round_at.0.saturating_sub(self.floor.now());
            let wait = if until > 0 {
                Duration::from_millis(until).min(POLL)
            } else {
                POLL
            };
            tokio::time::sleep(wait).await;
        }
    }

    async fn step(
        &self,
        id: &str,
        command: impl Fn(pitboss_engine::games::Timestamp) -> RoundCommand,
    ) -> Result<(), String> {
        self.floor
            .round_command(
                id,
                command,
                &RoundCall {
                    actor: BEACON_ACTOR,
                    request_id: None,
                },
                |_, _| (),
            )
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// The beacon round `named`, verified against `rule`'s chain: kept, or fetched and checked.
    async fn beacon_of(
        &self,
        rule: &BeaconRule,
        named: &NamedBeacon,
    ) -> Result<(BeaconValue, Vec<u8>), String> {
        let key = (named.chain, rule.public_key.clone(), named.round);
        let value = |signature: &[u8]| BeaconValue {
            chain: named.chain,
            round: named.round,
            randomness: <[u8; 32]>::from(<sha2::Sha256 as sha2::Digest>::digest(signature)),
        };
        let kept = self
            .verified
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .cloned();
        if let Some(signature) = kept {
            return Ok((value(&signature), signature));
        }
        let source = self
            .source
            .as_ref()
            .ok_or("no beacon source is configured")?;
        let chain = Chain::new(
            &rule.chain_hash,
            &rule.public_key,
            u64::from(rule.period),
            rule.genesis_time,
        )
        .map_err(|e| format!("the configuration's chain: {e}"))?;
        let document = source
            .fetch(&named.chain, named.round)
            .await
            .map_err(|e| e.to_string())?;
        let round = PublicRound::from_public_json(&document)
            .map_err(|e| format!("round {}: {e}", named.round))?;
        if round.round != named.round {
            return Err(format!(
                "asked for round {}, the source served round {}",
                named.round, round.round
            ));
        }
        chain.verify(&round).map_err(|e| e.to_string())?;
        let signature = round.signature.to_vec();
        let mut verified = self.verified.lock().unwrap_or_else(PoisonError::into_inner);
        if verified.len() >= VERIFIED_KEPT {
            verified.clear();
        }
        verified.insert(key, signature.clone());
        Ok((value(&signature), signature))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::floor::OpenRoundRequest;
    use pitboss_engine::config::{GameConfig, LateBeacon, SeedSources};
    use pitboss_engine::game::GameId;
    use pitboss_engine::games::Timestamp;
    use pitboss_engine::money::Money;
    use pitboss_engine::round::{OpenRound, PlaceBet, Shape};
    use pitboss_engine::settlement::{BetId, Wager};
    use std::sync::atomic::{AtomicU64, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// Quicknet's round 1001 published at genesis + 3 000 s; a round opened at 2 990 s with 5 s
    /// of betting names it (the first at least one period after betting closes).
    const GENESIS_MS: u64 = 1_692_803_367_000;
    const OPEN_AT: u64 = GENESIS_MS + 2_990_000;

    /// drand's HTTP API on loopback serving `documents` by round (any chain), 404 otherwise.
    async fn source(documents: std::collections::BTreeMap<u64, String>) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let documents = documents.clone();
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut byte = [0u8; 1];
                    while !head.ends_with(b"\r\n\r\n") {
                        if stream.read(&mut byte).await.unwrap_or(0) == 0 {
                            return;
                        }
                        head.push(byte[0]);
                    }
                    let head = String::from_utf8_lossy(&head);
                    let path = head.split_whitespace().nth(1).unwrap_or_default();
                    let round = path.rsplit('/').next().and_then(|r| r.parse::<u64>().ok());
                    let answer = match round.and_then(|r| documents.get(&r)) {
                        Some(body) => format!(
                            "HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{body}",
                            body.len()
                        ),
                        None => "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n".into(),
                    };
                    let _ = stream.write_all(answer.as_bytes()).await;
                });
            }
        });
        url
    }

    /// The fixture's real quicknet rounds as `/public/<round>` documents.
    fn quicknet() -> std::collections::BTreeMap<u64, String> {
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../../../../fixtures/beacon/quicknet.json"))
                .unwrap();
        fixture["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["round"].as_u64().unwrap(), r.to_string()))
            .collect()
    }

    /// A floor on a log in memory whose clock the test sets, a configuration mixing quicknet's
    /// beacon (late rule `late`), a round of two seats opened, bet and closed under it: the round.
    async fn awaiting(
        dir: &std::path::Path,
        late: LateBeacon,
        documents: std::collections::BTreeMap<u64, String>,
    ) -> (Arc<Floor>, Arc<AtomicU64>, String, Arc<Beacons>) {
        let now = Arc::new(AtomicU64::new(OPEN_AT));
        let clock = now.clone();
        let log = pitboss_ledger::mem::MemoryLog::new();
        let ledger =
            Arc::new(pitboss_ledger::Ledger::open_memory(&log, dir, OPEN_AT, None).unwrap());
        let floor = Arc::new(
            Floor::open(ledger, Arc::new(move || clock.load(Ordering::SeqCst)))
                .await
                .unwrap(),
        );
        let url = source(documents).await;
        let beacons = Beacons::start(floor.clone(), Some(HttpSource::new(&url).unwrap()));
        let mut config = GameConfig::default_for(GameId::CaribbeanStud);
        config.name = "quicknet".into();
        config.seed_sources = SeedSources {
            players: false,
            beacon: Some(BeaconRule {
                late,
                ..BeaconRule::quicknet(5_000)
            }),
        };
        let (config_id, _) = floor.publish(config, None, "admin").await.unwrap();
        let opened = floor
            .open_round(
                OpenRoundRequest {
                    game: GameId::CaribbeanStud,
                    config_id: Some(config_id),
                    open: OpenRound {
                        table: "T1".into(),
                        dealer: "d1".into(),
                        shoe: None,
                        shape: Shape::Seats { seats: 2 },
                        max_players: 2,
                        seats_per_player: 1,
                        decision_window_ms: 60_000,
                        at: Timestamp(0),
                    },
                    actor: "croupier".into(),
                    request_id: None,
                },
                |round| round.opened().and_then(|o| o.beacon).map(|b| b.round),
            )
            .await
            .unwrap();
        assert_eq!(opened.answer, Some(1001), "quicknet round 1001 named");
        let id = opened.id;
        let call = RoundCall {
            actor: "croupier",
            request_id: None,
        };
        for seat in 1..=2u8 {
            floor
                .round_command(
                    &id,
                    |at| {
                        RoundCommand::Bet(PlaceBet {
                            player: format!("p{seat}"),
                            seat: Some(seat),
                            wagers: vec![Wager {
                                bet: BetId::Ante,
                                amount: Money(500),
                            }],
                            seed_digest: None,
                            at,
                        })
                    },
                    &call,
                    |_, _| (),
                )
                .await
                .unwrap();
        }
        floor
            .round_command(
                &id,
                |at| RoundCommand::CloseBetting { at, shaker: None },
                &call,
                |_, _| (),
            )
            .await
            .unwrap();
        (floor, now, id, beacons)
    }

    /// The phase once the beacon task has moved the round on (waited for by the phase).
    async fn moved_on(floor: &Floor, id: &str) -> Phase {
        for _ in 0..1200 {
            let phase = floor.with_round(id, |r| r.phase()).unwrap();
            if phase != Phase::AwaitingBeacon {
                return phase;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the round still awaits its beacon")
    }

    /// A real quicknet round, served by a local source, verified against the chain's key and dealt
    /// with; before its time nothing is fetched and nothing dealt.
    #[tokio::test(flavor = "multi_thread")]
    async fn a_real_quicknet_round_is_fetched_verified_and_mixed_into_the_deal() {
        let dir = tempfile::tempdir().unwrap();
        let rounds = quicknet();
        let (floor, now, id, _beacons) =
            awaiting(dir.path(), LateBeacon::Void, rounds.clone()).await;
        tokio::time::sleep(POLL * 2).await;
        assert_eq!(
            floor.with_round(&id, |r| r.phase()).unwrap(),
            Phase::AwaitingBeacon,
            "not before the beacon round's time"
        );
        now.store(GENESIS_MS + 3_000_000, Ordering::SeqCst);
        assert_eq!(moved_on(&floor, &id).await, Phase::Playing);
        let fixture: serde_json::Value = serde_json::from_str(&rounds[&1001]).unwrap();
        let randomness = floor
            .with_round(&id, |r| r.beacon().map(|b| hex::encode(b.randomness)))
            .unwrap();
        assert_eq!(randomness.as_deref(), fixture["randomness"].as_str());
    }

    /// A round whose signature does not verify (round 1001's served as 1000's) is never taken:
    /// once the wait is over, the late rule voids the round, saying why.
    #[tokio::test(flavor = "multi_thread")]
    async fn a_bad_signature_is_refused_and_the_late_rule_applies() {
        let dir = tempfile::tempdir().unwrap();
        let rounds = quicknet();
        let forged = rounds[&1002].replace("\"round\":1002", "\"round\":1001");
        let (floor, now, id, _beacons) = awaiting(
            dir.path(),
            LateBeacon::Void,
            [(1001, forged)].into_iter().collect(),
        )
        .await;
        now.store(GENESIS_MS + 3_000_000, Ordering::SeqCst);
        tokio::time::sleep(POLL * 3).await;
        assert_eq!(
            floor.with_round(&id, |r| r.phase()).unwrap(),
            Phase::AwaitingBeacon,
            "a bad signature deals nothing"
        );
        now.store(GENESIS_MS + 3_000_000 + 30_000, Ordering::SeqCst);
        assert_eq!(moved_on(&floor, &id).await, Phase::Voided);
        let why = floor
            .with_round(&id, |r| r.beacon_late().map(|l| l.why.clone()))
            .unwrap()
            .unwrap();
        assert!(why.contains("does not verify"), "{why}");
    }
}
