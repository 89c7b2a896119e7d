//! Reference vectors and independent reference implementations.
//!
//! Each native scheme is re-implemented here the naive way, straight from its written
//! definition (the module docs of the core, which `conformance/SPEC.md` mirrors): every point
//! materialised and sorted, every node scored, every Maglev permutation written out. The
//! optimised core must agree with these on random topologies and keys. The pinned vectors
//! (`golden_*`) were computed by these naive implementations; they freeze the native schemes,
//! since a change that moves any key must be a new scheme version, never a silent change.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs, clippy::expect_used, clippy::panic)]

mod common;

use common::{config, hash_in_entry, id_of, topology};
use keyroute::{
    Jump, JumpKey, JumpVariant, Maglev, Modulo, MultiProbe, Node, Rendezvous, Ring, SlotFn, Slots, Topology, jump_hash,
    jump_hash_guava,
};
use proptest::prelude::*;
use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

/// `le32(len(id)) || id`: the node encoding shared by ring-v1, rendezvous and maglev.
fn encode(id: &[u8]) -> Vec<u8> {
    let mut e = (id.len() as u32).to_le_bytes().to_vec();
    e.extend_from_slice(id);
    e
}

/// ring-v1, naively: all points `(xxh3(le32 len || id || le32 k), node)`, sorted by value then
/// node (first node wins a tie); a key goes to the first point `>=` its xxh3, wrapping.
struct NaiveRing(Vec<(u64, u32)>);

impl NaiveRing {
    fn new(t: &Topology, per_weight: u32) -> Self {
        let mut pts = Vec::new();
        for (i, n) in t.nodes().iter().enumerate() {
            for k in 0..n.weight() * per_weight {
                let mut name = encode(n.id());
                name.extend_from_slice(&k.to_le_bytes());
                pts.push((xxh3_64(&name), i as u32));
            }
        }
        pts.sort_unstable();
        Self(pts)
    }

    fn position(&self, h: u64) -> usize {
        self.0.iter().position(|&(p, _)| p >= h).unwrap_or(0)
    }

    fn route(&self, key: &[u8]) -> u32 {
        self.0[self.position(xxh3_64(key))].1
    }
}

/// Weighted rendezvous, naively, from its definition.
fn naive_rendezvous(t: &Topology, key: &[u8]) -> u32 {
    let mut best: Option<(f64, u32)> = None;
    for (i, n) in t.nodes().iter().enumerate() {
        if n.weight() == 0 {
            continue;
        }
        let x = xxh3_64_with_seed(key, xxh3_64(&encode(n.id())));
        let u = ((x >> 12) as f64 + 0.5) / 4_503_599_627_370_496.0;
        let score = -f64::from(n.weight()) / libm::log(u);
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, i as u32));
        }
    }
    best.unwrap().1
}

/// Maglev, naively: the paper's `Populate` with every permutation row materialised, and the
/// weighted turn rule of maglev-v1 (a node takes a turn in round `r` when `r·w >= target`;
/// each claim adds `max w` to its target).
fn naive_maglev(t: &Topology, m: u64) -> Vec<u32> {
    let live: Vec<(u32, &Node)> =
        t.nodes().iter().enumerate().filter(|(_, n)| n.weight() > 0).map(|(i, n)| (i as u32, n)).collect();
    let perm: Vec<Vec<u64>> = live
        .iter()
        .map(|(_, n)| {
            let e = encode(n.id());
            let offset = xxh3_64_with_seed(&e, 0) % m;
            let skip = xxh3_64_with_seed(&e, 1) % (m - 1) + 1;
            (0..m).map(|j| (offset + j * skip) % m).collect()
        })
        .collect();
    let max_w = live.iter().map(|(_, n)| u64::from(n.weight())).max().unwrap();
    let mut next = vec![0usize; live.len()];
    let mut target = vec![0u64; live.len()];
    let mut entry = vec![None::<u32>; m as usize];
    let mut filled = 0;
    let mut round = 0u64;
    while filled < m {
        round += 1;
        for (k, (node, n)) in live.iter().enumerate() {
            if filled == m || round * u64::from(n.weight()) < target[k] {
                continue;
            }
            target[k] += max_w;
            let mut c = perm[k][next[k]];
            while entry[c as usize].is_some() {
                next[k] += 1;
                c = perm[k][next[k]];
            }
            entry[c as usize] = Some(*node);
            next[k] += 1;
            filled += 1;
        }
    }
    entry.into_iter().map(Option::unwrap).collect()
}

/// Largest-remainder quotas and contiguous ranges in node order, as `Slots::new` documents.
fn naive_slot_owners(t: &Topology, count: u32) -> Vec<u32> {
    let total = t.total_weight() as u128;
    let exact: Vec<u128> = t.nodes().iter().map(|n| u128::from(count) * u128::from(n.weight())).collect();
    let mut quota: Vec<u32> = exact.iter().map(|e| (e / total) as u32).collect();
    let mut order: Vec<usize> = (0..quota.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(exact[i] % total), i));
    let missing = count - quota.iter().sum::<u32>();
    for &i in order.iter().take(missing as usize) {
        quota[i] += 1;
    }
    quota.iter().enumerate().flat_map(|(i, &q)| std::iter::repeat_n(i as u32, q as usize)).collect()
}

/// Multi-probe, naively: every probe measured against every node's point 0; the smallest
/// clockwise distance wins, the earlier probe on a tie, then the earlier node.
fn naive_multiprobe(t: &Topology, probes: u32, key: &[u8]) -> u32 {
    let points: Vec<u64> = t
        .nodes()
        .iter()
        .map(|n| {
            let mut name = encode(n.id());
            name.extend_from_slice(&0u32.to_le_bytes());
            xxh3_64(&name)
        })
        .collect();
    let (h1, h2) = (xxh3_64_with_seed(key, 1), xxh3_64_with_seed(key, 2));
    let mut best = (u64::MAX, u32::MAX, 0u32);
    for i in 0..probes {
        let p = h1.wrapping_add(u64::from(i).wrapping_mul(h2));
        for (n, &pt) in points.iter().enumerate() {
            let cand = (pt.wrapping_sub(p), i, n as u32);
            if cand < best {
                best = cand;
            }
        }
    }
    best.2
}

/// The paper's C++ (Lamping & Veach 2014, Figure 1), transcribed.
fn naive_jump(mut key: u64, buckets: i64) -> i64 {
    let (mut b, mut j) = (-1i64, 0i64);
    while j < buckets {
        b = j;
        key = key.wrapping_mul(2_862_933_555_777_941_757).wrapping_add(1);
        j = ((b + 1) as f64 * ((1i64 << 31) as f64 / ((key >> 33) + 1) as f64)) as i64;
    }
    b
}

fn small_topology() -> impl Strategy<Value = Topology> {
    common::ids(1, 7).prop_flat_map(|ids| {
        let n = ids.len();
        proptest::collection::vec(0u32..4, n)
            .prop_filter_map("zero total weight", move |w| (w.iter().any(|&x| x > 0)).then(|| topology(&ids, &w)))
    })
}

fn uniform_topology() -> impl Strategy<Value = Topology> {
    common::ids(1, 9).prop_map(|ids| common::uniform(&ids))
}

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn ring_v1_matches_naive(t in small_topology(), per in 1u32..40, ks in proptest::collection::vec(any::<Vec<u8>>(), 1..40)) {
        let ring = Ring::new(t.clone(), per).unwrap();
        let naive = NaiveRing::new(&t, per);
        prop_assert_eq!(ring.points(), naive.0.len());
        for (i, &(p, o)) in naive.0.iter().enumerate() {
            prop_assert_eq!(ring.point_at(i), Some((p, o)));
        }
        prop_assert_eq!(ring.point_at(naive.0.len()), None);
        for k in &ks {
            prop_assert_eq!(ring.route(k), naive.route(k));
        }
        // The lookup rule at the points themselves: a hash equal to a point lands on it, one
        // past it lands on the next point (wrapping after the last).
        for (i, &(p, _)) in naive.0.iter().enumerate() {
            prop_assert_eq!(ring.route_hash(p), naive.0[naive.position(p)].1);
            let after = naive.0[(i + 1) % naive.0.len()];
            if p < u64::MAX && after.0 != p {
                prop_assert_eq!(ring.route_hash(p + 1), naive.0[naive.position(p + 1)].1);
            }
        }
        prop_assert_eq!(ring.route_hash(u64::MAX), naive.0[naive.position(u64::MAX)].1);
        prop_assert_eq!(ring.route_hash(0), naive.0[naive.position(0)].1);
    }

    #[test]
    fn rendezvous_matches_naive(t in small_topology(), ks in proptest::collection::vec(any::<Vec<u8>>(), 1..40)) {
        let r = Rendezvous::new(t.clone()).unwrap();
        for k in &ks {
            prop_assert_eq!(r.route(k), naive_rendezvous(&t, k));
        }
    }

    #[test]
    fn maglev_matches_naive(t in small_topology(), m in prop::sample::select(vec![7u32, 13, 101, 257, 1009, 2053])) {
        prop_assume!(m as usize >= t.eligible());
        let mg = Maglev::new(t.clone(), m).unwrap();
        let naive = naive_maglev(&t, u64::from(m));
        for (i, &want) in naive.iter().enumerate() {
            prop_assert_eq!(mg.route_hash(hash_in_entry(i as u64, u64::from(m))), want, "entry {}", i);
        }
        let mut counts = vec![0u32; t.len()];
        for &o in &naive {
            counts[o as usize] += 1;
        }
        prop_assert_eq!(mg.entry_counts(), counts);
    }

    #[test]
    fn slots_match_naive(t in small_topology(), count in 1u32..3000, ks in proptest::collection::vec(any::<Vec<u8>>(), 1..40)) {
        let s = Slots::new(t.clone(), SlotFn::Hash { count }).unwrap();
        let owners = naive_slot_owners(&t, count);
        prop_assert_eq!(s.owners(), &owners[..]);
        for k in &ks {
            let slot = ((u128::from(xxh3_64(k)) * u128::from(count)) >> 64) as u32;
            prop_assert_eq!(SlotFn::Hash { count }.slot(k), slot);
            prop_assert_eq!(s.route(k), owners[slot as usize]);
        }
    }

    #[test]
    fn multiprobe_matches_naive(t in uniform_topology(), probes in 1u32..40, ks in proptest::collection::vec(any::<Vec<u8>>(), 1..40)) {
        let mp = MultiProbe::new(t.clone(), probes).unwrap();
        for k in &ks {
            prop_assert_eq!(mp.route(k), naive_multiprobe(&t, probes, k));
        }
    }

    #[test]
    fn jump_and_modulo_match_naive(n in 1u32..5000, inputs in proptest::collection::vec(any::<u64>(), 1..60), ks in proptest::collection::vec(any::<Vec<u8>>(), 1..20)) {
        for &x in &inputs {
            prop_assert_eq!(i64::from(jump_hash(x, n)), naive_jump(x, i64::from(n)));
        }
        let t = Topology::uniform("b", n as usize).unwrap();
        let j = Jump::new(t.clone()).unwrap();
        let md = Modulo::new(t).unwrap();
        for k in &ks {
            prop_assert_eq!(j.route(k).unwrap(), jump_hash(xxh3_64(k), n));
            prop_assert_eq!(md.route(k), (xxh3_64(k) % u64::from(n)) as u32);
        }
    }
}

/// Jump consistent hash golden values of the peers (captured in `conformance/vectors/v1/`):
/// jump-consistent-hash 3.6.0 (`jump-u64be-upstream-11`) and Guava's `consistentHash`
/// golden values (`GOLDEN_100` in Guava's `HashingTest`).
#[test]
fn jump_peer_vectors() {
    let t = Topology::uniform("bucket-", 11).unwrap();
    let paper = Jump::with(t.clone(), JumpKey::U64Be, JumpVariant::Paper).unwrap();
    let guava = Jump::with(t, JumpKey::U64Be, JumpVariant::Guava).unwrap();
    for (key, want) in [(0x0026_98ad_4b48_eacf_u64, 6), (0x1bfb_1e03_16f2_d5dd, 3), (0x173a_623c_9725_b476, 5)] {
        assert_eq!(paper.route(&key.to_be_bytes()), Ok(want));
        assert_eq!(guava.route(&key.to_be_bytes()), Ok(want));
    }
    let golden_100 = [0, 55, 62, 8, 45, 59, 86, 97, 82, 59, 73, 37, 17, 56, 86, 21, 90, 37, 38, 83];
    for (i, want) in golden_100.into_iter().enumerate() {
        assert_eq!(jump_hash_guava(i as u64, 100), want);
        assert_eq!(naive_jump(i as u64, 100), i64::from(want));
    }
}

/// Redis Cluster key slots (redis.io `CLUSTER KEYSLOT` examples and hash-tag rules) routed
/// through a slot table: Redis's own three-way split of 16384 slots.
#[test]
fn redis_slots_route_through_the_table() {
    let t = Topology::uniform("node-", 3).unwrap();
    let owners: Vec<u32> = (0..16_384u32)
        .map(|s| match s {
            0..=5460 => 0,
            5461..=10922 => 1,
            _ => 2,
        })
        .collect();
    let s = Slots::from_owners(t, SlotFn::Redis, owners).unwrap();
    for (key, slot, node) in [
        (&b"somekey"[..], 11058, 2),
        (b"foo{hash_tag}", 2515, 0),
        (b"bar{hash_tag}", 2515, 0),
        (b"{user1}.following", 8106, 1),
        (b"foo", 12182, 2),
        (b"123456789", 12739, 2),
        (b"foo{bar}{zap}", 5061, 0),
        (b"", 0, 0),
    ] {
        assert_eq!(SlotFn::Redis.slot(key), slot, "{key:?}");
        assert_eq!(s.route(key), node, "{key:?}");
    }
}

/// The topology of the pinned vectors: three nodes, one of weight 2, one of weight 0.
fn golden_topology() -> Topology {
    Topology::new(vec![
        Node::new("cache-a:11211"),
        Node::new("cache-b:11211").with_weight(2),
        Node::new("cache-c:11211"),
        Node::new("cache-d:11211").with_weight(0),
    ])
    .unwrap()
}

const GOLDEN_KEYS: [&[u8]; 8] = [
    b"",
    b"a",
    b"user:42",
    b"session:9f1c",
    b"\x00\xff\x00",
    b"\xc3\xa9t\xc3\xa9",
    b"{tag}suffix",
    b"the quick brown fox jumps over the lazy dog",
];

/// Owners of [`GOLDEN_KEYS`] (indices into [`golden_topology`]), per native scheme.
const GOLDEN_RING_V1_160: [u32; 8] = [1, 1, 1, 2, 0, 1, 1, 0];
const GOLDEN_RENDEZVOUS: [u32; 8] = [2, 2, 2, 2, 1, 1, 1, 0];
const GOLDEN_MAGLEV_65537: [u32; 8] = [2, 1, 0, 0, 1, 0, 1, 1];
const GOLDEN_SLOTS_1024: [u32; 8] = [0, 2, 1, 1, 2, 1, 2, 2];

#[test]
fn golden_vectors_agree_with_naive() {
    let t = golden_topology();
    let ring = NaiveRing::new(&t, 160);
    let maglev = naive_maglev(&t, 65_537);
    let slots = naive_slot_owners(&t, 1024);
    for (i, key) in GOLDEN_KEYS.iter().enumerate() {
        let entry = ((u128::from(xxh3_64(key)) * 65_537) >> 64) as usize;
        let slot = ((u128::from(xxh3_64(key)) * 1024) >> 64) as usize;
        assert_eq!(ring.route(key), GOLDEN_RING_V1_160[i], "ring {key:?}");
        assert_eq!(naive_rendezvous(&t, key), GOLDEN_RENDEZVOUS[i], "hrw {key:?}");
        assert_eq!(maglev[entry], GOLDEN_MAGLEV_65537[i], "maglev {key:?}");
        assert_eq!(slots[slot], GOLDEN_SLOTS_1024[i], "slots {key:?}");
    }
}

#[test]
fn golden_vectors_native_schemes() {
    let t = golden_topology();
    let ring = Ring::new(t.clone(), 160).unwrap();
    let hrw = Rendezvous::new(t.clone()).unwrap();
    let maglev = Maglev::new(t.clone(), 65_537).unwrap();
    let slots = Slots::new(t.clone(), SlotFn::Hash { count: 1024 }).unwrap();
    for (i, key) in GOLDEN_KEYS.iter().enumerate() {
        let name = |o: u32| String::from_utf8_lossy(id_of(&t, o)).into_owned();
        assert_eq!(name(ring.route(key)), name(GOLDEN_RING_V1_160[i]), "ring {key:?}");
        assert_eq!(name(hrw.route(key)), name(GOLDEN_RENDEZVOUS[i]), "hrw {key:?}");
        assert_eq!(maglev.route(key), GOLDEN_MAGLEV_65537[i], "maglev {key:?}");
        assert_eq!(slots.route(key), GOLDEN_SLOTS_1024[i], "slots {key:?}");
    }
    // Pinned aggregates of the same schemes: the ring's size and lowest point, and Maglev's
    // entry counts (weights 1:2:1:0 over 65537 entries).
    assert_eq!(ring.points(), 4 * 160);
    assert_eq!(ring.point_at(0), Some((6_288_669_615_030_263, 0)));
    assert_eq!(maglev.entry_counts(), [16_385, 32_768, 16_384, 0]);
}
