//! The ledger's Merkle tree, inclusion and consistency proofs, and signed checkpoints, read from
//! the stored entries (leaf `i` is entry `i`; see `merkle.rs` and `checkpoint.rs`). Blocking reads:
//! call from a blocking context.
//!
//! Leaves are the hashes recomputed from the stored bytes, not the stored hash fields, so an
//! altered entry changes every root from its position on, and no later checkpoint can be proven
//! consistent with one taken before the change.

use std::sync::MutexGuard;

use tokio::sync::oneshot;

use super::checkpoint::{self, Checkpoint};
use super::entry::{entry_hash, Entry, Hash};
use super::merkle::{self, Leaves, MerkleCache, RootBuilder, BLOCK_LEVEL};
use super::store::LogStore;
use super::{writer, Ledger, LedgerError};

/// Leaf hashes read from the store, with the cache of block roots.
struct StoreLeaves<'a> {
    ledger: &'a Ledger,
    cache: MutexGuard<'a, MerkleCache>,
}

impl Leaves for StoreLeaves<'_> {
    type Error = LedgerError;

    fn leaves(&mut self, start: u64, count: u64) -> Result<Vec<Hash>, LedgerError> {
        read_leaves(self.ledger, start, count)
    }

    fn known(&mut self, level: u32, start: u64) -> Result<Option<Hash>, LedgerError> {
        Ok(self.cache.get(level, start))
    }
}

/// The Merkle leaf of the stored entry under `key`, which must be entry `sequence`: a gap, or bytes
/// that do not decode, is an error naming the sequence. The leaf is recomputed from the stored
/// bytes, so a rewritten entry shows as another leaf.
fn stored_leaf(sequence: u64, key: &[u8], bytes: &[u8]) -> Result<Hash, LedgerError> {
    if key != sequence.to_be_bytes().as_slice() {
        return Err(LedgerError::Corrupt {
            sequence,
            problem: "missing from the log".into(),
        });
    }
    let entry = Entry::decode(bytes).map_err(|e| LedgerError::Corrupt {
        sequence,
        problem: e.to_string(),
    })?;
    Ok(merkle::leaf_hash(&entry_hash(&entry.envelope_bytes)))
}

fn read_leaves(ledger: &Ledger, start: u64, count: u64) -> Result<Vec<Hash>, LedgerError> {
    let mut out = Vec::with_capacity(count as usize);
    for item in ledger.store().entries_from(start)?.take(count as usize) {
        let (key, bytes) = item?;
        out.push(stored_leaf(start + out.len() as u64, &key, &bytes)?);
    }
    if out.len() as u64 != count {
        return Err(LedgerError::Corrupt {
            sequence: start + out.len() as u64,
            problem: "missing from the log".into(),
        });
    }
    Ok(out)
}

/// The Merkle root of the first `size` entries of a store, read front to back in one pass with
/// memory logarithmic in `size` (no ledger needed: `pitboss verify --checkpoint` on a read-only
/// store). Leaves are recomputed from the stored bytes whatever else is wrong with the entries, so
/// a rewrite shows as another root; a missing or undecodable entry is an error naming it.
pub fn root_from_store(store: &dyn LogStore, size: u64) -> Result<Hash, LedgerError> {
    let mut builder = RootBuilder::default();
    if size > 0 {
        for item in store.entries_from(0)? {
            let (key, bytes) = item?;
            builder.push(stored_leaf(builder.count(), &key, &bytes)?);
            if builder.count() == size {
                break;
            }
        }
    }
    if builder.count() != size {
        return Err(LedgerError::Corrupt {
            sequence: builder.count(),
            problem: "missing from the log".into(),
        });
    }
    Ok(builder.root())
}

/// An inclusion proof of one entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InclusionProof {
    /// The entry's sequence (its leaf index).
    pub sequence: u64,
    /// The tree it is proven in.
    pub tree_size: u64,
    /// The entry's hash (of its stored bytes).
    pub entry_hash: Hash,
    /// The audit path, leaf-most first.
    pub hashes: Vec<Hash>,
}

impl Ledger {
    /// How many entries the tree holds now (the next sequence number).
    pub fn tree_size(&self) -> Result<u64, LedgerError> {
        Ok(writer::load_head(self.store())?.0)
    }

    /// The tree's leaves with the block cache brought up to `size`.
    fn leaves_upto(&self, size: u64) -> Result<StoreLeaves<'_>, LedgerError> {
        let now = self.tree_size()?;
        if size > now {
            return Err(LedgerError::TreeSize {
                asked: size,
                size: now,
            });
        }
        let mut cache = self.merkle.lock().map_err(|_| LedgerError::Stopped)?;
        let block = 1u64 << BLOCK_LEVEL;
        while cache.covered() + block <= size {
            let start = cache.covered();
            cache.push_block(merkle::root_of(&read_leaves(self, start, block)?));
        }
        Ok(StoreLeaves {
            ledger: self,
            cache,
        })
    }

    /// Reads the whole log once to fill the cache of the tree's block roots up to its size now, a
    /// block at a time (the cache's lock is released between blocks, so proofs and checkpoints go
    /// on meanwhile), storing the entries covered so far in `progress`. A restarted server calls it
    /// so that its first checkpoint is not the call that reads the whole log. Returns the entries
    /// covered (the last partial block is left to the proofs, which read it anyway).
    pub fn warm_tree(&self, progress: &std::sync::atomic::AtomicU64) -> Result<u64, LedgerError> {
        let size = self.tree_size()?;
        let block = 1u64 << BLOCK_LEVEL;
        loop {
            let mut cache = self.merkle.lock().map_err(|_| LedgerError::Stopped)?;
            let start = cache.covered();
            progress.store(start, std::sync::atomic::Ordering::Relaxed);
            if start.saturating_add(block) > size {
                return Ok(start);
            }
            cache.push_block(merkle::root_of(&read_leaves(self, start, block)?));
        }
    }

    /// The Merkle root of the first `size` entries.
    pub fn tree_root(&self, size: u64) -> Result<Hash, LedgerError> {
        merkle::root(&mut self.leaves_upto(size)?, size)
    }

    /// The proof that entry `sequence` is in the tree of the first `size` entries.
    pub fn inclusion_proof(&self, sequence: u64, size: u64) -> Result<InclusionProof, LedgerError> {
        if sequence >= size {
            return Err(LedgerError::NotInTree { sequence, size });
        }
        let mut leaves = self.leaves_upto(size)?;
        let hashes = merkle::inclusion_proof(&mut leaves, sequence, size)?;
        let entry = self.entry(sequence)?.ok_or_else(|| LedgerError::Corrupt {
            sequence,
            problem: "missing from the log".into(),
        })?;
        Ok(InclusionProof {
            sequence,
            tree_size: size,
            entry_hash: entry_hash(&entry.envelope_bytes),
            hashes,
        })
    }

    /// The proof that the tree of the first `first` entries is a prefix of that of `second`.
    pub fn consistency_proof(&self, first: u64, second: u64) -> Result<Vec<Hash>, LedgerError> {
        if first > second {
            return Err(LedgerError::TreeSize {
                asked: first,
                size: second,
            });
        }
        merkle::consistency_proof(&mut self.leaves_upto(second)?, first, second)
    }

    /// This log's name in checkpoints.
    pub fn origin(&self) -> Result<String, LedgerError> {
        let first = self.entry(0)?.ok_or_else(|| LedgerError::Corrupt {
            sequence: 0,
            problem: "the log has no first entry".into(),
        })?;
        Ok(checkpoint::origin_of(&first.hash))
    }

    /// A checkpoint of the first `size` entries (all of them now, if `None`), signed by the current
    /// key, and that key.
    pub fn checkpoint_blocking(
        &self,
        size: Option<u64>,
    ) -> Result<(Checkpoint, ed25519_dalek::VerifyingKey), LedgerError> {
        if self.is_mirror() {
            return self.held_checkpoint(size, &[]);
        }
        let size = match size {
            Some(size) => size,
            None => self.tree_size()?,
        };
        self.checkpoint_with(size, Vec::new())
    }

    /// A checkpoint of the first `size` entries carrying `extensions` (lines without a newline,
    /// signed with the body), and the key that signed it.
    pub fn checkpoint_with(
        &self,
        size: u64,
        extensions: Vec<String>,
    ) -> Result<(Checkpoint, ed25519_dalek::VerifyingKey), LedgerError> {
        if self.is_mirror() {
            return self.held_checkpoint(Some(size), &extensions);
        }
        let root = self.tree_root(size)?;
        let origin = self.origin()?;
        let body = checkpoint::body(&origin, size, &root, &extensions);
        let (reply, answer) = oneshot::channel();
        self.send(writer::Job::Sign(body.into_bytes(), reply))?;
        let (public, signature) = answer.blocking_recv().map_err(|_| LedgerError::Stopped)??;
        Ok((
            Checkpoint {
                key_hash: checkpoint::key_hash(&origin, &public),
                origin,
                size,
                root,
                signature,
                extensions,
            },
            public,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Warming the tree covers every whole block, and the roots it leaves in the cache are the
    /// roots read straight from the store.
    #[test]
    fn a_warmed_tree_gives_the_same_roots() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::open(dir.path(), 0).unwrap();
        let block = 1u64 << BLOCK_LEVEL;
        let requests: Vec<_> = (0..(2 * block + 3))
            .map(|i| {
                crate::AppendRequest::entries(
                    format!("s/{i}"),
                    crate::Expected::Version(0),
                    vec![vec![1, 2, 3]],
                    i,
                    "t",
                )
            })
            .collect();
        for request in requests {
            ledger.append_blocking(request).unwrap();
        }
        let size = ledger.tree_size().unwrap();
        let progress = std::sync::atomic::AtomicU64::new(0);
        let covered = ledger.warm_tree(&progress).unwrap();
        assert_eq!(covered, (size / block) * block);
        assert_eq!(progress.load(std::sync::atomic::Ordering::Relaxed), covered);
        for n in [1, block, block + 1, size] {
            assert_eq!(
                ledger.tree_root(n).unwrap(),
                root_from_store(ledger.store(), n).unwrap()
            );
        }
    }

    /// Sequences and sizes at their extremes (0, 2^32 − 1, 2^64 − 1) are refused with an error
    /// naming the numbers, never a panic.
    #[test]
    fn numbers_at_their_extremes_are_refused_not_panics() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::open(dir.path(), 0).unwrap();
        let size = ledger.tree_size().unwrap();
        assert_eq!(size, 1, "the key's entry");
        for n in [u64::from(u32::MAX), u64::MAX - 1, u64::MAX] {
            assert_eq!(
                ledger.inclusion_proof(n, size),
                Err(LedgerError::NotInTree { sequence: n, size })
            );
            assert_eq!(
                ledger.inclusion_proof(0, n).unwrap_err(),
                LedgerError::TreeSize { asked: n, size }
            );
            assert_eq!(
                ledger.inclusion_proof(n - 1, n).unwrap_err(),
                LedgerError::TreeSize { asked: n, size }
            );
            assert_eq!(
                ledger.inclusion_proof(n, n).unwrap_err(),
                LedgerError::NotInTree {
                    sequence: n,
                    size: n
                }
            );
            assert!(matches!(
                ledger.consistency_proof(1, n),
                Err(LedgerError::TreeSize { .. })
            ));
            assert!(matches!(
                ledger.consistency_proof(n, 1),
                Err(LedgerError::TreeSize { .. })
            ));
            assert!(matches!(
                ledger.tree_root(n),
                Err(LedgerError::TreeSize { .. })
            ));
        }
        assert_eq!(
            ledger.inclusion_proof(0, 0),
            Err(LedgerError::NotInTree {
                sequence: 0,
                size: 0
            })
        );
        assert!(ledger.consistency_proof(0, 0).unwrap().is_empty());
        assert!(ledger.inclusion_proof(0, 1).unwrap().hashes.is_empty());
    }
}
