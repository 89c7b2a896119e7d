//! MurmurHash2 (Austin Appleby), the 32-bit x86 variant, one-shot over bytes.
//!
//! The memcached tool chain calls it `murmur`: libmemcached's libhashkit and twemproxy both
//! seed it with `0xdeadbeef × len` ([`murmur2_32_memcached`]). Blocks are read little-endian,
//! as on the x86 builds whose routes the presets reproduce.

const M: u32 = 0x5bd1_e995;
const R: u32 = 24;

/// MurmurHash2, 32-bit, with the reference's `h = seed ^ len` start.
#[must_use]
pub fn murmur2_32(bytes: &[u8], seed: u32) -> u32 {
    // The reference mixes in the length as a 32-bit value.
    let len = bytes.len() as u32;
    let mut h = seed ^ len;
    let mut blocks = bytes.chunks_exact(4);
    for block in blocks.by_ref() {
        if let [a, b, c, d] = *block {
            let mut k = u32::from_le_bytes([a, b, c, d]).wrapping_mul(M);
            k ^= k >> R;
            h = h.wrapping_mul(M) ^ k.wrapping_mul(M);
        }
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        for (i, &b) in tail.iter().enumerate() {
            h ^= u32::from(b) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^ (h >> 15)
}

/// libhashkit's and twemproxy's `murmur`: MurmurHash2 seeded with `0xdeadbeef × len` (mod 2^32).
#[must_use]
pub fn murmur2_32_memcached(bytes: &[u8]) -> u32 {
    murmur2_32(bytes, 0xdead_beef_u32.wrapping_mul(bytes.len() as u32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::test_vectors::{LIBHASHKIT_INPUT, LIBHASHKIT_MURMUR};

    /// SMHasher's verification: hash `[]`, `[0]`, `[0, 1]`, … `[0..254]` with seed `256 - len`,
    /// concatenate the results little-endian, hash that with seed 0. Appleby's published code
    /// for MurmurHash2 (32-bit) is 0x27864C1E.
    #[test]
    fn smhasher_verification_value() {
        let key: alloc::vec::Vec<u8> = (0..=255u8).collect();
        let mut all = alloc::vec::Vec::new();
        for i in 0..256usize {
            all.extend_from_slice(&murmur2_32(&key[..i], 256 - i as u32).to_le_bytes());
        }
        assert_eq!(murmur2_32(&all, 0), 0x2786_4C1E);
    }

    /// libmemcached's `test/fixtures/hashes.hpp`, row `murmur`.
    #[test]
    fn libhashkit_vectors() {
        for (input, &want) in LIBHASHKIT_INPUT.iter().zip(&LIBHASHKIT_MURMUR) {
            assert_eq!(murmur2_32_memcached(input.as_bytes()), want, "{input}");
        }
    }
}
