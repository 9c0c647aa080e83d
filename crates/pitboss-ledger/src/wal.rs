//! The database's write-ahead log files, read independently of RocksDB to say where they are
//! damaged. RocksDB refuses a damaged record ("Corruption: checksum mismatch") without naming the
//! file or the offset, and quietly drops a record cut short at the end of the last file (the normal
//! trace of a crash in the middle of a write, never acknowledged). This scan names both.
//!
//! The format is RocksDB's (`db/log_format.h`): a file is a sequence of 32 KiB blocks; a block holds
//! physical records, each a header (masked CRC-32C, 2-byte little-endian length, 1-byte type; 4 more
//! bytes of log number for the recyclable types) and its payload, never crossing the block's end; a
//! tail of fewer than 7 bytes is padding. The CRC covers the type byte, the log number if any, and
//! the payload. Logical records (write batches) are not decoded: only their framing and checksums.
//!
//! Owns reading `*.log` files, a block at a time (memory does not grow with a file's size); decides
//! nothing: callers put the findings into their refusals and reports.

use std::io::Read;
use std::path::{Path, PathBuf};

/// RocksDB's WAL block size.
const BLOCK: usize = 32 * 1024;
/// Header sizes: plain and recyclable.
const HEADER: usize = 7;
const RECYCLABLE_HEADER: usize = 11;

/// Something wrong in one WAL file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The file.
    pub file: PathBuf,
    /// Where the bad record's header starts.
    pub offset: u64,
    /// What is wrong.
    pub problem: String,
    /// True when the file merely ends inside a record: a write cut short (by a crash) that was
    /// never acknowledged, which RocksDB skips. False for damage: bytes that do not check.
    pub cut_short: bool,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at offset {}: {}",
            self.file.display(),
            self.offset,
            self.problem
        )
    }
}

/// The WAL files in `dir` (`NNNNNN.log`), oldest first.
pub fn files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out: Vec<(u64, PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let number = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".log"))
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|n| n.parse::<u64>().ok());
        if let Some(number) = number {
            out.push((number, path));
        }
    }
    out.sort();
    Ok(out.into_iter().map(|(_, p)| p).collect())
}

/// Scans every WAL file in `dir`; at most one finding per file (the first: after it a file's
/// framing cannot be trusted). An unreadable file is a finding too.
pub fn scan(dir: &Path) -> std::io::Result<Vec<Finding>> {
    let mut findings = Vec::new();
    for file in files(dir)? {
        match scan_file(&file) {
            Ok(Some(finding)) => findings.push(finding),
            Ok(None) => {}
            Err(e) => findings.push(Finding {
                file,
                offset: 0,
                problem: format!("cannot be read: {e}"),
                cut_short: false,
            }),
        }
    }
    Ok(findings)
}

/// The first problem in one WAL file, if any.
pub fn scan_file(path: &Path) -> std::io::Result<Option<Finding>> {
    let mut file = std::fs::File::open(path)?;
    let mut block = vec![0u8; BLOCK];
    let mut base = 0u64;
    loop {
        let filled = read_block(&mut file, &mut block)?;
        if filled == 0 {
            return Ok(None);
        }
        let last = filled < BLOCK;
        if let Some((at, problem, cut_short)) = check_block(&block[..filled], last) {
            return Ok(Some(Finding {
                file: path.to_path_buf(),
                offset: base + at as u64,
                problem,
                cut_short,
            }));
        }
        if last {
            return Ok(None);
        }
        base += BLOCK as u64;
    }
}

/// Reads up to one block; fewer bytes only at the end of the file.
fn read_block(file: &mut std::fs::File, block: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < block.len() {
        match file.read(&mut block[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// The first bad record of a block: (offset in the block, problem, cut short). `last`: the file
/// ends inside this block.
fn check_block(block: &[u8], last: bool) -> Option<(usize, String, bool)> {
    let mut pos = 0;
    while block.len() - pos >= HEADER {
        let header = &block[pos..];
        let length = u16::from_le_bytes([header[4], header[5]]) as usize;
        let kind = header[6];
        let recyclable = matches!(kind, 5..=8 | 11 | 131);
        let header_size = if recyclable {
            RECYCLABLE_HEADER
        } else {
            HEADER
        };
        if kind == 0 && length == 0 {
            // Preallocated, never written: RocksDB skips the rest of the block, so anything
            // written after it there would be lost without a word.
            return block[pos..].iter().any(|&b| b != 0).then(|| {
                (
                    pos,
                    "a zeroed record header before written bytes (RocksDB skips the rest of the block)"
                        .to_string(),
                    false,
                )
            });
        }
        if pos + header_size + length > block.len() {
            return Some(if last {
                (
                    pos,
                    format!("the file ends inside a record of {length} bytes (a write cut short)"),
                    true,
                )
            } else {
                (
                    pos,
                    format!("a record of {length} bytes runs past the end of its block"),
                    false,
                )
            });
        }
        let stored = u32::from_le_bytes([header[0], header[1], header[2], header[3]]);
        let actual = crc32c(&header[6..header_size + length]);
        if unmask(stored) != actual {
            return Some((
                pos,
                format!("checksum mismatch in a record of {length} bytes (type {kind})"),
                false,
            ));
        }
        pos += header_size + length;
    }
    if last && pos < block.len() && block[pos..].iter().any(|&b| b != 0) {
        return Some((pos, "the file ends inside a record header".into(), true));
    }
    None
}

/// RocksDB stores CRCs masked: rotated right by 15 bits plus a constant.
fn unmask(masked: u32) -> u32 {
    let rot = masked.wrapping_sub(0xa282_ead8);
    rot.rotate_left(15)
}

/// CRC-32C (Castagnoli), reflected, as RocksDB computes it.
fn crc32c(bytes: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 {
                    (c >> 1) ^ 0x82f6_3b78
                } else {
                    c >> 1
                };
                k += 1;
            }
            table[i] = c;
            i += 1;
        }
        table
    };
    let mut crc = !0u32;
    for &b in bytes {
        crc = TABLE[((crc ^ b as u32) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask(crc: u32) -> u32 {
        crc.rotate_right(15).wrapping_add(0xa282_ead8)
    }

    /// A record as RocksDB frames it.
    fn record(kind: u8, payload: &[u8]) -> Vec<u8> {
        let mut crc_input = vec![kind];
        crc_input.extend_from_slice(payload);
        let mut out = mask(crc32c(&crc_input)).to_le_bytes().to_vec();
        out.extend_from_slice(&(payload.len() as u16).to_le_bytes());
        out.push(kind);
        out.extend_from_slice(payload);
        out
    }

    #[test]
    fn crc32c_matches_the_standard_check_value() {
        // The CRC-32C check value (RFC 3720, B.4).
        assert_eq!(crc32c(b"123456789"), 0xe306_9283);
        assert_eq!(unmask(mask(0xdead_beef)), 0xdead_beef);
    }

    #[test]
    fn a_flipped_byte_is_named_by_offset_and_a_cut_tail_is_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = record(1, b"first batch");
        let second = bytes.len();
        bytes.extend(record(1, b"second batch"));
        let path = dir.path().join("000007.log");
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(scan(dir.path()).unwrap(), vec![]);

        let mut flipped = bytes.clone();
        flipped[second + 10] ^= 0x04;
        std::fs::write(&path, &flipped).unwrap();
        let found = scan(dir.path()).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].offset, second as u64);
        assert!(!found[0].cut_short);
        assert!(found[0].problem.contains("checksum mismatch"));
        assert!(found[0].to_string().contains("000007.log at offset"));

        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        let found = scan(dir.path()).unwrap();
        assert_eq!(found[0].offset, second as u64);
        assert!(found[0].cut_short, "{:?}", found[0]);
    }

    #[test]
    fn records_fill_blocks_and_padding_is_not_damage() {
        let dir = tempfile::tempdir().unwrap();
        // One record leaving 3 bytes of padding at the end of the first block, then a second.
        let first = record(1, &vec![7u8; BLOCK - HEADER - 3]);
        let mut bytes = first;
        bytes.extend_from_slice(&[0, 0, 0]);
        bytes.extend(record(1, b"next block"));
        std::fs::write(dir.path().join("000009.log"), &bytes).unwrap();
        std::fs::write(dir.path().join("not-a-wal.log"), b"ignored").unwrap();
        assert_eq!(files(dir.path()).unwrap().len(), 1);
        assert_eq!(scan(dir.path()).unwrap(), vec![]);
        // A length that runs past a full block is damage, not a cut tail.
        let mut bad = bytes.clone();
        bad[4] = 0xff;
        bad[5] = 0xff;
        std::fs::write(dir.path().join("000009.log"), &bad).unwrap();
        let found = scan(dir.path()).unwrap();
        assert_eq!((found[0].offset, found[0].cut_short), (0, false));
        // A zeroed header in front of written records is damage; zeros to the end are not.
        let mut zeroed = bytes.clone();
        zeroed[..HEADER].fill(0);
        std::fs::write(dir.path().join("000009.log"), &zeroed).unwrap();
        let found = scan(dir.path()).unwrap();
        assert!(found[0].problem.contains("zeroed"), "{found:?}");
        let mut tail = bytes[..BLOCK].to_vec();
        tail.extend_from_slice(&[0u8; 40]);
        std::fs::write(dir.path().join("000009.log"), &tail).unwrap();
        assert_eq!(scan(dir.path()).unwrap(), vec![]);
    }
}
