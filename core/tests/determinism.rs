//! Determinism: the same key and the same topology give the same node.
//!
//! Within one process that means: building a router twice gives equal routers and equal
//! answers; every entry point (single, batch, `Router`, replicas) agrees with the others.
//! Across processes and platforms it means the answer depends only on the bytes of the ids,
//! weights and key — so for the id-based schemes (ring-v1, rendezvous) the *order* in which the
//! nodes are listed must not change which id owns a key. (Maglev and slots are defined over the
//! list order; the pinned vectors in `reference.rs` freeze every scheme across platforms.)

#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs, clippy::expect_used, clippy::panic)]

mod common;

use common::{config, id_of, topology};
use keyroute::{Jump, Maglev, Modulo, MultiProbe, Node, Rendezvous, Ring, Router, SlotFn, Slots, Topology};
use proptest::prelude::*;

/// Ids, weights 1..=3 and an optional zone per node.
fn weighted_topology(max: usize) -> impl Strategy<Value = (Vec<String>, Vec<u32>)> {
    common::ids(1, max).prop_flat_map(|ids| {
        let n = ids.len();
        (Just(ids), proptest::collection::vec(1u32..=3, n))
    })
}

fn routers(t: &Topology) -> Vec<Router> {
    let mut out: Vec<Router> = vec![
        Ring::new(t.clone(), 40).unwrap().into(),
        Rendezvous::new(t.clone()).unwrap().into(),
        Maglev::new(t.clone(), 1009).unwrap().into(),
        Slots::new(t.clone(), SlotFn::Hash { count: 1024 }).unwrap().into(),
        Slots::new(t.clone(), SlotFn::Redis).unwrap().into(),
    ];
    if t.is_uniform() {
        out.push(Jump::new(t.clone()).unwrap().into());
        out.push(Modulo::new(t.clone()).unwrap().into());
        out.push(MultiProbe::new(t.clone(), 21).unwrap().into());
    }
    out
}

proptest! {
    #![proptest_config(config(40))]

    /// Two independent builds are equal and answer every key alike, through every entry point.
    #[test]
    fn same_inputs_same_answers(
        (ids, weights) in weighted_topology(8),
        uniform in any::<bool>(),
        keys in proptest::collection::vec(any::<Vec<u8>>(), 1..64),
    ) {
        let weights = if uniform { vec![2; ids.len()] } else { weights };
        let a = routers(&topology(&ids, &weights));
        let b = routers(&topology(&ids, &weights));
        prop_assert_eq!(&a, &b);
        for (ra, rb) in a.iter().zip(&b) {
            let mut batch = vec![u32::MAX; keys.len() + 3];
            ra.route_batch(&keys, &mut batch).unwrap();
            // Outputs past the keys are left alone.
            prop_assert_eq!(&batch[keys.len()..], &[u32::MAX; 3][..]);
            for (k, &from_batch) in keys.iter().zip(&batch) {
                let once = ra.route(k).unwrap();
                prop_assert_eq!(once, ra.route(k).unwrap());
                prop_assert_eq!(once, rb.route(k).unwrap());
                prop_assert_eq!(once, from_batch);
                prop_assert!((once as usize) < ra.topology().len());
                let n = ra.topology().eligible().min(3);
                let (mut r1, mut r2) = (vec![0; n], vec![0; n]);
                if ra.replicas(k, &mut r1).is_ok() {
                    rb.replicas(k, &mut r2).unwrap();
                    prop_assert_eq!(&r1, &r2);
                }
            }
        }
    }

    /// The concrete router types answer exactly as the `Router` wrapping them.
    #[test]
    fn router_wraps_without_changing_answers(
        ids in common::ids(1, 8),
        keys in proptest::collection::vec(any::<Vec<u8>>(), 1..32),
    ) {
        let t = common::uniform(&ids);
        let ring = Ring::new(t.clone(), 160).unwrap();
        let hrw = Rendezvous::new(t.clone()).unwrap();
        let maglev = Maglev::new(t.clone(), 2053).unwrap();
        let slots = Slots::new(t.clone(), SlotFn::Redis).unwrap();
        let mp = MultiProbe::new(t.clone(), 21).unwrap();
        let jump = Jump::new(t.clone()).unwrap();
        let modulo = Modulo::new(t).unwrap();
        for k in &keys {
            prop_assert_eq!(Router::from(ring.clone()).route(k), Ok(ring.route(k)));
            prop_assert_eq!(Router::from(hrw.clone()).route(k), Ok(hrw.route(k)));
            prop_assert_eq!(Router::from(maglev.clone()).route(k), Ok(maglev.route(k)));
            prop_assert_eq!(Router::from(slots.clone()).route(k), Ok(slots.route(k)));
            prop_assert_eq!(Router::from(mp.clone()).route(k), Ok(mp.route(k)));
            prop_assert_eq!(Router::from(jump.clone()).route(k), jump.route(k));
            prop_assert_eq!(Router::from(modulo.clone()).route(k), Ok(modulo.route(k)));
        }
    }

    /// ring-v1 and rendezvous depend on node ids, not on list positions: listing the same nodes
    /// in another order gives every key the same owner id and the same replica ids.
    #[test]
    fn id_based_schemes_ignore_list_order(
        ((ids, weights), perm) in weighted_topology(10).prop_flat_map(|(ids, w)| {
            let n = ids.len();
            (Just((ids, w)), Just((0..n).collect::<Vec<usize>>()).prop_shuffle())
        }),
        keys in proptest::collection::vec(any::<Vec<u8>>(), 1..64),
    ) {
        let t1 = topology(&ids, &weights);
        let shuffled: Vec<Node> = perm.iter().map(|&i| t1.nodes()[i].clone()).collect();
        let t2 = Topology::new(shuffled).unwrap();
        let (ring1, ring2) = (Ring::new(t1.clone(), 60).unwrap(), Ring::new(t2.clone(), 60).unwrap());
        let (hrw1, hrw2) = (Rendezvous::new(t1.clone()).unwrap(), Rendezvous::new(t2.clone()).unwrap());
        let n = ids.len().min(3);
        for k in &keys {
            prop_assert_eq!(id_of(&t1, ring1.route(k)), id_of(&t2, ring2.route(k)));
            prop_assert_eq!(id_of(&t1, hrw1.route(k)), id_of(&t2, hrw2.route(k)));
            let (mut a, mut b) = (vec![0; n], vec![0; n]);
            ring1.replicas(k, &mut a).unwrap();
            ring2.replicas(k, &mut b).unwrap();
            let names = |t: &Topology, v: &[u32]| v.iter().map(|&i| id_of(t, i).to_vec()).collect::<Vec<_>>();
            prop_assert_eq!(names(&t1, &a), names(&t2, &b));
            hrw1.replicas(k, &mut a).unwrap();
            hrw2.replicas(k, &mut b).unwrap();
            prop_assert_eq!(names(&t1, &a), names(&t2, &b));
        }
    }

    /// Routing a hash directly agrees with routing the key (the key hash is the only input).
    #[test]
    fn route_hash_agrees_with_route(ids in common::ids(1, 8), keys in proptest::collection::vec(any::<Vec<u8>>(), 1..32)) {
        let t = common::uniform(&ids);
        let ring = Ring::new(t.clone(), 100).unwrap();
        let maglev = Maglev::new(t.clone(), 1009).unwrap();
        let jump = Jump::new(t.clone()).unwrap();
        let modulo = Modulo::new(t).unwrap();
        for k in &keys {
            let h = keyroute::hash::xxh3_64(k);
            prop_assert_eq!(ring.route(k), ring.route_hash(h));
            prop_assert_eq!(ring.route(k), ring.route_hash(ring.key_hash().hash(k)));
            prop_assert_eq!(maglev.route(k), maglev.route_hash(h));
            prop_assert_eq!(jump.route(k), Ok(jump.route_hash(h)));
            prop_assert_eq!(modulo.route(k), modulo.route_hash(h));
        }
    }
}
