//! A round's deal inputs (`docs/rng.md` §1a), as a player checks their own deal: the server seed's
//! commitment and, once the round has ended, the seed; what the deal seed was mixed from (each
//! player's seed by its digest, the beacon round with its chain, value and signature, or the late
//! rule that dealt without it); and every card the table saw, by deck position. The file
//! `round-<id>.deal.json` beside a dispute packet; `fixtures/reference/verify_deal.py` re-derives
//! the deal seed and the cards from it alone (and against the bundle's signed entries).
//!
//! Pure: the facts are read off the round's recorded events and its configuration; nothing here
//! decides whether they hold.

use serde::Serialize;

use pitboss_engine::config::GameConfig;
use pitboss_engine::round::RoundEvent;

/// The format name written in every deal-inputs file.
pub const FORMAT: &str = "pitboss.deal-inputs.v1";

/// One round's deal inputs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DealInputs {
    /// [`FORMAT`].
    pub format: &'static str,
    pub round_id: String,
    pub game: String,
    /// `SHA-256(server seed)`, committed when the round opened (hex).
    pub commitment: String,
    /// The server's seed (hex), once revealed.
    pub server_seed: Option<String>,
    /// `off`, `players`, `beacon` or `players+beacon`.
    pub sources: String,
    /// Every player's seed by its digest, by place (when the players' seeds are a source).
    pub players: Vec<PlayerSeed>,
    /// The beacon round named at the opening, and what arrived.
    pub beacon: Option<BeaconInputs>,
    /// The late rule, when it was applied.
    pub beacon_late: Option<BeaconLate>,
    /// Every card the table saw, by the round's deck position.
    pub cards: Vec<SeenCard>,
}

/// A player's seed as the deal seed takes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayerSeed {
    pub place: u32,
    /// `SHA-256(seed)`, hex.
    pub digest: String,
}

/// The beacon round: its chain (as the configuration names it), the round named and the one
/// that arrived.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BeaconInputs {
    pub chain_hash: String,
    pub public_key: String,
    pub genesis_time: u64,
    pub period: u32,
    pub betting_closes_ms: u64,
    pub round: u64,
    pub round_at_ms: u64,
    /// Hex, once arrived.
    pub randomness: Option<String>,
    pub signature: Option<String>,
}

/// The late rule as applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BeaconLate {
    pub rule: String,
    pub why: String,
}

/// A card the table saw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SeenCard {
    pub position: u8,
    pub card: String,
}

/// The deal inputs of round `round_id` from its configuration and recorded events (`None`: the
/// events hold no opening).
pub fn deal_inputs(
    round_id: &str,
    config: &GameConfig,
    events: &[RoundEvent],
) -> Option<DealInputs> {
    let opened = events.iter().find_map(|e| match e {
        RoundEvent::Opened(o) => Some(o),
        _ => None,
    })?;
    let mut inputs = DealInputs {
        format: FORMAT,
        round_id: round_id.to_string(),
        game: opened.game.id().to_string(),
        commitment: opened.commitment.to_string(),
        server_seed: None,
        sources: config.seed_sources.name().to_string(),
        players: Vec::new(),
        beacon: None,
        beacon_late: None,
        cards: Vec::new(),
    };
    if let (Some(named), Some(rule)) = (&opened.beacon, &config.seed_sources.beacon) {
        inputs.beacon = Some(BeaconInputs {
            chain_hash: rule.chain_hash.clone(),
            public_key: rule.public_key.clone(),
            genesis_time: rule.genesis_time,
            period: rule.period,
            betting_closes_ms: named.betting_closes.0,
            round: named.round,
            round_at_ms: named.round_at.0,
            randomness: None,
            signature: None,
        });
    }
    let mut seen = |positions: &[u8], cards: &[pitboss_engine::card::Card]| {
        for (&position, card) in positions.iter().zip(cards) {
            inputs.cards.push(SeenCard {
                position,
                card: card.to_string(),
            });
        }
    };
    let mut players = Vec::new();
    let mut arrived = None;
    let mut late = None;
    let mut seed = None;
    for event in events {
        match event {
            RoundEvent::BetPlaced(bet) => {
                if let Some(digest) = bet.seed_digest {
                    players.push(PlayerSeed {
                        place: bet.place,
                        digest: hex::encode(digest),
                    });
                }
            }
            RoundEvent::BeaconArrived(a) => arrived = Some(a),
            RoundEvent::BeaconLate(l) => late = Some(l),
            RoundEvent::Dealt { seats } => {
                for s in seats {
                    seen(&s.positions, &s.cards);
                }
            }
            RoundEvent::Revealed { positions, cards } => seen(positions, cards),
            RoundEvent::SeedRevealed { seed: s } => seed = Some(s.to_hex()),
            _ => {}
        }
    }
    inputs.cards.sort_by_key(|c| c.position);
    inputs.cards.dedup();
    inputs.players = players;
    inputs.server_seed = seed;
    if let (Some(beacon), Some(a)) = (inputs.beacon.as_mut(), arrived) {
        beacon.randomness = Some(hex::encode(a.value.randomness));
        beacon.signature = Some(hex::encode(&a.signature));
    }
    inputs.beacon_late = late.map(|l| BeaconLate {
        rule: l.rule.name().to_string(),
        why: l.why.clone(),
    });
    Some(inputs)
}
