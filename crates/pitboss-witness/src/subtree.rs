//! The ML-DSA-44 cosignature (C2SP `tlog-cosignature`, key type `0x06`): a cosigner's statement
//! over the `subtree/v1` message — its own name, a timestamp (zero for a subtree), the log's
//! origin, a range of leaves `[start, end)` and that range's Merkle hash — signed with FIPS 204
//! ML-DSA-44 (RustCrypto's `ml-dsa`: pure ML-DSA, empty context, deterministic signing). A
//! checkpoint's cosignature is the range `[0, size)` with the checkpoint's root and the time it was
//! made; the line carries `key id ‖ timestamp (u64, big-endian) ‖ signature (2 420 bytes)`.
//!
//! Owns the message, the key id, the keys' encodings and the check; MUST NOT hold state or read a
//! clock (the witness hands it the time).

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ml_dsa::{
    EncodedVerifyingKey, Keypair as _, MlDsa44, Seed, Signature, SignatureEncoding, Signer,
    SigningKey, VerifyingKey,
};

use crate::checkpoint::Checkpoint;
use crate::cosignature::{CosignatureError, MAX_TIMESTAMP};
use crate::note::{key_id, NoteError, NoteSignature};
use pitboss_ledger::Hash;

/// The signature type of an ML-DSA-44 cosigner key.
pub const ML_DSA_44: u8 = 0x06;
/// An encoded ML-DSA-44 public key.
pub const PUBLIC_KEY_LEN: usize = 1312;
/// An encoded ML-DSA-44 signature.
pub const SIGNATURE_LEN: usize = 2420;
/// The message's first bytes.
pub const LABEL: &[u8; 12] = b"subtree/v1\n\0";

/// The `cosigned_message` a cosigner named `cosigner` signs for the range `[start, end)` of log
/// `origin` with hash `hash`, at `timestamp` (zero for a subtree). `None` when a name is empty or
/// longer than 255 bytes (the structure's bounds).
pub fn message(
    cosigner: &str,
    timestamp: u64,
    origin: &str,
    start: u64,
    end: u64,
    hash: &Hash,
) -> Option<Vec<u8>> {
    let short = |s: &str| u8::try_from(s.len()).ok().filter(|&n| n > 0);
    let (name_len, origin_len) = (short(cosigner)?, short(origin)?);
    let mut m = Vec::with_capacity(12 + 2 + cosigner.len() + origin.len() + 24 + 32);
    m.extend_from_slice(LABEL);
    m.push(name_len);
    m.extend_from_slice(cosigner.as_bytes());
    m.extend_from_slice(&timestamp.to_be_bytes());
    m.push(origin_len);
    m.extend_from_slice(origin.as_bytes());
    m.extend_from_slice(&start.to_be_bytes());
    m.extend_from_slice(&end.to_be_bytes());
    m.extend_from_slice(hash);
    Some(m)
}

/// An ML-DSA-44 signing key, from its 32-byte seed (FIPS 204's ξ).
pub struct MlDsaKey {
    signing: SigningKey<MlDsa44>,
    public: Vec<u8>,
}

impl MlDsaKey {
    /// The key of `seed` (FIPS 204 `ML-DSA.KeyGen_internal(ξ)`).
    pub fn from_seed(seed: [u8; 32]) -> MlDsaKey {
        let signing = SigningKey::<MlDsa44>::from_seed(&Seed::from(seed));
        let public = signing.verifying_key().encode().to_vec();
        MlDsaKey { signing, public }
    }

    /// The encoded public key (1 312 bytes).
    pub fn public(&self) -> &[u8] {
        &self.public
    }

    /// The ML-DSA-44 signature of `message` (FIPS 204 `ML-DSA.Sign`, empty context, the
    /// deterministic variant): 2 420 bytes.
    pub fn sign_raw(&self, message: &[u8]) -> Vec<u8> {
        let signature: Signature<MlDsa44> = self.signing.sign(message);
        signature.to_bytes().to_vec()
    }

    /// The verifier key of this key named `name`.
    pub fn vkey(&self, name: &str) -> MlDsaVkey {
        MlDsaVkey {
            name: name.to_string(),
            public: self.public.clone(),
            key: self.signing.verifying_key(),
        }
    }

    /// The cosignature line of `[start, end)` of `origin` (hash `hash`) by this key named `name`,
    /// at `timestamp`. `None` when a name is beyond the message's bounds.
    pub fn sign(
        &self,
        name: &str,
        timestamp: u64,
        origin: &str,
        start: u64,
        end: u64,
        hash: &Hash,
    ) -> Option<NoteSignature> {
        let message = message(name, timestamp, origin, start, end, hash)?;
        let mut bytes = timestamp.to_be_bytes().to_vec();
        bytes.extend_from_slice(&self.sign_raw(&message));
        Some(NoteSignature {
            name: name.to_string(),
            key_id: key_id(name, ML_DSA_44, &self.public),
            bytes,
        })
    }

    /// The cosignature line of a checkpoint's text (`[0, size)` and its root) at `timestamp`.
    pub fn sign_checkpoint(
        &self,
        name: &str,
        timestamp: u64,
        checkpoint: &Checkpoint,
    ) -> Option<NoteSignature> {
        self.sign(
            name,
            timestamp,
            &checkpoint.origin,
            0,
            checkpoint.size,
            &checkpoint.root,
        )
    }
}

impl std::fmt::Debug for MlDsaKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MlDsaKey").finish_non_exhaustive()
    }
}

/// An ML-DSA-44 cosigner's verifier key: `<name>+<key id>+<base64(0x06 ‖ public key)>`.
#[derive(Clone)]
pub struct MlDsaVkey {
    pub name: String,
    /// The encoded public key (1 312 bytes).
    pub public: Vec<u8>,
    key: VerifyingKey<MlDsa44>,
}

impl PartialEq for MlDsaVkey {
    fn eq(&self, other: &MlDsaVkey) -> bool {
        self.name == other.name && self.public == other.public
    }
}

impl Eq for MlDsaVkey {}

impl std::fmt::Debug for MlDsaVkey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MlDsaVkey({self})")
    }
}

impl MlDsaVkey {
    /// Reads the parts of a vkey after its name and id: the key's type and bytes, checked.
    pub(crate) fn from_parts(name: &str, id: &str, raw: &[u8]) -> Result<MlDsaVkey, NoteError> {
        let bad = NoteError::BadVkey;
        let (&kind, public) = raw.split_first().ok_or(bad("no key"))?;
        if kind != ML_DSA_44 || public.len() != PUBLIC_KEY_LEN {
            return Err(bad("not an ML-DSA-44 cosigner key (type 0x06, 1312 bytes)"));
        }
        let encoded = EncodedVerifyingKey::<MlDsa44>::try_from(public)
            .map_err(|_| bad("not a 1312-byte key"))?;
        let vkey = MlDsaVkey {
            name: name.to_string(),
            public: public.to_vec(),
            key: VerifyingKey::<MlDsa44>::decode(&encoded),
        };
        if id != hex::encode(vkey.id()) {
            return Err(bad("the key id does not match the name and key"));
        }
        Ok(vkey)
    }

    /// Reads a verifier key of type `0x06`, checking its id against its name and key.
    pub fn parse(text: &str) -> Result<MlDsaVkey, NoteError> {
        let (name, id, raw) = crate::note::vkey_parts(text)?;
        MlDsaVkey::from_parts(name, id, &raw)
    }

    /// The key's id: `SHA-256(name ‖ "\n" ‖ 0x06 ‖ public key)[:4]`.
    pub fn id(&self) -> [u8; 4] {
        key_id(&self.name, ML_DSA_44, &self.public)
    }

    /// Whether `signature` is an ML-DSA-44 signature of `message` by this key (empty context).
    pub fn verify_raw(&self, message: &[u8], signature: &[u8]) -> bool {
        Signature::<MlDsa44>::try_from(signature)
            .is_ok_and(|sig| self.key.verify_with_context(message, b"", &sig))
    }

    /// Checks `signature` as this cosigner's over `[start, end)` of `origin` with `hash`: its
    /// timestamp when it verifies.
    pub fn verify(
        &self,
        origin: &str,
        start: u64,
        end: u64,
        hash: &Hash,
        signature: &NoteSignature,
    ) -> Result<u64, CosignatureError> {
        if signature.name != self.name || signature.key_id != self.id() {
            return Err(CosignatureError::OtherKey);
        }
        if signature.bytes.len() != 8 + SIGNATURE_LEN {
            return Err(CosignatureError::Length);
        }
        let (time, sig) = signature.bytes.split_at(8);
        let timestamp = u64::from_be_bytes(time.try_into().map_err(|_| CosignatureError::Length)?);
        if timestamp > MAX_TIMESTAMP || (start != 0 && timestamp != 0) {
            return Err(CosignatureError::Timestamp);
        }
        let message = message(&self.name, timestamp, origin, start, end, hash)
            .ok_or(CosignatureError::BadSignature)?;
        if self.verify_raw(&message, sig) {
            Ok(timestamp)
        } else {
            Err(CosignatureError::BadSignature)
        }
    }

    /// Checks `signature` as this cosigner's over the checkpoint `text` (`[0, size)` and its
    /// root): its timestamp when it verifies. A checkpoint's cosignature carries a time.
    pub fn verify_checkpoint(
        &self,
        text: &str,
        signature: &NoteSignature,
    ) -> Result<u64, CosignatureError> {
        let checkpoint = Checkpoint::parse(text).map_err(|_| CosignatureError::BadSignature)?;
        let time = self.verify(
            &checkpoint.origin,
            0,
            checkpoint.size,
            &checkpoint.root,
            signature,
        )?;
        if time == 0 {
            return Err(CosignatureError::Timestamp);
        }
        Ok(time)
    }
}

impl std::fmt::Display for MlDsaVkey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut raw = vec![ML_DSA_44];
        raw.extend_from_slice(&self.public);
        write!(
            f,
            "{}+{}+{}",
            self.name,
            hex::encode(self.id()),
            STANDARD.encode(raw)
        )
    }
}
