//! groupcache's `consistenthash.Map` (Go), the ring `groupcache.HTTPPool` picks peers with.

use alloc::boxed::Box;

use crate::ring::{LookupRule, NameCount, NameDigest, PointPlacement, TieBreak};
use crate::{Error, KeyHash, PointScheme, Result, Ring, Router, Topology};

/// `groupcache.HTTPPool`'s points per peer when `HTTPPoolOptions.Replicas` is left at 0
/// (`defaultReplicas`).
pub const GROUPCACHE_DEFAULT_REPLICAS: u32 = 50;

/// `consistenthash.New(replicas, nil)` with `Add(ids...)` in topology order, and `Get(key)`.
///
/// Quirks reproduced:
/// - point *i* of a peer is `crc32.ChecksumIEEE(strconv.Itoa(i) + name)`: the index comes
///   **before** the name ([`PointPlacement::IndexFirst`]);
/// - a key goes to the first point at or above `crc32.ChecksumIEEE(key)`, wrapping to the first;
/// - equal points: the peer added **last** wins (`hashMap[hash] = key` is overwritten), whatever
///   the sorted order of the points says;
/// - `replicas` points per peer; the peer has no weights.
///
/// The ring compares points as Go `int`, so this is the ring of a 64-bit Go process; on a
/// 32-bit one, `int(uint32)` turns points at or above 2^31 negative and the order changes.
/// A custom `Hash` function (`consistenthash.New`'s second argument) is not reproduced. Any key
/// bytes are taken, as a Go string holds any bytes.
///
/// # Errors
/// [`Error::WeightsUnsupported`] when the weights differ, [`Error::InvalidParameter`] for 0
/// replicas (the peer's ring is then empty and answers `""`), as [`Ring::with_scheme`].
pub fn groupcache(topology: Topology, replicas: u32) -> Result<Router> {
    if !topology.is_uniform() {
        return Err(Error::WeightsUnsupported);
    }
    if replicas == 0 {
        return Err(Error::InvalidParameter("groupcache: replicas must be at least 1"));
    }
    let scheme = PointScheme {
        placement: PointPlacement::IndexFirst {
            names: topology.nodes().iter().map(|n| Box::from(n.id())).collect(),
            digest: NameDigest::Hash(KeyHash::Crc32),
        },
        count: NameCount::Fixed(replicas),
        key_hash: KeyHash::Crc32,
        lookup: LookupRule::LowerBound,
        ties: TieBreak::LastNode,
    };
    Ok(Router::Ring(Ring::with_scheme(topology, &scheme)?.refusing_weights()))
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use super::*;
    use crate::{Node, hash};

    fn peers(ids: &[&str]) -> Topology {
        Topology::new(ids.iter().map(|id| Node::new(*id)).collect::<Vec<_>>()).unwrap()
    }

    /// groupcache's own test: with `strconv.Atoi` of the name as the hash, peers "6", "4", "2"
    /// and 3 replicas make points 2, 4, 6, 12, 14, 16, 22, 24, 26. Here the hash is CRC-32, so
    /// the same ring is checked point by point from its names.
    #[test]
    fn points_are_the_index_then_the_name() {
        let r = groupcache(peers(&["6", "4", "2"]), 3).unwrap();
        let Router::Ring(ring) = &r else { panic!("a ring") };
        assert_eq!(ring.points(), 9);
        let mut want: Vec<(u64, u32)> = ["6", "4", "2"]
            .iter()
            .enumerate()
            .flat_map(|(n, id)| {
                (0..3).map(move |i| (u64::from(hash::crc32(alloc::format!("{i}{id}").as_bytes())), n as u32))
            })
            .collect();
        want.sort_unstable();
        let got: Vec<(u64, u32)> = (0..9).filter_map(|i| ring.point_at(i)).collect();
        assert_eq!(got, want);
        // A key goes to the first point at or above its hash.
        for key in ["2", "11", "23", "27", "user:1"] {
            let h = u64::from(hash::crc32(key.as_bytes()));
            let owner = want.iter().find(|&&(p, _)| p >= h).unwrap_or(&want[0]).1;
            assert_eq!(r.route(key.as_bytes()).unwrap(), owner, "{key}");
        }
    }

    #[test]
    fn refusals() {
        let t = Topology::new([Node::new("a"), Node::new("b").with_weight(2)].to_vec()).unwrap();
        assert_eq!(groupcache(t, 50).unwrap_err(), Error::WeightsUnsupported);
        assert!(matches!(groupcache(peers(&["a"]), 0), Err(Error::InvalidParameter(_))));
    }
}
