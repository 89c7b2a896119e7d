//! MurmurHash3 (Austin Appleby), the x86_32 and x64_128 variants, one-shot over bytes.
//!
//! Written here because the crates that provide it either need `std` (they read from
//! `std::io::Read`) or are unmaintained. Verified against the SMHasher reference outputs
//! and Guava's published values.

const C1_32: u32 = 0xcc9e_2d51;
const C2_32: u32 = 0x1b87_3593;

#[inline]
fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

#[inline]
fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

/// Little-endian integer from up to 8 bytes (missing high bytes are zero).
#[inline]
fn le_u64(bytes: &[u8]) -> u64 {
    bytes.iter().rev().fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

/// MurmurHash3_x86_32 with a 32-bit seed.
#[must_use]
pub fn murmur3_x86_32(bytes: &[u8], seed: u32) -> u32 {
    let mut h = seed;
    let mut blocks = bytes.chunks_exact(4);
    for block in blocks.by_ref() {
        let mut k = le_u64(block) as u32;
        k = k.wrapping_mul(C1_32).rotate_left(15).wrapping_mul(C2_32);
        h ^= k;
        h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        let k = (le_u64(tail) as u32).wrapping_mul(C1_32).rotate_left(15).wrapping_mul(C2_32);
        h ^= k;
    }
    // The reference mixes in the length as a 32-bit value.
    h ^= bytes.len() as u32;
    fmix32(h)
}

/// MurmurHash3_x86_32 over a stream of bytes (the length is the number of bytes streamed).
///
/// For inputs that are not a byte slice in memory, such as pymemcache's low byte of each
/// Python character; equal to [`murmur3_x86_32`] on the same bytes.
#[must_use]
pub fn murmur3_x86_32_stream(bytes: impl IntoIterator<Item = u8>, seed: u32) -> u32 {
    let mut h = seed;
    let (mut block, mut filled, mut len) = (0u32, 0u32, 0u32);
    for b in bytes {
        block |= u32::from(b) << (8 * filled);
        filled += 1;
        len = len.wrapping_add(1);
        if filled == 4 {
            h ^= block.wrapping_mul(C1_32).rotate_left(15).wrapping_mul(C2_32);
            h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
            (block, filled) = (0, 0);
        }
    }
    if filled > 0 {
        h ^= block.wrapping_mul(C1_32).rotate_left(15).wrapping_mul(C2_32);
    }
    fmix32(h ^ len)
}

/// MurmurHash3_x64_128 with a 64-bit seed placed in both halves of the state.
///
/// Returns `(h1, h2)`; the reference's 16 output bytes are `h1` then `h2`, each little-endian.
/// The C++ reference takes a `uint32_t` seed (zero-extended); Guava takes an `int` and
/// sign-extends it, so pass `i64::from(seed) as u64` to reproduce Guava with a negative seed.
#[must_use]
pub fn murmur3_x64_128(bytes: &[u8], seed: u64) -> (u64, u64) {
    const C1: u64 = 0x87c3_7b91_1142_53d5;
    const C2: u64 = 0x4cf5_ad43_2745_937f;
    let (mut h1, mut h2) = (seed, seed);
    let mut blocks = bytes.chunks_exact(16);
    for block in blocks.by_ref() {
        let (lo, hi) = block.split_at(8);
        let k1 = le_u64(lo).wrapping_mul(C1).rotate_left(31).wrapping_mul(C2);
        h1 ^= k1;
        h1 = h1.rotate_left(27).wrapping_add(h2).wrapping_mul(5).wrapping_add(0x52dc_e729);
        let k2 = le_u64(hi).wrapping_mul(C2).rotate_left(33).wrapping_mul(C1);
        h2 ^= k2;
        h2 = h2.rotate_left(31).wrapping_add(h1).wrapping_mul(5).wrapping_add(0x3849_5ab5);
    }
    let tail = blocks.remainder();
    let (lo, hi) = tail.split_at(tail.len().min(8));
    if !hi.is_empty() {
        h2 ^= le_u64(hi).wrapping_mul(C2).rotate_left(33).wrapping_mul(C1);
    }
    if !lo.is_empty() {
        h1 ^= le_u64(lo).wrapping_mul(C1).rotate_left(31).wrapping_mul(C2);
    }
    let len = bytes.len() as u64;
    h1 ^= len;
    h2 ^= len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    (h1, h2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x86_32_reference_vectors() {
        // SMHasher / widely published values.
        assert_eq!(murmur3_x86_32(b"", 0), 0);
        assert_eq!(murmur3_x86_32(b"", 1), 0x514E_28B7);
        assert_eq!(murmur3_x86_32(b"", 0xffff_ffff), 0x81F1_6F39);
        assert_eq!(murmur3_x86_32(&[0, 0, 0, 0], 0), 0x2362_F9DE);
        assert_eq!(murmur3_x86_32(b"Hello, world!", 1234), 0xFAF6_CDB3);
        // Guava's Murmur3Hash32Test (UTF-8 bytes, seed 0).
        assert_eq!(murmur3_x86_32(b"k", 0), 0xcfbd_a5d1);
        assert_eq!(murmur3_x86_32(b"hello", 0), 0x248b_fa47);
        assert_eq!(murmur3_x86_32(b"The quick brown fox jumps over the lazy dog", 0), 0x2e4f_f723);
        // pymemcache's hash_function("6666") with seeds 0 and 10.
        assert_eq!(murmur3_x86_32(b"6666", 0), 1_361_238_019);
        assert_eq!(murmur3_x86_32(b"6666", 10), 2_981_722_772);
    }

    #[test]
    fn x64_128_reference_vectors() {
        // Guava's Murmur3Hash128Test.
        assert_eq!(murmur3_x64_128(b"hell", 0), (0x6299_4269_3e10_f867, 0x92db_0b82_baeb_5347));
        assert_eq!(murmur3_x64_128(b"hello", 1), (0xa78d_dff5_adae_8d10, 0x1289_00ef_2090_0135));
        assert_eq!(
            murmur3_x64_128(b"The quick brown fox jumps over the lazy dog", 0),
            (0xe34b_bc7b_bc07_1b6c, 0x7a43_3ca9_c49a_9347)
        );
        assert_eq!(murmur3_x64_128(b"", 0), (0, 0));
    }

    #[test]
    fn stream_matches_the_slice_version() {
        let data: alloc::vec::Vec<u8> = (0..=255u8).collect();
        for len in [0usize, 1, 2, 3, 4, 5, 7, 8, 13, 255] {
            for seed in [0u32, 10, 0xffff_ffff] {
                let bytes = &data[..len];
                assert_eq!(murmur3_x86_32_stream(bytes.iter().copied(), seed), murmur3_x86_32(bytes, seed));
            }
        }
    }
}
