//! Errors are typed and stable: each [`Error`] variant is produced by its documented cause,
//! and by nothing that merely looks like it (the boundary values just inside are accepted).

#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeSet;

use keyroute::ring::{LookupRule, NameCount, NameDigest, PointPlacement, PointScheme, TieBreak};
use keyroute::{
    BatchError, DEFAULT_PROBES, Error, Jump, JumpKey, JumpVariant, KeyHash, MAX_ID_LEN, MAX_NODES, MAX_POINTS,
    MAX_PROBES, MAX_SLOTS, MAX_TABLE_SIZE, Maglev, Modulo, MultiProbe, Node, Rendezvous, Ring, Router, SlotFn, Slots,
    Topology, is_prime,
};

fn nodes(ids: &[&str]) -> Vec<Node> {
    ids.iter().map(Node::new).collect()
}

fn weighted(weights: &[u32]) -> Topology {
    Topology::new(
        weights.iter().enumerate().map(|(i, &w)| Node::new(format!("n{i}")).with_weight(w)).collect::<Vec<_>>(),
    )
    .unwrap()
}

#[test]
fn empty_topology() {
    assert_eq!(Topology::new(Vec::new()), Err(Error::EmptyTopology));
    assert_eq!(Topology::uniform("n", 0), Err(Error::EmptyTopology));
    assert!(Topology::uniform("n", 1).is_ok());
}

#[test]
fn duplicate_node_ids() {
    assert_eq!(Topology::new(nodes(&["a", "b", "a"])), Err(Error::DuplicateNodeId { index: 2 }));
    assert_eq!(Topology::new(nodes(&["x", "y", "z", "y"])), Err(Error::DuplicateNodeId { index: 3 }));
    // Same bytes, different weight or zone: still the same id.
    let dup = vec![Node::new("a").with_weight(3), Node::new("a").with_zone("z")];
    assert_eq!(Topology::new(dup), Err(Error::DuplicateNodeId { index: 1 }));
    // Ids are bytes, compared exactly: a prefix, a case change or a trailing NUL is another id.
    assert!(Topology::new(nodes(&["a", "ab", "A", "a\0"])).is_ok());
    // With several duplicates, the reported node repeats an id listed before it.
    for list in [&["b", "a", "b", "a"][..], &["a", "a", "a"], &["q", "r", "s", "s", "r", "q"]] {
        match Topology::new(nodes(list)) {
            Err(Error::DuplicateNodeId { index }) => {
                let i = index as usize;
                assert!(list[..i].contains(&list[i]), "{list:?}: index {i}");
            }
            other => panic!("{list:?}: {other:?}"),
        }
    }
}

#[test]
fn zero_total_weight() {
    assert_eq!(Topology::new(vec![Node::new("a").with_weight(0)]), Err(Error::ZeroTotalWeight));
    assert_eq!(
        Topology::new(vec![Node::new("a").with_weight(0), Node::new("b").with_weight(0)]),
        Err(Error::ZeroTotalWeight)
    );
    // One positive weight is enough; weight-0 nodes are allowed beside it.
    assert!(Topology::new(vec![Node::new("a").with_weight(0), Node::new("b")]).is_ok());
    // A ring scheme that gives no node a point.
    let t = weighted(&[1, 1]);
    for count in [NameCount::Fixed(0), NameCount::IntegerShare { per_node: 0 }] {
        let scheme = PointScheme { count, ..PointScheme::v1(1) };
        assert_eq!(Ring::with_scheme(t.clone(), &scheme).map(|_| ()), Err(Error::ZeroTotalWeight));
    }
}

#[test]
fn too_many_nodes() {
    // The count is checked before anything else, so equal ids do not matter here.
    let many = vec![Node::new("x"); MAX_NODES + 1];
    assert_eq!(Topology::new(many), Err(Error::TooManyNodes));
}

#[test]
fn too_many_points() {
    let heavy = || Topology::new(vec![Node::new("a").with_weight(u32::MAX)]).unwrap();
    assert_eq!(Ring::new(heavy(), 160).map(|_| ()), Err(Error::TooManyPoints));
    assert_eq!(Ring::new(heavy(), 1).map(|_| ()), Err(Error::TooManyPoints));
    assert_eq!(Ring::new(heavy(), u32::MAX).map(|_| ()), Err(Error::TooManyPoints));
    // Just past the limit, in one node or across nodes.
    let w = (MAX_POINTS / 160) as u32 + 1;
    assert_eq!(Ring::new(weighted(&[w]), 160).map(|_| ()), Err(Error::TooManyPoints));
    let half = (MAX_POINTS / 2) as u32;
    assert_eq!(Ring::new(weighted(&[half, half, 1]), 1).map(|_| ()), Err(Error::TooManyPoints));
    assert_eq!(Ring::new(weighted(&[1; 3]), (MAX_POINTS / 3) as u32 + 1).map(|_| ()), Err(Error::TooManyPoints));
    // Many points but within the limit build.
    assert_eq!(Ring::new(weighted(&[1000, 1]), 160).unwrap().points(), 1001 * 160);
}

#[test]
fn invalid_node_id() {
    assert_eq!(Topology::new(nodes(&["a", ""])), Err(Error::InvalidNodeId { index: 1 }));
    let long = "x".repeat(MAX_ID_LEN + 1);
    assert_eq!(Topology::new(nodes(&["a", "b", &long])), Err(Error::InvalidNodeId { index: 2 }));
    let longest = "x".repeat(MAX_ID_LEN);
    let t = Topology::new(nodes(&["a", &longest])).unwrap();
    // A maximal id is an ordinary node for every algorithm.
    assert!(Ring::new(t.clone(), 160).is_ok());
    assert!(Maglev::new(t.clone(), 65_537).is_ok());
    assert!(Rendezvous::new(t).is_ok());
}

#[test]
fn weights_unsupported() {
    for weights in [&[1u32, 2][..], &[0, 1], &[5, 5, 4], &[u32::MAX, 1]] {
        let t = weighted(weights);
        assert_eq!(Jump::new(t.clone()), Err(Error::WeightsUnsupported));
        assert_eq!(Jump::with(t.clone(), JumpKey::U64Be, JumpVariant::Guava), Err(Error::WeightsUnsupported));
        assert_eq!(Modulo::new(t.clone()), Err(Error::WeightsUnsupported));
        assert_eq!(MultiProbe::new(t.clone(), DEFAULT_PROBES), Err(Error::WeightsUnsupported));
        // The weighted algorithms accept them (a ring within its point limit).
        if t.total_weight() < 1000 {
            assert!(Ring::new(t.clone(), 10).is_ok());
        }
        assert!(Rendezvous::new(t.clone()).is_ok());
        assert!(Maglev::new(t.clone(), 1009).is_ok());
        assert!(Slots::new(t, SlotFn::Redis).is_ok());
    }
    // Equal weights other than 1 are uniform.
    let t = weighted(&[7, 7, 7]);
    assert!(Jump::new(t.clone()).is_ok());
    assert!(Modulo::new(t.clone()).is_ok());
    assert!(MultiProbe::new(t, DEFAULT_PROBES).is_ok());
}

#[test]
fn replicas_exceed_nodes() {
    // Three nodes, one of weight 0: two can hold a replica.
    let t = weighted(&[1, 0, 2]);
    let routers: Vec<Router> = vec![
        Ring::new(t.clone(), 50).unwrap().into(),
        Rendezvous::new(t.clone()).unwrap().into(),
        Maglev::new(t.clone(), 1009).unwrap().into(),
        Slots::new(t.clone(), SlotFn::Redis).unwrap().into(),
    ];
    for r in &routers {
        assert_eq!(r.replicas(b"k", &mut [0; 2]), Ok(()));
        assert_eq!(
            r.replicas(b"k", &mut [0; 3]),
            Err(Error::ReplicasExceedNodes { requested: 3, available: 2 }),
            "{r:?}"
        );
    }
    // Slots: only nodes that own a slot count (one slot, three nodes).
    let s = Slots::new(weighted(&[1, 1, 1]), SlotFn::Hash { count: 1 }).unwrap();
    assert_eq!(s.replicas(b"k", &mut [0; 2]), Err(Error::ReplicasExceedNodes { requested: 2, available: 1 }));
    let mp = MultiProbe::new(weighted(&[1, 1]), 21).unwrap();
    assert_eq!(mp.replicas(b"k", &mut [0; 3]), Err(Error::ReplicasExceedNodes { requested: 3, available: 2 }));
}

#[test]
fn replicas_unsupported() {
    let t = weighted(&[1, 1, 1]);
    let jump = Router::from(Jump::new(t.clone()).unwrap());
    let modulo = Router::from(Modulo::new(t).unwrap());
    assert_eq!(jump.replicas(b"k", &mut [0; 1]), Err(Error::ReplicasUnsupported));
    assert_eq!(modulo.replicas(b"k", &mut [0; 2]), Err(Error::ReplicasUnsupported));
}

#[test]
fn maglev_table_sizes() {
    let t = weighted(&[1, 1, 1]);
    for m in [65_536u32, 9, 4, 65_535, 1_000_000] {
        assert_eq!(Maglev::new(t.clone(), m).map(|_| ()), Err(Error::TableSizeNotPrime), "{m}");
    }
    assert_eq!(Maglev::new(weighted(&[1]), 1).map(|_| ()), Err(Error::TableSizeNotPrime));
    // Too small for the weighted nodes, too large, or zero.
    assert_eq!(Maglev::new(weighted(&[1; 5]), 3).map(|_| ()), Err(Error::TableSizeOutOfRange));
    assert_eq!(Maglev::new(t.clone(), 0).map(|_| ()), Err(Error::TableSizeOutOfRange));
    assert!(is_prime(MAX_TABLE_SIZE), "the largest accepted size should be usable");
    assert_eq!(Maglev::new(t.clone(), 67_108_879).map(|_| ()), Err(Error::TableSizeOutOfRange));
    assert_eq!(Maglev::new(t.clone(), u32::MAX).map(|_| ()), Err(Error::TableSizeOutOfRange));
    // Weight-0 nodes need no entry: 3 entries for 3 weighted nodes among 5 is fine.
    assert!(Maglev::new(weighted(&[1, 0, 1, 0, 1]), 3).is_ok());
    assert!(Maglev::new(t.clone(), 3).is_ok());
    assert!(Maglev::new(weighted(&[1, 1]), 2).is_ok());
}

#[test]
fn slot_table_sizes() {
    let t = weighted(&[1, 1]);
    for count in [0, MAX_SLOTS + 1, u32::MAX] {
        assert_eq!(
            Slots::new(t.clone(), SlotFn::Hash { count }).map(|_| ()),
            Err(Error::TableSizeOutOfRange),
            "{count}"
        );
    }
    assert_eq!(
        Slots::from_owners(t.clone(), SlotFn::Hash { count: 4 }, vec![0, 1, 0]).map(|_| ()),
        Err(Error::TableSizeOutOfRange)
    );
    assert_eq!(
        Slots::from_owners(t.clone(), SlotFn::Redis, vec![0; 16_383]).map(|_| ()),
        Err(Error::TableSizeOutOfRange)
    );
    assert!(Slots::from_owners(t, SlotFn::Hash { count: 1 }, vec![1]).is_ok());
}

#[test]
fn invalid_parameters() {
    let t = weighted(&[1, 1]);
    assert!(matches!(Ring::new(t.clone(), 0), Err(Error::InvalidParameter(_))));
    for probes in [0, MAX_PROBES + 1, u32::MAX] {
        assert!(matches!(MultiProbe::new(t.clone(), probes), Err(Error::InvalidParameter(_))));
    }
    assert!(MultiProbe::new(t.clone(), MAX_PROBES).is_ok());
    assert!(MultiProbe::new(t.clone(), 1).is_ok());
    // A slot owner that is not a node.
    assert!(matches!(
        Slots::from_owners(t.clone(), SlotFn::Hash { count: 3 }, vec![0, 1, 2]),
        Err(Error::InvalidParameter(_))
    ));
    // Ring schemes that do not fit: one name per node, 1..=4 MD5 words, matching widths.
    let named = |n: usize, digest| PointPlacement::Named {
        prefixes: (0..n).map(|i| format!("n{i}-").into_bytes().into()).collect(),
        digest,
    };
    let scheme = |placement, key_hash| PointScheme {
        placement,
        count: NameCount::PerWeight(40),
        key_hash,
        lookup: LookupRule::LowerBound,
        ties: TieBreak::FirstNode,
    };
    let bad = [
        scheme(named(1, NameDigest::Md5Words(4)), KeyHash::Md5),
        scheme(named(3, NameDigest::Md5Words(4)), KeyHash::Md5),
        scheme(PointPlacement::Crc32Chain { bases: vec![b"h\0p".to_vec().into()].into() }, KeyHash::Crc32),
        scheme(named(2, NameDigest::Md5Words(0)), KeyHash::Md5),
        scheme(named(2, NameDigest::Md5Words(5)), KeyHash::Md5),
        scheme(PointPlacement::V1, KeyHash::Md5),
        scheme(named(2, NameDigest::Md5Words(4)), KeyHash::Xxh3),
        scheme(named(2, NameDigest::Hash(KeyHash::Xxh3)), KeyHash::Crc32),
    ];
    for s in &bad {
        assert!(matches!(Ring::with_scheme(t.clone(), s), Err(Error::InvalidParameter(_))), "{s:?}");
    }
    for good in [
        scheme(named(2, NameDigest::Md5Words(4)), KeyHash::Md5),
        scheme(named(2, NameDigest::Md5Words(1)), KeyHash::Fnv1a32),
        scheme(named(2, NameDigest::Hash(KeyHash::Murmur3_128)), KeyHash::Xxh3),
        scheme(PointPlacement::V1, KeyHash::Xxh3),
    ] {
        assert!(Ring::with_scheme(t.clone(), &good).is_ok(), "{good:?}");
    }
}

#[test]
fn invalid_key_for_u64be_jump() {
    let t = weighted(&[1, 1, 1]);
    for variant in [JumpVariant::Paper, JumpVariant::Guava] {
        let j = Jump::with(t.clone(), JumpKey::U64Be, variant).unwrap();
        let r = Router::from(j.clone());
        for len in [0usize, 1, 7, 9, 16] {
            let key = vec![0xab; len];
            assert!(matches!(j.route(&key), Err(Error::InvalidKey(_))), "{len}");
            assert!(matches!(j.key_input(&key), Err(Error::InvalidKey(_))));
            assert!(matches!(r.route(&key), Err(Error::InvalidKey(_))));
        }
        assert_eq!(j.key_input(&[0, 0, 0, 0, 0, 0, 1, 2]), Ok(0x0102));
        assert!(j.route(&u64::MAX.to_be_bytes()).unwrap() < 3);
        // A batch stops at the first bad key, and says which; outputs before it are written.
        let mut out = [u32::MAX; 3];
        let keys: [&[u8]; 3] = [&[0; 8], &[1; 7], &[2; 8]];
        assert!(matches!(
            r.route_batch(&keys, &mut out),
            Err(BatchError { index: Some(1), error: Error::InvalidKey(_) })
        ));
        assert_eq!(out[0], j.route(&[0; 8]).unwrap());
    }
    // Hashed jump keys accept any bytes.
    let j = Jump::new(t).unwrap();
    assert!(j.route(b"").is_ok() && j.route(&[0; 9]).is_ok());
}

#[test]
fn buffer_too_small() {
    let t = weighted(&[1, 1, 1]);
    let routers: Vec<Router> = vec![
        Ring::new(t.clone(), 40).unwrap().into(),
        Rendezvous::new(t.clone()).unwrap().into(),
        Maglev::new(t.clone(), 1009).unwrap().into(),
        Slots::new(t.clone(), SlotFn::Redis).unwrap().into(),
        MultiProbe::new(t.clone(), 21).unwrap().into(),
        Jump::new(t.clone()).unwrap().into(),
        Modulo::new(t.clone()).unwrap().into(),
    ];
    let keys = common::keys(20, "buf");
    for r in &routers {
        for short in [0, 1, keys.len() - 1] {
            let mut out = vec![0; short];
            assert_eq!(r.route_batch(&keys, &mut out), Err(Error::BufferTooSmall.into()), "{r:?}");
        }
        let mut exact = vec![0; keys.len()];
        assert_eq!(r.route_batch(&keys, &mut exact), Ok(()));
        let mut empty: [u32; 0] = [];
        assert_eq!(r.route_batch::<&[u8]>(&[], &mut empty), Ok(()));
    }
    let ring = Ring::new(t, 40).unwrap();
    assert_eq!(ring.route_batch(&keys, &mut [0; 3]), Err(Error::BufferTooSmall));
}

/// Every variant has a message, and the messages tell the variants apart.
#[test]
fn every_variant_displays_distinctly() {
    let all = [
        Error::EmptyTopology,
        Error::DuplicateNodeId { index: 1 },
        Error::ZeroTotalWeight,
        Error::TooManyNodes,
        Error::TooManyPoints,
        Error::InvalidNodeId { index: 0 },
        Error::WeightsUnsupported,
        Error::ReplicasExceedNodes { requested: 3, available: 2 },
        Error::ReplicasUnsupported,
        Error::TableSizeNotPrime,
        Error::TableSizeOutOfRange,
        Error::InvalidParameter("probes"),
        Error::InvalidKey("u64be"),
        Error::BufferTooSmall,
    ];
    let messages: BTreeSet<String> = all.iter().map(ToString::to_string).collect();
    assert_eq!(messages.len(), all.len());
    assert!(messages.iter().all(|m| !m.is_empty()));
    let as_std: &dyn std::error::Error = &Error::EmptyTopology;
    assert!(as_std.source().is_none());
}
