//! The anchor: the last head the ledger acknowledged, kept in a file of its own beside the database
//! (`anchor` in the data directory), so that a log that lost its tail (a truncated or removed
//! write-ahead log, table files put back from an older copy) is told apart from a log that was
//! never longer. The writer rewrites it after every group's write-ahead-log sync and before it
//! acknowledges the group (`writer/`); opening the ledger and `pitboss verify` compare the log
//! with it (`integrity/`).
//!
//! The file is 1 024 bytes: two slots of 512 bytes, written alternately in place (`pwrite`, then
//! `fdatasync`), so a write never touches the slot that holds the previous anchor. A slot:
//!
//! | offset | bytes | content |
//! | --- | --- | --- |
//! | 0 | 8 | magic `PBANCHOR` |
//! | 8 | 4 | slot format, 1 (u32 big-endian) |
//! | 12 | 4 | zero |
//! | 16 | 8 | counter: how many times the anchor was written (u64 BE); the newer slot has the larger |
//! | 24 | 8 | size: entries acknowledged, 0 ..= size − 1 (u64 BE) |
//! | 32 | 32 | head: the hash of entry size − 1 (zeros when size is 0) |
//! | 64 | 32 | origin: the hash of entry 0, naming the log (zeros when size is 0) |
//! | 96 | 16 | the signing key's id |
//! | 112 | 32 | the signing key's Ed25519 public key |
//! | 144 | 64 | Ed25519 signature over `"pitboss.v1.anchor\0"` ‖ bytes 0..144 |
//! | 208 | 32 | SHA-256 of bytes 0..208 |
//! | 240 | 272 | zero |
//!
//! Both slots must check: the newer holds the acknowledged head, the older the one before it
//! (counters one apart). Owns the file's bytes; knows nothing of the database.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use ed25519_dalek::{Signature, Verifier, VerifyingKey};
use sha2::{Digest, Sha256};

use super::entry::Hash;
use super::keys::{KeyId, Keypair};

/// The anchor's file name in the data directory.
pub const ANCHOR_FILE: &str = "anchor";
/// Bytes per slot; the file holds two.
pub const SLOT: usize = 512;
const MAGIC: &[u8; 8] = b"PBANCHOR";
const SLOT_FORMAT: u32 = 1;
/// Domain separation for the anchor's signature.
pub const ANCHOR_DOMAIN: &[u8] = b"pitboss.v1.anchor\0";
const SIGNED: usize = 144;
const SUMMED: usize = 208;

/// One slot's content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Anchor {
    /// How many times the anchor was written when this slot was.
    pub counter: u64,
    /// Entries acknowledged: 0 ..= size − 1.
    pub size: u64,
    /// The hash of entry `size − 1`.
    pub head: Hash,
    /// The hash of entry 0 (the log's name).
    pub origin: Hash,
    /// The key that signed the slot.
    pub key_id: KeyId,
    /// Its public key.
    pub public: VerifyingKey,
}

/// The two slots of a file that checks: the newer first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slots {
    /// The acknowledged head.
    pub newer: Anchor,
    /// The anchor before it.
    pub older: Anchor,
}

/// Why an anchor file cannot be trusted.
#[derive(Debug, thiserror::Error)]
pub enum AnchorError {
    #[error("the anchor {path} cannot be read: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the anchor {path} holds {len} bytes, not {expected}", expected = 2 * SLOT)]
    Size { path: PathBuf, len: u64 },
    #[error("the anchor {path} is damaged in slot {slot} (bytes {start}..{end}): {problem}", start = slot * SLOT, end = (slot + 1) * SLOT)]
    Slot {
        path: PathBuf,
        slot: usize,
        problem: SlotProblem,
    },
    #[error("the anchor {path} does not hold two consecutive anchors of one log: {problem}")]
    Inconsistent { path: PathBuf, problem: String },
}

/// What is wrong with one slot of the anchor file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SlotProblem {
    #[error("{0} bytes, not {SLOT}")]
    Length(usize),
    #[error("no anchor magic")]
    Magic,
    #[error("slot format {0}, this build reads {SLOT_FORMAT}")]
    Format(u32),
    #[error("checksum mismatch: altered or torn bytes")]
    Checksum,
    #[error("non-zero bytes where the format has zeros")]
    Padding,
    #[error("the public key is not an Ed25519 key")]
    PublicKey,
    #[error("the key id is not that of the public key")]
    KeyId,
    #[error("the signature does not verify")]
    Signature,
}

impl Anchor {
    /// The slot's bytes, signed by `key`.
    fn encode(&self, key: &Keypair) -> [u8; SLOT] {
        let mut out = [0u8; SLOT];
        out[0..8].copy_from_slice(MAGIC);
        out[8..12].copy_from_slice(&SLOT_FORMAT.to_be_bytes());
        out[16..24].copy_from_slice(&self.counter.to_be_bytes());
        out[24..32].copy_from_slice(&self.size.to_be_bytes());
        out[32..64].copy_from_slice(&self.head);
        out[64..96].copy_from_slice(&self.origin);
        out[96..112].copy_from_slice(&key.id().0);
        out[112..144].copy_from_slice(key.public().as_bytes());
        let signature = key.sign_message(&signed_message(&out[..SIGNED]));
        out[144..208].copy_from_slice(&signature);
        let sum: [u8; 32] = Sha256::digest(&out[..SUMMED]).into();
        out[208..240].copy_from_slice(&sum);
        out
    }

    /// Reads and checks one slot: framing, checksum, key id and signature.
    fn decode(bytes: &[u8]) -> Result<Anchor, SlotProblem> {
        if bytes.len() != SLOT {
            return Err(SlotProblem::Length(bytes.len()));
        }
        if &bytes[0..8] != MAGIC {
            return Err(SlotProblem::Magic);
        }
        let format = u32::from_be_bytes(array(&bytes[8..12]));
        if format != SLOT_FORMAT {
            return Err(SlotProblem::Format(format));
        }
        let sum: [u8; 32] = Sha256::digest(&bytes[..SUMMED]).into();
        if sum[..] != bytes[208..240] {
            return Err(SlotProblem::Checksum);
        }
        if bytes[12..16].iter().chain(&bytes[240..]).any(|&b| b != 0) {
            return Err(SlotProblem::Padding);
        }
        let public = VerifyingKey::from_bytes(&array(&bytes[112..144]))
            .map_err(|_| SlotProblem::PublicKey)?;
        let key_id = KeyId(array(&bytes[96..112]));
        if KeyId::of(&public) != key_id {
            return Err(SlotProblem::KeyId);
        }
        public
            .verify(
                &signed_message(&bytes[..SIGNED]),
                &Signature::from_bytes(&array(&bytes[144..208])),
            )
            .map_err(|_| SlotProblem::Signature)?;
        Ok(Anchor {
            counter: u64::from_be_bytes(array(&bytes[16..24])),
            size: u64::from_be_bytes(array(&bytes[24..32])),
            head: array(&bytes[32..64]),
            origin: array(&bytes[64..96]),
            key_id,
            public,
        })
    }
}

fn signed_message(content: &[u8]) -> Vec<u8> {
    let mut message = ANCHOR_DOMAIN.to_vec();
    message.extend_from_slice(content);
    message
}

fn array<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(bytes);
    out
}

/// The anchor file of a data directory.
pub fn path_in(dir: &Path) -> PathBuf {
    dir.join(ANCHOR_FILE)
}

/// Reads and checks the anchor file: `None` when there is none.
pub fn read(path: &Path) -> Result<Option<Slots>, AnchorError> {
    let io = |source| AnchorError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(io(source)),
    };
    let len = file.metadata().map_err(io)?.len();
    if len != (2 * SLOT) as u64 {
        return Err(AnchorError::Size {
            path: path.to_path_buf(),
            len,
        });
    }
    // Never more than the two slots, whatever the file grows to meanwhile.
    let mut bytes = Vec::with_capacity(2 * SLOT);
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, (2 * SLOT) as u64),
        &mut bytes,
    )
    .map_err(io)?;
    if bytes.len() != 2 * SLOT {
        return Err(AnchorError::Size {
            path: path.to_path_buf(),
            len: bytes.len() as u64,
        });
    }
    let slot = |i: usize| {
        Anchor::decode(&bytes[i * SLOT..(i + 1) * SLOT]).map_err(|problem| AnchorError::Slot {
            path: path.to_path_buf(),
            slot: i,
            problem,
        })
    };
    let (a, b) = (slot(0)?, slot(1)?);
    let inconsistent = |problem: String| AnchorError::Inconsistent {
        path: path.to_path_buf(),
        problem,
    };
    if slot_of(a.counter) != 0 || slot_of(b.counter) != 1 {
        return Err(inconsistent(format!(
            "counter {} in slot 0 and {} in slot 1: each slot takes the counters of its parity",
            a.counter, b.counter
        )));
    }
    let (newer, older) = if a.counter > b.counter {
        (a, b)
    } else {
        (b, a)
    };
    if older.counter.checked_add(1) != Some(newer.counter) {
        return Err(inconsistent(format!(
            "counters {} and {} are not consecutive",
            older.counter, newer.counter
        )));
    }
    if older.size > newer.size {
        return Err(inconsistent(format!(
            "the newer slot (counter {}) holds {} entries, the older {}",
            newer.counter, newer.size, older.size
        )));
    }
    if older.size > 0 && older.origin != newer.origin {
        return Err(inconsistent("the slots name different logs".into()));
    }
    Ok(Some(Slots { newer, older }))
}

/// The slot a write with this counter goes to.
fn slot_of(counter: u64) -> usize {
    (counter % 2) as usize
}

/// Reads the anchor, retrying a few times when a slot does not check: a server writing the anchor
/// while a reader (`pitboss verify`) reads it can show the reader a slot half written. Damage that
/// persists is reported.
pub fn read_settled(path: &Path) -> Result<Option<Slots>, AnchorError> {
    let mut attempt = 0;
    loop {
        match read(path) {
            Err(AnchorError::Slot { .. }) | Err(AnchorError::Inconsistent { .. })
                if attempt < 4 =>
            {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

/// Writes anchors: the open file and the last counter written.
pub struct AnchorWriter {
    /// `None` until the first write when replacing a file that cannot be continued.
    file: Option<File>,
    path: PathBuf,
    counter: u64,
}

impl AnchorWriter {
    /// Creates the file with both slots holding `size`/`head`/`origin` (atomically: a temporary
    /// file, synced, renamed, the directory synced).
    pub fn create(
        path: &Path,
        size: u64,
        head: Hash,
        origin: Hash,
        key: &Keypair,
    ) -> std::io::Result<AnchorWriter> {
        let tmp = path.with_extension("tmp");
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)?;
        for counter in 0..2 {
            let anchor = Anchor {
                counter,
                size,
                head,
                origin,
                key_id: key.id(),
                public: key.public(),
            };
            file.write_all(&anchor.encode(key))?;
        }
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)?;
        if let Some(parent) = path.parent() {
            File::open(parent)?.sync_all()?;
        }
        AnchorWriter::open(path, 1)
    }

    /// Opens an existing, checked anchor file whose newer slot has `counter`.
    pub fn open(path: &Path, counter: u64) -> std::io::Result<AnchorWriter> {
        let file = OpenOptions::new().read(true).write(true).open(path)?;
        Ok(AnchorWriter {
            file: Some(file),
            path: path.to_path_buf(),
            counter,
        })
    }

    /// A writer whose first write replaces the file at `path` whole (created as by
    /// [`AnchorWriter::create`]), whatever it holds now: for a recovery, which must not touch the
    /// old anchor before the record of the recovery is durable in the log.
    pub fn replacing(path: &Path) -> AnchorWriter {
        AnchorWriter {
            file: None,
            path: path.to_path_buf(),
            counter: 0,
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the next anchor into the older slot and waits until it is on disk.
    pub fn write(
        &mut self,
        size: u64,
        head: Hash,
        origin: Hash,
        key: &Keypair,
    ) -> std::io::Result<()> {
        let Some(file) = &self.file else {
            *self = AnchorWriter::create(&self.path, size, head, origin, key)?;
            return Ok(());
        };
        let counter = self.counter + 1;
        let anchor = Anchor {
            counter,
            size,
            head,
            origin,
            key_id: key.id(),
            public: key.public(),
        };
        let offset = (slot_of(counter) * SLOT) as u64;
        write_at(file, &anchor.encode(key), offset)?;
        file.sync_data()?;
        self.counter = counter;
        Ok(())
    }
}

#[cfg(unix)]
fn write_at(file: &File, bytes: &[u8], offset: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.write_all_at(bytes, offset)
}

#[cfg(not(unix))]
fn write_at(mut file: &File, bytes: &[u8], offset: u64) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(offset))?;
    file.write_all(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_alternately_read_back_and_every_damage_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_in(dir.path());
        let key = Keypair::from_secret([5; 32]);
        assert!(read(&path).unwrap().is_none());
        let mut writer = AnchorWriter::create(&path, 1, [1; 32], [1; 32], &key).unwrap();
        let slots = read(&path).unwrap().unwrap();
        assert_eq!((slots.newer.counter, slots.newer.size), (1, 1));
        writer.write(5, [5; 32], [1; 32], &key).unwrap();
        writer.write(9, [9; 32], [1; 32], &key).unwrap();
        let slots = read(&path).unwrap().unwrap();
        assert_eq!(
            (slots.newer.counter, slots.newer.size, slots.newer.head),
            (3, 9, [9; 32])
        );
        assert_eq!((slots.older.counter, slots.older.size), (2, 5));
        assert_eq!(slots.newer.key_id, key.id());

        let good = std::fs::read(&path).unwrap();
        // Any flipped byte, in either slot, is named with its slot.
        for at in [0usize, 20, 40, 100, 150, 230, 300, 511, 512 + 30, 1023] {
            let mut bad = good.clone();
            bad[at] ^= 0x10;
            std::fs::write(&path, &bad).unwrap();
            match read(&path) {
                Err(AnchorError::Slot { slot, .. }) => assert_eq!(slot, at / SLOT, "byte {at}"),
                other => panic!("byte {at}: {other:?}"),
            }
        }
        // Cut short, or grown huge (sparse: nothing of it is read).
        std::fs::write(&path, &good[..700]).unwrap();
        assert!(matches!(
            read(&path),
            Err(AnchorError::Size { len: 700, .. })
        ));
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(1 << 40)
            .unwrap();
        assert!(matches!(read(&path), Err(AnchorError::Size { len, .. }) if len == 1 << 40));
        // A slot from an older file put in place of the current one: counters not consecutive.
        let mut mixed = good.clone();
        let older_writer_file = dir.path().join("old");
        AnchorWriter::create(&older_writer_file, 1, [1; 32], [1; 32], &key).unwrap();
        let old = std::fs::read(&older_writer_file).unwrap();
        mixed[..SLOT].copy_from_slice(&old[..SLOT]);
        std::fs::write(&path, &mixed).unwrap();
        let err = read(&path).unwrap_err();
        assert!(matches!(err, AnchorError::Inconsistent { .. }), "{err}");
        // Signed by another key: each slot still checks with the key it names (the caller holds
        // the key to the log's keys).
        std::fs::write(&path, &good).unwrap();
        let other = Keypair::from_secret([6; 32]);
        let mut writer = AnchorWriter::open(&path, 3).unwrap();
        writer.write(10, [10; 32], [1; 32], &other).unwrap();
        assert_eq!(read(&path).unwrap().unwrap().newer.key_id, other.id());
        // A replacing writer leaves the file alone until it writes, then writes it whole.
        std::fs::write(&path, b"damaged").unwrap();
        let mut writer = AnchorWriter::replacing(&path);
        assert_eq!(std::fs::read(&path).unwrap(), b"damaged");
        writer.write(3, [3; 32], [1; 32], &key).unwrap();
        writer.write(4, [4; 32], [1; 32], &key).unwrap();
        let slots = read(&path).unwrap().unwrap();
        assert_eq!((slots.newer.size, slots.older.size), (4, 3));
    }
}
