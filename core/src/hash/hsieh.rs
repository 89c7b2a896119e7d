//! Paul Hsieh's SuperFastHash as the memcached tool chain ships it (`hsieh` in libmemcached's
//! libhashkit and in twemproxy).
//!
//! It differs from Hsieh's original in two places, and the peers' routes depend on both:
//!
//! - the state starts at 0, not at the key length;
//! - of the tail bytes, the third of a 3-byte tail is read through a C `char`, which x86
//!   sign-extends (`(uint32_t)key[2] << 18`), while a 1-byte tail is read unsigned.
//!
//! 16-bit words are little-endian, as on x86. An empty key hashes to 0.

/// The libhashkit / twemproxy `hsieh` hash (x86 char semantics).
#[must_use]
pub fn hsieh(bytes: &[u8]) -> u32 {
    if bytes.is_empty() {
        return 0;
    }
    let word = |w: &[u8]| w.iter().rev().fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
    let mut h: u32 = 0;
    let mut blocks = bytes.chunks_exact(4);
    for block in blocks.by_ref() {
        let (lo, hi) = block.split_at(2);
        h = h.wrapping_add(word(lo));
        let tmp = (word(hi) << 11) ^ h;
        h = (h << 16) ^ tmp;
        h = h.wrapping_add(h >> 11);
    }
    match *blocks.remainder() {
        [a, b, c] => {
            h = h.wrapping_add(word(&[a, b]));
            h ^= h << 16;
            h ^= super::sign_extend(c) << 18;
            h = h.wrapping_add(h >> 11);
        }
        [a, b] => {
            h = h.wrapping_add(word(&[a, b]));
            h ^= h << 11;
            h = h.wrapping_add(h >> 17);
        }
        [a] => {
            h = h.wrapping_add(u32::from(a));
            h ^= h << 10;
            h = h.wrapping_add(h >> 1);
        }
        _ => {}
    }
    h ^= h << 3;
    h = h.wrapping_add(h >> 5);
    h ^= h << 4;
    h = h.wrapping_add(h >> 17);
    h ^= h << 25;
    h.wrapping_add(h >> 6)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::test_vectors::{LIBHASHKIT_HSIEH, LIBHASHKIT_INPUT};

    /// libmemcached's `test/fixtures/hashes.hpp`, row `hsieh` (a `HAVE_HSIEH_HASH` build).
    #[test]
    fn libhashkit_vectors() {
        for (input, &want) in LIBHASHKIT_INPUT.iter().zip(&LIBHASHKIT_HSIEH) {
            assert_eq!(hsieh(input.as_bytes()), want, "{input}");
        }
        assert_eq!(hsieh(b""), 0);
    }
}
