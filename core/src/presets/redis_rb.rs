//! redis-rb 4.x `Redis::Distributed` and its `Redis::HashRing`.

use super::{PresetRouter, prefixes};
use crate::ring::{LookupRule, NameCount, NameDigest, PointPlacement, TieBreak};
use crate::{BatchError, Error, KeyHash, PointScheme, Result, Ring, Router, Topology};

/// `Redis::Distributed` options that decide placement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RedisRbOptions {
    /// `HashRing.new(nodes, replicas)`: points per node (160 by default).
    pub replicas: u32,
    /// Whether a key's `{tag}` is hashed instead of the key (`Redis::Distributed`'s default
    /// `tag: /^\{(.+?)\}/`); off for a bare `Redis::HashRing#get_node`.
    pub tag: bool,
}

impl RedisRbOptions {
    /// `Redis::HashRing::POINTS_PER_SERVER`.
    pub const REPLICAS: u32 = 160;
}

impl Default for RedisRbOptions {
    fn default() -> Self {
        Self { replicas: Self::REPLICAS, tag: true }
    }
}

/// `Redis::Distributed#node_for` over nodes whose redis-rb ids are the topology's ids, in the
/// order given (`Redis::Distributed.new(urls)` adds them in order).
///
/// A node's id is the client's `id` option, or `redis://host:port/db` (`rediss://` with TLS;
/// the socket path in place of `host:port` for a UNIX socket).
///
/// Quirks reproduced:
/// - point `i` of a node is `Zlib.crc32("id:i")`, `replicas` of them whatever the weight (the
///   ring has no weights: unequal weights are refused);
/// - points live in a Ruby Hash, so of equal points the node added **last** wins;
/// - the key hash is `Zlib.crc32` and a key goes to the last point at or below it, wrapping
///   to the last point ([`LookupRule::Floor`]);
/// - with `tag`, the tag is the text of the first match of `/^\{(.+?)\}/`: `^` matches at the
///   start and after every `\n`, the tag is at least one byte, holds no `\n`, and ends at the
///   first `}` after that byte (`{}}` gives `}`; `x\n{t}` gives `t`; `x{t}` has none).
///
/// Keys are taken as bytes, as Ruby matches a binary (ASCII-8BIT) string; the same bytes in a
/// UTF-8 string match alike, except that a UTF-8 string that is not valid UTF-8 makes
/// `Redis::Distributed` raise.
///
/// # Errors
/// [`Error::InvalidParameter`] for 0 replicas; [`Error::WeightsUnsupported`] for unequal
/// weights; as [`Ring::with_scheme`].
pub fn redis_rb_distributed(topology: Topology, options: RedisRbOptions) -> Result<Router> {
    if options.replicas == 0 {
        return Err(Error::InvalidParameter("redis-rb replicas must be at least 1"));
    }
    let mut weights = topology.nodes().iter().map(|n| n.weight());
    if let Some(first) = weights.next()
        && weights.any(|w| w != first)
    {
        return Err(Error::WeightsUnsupported);
    }
    let scheme = PointScheme {
        placement: PointPlacement::Named {
            prefixes: prefixes(topology.nodes().iter().map(|n| n.id()), b":"),
            digest: NameDigest::Hash(KeyHash::Crc32),
        },
        count: NameCount::Fixed(options.replicas),
        key_hash: KeyHash::Crc32,
        lookup: LookupRule::Floor,
        ties: TieBreak::LastNode,
    };
    let ring = Ring::with_scheme(topology, &scheme)?;
    Ok(Router::Preset(PresetRouter::RedisRb(RedisRbRing { ring, tag: options.tag })))
}

/// A redis-rb ring, which hashes a key's `{tag}` where it has one (unless built without).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedisRbRing {
    ring: Ring,
    tag: bool,
}

impl RedisRbRing {
    /// The owner of `key`.
    #[must_use]
    pub fn route(&self, key: &[u8]) -> u32 {
        self.ring.route(self.hashed(key))
    }

    fn hashed<'k>(&self, key: &'k [u8]) -> &'k [u8] {
        if self.tag { redis_rb_tag(key) } else { key }
    }

    /// Routes many keys into `out[..keys.len()]`.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`].
    pub fn route_batch<K: AsRef<[u8]>>(&self, keys: &[K], out: &mut [u32]) -> Result<(), BatchError> {
        let out = out.get_mut(..keys.len()).ok_or(Error::BufferTooSmall)?;
        for (o, k) in out.iter_mut().zip(keys) {
            *o = self.route(k.as_ref());
        }
        Ok(())
    }

    /// Distinct nodes from the key's point in the lookup's direction.
    ///
    /// # Errors
    /// [`Error::ReplicasExceedNodes`].
    pub fn replicas(&self, key: &[u8], out: &mut [u32]) -> Result<()> {
        self.ring.replicas(self.hashed(key), out)
    }

    /// The ring itself (its [`Ring::route`] hashes whole keys).
    #[must_use]
    pub fn ring(&self) -> &Ring {
        &self.ring
    }
}

/// The bytes `Redis::Distributed` hashes for `key`: the first match of `/^\{(.+?)\}/`
/// (bytewise, `.` being any byte but `\n`, `^` the start or just after a `\n`), else the key.
#[must_use]
pub fn redis_rb_tag(key: &[u8]) -> &[u8] {
    let mut line = 0;
    while line < key.len() {
        let rest = key.get(line..).unwrap_or(&[]);
        let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        let text = rest.get(..end).unwrap_or(&[]);
        if let Some(tag) = text.strip_prefix(b"{").and_then(|t| {
            // At least one byte, then the first `}` after it (all within the line).
            t.get(1..).and_then(|after| after.iter().position(|&b| b == b'}')).and_then(|at| t.get(..=at))
        }) {
            return tag;
        }
        line += end + 1;
    }
    key
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use super::*;
    use crate::Node;

    /// The cases checked against Ruby 3.1 (`key[/^\{(.+?)\}/, 1] || key`).
    #[test]
    fn tag_extraction_as_ruby_does_it() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"{a}b", b"a"),
            (b"x{a}b", b"x{a}b"),
            (b"{}}", b"}"),
            (b"{}", b"{}"),
            (b"{a\nb}c", b"{a\nb}c"),
            (b"x\n{t}y", b"t"),
            (b"x\r{t}y", b"x\r{t}y"),
            (b"{ab", b"{ab"),
            (b"{\n}", b"{\n}"),
            (b"\n{a}", b"a"),
            (b"{{a}}", b"{a"),
            (b"{}a}", b"}a"),
            (b"x\n\n{q}", b"q"),
            (b"{a}\n{b}", b"a"),
            (b"\xff{t}\n{u}", b"u"),
            (b"", b""),
        ];
        for &(key, tag) in cases {
            assert_eq!(redis_rb_tag(key), tag, "{key:?}");
        }
    }

    #[test]
    fn unequal_weights_are_refused() {
        let t = Topology::new(vec_nodes(&[("a", 1), ("b", 2)])).unwrap();
        assert_eq!(redis_rb_distributed(t, RedisRbOptions::default()), Err(Error::WeightsUnsupported));
    }

    fn vec_nodes(n: &[(&str, u32)]) -> Vec<Node> {
        n.iter().map(|&(id, w)| Node::new(id).with_weight(w)).collect()
    }
}
