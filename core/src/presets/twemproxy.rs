//! twemproxy (nutcracker) 0.5 `distribution: ketama`.

use alloc::vec::Vec;

use super::{MEMCACHED_DEFAULT_PORT, MemcachedServer, PresetRouter, prefixes, server_topology};
use crate::ring::{LookupRule, NameCount, NameDigest, PointPlacement, TieBreak};
use crate::{Error, KeyHash, PointScheme, Result, Ring, Router};

/// twemproxy's `hash:` setting, with x86 `char` semantics where its C code reads `char`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum TwemproxyHash {
    /// `one_at_a_time` over signed `char`s.
    OneAtATime,
    /// `md5`: `LE32(md5(key), 0)`.
    Md5,
    /// `crc16`: CRC-16/XMODEM in a never-masked `u32`, so **not** a 16-bit value
    /// (`"123456789"` → 0x869031C3).
    Crc16,
    /// `crc32`: libmemcached's 15-bit `(crc32 >> 16) & 0x7fff`. Every key then falls below the
    /// first MD5 point, so the whole pool routes to one server: a real twemproxy quirk.
    Crc32,
    /// `crc32a`: the full CRC-32.
    Crc32a,
    /// `fnv1_64` over signed `char`s, low 32 bits.
    Fnv1_64,
    /// `fnv1a_64` (the default) over signed `char`s: FNV-1a with the 64-bit basis and prime
    /// truncated to 32 bits, which is the low half of true FNV-1a-64.
    #[default]
    #[cfg_attr(feature = "serde", serde(rename = "fnv1a_64"))]
    Fnv1a64,
    /// `fnv1_32` over signed `char`s.
    Fnv1_32,
    /// `fnv1a_32` over signed `char`s.
    #[cfg_attr(feature = "serde", serde(rename = "fnv1a_32"))]
    Fnv1a32,
    /// `hsieh` (see [`crate::hash::hsieh`]).
    Hsieh,
    /// `murmur`: MurmurHash2 seeded `0xdeadbeef × len`.
    Murmur,
    /// `jenkins`: lookup3 `hashlittle` with initval 13.
    Jenkins,
}

impl TwemproxyHash {
    fn key_hash(self) -> KeyHash {
        match self {
            Self::OneAtATime => KeyHash::OneAtATimeSigned,
            Self::Md5 => KeyHash::Md5,
            Self::Crc16 => KeyHash::Crc16Unmasked,
            Self::Crc32 => KeyHash::Crc32Bits15,
            Self::Crc32a => KeyHash::Crc32,
            Self::Fnv1_64 => KeyHash::Fnv1_64Low32Signed,
            Self::Fnv1a64 => KeyHash::Fnv1a64Low32Signed,
            Self::Fnv1_32 => KeyHash::Fnv1_32Signed,
            Self::Fnv1a32 => KeyHash::Fnv1a32Signed,
            Self::Hsieh => KeyHash::Hsieh,
            Self::Murmur => KeyHash::Murmur2,
            Self::Jenkins => KeyHash::Jenkins,
        }
    }
}

/// A twemproxy pool's routing settings (`distribution: ketama` is implied).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TwemproxyOptions {
    /// `hash:` (default `fnv1a_64`).
    pub hash: TwemproxyHash,
    /// `hash_tag:` (two characters, e.g. `*b"{}"`): when the key has the first, then the second
    /// after it, with bytes between, only those bytes are hashed.
    pub hash_tag: Option<[u8; 2]>,
}

/// Longest point name twemproxy hashes intact: `KETAMA_MAX_HOSTLEN` (86) minus the NUL.
const MAX_POINT_NAME: usize = 85;

/// twemproxy's ketama pool: the ring plus the key rules applied before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Twemproxy {
    ring: Ring,
    hash_tag: Option<[u8; 2]>,
}

impl Twemproxy {
    /// The server for `key`. Every key is accepted (twemproxy's protocol parsers refuse some,
    /// such as memcached keys over 250 bytes, before routing).
    #[must_use]
    pub fn route(&self, key: &[u8]) -> u32 {
        match self.hashed_part(key) {
            Some(part) => self.ring.route(part),
            None => self.ring.route_hash(0),
        }
    }

    /// Distinct servers clockwise from the key's point, zones first when nodes carry zones.
    ///
    /// # Errors
    /// [`Error::ReplicasExceedNodes`].
    pub fn replicas(&self, key: &[u8], out: &mut [u32]) -> Result<()> {
        match self.hashed_part(key) {
            Some(part) => self.ring.replicas(part, out),
            None => self.ring.replicas_hash(0, out),
        }
    }

    /// The ring of points.
    #[must_use]
    pub fn ring(&self) -> &Ring {
        &self.ring
    }

    /// The bytes twemproxy hashes for `key`, or `None` where it uses hash 0 instead (an empty
    /// key, or a pool of one server).
    fn hashed_part<'k>(&self, key: &'k [u8]) -> Option<&'k [u8]> {
        if self.ring.topology().len() == 1 || key.is_empty() {
            return None;
        }
        Some(self.hash_tag.map_or(key, |[open, close]| tagged(key, open, close)))
    }
}

/// twemproxy's `hash_tag` rule: the bytes between the first `open` and the first `close`
/// after it, when there are some; otherwise the whole key.
fn tagged(key: &[u8], open: u8, close: u8) -> &[u8] {
    let Some(start) = key.iter().position(|&b| b == open) else { return key };
    let rest = key.get(start + 1..).unwrap_or(&[]);
    match rest.iter().position(|&b| b == close) {
        Some(end) if end > 0 => rest.get(..end).unwrap_or(key),
        _ => key,
    }
}

/// twemproxy 0.5 `distribution: ketama`, servers in configuration order, all live
/// (`auto_eject_hosts: false`).
///
/// Reads `host`, `port`, `weight` and `name` (the optional last word of the `servers:` line).
///
/// Quirks reproduced:
/// - a server's point names use its `name` if it has one, else `host` when the port is
///   11211, else `host:port` (then `-i`);
/// - the weighted binary32 point count always applies, even with equal weights: 61 (or 25,
///   50, 55, …) equal servers get 156 points each;
/// - points are always MD5 words, whatever the key hash;
/// - an empty key, or any key in a pool of one server, gets hash 0 (the owner of the first
///   point), without hashing;
/// - `hash_tag` narrows the hashed bytes first; key hashes read bytes ≥ 0x80 sign-extended
///   where twemproxy reads `char` (x86 builds; ARM builds differ);
/// - lower-bound lookup, wrapping; equal points go to the earliest server (glibc's stable
///   `qsort`; twemproxy's comparator has no tie-break, so other C libraries may differ).
///
/// # Errors
/// [`Error::InvalidParameter`] when a point name (`name-i`) exceeds 85 bytes: twemproxy
/// formats it into an 86-byte buffer but hashes the untruncated length, reading past the
/// buffer, so its points are undefined. As [`Ring::with_scheme`].
pub fn twemproxy(servers: &[MemcachedServer<'_>], options: TwemproxyOptions) -> Result<Router> {
    twemproxy_within(servers, options, crate::Budget::MAX)
}

/// [`twemproxy`] within a work budget (checked before anything is allocated).
///
/// # Errors
/// As [`twemproxy`], and [`crate::Error::TooManyPoints`] past the budget.
pub fn twemproxy_within(
    servers: &[MemcachedServer<'_>],
    options: TwemproxyOptions,
    budget: crate::Budget,
) -> Result<Router> {
    let topology = server_topology(servers, budget, |s| s.weight)?;
    let names: Vec<Vec<u8>> = servers
        .iter()
        .map(|s| match s.name {
            Some(name) => name.as_bytes().to_vec(),
            None if s.port == MEMCACHED_DEFAULT_PORT => s.host.as_bytes().to_vec(),
            None => super::host_port(s.host, s.port),
        })
        .collect();
    let scheme = PointScheme {
        placement: PointPlacement::Named {
            prefixes: prefixes(names.iter().map(Vec::as_slice), b"-"),
            digest: NameDigest::Md5Words(4),
        },
        count: NameCount::KetamaF32 { per_server: 160 },
        key_hash: options.hash.key_hash(),
        lookup: LookupRule::LowerBound,
        ties: TieBreak::FirstNode,
    };
    for (i, name) in (0..servers.len() as u32).zip(&names) {
        let last_index = scheme.names_for(&topology, i).saturating_sub(1);
        if name.len() + 1 + decimal_len(last_index) > MAX_POINT_NAME {
            return Err(Error::InvalidParameter("twemproxy point names longer than 85 bytes are undefined"));
        }
    }
    let ring = Ring::with_scheme(topology, &scheme)?;
    Ok(Router::Preset(PresetRouter::Twemproxy(Twemproxy { ring, hash_tag: options.hash_tag })))
}

/// Digits in the decimal text of `v`.
fn decimal_len(v: u64) -> usize {
    v.checked_ilog10().map_or(1, |d| d as usize + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(r: &Router, key: &str) -> u32 {
        r.route(key.as_bytes()).unwrap()
    }

    /// upstream test values (PEERS.md#twemproxy) (run against nutcracker): the two example pools.
    #[test]
    fn spec_pools() {
        let servers = [
            MemcachedServer::new("a", "127.0.0.1", 11211),
            MemcachedServer::new("b", "127.0.0.1", 11212),
            MemcachedServer::new("c", "127.0.0.2", 11213).with_weight(2),
        ];
        let r = twemproxy(&servers, TwemproxyOptions::default()).unwrap();
        assert_eq!([route(&r, "foo"), route(&r, "bar"), route(&r, "user:1"), route(&r, "été")], [1, 0, 2, 2]);
        let servers = [
            MemcachedServer::new("a", "127.0.0.1", 11211).with_weight(600).with_name("alpha"),
            MemcachedServer::new("b", "127.0.0.1", 11212).with_weight(300).with_name("beta"),
            MemcachedServer::new("c", "127.0.0.2", 11213).with_weight(200),
        ];
        let r = twemproxy(&servers, TwemproxyOptions { hash: TwemproxyHash::Md5, hash_tag: None }).unwrap();
        assert_eq!([route(&r, "foo"), route(&r, "bar"), route(&r, "user:1")], [1, 2, 0]);
        let Router::Preset(PresetRouter::Twemproxy(t)) = &r else { panic!("twemproxy") };
        assert_eq!(t.ring().points(), 472);
    }

    #[test]
    fn hash_tags_and_hash_zero() {
        assert_eq!(tagged(b"{user1}.following", b'{', b'}'), b"user1");
        assert_eq!(tagged(b"x{}y", b'{', b'}'), b"x{}y");
        assert_eq!(tagged(b"}{a}", b'{', b'}'), b"a");
        assert_eq!(tagged(b"{a", b'{', b'}'), b"{a");
        let one = [MemcachedServer::new("a", "h", 1)];
        let r = twemproxy(&one, TwemproxyOptions::default()).unwrap();
        assert_eq!(route(&r, "anything"), 0);
        let long = "x".repeat(84);
        let servers = [MemcachedServer::new("a", "h", 1).with_name(&long)];
        assert!(matches!(twemproxy(&servers, TwemproxyOptions::default()), Err(Error::InvalidParameter(_))));
    }
}
