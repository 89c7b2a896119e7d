//! No input may panic, abort or loop forever.
//!
//! Arbitrary node lists (empty, duplicate, empty and over-long ids; weights 0, 1, small, huge,
//! `u32::MAX`; zones or none), arbitrary parameters and arbitrary keys go through every
//! constructor and every lookup. Each call must return `Ok` or the typed error its
//! documentation names for that input — and the tests finishing is the proof that nothing
//! looped. Parameters that are valid but would build a large table (tens of millions of
//! entries) are left to the error tests' boundary cases: they are correct, just slow in a
//! debug build.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeSet;

use common::config;
use keyroute::ring::{LookupRule, NameCount, NameDigest, PointPlacement, PointScheme, TieBreak};
use keyroute::{
    BatchError, Error, Jump, JumpKey, JumpVariant, KeyHash, MAX_ID_LEN, MAX_POINTS, MAX_PROBES, MAX_SLOTS,
    MAX_TABLE_SIZE, Maglev, Modulo, MultiProbe, Node, Rendezvous, Ring, Router, SlotFn, Slots, Topology, is_prime,
    jump_hash, jump_hash_guava, redis_hash_tag, redis_slot,
};
use proptest::prelude::*;

/// Above this many entries a valid table is skipped (correct but slow in debug builds).
const BUILD_LIMIT: f64 = 200_000.0;

fn weight() -> impl Strategy<Value = u32> {
    prop_oneof![
        2 => Just(0u32),
        3 => Just(1u32),
        3 => 2u32..5,
        1 => Just(u32::MAX),
        1 => Just(u32::MAX - 1),
        1 => Just(1u32 << 31),
        // Huge weights only: medium ones (10^4..10^7) give valid but slow rings.
        1 => (1u32 << 26)..=u32::MAX,
    ]
}

fn id() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        // A tiny alphabet and short lengths: duplicates and empty ids are common.
        4 => proptest::collection::vec(0u8..3, 0..3),
        4 => proptest::collection::vec(any::<u8>(), 0..12),
        1 => Just(vec![b'x'; MAX_ID_LEN + 1]),
        1 => Just(vec![b'y'; MAX_ID_LEN]),
    ]
}

fn zone() -> impl Strategy<Value = Option<Vec<u8>>> {
    proptest::option::of(proptest::collection::vec(0u8..3, 0..2))
}

fn make_node(id: impl AsRef<[u8]>, w: u32, zone: Option<Vec<u8>>) -> Node {
    let n = Node::new(id).with_weight(w);
    match zone {
        Some(z) => n.with_zone(z),
        None => n,
    }
}

/// Node lists: a quarter fully arbitrary (mostly invalid), the rest with distinct ids and
/// either arbitrary weights or one weight for all (so the unweighted algorithms build too).
fn node_list() -> impl Strategy<Value = Vec<Node>> {
    let arbitrary = proptest::collection::vec((id(), weight(), zone()), 0..10)
        .prop_map(|v| v.into_iter().map(|(i, w, z)| make_node(i, w, z)).collect::<Vec<_>>());
    let distinct = (common::ids(1, 9), any::<bool>(), weight()).prop_flat_map(|(ids, same, w)| {
        let n = ids.len();
        (Just(ids), proptest::collection::vec((weight(), zone()), n)).prop_map(move |(ids, v)| {
            ids.iter().zip(v).map(|(id, (own, z))| make_node(id, if same { w } else { own }, z)).collect::<Vec<_>>()
        })
    });
    prop_oneof![1 => arbitrary, 3 => distinct]
}

fn key_hash() -> impl Strategy<Value = KeyHash> {
    prop::sample::select(vec![
        KeyHash::Xxh3,
        KeyHash::Md5,
        KeyHash::Crc32,
        KeyHash::Crc32Bits15,
        KeyHash::Crc16,
        KeyHash::OneAtATime,
        KeyHash::OneAtATimeSigned,
        KeyHash::Fnv1_32,
        KeyHash::Fnv1a32,
        KeyHash::Fnv1_64Low32,
        KeyHash::Fnv1a64Low32,
        KeyHash::Murmur3_32,
        KeyHash::Murmur3_128,
    ])
}

fn size_param() -> impl Strategy<Value = u32> {
    prop_oneof![Just(0u32), Just(1u32), 2u32..500, Just(160u32), Just(u32::MAX), Just(1u32 << 31), any::<u32>(),]
}

#[derive(Debug, Clone)]
struct Params {
    points_per_weight: u32,
    maglev_size: u32,
    slot_fn: SlotFn,
    probes: u32,
    jump_key: JumpKey,
    jump_variant: JumpVariant,
}

fn params() -> impl Strategy<Value = Params> {
    (
        size_param(),
        prop_oneof![
            prop::sample::select(vec![0u32, 1, 2, 3, 4, 5, 7, 9, 11, 13, 97, 1009, 65_537, 65_536]),
            0u32..3000,
            Just(MAX_TABLE_SIZE + 1),
            Just(u32::MAX),
            any::<u32>(),
        ],
        prop_oneof![
            Just(SlotFn::Redis),
            size_param().prop_map(|count| SlotFn::Hash { count }),
            Just(SlotFn::Hash { count: MAX_SLOTS + 1 }),
        ],
        prop_oneof![Just(0u32), 1u32..40, Just(MAX_PROBES), Just(MAX_PROBES + 1), any::<u32>()],
        prop_oneof![Just(JumpKey::U64Be), key_hash().prop_map(JumpKey::Hash),],
        prop_oneof![Just(JumpVariant::Paper), Just(JumpVariant::Guava)],
    )
        .prop_map(|(points_per_weight, maglev_size, slot_fn, probes, jump_key, jump_variant)| Params {
            points_per_weight,
            maglev_size,
            slot_fn,
            probes,
            jump_key,
            jump_variant,
        })
}

fn keys() -> impl Strategy<Value = Vec<Vec<u8>>> {
    proptest::collection::vec(
        prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..24),
            proptest::collection::vec(any::<u8>(), 8..=8),
            Just(b"{}{tag}".to_vec()),
        ],
        0..8,
    )
}

/// What `Topology::new` must answer, from its documented invariants.
fn check_topology(nodes: &[Node], got: &Result<Topology, Error>) -> Result<(), TestCaseError> {
    let bad_id = |n: &Node| n.id().is_empty() || n.id().len() > MAX_ID_LEN;
    let ids: BTreeSet<&[u8]> = nodes.iter().map(Node::id).collect();
    let valid = !nodes.is_empty()
        && !nodes.iter().any(bad_id)
        && ids.len() == nodes.len()
        && nodes.iter().any(|n| n.weight() > 0);
    match got {
        Ok(t) => {
            prop_assert!(valid);
            prop_assert_eq!(t.nodes(), nodes);
            prop_assert_eq!(t.total_weight(), nodes.iter().map(|n| u64::from(n.weight())).sum::<u64>());
        }
        Err(Error::EmptyTopology) => prop_assert!(nodes.is_empty()),
        Err(Error::InvalidNodeId { index }) => prop_assert!(bad_id(&nodes[*index as usize])),
        Err(Error::DuplicateNodeId { index }) => {
            let i = *index as usize;
            prop_assert!(nodes[..i].iter().any(|n| n.id() == nodes[i].id()));
        }
        Err(Error::ZeroTotalWeight) => prop_assert!(nodes.iter().all(|n| n.weight() == 0)),
        Err(e) => prop_assert!(false, "unexpected {:?}", e),
    }
    Ok(())
}

/// Every lookup of a router: an owner of positive weight, or the documented error.
fn exercise(r: &Router, keys: &[Vec<u8>], u64be: bool) -> Result<(), TestCaseError> {
    let t = r.topology();
    let owns = |i: u32| t.node(i).is_some_and(|n| n.weight() > 0);
    for k in keys {
        match r.route(k) {
            Ok(i) => prop_assert!(owns(i), "owner {} has no weight", i),
            Err(Error::InvalidKey(_)) => prop_assert!(u64be && k.len() != 8),
            Err(e) => prop_assert!(false, "route: {:?}", e),
        }
    }
    for out_len in [0, keys.len().saturating_sub(1), keys.len(), keys.len() + 2] {
        let mut out = vec![u32::MAX; out_len];
        match r.route_batch(keys, &mut out) {
            Ok(()) => prop_assert!(out_len >= keys.len()),
            Err(BatchError { index: None, error: Error::BufferTooSmall }) => prop_assert!(out_len < keys.len()),
            Err(BatchError { index: Some(i), error: Error::InvalidKey(_) }) => {
                prop_assert!(u64be && keys.get(i).is_some_and(|k| k.len() != 8));
            }
            Err(e) => prop_assert!(false, "batch: {:?}", e),
        }
    }
    let unsupported = matches!(r, Router::Jump(_) | Router::Modulo(_));
    for k in keys.iter().take(2) {
        for n in [0, 1, 2, t.len(), t.len() + 1] {
            let mut out = vec![u32::MAX; n];
            match r.replicas(k, &mut out) {
                Ok(()) => {
                    prop_assert!(!unsupported);
                    prop_assert_eq!(out.iter().collect::<BTreeSet<_>>().len(), n);
                    prop_assert!(out.iter().all(|&i| owns(i)));
                }
                Err(Error::ReplicasUnsupported) => prop_assert!(unsupported),
                Err(Error::ReplicasExceedNodes { requested, available }) => {
                    prop_assert_eq!(requested as usize, n);
                    prop_assert!(available < requested && available as usize <= t.eligible());
                }
                Err(e) => prop_assert!(false, "replicas: {:?}", e),
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(160))]

    /// Every constructor and lookup over arbitrary node lists and parameters.
    #[test]
    fn arbitrary_inputs_never_panic(nodes in node_list(), p in params(), keys in keys(), hashes in proptest::collection::vec(any::<u64>(), 4), other in node_list()) {
        let got = Topology::new(nodes.clone());
        check_topology(&nodes, &got)?;
        let Ok(t) = got else { return Ok(()) };
        let total = t.total_weight() as f64;
        let uniform = t.is_uniform();
        let mut routers: Vec<Router> = Vec::new();

        // Ring.
        let points = total * f64::from(p.points_per_weight);
        if p.points_per_weight == 0 || points <= BUILD_LIMIT || points > MAX_POINTS as f64 {
            match Ring::new(t.clone(), p.points_per_weight) {
                Ok(r) => {
                    prop_assert!(p.points_per_weight > 0 && points <= MAX_POINTS as f64);
                    prop_assert_eq!(r.points() as f64, points);
                    prop_assert_eq!(r.point_at(r.points()), None);
                    prop_assert_eq!(r.point_at(usize::MAX), None);
                    for &h in &hashes {
                        prop_assert!(t.node(r.route_hash(h)).unwrap().weight() > 0);
                    }
                    routers.push(r.into());
                }
                Err(Error::InvalidParameter(_)) => prop_assert_eq!(p.points_per_weight, 0),
                Err(Error::TooManyPoints) => prop_assert!(points > MAX_POINTS as f64),
                Err(e) => prop_assert!(false, "ring: {:?}", e),
            }
        }

        routers.push(Rendezvous::new(t.clone()).unwrap().into());

        // Maglev.
        let m = p.maglev_size;
        if m <= 70_000 || m > MAX_TABLE_SIZE {
            let too_small_or_large = m > MAX_TABLE_SIZE || (m as usize) < t.eligible();
            match Maglev::new(t.clone(), m) {
                Ok(mg) => {
                    prop_assert!(!too_small_or_large && is_prime(m));
                    prop_assert_eq!(mg.table_size(), m);
                    prop_assert_eq!(mg.entry_counts().iter().sum::<u32>(), m);
                    for &h in &hashes {
                        prop_assert!(t.node(mg.route_hash(h)).unwrap().weight() > 0);
                    }
                    routers.push(mg.into());
                }
                Err(Error::TableSizeOutOfRange) => prop_assert!(too_small_or_large),
                Err(Error::TableSizeNotPrime) => prop_assert!(!is_prime(m)),
                Err(e) => prop_assert!(false, "maglev: {:?}", e),
            }
        }

        // Slots, and a rebalance onto another arbitrary topology.
        let count = p.slot_fn.count();
        if count <= 20_000 || count > MAX_SLOTS {
            match Slots::new(t.clone(), p.slot_fn) {
                Ok(s) => {
                    prop_assert!(count > 0 && count <= MAX_SLOTS);
                    prop_assert_eq!(s.owners().len(), count as usize);
                    prop_assert_eq!(s.owner_of_slot(count), 0);
                    prop_assert_eq!(s.owner_of_slot(u32::MAX), 0);
                    if let Ok(to) = Topology::new(other.clone()) {
                        let moved = s.rebalance(to.clone()).unwrap();
                        prop_assert_eq!(moved.owners().len(), count as usize);
                        prop_assert!(moved.owners().iter().all(|&o| (o as usize) < to.len()));
                    }
                    // An explicit table: valid exactly when sized right with real owners.
                    let owners: Vec<u32> = (0..count).map(|i| (hashes[0].rotate_left(i) % (t.len() as u64 + 1)) as u32).collect();
                    match Slots::from_owners(t.clone(), p.slot_fn, owners.clone()) {
                        Ok(_) => prop_assert!(owners.iter().all(|&o| (o as usize) < t.len())),
                        Err(Error::InvalidParameter(_)) => prop_assert!(owners.iter().any(|&o| o as usize >= t.len())),
                        Err(e) => prop_assert!(false, "from_owners: {:?}", e),
                    }
                    routers.push(s.into());
                }
                Err(Error::TableSizeOutOfRange) => prop_assert!(count == 0 || count > MAX_SLOTS),
                Err(e) => prop_assert!(false, "slots: {:?}", e),
            }
        }

        // The unweighted algorithms.
        match MultiProbe::new(t.clone(), p.probes) {
            Ok(mp) => {
                prop_assert!(uniform && (1..=MAX_PROBES).contains(&p.probes));
                routers.push(mp.into());
            }
            Err(Error::WeightsUnsupported) => prop_assert!(!uniform),
            Err(Error::InvalidParameter(_)) => prop_assert!(p.probes == 0 || p.probes > MAX_PROBES),
            Err(e) => prop_assert!(false, "multiprobe: {:?}", e),
        }
        match (Jump::with(t.clone(), p.jump_key, p.jump_variant), Modulo::new(t.clone())) {
            (Ok(j), Ok(md)) => {
                prop_assert!(uniform);
                for &h in &hashes {
                    prop_assert!((j.route_hash(h) as usize) < t.len());
                    prop_assert!((md.route_hash(h) as usize) < t.len());
                }
                routers.push(j.into());
                routers.push(md.into());
            }
            (Err(Error::WeightsUnsupported), Err(Error::WeightsUnsupported)) => prop_assert!(!uniform),
            other => prop_assert!(false, "jump/modulo: {:?}", other),
        }

        for r in &routers {
            let u64be = matches!(r, Router::Jump(_)) && p.jump_key == JumpKey::U64Be;
            exercise(r, &keys, u64be)?;
        }
    }

    /// Ring schemes of every shape (the compat presets' building blocks), over arbitrary nodes.
    #[test]
    fn arbitrary_ring_schemes_never_panic(
        nodes in node_list(),
        prefix_count_delta in prop_oneof![4 => Just(0i32), 1 => -1i32..=1],
        placement in 0u8..3,
        digest in prop_oneof![(0u8..=6).prop_map(NameDigest::Md5Words), key_hash().prop_map(NameDigest::Hash)],
        count in prop_oneof![
            size_param().prop_map(NameCount::PerWeight),
            size_param().prop_map(NameCount::Fixed),
            size_param().prop_map(|per_server| NameCount::KetamaF32 { per_server }),
            size_param().prop_map(|per_node| NameCount::IntegerShare { per_node }),
            size_param().prop_map(|per_node| NameCount::DoubleShare { per_node }),
        ],
        key_hash in key_hash(),
        fit_width in prop::bool::weighted(0.75),
        lookup in prop_oneof![Just(LookupRule::LowerBound), Just(LookupRule::Strict)],
        ties in prop_oneof![Just(TieBreak::FirstNode), Just(TieBreak::LastNode)],
        keys in keys(),
        hashes in proptest::collection::vec(any::<u64>(), 4),
    ) {
        let Ok(t) = Topology::new(nodes) else { return Ok(()) };
        let names = (t.len() as i64 + i64::from(prefix_count_delta)).max(0) as usize;
        let per_node: Box<[Box<[u8]>]> = (0..names).map(|i| format!("h{i}:11211-").into_bytes().into()).collect();
        let placement = match placement {
            0 => PointPlacement::V1,
            1 => PointPlacement::Named { prefixes: per_node, digest },
            _ => PointPlacement::Crc32Chain { bases: per_node },
        };
        // Mostly a key hash as wide as the points, so that most schemes build.
        let key_hash = match (&placement, digest) {
            _ if !fit_width => key_hash,
            (PointPlacement::V1, _) => if key_hash.bits() == 64 { key_hash } else { KeyHash::Xxh3 },
            (PointPlacement::Named { .. }, NameDigest::Hash(h)) => if key_hash.bits() == h.bits() { key_hash } else { h },
            _ => if key_hash.bits() == 32 { key_hash } else { KeyHash::Md5 },
        };
        let scheme = PointScheme { placement, count, key_hash, lookup, ties };
        // An estimate of the points, to skip valid but large rings.
        let (n, total) = (t.len() as f64, t.total_weight() as f64);
        let per_name = match (&scheme.placement, digest) {
            (PointPlacement::Named { .. }, NameDigest::Md5Words(k)) => f64::from(k.clamp(1, 4)),
            _ => 1.0,
        };
        let estimate: f64 = t.nodes().iter().filter(|x| x.weight() > 0).map(|x| {
            let share = f64::from(x.weight()) / total;
            per_name * match count {
                NameCount::PerWeight(k) => f64::from(x.weight()) * f64::from(k),
                NameCount::Fixed(k) => f64::from(k),
                NameCount::KetamaF32 { per_server } => share * f64::from(per_server) / 4.0 * n,
                NameCount::IntegerShare { per_node } | NameCount::DoubleShare { per_node } => share * f64::from(per_node) * n,
                _ => 0.0,
            }
        }).sum();
        prop_assume!(estimate <= BUILD_LIMIT || estimate > 2.0 * MAX_POINTS as f64);
        match Ring::with_scheme(t.clone(), &scheme) {
            Ok(ring) => {
                prop_assert!(ring.points() > 0 && ring.points() <= MAX_POINTS);
                for &h in &hashes {
                    prop_assert!(t.node(ring.route_hash(h)).is_some());
                }
                let r = Router::from(ring);
                for k in &keys {
                    prop_assert!((r.route(k).unwrap() as usize) < t.len());
                }
                let mut out = vec![0; 2.min(t.len())];
                match r.replicas(keys.first().map_or(&b""[..], |k| k), &mut out) {
                    Ok(()) | Err(Error::ReplicasExceedNodes { .. }) => {}
                    Err(e) => prop_assert!(false, "replicas: {:?}", e),
                }
            }
            Err(Error::InvalidParameter(_) | Error::TooManyPoints | Error::ZeroTotalWeight) => {}
            Err(e) => prop_assert!(false, "with_scheme: {:?}", e),
        }
    }

    /// The free functions over their whole input range.
    #[test]
    fn free_functions_never_panic(x in any::<u64>(), n in prop_oneof![Just(0u32), Just(1u32), Just(u32::MAX), Just(i32::MAX as u32 + 1), any::<u32>()], key in proptest::collection::vec(any::<u8>(), 0..40), h in key_hash()) {
        let j = jump_hash(x, n);
        prop_assert!(j < n.max(1));
        let g = jump_hash_guava(x, n);
        prop_assert!(g < n.max(1));
        prop_assert!(redis_slot(&key) < 16_384);
        let tag = redis_hash_tag(&key);
        prop_assert!(key.windows(tag.len().max(1)).any(|w| w == tag) || tag.is_empty());
        let v = h.hash(&key);
        prop_assert!(h.bits() == 64 || v <= u64::from(u32::MAX));
        let _ = is_prime(n);
    }
}
