//! Signing keys: the Ed25519 key in the data directory (created only for an empty log, file mode
//! 0600), its id (the first 16 bytes of SHA-256 of the public key), and the signature a retiring
//! key gives its successor in a rotation. A key file is read only if it is exactly 32 bytes and
//! neither group nor others may read or write it.
//!
//! Owns key material and files; the log records public keys as entries (`KeyPublished`,
//! `KeyRotated`), which the writer appends; whether a key is the log's is decided when the ledger
//! opens (`integrity/`).

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use ed25519_dalek::{Signer, SigningKey, VerifyingKey};
use sha2::{Digest, Sha256};

/// The file holding the current signing key's 32 secret bytes.
pub const KEY_FILE: &str = "signing.key";
/// Where retired keys are kept (never used to sign again).
pub const RETIRED_DIR: &str = "retired-keys";
/// Domain separation for the retiring key's signature over its successor.
pub const ROTATION_DOMAIN: &[u8] = b"pitboss.v1.key-rotation\0";

/// A key id: the first 16 bytes of SHA-256 of the public key.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyId(pub [u8; 16]);

impl KeyId {
    /// The id of a public key.
    pub fn of(key: &VerifyingKey) -> KeyId {
        let digest = Sha256::digest(key.as_bytes());
        let mut id = [0; 16];
        id.copy_from_slice(&digest[..16]);
        KeyId(id)
    }

    /// From 16 bytes.
    pub fn from_slice(bytes: &[u8]) -> Option<KeyId> {
        bytes.try_into().ok().map(KeyId)
    }
}

impl fmt::Display for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

impl fmt::Debug for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeyId({self})")
    }
}

/// Key file trouble.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("key file {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("key file {path} is missing")]
    Missing { path: PathBuf },
    #[error("key file {path} holds {len} bytes, not a 32-byte Ed25519 secret")]
    Malformed { path: PathBuf, len: usize },
    #[error("key file {path} has mode {mode:o}: a secret key must be readable by its owner only (chmod 600)")]
    Exposed { path: PathBuf, mode: u32 },
    #[error("the operating system's random source failed: {0}")]
    Random(String),
}

/// A signing key and its id.
pub struct Keypair {
    key: SigningKey,
    id: KeyId,
}

impl Keypair {
    /// From secret bytes.
    pub fn from_secret(secret: [u8; 32]) -> Keypair {
        let key = SigningKey::from_bytes(&secret);
        let id = KeyId::of(&key.verifying_key());
        Keypair { key, id }
    }

    /// A fresh key from the operating system's CSPRNG.
    pub fn generate() -> Result<Keypair, KeyError> {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).map_err(|e| KeyError::Random(e.to_string()))?;
        Ok(Keypair::from_secret(secret))
    }

    /// The id.
    pub fn id(&self) -> KeyId {
        self.id
    }

    /// The public key.
    pub fn public(&self) -> VerifyingKey {
        self.key.verifying_key()
    }

    /// Signs a hash.
    pub fn sign(&self, hash: &[u8; 32]) -> [u8; 64] {
        self.key.sign(hash).to_bytes()
    }

    /// Signs a message (a checkpoint's body).
    pub fn sign_message(&self, message: &[u8]) -> [u8; 64] {
        self.key.sign(message).to_bytes()
    }

    /// What this (retiring) key signs to hand over to `next`.
    pub fn sign_successor(&self, next: &Keypair) -> [u8; 64] {
        self.key
            .sign(&rotation_message(next.id, &next.public()))
            .to_bytes()
    }

    /// Loads the key in `dir`, or creates one (mode 0600) if there is none. Returns whether it was
    /// created. Only for an empty log: a log's entries are signed by the key it already has.
    pub fn load_or_create(dir: &Path) -> Result<(Keypair, bool), KeyError> {
        match Keypair::load(dir) {
            Ok(key) => Ok((key, false)),
            Err(KeyError::Missing { path }) => {
                let key = Keypair::generate()?;
                key.write_to(&path)?;
                Ok((key, true))
            }
            Err(e) => Err(e),
        }
    }

    /// Loads the key in `dir`; never creates one.
    pub fn load(dir: &Path) -> Result<Keypair, KeyError> {
        Keypair::read(&dir.join(KEY_FILE))
    }

    /// Reads a key file: exactly 32 secret bytes, readable by its owner only.
    pub fn read(path: &Path) -> Result<Keypair, KeyError> {
        read_secret(path).map(Keypair::from_secret)
    }

    /// Writes the secret to `path` atomically (temporary file, fsync, rename), mode 0600.
    pub fn write_to(&self, path: &Path) -> Result<(), KeyError> {
        write_secret(path, &self.key.to_bytes())
    }
}

/// Reads a secret key file (an Ed25519 key, a witness's ML-DSA-44 seed): exactly 32 bytes,
/// readable by its owner only.
pub fn read_secret(path: &Path) -> Result<[u8; 32], KeyError> {
    let io = |source| KeyError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(KeyError::Missing {
                path: path.to_path_buf(),
            })
        }
        Err(source) => return Err(io(source)),
    };
    // At most one byte more than a key: enough to tell a longer file, whatever its size.
    let mut bytes = Vec::with_capacity(33);
    std::io::Read::read_to_end(&mut std::io::Read::take(&file, 33), &mut bytes).map_err(io)?;
    if bytes.len() > 32 {
        let len = file.metadata().map_err(io)?.len();
        return Err(KeyError::Malformed {
            path: path.to_path_buf(),
            len: usize::try_from(len).unwrap_or(usize::MAX),
        });
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)
            .map_err(|source| KeyError::Io {
                path: path.to_path_buf(),
                source,
            })?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            return Err(KeyError::Exposed {
                path: path.to_path_buf(),
                mode: mode & 0o7777,
            });
        }
    }
    let secret: [u8; 32] = bytes
        .as_slice()
        .try_into()
        .map_err(|_| KeyError::Malformed {
            path: path.to_path_buf(),
            len: bytes.len(),
        })?;
    Ok(secret)
}

/// Writes a 32-byte secret to `path` atomically (temporary file, fsync, rename), mode 0600.
pub fn write_secret(path: &Path, secret: &[u8; 32]) -> Result<(), KeyError> {
    let io = |source| KeyError::Io {
        path: path.to_path_buf(),
        source,
    };
    let tmp = path.with_extension("tmp");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(&tmp).map_err(io)?;
    file.write_all(secret).map_err(io)?;
    file.sync_all().map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)?;
    if let Some(parent) = path.parent() {
        std::fs::File::open(parent)
            .and_then(|d| d.sync_all())
            .map_err(io)?;
    }
    Ok(())
}

/// The message a retiring key signs for its successor.
pub fn rotation_message(next_id: KeyId, next_public: &VerifyingKey) -> Vec<u8> {
    let mut message = ROTATION_DOMAIN.to_vec();
    message.extend_from_slice(&next_id.0);
    message.extend_from_slice(next_public.as_bytes());
    message
}

/// This machine's signing rate: signatures per second over `threads` threads signing
/// `per_thread` hashes each with keys of their own — the reference the write path and the
/// benchmarks are held to, measured in the same run as what is compared with it.
pub fn signing_rate(threads: u8, per_thread: u64) -> f64 {
    let started = std::time::Instant::now();
    std::thread::scope(|scope| {
        for t in 0..threads {
            scope.spawn(move || {
                let key = Keypair::from_secret([t.wrapping_add(1); 32]);
                let mut acc = 0u8;
                for i in 0..per_thread {
                    let mut hash = [0u8; 32];
                    hash[..8].copy_from_slice(&i.to_le_bytes());
                    acc ^= key.sign(&hash)[0];
                }
                std::hint::black_box(acc);
            });
        }
    });
    (u64::from(threads) * per_thread) as f64 / started.elapsed().as_secs_f64().max(1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_once_with_mode_0600_and_reloaded() {
        let dir = tempfile::tempdir().unwrap();
        let (a, created) = Keypair::load_or_create(dir.path()).unwrap();
        assert!(created);
        let (b, created) = Keypair::load_or_create(dir.path()).unwrap();
        assert!(!created);
        assert_eq!(a.id(), b.id());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(KEY_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let path = dir.path().join(KEY_FILE);
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
            let err = Keypair::load(dir.path()).err().unwrap();
            assert!(
                matches!(err, KeyError::Exposed { mode: 0o644, .. }),
                "{err}"
            );
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        std::fs::write(dir.path().join(KEY_FILE), b"short").unwrap();
        assert!(matches!(
            Keypair::load_or_create(dir.path()),
            Err(KeyError::Malformed { len: 5, .. })
        ));
        // A huge (sparse) file is named by its size, not read.
        std::fs::File::options()
            .write(true)
            .open(dir.path().join(KEY_FILE))
            .unwrap()
            .set_len(1 << 40)
            .unwrap();
        assert!(matches!(
            Keypair::load(dir.path()),
            Err(KeyError::Malformed { len, .. }) if len == 1 << 40
        ));
        std::fs::remove_file(dir.path().join(KEY_FILE)).unwrap();
        assert!(matches!(
            Keypair::load(dir.path()),
            Err(KeyError::Missing { .. })
        ));
    }
}
