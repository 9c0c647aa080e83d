//! The deal seed of a round whose shuffle the operator cannot steer (`docs/rng.md` §1a): the
//! server's secret seed, committed when the round opens, mixed with what was fixed after it — the
//! players' seeds sent with their bets, and a public beacon round (drand) that did not exist when
//! betting closed. The deal (§3 onwards) is then derived from the mixed seed exactly as from any
//! seed.
//!
//! ```text
//! deal seed = SHA-256( "pitboss.v1.deal-seed" 0x00
//!                      ‖ server seed (32 bytes)
//!                      ‖ sources (1 byte: bit 0 the players' seeds, bit 1 the beacon)
//!                      ‖ [players]  count (u32 BE) ‖ per seed, by place: place (u32 BE) ‖ SHA-256(seed bytes)
//!                      ‖ [beacon]   chain hash (32) ‖ round (u64 BE) ‖ randomness (32) )
//! ```
//!
//! With no source the deal seed is the server's seed itself: every hand and round recorded before
//! mixing existed derives as it always did. A player's seed enters by its digest, so a player who
//! knows only the other players' digests re-derives the deal.
//!
//! Pure: checks nothing about where the inputs came from (the beacon's signature is the beacon
//! crate's to verify, the bounds of a player's seed the request's).

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use crate::rng::Seed;

/// The domain of the deal seed's hash.
pub const DEAL_SEED_DOMAIN: &[u8] = b"pitboss.v1.deal-seed\0";

/// The most bytes a player's seed may have (at least one).
pub const PLAYER_SEED_MAX: usize = 64;

/// A public beacon round as the deal seed takes it: its chain, its number and its randomness
/// (drand's: SHA-256 of the round's signature).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BeaconValue {
    /// The chain's hash (drand's `hash`, naming the chain and its public key).
    pub chain: [u8; 32],
    /// The round's number.
    pub round: u64,
    /// The round's randomness.
    pub randomness: [u8; 32],
}

/// What a deal seed was mixed from besides the server's seed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sources {
    /// The players' seeds' digests by the place that sent each (`None`: players' seeds are not a
    /// source; an empty map: a source no player used).
    pub players: Option<BTreeMap<u32, [u8; 32]>>,
    /// The beacon round (`None`: not a source, or not there in time).
    pub beacon: Option<BeaconValue>,
}

impl Sources {
    /// The sources byte: bit 0 the players' seeds, bit 1 the beacon.
    pub fn flags(&self) -> u8 {
        u8::from(self.players.is_some()) | (u8::from(self.beacon.is_some()) << 1)
    }
}

/// The digest a player's seed enters the deal seed by: `SHA-256(seed bytes)`.
pub fn player_seed_digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// The deal seed of `server` mixed with `sources` (the server's seed itself when there are none).
pub fn deal_seed(server: &Seed, sources: &Sources) -> Seed {
    let flags = sources.flags();
    if flags == 0 {
        return *server;
    }
    let mut h = Sha256::new();
    h.update(DEAL_SEED_DOMAIN);
    h.update(server.as_bytes());
    h.update([flags]);
    if let Some(players) = &sources.players {
        // A map holds at most u32::MAX + 1 places keyed by u32; a round holds far fewer.
        h.update(
            u32::try_from(players.len())
                .unwrap_or(u32::MAX)
                .to_be_bytes(),
        );
        for (place, digest) in players {
            h.update(place.to_be_bytes());
            h.update(digest);
        }
    }
    if let Some(beacon) = &sources.beacon {
        h.update(beacon.chain);
        h.update(beacon.round.to_be_bytes());
        h.update(beacon.randomness);
    }
    Seed::from_bytes(h.finalize().into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> Seed {
        Seed::from_bytes(std::array::from_fn(|i| i as u8))
    }

    fn beacon(round: u64) -> BeaconValue {
        BeaconValue {
            chain: [0x52; 32],
            round,
            randomness: [0xab; 32],
        }
    }

    #[test]
    fn without_sources_the_deal_seed_is_the_servers() {
        assert_eq!(deal_seed(&server(), &Sources::default()), server());
    }

    /// Every input moves the deal seed: the server's seed, each player's seed, its place, the
    /// presence of a source, the beacon's chain, round and randomness.
    #[test]
    fn every_input_moves_the_deal_seed() {
        let one = |players: &[(u32, &[u8])], beacon: Option<BeaconValue>| Sources {
            players: Some(
                players
                    .iter()
                    .map(|(p, s)| (*p, player_seed_digest(s)))
                    .collect(),
            ),
            beacon,
        };
        let base = one(&[(0, b"ann"), (3, b"bob")], Some(beacon(7)));
        let mut seen = vec![deal_seed(&server(), &base)];
        let mut other_server = server().as_bytes().to_owned();
        other_server[31] ^= 1;
        seen.push(deal_seed(&Seed::from_bytes(other_server), &base));
        seen.push(deal_seed(
            &server(),
            &one(&[(0, b"ann"), (3, b"bot")], Some(beacon(7))),
        ));
        seen.push(deal_seed(
            &server(),
            &one(&[(0, b"ann"), (4, b"bob")], Some(beacon(7))),
        ));
        seen.push(deal_seed(&server(), &one(&[(0, b"ann")], Some(beacon(7)))));
        seen.push(deal_seed(&server(), &one(&[], Some(beacon(7)))));
        seen.push(deal_seed(
            &server(),
            &Sources {
                players: None,
                beacon: Some(beacon(7)),
            },
        ));
        seen.push(deal_seed(
            &server(),
            &one(&[(0, b"ann"), (3, b"bob")], None),
        ));
        seen.push(deal_seed(&server(), &one(&[], None)));
        seen.push(deal_seed(
            &server(),
            &one(&[(0, b"ann"), (3, b"bob")], Some(beacon(8))),
        ));
        let mut moved = beacon(7);
        moved.chain[0] ^= 1;
        seen.push(deal_seed(
            &server(),
            &one(&[(0, b"ann"), (3, b"bob")], Some(moved)),
        ));
        let mut moved = beacon(7);
        moved.randomness[31] ^= 1;
        seen.push(deal_seed(
            &server(),
            &one(&[(0, b"ann"), (3, b"bob")], Some(moved)),
        ));
        seen.push(server());
        let distinct: std::collections::HashSet<[u8; 32]> =
            seen.iter().map(|s| *s.as_bytes()).collect();
        assert_eq!(distinct.len(), seen.len());
    }

    /// The bytes hashed, written out independently of the code above.
    #[test]
    fn the_deal_seed_is_the_documented_hash() {
        let sources = Sources {
            players: Some([(2, player_seed_digest(b"lucky"))].into_iter().collect()),
            beacon: Some(beacon(1000)),
        };
        let mut bytes = b"pitboss.v1.deal-seed\0".to_vec();
        bytes.extend((0..32u8).collect::<Vec<u8>>());
        bytes.push(3);
        bytes.extend([0, 0, 0, 1, 0, 0, 0, 2]);
        bytes.extend(Sha256::digest(b"lucky"));
        bytes.extend([0x52; 32]);
        bytes.extend(1000u64.to_be_bytes());
        bytes.extend([0xab; 32]);
        let want: [u8; 32] = Sha256::digest(&bytes).into();
        assert_eq!(deal_seed(&server(), &sources).as_bytes(), &want);
    }
}
