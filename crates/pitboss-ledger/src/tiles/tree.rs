//! The tree's hashes as tiles hold them: the hash at level `L`, index `i` is the root of the
//! perfect subtree of leaves `i·256^L .. (i+1)·256^L` (RFC 9162's `MTH` of that range). Pure.

use super::super::entry::Hash;
use super::super::merkle::node_hash;
use super::path::WIDTH;

/// The root of a perfect subtree whose leaves (or lower roots) are `hashes` (a power of two of
/// them): a full tile's 256 hashes give the hash one level up.
pub(super) fn perfect_root(hashes: &[Hash]) -> Hash {
    debug_assert!(hashes.len().is_power_of_two());
    let mut level: Vec<Hash> = hashes.to_vec();
    while level.len() > 1 {
        level = level
            .chunks_exact(2)
            .map(|pair| node_hash(&pair[0], &pair[1]))
            .collect();
    }
    level[0]
}

/// How many hashes level `level` holds in a tree of `size` leaves: `size / 256^level`.
pub(super) fn hashes_at(level: u8, size: u64) -> u64 {
    size.checked_shr(8 * u32::from(level)).unwrap_or(0)
}

/// The root of the tree of `size` leaves (`size` ≥ 1), reading tile hashes through `hash`
/// (level, index).
pub(super) fn root<E>(
    size: u64,
    hash: &mut impl FnMut(u8, u64) -> Result<Hash, E>,
) -> Result<Hash, E> {
    mth(0, size, hash)
}

/// `MTH(D[lo..hi])`: a range that is one tile hash is read, any other split as RFC 9162 splits.
fn mth<E>(lo: u64, hi: u64, hash: &mut impl FnMut(u8, u64) -> Result<Hash, E>) -> Result<Hash, E> {
    let n = hi - lo;
    if n.is_power_of_two() && n.trailing_zeros().is_multiple_of(8) && lo.is_multiple_of(n) {
        let level = (n.trailing_zeros() / 8) as u8;
        return hash(level, lo / n);
    }
    let k = 1u64 << (63 - (n - 1).leading_zeros());
    let left = mth(lo, lo + k, hash)?;
    let right = mth(lo + k, hi, hash)?;
    Ok(node_hash(&left, &right))
}

/// The width of the tile at `level` holding hash `index` in a tree of `size` leaves.
pub(super) fn width(level: u8, index: u64, size: u64) -> u64 {
    let count = hashes_at(level, size);
    let start = index / WIDTH * WIDTH;
    (count - start).min(WIDTH)
}

#[cfg(test)]
mod tests {
    use super::super::super::merkle::{leaf_hash, root_of};
    use super::*;
    use sha2::Digest as _;

    /// Every tree size to 70 000 (and the example's) gives the root the ledger's tree gives, from
    /// the tile hashes alone.
    #[test]
    fn the_root_from_tile_hashes_is_the_trees_root() {
        let leaves: Vec<Hash> = (0u32..70_001)
            .map(|i| leaf_hash(&sha2::Sha256::digest(i.to_be_bytes()).into()))
            .collect();
        // Level 1 and 2 hashes, as tiles hold them.
        let level1: Vec<Hash> = leaves.chunks_exact(256).map(perfect_root).collect();
        let level2: Vec<Hash> = level1.chunks_exact(256).map(perfect_root).collect();
        let mut read = |level: u8, index: u64| -> Result<Hash, ()> {
            Ok(match level {
                0 => leaves[index as usize],
                1 => level1[index as usize],
                2 => level2[index as usize],
                _ => return Err(()),
            })
        };
        for size in (1..600).chain([65_535, 65_536, 65_537, 70_000]) {
            assert_eq!(
                root(size, &mut read),
                Ok(root_of(&leaves[..size as usize])),
                "size {size}"
            );
        }
        // The spec's example: 70 000 leaves are 273 full level-0 tiles and one of 112, one full
        // level-1 tile and one of 17, one level-2 tile of 1.
        assert_eq!(width(0, 273 * 256, 70_000), 112);
        assert_eq!(width(0, 0, 70_000), 256);
        assert_eq!(width(1, 256, 70_000), 17);
        assert_eq!(width(2, 0, 70_000), 1);
        assert_eq!(hashes_at(3, 70_000), 0);
    }
}
