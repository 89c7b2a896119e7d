//! How a key's bytes become the number an algorithm routes on.

use crate::hash;

/// A key hash: the function from key bytes to the integer a router compares or reduces.
///
/// 64-bit hashes give values over the whole `u64` range; 32-bit ones give values below 2^32
/// (the compat presets' rings live in that space).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum KeyHash {
    /// XXH3-64, seed 0: keyroute's native key hash.
    #[default]
    Xxh3,
    /// Little-endian u32 of the first four MD5 bytes (`LE32(md5(key), 0)`, the ketama key hash).
    Md5,
    /// Full CRC-32 (IEEE).
    Crc32,
    /// libmemcached's and spymemcached's "crc": `(crc32 >> 16) & 0x7fff`, a 15-bit value.
    Crc32Bits15,
    /// CRC-16/XMODEM widened to 32 bits.
    Crc16,
    /// Jenkins one-at-a-time, bytes read unsigned.
    OneAtATime,
    /// Jenkins one-at-a-time, bytes read as sign-extended C `char` (x86 C peers).
    OneAtATimeSigned,
    /// FNV-1 32-bit.
    Fnv1_32,
    /// FNV-1a 32-bit.
    Fnv1a32,
    /// FNV-1 64-bit, truncated to its low 32 bits.
    Fnv1_64Low32,
    /// FNV-1a 64-bit, truncated to its low 32 bits.
    Fnv1a64Low32,
    /// MurmurHash3 x86_32, seed 0.
    Murmur3_32,
    /// MurmurHash3 x64_128, seed 0: the first 64-bit half (`h1`, Guava's `asLong()`).
    Murmur3_128,
    /// FNV-1 32-bit over sign-extended C `char`s (libmemcached, twemproxy on x86).
    Fnv1_32Signed,
    /// FNV-1a 32-bit over sign-extended C `char`s (libmemcached, twemproxy on x86).
    Fnv1a32Signed,
    /// FNV-1 64-bit over sign-extended C `char`s, truncated to its low 32 bits.
    Fnv1_64Low32Signed,
    /// FNV-1a 64-bit over sign-extended C `char`s, truncated to its low 32 bits (twemproxy's
    /// default `fnv1a_64`, which computes it with a 32-bit state; the results agree).
    Fnv1a64Low32Signed,
    /// twemproxy's `crc16`: CRC-16/XMODEM in a never-masked `u32` (see
    /// [`hash::crc16_xmodem_unmasked`]).
    Crc16Unmasked,
    /// MurmurHash2 seeded with `0xdeadbeef × len` (libmemcached's and twemproxy's `murmur`).
    Murmur2,
    /// libhashkit's / twemproxy's `hsieh` (SuperFastHash from 0, see [`hash::hsieh`]).
    Hsieh,
    /// lookup3 `hashlittle` with initval 13 (libmemcached's and twemproxy's `jenkins`).
    Jenkins,
    /// FNV-1 32-bit over the key's UTF-16 code units (spymemcached's `FNV1_32_HASH`).
    ///
    /// The key is decoded as UTF-8; each invalid sequence counts as one U+FFFD (a preset whose
    /// peer takes only text refuses such keys before hashing).
    Fnv1_32Utf16,
    /// FNV-1a 32-bit over UTF-16 code units (spymemcached's `FNV1A_32_HASH`); decoding as
    /// [`KeyHash::Fnv1_32Utf16`].
    Fnv1a32Utf16,
    /// FNV-1 64-bit over UTF-16 code units, low 32 bits (spymemcached's `FNV1_64_HASH`).
    Fnv1_64Utf16Low32,
    /// FNV-1a 64-bit over UTF-16 code units, low 32 bits (spymemcached's `FNV1A_64_HASH`).
    Fnv1a64Utf16Low32,
    /// Java's `String.hashCode()` of the key as an unsigned 32-bit value (spymemcached's
    /// `NATIVE_HASH`); decoding as [`KeyHash::Fnv1_32Utf16`].
    JavaHashCode,
    /// The whole MD5 digest as a big-endian 128-bit integer (uhashring's default ring).
    ///
    /// [`KeyHash::hash`] returns its top 64 bits; [`KeyHash::hash128`] the full value, which is
    /// what a ring of this width compares.
    Md5U128,
}

impl KeyHash {
    /// Hashes `key`.
    ///
    /// The native XXH3 is tested first and inlined into the caller: behind the jump table over
    /// every peer's hash it was not, which cost native lookups a call and a dispatch each.
    #[inline(always)]
    #[must_use]
    pub fn hash(self, key: &[u8]) -> u64 {
        if self == Self::Xxh3 {
            return hash::xxh3_64(key);
        }
        self.hash_any(key)
    }

    /// [`KeyHash::hash`] by a dispatch over every hash.
    fn hash_any(self, key: &[u8]) -> u64 {
        match self {
            Self::Xxh3 => hash::xxh3_64(key),
            Self::Md5 => {
                let d = hash::md5(key);
                u64::from(u32::from_le_bytes([d[0], d[1], d[2], d[3]]))
            }
            Self::Crc32 => u64::from(hash::crc32(key)),
            Self::Crc32Bits15 => u64::from((hash::crc32(key) >> 16) & 0x7fff),
            Self::Crc16 => u64::from(hash::crc16_xmodem(key)),
            Self::OneAtATime => u64::from(hash::one_at_a_time(key)),
            Self::OneAtATimeSigned => u64::from(hash::one_at_a_time_signed(key)),
            Self::Fnv1_32 => u64::from(hash::fnv1_32(key)),
            Self::Fnv1a32 => u64::from(hash::fnv1a_32(key)),
            Self::Fnv1_64Low32 => hash::fnv1_64(key) & 0xffff_ffff,
            Self::Fnv1a64Low32 => hash::fnv1a_64(key) & 0xffff_ffff,
            Self::Murmur3_32 => u64::from(hash::murmur3_x86_32(key, 0)),
            Self::Murmur3_128 => hash::murmur3_x64_128(key, 0).0,
            Self::Fnv1_32Signed => u64::from(hash::fnv1_32_units(key.iter().map(|&b| hash::sign_extend(b)))),
            Self::Fnv1a32Signed => u64::from(hash::fnv1a_32_units(key.iter().map(|&b| hash::sign_extend(b)))),
            Self::Fnv1_64Low32Signed => hash::fnv1_64_units(key.iter().map(|&b| hash::sign_extend64(b))) & 0xffff_ffff,
            Self::Fnv1a64Low32Signed => hash::fnv1a_64_units(key.iter().map(|&b| hash::sign_extend64(b))) & 0xffff_ffff,
            Self::Crc16Unmasked => u64::from(hash::crc16_xmodem_unmasked(key)),
            Self::Murmur2 => u64::from(hash::murmur2_32_memcached(key)),
            Self::Hsieh => u64::from(hash::hsieh(key)),
            Self::Jenkins => u64::from(hash::jenkins_memcached(key)),
            Self::Fnv1_32Utf16 => u64::from(hash::fnv1_32_units(hash::utf16_units(key).map(u32::from))),
            Self::Fnv1a32Utf16 => u64::from(hash::fnv1a_32_units(hash::utf16_units(key).map(u32::from))),
            Self::Fnv1_64Utf16Low32 => hash::fnv1_64_units(hash::utf16_units(key).map(u64::from)) & 0xffff_ffff,
            Self::Fnv1a64Utf16Low32 => hash::fnv1a_64_units(hash::utf16_units(key).map(u64::from)) & 0xffff_ffff,
            // Java sign-extends the int into a long and masks it: the same 32 bits.
            Self::JavaHashCode => u64::from(hash::java_hash_units(hash::utf16_units(key)) as u32),
            Self::Md5U128 => (hash::md5_u128(key) >> 64) as u64,
        }
    }

    /// Hashes `key` at full width: the 128-bit value for [`KeyHash::Md5U128`], otherwise
    /// [`KeyHash::hash`] widened.
    #[inline]
    #[must_use]
    pub fn hash128(self, key: &[u8]) -> u128 {
        match self {
            Self::Md5U128 => hash::md5_u128(key),
            other => u128::from(other.hash(key)),
        }
    }

    /// Bits of the output: 128 for [`KeyHash::Md5U128`], 64 for [`KeyHash::Xxh3`] and
    /// [`KeyHash::Murmur3_128`], 32 otherwise.
    #[must_use]
    pub fn bits(self) -> u32 {
        match self {
            Self::Md5U128 => 128,
            Self::Xxh3 | Self::Murmur3_128 => 64,
            _ => 32,
        }
    }
}
