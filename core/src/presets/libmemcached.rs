//! libmemcached (libmemcached-awesome 1.1, same continuum code as 1.0.18) ketama.

use alloc::vec::Vec;

use super::{MEMCACHED_DEFAULT_PORT, MemcachedServer, prefixes, server_topology};
use crate::ring::{LookupRule, NameCount, NameDigest, PointPlacement, TieBreak};
use crate::{KeyHash, PointScheme, Result, Ring, Router};

/// libmemcached's consistent distributions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum LibmemcachedDistribution {
    /// `MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA`: point names `host-i` on port 11211,
    /// `host:port-i` otherwise.
    Ketama,
    /// `MEMCACHED_DISTRIBUTION_CONSISTENT_WEIGHTED` (what `MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED`
    /// selects): the same names and, for the same `weighted` flag, the same points as
    /// [`LibmemcachedDistribution::Ketama`].
    KetamaWeighted,
    /// `MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA_SPY`: point names `/host:port-i` (always a
    /// leading `/` and a port), which match spymemcached older than 2.5 only.
    KetamaSpy,
    /// `MEMCACHED_DISTRIBUTION_CONSISTENT` (PHP memcached's `DISTRIBUTION_CONSISTENT`): the
    /// continuum of [`LibmemcachedDistribution::Ketama`] under another name.
    Consistent,
}

/// libmemcached's key hash (`MEMCACHED_BEHAVIOR_HASH`), with x86 `char` semantics where the
/// C code reads `char` (bytes ≥ 0x80 sign-extended).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum LibmemcachedHash {
    /// `MEMCACHED_HASH_DEFAULT`: Jenkins one-at-a-time over signed `char`s.
    #[default]
    OneAtATime,
    /// `MEMCACHED_HASH_MD5`: `LE32(md5(key), 0)`.
    Md5,
    /// `MEMCACHED_HASH_CRC`: `(crc32 >> 16) & 0x7fff`, a 15-bit value.
    Crc,
    /// `MEMCACHED_HASH_FNV1_64`: FNV-1 64 over signed `char`s, low 32 bits (a 64-bit build).
    Fnv1_64,
    /// `MEMCACHED_HASH_FNV1A_64`: FNV-1a 64 over signed `char`s, low 32 bits (a 64-bit build).
    #[cfg_attr(feature = "serde", serde(rename = "fnv1a_64"))]
    Fnv1a64,
    /// `MEMCACHED_HASH_FNV1_32` over signed `char`s.
    Fnv1_32,
    /// `MEMCACHED_HASH_FNV1A_32` over signed `char`s.
    #[cfg_attr(feature = "serde", serde(rename = "fnv1a_32"))]
    Fnv1a32,
    /// `MEMCACHED_HASH_HSIEH` (a `HAVE_HSIEH_HASH` build; see [`crate::hash::hsieh`]).
    Hsieh,
    /// `MEMCACHED_HASH_MURMUR`: MurmurHash2 seeded `0xdeadbeef × len`.
    Murmur,
    /// `MEMCACHED_HASH_JENKINS`: lookup3 `hashlittle` with initval 13.
    Jenkins,
}

impl LibmemcachedHash {
    pub(crate) fn key_hash(self) -> KeyHash {
        match self {
            Self::OneAtATime => KeyHash::OneAtATimeSigned,
            Self::Md5 => KeyHash::Md5,
            Self::Crc => KeyHash::Crc32Bits15,
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

/// The libmemcached state that decides the continuum, as `memcached_behavior_get` reads it
/// back after all behaviours were set and servers added.
///
/// `weighted` is the **effective** flag (`memc->ketama.weighted_`), which libmemcached changes
/// on its own: `KETAMA_WEIGHTED` sets it, `set_distribution(CONSISTENT_KETAMA)` clears it,
/// and adding or pushing a server with weight > 1 sets it again. So `BEHAVIOR_KETAMA` plus
/// weights 1, 2, 3 is weighted, with the one-at-a-time key hash still in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LibmemcachedOptions {
    /// The distribution.
    pub distribution: LibmemcachedDistribution,
    /// The key hash (`base_hash`).
    pub hash: LibmemcachedHash,
    /// Weighted continuum: MD5 points, `floorf(f32(w/total) · 160/4 · servers + 1e-10)` names of
    /// 4 points each. Unweighted: 100 points per server, each the `point_hash` of its name.
    pub weighted: bool,
    /// The key hash that was in force when the continuum was last built (unweighted points
    /// only). libmemcached rebuilds the continuum when a server is added or the distribution
    /// set, not when `MEMCACHED_BEHAVIOR_HASH` changes: setting the hash after both leaves
    /// points of the old hash. Usually equal to `hash`.
    pub point_hash: LibmemcachedHash,
}

impl LibmemcachedOptions {
    /// What `MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED = 1` gives: MD5 key hash, weighted continuum.
    #[must_use]
    pub fn ketama_weighted() -> Self {
        Self {
            distribution: LibmemcachedDistribution::KetamaWeighted,
            hash: LibmemcachedHash::Md5,
            weighted: true,
            point_hash: LibmemcachedHash::Md5,
        }
    }

    /// What `MEMCACHED_BEHAVIOR_KETAMA = 1` gives with every weight ≤ 1: one-at-a-time key
    /// hash (it does **not** switch to MD5, whatever the docs say), 100 one-at-a-time points
    /// per server. With any weight > 1 libmemcached turns `weighted` on.
    #[must_use]
    pub fn ketama() -> Self {
        Self {
            distribution: LibmemcachedDistribution::Ketama,
            hash: LibmemcachedHash::OneAtATime,
            weighted: false,
            point_hash: LibmemcachedHash::OneAtATime,
        }
    }
}

/// libmemcached 1.1 ketama: the server index `memcached_generate_hash` returns, as a node.
///
/// Reads each server's `host` (verbatim, never resolved), `port` and `weight`; `name` is not a
/// libmemcached notion and is ignored. Servers are in `memcached_server_add` order (no
/// `SORT_HOSTS`), all live (no auto-eject).
///
/// Quirks reproduced:
/// - weighted point counts in IEEE binary32, so 25 (or 50, 61, …) equal servers get 156 points
///   each, not 160; weighted points are always MD5, whatever the key hash;
/// - unweighted points are the *key hash* of each name (one-at-a-time by default), 100 per
///   server;
/// - point names leave out port 11211 (`host-i`), except with the SPY distribution
///   (`/host:port-i`);
/// - weight 0 counts as 1 and port 0 as 11211, as `memcached_server_add_with_weight` stores them;
/// - lower-bound lookup; equal points go to the lowest server index;
/// - a single server gets hash 0 (it is the owner either way); one-at-a-time and FNV read
///   bytes ≥ 0x80 sign-extended, as x86 builds do (ARM builds differ).
///
/// # Errors
/// As [`Topology::new`](crate::Topology::new) and [`Ring::with_scheme`].
pub fn libmemcached(servers: &[MemcachedServer<'_>], options: LibmemcachedOptions) -> Result<Router> {
    libmemcached_within(servers, options, crate::Budget::MAX)
}

/// [`libmemcached`] within a work budget (checked before anything is allocated).
///
/// # Errors
/// As [`libmemcached`], and [`crate::Error::TooManyPoints`] past the budget.
pub fn libmemcached_within(
    servers: &[MemcachedServer<'_>],
    options: LibmemcachedOptions,
    budget: crate::Budget,
) -> Result<Router> {
    let topology = server_topology(servers, budget, |s| s.weight.max(1))?;
    let names: Vec<Vec<u8>> = servers
        .iter()
        .map(|s| {
            let port = if s.port == 0 { MEMCACHED_DEFAULT_PORT } else { s.port };
            match options.distribution {
                LibmemcachedDistribution::KetamaSpy => alloc::format!("/{}:{port}", s.host).into_bytes(),
                _ if port == MEMCACHED_DEFAULT_PORT => s.host.as_bytes().to_vec(),
                _ => super::host_port(s.host, port),
            }
        })
        .collect();
    let key_hash = options.hash.key_hash();
    let (count, digest) = if options.weighted {
        (NameCount::KetamaF32 { per_server: 160 }, NameDigest::Md5Words(4))
    } else {
        (NameCount::Fixed(100), NameDigest::Hash(options.point_hash.key_hash()))
    };
    let scheme = PointScheme {
        placement: PointPlacement::Named { prefixes: prefixes(names.iter().map(Vec::as_slice), b"-"), digest },
        count,
        key_hash,
        lookup: LookupRule::LowerBound,
        ties: TieBreak::FirstNode,
    };
    Ok(Router::Ring(Ring::with_scheme(topology, &scheme)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(r: &Router, key: &str) -> u32 {
        r.route(key.as_bytes()).unwrap()
    }

    /// upstream test values (PEERS.md#libmemcached): servers 10.0.0.1:11211, 10.0.0.2:11211, 10.0.0.3:11212; the index for
    /// `foo`, `bar`, `user:1`, `été` in three modes (checked against the built library).
    #[test]
    fn three_modes_on_three_servers() {
        let servers = [
            MemcachedServer::new("a", "10.0.0.1", 11211),
            MemcachedServer::new("b", "10.0.0.2", 11211),
            MemcachedServer::new("c", "10.0.0.3", 11212),
        ];
        let keys = ["foo", "bar", "user:1", "été"];
        let modes = [
            (LibmemcachedOptions::ketama(), [1, 0, 0, 0]),
            (
                LibmemcachedOptions {
                    hash: LibmemcachedHash::Md5,
                    point_hash: LibmemcachedHash::Md5,
                    ..LibmemcachedOptions::ketama()
                },
                [2, 1, 2, 0],
            ),
            (LibmemcachedOptions::ketama_weighted(), [1, 1, 1, 0]),
        ];
        for (options, want) in modes {
            let r = libmemcached(&servers, options).unwrap();
            let got: Vec<u32> = keys.iter().map(|k| route(&r, k)).collect();
            assert_eq!(got, want, "{options:?}");
        }
    }

    /// Upstream's `test/fixtures/ketama.hpp` servers: weighted MD5 gives 1264 points.
    #[test]
    fn upstream_fixture() {
        let weights = [600, 300, 200, 350, 1000, 800, 950, 100];
        let hosts = ["10.0.1.1", "10.0.1.2", "10.0.1.3", "10.0.1.4", "10.0.1.5", "10.0.1.6", "10.0.1.7", "10.0.1.8"];
        let servers: Vec<_> =
            hosts.iter().zip(weights).map(|(h, w)| MemcachedServer::new(h, h, 11211).with_weight(w)).collect();
        let r = libmemcached(&servers, LibmemcachedOptions::ketama_weighted()).unwrap();
        let Router::Ring(ring) = &r else { panic!("a ring") };
        assert_eq!(ring.points(), 1264);
        assert_eq!(route(&r, "SVa_]_V41)"), 6);
        assert_eq!(route(&r, "VDEAAAAA"), 2);
        let spy = LibmemcachedOptions {
            distribution: LibmemcachedDistribution::KetamaSpy,
            ..LibmemcachedOptions::ketama_weighted()
        };
        let r = libmemcached(&servers, spy).unwrap();
        assert_eq!(route(&r, "SVa_]_V41)"), 1);
        assert_eq!(route(&r, "ERR:EC58G>"), 6);
    }
}
