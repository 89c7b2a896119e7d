//! Helpers shared by the property-test files (each test file includes this with `mod common;`
//! and uses a different subset of it).

#![allow(dead_code, clippy::unwrap_used, clippy::indexing_slicing, missing_docs)]

use keyroute::{Node, Topology};
use proptest::prelude::*;

/// Proptest settings for this suite: a modest case count keeps debug runs fast; the seed is
/// random per run (as proptest's default), so repeated CI runs keep exploring new inputs.
/// `PROPTEST_CASES=5000 cargo test --release` runs a deeper search.
pub fn config(cases: u32) -> ProptestConfig {
    let base = ProptestConfig::default();
    let cases = if std::env::var_os("PROPTEST_CASES").is_some() { base.cases } else { cases };
    ProptestConfig {
        cases,
        // Shrinking a failure can take long in debug builds; this is plenty to get a small case.
        max_shrink_iters: 2048,
        ..base
    }
}

/// `n` distinct keys, `salt:i`, plus a few byte strings that are not text.
pub fn keys(n: usize, salt: &str) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = (0..n).map(|i| format!("{salt}:{i}").into_bytes()).collect();
    out.extend([vec![], vec![0], vec![0xff; 3], b"\xc3\xa9t\xc3\xa9".to_vec()]);
    out
}

/// A topology from ids and weights (same length).
pub fn topology(ids: &[String], weights: &[u32]) -> Topology {
    let nodes: Vec<Node> = ids.iter().zip(weights).map(|(id, &w)| Node::new(id).with_weight(w)).collect();
    Topology::new(nodes).unwrap()
}

/// A topology of weight-1 nodes.
pub fn uniform(ids: &[String]) -> Topology {
    topology(ids, &vec![1; ids.len()])
}

/// The id of node `i` of `t`.
pub fn id_of(t: &Topology, i: u32) -> &[u8] {
    t.node(i).unwrap().id()
}

/// A set of `min..=max` distinct node ids shaped like real ones (`cache-7.example:11211`, …).
pub fn ids(min: usize, max: usize) -> impl Strategy<Value = Vec<String>> {
    proptest::collection::btree_set("[a-z]{1,6}(-[0-9]{1,3})?(\\.[a-z]{2,5})?(:[0-9]{2,5})?", min..=max)
        .prop_map(|s| s.into_iter().collect())
        .prop_shuffle()
}

/// SplitMix64: a tiny seeded generator for the fixed, reproducible loops of the statistical
/// tests (their bounds are quantiles, so they must see the same topologies on every run).
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0); the tiny modulo bias is irrelevant here.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// `n` distinct random ids of 4–12 lowercase letters and digits.
    pub fn ids(&mut self, n: usize) -> Vec<String> {
        let mut set = std::collections::BTreeSet::new();
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let len = 4 + self.below(9) as usize;
            let id: String = (0..len)
                .map(|_| {
                    let c = self.below(36) as u8;
                    char::from(if c < 10 { b'0' + c } else { b'a' + c - 10 })
                })
                .collect();
            if set.insert(id.clone()) {
                out.push(id);
            }
        }
        out
    }
}

/// A hash whose Maglev/slot multiply-shift lands exactly in entry `i` of a table of size `m`:
/// `ceil(i · 2^64 / m)`, so `(h · m) >> 64 == i`.
pub fn hash_in_entry(i: u64, m: u64) -> u64 {
    (u128::from(i) << 64).div_ceil(u128::from(m)) as u64
}
