//! Jump consistent hash (Lamping & Veach, 2014), and Guava's variant of it.
//!
//! Jump maps a 64-bit key to one of `n` buckets with no table at all. Buckets can only be
//! added or removed at the end of the list, nodes cannot be weighted, and there is no sound
//! replica order, so a replica request for a jump router gets [`Error::ReplicasUnsupported`].

use crate::{Error, KeyHash, Result, Topology};

const LCG_MULTIPLIER: u64 = 2_862_933_555_777_941_757;

/// The paper's jump hash: the bucket in `0..buckets` for `key`; 0 when `buckets` is 0.
#[must_use]
pub fn jump_hash(mut key: u64, buckets: u32) -> u32 {
    let (mut b, mut j): (i64, i64) = (-1, 0);
    while j < i64::from(buckets) {
        b = j;
        key = key.wrapping_mul(LCG_MULTIPLIER).wrapping_add(1);
        // One double division, then a multiply, exactly as in the paper's C++.
        // `(key >> 33) + 1` is below 2^31, so it converts through i64 (one instruction; a u64
        // conversion needs several) to the same double.
        j = ((b + 1) as f64 * ((1u64 << 31) as f64 / ((key >> 33) + 1) as i64 as f64)) as i64;
    }
    b.max(0) as u32
}

/// Guava's `Hashing.consistentHash(long, int)`: the same generator with a single division,
/// and Java's `int` arithmetic (including the overflow of `(int)(state >>> 33) + 1`).
#[must_use]
pub fn jump_hash_guava(input: u64, buckets: u32) -> u32 {
    let buckets = i32::try_from(buckets).unwrap_or(i32::MAX);
    let mut state = input;
    let mut candidate: i32 = 0;
    loop {
        state = state.wrapping_mul(LCG_MULTIPLIER).wrapping_add(1);
        let next_double = f64::from(((state >> 33) as i32).wrapping_add(1)) / 2_147_483_648.0;
        // Java's (int) of a double saturates, as Rust's `as` does (NaN cannot occur here).
        let next = (f64::from(candidate.wrapping_add(1)) / next_double) as i32;
        if next >= 0 && next < buckets {
            candidate = next;
        } else {
            return candidate.max(0) as u32;
        }
    }
}

/// How a jump router turns key bytes into its 64-bit input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum JumpKey {
    /// Hash the key bytes (XXH3 natively).
    Hash(KeyHash),
    /// The key is exactly 8 bytes: a big-endian u64 used as is (jump "on a given 64-bit key").
    U64Be,
}

/// Which jump arithmetic to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum JumpVariant {
    /// Lamping–Veach as published.
    #[default]
    Paper,
    /// Guava's `consistentHash`.
    Guava,
}

/// Jump consistent hash over the nodes of a topology, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Jump {
    topology: Topology,
    key: JumpKey,
    variant: JumpVariant,
}

impl Jump {
    /// Native jump: XXH3 of the key, paper arithmetic.
    ///
    /// # Errors
    /// [`Error::WeightsUnsupported`] when the nodes' weights differ.
    pub fn new(topology: Topology) -> Result<Self> {
        Self::with(topology, JumpKey::Hash(KeyHash::Xxh3), JumpVariant::Paper)
    }

    /// Jump with a chosen key input and arithmetic.
    ///
    /// # Errors
    /// [`Error::WeightsUnsupported`] when the nodes' weights differ.
    pub fn with(topology: Topology, key: JumpKey, variant: JumpVariant) -> Result<Self> {
        if !topology.is_uniform() {
            return Err(Error::WeightsUnsupported);
        }
        Ok(Self { topology, key, variant })
    }

    /// The 64-bit input for `key`.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] for a `U64Be` key that is not 8 bytes.
    pub fn key_input(&self, key: &[u8]) -> Result<u64> {
        match self.key {
            JumpKey::Hash(h) => Ok(h.hash(key)),
            JumpKey::U64Be => <[u8; 8]>::try_from(key)
                .map(u64::from_be_bytes)
                .map_err(|_| Error::InvalidKey("a u64be key must be exactly 8 bytes")),
        }
    }

    /// The owner of `key`.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] as [`Jump::key_input`].
    pub fn route(&self, key: &[u8]) -> Result<u32> {
        Ok(self.route_hash(self.key_input(key)?))
    }

    /// The owner of a 64-bit input.
    #[inline]
    #[must_use]
    pub fn route_hash(&self, input: u64) -> u32 {
        let n = self.topology.len() as u32;
        match self.variant {
            JumpVariant::Paper => jump_hash(input, n),
            JumpVariant::Guava => jump_hash_guava(input, n),
        }
    }

    /// The topology.
    #[must_use]
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// How key bytes become the 64-bit input.
    #[must_use]
    pub fn key(&self) -> JumpKey {
        self.key
    }

    /// The jump arithmetic.
    #[must_use]
    pub fn variant(&self) -> JumpVariant {
        self.variant
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOLDEN_100: [u32; 20] = [0, 55, 62, 8, 45, 59, 86, 97, 82, 59, 73, 37, 17, 56, 86, 21, 90, 37, 38, 83];

    #[test]
    fn guava_golden_values() {
        for (i, &want) in GOLDEN_100.iter().enumerate() {
            assert_eq!(jump_hash_guava(i as u64, 100), want);
            assert_eq!(jump_hash(i as u64, 100), want);
        }
        assert_eq!(jump_hash_guava(10_863_919_174_838_991, 11), 6);
        assert_eq!(jump_hash_guava(2_016_238_256_797_177_309, 11), 3);
        assert_eq!(jump_hash_guava(1_673_758_223_894_951_030, 11), 5);
        assert_eq!(jump_hash_guava(2, 100_001), 80343);
        assert_eq!(jump_hash_guava(2201, 100_001), 22152);
        assert_eq!(jump_hash_guava(2202, 100_001), 15018);
    }

    #[test]
    fn zero_and_one_bucket() {
        assert_eq!(jump_hash(12345, 0), 0);
        assert_eq!(jump_hash(12345, 1), 0);
        assert_eq!(jump_hash_guava(12345, 1), 0);
    }
}
