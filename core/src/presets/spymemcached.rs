//! spymemcached 2.12 `KetamaNodeLocator`.

use alloc::vec::Vec;

use super::{MEMCACHED_DEFAULT_PORT, MemcachedServer, PresetRouter, TextRing, prefixes, server_topology};
use crate::ring::{LookupRule, NameCount, NameDigest, PointPlacement, TieBreak};
use crate::{KeyHash, PointScheme, Result, Ring, Router};

/// `KetamaNodeKeyFormatter.Format`: how a node's key (the text before `-i`) is formed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum SpymemcachedNodeKey {
    /// `SPYMEMCACHED` (the default): `String.valueOf(socketAddress)` minus its leading `/`:
    /// `ip:port` for an address given as an IP literal, `hostname/ip:port` for a resolved
    /// name. Without a `name`, the server's key is taken as `host:port`.
    #[default]
    Spymemcached,
    /// `LIBMEMCACHED`: `getHostName()`, plus `:port` unless the port is 11211. Without a
    /// `name`, the server's key is `host` or `host:port` from the given text.
    Libmemcached,
}

/// `DefaultHashAlgorithm`: the key hash (and, unweighted and not `KETAMA_HASH`, the point
/// hash).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum SpymemcachedHash {
    /// `KETAMA_HASH` (the default): `LE32(md5(utf8), 0)`.
    #[default]
    Ketama,
    /// `NATIVE_HASH`: `String.hashCode()` as an unsigned 32-bit value.
    Native,
    /// `CRC_HASH`: `(crc32(utf8) >> 16) & 0x7fff`.
    Crc,
    /// `FNV1_64_HASH` over UTF-16 code units, low 32 bits.
    Fnv1_64,
    /// `FNV1A_64_HASH` over UTF-16 code units, low 32 bits.
    #[cfg_attr(feature = "serde", serde(rename = "fnv1a_64"))]
    Fnv1a64,
    /// `FNV1_32_HASH` over UTF-16 code units.
    Fnv1_32,
    /// `FNV1A_32_HASH` over UTF-16 code units.
    #[cfg_attr(feature = "serde", serde(rename = "fnv1a_32"))]
    Fnv1a32,
}

impl SpymemcachedHash {
    fn key_hash(self) -> KeyHash {
        match self {
            Self::Ketama => KeyHash::Md5,
            Self::Native => KeyHash::JavaHashCode,
            Self::Crc => KeyHash::Crc32Bits15,
            Self::Fnv1_64 => KeyHash::Fnv1_64Utf16Low32,
            Self::Fnv1a64 => KeyHash::Fnv1a64Utf16Low32,
            Self::Fnv1_32 => KeyHash::Fnv1_32Utf16,
            Self::Fnv1a32 => KeyHash::Fnv1a32Utf16,
        }
    }
}

/// A `KetamaNodeLocator` configuration. The default is `KetamaConnectionFactory()`'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SpymemcachedOptions {
    /// The node-key format.
    pub format: SpymemcachedNodeKey,
    /// The hash algorithm.
    pub hash: SpymemcachedHash,
    /// Whether a weights map was given (`isWeightedKetama`): then each server gets
    /// `floor(f32(w/total) · 160/4 · nodes + 1e-10)` MD5 digests of 4 points, whatever the
    /// hash. Otherwise weights are ignored.
    pub weighted: bool,
}

/// spymemcached 2.12 `KetamaNodeLocator.getPrimary`.
///
/// Reads `name` as the exact node-key string when given (what `getKeyForNode(node, 0)` prints
/// minus `-0`, e.g. `cache-a.example/10.0.0.1:11211`); otherwise derives it from `host` and
/// `port` (see [`SpymemcachedNodeKey`]), which is right for IP literals but cannot know the
/// address a host name resolves to, nor the reverse-DNS name `LIBMEMCACHED` format may look
/// up. Reads `weight` only when `weighted`.
///
/// Quirks reproduced:
/// - unweighted `KETAMA_HASH`: 40 MD5 digests × 4 points per node; unweighted other hashes:
///   160 points, each the hash of the name (FNV over UTF-16 units, not bytes);
/// - weighted: binary32 point counts (the same 156-point cases as libmemcached), MD5 points;
/// - points live in a `TreeMap`, so on equal points the **later** node wins;
/// - lower-bound lookup (`tailMap`), wrapping to the first point.
///
/// Keys are Java strings: a key that is not UTF-8 is refused ([`crate::Error::InvalidKey`]).
/// The failover `getSequence()` rehashes the key and is not a replica list; replicas here are
/// the clockwise walk of the locator's points.
///
/// # Errors
/// As [`Topology::new`](crate::Topology::new) and [`Ring::with_scheme`].
pub fn spymemcached(servers: &[MemcachedServer<'_>], options: SpymemcachedOptions) -> Result<Router> {
    spymemcached_within(servers, options, crate::Budget::MAX)
}

/// [`spymemcached`] within a work budget (checked before anything is allocated).
///
/// # Errors
/// As [`spymemcached`], and [`crate::Error::TooManyPoints`] past the budget.
pub fn spymemcached_within(
    servers: &[MemcachedServer<'_>],
    options: SpymemcachedOptions,
    budget: crate::Budget,
) -> Result<Router> {
    let weighted = options.weighted;
    let topology = server_topology(servers, budget, |s| if weighted { s.weight } else { 1 })?;
    let keys: Vec<Vec<u8>> = servers
        .iter()
        .map(|s| match (s.name, options.format) {
            (Some(name), _) => name.as_bytes().to_vec(),
            (None, SpymemcachedNodeKey::Libmemcached) if s.port == MEMCACHED_DEFAULT_PORT => s.host.as_bytes().to_vec(),
            (None, SpymemcachedNodeKey::Spymemcached) => spymemcached_node_key(s.host, s.port),
            (None, SpymemcachedNodeKey::Libmemcached) => super::host_port(s.host, s.port),
        })
        .collect();
    let key_hash = options.hash.key_hash();
    let (count, digest) = match (weighted, options.hash) {
        (true, _) => (NameCount::KetamaF32 { per_server: 160 }, NameDigest::Md5Words(4)),
        (false, SpymemcachedHash::Ketama) => (NameCount::Fixed(40), NameDigest::Md5Words(4)),
        (false, _) => (NameCount::Fixed(160), NameDigest::Hash(key_hash)),
    };
    let scheme = PointScheme {
        placement: PointPlacement::Named { prefixes: prefixes(keys.iter().map(Vec::as_slice), b"-"), digest },
        count,
        key_hash,
        lookup: LookupRule::LowerBound,
        ties: TieBreak::LastNode,
    };
    let ring = Ring::with_scheme(topology, &scheme)?;
    Ok(Router::Preset(PresetRouter::TextRing(TextRing::new(
        ring,
        "spymemcached hashes Java strings: the key must be UTF-8",
    ))))
}

/// The `SPYMEMCACHED` node key of a server given as host text and port, as JDK 14 and later
/// print the `InetSocketAddress` of an IP literal (minus the leading `/`): an IPv6 literal, with
/// or without brackets, in Java's uncompressed form inside brackets (`::1` gives
/// `[0:0:0:0:0:0:0:1]:11211`); an IPv4-mapped one as the IPv4 address Java makes of it
/// (`::ffff:10.0.0.9` gives `10.0.0.9:11211`); anything else as `host:port`.
fn spymemcached_node_key(host: &str, port: u16) -> Vec<u8> {
    let bare = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    match bare.parse::<core::net::Ipv6Addr>() {
        Ok(ip) => match ip.to_ipv4_mapped() {
            Some(v4) => alloc::format!("{v4}:{port}").into_bytes(),
            None => {
                let [a, b, c, d, e, f, g, h] = ip.segments();
                alloc::format!("[{a:x}:{b:x}:{c:x}:{d:x}:{e:x}:{f:x}:{g:x}:{h:x}]:{port}").into_bytes()
            }
        },
        Err(_) => super::host_port(host, port),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn servers(n: u16) -> Vec<MemcachedServer<'static>> {
        const IDS: [&str; 5] =
            ["127.0.0.1:10000", "127.0.0.1:10001", "127.0.0.1:10002", "127.0.0.1:10003", "127.0.0.1:10004"];
        (0..n).map(|i| MemcachedServer::new(IDS[usize::from(i)], "127.0.0.1", 10000 + i)).collect()
    }

    /// Upstream's `KetamaNodeLocatorTest` (with JDK ≤ 13 node keys `127.0.0.1:1000x`).
    #[test]
    fn upstream_vectors() {
        let r = spymemcached(&servers(4), SpymemcachedOptions::default()).unwrap();
        for (key, want) in [("dustin", 0), ("noelani", 2), ("some other key", 0), ("V5XS8C8N", 3)] {
            assert_eq!(r.route(key.as_bytes()).unwrap(), want, "{key}");
        }
        let r = spymemcached(&servers(5), SpymemcachedOptions::default()).unwrap();
        for (key, want) in [("36", 2), ("10037", 3), ("22051", 1), ("49044", 4)] {
            assert_eq!(r.route(key.as_bytes()).unwrap(), want, "{key}");
        }
        let fnv = SpymemcachedOptions { hash: SpymemcachedHash::Fnv1a32, ..SpymemcachedOptions::default() };
        let r = spymemcached(&servers(5), fnv).unwrap();
        for (key, want) in [("dustin", 2), ("noelani", 1), ("some other key", 4)] {
            assert_eq!(r.route(key.as_bytes()).unwrap(), want, "{key}");
        }
    }

    #[test]
    fn ipv6_literals_are_keyed_as_java_prints_them() {
        for (host, want) in [
            ("::1", "[0:0:0:0:0:0:0:1]:11211"),
            ("[::1]", "[0:0:0:0:0:0:0:1]:11211"),
            ("2001:DB8::a:1", "[2001:db8:0:0:0:0:a:1]:11211"),
            ("::10.0.0.10", "[0:0:0:0:0:0:a00:a]:11211"),
            ("::ffff:10.0.0.9", "10.0.0.9:11211"),
            ("10.0.0.1", "10.0.0.1:11211"),
            ("fe80::1%eth0", "fe80::1%eth0:11211"),
            ("cache-a", "cache-a:11211"),
        ] {
            assert_eq!(spymemcached_node_key(host, 11211), want.as_bytes(), "{host}");
        }
    }

    #[test]
    fn libmemcached_format_and_text_keys() {
        let servers = [
            MemcachedServer::new("a", "localhost", 11211).with_weight(8),
            MemcachedServer::new("b", "localhost", 11212).with_weight(8),
        ];
        let options =
            SpymemcachedOptions { format: SpymemcachedNodeKey::Libmemcached, weighted: true, ..Default::default() };
        let r = spymemcached(&servers, options).unwrap();
        for (key, want) in [("key1", 1), ("key2", 0), ("key3", 1), ("key4", 1)] {
            assert_eq!(r.route(key.as_bytes()).unwrap(), want, "{key}");
        }
        assert!(matches!(r.route(b"\xff"), Err(crate::Error::InvalidKey(_))));
    }
}
