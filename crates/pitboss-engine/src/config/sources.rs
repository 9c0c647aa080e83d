//! What a configuration's rounds mix their deal seed from besides the server's seed
//! ([`SeedSources`], `docs/rng.md` §1a): the players' seeds sent with their bets, a public beacon
//! round (a drand chain named by its hash, public key, genesis and period), both or neither; how
//! long betting may stay open so that it closes before the beacon round exists; how long the
//! beacon is awaited; and what a late beacon does ([`LateBeacon`]).
//!
//! A configuration without sources serialises without the field, so every configuration published
//! before mixing keeps its canonical bytes and its id. Pure: the arithmetic of a chain's rounds and
//! the checks of the fields, no clock and no network.

use serde::{Deserialize, Serialize};

use super::{refuse, ConfigError};

/// The shortest betting period of a round whose seed a beacon mixes, in milliseconds.
pub const BETTING_MS_MIN: u64 = 1_000;
/// The longest: one hour.
pub const BETTING_MS_MAX: u64 = 3_600_000;
/// The shortest wait for a beacon round past its time, in milliseconds.
pub const WAIT_MS_MIN: u64 = 1_000;
/// The longest: ten minutes.
pub const WAIT_MS_MAX: u64 = 600_000;
/// The longest period of a beacon chain, in seconds.
pub const PERIOD_MAX: u32 = 3_600;
/// The latest genesis a chain may have, in seconds since the epoch (the year 9999).
pub const GENESIS_MAX: u64 = 253_402_300_799;

/// The sources a round's deal seed is mixed from besides the server's seed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedSources {
    /// Each player may send a seed with their bet (1 to 64 bytes; its SHA-256 is recorded).
    #[serde(default, skip_serializing_if = "is_false")]
    pub players: bool,
    /// A public beacon round named when the round opens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon: Option<BeaconRule>,
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl SeedSources {
    /// No source: the deal seed is the server's seed.
    pub fn is_off(&self) -> bool {
        !self.players && self.beacon.is_none()
    }

    /// A stable name: `off`, `players`, `beacon` or `players+beacon`.
    pub fn name(&self) -> &'static str {
        match (self.players, self.beacon.is_some()) {
            (false, false) => "off",
            (true, false) => "players",
            (false, true) => "beacon",
            (true, true) => "players+beacon",
        }
    }

    /// Checks every field (paths under `seed_sources`).
    pub fn check(&self) -> Result<(), ConfigError> {
        match &self.beacon {
            Some(beacon) => beacon.check(),
            None => Ok(()),
        }
    }
}

/// What a late beacon does to a round (the beacon round has not arrived, verified, by its time
/// plus the wait).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LateBeacon {
    /// Deal from the server's seed and the players' seeds, recording that the beacon was late.
    DealWithout,
    /// Void the round and refund every bet, recording why.
    Void,
}

impl LateBeacon {
    /// A stable name.
    pub fn name(self) -> &'static str {
        match self {
            LateBeacon::DealWithout => "deal_without",
            LateBeacon::Void => "void",
        }
    }
}

/// A drand chain whose rounds mix the deal seed, and the round's timing around it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeaconRule {
    /// The chain's hash, lowercase hex (drand's `hash`).
    pub chain_hash: String,
    /// The chain's BLS public key, lowercase hex (a G2 point of 96 bytes for quicknet's
    /// `bls-unchained-g1-rfc9380`).
    pub public_key: String,
    /// The chain's genesis, in seconds since the epoch: round 1's time.
    pub genesis_time: u64,
    /// Seconds between rounds.
    pub period: u32,
    /// Betting closes at most this long after the round opens, in milliseconds; the beacon round
    /// named is the first whose time is after that.
    pub betting_ms: u64,
    /// How long past the beacon round's time it is awaited, in milliseconds.
    pub wait_ms: u64,
    /// What a beacon still missing after the wait does.
    pub late: LateBeacon,
}

impl BeaconRule {
    /// drand's quicknet chain (League of Entropy), betting open for `betting_ms`, the beacon
    /// awaited 30 seconds past its time, dealt without when late.
    pub fn quicknet(betting_ms: u64) -> BeaconRule {
        BeaconRule {
            chain_hash: "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971".into(),
            public_key: "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a".into(),
            genesis_time: 1_692_803_367,
            period: 3,
            betting_ms,
            wait_ms: 30_000,
            late: LateBeacon::DealWithout,
        }
    }

    /// The chain's hash as bytes (checked by [`BeaconRule::check`]).
    pub fn chain(&self) -> [u8; 32] {
        let mut out = [0; 32];
        // Checked: 64 hex digits.
        let _ = hex::decode_to_slice(&self.chain_hash, &mut out);
        out
    }

    /// The time of round `round`, in milliseconds since the epoch (`None` for round 0 or past
    /// the representable).
    pub fn time_of_ms(&self, round: u64) -> Option<u64> {
        let since = round.checked_sub(1)?.checked_mul(u64::from(self.period))?;
        self.genesis_time.checked_add(since)?.checked_mul(1000)
    }

    /// The first round whose time is strictly after `at_ms`.
    pub fn first_round_after(&self, at_ms: u64) -> u64 {
        let genesis_ms = self.genesis_time.saturating_mul(1000);
        let period_ms = u64::from(self.period.max(1)) * 1000;
        match at_ms.checked_sub(genesis_ms) {
            None => 1,
            Some(since) => since / period_ms + 2,
        }
    }

    /// Checks every field (paths under `seed_sources.beacon`).
    pub fn check(&self) -> Result<(), ConfigError> {
        let hex_of = |field: &str, value: &str, bytes: usize| {
            if value.len() == bytes * 2
                && value
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            {
                Ok(())
            } else {
                Err(refuse(
                    format!("seed_sources.beacon.{field}"),
                    format!("{} lowercase hex digits", bytes * 2),
                ))
            }
        };
        hex_of("chain_hash", &self.chain_hash, 32)?;
        hex_of("public_key", &self.public_key, 96)?;
        let within = |field: &str, value: u64, min: u64, max: u64| {
            if (min..=max).contains(&value) {
                Ok(())
            } else {
                Err(refuse(
                    format!("seed_sources.beacon.{field}"),
                    format!("{value} is outside {min}..={max}"),
                ))
            }
        };
        within("genesis_time", self.genesis_time, 0, GENESIS_MAX)?;
        within("period", u64::from(self.period), 1, u64::from(PERIOD_MAX))?;
        within(
            "betting_ms",
            self.betting_ms,
            BETTING_MS_MIN,
            BETTING_MS_MAX,
        )?;
        within("wait_ms", self.wait_ms, WAIT_MS_MIN, WAIT_MS_MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The round arithmetic agrees with itself at every boundary: the named round's time is
    /// strictly after the instant, the round before it is not.
    #[test]
    fn the_first_round_after_an_instant_is_the_first_strictly_after_it() {
        let rule = BeaconRule::quicknet(60_000);
        let genesis = rule.genesis_time * 1000;
        assert_eq!(rule.time_of_ms(1), Some(genesis));
        assert_eq!(rule.time_of_ms(123), Some(genesis + 122 * 3000));
        assert_eq!(rule.first_round_after(genesis - 1), 1);
        assert_eq!(rule.first_round_after(genesis), 2);
        assert_eq!(rule.first_round_after(genesis + 2_999), 2);
        assert_eq!(rule.first_round_after(genesis + 3_000), 3);
        assert_eq!(rule.time_of_ms(u64::MAX), None);
        for at in [
            0,
            genesis - 1,
            genesis,
            genesis + 1,
            genesis + 2_999,
            genesis + 3_000,
            genesis + 3_001,
            genesis + 1_000_000_007,
        ] {
            let round = rule.first_round_after(at);
            assert!(rule.time_of_ms(round).unwrap() > at, "{at}: {round}");
            if round > 1 {
                assert!(rule.time_of_ms(round - 1).unwrap() <= at, "{at}: {round}");
            }
        }
        assert_eq!(rule.time_of_ms(0), None);
    }

    #[test]
    fn every_field_is_checked_by_its_path() {
        assert_eq!(BeaconRule::quicknet(60_000).check(), Ok(()));
        type Spoil = fn(&mut BeaconRule);
        let cases: [(&str, Spoil); 6] = [
            ("chain_hash", |r| r.chain_hash.make_ascii_uppercase()),
            ("public_key", |r| r.public_key.truncate(10)),
            ("period", |r| r.period = 0),
            ("betting_ms", |r| r.betting_ms = BETTING_MS_MAX + 1),
            ("wait_ms", |r| r.wait_ms = 0),
            ("genesis_time", |r| r.genesis_time = GENESIS_MAX + 1),
        ];
        for (field, spoil) in cases {
            let mut rule = BeaconRule::quicknet(60_000);
            spoil(&mut rule);
            let error = rule.check().unwrap_err();
            assert_eq!(
                error.field(),
                Some(format!("seed_sources.beacon.{field}").as_str())
            );
        }
    }
}
