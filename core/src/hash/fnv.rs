//! Fowler–Noll–Vo hashes (FNV-1 and FNV-1a, 32 and 64 bits), one-shot over bytes.
//!
//! The `_units` forms take the input as already widened units, each XORed into the state
//! whole. Peers need them: C code that reads `char` on x86 widens bytes ≥ 0x80 with sign
//! extension (libmemcached, twemproxy), and Java code hashes UTF-16 code units, not bytes
//! (spymemcached).

const OFFSET_32: u32 = 0x811c_9dc5;
const PRIME_32: u32 = 0x0100_0193;
const OFFSET_64: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME_64: u64 = 0x0000_0100_0000_01b3;

/// FNV-1, 32 bits: multiply, then xor each byte.
#[must_use]
pub fn fnv1_32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(OFFSET_32, |h, &b| h.wrapping_mul(PRIME_32) ^ u32::from(b))
}

/// FNV-1a, 32 bits: xor each byte, then multiply.
#[must_use]
pub fn fnv1a_32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(OFFSET_32, |h, &b| (h ^ u32::from(b)).wrapping_mul(PRIME_32))
}

/// FNV-1, 64 bits.
#[must_use]
pub fn fnv1_64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(OFFSET_64, |h, &b| h.wrapping_mul(PRIME_64) ^ u64::from(b))
}

/// FNV-1a, 64 bits.
#[must_use]
pub fn fnv1a_64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(OFFSET_64, |h, &b| (h ^ u64::from(b)).wrapping_mul(PRIME_64))
}

/// FNV-1, 32 bits, over units: `h = (h · prime) ^ unit`.
#[must_use]
pub fn fnv1_32_units(units: impl IntoIterator<Item = u32>) -> u32 {
    units.into_iter().fold(OFFSET_32, |h, u| h.wrapping_mul(PRIME_32) ^ u)
}

/// FNV-1a, 32 bits, over units: `h = (h ^ unit) · prime`.
#[must_use]
pub fn fnv1a_32_units(units: impl IntoIterator<Item = u32>) -> u32 {
    units.into_iter().fold(OFFSET_32, |h, u| (h ^ u).wrapping_mul(PRIME_32))
}

/// FNV-1, 64 bits, over units.
#[must_use]
pub fn fnv1_64_units(units: impl IntoIterator<Item = u64>) -> u64 {
    units.into_iter().fold(OFFSET_64, |h, u| h.wrapping_mul(PRIME_64) ^ u)
}

/// FNV-1a, 64 bits, over units.
#[must_use]
pub fn fnv1a_64_units(units: impl IntoIterator<Item = u64>) -> u64 {
    units.into_iter().fold(OFFSET_64, |h, u| (h ^ u).wrapping_mul(PRIME_64))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Vectors from the FNV reference test suite (Landon Curt Noll's test_fnv.c).
    #[test]
    fn reference_vectors() {
        assert_eq!(fnv1_32(b""), 0x811c_9dc5);
        assert_eq!(fnv1_32(b"a"), 0x050c_5d7e);
        assert_eq!(fnv1_32(b"foobar"), 0x31f0_b262);
        assert_eq!(fnv1a_32(b""), 0x811c_9dc5);
        assert_eq!(fnv1a_32(b"a"), 0xe40c_292c);
        assert_eq!(fnv1a_32(b"foobar"), 0xbf9c_f968);
        assert_eq!(fnv1_64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1_64(b"a"), 0xaf63_bd4c_8601_b7be);
        assert_eq!(fnv1_64(b"foobar"), 0x340d_8765_a4dd_a9c2);
        assert_eq!(fnv1a_64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a_64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a_64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn units_over_plain_bytes_are_the_byte_functions() {
        for input in [&b""[..], b"a", b"foobar", "\u{e9}t\u{e9}".as_bytes()] {
            assert_eq!(fnv1_32_units(input.iter().map(|&b| u32::from(b))), fnv1_32(input));
            assert_eq!(fnv1a_32_units(input.iter().map(|&b| u32::from(b))), fnv1a_32(input));
            assert_eq!(fnv1_64_units(input.iter().map(|&b| u64::from(b))), fnv1_64(input));
            assert_eq!(fnv1a_64_units(input.iter().map(|&b| u64::from(b))), fnv1a_64(input));
        }
    }

    /// libmemcached's `test/fixtures/hashes.hpp`, rows `fnv1_64`, `fnv1a_64`, `fnv1_32`,
    /// `fnv1a_32`: libhashkit reads C `char` (sign-extended on x86) and truncates the 64-bit
    /// forms to their low 32 bits (FNV-1a-64 is even computed in 32 bits, which agrees).
    #[test]
    fn libhashkit_vectors() {
        use crate::hash::test_vectors::*;
        let signed32 = |s: &str| s.bytes().map(crate::hash::sign_extend).collect::<alloc::vec::Vec<u32>>();
        let signed64 = |s: &str| s.bytes().map(crate::hash::sign_extend64).collect::<alloc::vec::Vec<u64>>();
        for (i, input) in LIBHASHKIT_INPUT.iter().enumerate() {
            assert_eq!(fnv1_64_units(signed64(input)) as u32, LIBHASHKIT_FNV1_64[i], "{input}");
            assert_eq!(fnv1a_64_units(signed64(input)) as u32, LIBHASHKIT_FNV1A_64[i], "{input}");
            assert_eq!(fnv1_32_units(signed32(input)), LIBHASHKIT_FNV1_32[i], "{input}");
            assert_eq!(fnv1a_32_units(signed32(input)), LIBHASHKIT_FNV1A_32[i], "{input}");
        }
    }
}
