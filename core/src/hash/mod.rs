//! One-shot hash functions over byte slices.
//!
//! Every function here hashes the bytes it is given, directly: nothing goes through
//! [`core::hash::Hash`], whose byte stream is a Rust implementation detail that no other
//! language can reproduce. Each is tested against its reference implementation's published
//! vectors (see the tests at the bottom of each file).
//!
//! Where a maintained `no_std` crate exists it does the work (`xxhash-rust`, `md-5`, `sha1_smol`,
//! `crc`);
//! the small classic functions with no such crate (FNV, MurmurHash2 and 3, Jenkins
//! one-at-a-time and lookup3, Hsieh's SuperFastHash, Java's `String.hashCode`) are written
//! here, including the odd variants the peer presets need (signed `char` reads, UTF-16 units).

mod fnv;
mod hsieh;
mod java;
mod lookup3;
mod murmur2;
mod murmur3;
#[cfg(test)]
mod test_vectors;

pub use fnv::{fnv1_32, fnv1_32_units, fnv1_64, fnv1_64_units, fnv1a_32, fnv1a_32_units, fnv1a_64, fnv1a_64_units};
pub use hsieh::hsieh;
pub(crate) use java::java_hash_units;
pub use java::java_string_hash;
pub use lookup3::{hashlittle, jenkins_memcached};
pub use murmur2::{murmur2_32, murmur2_32_memcached};
pub use murmur3::{murmur3_x64_128, murmur3_x86_32, murmur3_x86_32_stream};

use crc::{CRC_16_XMODEM, CRC_32_ISO_HDLC, Crc};
use md5::{Digest, Md5};

const CRC32: Crc<u32> = Crc::<u32>::new(&CRC_32_ISO_HDLC);
const CRC16: Crc<u16> = Crc::<u16>::new(&CRC_16_XMODEM);

/// XXH3-64 of `bytes` with seed 0: keyroute's native key and point hash.
#[inline]
#[must_use]
pub fn xxh3_64(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// XXH3-64 of `bytes` with an explicit 64-bit seed.
#[inline]
#[must_use]
pub fn xxh3_64_with_seed(bytes: &[u8], seed: u64) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(bytes, seed)
}

/// XXH64 (the older xxHash64, not XXH3) of `bytes` with a seed, as Envoy's Maglev uses.
#[inline]
#[must_use]
pub fn xxh64(bytes: &[u8], seed: u64) -> u64 {
    xxhash_rust::xxh64::xxh64(bytes, seed)
}

/// MD5 digest of `bytes` (RFC 1321). Used by the ketama family, never for security.
#[must_use]
pub fn md5(bytes: &[u8]) -> [u8; 16] {
    Md5::digest(bytes).into()
}

/// SHA-1 digest of `bytes` (FIPS 180-4). Used for Dalli's point names, never for security.
#[must_use]
pub fn sha1(bytes: &[u8]) -> [u8; 20] {
    sha1_smol::Sha1::from(bytes).digest().bytes()
}

/// CRC-32 (IEEE 802.3 / zlib: reflected, polynomial 0x04C11DB7, init and xorout 0xFFFFFFFF).
#[must_use]
pub fn crc32(bytes: &[u8]) -> u32 {
    CRC32.checksum(bytes)
}

/// CRC-16/XMODEM (polynomial 0x1021, init 0, not reflected), as Redis Cluster uses for key slots.
#[must_use]
pub fn crc16_xmodem(bytes: &[u8]) -> u16 {
    CRC16.checksum(bytes)
}

/// twemproxy's `crc16`: the CRC-16/XMODEM table step `crc = (crc << 8) ^ T[((crc >> 8) ^ b) & 0xff]`
/// run in a `u32` that is never masked, so bits shifted past bit 15 stay in the result.
///
/// The low 16 bits are the true CRC-16/XMODEM; `"123456789"` gives 0x869031C3.
#[must_use]
pub fn crc16_xmodem_unmasked(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0u32, |crc, &b| (crc << 8) ^ u32::from(crc16_table_entry(((crc >> 8) ^ u32::from(b)) as u8)))
}

/// Entry `i` of the CRC-16/XMODEM table: the CRC of the single byte `i`.
fn crc16_table_entry(i: u8) -> u16 {
    (0..8).fold(u16::from(i) << 8, |crc, _| if crc & 0x8000 != 0 { (crc << 1) ^ 0x1021 } else { crc << 1 })
}

/// The MD5 digest of `bytes` read as one big-endian 128-bit integer (Python's
/// `int(md5(b).hexdigest(), 16)`, uhashring's default point and key hash).
#[must_use]
pub fn md5_u128(bytes: &[u8]) -> u128 {
    u128::from_be_bytes(md5(bytes))
}

/// Bob Jenkins' one-at-a-time hash (start value 0, with the final avalanche).
///
/// Bytes are read as unsigned. Peers that read C `char` on x86 sign-extend bytes ≥ 0x80;
/// [`one_at_a_time_signed`] reproduces them.
#[must_use]
pub fn one_at_a_time(bytes: &[u8]) -> u32 {
    oaat(bytes.iter().map(|&b| u32::from(b)))
}

/// One-at-a-time reading each byte as a sign-extended C `char` (x86 libmemcached, twemproxy).
#[must_use]
pub fn one_at_a_time_signed(bytes: &[u8]) -> u32 {
    oaat(bytes.iter().map(|&b| sign_extend(b)))
}

/// The 32-bit value a byte becomes when read through a signed `char` and widened.
#[inline]
pub(crate) fn sign_extend(b: u8) -> u32 {
    // `as` here is the point: reinterpret as i8, then widen with sign extension.
    i32::from(b as i8) as u32
}

/// The 64-bit value a byte becomes when read through a signed `char` and widened.
#[inline]
pub(crate) fn sign_extend64(b: u8) -> u64 {
    i64::from(b as i8) as u64
}

/// The UTF-16 code units of `bytes` decoded as UTF-8, each invalid sequence becoming one
/// U+FFFD (Rust's `from_utf8_lossy` rule). What a Java or JavaScript string of the key holds.
pub(crate) fn utf16_units(bytes: &[u8]) -> impl Iterator<Item = u16> + '_ {
    bytes.utf8_chunks().flat_map(|chunk| {
        let bad = (!chunk.invalid().is_empty()).then_some(0xFFFD_u16);
        chunk.valid().encode_utf16().chain(bad)
    })
}

fn oaat(words: impl Iterator<Item = u32>) -> u32 {
    let mut h: u32 = 0;
    for w in words {
        h = h.wrapping_add(w);
        h = h.wrapping_add(h << 10);
        h ^= h >> 6;
    }
    h = h.wrapping_add(h << 3);
    h ^= h >> 11;
    h.wrapping_add(h << 15)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xxh3_reference_vectors() {
        // Values from the xxHash reference implementation (xxhsum -H3).
        assert_eq!(xxh3_64(b""), 0x2D06_8005_38D3_94C2);
        assert_eq!(xxh3_64(b"a"), 0xE6C6_32B6_1E96_4E1F);
        assert_eq!(xxh3_64(b"hello"), 0x9555_E855_5C62_DCFD);
    }

    #[test]
    fn md5_rfc1321_vectors() {
        let hex = |d: [u8; 16]| d.iter().fold(0u128, |a, &b| (a << 8) | u128::from(b));
        assert_eq!(hex(md5(b"")), 0xd41d8cd98f00b204e9800998ecf8427e);
        assert_eq!(hex(md5(b"abc")), 0x900150983cd24fb0d6963f7d28e17f72);
        assert_eq!(
            hex(md5(b"12345678901234567890123456789012345678901234567890123456789012345678901234567890")),
            0x57edf4a22be3c955ac49da2e2107b67a
        );
    }

    #[test]
    fn crc_check_values() {
        // The catalogue "check" value is the CRC of the nine ASCII bytes "123456789".
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc16_xmodem(b"123456789"), 0x31C3);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn one_at_a_time_vectors() {
        // Bob Jenkins' published value for "a", and the empty string.
        assert_eq!(one_at_a_time(b"a"), 0xCA2E_9442);
        assert_eq!(one_at_a_time(b""), 0);
        assert_eq!(one_at_a_time(b"The quick brown fox jumps over the lazy dog"), 0x519E_91F5);
        // Signed reads differ only for bytes >= 0x80.
        assert_eq!(one_at_a_time_signed(b"abc"), one_at_a_time(b"abc"));
        assert_ne!(one_at_a_time_signed("été".as_bytes()), one_at_a_time("été".as_bytes()));
    }

    #[test]
    fn crc16_unmasked_keeps_the_high_bits() {
        // twemproxy's crc16 of the catalogue check string (observed on nutcracker 0.5.0).
        assert_eq!(crc16_xmodem_unmasked(b"123456789"), 0x8690_31C3);
        for input in [&b""[..], b"a", b"foo{bar}", "\u{e9}t\u{e9}".as_bytes()] {
            assert_eq!(crc16_xmodem_unmasked(input) as u16, crc16_xmodem(input));
        }
    }

    #[test]
    fn md5_u128_is_big_endian() {
        // uhashring's `hashi("test")` in its default (MetaRing) mode.
        assert_eq!(md5_u128(b"test"), 12_707_736_894_140_473_154_801_792_860_916_528_374);
    }

    #[test]
    fn libhashkit_vectors() {
        use test_vectors::*;
        for (i, input) in LIBHASHKIT_INPUT.iter().enumerate() {
            assert_eq!(one_at_a_time_signed(input.as_bytes()), LIBHASHKIT_ONE_AT_A_TIME[i], "{input}");
            let d = md5(input.as_bytes());
            assert_eq!(u32::from_le_bytes([d[0], d[1], d[2], d[3]]), LIBHASHKIT_MD5[i], "{input}");
            assert_eq!((crc32(input.as_bytes()) >> 16) & 0x7fff, LIBHASHKIT_CRC[i], "{input}");
        }
    }

    #[test]
    fn utf16_units_decode_lossily() {
        let units: alloc::vec::Vec<u16> = utf16_units("a\u{e9}\u{1F600}".as_bytes()).collect();
        assert_eq!(units, [0x61, 0xE9, 0xD83D, 0xDE00]);
        let units: alloc::vec::Vec<u16> = utf16_units(b"a\xffb\xe2\x82").collect();
        assert_eq!(units, [0x61, 0xFFFD, 0x62, 0xFFFD]);
    }
}
