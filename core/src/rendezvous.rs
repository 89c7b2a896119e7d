//! Weighted rendezvous hashing (highest random weight).
//!
//! Every node scores every key; the highest score wins. With weights, the score is
//! `-w / ln(u)` (Schindelhauer & Schomaker), which gives node *n* a share `w_n / Σw` and moves
//! only the keys of a node that leaves. The float math is pinned down so other languages
//! reproduce it; see `conformance/SPEC.md`:
//!
//! - `seed_n = xxh3_64(le32(len(id)) || id)`, computed once per node;
//! - `x = xxh3_64_with_seed(key, seed_n)`;
//! - `u = ((x >> 12) + 0.5) · 2^-52`, exact in binary64 and strictly inside (0, 1);
//! - `score = -(w as f64) / ln(u)` with fdlibm's `log` (Java `StrictMath.log`, Rust `libm`);
//! - highest score wins; equal scores go to the earlier node.
//!
//! Lookups cost one XXH3 and one logarithm per node: O(n), fine for tens to hundreds of nodes.

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::{Result, Topology, hash, replicas};

/// Rendezvous (HRW) router.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendezvous {
    topology: Topology,
    /// Per node: (key-hash seed, weight as f64).
    nodes: Box<[(u64, f64)]>,
}

impl Rendezvous {
    /// Builds the router (no table: only a seed per node).
    ///
    /// # Errors
    /// None today; the signature leaves room for parameters.
    pub fn new(topology: Topology) -> Result<Self> {
        let nodes = topology.nodes().iter().map(|n| (node_seed(n.id()), f64::from(n.weight()))).collect();
        Ok(Self { topology, nodes })
    }

    /// The score of node `i` for `key` (0 for a weight-0 node).
    #[must_use]
    pub fn score(&self, key: &[u8], i: u32) -> f64 {
        self.nodes.get(i as usize).map_or(0.0, |&(seed, w)| score(key, seed, w))
    }

    /// The owner of `key`.
    #[must_use]
    pub fn route(&self, key: &[u8]) -> u32 {
        let mut best = (f64::NEG_INFINITY, 0u32);
        for (i, &(seed, w)) in self.nodes.iter().enumerate() {
            if w > 0.0 {
                let s = score(key, seed, w);
                if s > best.0 {
                    best = (s, i as u32);
                }
            }
        }
        best.1
    }

    /// `out.len()` distinct nodes by descending score, distinct zones first.
    ///
    /// Allocates one score per node (unlike [`Rendezvous::route`]).
    ///
    /// # Errors
    /// [`crate::Error::ReplicasExceedNodes`] when fewer nodes have a positive weight.
    pub fn replicas(&self, key: &[u8], out: &mut [u32]) -> Result<()> {
        // One allocation: a filtered iterator's size is unknown, so collecting would regrow.
        let mut ranked: Vec<(f64, u32)> = Vec::with_capacity(self.nodes.len());
        ranked.extend(
            self.nodes
                .iter()
                .enumerate()
                .filter(|(_, (_, w))| *w > 0.0)
                .map(|(i, &(seed, w))| (score(key, seed, w), i as u32)),
        );
        ranked.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        replicas::select(&self.topology, ranked.len(), out, || ranked.iter().map(|&(_, i)| i))
    }

    /// The topology.
    #[must_use]
    pub fn topology(&self) -> &Topology {
        &self.topology
    }
}

/// `xxh3_64(le32(len(id)) || id)`: the per-node seed.
pub(crate) fn node_seed(id: &[u8]) -> u64 {
    let mut buf = Vec::with_capacity(4 + id.len());
    buf.extend_from_slice(&(id.len() as u32).to_le_bytes());
    buf.extend_from_slice(id);
    hash::xxh3_64(&buf)
}

#[inline]
fn score(key: &[u8], seed: u64, w: f64) -> f64 {
    let x = hash::xxh3_64_with_seed(key, seed);
    let u = ((x >> 12) as f64 + 0.5) * (1.0 / 4_503_599_627_370_496.0); // 2^-52
    -w / libm::log(u)
}

#[cfg(test)]
mod tests {

    #[test]
    fn u_stays_inside_the_open_interval() {
        for x in [0u64, u64::MAX] {
            let u = ((x >> 12) as f64 + 0.5) * (1.0 / 4_503_599_627_370_496.0);
            assert!(u > 0.0 && u < 1.0);
        }
    }
}
