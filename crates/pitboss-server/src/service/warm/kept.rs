//! What a server computed and keeps in its data directory (`prepared/`) so that a restart need not
//! compute it again: a configuration's strategy tables and its theoretical returns, one file each,
//! named by what it holds and the configuration's id.
//!
//! A file holds a header — `PBKEPT01`, its kind, the lab's revision ([`pitboss_lab::REVISION`]),
//! the configuration's id, the length of what follows — the payload, and the SHA-256 of all of
//! that. It is used only if every part checks: a file of another kind, configuration or revision, a
//! length past [`MAX_PAYLOAD`] or not the file's, or a digest that does not match is refused with
//! why, and the caller computes anew and writes it again. Files are written whole and durably (a
//! temporary file, synced, renamed over the old one, the directory synced), so a crash leaves the
//! old file or the new one.
//!
//! Owns the files' bytes only; what a payload means is the lab's (tables) or `crate::returns`'
//! (theories). Must not trust a file: nothing is allocated by a length before the file's own size
//! is known to match it.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use pitboss_engine::config::ConfigId;
use sha2::{Digest, Sha256};

/// The directory under the data directory that holds the kept files.
pub const DIR: &str = "prepared";
/// The first bytes of every kept file.
const MAGIC: &[u8; 8] = b"PBKEPT01";
/// Magic, kind, revision, configuration id, payload length.
const HEADER: usize = 8 + 1 + 4 + 32 + 8;
/// The largest payload kept (Caribbean Stud's decision table is about 4.2 MB).
pub const MAX_PAYLOAD: u64 = 64 << 20;

/// What a kept file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A configuration's strategy tables (`StrategyTables::to_bytes`).
    Tables,
    /// A configuration's theoretical returns (`returns::theory::to_bytes`).
    Theory,
}

impl Kind {
    fn byte(self) -> u8 {
        match self {
            Kind::Tables => 1,
            Kind::Theory => 2,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Tables => "tables",
            Kind::Theory => "theory",
        }
    }
}

/// Why a kept file is not used.
#[derive(Debug, thiserror::Error)]
pub enum KeptError {
    /// It could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// It is not a kept file of this kind and configuration.
    #[error("{path}: not a kept {kind} file of configuration {config}")]
    NotThis {
        path: PathBuf,
        kind: &'static str,
        config: ConfigId,
    },
    /// It was computed by another revision of the lab.
    #[error("{path}: computed by lab revision {found}, this is revision {current}")]
    Revision {
        path: PathBuf,
        found: u32,
        current: u32,
    },
    /// Its length is not the one its header gives, or past the bound.
    #[error("{path}: {size} bytes, which its header's payload length {payload} does not explain")]
    Length {
        path: PathBuf,
        size: u64,
        payload: u64,
    },
    /// Its bytes are not the ones written: its SHA-256 does not match.
    #[error("{path}: its SHA-256 does not match its contents (damaged or altered)")]
    Digest { path: PathBuf },
}

/// The kept files of one data directory.
#[derive(Clone, Debug)]
pub struct Kept {
    dir: PathBuf,
}

impl Kept {
    /// The kept files under `data` (the directory is made when the first file is written).
    pub fn new(data: &Path) -> Kept {
        Kept {
            dir: data.join(DIR),
        }
    }

    fn path(&self, kind: Kind, config: &ConfigId) -> PathBuf {
        self.dir.join(format!("{}-{config}", kind.name()))
    }

    /// The payload kept of `kind` for `config`: `Ok(None)` when nothing is kept, an error when a
    /// file is there but does not check.
    pub fn load(&self, kind: Kind, config: &ConfigId) -> Result<Option<Vec<u8>>, KeptError> {
        let path = self.path(kind, config);
        let io = |source| KeptError::Io {
            path: path.clone(),
            source,
        };
        let mut file = match std::fs::File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(e)),
        };
        let size = file.metadata().map_err(io)?.len();
        let mut header = [0u8; HEADER];
        if size < (HEADER + 32) as u64 {
            return Err(KeptError::Length {
                path,
                size,
                payload: 0,
            });
        }
        file.read_exact(&mut header).map_err(io)?;
        let not_this = || KeptError::NotThis {
            path: path.clone(),
            kind: kind.name(),
            config: *config,
        };
        if &header[..8] != MAGIC || header[8] != kind.byte() || header[13..45] != config.0 {
            return Err(not_this());
        }
        let revision = u32::from_le_bytes(header[9..13].try_into().unwrap_or_default());
        if revision != pitboss_lab::REVISION {
            return Err(KeptError::Revision {
                path,
                found: revision,
                current: pitboss_lab::REVISION,
            });
        }
        let payload = u64::from_le_bytes(header[45..53].try_into().unwrap_or_default());
        if payload > MAX_PAYLOAD || size != HEADER as u64 + payload + 32 {
            return Err(KeptError::Length {
                path,
                size,
                payload,
            });
        }
        // The file's own size matches the header: the allocation is bounded by MAX_PAYLOAD.
        let mut rest = vec![0u8; payload as usize + 32];
        file.read_exact(&mut rest).map_err(io)?;
        let (body, digest) = rest.split_at(payload as usize);
        let mut hasher = Sha256::new();
        hasher.update(header);
        hasher.update(body);
        if hasher.finalize().as_slice() != digest {
            return Err(KeptError::Digest { path });
        }
        rest.truncate(payload as usize);
        Ok(Some(rest))
    }

    /// Keeps `payload` of `kind` for `config`, replacing what was kept.
    pub fn store(&self, kind: Kind, config: &ConfigId, payload: &[u8]) -> Result<(), KeptError> {
        let path = self.path(kind, config);
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| KeptError::Io { path, source }
        };
        if payload.len() as u64 > MAX_PAYLOAD {
            return Err(KeptError::Length {
                path,
                size: payload.len() as u64,
                payload: payload.len() as u64,
            });
        }
        std::fs::create_dir_all(&self.dir).map_err(io(&self.dir))?;
        let mut header = Vec::with_capacity(HEADER);
        header.extend_from_slice(MAGIC);
        header.push(kind.byte());
        header.extend_from_slice(&pitboss_lab::REVISION.to_le_bytes());
        header.extend_from_slice(&config.0);
        header.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        let mut hasher = Sha256::new();
        hasher.update(&header);
        hasher.update(payload);
        let digest = hasher.finalize();
        let temporary = path.with_extension("partial");
        let mut file = std::fs::File::create(&temporary).map_err(io(&temporary))?;
        file.write_all(&header)
            .and_then(|()| file.write_all(payload))
            .and_then(|()| file.write_all(&digest))
            .and_then(|()| file.sync_all())
            .map_err(io(&temporary))?;
        drop(file);
        std::fs::rename(&temporary, &path).map_err(io(&path))?;
        std::fs::File::open(&self.dir)
            .and_then(|dir| dir.sync_all())
            .map_err(io(&self.dir))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(byte: u8) -> ConfigId {
        ConfigId([byte; 32])
    }

    #[test]
    fn a_kept_payload_reads_back_and_nothing_else_does() {
        let data = tempfile::tempdir().unwrap();
        let kept = Kept::new(data.path());
        assert!(kept.load(Kind::Tables, &id(1)).unwrap().is_none());
        kept.store(Kind::Tables, &id(1), b"the tables").unwrap();
        assert_eq!(
            kept.load(Kind::Tables, &id(1)).unwrap().as_deref(),
            Some(&b"the tables"[..])
        );
        assert!(kept.load(Kind::Theory, &id(1)).unwrap().is_none());
        // A file of another configuration put in its place is not taken.
        kept.store(Kind::Tables, &id(2), b"other").unwrap();
        std::fs::copy(
            kept.path(Kind::Tables, &id(2)),
            kept.path(Kind::Tables, &id(1)),
        )
        .unwrap();
        assert!(matches!(
            kept.load(Kind::Tables, &id(1)),
            Err(KeptError::NotThis { .. })
        ));
        // Stored again, it reads again (the old file replaced whole).
        kept.store(Kind::Tables, &id(1), b"again").unwrap();
        assert_eq!(
            kept.load(Kind::Tables, &id(1)).unwrap().as_deref(),
            Some(&b"again"[..])
        );
    }

    #[test]
    fn every_byte_of_a_kept_file_is_checked() {
        let data = tempfile::tempdir().unwrap();
        let kept = Kept::new(data.path());
        kept.store(Kind::Theory, &id(7), b"figures").unwrap();
        let path = kept.path(Kind::Theory, &id(7));
        let good = std::fs::read(&path).unwrap();
        for at in 0..good.len() {
            let mut bad = good.clone();
            bad[at] ^= 0x01;
            std::fs::write(&path, &bad).unwrap();
            assert!(
                kept.load(Kind::Theory, &id(7)).is_err(),
                "a flipped bit at byte {at} was not noticed"
            );
        }
        for cut in [0, 10, HEADER, good.len() - 1] {
            std::fs::write(&path, &good[..cut]).unwrap();
            assert!(
                matches!(
                    kept.load(Kind::Theory, &id(7)),
                    Err(KeptError::Length { .. })
                ),
                "cut at {cut}"
            );
        }
        // A header that claims a huge payload allocates nothing: its size is checked first.
        let mut huge = good.clone();
        huge[45..53].copy_from_slice(&u64::MAX.to_le_bytes());
        std::fs::write(&path, &huge).unwrap();
        assert!(matches!(
            kept.load(Kind::Theory, &id(7)),
            Err(KeptError::Length { .. })
        ));
        // Another revision's file is named as such.
        let mut old = good.clone();
        old[9..13].copy_from_slice(&(pitboss_lab::REVISION + 1).to_le_bytes());
        std::fs::write(&path, &old).unwrap();
        assert!(matches!(
            kept.load(Kind::Theory, &id(7)),
            Err(KeptError::Revision { .. })
        ));
    }
}
