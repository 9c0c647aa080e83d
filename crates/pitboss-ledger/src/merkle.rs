//! The Merkle tree over the log (RFC 9162 §2.1, the shape of Certificate Transparency): leaf `i`
//! is entry `i`, hashed as `SHA-256(0x00 || entry hash)`, interior nodes `SHA-256(0x01 || left ||
//! right)`, the root of `n` leaves `MTH(D[n])` splitting at the largest power of two below `n`.
//! Inclusion proofs show one entry is in a tree of a given size; consistency proofs show that a
//! tree of size `m` is a prefix of a tree of size `n` — nothing in the first `m` entries rewritten.
//!
//! The algorithms here are pure: they read leaf hashes through [`Leaves`] and verify proofs with
//! nothing but hashes. `MerkleCache` keeps the roots of aligned blocks of 256 leaves and above so
//! that a root or a proof over millions of entries reads at most a few blocks of leaves.

use sha2::{Digest, Sha256};

use super::entry::Hash;

/// `SHA-256(0x00 || entry hash)`.
pub fn leaf_hash(entry_hash: &Hash) -> Hash {
    let mut h = Sha256::new();
    h.update([0u8]);
    h.update(entry_hash);
    h.finalize().into()
}

/// `SHA-256(0x01 || left || right)`.
pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    let mut h = Sha256::new();
    h.update([1u8]);
    h.update(left);
    h.update(right);
    h.finalize().into()
}

/// The root of the empty tree: `SHA-256("")`.
pub fn empty_root() -> Hash {
    Sha256::digest([]).into()
}

/// The largest power of two strictly below `n` (`n` ≥ 2).
fn split(n: u64) -> u64 {
    1 << (63 - (n - 1).leading_zeros())
}

/// Where leaf hashes come from, and the subtree roots already known.
pub trait Leaves {
    /// The error of reading leaves.
    type Error;
    /// The leaf hashes `start .. start + count`.
    fn leaves(&mut self, start: u64, count: u64) -> Result<Vec<Hash>, Self::Error>;
    /// The root of the perfect subtree of `2^level` leaves from `start` (aligned), if known.
    fn known(&mut self, _level: u32, _start: u64) -> Result<Option<Hash>, Self::Error> {
        Ok(None)
    }
}

/// Plain leaf hashes in memory.
impl Leaves for &[Hash] {
    type Error = std::convert::Infallible;
    fn leaves(&mut self, start: u64, count: u64) -> Result<Vec<Hash>, Self::Error> {
        Ok(self[start as usize..(start + count) as usize].to_vec())
    }
}

/// `MTH(D[start .. start + size])`, `size` ≥ 1.
pub fn subtree_root<L: Leaves>(leaves: &mut L, start: u64, size: u64) -> Result<Hash, L::Error> {
    if size.is_power_of_two() && start.is_multiple_of(size) {
        if let Some(root) = leaves.known(size.trailing_zeros(), start)? {
            return Ok(root);
        }
        if size <= 256 {
            return Ok(root_of(&leaves.leaves(start, size)?));
        }
    }
    if size == 1 {
        return Ok(leaves.leaves(start, 1)?[0]);
    }
    let k = split(size);
    let left = subtree_root(leaves, start, k)?;
    let right = subtree_root(leaves, start + k, size - k)?;
    Ok(node_hash(&left, &right))
}

/// `MTH` of leaf hashes in memory.
pub fn root_of(leaves: &[Hash]) -> Hash {
    match leaves.len() {
        0 => empty_root(),
        1 => leaves[0],
        n => {
            let k = split(n as u64) as usize;
            node_hash(&root_of(&leaves[..k]), &root_of(&leaves[k..]))
        }
    }
}

/// The root of the first `size` leaves.
pub fn root<L: Leaves>(leaves: &mut L, size: u64) -> Result<Hash, L::Error> {
    if size == 0 {
        Ok(empty_root())
    } else {
        subtree_root(leaves, 0, size)
    }
}

/// `PATH(m, D[start .. start + size])` (RFC 9162 §2.1.3.1), leaf-most hash first.
fn path<L: Leaves>(leaves: &mut L, m: u64, start: u64, size: u64) -> Result<Vec<Hash>, L::Error> {
    if size <= 1 {
        return Ok(Vec::new());
    }
    let k = split(size);
    Ok(if m < k {
        let mut p = path(leaves, m, start, k)?;
        p.push(subtree_root(leaves, start + k, size - k)?);
        p
    } else {
        let mut p = path(leaves, m - k, start + k, size - k)?;
        p.push(subtree_root(leaves, start, k)?);
        p
    })
}

/// The inclusion proof of leaf `index` in the tree of the first `size` leaves (`index < size`).
pub fn inclusion_proof<L: Leaves>(
    leaves: &mut L,
    index: u64,
    size: u64,
) -> Result<Vec<Hash>, L::Error> {
    path(leaves, index, 0, size)
}

/// `SUBPROOF(m, D[start .. start + size], b)` (RFC 9162 §2.1.4.1).
fn subproof<L: Leaves>(
    leaves: &mut L,
    m: u64,
    start: u64,
    size: u64,
    complete: bool,
) -> Result<Vec<Hash>, L::Error> {
    if m == size {
        return Ok(if complete {
            Vec::new()
        } else {
            vec![subtree_root(leaves, start, size)?]
        });
    }
    let k = split(size);
    Ok(if m <= k {
        let mut p = subproof(leaves, m, start, k, complete)?;
        p.push(subtree_root(leaves, start + k, size - k)?);
        p
    } else {
        let mut p = subproof(leaves, m - k, start + k, size - k, false)?;
        p.push(subtree_root(leaves, start, k)?);
        p
    })
}

/// The consistency proof between the trees of the first `first` and `second` leaves
/// (`0 < first ≤ second`; empty when they are equal).
pub fn consistency_proof<L: Leaves>(
    leaves: &mut L,
    first: u64,
    second: u64,
) -> Result<Vec<Hash>, L::Error> {
    if first == 0 || first >= second {
        return Ok(Vec::new());
    }
    subproof(leaves, first, 0, second, true)
}

/// Checks an inclusion proof (RFC 9162 §2.1.3.2).
pub fn verify_inclusion(index: u64, size: u64, leaf: &Hash, proof: &[Hash], root: &Hash) -> bool {
    if index >= size {
        return false;
    }
    let (mut fnode, mut snode) = (index, size - 1);
    let mut r = *leaf;
    for p in proof {
        if snode == 0 {
            return false;
        }
        if fnode & 1 == 1 || fnode == snode {
            r = node_hash(p, &r);
            if fnode & 1 == 0 {
                while fnode & 1 == 0 && fnode != 0 {
                    fnode >>= 1;
                    snode >>= 1;
                }
            }
        } else {
            r = node_hash(&r, p);
        }
        fnode >>= 1;
        snode >>= 1;
    }
    snode == 0 && r == *root
}

/// Checks a consistency proof (RFC 9162 §2.1.4.2).
pub fn verify_consistency(
    first: u64,
    second: u64,
    first_root: &Hash,
    second_root: &Hash,
    proof: &[Hash],
) -> bool {
    if first > second {
        return false;
    }
    if first == second {
        return proof.is_empty() && first_root == second_root;
    }
    if first == 0 {
        return proof.is_empty();
    }
    let mut proof: Vec<Hash> = proof.to_vec();
    if first.is_power_of_two() {
        proof.insert(0, *first_root);
    }
    let Some((head, rest)) = proof.split_first() else {
        return false;
    };
    let (mut fnode, mut snode) = (first - 1, second - 1);
    while fnode & 1 == 1 {
        fnode >>= 1;
        snode >>= 1;
    }
    let (mut fr, mut sr) = (*head, *head);
    for c in rest {
        if snode == 0 {
            return false;
        }
        if fnode & 1 == 1 || fnode == snode {
            fr = node_hash(c, &fr);
            sr = node_hash(c, &sr);
            if fnode & 1 == 0 {
                while fnode & 1 == 0 && fnode != 0 {
                    fnode >>= 1;
                    snode >>= 1;
                }
            }
        } else {
            sr = node_hash(&sr, c);
        }
        fnode >>= 1;
        snode >>= 1;
    }
    fr == *first_root && sr == *second_root && snode == 0
}

/// Whether `[start, end)` is a subtree (draft-ietf-plants-merkle-tree-certs §4.1, as C2SP
/// `tlog-witness`'s `sign-subtree` asks): `start < end`, and `start` a multiple of the smallest
/// power of two at least `end − start` — a node of the tree, or the left part of the right edge.
pub fn is_subtree(start: u64, end: u64) -> bool {
    start < end
        && (end - start)
            .checked_next_power_of_two()
            .is_some_and(|width| start.is_multiple_of(width))
}

/// The proof that subtree `[start, end)` is part of the tree of the first `size` leaves
/// (`end ≤ size`; the draft's §4.4: for `start = 0`, RFC 9162's consistency proof from `end`).
/// Empty when the subtree is the whole tree.
pub fn subtree_consistency_proof<L: Leaves>(
    leaves: &mut L,
    start: u64,
    end: u64,
    size: u64,
) -> Result<Vec<Hash>, L::Error> {
    subtree_proof(leaves, start, end, 0, size, true)
}

/// The proof of `[start, end)` (relative to `offset`) in `D[offset .. offset + size]`; `known`:
/// whether the verifier holds the subtree's hash (false once the subtree is only the left part of
/// a node, as in RFC 9162's `SUBPROOF`).
fn subtree_proof<L: Leaves>(
    leaves: &mut L,
    start: u64,
    end: u64,
    offset: u64,
    size: u64,
    known: bool,
) -> Result<Vec<Hash>, L::Error> {
    if start == 0 && end == size {
        return Ok(if known {
            Vec::new()
        } else {
            vec![subtree_root(leaves, offset, size)?]
        });
    }
    let k = split(size);
    Ok(if end <= k {
        let mut p = subtree_proof(leaves, start, end, offset, k, known)?;
        p.push(subtree_root(leaves, offset + k, size - k)?);
        p
    } else if start >= k {
        let mut p = subtree_proof(leaves, start - k, end - k, offset + k, size - k, known)?;
        p.push(subtree_root(leaves, offset, k)?);
        p
    } else {
        // Only a subtree from 0 spans the split: its left part is the whole left half.
        let mut p = subtree_proof(leaves, 0, end - k, offset + k, size - k, false)?;
        p.push(subtree_root(leaves, offset, k)?);
        p
    })
}

/// Checks that `proof` shows subtree `[start, end)` of hash `subtree` part of the tree of `size`
/// leaves and root `root` (the draft's §4.4.3). Walks up from the subtree's last leaf as RFC 9162's
/// consistency check walks up from the first tree's: `first` is the subtree's first leaf's node,
/// `last` its last's, `edge` the tree's last; the subtree's own hash is rebuilt from the left
/// siblings met while `first` and `last` are apart, the root from every sibling.
pub fn verify_subtree_consistency(
    start: u64,
    end: u64,
    size: u64,
    subtree: &Hash,
    root: &Hash,
    proof: &[Hash],
) -> bool {
    if !is_subtree(start, end) || end > size {
        return false;
    }
    let (mut first, mut last, mut edge) = (start, end - 1, size - 1);
    let up = |first: &mut u64, last: &mut u64, edge: &mut u64| {
        *first >>= 1;
        *last >>= 1;
        *edge >>= 1;
    };
    if last == edge {
        // The subtree ends the tree: up to the node that holds it all.
        while first != last {
            up(&mut first, &mut last, &mut edge);
        }
    } else {
        // Up while the subtree's last node is a right child within it.
        while first != last && last & 1 == 1 {
            up(&mut first, &mut last, &mut edge);
        }
    }
    let (head, rest) = if first == last {
        (*subtree, proof)
    } else {
        match proof.split_first() {
            Some((head, rest)) => (*head, rest),
            None => return false,
        }
    };
    let (mut fr, mut sr) = (head, head);
    for c in rest {
        if edge == 0 {
            return false;
        }
        if last & 1 == 1 || last == edge {
            // A node on the tree's right edge with no sibling at its level rises unchanged to the
            // level where it is a right child; `c` is its left sibling there, part of the subtree
            // if the subtree has not closed into one node below it.
            while last & 1 == 0 {
                if last == 0 {
                    return false;
                }
                up(&mut first, &mut last, &mut edge);
            }
            if first < last {
                fr = node_hash(c, &fr);
            }
            sr = node_hash(c, &sr);
        } else {
            sr = node_hash(&sr, c);
        }
        up(&mut first, &mut last, &mut edge);
    }
    edge == 0 && fr == *subtree && sr == *root
}

/// The root of leaves given one at a time, in order, in memory logarithmic in their number: the
/// roots of the perfect subtrees so far (one per bit of the count), folded right to left at the end
/// (the RFC 9162 root splits at the largest power of two below the size, so it is exactly this
/// fold). For checking a log read once, front to back, against a checkpoint's root.
#[derive(Clone, Debug, Default)]
pub struct RootBuilder {
    /// (height, root) of the perfect subtrees, largest first.
    stack: Vec<(u32, Hash)>,
    count: u64,
}

impl RootBuilder {
    /// Adds the next leaf (a leaf hash).
    pub fn push(&mut self, leaf: Hash) {
        let mut node = (0u32, leaf);
        while let Some(&(height, left)) = self.stack.last() {
            if height != node.0 {
                break;
            }
            self.stack.pop();
            node = (height + 1, node_hash(&left, &node.1));
        }
        self.stack.push(node);
        self.count += 1;
    }

    /// Leaves so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The root of the leaves so far.
    pub fn root(&self) -> Hash {
        let mut nodes = self.stack.iter().rev();
        match nodes.next() {
            None => empty_root(),
            Some(&(_, last)) => nodes.fold(last, |right, (_, left)| node_hash(left, &right)),
        }
    }
}

/// The roots of every complete aligned block of 256 leaves and of the perfect subtrees above them,
/// as far as the log has been read: level `k` (from 8) holds the roots of `2^k`-leaf subtrees.
/// Append-only, like the log: a complete subtree's root never changes.
#[derive(Clone, Debug, Default)]
pub struct MerkleCache {
    levels: Vec<Vec<Hash>>,
}

/// The smallest subtree the cache keeps: `2^8` leaves.
pub const BLOCK_LEVEL: u32 = 8;

impl MerkleCache {
    /// Leaves covered by complete blocks.
    pub fn covered(&self) -> u64 {
        self.levels
            .first()
            .map_or(0, |blocks| blocks.len() as u64 * (1 << BLOCK_LEVEL))
    }

    /// Adds the root of the next block of 256 leaves, and every subtree it completes.
    pub fn push_block(&mut self, root: Hash) {
        let mut level = 0;
        let mut node = root;
        loop {
            if self.levels.len() <= level {
                self.levels.push(Vec::new());
            }
            self.levels[level].push(node);
            let n = self.levels[level].len();
            if n % 2 == 1 {
                return;
            }
            node = node_hash(&self.levels[level][n - 2], &self.levels[level][n - 1]);
            level += 1;
        }
    }

    /// The root of the perfect subtree of `2^level` leaves from `start`, if cached.
    pub fn get(&self, level: u32, start: u64) -> Option<Hash> {
        let above = level.checked_sub(BLOCK_LEVEL)? as usize;
        self.levels
            .get(above)?
            .get((start >> level) as usize)
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every subtree of every tree up to 40 leaves: its proof, made from the definition, verifies;
    /// from 0 it is RFC 9162's consistency proof; any hash of it altered, a wrong subtree hash or
    /// root, a proof cut short or lengthened, and every other range of the same size fail.
    #[test]
    fn subtree_consistency_proofs_verify_exactly() {
        let all: Vec<Hash> = (0..40u8).map(|i| leaf_hash(&[i; 32])).collect();
        for size in 1..=40u64 {
            let leaves = &all[..size as usize];
            let root = root_of(leaves);
            for start in 0..size {
                for end in start + 1..=size {
                    let subtree = root_of(&leaves[start as usize..end as usize]);
                    if !is_subtree(start, end) {
                        assert!(!verify_subtree_consistency(
                            start,
                            end,
                            size,
                            &subtree,
                            &root,
                            &[]
                        ));
                        continue;
                    }
                    let proof =
                        subtree_consistency_proof(&mut &leaves[..], start, end, size).unwrap();
                    assert!(
                        verify_subtree_consistency(start, end, size, &subtree, &root, &proof),
                        "[{start}, {end}) of {size}"
                    );
                    if start == 0 {
                        assert_eq!(
                            proof,
                            consistency_proof(&mut &leaves[..], end, size).unwrap(),
                            "[0, {end}) of {size}"
                        );
                    }
                    for i in 0..proof.len() {
                        let mut bad = proof.clone();
                        bad[i][0] ^= 1;
                        assert!(!verify_subtree_consistency(
                            start, end, size, &subtree, &root, &bad
                        ));
                    }
                    let mut other = subtree;
                    other[31] ^= 1;
                    assert!(!verify_subtree_consistency(
                        start, end, size, &other, &root, &proof
                    ));
                    assert!(!verify_subtree_consistency(
                        start, end, size, &subtree, &other, &proof
                    ));
                    if let Some((_, shorter)) = proof.split_last() {
                        assert!(!verify_subtree_consistency(
                            start, end, size, &subtree, &root, shorter
                        ));
                    }
                    let mut longer = proof.clone();
                    longer.push(root);
                    assert!(!verify_subtree_consistency(
                        start, end, size, &subtree, &root, &longer
                    ));
                    if end < size && is_subtree(start + 1, end + 1) {
                        assert!(!verify_subtree_consistency(
                            start + 1,
                            end + 1,
                            size,
                            &subtree,
                            &root,
                            &proof
                        ));
                    }
                }
            }
        }
        assert!(is_subtree(8, 13) && is_subtree(4, 8) && is_subtree(0, 7));
        assert!(!is_subtree(4, 9) && !is_subtree(2, 5) && !is_subtree(3, 3));
        assert!(is_subtree(u64::MAX - 1, u64::MAX) && !is_subtree(1, u64::MAX));
    }

    fn leaves(n: u64) -> Vec<Hash> {
        (0..n)
            .map(|i| leaf_hash(&Sha256::digest(i.to_le_bytes()).into()))
            .collect()
    }

    #[test]
    fn known_values() {
        // SHA-256 of the empty string, and of the single byte 0 (the leaf of an empty entry in
        // RFC 6962's test vectors).
        assert_eq!(
            hex::encode(empty_root()),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        let mut h = Sha256::new();
        h.update([0u8]);
        assert_eq!(
            hex::encode(<[u8; 32]>::from(h.finalize())),
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"
        );
    }

    /// Every inclusion and consistency proof of trees up to 70 leaves verifies, and none verifies
    /// against a wrong root, a wrong leaf or a proof with a byte changed.
    #[test]
    fn every_proof_of_small_trees_verifies_and_no_forgery_does() {
        let all = leaves(70);
        for n in 1..=70u64 {
            let mut src: &[Hash] = &all;
            let root_n = root(&mut src, n).unwrap();
            assert_eq!(root_n, root_of(&all[..n as usize]));
            for m in 0..n {
                let proof = inclusion_proof(&mut src, m, n).unwrap();
                assert!(verify_inclusion(m, n, &all[m as usize], &proof, &root_n));
                assert!(!verify_inclusion(
                    m,
                    n,
                    &all[(m as usize + 1) % 70],
                    &proof,
                    &root_n
                ));
                if let Some(first) = proof.first() {
                    let mut bad = proof.clone();
                    bad[0][0] ^= 1;
                    assert_ne!(bad[0], *first);
                    assert!(!verify_inclusion(m, n, &all[m as usize], &bad, &root_n));
                }
            }
            for m in 1..=n {
                let root_m = root(&mut src, m).unwrap();
                let proof = consistency_proof(&mut src, m, n).unwrap();
                assert!(
                    verify_consistency(m, n, &root_m, &root_n, &proof),
                    "{m} {n}"
                );
                if m < n {
                    let wrong = root_of(&all[1..=m as usize]);
                    assert!(!verify_consistency(m, n, &wrong, &root_n, &proof));
                    assert!(
                        !verify_consistency(m, n, &root_m, &root_m, &proof) || root_m == root_n
                    );
                }
            }
        }
    }

    #[test]
    fn the_streaming_root_is_the_root() {
        let all = leaves(600);
        let mut builder = RootBuilder::default();
        assert_eq!(builder.root(), empty_root());
        for (i, leaf) in all.iter().enumerate() {
            builder.push(*leaf);
            assert_eq!(builder.count(), i as u64 + 1);
            assert_eq!(builder.root(), root_of(&all[..=i]), "{}", i + 1);
        }
    }

    /// The cache of 256-leaf blocks gives the same roots and proofs as the leaves alone.
    #[test]
    fn the_block_cache_changes_nothing_but_the_work() {
        struct Cached<'a> {
            leaves: &'a [Hash],
            cache: &'a MerkleCache,
            read: u64,
        }
        impl Leaves for Cached<'_> {
            type Error = std::convert::Infallible;
            fn leaves(&mut self, start: u64, count: u64) -> Result<Vec<Hash>, Self::Error> {
                self.read += count;
                Ok(self.leaves[start as usize..(start + count) as usize].to_vec())
            }
            fn known(&mut self, level: u32, start: u64) -> Result<Option<Hash>, Self::Error> {
                Ok(self.cache.get(level, start))
            }
        }
        let all = leaves(5000);
        let mut cache = MerkleCache::default();
        for block in all.chunks(256).filter(|b| b.len() == 256) {
            cache.push_block(root_of(block));
        }
        assert_eq!(cache.covered(), 4864);
        for n in [1u64, 255, 256, 257, 1024, 3000, 4864, 5000] {
            let mut cached = Cached {
                leaves: &all,
                cache: &cache,
                read: 0,
            };
            let r = root(&mut cached, n).unwrap();
            assert_eq!(r, root_of(&all[..n as usize]), "{n}");
            assert!(cached.read <= 2 * 256, "{n}: read {} leaves", cached.read);
            let m = n / 3;
            let proof = inclusion_proof(&mut cached, m, n).unwrap();
            assert!(verify_inclusion(m, n, &all[m as usize], &proof, &r));
        }
    }
}
