//! PyPI `hash_ring` 1.3 (Amir Salihefendic), the Python 2 module.

use super::prefixes;
use crate::ring::{LookupRule, NameCount, NameDigest, PointPlacement, TieBreak};
use crate::{KeyHash, PointScheme, Result, Ring, Router, Topology};

/// `hash_ring.HashRing(nodes, weights).get_node`, for nodes whose names are the topology's
/// ids (in list order) with their weights.
///
/// Quirks reproduced:
/// - `floor(40 · nodes · weight / Σweight)` names per node (Python 2 integer division), each
///   MD5 digest giving only **3** points (words 0..2; the fourth is unused);
/// - **strict** lookup (`bisect`), wrapping to the first point;
/// - equal points: the node written last wins (`ring[key] = node`).
///
/// The module runs on Python 2 and hashes byte strings, so any key bytes are taken as they are.
/// Its `iterate_nodes(key, distinct=True)` walks the ring clockwise, which is what
/// [`Router::replicas`] answers (for nodes without zones).
///
/// # Errors
/// As [`Ring::with_scheme`].
pub fn python_hash_ring(topology: Topology) -> Result<Router> {
    let scheme = PointScheme {
        placement: PointPlacement::Named {
            prefixes: prefixes(topology.nodes().iter().map(|n| n.id()), b"-"),
            digest: NameDigest::Md5Words(3),
        },
        count: NameCount::IntegerShare { per_node: 40 },
        key_hash: KeyHash::Md5,
        lookup: LookupRule::Strict,
        ties: TieBreak::LastNode,
    };
    Ok(Router::Ring(Ring::with_scheme(topology, &scheme)?))
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use super::*;
    use crate::Node;

    /// upstream test values (PEERS.md#python-hash-ring): the upstream 100,000-key fixture's first keys, weights 1..5.
    #[test]
    fn upstream_fixture() {
        let t =
            Topology::new((1..=5).map(|i| Node::new(alloc::format!("0.0.0.{i}")).with_weight(i)).collect::<Vec<_>>())
                .unwrap();
        let r = python_hash_ring(t).unwrap();
        let got: Vec<u32> = ["0", "1", "2", "3", "4"].iter().map(|k| r.route(k.as_bytes()).unwrap()).collect();
        assert_eq!(got, [3, 4, 3, 2, 4]);
        let Router::Ring(ring) = &r else { panic!("a ring") };
        assert_eq!(ring.points(), 3 * (13 + 26 + 40 + 53 + 66));
    }
}
