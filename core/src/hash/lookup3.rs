//! Bob Jenkins' lookup3 `hashlittle` (2006), one-shot over bytes.
//!
//! The memcached tool chain calls it `jenkins` and passes `initval = 13`
//! ([`jenkins_memcached`]). Words are read little-endian; every alignment path of the C code
//! gives this same result on a little-endian machine.

#[inline]
fn mix(a: &mut u32, b: &mut u32, c: &mut u32) {
    *a = a.wrapping_sub(*c) ^ c.rotate_left(4);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a) ^ a.rotate_left(6);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b) ^ b.rotate_left(8);
    *b = b.wrapping_add(*a);
    *a = a.wrapping_sub(*c) ^ c.rotate_left(16);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a) ^ a.rotate_left(19);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b) ^ b.rotate_left(4);
    *b = b.wrapping_add(*a);
}

#[inline]
fn finish(a: &mut u32, b: &mut u32, c: &mut u32) {
    *c = (*c ^ *b).wrapping_sub(b.rotate_left(14));
    *a = (*a ^ *c).wrapping_sub(c.rotate_left(11));
    *b = (*b ^ *a).wrapping_sub(a.rotate_left(25));
    *c = (*c ^ *b).wrapping_sub(b.rotate_left(16));
    *a = (*a ^ *c).wrapping_sub(c.rotate_left(4));
    *b = (*b ^ *a).wrapping_sub(a.rotate_left(14));
    *c = (*c ^ *b).wrapping_sub(b.rotate_left(24));
}

/// Little-endian word from up to 4 bytes (missing high bytes are zero).
#[inline]
fn le_word(bytes: &[u8]) -> u32 {
    bytes.iter().rev().fold(0u32, |acc, &b| (acc << 8) | u32::from(b))
}

/// lookup3 `hashlittle(key, length, initval)`.
#[must_use]
pub fn hashlittle(bytes: &[u8], initval: u32) -> u32 {
    // The reference adds the length as a 32-bit value.
    let start = 0xdead_beef_u32.wrapping_add(bytes.len() as u32).wrapping_add(initval);
    let (mut a, mut b, mut c) = (start, start, start);
    let mut rest = bytes;
    // All but the last block (which may be full): 12 bytes into (a, b, c), then mix.
    while rest.len() > 12 {
        let (block, tail) = rest.split_at(12);
        let (x, yz) = block.split_at(4);
        let (y, z) = yz.split_at(4);
        a = a.wrapping_add(le_word(x));
        b = b.wrapping_add(le_word(y));
        c = c.wrapping_add(le_word(z));
        mix(&mut a, &mut b, &mut c);
        rest = tail;
    }
    if rest.is_empty() {
        // Only the empty key gets here (a longer one keeps 1..=12 bytes): `c`, unmixed.
        return c;
    }
    let (x, yz) = rest.split_at(rest.len().min(4));
    let (y, z) = yz.split_at(yz.len().min(4));
    a = a.wrapping_add(le_word(x));
    b = b.wrapping_add(le_word(y));
    c = c.wrapping_add(le_word(z));
    finish(&mut a, &mut b, &mut c);
    c
}

/// libhashkit's and twemproxy's `jenkins`: `hashlittle(key, len, 13)`.
#[must_use]
pub fn jenkins_memcached(bytes: &[u8]) -> u32 {
    hashlittle(bytes, 13)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::test_vectors::{LIBHASHKIT_INPUT, LIBHASHKIT_JENKINS};

    /// Bob Jenkins' `driver5` in lookup3.c.
    #[test]
    fn lookup3_driver5_vectors() {
        assert_eq!(hashlittle(b"", 0), 0xdead_beef);
        assert_eq!(hashlittle(b"", 0xdead_beef), 0xbd5b_7dde);
        assert_eq!(hashlittle(b"Four score and seven years ago", 0), 0x1777_0551);
        assert_eq!(hashlittle(b"Four score and seven years ago", 1), 0xcd62_8161);
    }

    /// libmemcached's `test/fixtures/hashes.hpp`, row `jenkins`.
    #[test]
    fn libhashkit_vectors() {
        for (input, &want) in LIBHASHKIT_INPUT.iter().zip(&LIBHASHKIT_JENKINS) {
            assert_eq!(jenkins_memcached(input.as_bytes()), want, "{input}");
        }
    }
}
