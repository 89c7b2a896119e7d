//! Maglev hashing (Eisenbud et al., NSDI 2016), weighted.
//!
//! A prime-sized lookup table is filled by letting the nodes take turns claiming the next free
//! entry of their own permutation `(offset + j·skip) mod M`. A lookup is one multiply and one
//! table read. Building needs O(M + N) memory: each node keeps only its offset, skip and
//! position in its permutation, never a materialised permutation row.
//!
//! Native scheme ("maglev-v1", see `conformance/SPEC.md`): with `e = le32(len(id)) || id`,
//! `offset = xxh3_64_with_seed(e, 0) mod M`, `skip = xxh3_64_with_seed(e, 1) mod (M−1) + 1`;
//! turns follow Envoy's weighted rule in exact integers (a node takes a turn in round *r*
//! when `r·w ≥ target`, and each claim adds `max w` to its target); a key goes to
//! `table[(xxh3_64(key) · M) >> 64]`.

use alloc::boxed::Box;
use alloc::collections::BinaryHeap;
use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Reverse;

use crate::{Error, Result, Topology, hash, replicas};

/// Table size when the caller does not choose (the paper's recommendation).
pub const DEFAULT_TABLE_SIZE: u32 = 65_537;
/// Largest table size accepted.
pub const MAX_TABLE_SIZE: u32 = (1 << 26) - 5;

/// Maglev router.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Maglev {
    topology: Topology,
    table: Table,
    reachable: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Table {
    U16(Box<[u16]>),
    U32(Box<[u32]>),
}

impl Table {
    #[inline]
    fn get(&self, i: usize) -> u32 {
        match self {
            Self::U16(t) => t.get(i).map_or(0, |&v| u32::from(v)),
            Self::U32(t) => t.get(i).copied().unwrap_or(0),
        }
    }

    fn len(&self) -> usize {
        match self {
            Self::U16(t) => t.len(),
            Self::U32(t) => t.len(),
        }
    }
}

/// Per-node build state: O(1) per node.
struct Turn {
    offset: u64,
    skip: u64,
    next: u64,
    weight: u64,
    target: u64,
}

impl Maglev {
    /// Builds a table of `table_size` entries (prime, at least the number of weighted nodes).
    ///
    /// # Errors
    /// [`Error::TableSizeNotPrime`], or [`Error::TableSizeOutOfRange`] when the table is
    /// larger than [`MAX_TABLE_SIZE`] or smaller than the number of nodes with weight.
    pub fn new(topology: Topology, table_size: u32) -> Result<Self> {
        if table_size > MAX_TABLE_SIZE || (table_size as usize) < topology.eligible() {
            return Err(Error::TableSizeOutOfRange);
        }
        topology.budget().check_table(u64::from(table_size))?;
        if !is_prime(table_size) {
            return Err(Error::TableSizeNotPrime);
        }
        let m = u64::from(table_size);
        let mut turns: Vec<(u32, Turn)> = Vec::with_capacity(topology.len());
        let mut max_w = 0u64;
        for (i, node) in topology.nodes().iter().enumerate() {
            if node.weight() == 0 {
                continue;
            }
            let mut e = Vec::with_capacity(4 + node.id().len());
            e.extend_from_slice(&(node.id().len() as u32).to_le_bytes());
            e.extend_from_slice(node.id());
            let offset = hash::xxh3_64_with_seed(&e, 0) % m;
            let skip = hash::xxh3_64_with_seed(&e, 1) % (m - 1) + 1;
            let weight = u64::from(node.weight());
            max_w = max_w.max(weight);
            turns.push((i as u32, Turn { offset, skip, next: 0, weight, target: 0 }));
        }
        const EMPTY: u32 = u32::MAX;
        let mut entries = crate::budget::try_vec(table_size as usize, EMPTY)?;
        let mut claimed = vec![0u32; topology.len()];
        // Turns in (round, node order): the order of the rounds-and-nodes loop the spec
        // describes, without visiting every node every round (one heavy node among many light
        // ones would otherwise cost rounds × nodes checks). A node is due in the first round r
        // (after its last turn) with r·w >= target.
        let mut due: BinaryHeap<Reverse<(u64, usize)>> = (0..turns.len()).map(|i| Reverse((1, i))).collect();
        let mut filled = 0u64;
        while filled < m {
            let Some(Reverse((round, i))) = due.pop() else { break };
            let Some((node, t)) = turns.get_mut(i) else { break };
            t.target += max_w;
            // Walk this node's permutation to its next free entry. The permutation visits
            // every entry (skip < M and M prime), and one is free, so this ends.
            loop {
                let c = (t.offset + t.next * t.skip) % m;
                t.next += 1;
                if let Some(slot) = entries.get_mut(c as usize)
                    && *slot == EMPTY
                {
                    *slot = *node;
                    break;
                }
                if t.next > m {
                    return Err(Error::InvalidParameter("maglev permutation exhausted"));
                }
            }
            if let Some(c) = claimed.get_mut(*node as usize) {
                *c += 1;
            }
            filled += 1;
            due.push(Reverse(((round + 1).max(t.target.div_ceil(t.weight)), i)));
        }
        let reachable = claimed.iter().filter(|&&c| c > 0).count() as u32;
        let table = if topology.len() <= usize::from(u16::MAX) + 1 {
            // Reserved fallibly, then filled without growing: the u32 table is still held.
            let mut narrow = crate::budget::try_with_capacity(entries.len())?;
            narrow.extend(entries.iter().map(|&e| e as u16));
            drop(entries);
            Table::U16(narrow.into()) // capacity is exact: no reallocation
        } else {
            Table::U32(entries.into()) // capacity is exact: no reallocation
        };
        Ok(Self { topology, table, reachable })
    }

    #[inline]
    fn slot(&self, h: u64) -> usize {
        ((u128::from(h) * self.table.len() as u128) >> 64) as usize
    }

    /// The owner of `key`.
    #[inline]
    #[must_use]
    pub fn route(&self, key: &[u8]) -> u32 {
        self.route_hash(hash::xxh3_64(key))
    }

    /// The owner of a hashed key.
    #[inline]
    #[must_use]
    pub fn route_hash(&self, h: u64) -> u32 {
        self.table.get(self.slot(h))
    }

    /// `out.len()` distinct nodes: the owner, then the owners of the following table entries
    /// (wrapping), distinct zones first.
    ///
    /// # Errors
    /// [`Error::ReplicasExceedNodes`] when fewer nodes own entries.
    pub fn replicas(&self, key: &[u8], out: &mut [u32]) -> Result<()> {
        let start = self.slot(hash::xxh3_64(key));
        let len = self.table.len();
        replicas::select(&self.topology, self.reachable as usize, out, || {
            (0..len).map(move |i| self.table.get((start + i) % len))
        })
    }

    /// Entries owned by each node (exact ownership is this count over the table size).
    #[must_use]
    pub fn entry_counts(&self) -> Vec<u32> {
        let mut counts = vec![0u32; self.topology.len()];
        for i in 0..self.table.len() {
            if let Some(c) = counts.get_mut(self.table.get(i) as usize) {
                *c += 1;
            }
        }
        counts
    }

    /// The owner of table entry `e` (node 0 when out of range).
    #[must_use]
    pub fn entry(&self, e: usize) -> u32 {
        self.table.get(e)
    }

    /// Table size M.
    #[must_use]
    pub fn table_size(&self) -> u32 {
        self.table.len() as u32
    }

    /// The topology.
    #[must_use]
    pub fn topology(&self) -> &Topology {
        &self.topology
    }
}

/// Deterministic primality by trial division (table sizes are at most 2^26).
#[must_use]
pub fn is_prime(n: u32) -> bool {
    if n < 2 {
        return false;
    }
    if n.is_multiple_of(2) {
        return n == 2;
    }
    let mut d = 3u32;
    while d.saturating_mul(d) <= n {
        if n.is_multiple_of(d) {
            return false;
        }
        d += 2;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primes() {
        assert!(is_prime(65_537) && is_prime(7) && is_prime(2));
        assert!(!is_prime(65_536) && !is_prime(1) && !is_prime(0) && !is_prime(9));
    }

    #[test]
    fn weights_share_the_table() {
        let t = Topology::new([crate::Node::new("a").with_weight(1), crate::Node::new("b").with_weight(3)].to_vec())
            .unwrap();
        let m = Maglev::new(t, 65_537).unwrap();
        let c = m.entry_counts();
        assert_eq!(c[0] + c[1], 65_537);
        assert!((f64::from(c[1]) / f64::from(c[0]) - 3.0).abs() < 0.01, "{c:?}");
    }
}
