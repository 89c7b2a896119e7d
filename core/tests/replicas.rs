//! Replicas: `n` distinct nodes per key, in a stable preference order, spread over zones.
//!
//! For every algorithm that defines an order (ring, rendezvous, maglev, slots, multi-probe):
//! - the list is `n` distinct nodes that can own keys, and its first entry is the owner;
//! - it is a preference list: the list for `n` is the prefix of the list for `n + 1`;
//! - zones: the first `min(n, Z)` entries lie in pairwise distinct zones, where `Z` counts the
//!   distinct zones among the candidate nodes (a node without a zone counts as its own zone);
//! - it succeeds exactly when `n` is at most the number of nodes that own part of the space,
//!   and fails with `ReplicasExceedNodes { requested, available }` otherwise.
//!
//! Jump and modulo define no order past the owner and refuse with `ReplicasUnsupported`.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeSet;

use common::config;
use keyroute::{Error, Jump, Maglev, Modulo, MultiProbe, Node, Rendezvous, Ring, Router, SlotFn, Slots, Topology};
use proptest::prelude::*;

/// Nodes with weights 0..=3 (at least one positive) and, for some, one of four zones.
fn zoned_topology(max: usize) -> impl Strategy<Value = Topology> {
    common::ids(1, max).prop_flat_map(|ids| {
        let n = ids.len();
        let zone = prop_oneof![Just(None), (0u8..4).prop_map(Some)];
        (Just(ids), proptest::collection::vec((0u32..=3, zone), n)).prop_filter_map(
            "zero total weight",
            |(ids, nodes)| {
                let v: Vec<Node> = ids
                    .iter()
                    .zip(nodes)
                    .map(|(id, (w, z))| {
                        let node = Node::new(id).with_weight(w);
                        match z {
                            Some(z) => node.with_zone(format!("zone-{z}")),
                            None => node,
                        }
                    })
                    .collect();
                Topology::new(v).ok()
            },
        )
    })
}

/// A zone class per node: its zone, or its own index when it has none.
fn zone_class(t: &Topology, i: u32) -> Result<Vec<u8>, u32> {
    t.node(i).unwrap().zone().map(<[u8]>::to_vec).ok_or(i)
}

/// Checks every documented property of `replicas` for one router and key; `owners` is the set
/// of nodes that own part of the key space (the candidates).
fn check(router: &Router, key: &[u8], owners: &BTreeSet<u32>) -> Result<(), TestCaseError> {
    let t = router.topology();
    let available = owners.len();
    let zones: BTreeSet<_> = owners.iter().map(|&i| zone_class(t, i)).collect();
    let mut previous: Vec<u32> = Vec::new();
    for n in 0..=available + 1 {
        let mut out = vec![u32::MAX; n];
        let res = router.replicas(key, &mut out);
        if n > available {
            prop_assert_eq!(res, Err(Error::ReplicasExceedNodes { requested: n as u32, available: available as u32 }));
            continue;
        }
        prop_assert_eq!(res, Ok(()));
        let distinct: BTreeSet<u32> = out.iter().copied().collect();
        prop_assert_eq!(distinct.len(), n, "not distinct: {:?}", out);
        prop_assert!(distinct.is_subset(owners), "{:?} not all owners {:?}", out, owners);
        if n > 0 {
            prop_assert_eq!(out[0], router.route(key).unwrap());
        }
        prop_assert_eq!(&out[..previous.len()], &previous[..], "not a prefix");
        let spread = n.min(zones.len());
        let head: BTreeSet<_> = out[..spread].iter().map(|&i| zone_class(t, i)).collect();
        prop_assert_eq!(head.len(), spread, "zones repeat in {:?}", out);
        previous = out;
    }
    Ok(())
}

fn positive(t: &Topology) -> BTreeSet<u32> {
    (0..t.len() as u32).filter(|&i| t.node(i).unwrap().weight() > 0).collect()
}

proptest! {
    #![proptest_config(config(40))]

    #[test]
    fn ring_rendezvous_maglev_replicas(t in zoned_topology(9), keys in proptest::collection::vec(any::<Vec<u8>>(), 1..8)) {
        let owners = positive(&t);
        let routers: Vec<Router> = vec![
            Ring::new(t.clone(), 20).unwrap().into(),
            Rendezvous::new(t.clone()).unwrap().into(),
            Maglev::new(t.clone(), 251).unwrap().into(),
        ];
        for r in &routers {
            for k in &keys {
                check(r, k, &owners)?;
            }
        }
    }

    /// Slots: the candidates are the nodes that own a slot (with few slots, not every node).
    #[test]
    fn slots_replicas(t in zoned_topology(9), count in prop_oneof![1u32..12, Just(1024)], keys in proptest::collection::vec(any::<Vec<u8>>(), 1..8)) {
        let s = Slots::new(t, SlotFn::Hash { count }).unwrap();
        let owners: BTreeSet<u32> = s.owners().iter().copied().collect();
        let r = Router::from(s);
        for k in &keys {
            check(&r, k, &owners)?;
        }
    }

    #[test]
    fn multiprobe_replicas(ids in common::ids(1, 9), zones in proptest::collection::vec(0u8..3, 9), keys in proptest::collection::vec(any::<Vec<u8>>(), 1..8)) {
        let nodes: Vec<Node> = ids.iter().zip(&zones).map(|(id, z)| Node::new(id).with_zone([*z])).collect();
        let t = Topology::new(nodes).unwrap();
        let owners = positive(&t);
        let r = Router::from(MultiProbe::new(t, 21).unwrap());
        for k in &keys {
            check(&r, k, &owners)?;
        }
    }

    /// Without zones, rendezvous replicas are the nodes by descending score (ties: earlier
    /// node), and ring replicas are the distinct owners met walking clockwise from the key.
    #[test]
    fn replica_order_without_zones(ids in common::ids(1, 8), weights in proptest::collection::vec(1u32..=3, 8), keys in proptest::collection::vec(any::<Vec<u8>>(), 1..16)) {
        let t = common::topology(&ids, &weights[..ids.len()]);
        let n = ids.len();
        let hrw = Rendezvous::new(t.clone()).unwrap();
        let ring = Ring::new(t.clone(), 10).unwrap();
        for k in &keys {
            let mut by_score: Vec<u32> = (0..n as u32).collect();
            by_score.sort_by(|&a, &b| hrw.score(k, b).total_cmp(&hrw.score(k, a)).then(a.cmp(&b)));
            let mut out = vec![0; n];
            hrw.replicas(k, &mut out).unwrap();
            prop_assert_eq!(&out, &by_score);

            let h = ring.key_hash().hash(k);
            let start = (0..ring.points()).find(|&i| ring.point_at(i).unwrap().0 >= h).unwrap_or(0);
            let mut walk: Vec<u32> = Vec::new();
            for i in 0..ring.points() {
                let o = ring.point_at((start + i) % ring.points()).unwrap().1;
                if !walk.contains(&o) {
                    walk.push(o);
                }
            }
            ring.replicas(k, &mut out).unwrap();
            prop_assert_eq!(&out, &walk);
        }
    }
}

/// Six nodes in three zones: three replicas always cover the three zones; a fourth is then
/// any remaining node.
#[test]
fn three_zones_three_replicas() {
    let nodes: Vec<Node> =
        ["a1", "a2", "b1", "b2", "c1", "c2"].iter().map(|id| Node::new(id).with_zone(&id[..1])).collect();
    let t = Topology::new(nodes).unwrap();
    let routers: Vec<Router> = vec![
        Ring::new(t.clone(), 160).unwrap().into(),
        Rendezvous::new(t.clone()).unwrap().into(),
        Maglev::new(t.clone(), 4099).unwrap().into(),
        Slots::new(t.clone(), SlotFn::Hash { count: 1024 }).unwrap().into(),
        MultiProbe::new(t.clone(), 21).unwrap().into(),
    ];
    for r in &routers {
        for key in common::keys(200, "zones") {
            let mut out = [0u32; 4];
            r.replicas(&key, &mut out).unwrap();
            let zones: BTreeSet<&[u8]> = out[..3].iter().map(|&i| t.node(i).unwrap().zone().unwrap()).collect();
            assert_eq!(zones.len(), 3, "{r:?} gave {out:?}");
            assert_eq!(out.iter().collect::<BTreeSet<_>>().len(), 4);
        }
    }
}

#[test]
fn jump_and_modulo_refuse_replicas() {
    let t = Topology::uniform("n", 4).unwrap();
    for r in [Router::from(Jump::new(t.clone()).unwrap()), Router::from(Modulo::new(t).unwrap())] {
        for n in [0usize, 1, 2, 4, 5] {
            let mut out = vec![0; n];
            assert_eq!(r.replicas(b"key", &mut out), Err(Error::ReplicasUnsupported), "{r:?} n={n}");
        }
    }
}
