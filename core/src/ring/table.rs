//! The sorted point table behind every ring.
//!
//! Layout, chosen so a lookup is two dependent reads (index entry, then one cache line of
//! points) and the table costs about 10 bytes per point:
//!
//! - the point space (`width` bits: 64 for ring-v1, 32 for the ketama family) is cut into
//!   `2^b` buckets by its top `b` bits (about two points per bucket), and `index[k]` is the position of the first point of
//!   bucket `k` (a counting sort by bucket builds both in O(n));
//! - a point in bucket `k` no longer needs its top `b` bits, so each slot stores the point's
//!   remaining `r = width - b` bits at the top of a `u64` and the owning node's index in the
//!   free low `64 - r` bits. Comparing a stored slot with the key's shifted low bits compares
//!   the points exactly, and the owner comes out of the same read. `b` is chosen large enough
//!   that every node index fits.
//!
//! A lookup reads `index[k]`, `index[k+1]`, then scans up to four slots branch-free; a bucket
//! holding more than four points (about 5% with two per bucket on average, or when a 15-bit peer hash
//! clusters everything) falls back to a binary search of the rest of the bucket.

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;

use crate::{Error, Result};

/// Which node wins when several points have the same value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TieBreak {
    /// The node that comes first in the topology (libmemcached, nginx, npm hashring, ring-v1).
    #[default]
    FirstNode,
    /// The node that comes last (peers that store points in a map, last writer wins).
    LastNode,
}

/// Which point a hash lands on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum LookupRule {
    /// The first point `>=` the hash, wrapping to the first point (ketama, ring-v1).
    #[default]
    LowerBound,
    /// The first point `>` the hash, wrapping (Python `bisect_right` rings).
    Strict,
}

impl LookupRule {
    /// The hash a lower-bound search needs to answer this rule.
    #[inline(always)]
    fn adjust(self, h: u64) -> u64 {
        match self {
            Self::LowerBound => h,
            Self::Strict => h.wrapping_add(1),
        }
    }
}

/// Top bits of the point space that split a build into partitions (at most 256).
const PARTITION_BITS: u32 = 8;

/// Slots scanned without branching before falling back to a binary search.
const WINDOW: usize = 4;

/// Average points per index bucket: small enough that a bucket almost always fits the scan
/// window (95% of buckets hold at most four points), large enough that the index costs about
/// two bytes per point.
const POINTS_PER_BUCKET: usize = 2;

/// Points sorted by (value, tie-break), packed with their owners, plus a top-bits index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PointTable {
    /// `len` packed slots followed by [`WINDOW`] padding slots.
    slots: Box<[u64]>,
    len: usize,
    /// `index[k]` = position of the first point of bucket `k`; `2^b + 1` entries.
    index: Box<[u32]>,
    /// `r`: bits of a point below its bucket bits (`width - b`).
    low_bits: u32,
    /// `64 - low_bits` and the owner mask, kept so a lookup does not recompute them.
    key_shift: u32,
    owner_mask: u64,
}

impl PointTable {
    /// Builds the table from a generator that emits `(point, owner)` pairs.
    ///
    /// `generate` is called twice and must emit the same `count` pairs both times: the first
    /// pass counts points per bucket, the second scatters them into place, so no temporary
    /// array of all points is ever held. Points must be below `2^width`.
    pub(crate) fn build<G>(count: usize, width: u32, nodes: usize, ties: TieBreak, generate: G) -> Result<Self>
    where
        G: Fn(&mut dyn FnMut(u64, u32)),
    {
        if count == 0 {
            return Err(Error::ZeroTotalWeight);
        }
        if count > crate::MAX_POINTS {
            return Err(Error::TooManyPoints);
        }
        if !(1..=64).contains(&width) {
            return Err(Error::InvalidParameter("point width must be 1 to 64 bits"));
        }
        // Enough bucket bits for about four points a bucket, and for the owner to fit in the
        // low bits freed by the bucket bits (64 - r >= bits needed for a node index).
        // Bits for any node index with the all-ones value left unused (see `position`).
        let owner_bits = usize::BITS - nodes.leading_zeros();
        let free_without_buckets = 64 - width;
        // At least one bucket bit and one low bit, so every shift below is in 1..=63.
        let bits = bucket_bits(count).max(owner_bits.saturating_sub(free_without_buckets)).clamp(1, width.max(2) - 1);
        let low_bits = width.max(2) - bits;
        if 64 - low_bits < owner_bits {
            return Err(Error::TooManyNodes);
        }
        let buckets = 1usize << bits;
        let pack = |p: u64, owner: u32| low_part(p, low_bits) | u64::from(owner);

        // Two-level counting sort with good locality: first into a few hundred partitions by
        // the point's top bits (hundreds of sequential write streams), then each partition,
        // small enough for the cache, into its buckets. Random writes over the whole table
        // (one per point) made a 1.6M-point build several times slower.
        let part_bits = bits.min(PARTITION_BITS);
        let part_shift = width - part_bits;
        let per_part = 1usize << (bits - part_bits);
        let mut part_start = vec![0u32; (1usize << part_bits) + 1];
        let mut seen = 0usize;
        let mut out_of_range = false;
        generate(&mut |p, _| {
            match part_start.get_mut((p >> part_shift) as usize + 1) {
                Some(c) => *c += 1,
                None => out_of_range = true,
            }
            seen += 1;
        });
        if seen != count || out_of_range {
            return Err(Error::InvalidParameter("point generator is inconsistent"));
        }
        for q in 1..part_start.len() {
            let prev = part_start.get(q - 1).copied().unwrap_or(0);
            if let Some(c) = part_start.get_mut(q) {
                *c += prev;
            }
        }
        // Raw points and owners, grouped by partition (the slots array doubles as the buffer).
        let mut slots = vec![u64::MAX; count + WINDOW];
        let mut owners = vec![0u32; count];
        let mut cursor = part_start.clone();
        generate(&mut |p, owner| {
            if let Some(c) = cursor.get_mut((p >> part_shift) as usize) {
                let at = *c as usize;
                if let (Some(slot), Some(o)) = (slots.get_mut(at), owners.get_mut(at)) {
                    *slot = p;
                    *o = owner;
                }
                *c += 1;
            }
        });
        drop(cursor);

        let mut index = vec![0u32; buckets + 1];
        let mut scratch: Vec<(u64, u32)> = Vec::new();
        for q in 0..part_start.len() - 1 {
            let (lo, hi) = (
                part_start.get(q).copied().unwrap_or(0) as usize,
                part_start.get(q + 1).copied().unwrap_or(0) as usize,
            );
            let (Some(points), Some(owns)) = (slots.get(lo..hi), owners.get(lo..hi)) else { continue };
            scratch.clear();
            scratch.extend(points.iter().copied().zip(owns.iter().copied()));
            // This partition's buckets: count, prefix (absolute positions), scatter packed.
            let first_bucket = q * per_part;
            let Some(local) = index.get_mut(first_bucket..first_bucket + per_part + 1) else { continue };
            for &(p, _) in &scratch {
                if let Some(c) = local.get_mut((p >> low_bits) as usize - first_bucket + 1) {
                    *c += 1;
                }
            }
            if let Some(first) = local.first_mut() {
                *first = lo as u32;
            }
            for k in 1..local.len() {
                let prev = local.get(k - 1).copied().unwrap_or(0);
                if let Some(c) = local.get_mut(k) {
                    *c += prev;
                }
            }
            let mut fill: Vec<u32> = local.get(..per_part).map(<[u32]>::to_vec).unwrap_or_default();
            for &(p, owner) in &scratch {
                if let Some(c) = fill.get_mut((p >> low_bits) as usize - first_bucket) {
                    if let Some(slot) = slots.get_mut(*c as usize) {
                        *slot = pack(p, owner);
                    }
                    *c += 1;
                }
            }
        }
        drop(owners);

        let owner_mask = owner_mask(low_bits);
        for k in 0..buckets {
            let (lo, hi) =
                (index.get(k).copied().unwrap_or(0) as usize, index.get(k + 1).copied().unwrap_or(0) as usize);
            if let Some(run) = slots.get_mut(lo..hi) {
                match ties {
                    TieBreak::FirstNode => run.sort_unstable(),
                    TieBreak::LastNode => run.sort_unstable_by_key(|&s| (s & !owner_mask, !(s & owner_mask))),
                }
            }
        }
        // The first padding slot carries the owner of position 0, so a lookup that runs past
        // the last point wraps without a branch (its point bits are never compared).
        let first = slots.first().copied().unwrap_or(0) & owner_mask;
        if let Some(pad) = slots.get_mut(count) {
            *pad = first;
        }
        Ok(Self {
            slots: slots.into(),
            len: count,
            index: index.into(),
            low_bits,
            key_shift: 64 - low_bits,
            owner_mask,
        })
    }

    /// Number of points.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Position of the first point `>= h`, or `len` when there is none (the wrap).
    ///
    /// A strict (`>`) lookup is this with `h + 1`: with integer points, "first point > h" is
    /// "first point >= h + 1", and `h + 1` past the point space lands on `len`, the wrap.
    #[inline(always)]
    fn lower_bound(&self, h: u64) -> usize {
        let k = (h >> self.low_bits) as usize;
        let (lo, hi) = match self.index.get(k..k + 2) {
            Some(&[lo, hi]) => (lo as usize, hi as usize),
            _ => return self.len,
        };
        let run = hi.wrapping_sub(lo);
        // A slot sorts below `key` exactly when its point is below `h`: the owner bits sit
        // under the point's low bits, and `key` has zeros there.
        let key = h << self.key_shift;
        // Bit j is set when slot lo+j sorts below the key. Inside the run the set bits form a
        // prefix (the run is sorted); past the run they mean nothing, hence the `min`.
        let mut below_mask = 0u32;
        if let Some(window) = self.slots.get(lo..lo + WINDOW) {
            for (j, &s) in window.iter().enumerate() {
                below_mask |= u32::from(s < key) << j;
            }
        }
        let mut below = ((!below_mask).trailing_zeros() as usize).min(run);
        if run > WINDOW && below == WINDOW {
            let rest = self.slots.get(lo + WINDOW..hi).unwrap_or(&[]);
            below += rest.partition_point(|&s| s < key);
        }
        lo + below
    }

    /// Position of the point a hash lands on, wrapping to 0.
    #[inline]
    pub(crate) fn position(&self, h: u64, rule: LookupRule) -> usize {
        let at = self.lower_bound(rule.adjust(h));
        if at >= self.len { 0 } else { at }
    }

    /// Owner of the point a hash lands on (the hot path: no wrap branch).
    #[inline(always)]
    pub(crate) fn owner_of(&self, h: u64, rule: LookupRule) -> u32 {
        self.owner(self.lower_bound(rule.adjust(h)))
    }

    /// Start of the run a hash falls in (batch lookups touch it early).
    #[inline]
    pub(crate) fn run_start(&self, h: u64) -> usize {
        let k = (h >> self.low_bits) as usize;
        self.index.get(k).copied().unwrap_or(0) as usize
    }

    /// Owner of the point at `i`.
    #[inline(always)]
    pub(crate) fn owner(&self, i: usize) -> u32 {
        (self.slots.get(i).copied().unwrap_or(0) & self.owner_mask) as u32
    }

    /// The packed slot at `i` (for touching memory early).
    #[inline]
    pub(crate) fn slot(&self, i: usize) -> u64 {
        self.slots.get(i).copied().unwrap_or(0)
    }

    /// Value of the point at `i` (0 when out of range).
    pub(crate) fn point(&self, i: usize) -> u64 {
        if i >= self.len {
            return 0;
        }
        // The bucket of position i: the last bucket whose start is <= i (empty buckets share
        // their start with the next one, so take the last).
        let k = self.index.partition_point(|&start| start as usize <= i).saturating_sub(1) as u64;
        let low = self.slot(i) >> (64 - self.low_bits);
        (k << self.low_bits) | low
    }

    /// Every point in ring order as `(value, owner)`, walking the buckets (O(n), no search).
    pub(crate) fn for_each_point(&self, mut f: impl FnMut(u64, u32)) {
        let mask = owner_mask(self.low_bits);
        for (k, bounds) in self.index.windows(2).enumerate() {
            let [lo, hi] = *bounds else { continue };
            for &slot in self.slots.get(lo as usize..hi as usize).unwrap_or(&[]) {
                f(((k as u64) << self.low_bits) | (slot >> (64 - self.low_bits)), (slot & mask) as u32);
            }
        }
    }

    /// Width of the point space in bits (32 or 64).
    pub(crate) fn width(&self) -> u32 {
        self.low_bits + (self.index.len().saturating_sub(1)).trailing_zeros()
    }

    /// Bytes held by the table (slots with padding, and the index).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.slots.len() * 8 + self.index.len() * 4
    }
}

/// The low `r` bits of `p` (`r` in 1..=63), moved to the top of a `u64`.
#[inline]
fn low_part(p: u64, r: u32) -> u64 {
    p << (64 - r)
}

/// Mask of the owner bits: the low `64 - r` bits.
#[inline]
fn owner_mask(r: u32) -> u64 {
    u64::MAX.checked_shr(r).unwrap_or(0)
}

/// `log2` of the bucket count: about [`POINTS_PER_BUCKET`] points per bucket.
fn bucket_bits(count: usize) -> u32 {
    let target = (count / POINTS_PER_BUCKET).max(1);
    usize::BITS - 1 - target.leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(points: &[(u64, u32)], width: u32, nodes: usize, ties: TieBreak) -> PointTable {
        PointTable::build(points.len(), width, nodes, ties, |emit| {
            for &(p, o) in points {
                emit(p, o);
            }
        })
        .unwrap()
    }

    /// The packed table against a plain sorted list, for both rules, both tie-breaks, both
    /// widths, and hashes on, between and around the points.
    #[test]
    fn matches_a_naive_sorted_list() {
        let mut state = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for width in [32u32, 64] {
            for count in [1usize, 2, 7, 40, 1000] {
                for nodes in [1usize, 3, 300] {
                    let mask = if width == 64 { u64::MAX } else { (1 << width) - 1 };
                    let mut pts: Vec<(u64, u32)> =
                        (0..count).map(|_| (next() & mask, (next() % nodes as u64) as u32)).collect();
                    // Force duplicates and extremes.
                    pts.push((pts[0].0, (nodes - 1) as u32));
                    pts.push((mask, 0));
                    pts.push((0, (nodes - 1) as u32));
                    for ties in [TieBreak::FirstNode, TieBreak::LastNode] {
                        let t = table(&pts, width, nodes, ties);
                        let mut sorted = pts.clone();
                        sorted.sort_by_key(|&(p, o)| (p, if ties == TieBreak::FirstNode { o } else { u32::MAX - o }));
                        for (i, &want) in sorted.iter().enumerate() {
                            assert_eq!((t.point(i), t.owner(i)), want);
                        }
                        let probes: Vec<u64> = sorted
                            .iter()
                            .flat_map(|&(p, _)| [p, p.wrapping_sub(1) & mask, p.wrapping_add(1) & mask])
                            .chain((0..200).map(|_| next() & mask))
                            .collect();
                        for h in probes {
                            for rule in [LookupRule::LowerBound, LookupRule::Strict] {
                                let want = sorted
                                    .iter()
                                    .position(|&(p, _)| if rule == LookupRule::LowerBound { p >= h } else { p > h })
                                    .unwrap_or(0);
                                assert_eq!(
                                    t.owner(t.position(h, rule)),
                                    sorted[want].1,
                                    "w{width} n{count} h{h:x} {rule:?}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
