//! Public randomness beacons (drand) as pitboss's deal seeds take them (`docs/rng.md` §1a): a
//! chain as its `/info` document describes it, a round as its `/public/<round>` document gives
//! it, the round's BLS signature verified against the chain's public key, and the round's
//! randomness (`SHA-256(signature)`). Which round a time names is the configuration's arithmetic
//! (`pitboss_engine::config::BeaconRule`), not this crate's.
//!
//! Only the `bls-unchained-g1-rfc9380` scheme is taken (drand's quicknet: signatures on G1,
//! the public key on G2, the message `SHA-256(round as u64 big-endian)`, hashed to G1 by RFC 9380
//! with the DST `BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_`). The pairing check is
//! `drand-verify`'s (pure Rust over `bls12_381`), never written here.
//!
//! Pure: no network, no clock. What it reads is hostile until checked:
//! every document is bounded and every field checked, and a failure says which.

#[cfg(feature = "signer")]
pub mod signer;

use drand_verify::{G2PubkeyRfc, Pubkey};
use serde::Deserialize;
use sha2::{Digest, Sha256};

/// The one scheme taken.
pub const SCHEME: &str = "bls-unchained-g1-rfc9380";

/// The most bytes a chain's or a round's JSON document may have.
pub const DOCUMENT_MAX: usize = 4096;

/// Why a chain's description or a round is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BeaconError {
    /// A document over [`DOCUMENT_MAX`] bytes.
    #[error("a beacon document is at most {DOCUMENT_MAX} bytes; got {0}")]
    TooLarge(usize),
    /// A document that is not the JSON expected.
    #[error("{field}: {problem}")]
    Document {
        /// The field (or `document`).
        field: &'static str,
        /// What is wrong with it.
        problem: String,
    },
    /// A chain of another scheme.
    #[error("schemeID: only {SCHEME} is taken; got {0}")]
    Scheme(String),
    /// A signature that is not a point of G1 (48 bytes, compressed, in the subgroup).
    #[error("round {round}: its signature is not a compressed G1 point ({problem})")]
    NotAPoint {
        /// The round.
        round: u64,
        /// What the decoder said.
        problem: String,
    },
    /// A signature that does not verify: not the chain's, or not of this round.
    #[error("round {round}: its signature does not verify against the chain's public key")]
    BadSignature {
        /// The round.
        round: u64,
    },
    /// A round document whose randomness is not `SHA-256(signature)`.
    #[error("round {round}: its randomness is not SHA-256 of its signature")]
    Randomness {
        /// The round.
        round: u64,
    },
    /// Round 0, or a time before the chain's first round.
    #[error("{0}")]
    Round(&'static str),
}

fn document(field: &'static str, problem: impl Into<String>) -> BeaconError {
    BeaconError::Document {
        field,
        problem: problem.into(),
    }
}

/// Hex of exactly `N` bytes.
fn fixed_hex<const N: usize>(field: &'static str, text: &str) -> Result<[u8; N], BeaconError> {
    let bytes = hex::decode(text).map_err(|_| document(field, "not hexadecimal"))?;
    bytes
        .try_into()
        .map_err(|b: Vec<u8>| document(field, format!("{N} bytes expected, got {}", b.len())))
}

/// A drand chain: its hash, public key and timing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chain {
    /// The chain's hash (its name in drand's API and in a round's deal seed).
    pub hash: [u8; 32],
    /// The group's public key, a compressed G2 point.
    pub public_key: [u8; 96],
    /// Seconds between rounds.
    pub period_s: u64,
    /// When round 1 was published, seconds since the Unix epoch.
    pub genesis_s: u64,
}

/// drand's `/info` document.
#[derive(Deserialize)]
struct Info {
    public_key: String,
    period: u64,
    genesis_time: u64,
    hash: String,
    #[serde(rename = "schemeID")]
    scheme_id: String,
}

/// drand's `/public/<round>` document.
#[derive(Deserialize)]
struct Public {
    round: u64,
    signature: String,
    #[serde(default)]
    randomness: Option<String>,
}

fn bounded(bytes: &[u8]) -> Result<&[u8], BeaconError> {
    if bytes.len() > DOCUMENT_MAX {
        return Err(BeaconError::TooLarge(bytes.len()));
    }
    Ok(bytes)
}

impl Chain {
    /// drand's quicknet (League of Entropy): a round every 3 s since 2023-08-23.
    pub fn quicknet() -> Chain {
        const INFO: &str = r#"{"public_key":"83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a","period":3,"genesis_time":1692803367,"hash":"52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971","schemeID":"bls-unchained-g1-rfc9380"}"#;
        match Chain::from_info_json(INFO.as_bytes()) {
            Ok(chain) => chain,
            // The constant above is checked by the tests.
            Err(e) => unreachable!("quicknet's description: {e}"),
        }
    }

    /// A chain from its `/info` document (the operator's configuration pins which).
    pub fn from_info_json(bytes: &[u8]) -> Result<Chain, BeaconError> {
        let info: Info = serde_json::from_slice(bounded(bytes)?)
            .map_err(|e| document("document", e.to_string()))?;
        if info.scheme_id != SCHEME {
            return Err(BeaconError::Scheme(info.scheme_id));
        }
        Chain::new(&info.hash, &info.public_key, info.period, info.genesis_time)
    }

    /// A chain of the one scheme taken from its hash and public key (hex), its period and its
    /// genesis (seconds): the public key must be a G2 point.
    pub fn new(
        hash: &str,
        public_key: &str,
        period_s: u64,
        genesis_s: u64,
    ) -> Result<Chain, BeaconError> {
        let public_key = fixed_hex::<96>("public_key", public_key)?;
        G2PubkeyRfc::from_fixed(public_key)
            .map_err(|e| document("public_key", format!("not a G2 point: {e}")))?;
        if period_s == 0 || period_s > 3600 {
            return Err(document("period", "1 to 3 600 seconds"));
        }
        // Round times are computed in milliseconds: keep them far from overflow.
        if genesis_s > 1 << 40 {
            return Err(document("genesis_time", "too far in the future"));
        }
        Ok(Chain {
            hash: fixed_hex::<32>("hash", hash)?,
            public_key,
            period_s,
            genesis_s,
        })
    }

    /// Verifies `round`'s signature against the chain's public key; its randomness,
    /// `SHA-256(signature)`.
    pub fn verify(&self, round: &Round) -> Result<[u8; 32], BeaconError> {
        if round.round == 0 {
            return Err(BeaconError::Round("drand's rounds start at 1"));
        }
        let key = G2PubkeyRfc::from_fixed(self.public_key).map_err(|e| BeaconError::NotAPoint {
            round: round.round,
            problem: format!("the chain's public key: {e}"),
        })?;
        match key.verify(round.round, b"", &round.signature) {
            Ok(true) => Ok(Sha256::digest(round.signature).into()),
            Ok(false) => Err(BeaconError::BadSignature { round: round.round }),
            Err(e) => Err(BeaconError::NotAPoint {
                round: round.round,
                problem: e.to_string(),
            }),
        }
    }
}

/// A beacon round as published: its number and signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Round {
    /// The round's number (from 1).
    pub round: u64,
    /// Its BLS signature, a compressed G1 point.
    pub signature: [u8; 48],
}

impl Round {
    /// A round from its `/public/<round>` document; its `randomness`, when given, must be
    /// `SHA-256(signature)` (the signature itself is checked by [`Chain::verify`]).
    pub fn from_public_json(bytes: &[u8]) -> Result<Round, BeaconError> {
        let public: Public = serde_json::from_slice(bounded(bytes)?)
            .map_err(|e| document("document", e.to_string()))?;
        let round = Round {
            round: public.round,
            signature: fixed_hex::<48>("signature", &public.signature)?,
        };
        if let Some(randomness) = &public.randomness {
            let given = fixed_hex::<32>("randomness", randomness)?;
            if given != <[u8; 32]>::from(Sha256::digest(round.signature)) {
                return Err(BeaconError::Randomness { round: round.round });
            }
        }
        Ok(round)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixture: quicknet's description and real rounds it published.
    fn fixture() -> serde_json::Value {
        let text = include_str!("../../../fixtures/beacon/quicknet.json");
        serde_json::from_str(text).expect("the fixture")
    }

    fn rounds() -> Vec<(Round, [u8; 32])> {
        fixture()["rounds"]
            .as_array()
            .expect("rounds")
            .iter()
            .map(|r| {
                let round = Round::from_public_json(r.to_string().as_bytes()).expect("a round");
                let randomness =
                    fixed_hex::<32>("randomness", r["randomness"].as_str().unwrap()).expect("hex");
                (round, randomness)
            })
            .collect()
    }

    #[test]
    fn quicknet_is_the_chain_its_info_describes() {
        let info = fixture()["info"].to_string();
        assert_eq!(
            Chain::from_info_json(info.as_bytes()).unwrap(),
            Chain::quicknet()
        );
        assert_eq!(
            hex::encode(Chain::quicknet().hash),
            "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971"
        );
    }

    #[test]
    fn every_published_round_verifies_to_its_randomness() {
        let chain = Chain::quicknet();
        let rounds = rounds();
        assert!(rounds.len() >= 9);
        for (round, randomness) in &rounds {
            assert_eq!(
                chain.verify(round).as_ref(),
                Ok(randomness),
                "round {}",
                round.round
            );
        }
    }

    #[test]
    fn a_signature_of_another_round_a_flipped_bit_or_another_key_is_refused() {
        let chain = Chain::quicknet();
        let (round, _) = rounds().remove(4);
        let shifted = Round {
            round: round.round + 1,
            ..round.clone()
        };
        assert_eq!(
            chain.verify(&shifted),
            Err(BeaconError::BadSignature {
                round: round.round + 1
            })
        );
        for bit in [0usize, 7, 200, 383] {
            let mut flipped = round.clone();
            flipped.signature[bit / 8] ^= 1 << (bit % 8);
            assert!(
                matches!(
                    chain.verify(&flipped),
                    Err(BeaconError::BadSignature { .. } | BeaconError::NotAPoint { .. })
                ),
                "bit {bit}"
            );
        }
        // Another chain's key: quicknet's own signature does not verify under it.
        let other = Chain {
            public_key: {
                // The G2 generator, compressed: a valid point that is not quicknet's key.
                let mut key = [0u8; 96];
                key.copy_from_slice(&hex::decode("93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8").unwrap());
                key
            },
            ..chain.clone()
        };
        assert_eq!(
            other.verify(&round),
            Err(BeaconError::BadSignature { round: round.round })
        );
        assert_eq!(
            chain.verify(&Round { round: 0, ..round }),
            Err(BeaconError::Round("drand's rounds start at 1"))
        );
    }

    #[test]
    fn documents_are_bounded_and_checked_field_by_field() {
        let big = vec![b' '; DOCUMENT_MAX + 1];
        assert_eq!(
            Round::from_public_json(&big),
            Err(BeaconError::TooLarge(DOCUMENT_MAX + 1))
        );
        let field = |text: &str| match Round::from_public_json(text.as_bytes()) {
            Err(BeaconError::Document { field, .. }) => field,
            other => panic!("{other:?}"),
        };
        assert_eq!(field(r#"{"round":1,"signature":"zz"}"#), "signature");
        assert_eq!(field(r#"{"round":1,"signature":"00"}"#), "signature");
        assert_eq!(field(r#"{"round":"one"}"#), "document");
        let (round, _) = rounds().remove(0);
        let wrong = format!(
            r#"{{"round":1,"signature":"{}","randomness":"{}"}}"#,
            hex::encode(round.signature),
            "00".repeat(32)
        );
        assert_eq!(
            Round::from_public_json(wrong.as_bytes()),
            Err(BeaconError::Randomness { round: 1 })
        );
        let mut info = fixture()["info"].clone();
        info["schemeID"] = "pedersen-bls-chained".into();
        assert_eq!(
            Chain::from_info_json(info.to_string().as_bytes()),
            Err(BeaconError::Scheme("pedersen-bls-chained".into()))
        );
        let mut info = fixture()["info"].clone();
        info["public_key"] = "00".repeat(96).into();
        assert!(matches!(
            Chain::from_info_json(info.to_string().as_bytes()),
            Err(BeaconError::Document {
                field: "public_key",
                ..
            })
        ));
    }
}
