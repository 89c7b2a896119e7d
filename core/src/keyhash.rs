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
}

impl KeyHash {
    /// Hashes `key`.
    #[inline]
    #[must_use]
    pub fn hash(self, key: &[u8]) -> u64 {
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
        }
    }

    /// Bits of the output: 64 for [`KeyHash::Xxh3`] and [`KeyHash::Murmur3_128`], 32 otherwise.
    #[must_use]
    pub fn bits(self) -> u32 {
        match self {
            Self::Xxh3 | Self::Murmur3_128 => 64,
            _ => 32,
        }
    }
}
