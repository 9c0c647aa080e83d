//! A log's tiles read as an outside client reads them (C2SP `tlog-tiles`), from a directory or
//! over HTTP: the checkpoint's signature checked by the `signed_note` crate with the log's
//! verifier key, its body parsed and every hash tile authenticated against its root by the
//! `tlog_tiles` crate (a port of Go's `sumdb/tlog`), every entry bundle hashed to the leaves it
//! must give, and every record of the records bundles hashed to its entry (SHA-256 over the
//! domain and the envelope, `docs/log-format.md`). Returns what it read; the tests judge it.

use sha2::{Digest, Sha256};
use signed_note::{Note, StandardVerifier, Verifier, VerifierList};
use tlog_tiles::{HashReader, Tile, TileHashReader, TileReader};

/// Where tiles come from.
pub trait Fetch {
    /// The bytes at `path` (`checkpoint`, `tile/…`), `None` if there are none.
    fn fetch(&self, path: &str) -> Option<Vec<u8>>;
}

/// A tile directory.
pub struct Dir(pub std::path::PathBuf);

impl Fetch for Dir {
    fn fetch(&self, path: &str) -> Option<Vec<u8>> {
        std::fs::read(self.0.join(path)).ok()
    }
}

/// Tiles served over HTTP at `127.0.0.1:PORT`.
pub struct Http(pub String);

impl Fetch for Http {
    fn fetch(&self, path: &str) -> Option<Vec<u8>> {
        let (status, _, body) = crate::http::get_bytes(&self.0, &format!("/{path}"));
        (status == 200).then_some(body)
    }
}

/// What was read, every part authenticated by the checkpoint.
#[derive(Debug)]
pub struct Read {
    /// The checkpoint note as served.
    pub note: String,
    pub size: u64,
    /// Each entry's hash (the tlog-tiles entries), in order.
    pub entries: Vec<[u8; 32]>,
    /// Each stored entry (the records bundles), in order.
    pub records: Vec<Vec<u8>>,
}

/// The tiles as `tlog_tiles` asks for them, fetched from a source.
struct Tiles<'a>(&'a dyn Fetch);

impl TileReader for Tiles<'_> {
    fn height(&self) -> u8 {
        8
    }

    fn read_tiles(&self, tiles: &[Tile]) -> Result<Vec<Vec<u8>>, tlog_tiles::Error> {
        tiles
            .iter()
            .map(|tile| {
                // The crate writes Go's `tile/8/L/N`; C2SP's paths have no height.
                let path = tile.path().replacen("tile/8/", "tile/", 1);
                self.0.fetch(&path).ok_or(tlog_tiles::Error::InvalidTile)
            })
            .collect()
    }

    fn save_tiles(&self, _: &[Tile], _: &[Vec<u8>]) {}
}

/// `N` as the tiles' path elements (`x001/x234/067`), with `.p/W` for a partial tile.
fn index_path(index: u64, width: u64) -> String {
    Tile::new(8, 0, index, width as u32, false)
        .path()
        .replacen("tile/8/0/", "", 1)
}

/// Length-prefixed items (big-endian `u16`), as bundles frame them.
fn items(bundle: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    let mut out = Vec::new();
    let mut rest = bundle;
    while !rest.is_empty() {
        let [a, b, tail @ ..] = rest else {
            return Err("a truncated length prefix".into());
        };
        let n = u16::from_be_bytes([*a, *b]) as usize;
        if tail.len() < n {
            return Err("a truncated item".into());
        }
        out.push(tail[..n].to_vec());
        rest = &tail[n..];
    }
    Ok(out)
}

/// Reads the whole log from `source`, whose checkpoint must be signed by `log_vkey` (a signed-note
/// verifier key) and may carry any other signatures (cosignatures).
pub fn read(source: &dyn Fetch, log_vkey: &str) -> Result<Read, String> {
    let note_bytes = source.fetch("checkpoint").ok_or("no checkpoint")?;
    let note = Note::from_bytes(&note_bytes).map_err(|e| format!("the note: {e:?}"))?;
    let log = StandardVerifier::new(log_vkey).map_err(|e| format!("the vkey: {e:?}"))?;
    let log_name = log.name().to_string();
    let (verified, _) = note
        .verify(&VerifierList::new(vec![Box::new(log)]))
        .map_err(|e| format!("the checkpoint's signature: {e:?}"))?;
    if !verified.iter().any(|s| s.name() == log_name) {
        return Err("the checkpoint is not signed by the log".into());
    }
    let checkpoint = tlog_tiles::Checkpoint::from_bytes(note.text())
        .map_err(|e| format!("the checkpoint's body: {e:?}"))?;
    let size = checkpoint.size();
    let tiles = Tiles(source);
    let reader = TileHashReader::new(size, *checkpoint.hash(), &tiles);
    let indexes: Vec<u64> = (0..size)
        .map(|i| tlog_tiles::stored_hash_index(0, i))
        .collect();
    let leaves = if size == 0 {
        Vec::new()
    } else {
        reader
            .read_hashes(&indexes)
            .map_err(|e| format!("the hash tiles do not give the checkpoint's root: {e:?}"))?
    };
    let mut entries = Vec::with_capacity(size as usize);
    let mut records = Vec::with_capacity(size as usize);
    let mut index = 0;
    while index * 256 < size {
        let width = (size - index * 256).min(256);
        let path = index_path(index, width);
        let fetch = |kind: &str| {
            source
                .fetch(&format!("tile/{kind}/{path}"))
                .ok_or(format!("no tile/{kind}/{path}"))
        };
        let bundle = items(&fetch("entries")?)?;
        let stored = items(&fetch("records")?)?;
        if bundle.len() as u64 != width || stored.len() as u64 != width {
            return Err(format!(
                "tile {index}: bundles of {} and {} entries, not {width}",
                bundle.len(),
                stored.len()
            ));
        }
        for (i, (entry, record)) in bundle.into_iter().zip(stored).enumerate() {
            let sequence = index * 256 + i as u64;
            if tlog_tiles::record_hash(&entry) != leaves[sequence as usize] {
                return Err(format!("entry {sequence} does not hash to its leaf"));
            }
            let entry: [u8; 32] = entry
                .try_into()
                .map_err(|_| format!("entry {sequence} is not a 32-byte hash"))?;
            let envelope =
                envelope_of(&record).ok_or(format!("record {sequence} is not a stored entry"))?;
            let mut hash = Sha256::new();
            hash.update(b"pitboss.v1.event\0");
            hash.update(&envelope);
            if hash.finalize().as_slice() != entry {
                return Err(format!("record {sequence} does not hash to its entry"));
            }
            entries.push(entry);
            records.push(record);
        }
        index += 1;
    }
    Ok(Read {
        note: String::from_utf8_lossy(&note_bytes).into_owned(),
        size,
        entries,
        records,
    })
}

/// A stored entry's envelope bytes: field 1 of `pitboss.v1.StoredEntry` (`proto/…/ledger.proto`).
fn envelope_of(record: &[u8]) -> Option<Vec<u8>> {
    use prost::Message;
    let stored = pitboss_ledger::proto::StoredEntry::decode(record).ok()?;
    Some(stored.envelope)
}
