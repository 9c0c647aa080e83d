//! The checks a log on PostgreSQL passes before a server writes to it: the head row agrees with
//! the last entry (which decodes and whose signature verifies with a key the log published), the
//! format is one this build reads, and the server's key file is the key that signed the last
//! entry (or, for an empty log, is created here and published first).
//!
//! The whole chain is not walked at every start (several servers start and restart against one
//! database): `pitboss verify --store postgres://…` does that, and the head row binds the chain's
//! end, which is what a writer continues from.
//!
//! A read-only server (a regulator's replica, `serve --read-only`) passes the same checks on a
//! read-only connection, without a key file or with a copy of one the log published (it signs
//! checkpoints only while it is the current key: `replica.rs`).
//!
//! Owns these checks; MUST NOT write anything but the head row and format record of an empty log
//! and a new log's key file, and nothing at all for a read-only server.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ed25519_dalek::{Verifier, VerifyingKey};

use super::entry::{Entry, Hash};
use super::integrity::{check_keys, KeyRefusal};
use super::keys::{KeyError, KeyId, Keypair, KEY_FILE};
use super::pg::PgStore;
use super::store::{
    cf, readable_format, LogStore, StoreError, FORMAT_VERSION, LEGACY_FORMAT_VERSION,
    SIGNED_FORMAT_VERSION,
};

/// Why a PostgreSQL log is not served.
#[derive(Debug, thiserror::Error)]
pub enum PgRefusal {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{database}: the head row says {size} entries ending at {head}, but {found}")]
    HeadDisagrees {
        database: String,
        size: u64,
        head: String,
        found: String,
    },
    #[error(
        "{database}: format {found}; this build reads {LEGACY_FORMAT_VERSION} to {FORMAT_VERSION}"
    )]
    Format { database: String, found: String },
    #[error("{database}: the key file: {refusal}")]
    Key {
        database: String,
        refusal: KeyRefusal,
    },
    #[error("{database}: the last entry's signature does not verify with its key {key}")]
    BadSignature { database: String, key: String },
}

/// A PostgreSQL log checked and ready for a writer.
pub(crate) struct PgOpened {
    pub store: Arc<PgStore>,
    pub key_dir: PathBuf,
    pub key: Keypair,
    pub next_sequence: u64,
    pub last_hash: Hash,
    /// The log is empty: publish the key first.
    pub publish_key: bool,
}

/// A PostgreSQL log checked for a read-only server (a regulator's replica): no writer, and a key
/// only if the server was given one (to sign checkpoints).
pub(crate) struct PgReading {
    pub store: Arc<PgStore>,
    /// The key file, when the server's directory holds one: a key the log published (it signs
    /// only while it is the log's current key).
    pub key: Option<Keypair>,
    pub size: u64,
}

/// What the checks of the head row and the last entry found.
struct Head {
    size: u64,
    hash: Hash,
    /// The key that signed the last entry (`None`: an empty log).
    current: Option<KeyId>,
    /// Every key the log published.
    established: HashMap<KeyId, VerifyingKey>,
}

/// Connects to `url` and checks the log there for a server whose key file is in `key_dir`.
pub(crate) fn open(url: &str, key_dir: &Path) -> Result<PgOpened, PgRefusal> {
    let store = Arc::new(PgStore::connect(url)?);
    let Head {
        size,
        hash,
        current,
        established,
    } = check_head(&store, true)?;
    let refused = |refusal| PgRefusal::Key {
        database: store.describe(),
        refusal,
    };
    let key = match check_keys(key_dir, size, current, &established).map_err(refused)? {
        Some(key) => key,
        None => {
            let (key, _) =
                Keypair::load_or_create(key_dir).map_err(|e| refused(KeyRefusal::Unusable(e)))?;
            key
        }
    };
    Ok(PgOpened {
        store,
        key_dir: key_dir.to_path_buf(),
        key,
        next_sequence: size,
        last_hash: hash,
        publish_key: size == 0,
    })
}

/// Connects to `url` only to read ([`PgStore::connect_reading`]) and checks the log there as
/// [`open`] does, writing nothing; a key file in `key_dir`, if there is one, must hold a key the
/// log published (the current one signs; a retired one is kept but signs nothing, which the
/// follower checks at every signature, so a rotation by a writer does not stop a restart).
pub(crate) fn open_reading(url: &str, key_dir: Option<&Path>) -> Result<PgReading, PgRefusal> {
    let store = Arc::new(PgStore::connect_reading(url)?);
    let Head {
        size, established, ..
    } = check_head(&store, false)?;
    let refused = |refusal| PgRefusal::Key {
        database: store.describe(),
        refusal,
    };
    let key = match key_dir.map(|dir| dir.join(KEY_FILE)) {
        None => None,
        Some(path) => match Keypair::read(&path) {
            Err(KeyError::Missing { .. }) => None,
            Err(e) => return Err(refused(KeyRefusal::Unusable(e))),
            Ok(key) if established.get(&key.id()) == Some(&key.public()) => Some(key),
            Ok(key) => {
                return Err(refused(KeyRefusal::NotPublished {
                    path,
                    found: key.id(),
                }))
            }
        },
    };
    Ok(PgReading { store, key, size })
}

/// The head row against the last entry (which decodes, hashes to the head and carries a
/// signature by a key the log published), and the format record. `create`: make the head row and
/// the format record of an empty log (a writer); otherwise a database without a head row is
/// refused.
fn check_head(store: &PgStore, create: bool) -> Result<Head, PgRefusal> {
    let database = store.describe();
    if create {
        store.ensure_head_row()?;
    }
    let (size, head, last) =
        store
            .head_and_last_entry()?
            .ok_or_else(|| PgRefusal::HeadDisagrees {
                database: database.clone(),
                size: 0,
                head: "nothing".into(),
                found: "pitboss_head holds no row (no writing server has opened this log)".into(),
            })?;
    let head: Hash = head.try_into().map_err(|_| PgRefusal::HeadDisagrees {
        database: database.clone(),
        size,
        head: "a hash that is not 32 bytes".into(),
        found: "a head row is 32 bytes".into(),
    })?;
    let disagrees = |found: String| PgRefusal::HeadDisagrees {
        database: database.clone(),
        size,
        head: hex::encode(head),
        found,
    };
    let current: Option<KeyId> = match (size, last) {
        (0, None) => None,
        (_, None) => return Err(disagrees("the log holds no entry".into())),
        (size, Some((sequence, bytes))) => {
            if sequence.checked_add(1) != Some(size) {
                return Err(disagrees(format!("the last entry is {sequence}")));
            }
            let entry = Entry::decode(&bytes)
                .map_err(|e| disagrees(format!("entry {sequence} does not decode: {e}")))?;
            if entry.hash != head {
                return Err(disagrees(format!(
                    "entry {sequence}'s hash is {}",
                    hex::encode(entry.hash)
                )));
            }
            let id = KeyId::from_slice(&entry.envelope.key_id)
                .ok_or_else(|| disagrees(format!("entry {sequence}'s key id is not 16 bytes")))?;
            let public = store
                .get(cf::KEYS, &id.0)?
                .and_then(|b| <[u8; 32]>::try_from(b.as_slice()).ok())
                .and_then(|b| VerifyingKey::from_bytes(&b).ok());
            // The last entry ends a group: it is always signed.
            let Some(signature) = entry
                .signature
                .map(|s| ed25519_dalek::Signature::from_bytes(&s))
            else {
                return Err(disagrees(format!(
                    "entry {sequence}, the last, carries no signature (a group's last entry always does)"
                )));
            };
            let good = public.is_some_and(|key| key.verify(&entry.hash, &signature).is_ok());
            if !good {
                return Err(PgRefusal::BadSignature {
                    database,
                    key: id.to_string(),
                });
            }
            Some(id)
        }
    };
    match store.get(cf::META, super::store::FORMAT_KEY)? {
        None if size == 0 && create => store.put_record(
            cf::META,
            super::store::FORMAT_KEY,
            &FORMAT_VERSION.to_be_bytes(),
        )?,
        None => {}
        Some(bytes) => match <[u8; 4]>::try_from(bytes.as_slice()).map(u32::from_be_bytes) {
            Ok(v) if v == FORMAT_VERSION => {}
            // A log every entry of which is signed is valid format 4: marked so when opened to
            // write (a release reading only 3 then refuses it by its format).
            Ok(v) if v == SIGNED_FORMAT_VERSION && create => store.put_record(
                cf::META,
                super::store::FORMAT_KEY,
                &FORMAT_VERSION.to_be_bytes(),
            )?,
            Ok(v) if readable_format(v) => {}
            _ => {
                return Err(PgRefusal::Format {
                    database,
                    found: hex::encode(bytes),
                })
            }
        },
    }
    let established: HashMap<KeyId, VerifyingKey> = store
        .known_keys()?
        .into_iter()
        .filter_map(|(id, public)| {
            let id = KeyId::from_slice(&id)?;
            let public = VerifyingKey::from_bytes(&public.try_into().ok()?).ok()?;
            Some((id, public))
        })
        .collect();
    Ok(Head {
        size,
        hash: head,
        current,
        established,
    })
}
