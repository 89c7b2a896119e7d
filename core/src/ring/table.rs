//! The sorted point table behind every ring.
//!
//! Layout, chosen so a lookup is two dependent reads (index entry, then one or two cache lines
//! of points) and the table costs 9 to 11 bytes per point:
//!
//! - the point space (`width` bits: 64 for ring-v1, 32 for the ketama family) is cut into
//!   `2^b` buckets by its top `b` bits (1.5 to 3 points per bucket on average), and `index[k]`
//!   is the position of the first point of bucket `k` (a counting sort by bucket builds both
//!   in O(n));
//! - a point in bucket `k` no longer needs its top `b` bits, so each slot stores the point's
//!   remaining `r = width - b` bits at the top of a `u64` and the owning node's index in the
//!   free low `64 - r` bits. Comparing a stored slot with the key's shifted low bits compares
//!   the points exactly, and the owner comes out of the same read. `b` is chosen large enough
//!   that every node index fits.
//!
//! A lookup reads `index[k]`, `index[k+1]`, then compares the bucket's first [`WINDOW`] slots
//! and picks the owner with conditional moves, no branch depending on the key. A key past
//! the window in a longer bucket (under 2% of keys; more when a narrow peer hash crowds the
//! points) falls back to a binary search of the rest of the bucket.
//!
//! Why branch-free: which way each comparison goes depends on the key, so a branch on it is
//! mispredicted for a large share of lookups, and each misprediction costs more than the
//! whole lookup otherwise does. An earlier layout with 2 to 4 points per bucket, a branch on
//! the bucket's length and a second read at the found position measured 4.1×F at N=10;
//! this one 2.7×F (BENCHMARKS.md).

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
    /// The last point `<=` the hash, wrapping to the last point (Dalli, redis-rb).
    ///
    /// The table stores such a ring's points complemented (`!p` within the point width) and
    /// looks up `!h` by lower bound: the last point at or below `h` is the first complemented
    /// point at or above `!h`, and a hash below every point wraps to the smallest complement,
    /// the largest point. Ring positions therefore run in descending point order, so a replica
    /// walk continues in the lookup's direction: the owners a key gets as earlier ones leave.
    Floor,
}

impl LookupRule {
    /// The hash a lower-bound search needs to answer this rule.
    #[inline(always)]
    pub(crate) fn adjust(self, h: u64, width: u32) -> u64 {
        match self {
            Self::LowerBound => h,
            Self::Strict => h.wrapping_add(1),
            Self::Floor => complement(h, width),
        }
    }
}

/// `!v` within the low `width` bits (how a [`LookupRule::Floor`] ring stores points).
#[inline(always)]
pub(crate) fn complement(v: u64, width: u32) -> u64 {
    if width >= 64 { !v } else { !v & ((1u64 << width) - 1) }
}

/// Top bits of the point space that split a build into partitions (at most 256).
const PARTITION_BITS: u32 = 8;

/// Slots compared without branching before falling back to a binary search. The padding
/// after the last point is this long, so every window read from a position `<= len` is in
/// range; the build's four-slot sorting network relies on it being at least 4.
const WINDOW: usize = 6;
const _: () = assert!(WINDOW >= 4);

/// At most this many points per index bucket on average (at least half as many: the bucket
/// count is a power of two). With 1.5 to 3 points a bucket, 98.3–99.9% of keys fall within the
/// window (a Poisson count of points per bucket), and the index costs 1.3 to 2.7 bytes per
/// point on top of the 8-byte slots.
const POINTS_PER_BUCKET: usize = 3;

/// A hash's bucket, read from the index: the first half of a lookup.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Probe {
    /// Position of the bucket's first point.
    lo: usize,
    /// Points in the bucket.
    run: usize,
    /// The hash's low bits in slot form (owner bits zero).
    key: u64,
}

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
    /// Builds the table from a generator that emits points in batches, each batch with the
    /// one node that owns all of its points (a call per batch rather than per point).
    ///
    /// `generate` is called once for a large table whose points spread evenly (see
    /// [`gather_once`]), otherwise twice, and must emit the same `count` points every time.
    /// Points must be below `2^width`.
    pub(crate) fn build<G>(count: usize, width: u32, nodes: usize, ties: TieBreak, generate: G) -> Result<Self>
    where
        G: Fn(&mut dyn FnMut(&[u64], u32)),
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
        // Enough bucket bits for 1.5 to 3 points a bucket, and for the owner to fit in the
        // low bits freed by the bucket bits (64 - r >= bits needed for a node index).
        // Bits for any node index with the all-ones value left unused (see `owner_at`).
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
        let gathered = match gather_once(count, part_bits, part_shift, &generate) {
            Some(g) => g,
            None => gather_twice(count, part_bits, part_shift, &generate)?,
        };
        let Gathered { mut slots, owners, part_start, source } = gathered;

        // Each partition, now small enough for the cache: count its points per bucket, place
        // them packed, and sort each bucket's run (a few points) while it is still cached.
        let owner_mask = owner_mask(low_bits);
        let mut index = crate::budget::try_vec(buckets + 1, 0u32)?;
        let mut scratch: Vec<(u64, u32)> = Vec::new();
        let mut fill: Vec<u32> = Vec::new();
        for q in 0..part_start.len() - 1 {
            let (lo, hi) = (
                part_start.get(q).copied().unwrap_or(0) as usize,
                part_start.get(q + 1).copied().unwrap_or(0) as usize,
            );
            // This partition's raw points (where the gathering left them, at or after `lo`).
            let from = source.get(q).copied().unwrap_or(0);
            let (Some(points), Some(owns)) = (slots.get(from..from + hi - lo), owners.get(from..from + hi - lo)) else {
                continue;
            };
            scratch.clear();
            scratch.try_reserve(hi - lo).map_err(|_| Error::OutOfMemory)?;
            scratch.extend(points.iter().copied().zip(owns.iter().copied()));
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
            fill.clear();
            fill.try_reserve(per_part).map_err(|_| Error::OutOfMemory)?;
            fill.extend_from_slice(local.get(..per_part).unwrap_or(&[]));
            for &(p, owner) in &scratch {
                if let Some(c) = fill.get_mut((p >> low_bits) as usize - first_bucket) {
                    if let Some(slot) = slots.get_mut(*c as usize) {
                        *slot = pack(p, owner);
                    }
                    *c += 1;
                }
            }
            for run in local.windows(2) {
                let [start, end] = *run else { continue };
                sort_run(&mut slots, start as usize, end.wrapping_sub(start) as usize, ties, owner_mask);
            }
        }
        drop(owners);
        // A single-pass gathering left room between partitions: give it back (the packed table
        // now fills exactly `count` slots; the padding is rewritten below). `shrink_to_fit`
        // would abort if the allocator refused, so the table moves to an exact allocation
        // when one can be had, and keeps its few percent of spare room when not.
        slots.truncate(count + WINDOW);
        if slots.capacity() > slots.len()
            && let Ok(mut exact) = crate::budget::try_with_capacity(slots.len())
        {
            exact.extend_from_slice(&slots);
            slots = exact;
        }
        if let Some(pad) = slots.get_mut(count..) {
            pad.fill(u64::MAX);
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

    /// Reads the index for `h`: where its bucket's run of points starts, how long it is, and `h`
    /// in slot form. Hashes past the point space (a strict lookup of its last value) land on
    /// `len`, the wrap.
    #[inline(always)]
    pub(crate) fn probe(&self, h: u64) -> Probe {
        let k = (h >> self.low_bits) as usize;
        match self.index.get(k..k + 2) {
            // A slot sorts below `key` exactly when its point is below `h`: the owner bits sit
            // under the point's low bits, and `key` has zeros there.
            Some(&[lo, hi]) => Probe { lo: lo as usize, run: hi.wrapping_sub(lo) as usize, key: h << self.key_shift },
            _ => Probe { lo: self.len, run: 0, key: 0 },
        }
    }

    /// Asks the cache for the index entry [`Self::probe`] will read for `h`.
    #[inline(always)]
    pub(crate) fn prefetch_probe(&self, h: u64) {
        prefetch(self.index.get((h >> self.low_bits) as usize));
    }

    /// Asks the cache for the slots [`Self::owner_at`] will read for `p` (the window may
    /// straddle two cache lines).
    #[inline(always)]
    pub(crate) fn prefetch_window(&self, p: &Probe) {
        prefetch(self.slots.get(p.lo));
        prefetch(self.slots.get(p.lo + WINDOW));
    }

    /// Position of the first point `>=` the probed hash, or `len` when there is none (the wrap).
    ///
    /// A strict (`>`) lookup is this with `h + 1`: with integer points, "first point > h" is
    /// "first point >= h + 1", and `h + 1` past the point space lands on `len`, the wrap.
    ///
    /// The run is sorted, so the position is the run's start plus how many of its slots sort
    /// below the key; the first [`WINDOW`] are counted without a branch (which way each
    /// comparison goes depends on the key, so branches on them would be mispredicted). Slots
    /// read past the run belong to later buckets and are not counted. Only a key past the
    /// last slot of the window in a longer run goes on to search the rest: under 1% of keys with
    /// the bucket count `bucket_bits` chooses, and tested by one comparison, so the branch is
    /// almost never taken rather than taken whenever a run is long.
    #[inline(always)]
    fn lower_bound(&self, p: Probe) -> usize {
        let Some(window) = self.window(p.lo) else {
            return self.len;
        };
        let mut below = 0;
        for (j, s) in window.into_iter().enumerate() {
            below += usize::from((s < p.key) & (j < p.run));
        }
        // `below == WINDOW` with a longer run, as one comparison of a sum: LLVM splits a
        // branch on `a && b` into two branches, the first of them on the run's length.
        if below + usize::from(p.run > WINDOW) > WINDOW {
            return self.past_window(p.lo, p.run, p.key);
        }
        p.lo + below
    }

    /// The [`WINDOW`] slots from `lo` (in range for every `lo <= len`, thanks to the padding).
    #[inline(always)]
    fn window(&self, lo: usize) -> Option<[u64; WINDOW]> {
        self.slots.get(lo..lo + WINDOW).and_then(|w| <[u64; WINDOW]>::try_from(w).ok())
    }

    /// [`Self::lower_bound`] for a key past the window: a binary search of the run's rest.
    #[cold]
    fn past_window(&self, lo: usize, run: usize, key: u64) -> usize {
        let rest = self.slots.get(lo + WINDOW..lo + run).unwrap_or(&[]);
        lo + WINDOW + rest.partition_point(|&s| s < key)
    }

    /// Position of the point a hash lands on, wrapping to 0.
    #[inline]
    pub(crate) fn position(&self, h: u64, rule: LookupRule) -> usize {
        let at = self.lower_bound(self.probe(rule.adjust(h, self.width())));
        if at >= self.len { 0 } else { at }
    }

    /// Owner of the point a hash lands on (the hot path).
    #[inline(always)]
    pub(crate) fn owner_of(&self, h: u64, rule: LookupRule) -> u32 {
        self.owner_at(self.probe(rule.adjust(h, self.width())))
    }

    /// Owner of the point a probe lands on: [`Self::lower_bound`] without a second read at the
    /// found position.
    ///
    /// The answer is slot `min(run, first j with s_j >= key)` — the slot just past the run is
    /// the next bucket's first point, or at `len` the padding slot that carries the owner of
    /// position 0, so the wrap needs no branch. Walking down the window, every slot that would
    /// end the search replaces the pick, with conditional moves. When none does — the key lies
    /// past the window in a longer run — the pick keeps its starting value, `u64::MAX`, which
    /// no point's slot can hold (the all-ones owner index is never used), and the general
    /// search takes over. That one comparison is the only branch that depends on the key, and
    /// it is almost never taken.
    #[inline(always)]
    pub(crate) fn owner_at(&self, p: Probe) -> u32 {
        let Some(window) = self.window(p.lo) else {
            return self.owner(self.len);
        };
        let mut pick = u64::MAX;
        for (j, &s) in window.iter().enumerate().rev() {
            pick = core::hint::select_unpredictable((s >= p.key) | (j >= p.run), s, pick);
        }
        if pick == u64::MAX {
            return self.owner(self.lower_bound(p));
        }
        (pick & self.owner_mask) as u32
    }

    /// Owner of the point at `i`.
    #[inline(always)]
    pub(crate) fn owner(&self, i: usize) -> u32 {
        (self.slots.get(i).copied().unwrap_or(0) & self.owner_mask) as u32
    }

    /// The packed slot at `i` (0 when out of range).
    #[inline]
    fn slot(&self, i: usize) -> u64 {
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
    #[inline(always)]
    pub(crate) fn width(&self) -> u32 {
        self.low_bits + (self.index.len().saturating_sub(1)).trailing_zeros()
    }

    /// Bytes held by the table (slots with padding, and the index).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.slots.len() * 8 + self.index.len() * 4
    }
}

/// A hint that `what` will be read soon: a prefetch instruction where the target has a stable
/// one, nothing elsewhere (the batch's stages still overlap their reads out of order).
#[inline(always)]
fn prefetch<T>(what: Option<&T>) {
    #[cfg(target_arch = "x86_64")]
    if let Some(at) = what {
        // SAFETY: a prefetch is only a hint to the cache: it never faults and its result is not
        // read, and SSE, which provides it, is part of every x86_64 target.
        unsafe { core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>((at as *const T).cast()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = what;
}

/// Raw points and their owners grouped by partition, before each partition is sorted.
struct Gathered {
    /// Raw points (then, after sorting, the packed table), with room for the padding.
    slots: Vec<u64>,
    /// Owners, beside `slots`.
    owners: Vec<u32>,
    /// Where each partition's points go in the table (prefix sums of their counts).
    part_start: Vec<u32>,
    /// Where each partition's raw points are now (`source[q] >= part_start[q]`).
    source: Vec<usize>,
}

/// Points per partition below which the two-pass gathering is used: the single pass reserves
/// room for six standard deviations more than the expected count in every partition, which
/// only pays for large tables.
const SINGLE_PASS_MIN_PER_PARTITION: usize = 1024;

/// Gathers the points in one call of the generator, into fixed-size regions (one per
/// partition) sized for the expected count plus six standard deviations — about 8% spare for
/// a 1.6M-point table. Hash-placed points fill partitions evenly, so a region overflows only
/// when the point hash is narrow or clustered (a peer's 15-bit hash puts every point in one
/// partition); then this returns `None` and [`gather_twice`] counts first.
fn gather_once<G>(count: usize, part_bits: u32, part_shift: u32, generate: &G) -> Option<Gathered>
where
    G: Fn(&mut dyn FnMut(&[u64], u32)),
{
    let parts = 1usize << part_bits;
    let expected = count.div_ceil(parts);
    if expected < SINGLE_PASS_MIN_PER_PARTITION {
        return None;
    }
    let cap = expected + 6 * expected.isqrt() + 16;
    // Room to spare is only a shortcut: when it cannot be had, the exact two-pass gather runs.
    let mut slots = crate::budget::try_vec(cap * parts + WINDOW, u64::MAX).ok()?;
    let mut owners = crate::budget::try_vec(cap * parts, 0u32).ok()?;
    let mut cursor: Vec<usize> = (0..parts).map(|q| q * cap).collect();
    let mut overflow = false;
    let mut seen = 0usize;
    generate(&mut |points, owner| {
        for &p in points {
            let q = (p >> part_shift) as usize;
            match cursor.get_mut(q) {
                Some(c) if *c < (q + 1) * cap => {
                    if let (Some(slot), Some(o)) = (slots.get_mut(*c), owners.get_mut(*c)) {
                        *slot = p;
                        *o = owner;
                    }
                    *c += 1;
                }
                _ => overflow = true,
            }
        }
        seen += points.len();
    });
    if overflow || seen != count {
        return None;
    }
    let mut part_start = Vec::with_capacity(parts + 1);
    let mut total = 0u32;
    part_start.push(0);
    for (q, &c) in cursor.iter().enumerate() {
        total += (c - q * cap) as u32;
        part_start.push(total);
    }
    let source = (0..parts).map(|q| q * cap).collect();
    Some(Gathered { slots, owners, part_start, source })
}

/// Gathers the points with two calls of the generator: the first counts points per
/// partition, the second scatters them into place, so nothing is reserved beyond the table.
fn gather_twice<G>(count: usize, part_bits: u32, part_shift: u32, generate: &G) -> Result<Gathered>
where
    G: Fn(&mut dyn FnMut(&[u64], u32)),
{
    let mut part_start = vec![0u32; (1usize << part_bits) + 1];
    let mut seen = 0usize;
    let mut out_of_range = false;
    generate(&mut |points, _| {
        for &p in points {
            match part_start.get_mut((p >> part_shift) as usize + 1) {
                Some(c) => *c += 1,
                None => out_of_range = true,
            }
        }
        seen += points.len();
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
    let mut slots = crate::budget::try_vec(count + WINDOW, u64::MAX)?;
    let mut owners = crate::budget::try_vec(count, 0u32)?;
    let mut cursor = part_start.clone();
    let mut consistent = true;
    generate(&mut |points, owner| {
        for &p in points {
            let Some(c) = cursor.get_mut((p >> part_shift) as usize) else {
                consistent = false;
                continue;
            };
            let at = *c as usize;
            match (slots.get_mut(at), owners.get_mut(at)) {
                (Some(slot), Some(o)) => {
                    *slot = p;
                    *o = owner;
                }
                _ => consistent = false,
            }
            *c += 1;
        }
    });
    // The second call must have emitted exactly what the first counted, partition by
    // partition (each cursor then sits at its partition's end).
    if !consistent || cursor.get(..cursor.len() - 1) != part_start.get(1..) {
        return Err(Error::InvalidParameter("point generator is inconsistent"));
    }
    let source = part_start.iter().map(|&s| s as usize).collect();
    Ok(Gathered { slots, owners, part_start, source })
}

/// Sorts one bucket's packed slots by point, ties by [`TieBreak`].
///
/// Runs hold 1.5 to 3 points on average, and a branch on a run's length (or on each
/// comparison of an insertion sort) would be mispredicted about once a bucket, which was the
/// largest cost of building a large ring. So the first four slots from the run's start go
/// through a five-comparator sorting network of conditional moves, with slots past the run
/// keyed as `u64::MAX` (above every real slot: the all-ones owner is never used) so that they
/// never move. Only a run longer than four takes a branch, to the library sort.
#[inline(always)]
fn sort_run(slots: &mut [u64], start: usize, run: usize, ties: TieBreak, owner_mask: u64) {
    // Same point: the first node first, or the last (its owner bits inverted sort first).
    let flip = match ties {
        TieBreak::FirstNode => 0,
        TieBreak::LastNode => owner_mask,
    };
    if run > 4 {
        if let Some(r) = slots.get_mut(start..start + run) {
            r.sort_unstable_by_key(|&s| s ^ flip);
        }
        return;
    }
    let Some(w) = slots.get_mut(start..start + 4) else { return };
    let Ok(w) = <&mut [u64; 4]>::try_from(w) else { return };
    let mut k = [0u64; 4];
    for (j, (kj, &s)) in k.iter_mut().zip(w.iter()).enumerate() {
        *kj = core::hint::select_unpredictable(j < run, s ^ flip, u64::MAX);
    }
    let [mut k0, mut k1, mut k2, mut k3] = k;
    exchange(&mut k0, &mut k1);
    exchange(&mut k2, &mut k3);
    exchange(&mut k0, &mut k2);
    exchange(&mut k1, &mut k3);
    exchange(&mut k1, &mut k2);
    let k = [k0, k1, k2, k3];
    // The keys are the slots (flipped back); slots past the run kept their places.
    for (j, (s, &kj)) in w.iter_mut().zip(k.iter()).enumerate() {
        *s = core::hint::select_unpredictable(j < run, kj ^ flip, *s);
    }
}

/// A comparator of a sorting network: `a <= b` afterwards, without a branch.
#[inline(always)]
fn exchange(a: &mut u64, b: &mut u64) {
    let (lo, hi) = ((*a).min(*b), (*a).max(*b));
    *a = lo;
    *b = hi;
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
    let target = count.div_ceil(POINTS_PER_BUCKET).max(1);
    target.next_power_of_two().trailing_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(points: &[(u64, u32)], width: u32, nodes: usize, ties: TieBreak) -> PointTable {
        PointTable::build(points.len(), width, nodes, ties, |emit| {
            for &(p, o) in points {
                emit(&[p], o);
            }
        })
        .unwrap()
    }

    /// A xorshift64 stream: test points and probes, the same on every run.
    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    /// The packed table against a plain sorted list, for both rules, both tie-breaks, both
    /// widths, and hashes on, between and around the points.
    #[test]
    fn matches_a_naive_sorted_list() {
        let mut next = xorshift(0x1234_5678_9abc_def0u64);
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
                    // A cluster of 24 points in one bucket, so lookups run past the scan window.
                    let base = next() & mask;
                    pts.extend((0..24u64).map(|j| ((base & !0xff) | (j * 7), (j % nodes as u64) as u32)));
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
                                assert_eq!(t.owner_of(h, rule), sorted[want].1, "w{width} n{count} h{h:x} {rule:?}");
                            }
                        }
                    }
                }
            }
        }
    }

    /// Large tables: hash-placed points take the single-pass gathering; the same number of
    /// points crowded into one partition overflows its region and takes the two-pass path.
    /// Both must give the table a plain sort gives.
    #[test]
    fn large_tables_through_both_gatherings() {
        let mut next = xorshift(0x0bad_cafe_dead_beefu64);
        for clustered in [false, true] {
            let pts: Vec<(u64, u32)> =
                (0..300_000u32).map(|i| (if clustered { next() >> 12 } else { next() }, i % 1000)).collect();
            let generate = |emit: &mut dyn FnMut(&[u64], u32)| {
                for &(p, o) in &pts {
                    emit(&[p], o);
                }
            };
            let once = gather_once(pts.len(), PARTITION_BITS, 64 - PARTITION_BITS, &generate);
            assert_eq!(once.is_some(), !clustered, "clustered: {clustered}");
            let t = table(&pts, 64, 1000, TieBreak::FirstNode);
            let mut sorted = pts.clone();
            sorted.sort_unstable();
            for (i, &want) in sorted.iter().enumerate().step_by(7) {
                assert_eq!((t.point(i), t.owner(i)), want);
            }
            for _ in 0..20_000 {
                let h = if clustered { next() >> 12 } else { next() };
                let at = sorted.partition_point(|&(p, _)| p < h);
                let want = sorted.get(at).unwrap_or(&sorted[0]).1;
                assert_eq!(t.owner_of(h, LookupRule::LowerBound), want);
                assert_eq!(t.owner(t.position(h, LookupRule::LowerBound)), want);
            }
        }
    }
}
