//! uhashring 2.x (`uhashring.HashRing`).

use super::{PresetRouter, TextRing, prefixes, text_ids};
use crate::ring::{LookupRule, NameCount, NameDigest, PointPlacement, TieBreak};
use crate::{Error, KeyHash, PointScheme, Result, Ring, Router, Topology};

/// Which uhashring ring, with its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UhashringOptions {
    /// `HashRing(nodes, hash_fn="ketama")` (`KetamaRing`).
    Ketama {
        /// `vnodes` (uhashring's default 40): names per node at equal weights, shared out
        /// by exact integer division: `vnodes · nodes · weight // Σweight`.
        vnodes: u32,
        /// `replicas` (default 4): little-endian MD5 words used per name, 1 to 4.
        replicas: u8,
    },
    /// `HashRing(nodes)` with no `hash_fn` (`MetaRing`, the default ring): `vnodes · weight`
    /// names per node, each **one** point, the whole MD5 as a 128-bit big-endian integer.
    Meta {
        /// `vnodes` (uhashring's default 160).
        vnodes: u32,
    },
}

impl UhashringOptions {
    /// uhashring's `vnodes` default for the ketama ring.
    pub const KETAMA_VNODES: u32 = 40;
    /// uhashring's `replicas` default for the ketama ring.
    pub const KETAMA_REPLICAS: u8 = 4;
    /// uhashring's `vnodes` default for its default ring (`MetaRing`).
    pub const META_VNODES: u32 = 160;

    /// uhashring's ketama ring with its defaults (40 vnodes, 4 replicas).
    #[must_use]
    pub fn ketama() -> Self {
        Self::Ketama { vnodes: Self::KETAMA_VNODES, replicas: Self::KETAMA_REPLICAS }
    }

    /// uhashring's default ring with its default 160 vnodes.
    #[must_use]
    pub fn meta() -> Self {
        Self::Meta { vnodes: Self::META_VNODES }
    }
}

impl Default for UhashringOptions {
    /// The ring `HashRing(nodes)` builds: [`UhashringOptions::meta`].
    fn default() -> Self {
        Self::meta()
    }
}

/// uhashring 2.x `HashRing.get_node`, for nodes whose names are the topology's ids (in the
/// order of the `nodes` dict) with their weights.
///
/// Quirks reproduced:
/// - **strict** lookup (`bisect_right`: the first point *above* the hash), not ketama's ≥;
/// - equal points: the node inserted last wins (`_ring[h] = node`);
/// - ketama ring: exact integer shares, not libmemcached's binary32 ones;
/// - default ring: 128-bit points and key hashes, compared at full width (keyroute stores the
///   top 64 bits in its table and consults the low 64 only when the top halves tie).
///
/// Node names and keys go through Python `str()` and UTF-8, so both must be UTF-8 text
/// (ids that are not give [`Error::InvalidParameter`], keys [`Error::InvalidKey`]). A
/// `weight_fn` or per-node `vnodes` is not modelled: give the resulting weights.
///
/// # Errors
/// [`Error::InvalidParameter`] for `replicas` outside 1..=4 or 0 `vnodes`; as
/// [`Ring::with_scheme`].
pub fn uhashring(topology: Topology, options: UhashringOptions) -> Result<Router> {
    if matches!(options, UhashringOptions::Ketama { vnodes: 0, .. } | UhashringOptions::Meta { vnodes: 0 }) {
        return Err(Error::InvalidParameter("uhashring vnodes must be at least 1"));
    }
    let names = text_ids(&topology, "uhashring node names are Python strings: ids must be UTF-8")?;
    let prefixes = prefixes(names.iter().map(|n| n.as_bytes()), b"-");
    let (count, digest, key_hash) = match options {
        UhashringOptions::Ketama { vnodes, replicas } => {
            if !(1..=4).contains(&replicas) {
                return Err(Error::InvalidParameter("uhashring ketama replicas must be 1 to 4"));
            }
            (NameCount::IntegerShare { per_node: vnodes }, NameDigest::Md5Words(replicas), KeyHash::Md5)
        }
        UhashringOptions::Meta { vnodes } => {
            (NameCount::PerWeight(vnodes), NameDigest::Hash(KeyHash::Md5U128), KeyHash::Md5U128)
        }
    };
    let scheme = PointScheme {
        placement: PointPlacement::Named { prefixes, digest },
        count,
        key_hash,
        lookup: LookupRule::Strict,
        ties: TieBreak::LastNode,
    };
    let ring = Ring::with_scheme(topology, &scheme)?;
    Ok(Router::Preset(PresetRouter::TextRing(TextRing::new(
        ring,
        "uhashring hashes Python strings: the key must be UTF-8",
    ))))
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use super::*;
    use crate::{Node, hash};

    fn nodes() -> Topology {
        Topology::new([Node::new("node1"), Node::new("node2"), Node::new("node3")].to_vec()).unwrap()
    }

    fn ring_of(r: &Router) -> &Ring {
        let Router::Preset(PresetRouter::TextRing(t)) = r else { panic!("a text ring") };
        t.ring()
    }

    /// upstream test values (PEERS.md#uhashring) (run against upstream).
    #[test]
    fn upstream_vectors() {
        let r = uhashring(nodes(), UhashringOptions::ketama()).unwrap();
        assert_eq!(ring_of(&r).points(), 480);
        for (key, want) in [("coconut", 1), ("zoro", 2), ("test", 1), ("1800", 0), ("849", 1)] {
            assert_eq!(r.route(key.as_bytes()).unwrap(), want, "{key}");
        }
        let r = uhashring(nodes(), UhashringOptions::meta()).unwrap();
        for (key, want) in [("coconut", 1), ("zoro", 1), ("test", 2), ("1800", 1), ("849", 2)] {
            assert_eq!(r.route(key.as_bytes()).unwrap(), want, "{key}");
        }
        let weighted = Topology::new(
            [Node::new("127.0.0.1:11211").with_weight(600), Node::new("127.0.0.1:11212").with_weight(400)].to_vec(),
        )
        .unwrap();
        let r = uhashring(weighted, UhashringOptions::ketama()).unwrap();
        assert_eq!(ring_of(&r).points(), 192 + 128);
    }

    /// The 128-bit ring against a naive sorted list of the full MD5 integers, on keys and on
    /// hashes that tie a point's top 64 bits (the only case the low halves decide).
    #[test]
    fn meta_ring_compares_128_bits() {
        let t = nodes();
        let mut points: Vec<(u128, u32)> = Vec::new();
        for (i, n) in ["node1", "node2", "node3"].iter().enumerate() {
            for w in 0..160 {
                points.push((hash::md5_u128(alloc::format!("{n}-{w}").as_bytes()), i as u32));
            }
        }
        points.sort_unstable();
        let naive = |h: u128| points.iter().find(|p| p.0 > h).unwrap_or(&points[0]).1;
        let r = uhashring(t, UhashringOptions::meta()).unwrap();
        let ring = ring_of(&r);
        for i in 0..2000u32 {
            let key = alloc::format!("key-{i}");
            assert_eq!(ring.route(key.as_bytes()), naive(hash::md5_u128(key.as_bytes())), "{key}");
        }
        for &(p, _) in &points {
            let top = (p >> 64) as u64;
            for h in [top, top.wrapping_sub(1), top.wrapping_add(1)] {
                assert_eq!(ring.route_hash(h), naive(u128::from(h) << 64), "{h:x}");
            }
        }
    }

    #[test]
    fn refuses_what_python_cannot_hash() {
        let r = uhashring(nodes(), UhashringOptions::meta()).unwrap();
        assert!(matches!(r.route(b"caf\xe9"), Err(Error::InvalidKey(_))));
        let bytes_id = Topology::new([Node::new(b"\xff")].to_vec()).unwrap();
        assert!(matches!(uhashring(bytes_id, UhashringOptions::meta()), Err(Error::InvalidParameter(_))));
        assert!(matches!(
            uhashring(nodes(), UhashringOptions::Ketama { vnodes: 40, replicas: 5 }),
            Err(Error::InvalidParameter(_))
        ));
    }
}
