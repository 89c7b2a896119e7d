//! Dalli 3.0 (`Dalli::Ring`), the Ruby memcached client Rails' `:mem_cache_store` uses.

use super::prefixes;
use crate::ring::{LookupRule, NameCount, NameDigest, PointPlacement, TieBreak};
use crate::{Error, KeyHash, PointScheme, Result, Ring, Router, Topology};

/// Dalli's points per server at equal weights (`Dalli::Ring::POINTS_PER_SERVER`).
pub const DALLI_POINTS_PER_SERVER: u32 = 160;

/// `Dalli::Ring#server_for_key` for servers whose Dalli names are the topology's ids (in the
/// order given to `Dalli::Client.new`) with their weights.
///
/// A Dalli server's name is `host:port` (port 11211 when left out), or the socket path for a
/// UNIX socket; the weight (`host:port:weight`, `/path:weight`) is not part of it.
///
/// Quirks reproduced:
/// - `floor(servers · 160 · weight / Float(Σweight))` points per server, point `i` being the
///   first 32 bits (big-endian) of `SHA1("name:i")`;
/// - the key hash is `Zlib.crc32(key)`, and a key goes to the **last** point at or below its
///   hash, wrapping to the last point of the ring ([`LookupRule::Floor`]);
/// - one server gets every key (Dalli builds no ring for it), which a ring of one node does.
///
/// Not reproduced: Dalli's failover (a dead server's keys are rehashed as `"#{try}#{key}"`)
/// depends on which servers answer; equal points of two servers are ordered by Ruby's
/// unstable `sort_by`, for which keyroute takes the earlier server (the captured topologies
/// have none).
///
/// The ring is given the key Dalli hashes, which is the client's key after its namespace
/// prefix and, past 250 bytes, its digest form. Any bytes are taken.
///
/// # Errors
/// [`Error::InvalidParameter`] when `servers · 160 · weight + Σweight` reaches 2^53 (past
/// that Dalli's float division may round up to the next integer, which keyroute does not
/// model); as [`Ring::with_scheme`].
pub fn dalli(topology: Topology) -> Result<Router> {
    let n = topology.len() as u128;
    let total = u128::from(topology.total_weight());
    let max_weight = topology.nodes().iter().map(|node| u128::from(node.weight())).max().unwrap_or(0);
    if n * u128::from(DALLI_POINTS_PER_SERVER) * max_weight + total >= 1 << 53 {
        return Err(Error::InvalidParameter("dalli: servers · 160 · weight must stay below 2^53"));
    }
    let scheme = PointScheme {
        placement: PointPlacement::Named {
            prefixes: prefixes(topology.nodes().iter().map(|node| node.id()), b":"),
            digest: NameDigest::Sha1Be32,
        },
        count: NameCount::IntegerShare { per_node: DALLI_POINTS_PER_SERVER },
        key_hash: KeyHash::Crc32,
        lookup: LookupRule::Floor,
        ties: TieBreak::FirstNode,
    };
    Ok(Router::Ring(Ring::with_scheme(topology, &scheme)?))
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use super::*;
    use crate::Node;

    fn ring(servers: &[(&str, u32)]) -> Router {
        dalli(Topology::new(servers.iter().map(|&(s, w)| Node::new(s).with_weight(w)).collect::<Vec<_>>()).unwrap())
            .unwrap()
    }

    /// Points are `floor(n · 160 · w / Σw)` per server, and the floor lookup takes the last
    /// point at or below the hash (so a hash equal to a point lands on it).
    #[test]
    fn point_counts_and_floor_lookup() {
        let r = ring(&[("a:11211", 1), ("b:11211", 2), ("c:11211", 4)]);
        let Router::Ring(ring) = &r else { panic!("a ring") };
        assert_eq!(ring.points(), 68 + 137 + 274);
        let points: Vec<(u64, u32)> = (0..ring.points()).map(|i| ring.point_at(i).unwrap()).collect();
        assert!(points.windows(2).all(|w| w[0].0 >= w[1].0), "positions run in descending point order");
        let (top, top_owner) = points[0];
        let (bottom, bottom_owner) = points[points.len() - 1];
        assert_eq!(ring.route_hash(top), top_owner);
        assert_eq!(ring.route_hash(u64::from(u32::MAX)), top_owner);
        assert_eq!(ring.route_hash(bottom), bottom_owner);
        assert_eq!(ring.route_hash(bottom - 1), top_owner, "below every point wraps to the last");
        let (p, owner) = points[10];
        assert_eq!(ring.route_hash(p), owner);
        if points[9].0 > p + 1 {
            assert_eq!(ring.route_hash(p + 1), owner, "above a point, below the next: that point");
        }
    }

    /// The analysis' pieces of the hash space (turned back from the stored complements) give
    /// every hash the owner the lookup gives, at and around every point.
    #[test]
    fn segments_follow_the_floor_lookup() {
        let r = ring(&[("a:11211", 1), ("b:11211", 3), ("c:11211", 2)]);
        let segments = crate::analysis::segments(&r).unwrap();
        let starts = segments.starts();
        assert!(starts.windows(2).all(|w| w[0].0 < w[1].0) && starts[0].0 == 0);
        let owner = |h: u64| starts[starts.partition_point(|&(s, _)| s <= h) - 1].1;
        let Router::Ring(ring) = &r else { panic!("a ring") };
        for i in 0..ring.points() {
            let (p, _) = ring.point_at(i).unwrap();
            for h in [p.saturating_sub(1), p, (p + 1).min(u64::from(u32::MAX))] {
                assert_eq!(owner(h), ring.route_hash(h), "hash {h}");
            }
        }
        assert_eq!(owner(0), ring.route_hash(0));
    }

    #[test]
    fn sha1_matches_fips_180() {
        let hex = |d: [u8; 20]| d.iter().map(|b| alloc::format!("{b:02x}")).collect::<alloc::string::String>();
        assert_eq!(hex(crate::hash::sha1(b"abc")), "a9993e364706816aba3e25717850c26c9cd0d89d");
    }
}
