//! [`HotKeys`]: which keys are hot, in bounded memory.
//!
//! A per-key counter map (the usual remedy: count every key in a local map, call a key hot past
//! a threshold) grows with the number of distinct keys and loses counts to eviction. `HotKeys`
//! keeps two things of fixed size instead:
//!
//! - a **sketch**: two rows of `width` counters, each key counted in one counter of each row
//!   (chosen by its hash) with the conservative update (only the smaller counters grow). A key's
//!   estimate, the smaller of its two counters, is never below its true count and is above it
//!   only by what colliding keys added; [`HotKeys::heat`] reads it in O(1).
//! - **candidates**: up to `capacity` keys with their estimates, the ones [`HotKeys::top`]
//!   reports. A candidate stores its key's hash, its length and at most
//!   [`MAX_CANDIDATE_KEY_BYTES`] of its bytes: a longer key is told apart by hash, length and
//!   prefix, and [`HotKeys::top`] reports its first [`MAX_CANDIDATE_KEY_BYTES`] bytes (a reported
//!   key of exactly that length may be cut: [`HotKeys::top_with_lengths`] gives the full
//!   length). So the candidates hold at most `capacity × (MAX_CANDIDATE_KEY_BYTES + about 40)`
//!   bytes whatever the keys' sizes. A key enters when its estimate reaches the admission bar; when the table is full,
//!   the less counted half is dropped and the bar rises to what was dropped, so that only keys
//!   counted more than those may enter (each drop costs O(capacity) once per `capacity / 2`
//!   admissions: O(1) per observation, amortised).
//!
//! Counts decay: [`HotKeys::decay`] halves every count (sketch, candidates, total, bar), so a
//! count is an exponentially weighted number of recent observations. The caller decides when
//! (every window of time, or of observations): the core has no clock.
//!
//! It is one structure for one thread (`&mut self`); `keyroute_bindings` shards it behind locks
//! for many threads. `core/tests/hotkeys.rs` measures its accuracy against exact counts.

use alloc::boxed::Box;
use alloc::vec::Vec;

use hashbrown::HashTable;

use crate::{Error, Result, hash};

/// Most counters per sketch row.
pub const MAX_WIDTH: usize = 1 << 24;

/// Most candidate keys.
pub const MAX_CANDIDATES: usize = 1 << 20;

/// Most bytes of a key a candidate stores (1 KiB); a longer key is stored as its first
/// `MAX_CANDIDATE_KEY_BYTES` bytes, its length and its hash, and reported cut to them.
pub const MAX_CANDIDATE_KEY_BYTES: usize = 1 << 10;

/// A candidate key (its first [`MAX_CANDIDATE_KEY_BYTES`] bytes at most) and its estimate.
#[derive(Debug, Clone)]
struct Candidate {
    hash: u64,
    /// The whole key's length (saturated at `u32::MAX`, which keeps a candidate 32 bytes: the
    /// detector's memory is counted per candidate slot).
    len: u32,
    /// The key, or its first [`MAX_CANDIDATE_KEY_BYTES`] bytes when it is longer.
    key: Box<[u8]>,
    count: u32,
}

impl Candidate {
    /// Whether this candidate is `key` (of hash `h`): the whole key when it is stored whole,
    /// else its hash, length and stored prefix (64-bit hash collisions between long keys of one
    /// length and prefix are merged).
    fn is(&self, h: u64, key: &[u8]) -> bool {
        self.hash == h && self.len == saturated_len(key) && key.starts_with(&self.key)
    }
}

/// A key's length as a candidate records it.
fn saturated_len(key: &[u8]) -> u32 {
    u32::try_from(key.len()).unwrap_or(u32::MAX)
}

/// A bounded-memory heavy-hitter detector with decay: see the [module documentation](self).
#[derive(Debug, Clone)]
pub struct HotKeys {
    /// Two rows of `mask + 1` counters, one after the other.
    sketch: Box<[u32]>,
    mask: usize,
    candidates: HashTable<Candidate>,
    capacity: usize,
    /// The estimate a key needs to become a candidate.
    bar: u32,
    /// Observations (decayed with the counts).
    total: u64,
}

impl HotKeys {
    /// A detector with sketch rows of `width` counters (rounded up to a power of two, at least
    /// 16) and room for `capacity` candidate keys. Memory: `8 × width` bytes for the sketch,
    /// plus the candidates (about 40 bytes each and at most [`MAX_CANDIDATE_KEY_BYTES`] of each
    /// key's bytes).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a width above [`MAX_WIDTH`] or a capacity of 0 or above
    /// [`MAX_CANDIDATES`]; [`Error::OutOfMemory`].
    pub fn new(width: usize, capacity: usize) -> Result<Self> {
        if width > MAX_WIDTH {
            return Err(Error::InvalidParameter("the sketch width must be at most 2^24"));
        }
        if capacity == 0 || capacity > MAX_CANDIDATES {
            return Err(Error::InvalidParameter("the candidate capacity must be between 1 and 2^20"));
        }
        let width = width.max(16).next_power_of_two();
        let sketch = crate::budget::try_vec(2 * width, 0u32)?.into_boxed_slice();
        let mut candidates = HashTable::new();
        candidates.try_reserve(capacity, |c: &Candidate| c.hash).map_err(|_| Error::OutOfMemory)?;
        Ok(Self { sketch, mask: width - 1, candidates, capacity, bar: 1, total: 0 })
    }

    /// The two counters of a hash.
    #[inline]
    fn cells(&self, h: u64) -> (usize, usize) {
        let width = self.mask + 1;
        ((h as usize) & self.mask, width + ((h >> 32) as usize & self.mask))
    }

    /// Counts one observation of `key`; returns its estimate after it.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] when a new candidate's key cannot be stored (the count is kept).
    pub fn observe(&mut self, key: &[u8]) -> Result<u32> {
        let h = hash::xxh3_64(key);
        let (a, b) = self.cells(h);
        let (ca, cb) = (self.sketch.get(a).copied().unwrap_or(0), self.sketch.get(b).copied().unwrap_or(0));
        let estimate = ca.min(cb).saturating_add(1);
        // Conservative update: a counter only grows to the new estimate.
        for cell in [a, b] {
            if let Some(c) = self.sketch.get_mut(cell) {
                *c = (*c).max(estimate);
            }
        }
        self.total += 1;
        if estimate >= self.bar {
            self.admit(h, key, estimate)?;
        }
        Ok(estimate)
    }

    fn admit(&mut self, h: u64, key: &[u8], estimate: u32) -> Result<()> {
        if let Some(c) = self.candidates.find_mut(h, |c| c.is(h, key)) {
            c.count = estimate;
            return Ok(());
        }
        if self.candidates.len() >= self.capacity {
            self.prune();
            if estimate < self.bar {
                return Ok(());
            }
        }
        let kept = key.get(..MAX_CANDIDATE_KEY_BYTES).unwrap_or(key);
        let mut stored = Vec::new();
        stored.try_reserve_exact(kept.len()).map_err(|_| Error::OutOfMemory)?;
        stored.extend_from_slice(kept);
        let candidate = Candidate { hash: h, len: saturated_len(key), key: stored.into_boxed_slice(), count: estimate };
        self.candidates.insert_unique(h, candidate, |c| c.hash);
        Ok(())
    }

    /// Drops the less counted half of the candidates and raises the bar above them.
    fn prune(&mut self) {
        let mut counts: Vec<u32> = self.candidates.iter().map(|c| c.count).collect();
        let middle = counts.len() / 2;
        let (_, &mut median, _) = counts.select_nth_unstable(middle);
        self.candidates.retain(|c| c.count > median);
        self.bar = self.bar.max(median.saturating_add(1));
    }

    /// Halves every count: the sketch, the candidates (dropping those at zero), the total and the
    /// admission bar.
    pub fn decay(&mut self) {
        for c in self.sketch.iter_mut() {
            *c >>= 1;
        }
        self.candidates.retain(|c| {
            c.count >>= 1;
            c.count > 0
        });
        self.total >>= 1;
        self.bar = (self.bar >> 1).max(1);
    }

    /// The estimate of `key`'s (decayed) count: never below the true count.
    #[must_use]
    pub fn heat(&self, key: &[u8]) -> u32 {
        let (a, b) = self.cells(hash::xxh3_64(key));
        self.sketch.get(a).copied().unwrap_or(0).min(self.sketch.get(b).copied().unwrap_or(0))
    }

    /// Whether `key`'s estimate is at least `count`.
    #[must_use]
    pub fn is_hot(&self, key: &[u8], count: u32) -> bool {
        self.heat(key) >= count
    }

    /// Whether `key`'s estimate is at least `share` of all (decayed) observations.
    #[must_use]
    pub fn is_hot_share(&self, key: &[u8], share: f64) -> bool {
        self.total > 0 && f64::from(self.heat(key)) >= share * self.total as f64
    }

    /// Observations counted (decayed with the counts).
    #[must_use]
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The `k` most counted candidates, most counted first (ties by key), with their estimates.
    /// A key longer than [`MAX_CANDIDATE_KEY_BYTES`] is given as its first
    /// [`MAX_CANDIDATE_KEY_BYTES`] bytes ([`HotKeys::top_with_lengths`] tells it apart).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] when the list (one entry per candidate, before the cut to `k`)
    /// cannot be allocated.
    pub fn top(&self, k: usize) -> Result<Vec<(&[u8], u32)>> {
        let top = self.top_with_lengths(k)?;
        let mut out = Vec::new();
        out.try_reserve_exact(top.len()).map_err(|_| Error::OutOfMemory)?;
        out.extend(top.into_iter().map(|(key, _, count)| (key, count)));
        Ok(out)
    }

    /// As [`HotKeys::top`], with each key's full length (at most `u32::MAX`): a key is cut (the stored bytes are its
    /// first [`MAX_CANDIDATE_KEY_BYTES`]) when its length is above the bytes given.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] when the list cannot be allocated.
    pub fn top_with_lengths(&self, k: usize) -> Result<Vec<(&[u8], usize, u32)>> {
        let mut all: Vec<(&[u8], usize, u32)> = Vec::new();
        all.try_reserve_exact(self.candidates.len()).map_err(|_| Error::OutOfMemory)?;
        all.extend(self.candidates.iter().map(|c| (&*c.key, c.len as usize, c.count)));
        all.sort_unstable_by(|x, y| y.2.cmp(&x.2).then_with(|| x.0.cmp(y.0)).then_with(|| x.1.cmp(&y.1)));
        all.truncate(k);
        Ok(all)
    }

    /// Bytes held: the sketch, the candidate table and the candidates' stored key bytes (at
    /// most [`MAX_CANDIDATE_KEY_BYTES`] each).
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        let keys: usize = self.candidates.iter().map(|c| c.key.len()).sum();
        self.sketch.len() * 4 + self.candidates.capacity() * (core::mem::size_of::<Candidate>() + 1) + keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_out_of_range_are_refused() {
        assert!(matches!(HotKeys::new(MAX_WIDTH + 1, 10), Err(Error::InvalidParameter(_))));
        assert!(matches!(HotKeys::new(1024, 0), Err(Error::InvalidParameter(_))));
        assert!(matches!(HotKeys::new(1024, MAX_CANDIDATES + 1), Err(Error::InvalidParameter(_))));
        assert_eq!(HotKeys::new(3, 1).unwrap().sketch.len(), 32, "width rounded up to 16");
    }

    #[test]
    fn estimates_never_fall_below_the_true_count() {
        let mut hot = HotKeys::new(16, 4).unwrap();
        let mut exact = alloc::collections::BTreeMap::new();
        for i in 0..5000u32 {
            let key = (i * i % 97).to_le_bytes();
            *exact.entry(key).or_insert(0u32) += 1;
            hot.observe(&key).unwrap();
        }
        for (key, &count) in &exact {
            assert!(hot.heat(key) >= count);
        }
        assert_eq!(hot.total(), 5000);
        assert!(hot.candidates.len() <= 4);
    }

    #[test]
    fn the_hottest_key_leads_and_decay_halves_it() {
        let mut hot = HotKeys::new(1024, 8).unwrap();
        for i in 0..10_000u32 {
            let cold = i.to_le_bytes();
            hot.observe(if i % 2 == 0 { b"hot".as_slice() } else { &cold }).unwrap();
        }
        let top = hot.top(1).unwrap();
        assert_eq!(top, [(b"hot".as_slice(), 5000)]);
        assert!(hot.is_hot(b"hot", 5000) && hot.is_hot_share(b"hot", 0.5) && !hot.is_hot_share(b"hot", 0.51));
        hot.decay();
        assert_eq!((hot.heat(b"hot"), hot.total()), (2500, 5000));
        for _ in 0..20 {
            hot.decay();
        }
        assert!(hot.top(8).unwrap().is_empty() && hot.heat(b"hot") == 0);
    }
}
