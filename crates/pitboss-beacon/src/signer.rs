//! A chain of one's own (feature `signer`): a BLS key pair from a 32-byte secret, its chain
//! description in quicknet's scheme, and rounds signed as drand signs them — for tests and local
//! beacon sources that must not depend on the internet. Never a service's beacon: nobody but its
//! holder trusts a key made here.
//!
//! The signature is drand's `bls-unchained-g1-rfc9380`: the secret times the RFC 9380 hash to G1
//! (DST `BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_`) of `SHA-256(round as u64 big-endian)`;
//! the public key is the secret times G2's generator. The arithmetic is `bls12_381`'s.

use bls12_381::hash_to_curve::{ExpandMsgXmd, HashToCurve};
use bls12_381::{G1Affine, G1Projective, G2Affine, Scalar};
use sha2::{Digest, Sha256};

use crate::{Chain, SCHEME};

/// The domain separation tag of quicknet's scheme.
const DST: &[u8] = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_";

/// A key pair that signs a chain's rounds.
pub struct Signer {
    secret: Scalar,
    /// The compressed G2 public key.
    pub public_key: [u8; 96],
}

impl Signer {
    /// The key pair of `seed` (reduced to a scalar; any 32 bytes give a key).
    pub fn from_seed(seed: [u8; 32]) -> Signer {
        let mut wide = [0u8; 64];
        wide[..32].copy_from_slice(&seed);
        let secret = Scalar::from_bytes_wide(&wide);
        let public_key = G2Affine::from(G2Affine::generator() * secret).to_compressed();
        Signer { secret, public_key }
    }

    /// The `/info` document of a chain of this key, `period_s` seconds between rounds from
    /// `genesis_s`; its hash is SHA-256 of the key, period and genesis (a name, as drand's is).
    pub fn info_json(&self, period_s: u64, genesis_s: u64) -> String {
        let mut h = Sha256::new();
        h.update(self.public_key);
        h.update(period_s.to_be_bytes());
        h.update(genesis_s.to_be_bytes());
        let hash = hex::encode(h.finalize());
        serde_json::json!({
            "public_key": hex::encode(self.public_key),
            "period": period_s,
            "genesis_time": genesis_s,
            "hash": hash,
            "schemeID": SCHEME,
        })
        .to_string()
    }

    /// The chain of [`Signer::info_json`].
    pub fn chain(&self, period_s: u64, genesis_s: u64) -> Chain {
        match Chain::from_info_json(self.info_json(period_s, genesis_s).as_bytes()) {
            Ok(chain) => chain,
            Err(e) => unreachable!("a signer's own chain: {e}"),
        }
    }

    /// Round `round`'s signature.
    pub fn sign(&self, round: u64) -> [u8; 48] {
        let message = Sha256::digest(round.to_be_bytes());
        let point = <G1Projective as HashToCurve<ExpandMsgXmd<sha2_09::Sha256>>>::hash_to_curve(
            message, DST,
        );
        G1Affine::from(point * self.secret).to_compressed()
    }

    /// Round `round`'s `/public/<round>` document.
    pub fn public_json(&self, round: u64) -> String {
        let signature = self.sign(round);
        serde_json::json!({
            "round": round,
            "signature": hex::encode(signature),
            "randomness": hex::encode(Sha256::digest(signature)),
        })
        .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Round;

    /// A signer's rounds verify against its chain (by drand-verify's pairing), and not against
    /// another key's, nor as another round.
    #[test]
    fn a_signers_rounds_verify_against_its_own_chain_only() {
        let signer = Signer::from_seed([7; 32]);
        let chain = signer.chain(1, 1_800_000_000);
        let other = Signer::from_seed([8; 32]).chain(1, 1_800_000_000);
        for n in [1, 2, 1000] {
            let round = Round::from_public_json(signer.public_json(n).as_bytes()).unwrap();
            assert!(chain.verify(&round).is_ok(), "round {n}");
            assert!(other.verify(&round).is_err(), "round {n} under another key");
            let moved = Round {
                round: n + 1,
                ..round
            };
            assert!(chain.verify(&moved).is_err(), "round {n} as {}", n + 1);
        }
    }
}
