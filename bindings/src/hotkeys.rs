//! [`SharedHotKeys`]: the core's [`keyroute::HotKeys`] for many threads, sharded by key hash,
//! each shard behind its own lock (an observation locks one shard, briefly).

use std::sync::{Mutex, MutexGuard, PoisonError};

use keyroute::HotKeys;

use crate::{Error, ErrorCode, Result};

/// Most shards.
pub const MAX_SHARDS: usize = 256;

/// Sketch counters a row unless a surface is given another width (with the other defaults,
/// about 190 KB in all, plus at most `MAX_CANDIDATE_KEY_BYTES` (1 KiB) of each candidate's key:
/// under 1.3 MB whatever the keys).
pub const DEFAULT_WIDTH: usize = 16_384;

/// Candidate keys unless a surface is given another capacity.
pub const DEFAULT_CAPACITY: usize = 1024;

/// Shards unless a surface is given another count.
pub const DEFAULT_SHARDS: usize = 8;

/// A hot-key detector many threads observe at once (see [`keyroute::hotkeys`]).
#[derive(Debug)]
pub struct SharedHotKeys {
    shards: Box<[Mutex<HotKeys>]>,
}

impl SharedHotKeys {
    /// `shards` detectors, each with sketch rows of `width / shards` counters and room for
    /// `capacity / shards` candidates (each at least the core's minimum), so the memory is about
    /// that of one detector of `width` and `capacity`.
    ///
    /// # Errors
    /// `invalid_parameter` for a shard count of 0 or above [`MAX_SHARDS`], or a width or
    /// capacity the core refuses; `out_of_memory`.
    pub fn new(width: usize, capacity: usize, shards: usize) -> Result<Self> {
        if shards == 0 || shards > MAX_SHARDS {
            return Err(Error::new(
                ErrorCode::InvalidParameter,
                format!("shards must be 1 to {MAX_SHARDS}, not {shards}"),
            ));
        }
        // The limits hold for the whole detector, not for each shard's part of it.
        if width > keyroute::hotkeys::MAX_WIDTH {
            return Err(Error::new(
                ErrorCode::InvalidParameter,
                format!("the sketch width must be at most {}, not {width}", keyroute::hotkeys::MAX_WIDTH),
            ));
        }
        if capacity == 0 || capacity > keyroute::hotkeys::MAX_CANDIDATES {
            return Err(Error::new(
                ErrorCode::InvalidParameter,
                format!("the candidate capacity must be 1 to {}, not {capacity}", keyroute::hotkeys::MAX_CANDIDATES),
            ));
        }
        let mut all = Vec::new();
        all.try_reserve_exact(shards).map_err(|_| Error::from(keyroute::Error::OutOfMemory))?;
        for _ in 0..shards {
            all.push(Mutex::new(HotKeys::new(width / shards, capacity.div_ceil(shards))?));
        }
        Ok(Self { shards: all.into_boxed_slice() })
    }

    /// The shard of `key` (always there: there is at least one shard), locked.
    fn shard(&self, key: &[u8]) -> Option<MutexGuard<'_, HotKeys>> {
        let h = keyroute::hash::xxh3_64_with_seed(key, 0x5348_4152_4453);
        let i = ((u128::from(h) * self.shards.len() as u128) >> 64) as usize;
        // A shard is never left mid-update (nothing in it panics), so a poisoned lock's data is
        // sound.
        self.shards.get(i).map(|m| m.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Counts one observation of `key`; returns its estimate after it.
    ///
    /// # Errors
    /// `out_of_memory` when a new candidate's key cannot be stored.
    pub fn observe(&self, key: &[u8]) -> Result<u32> {
        match self.shard(key) {
            Some(mut shard) => Ok(shard.observe(key)?),
            None => Err(Error::new(ErrorCode::Internal, "a key outside every shard")),
        }
    }

    /// The estimate of `key`'s decayed count (never below the true count).
    #[must_use]
    pub fn heat(&self, key: &[u8]) -> u32 {
        self.shard(key).map_or(0, |s| s.heat(key))
    }

    /// Observations counted over every shard (decayed with the counts).
    #[must_use]
    pub fn total(&self) -> u64 {
        self.each(|h| h.total()).sum()
    }

    /// Whether `key`'s estimate is at least `count`.
    #[must_use]
    pub fn is_hot(&self, key: &[u8], count: u32) -> bool {
        self.heat(key) >= count
    }

    /// Whether `key`'s estimate is at least `share` of all observations.
    #[must_use]
    pub fn is_hot_share(&self, key: &[u8], share: f64) -> bool {
        let total = self.total();
        total > 0 && f64::from(self.heat(key)) >= share * total as f64
    }

    /// The `k` most counted keys over every shard, most counted first (ties by key). A key
    /// longer than [`keyroute::hotkeys::MAX_CANDIDATE_KEY_BYTES`] is given as its first
    /// `MAX_CANDIDATE_KEY_BYTES` bytes (candidates store no more).
    ///
    /// # Errors
    /// `out_of_memory` when the list cannot be allocated (every allocation is fallible).
    pub fn top(&self, k: usize) -> Result<Vec<(Vec<u8>, u32)>> {
        let oom = || Error::from(keyroute::Error::OutOfMemory);
        let mut all: Vec<(Vec<u8>, u32)> = Vec::new();
        for shard in self.shards.iter() {
            let shard = shard.lock().unwrap_or_else(PoisonError::into_inner);
            let top = shard.top(k)?;
            all.try_reserve(top.len()).map_err(|_| oom())?;
            for (key, count) in top {
                let mut copy = Vec::new();
                copy.try_reserve_exact(key.len()).map_err(|_| oom())?;
                copy.extend_from_slice(key);
                all.push((copy, count));
            }
        }
        all.sort_unstable_by(|x, y| y.1.cmp(&x.1).then_with(|| x.0.cmp(&y.0)));
        all.truncate(k);
        Ok(all)
    }

    /// Halves every count in every shard.
    pub fn decay(&self) {
        for shard in self.shards.iter() {
            shard.lock().unwrap_or_else(PoisonError::into_inner).decay();
        }
    }

    /// Bytes held by every shard.
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        self.each(|h| h.memory_bytes()).sum()
    }

    fn each<T>(&self, f: impl Fn(&HotKeys) -> T) -> impl Iterator<Item = T> {
        self.shards.iter().map(move |s| f(&s.lock().unwrap_or_else(PoisonError::into_inner)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_observe_at_once_and_the_hot_key_leads() {
        let hot = SharedHotKeys::new(4096, 256, 8).unwrap();
        std::thread::scope(|s| {
            for t in 0..4u32 {
                let hot = &hot;
                s.spawn(move || {
                    for i in 0..20_000u32 {
                        let cold = (t * 1_000_000 + i).to_le_bytes();
                        hot.observe(if i % 4 == 0 { b"hot".as_slice() } else { &cold }).unwrap();
                    }
                });
            }
        });
        assert_eq!(hot.total(), 80_000);
        assert_eq!(hot.top(1).unwrap(), [(b"hot".to_vec(), 20_000)]);
        assert!(hot.is_hot(b"hot", 20_000) && hot.is_hot_share(b"hot", 0.25));
        hot.decay();
        assert_eq!(hot.heat(b"hot"), 10_000);
        for bad in [0, MAX_SHARDS + 1] {
            assert_eq!(SharedHotKeys::new(4096, 256, bad).unwrap_err().code(), ErrorCode::InvalidParameter);
        }
        assert_eq!(SharedHotKeys::new(4096, 0, 4).unwrap_err().code(), ErrorCode::InvalidParameter);
        // The core's limits bound the whole detector, however many shards share it.
        use keyroute::hotkeys::{MAX_CANDIDATES, MAX_WIDTH};
        for shards in [1, 8, MAX_SHARDS] {
            assert_eq!(SharedHotKeys::new(MAX_WIDTH + 1, 256, shards).unwrap_err().code(), ErrorCode::InvalidParameter);
            assert_eq!(
                SharedHotKeys::new(4096, MAX_CANDIDATES + 1, shards).unwrap_err().code(),
                ErrorCode::InvalidParameter
            );
        }
    }
}
