//! Multi-probe consistent hashing (Appleton & O'Reilly, 2015).
//!
//! One point per node, and `k` probes per key: probe *i* is `h1 + i·h2` (wrapping), each probe
//! finds the first node point at or after it, and the probe with the smallest clockwise
//! distance wins (the earliest probe on a tie). With k = 21 the peak-to-mean load is about
//! 1.05 while the table holds only `n` points. Nodes cannot be weighted.

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::ring::{LookupRule, NameCount, PointPlacement, PointScheme, PointTable, TieBreak};
use crate::{Error, KeyHash, Result, Topology, hash, replicas};

/// Probes per key when the caller does not choose (the paper's value for ~5% peak-to-mean).
pub const DEFAULT_PROBES: u32 = 21;
/// Most probes allowed.
pub const MAX_PROBES: u32 = 1024;

/// Multi-probe router.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MultiProbe {
    topology: Topology,
    table: PointTable,
    /// Point values in table order (the packed table stores them only in part).
    points: Box<[u64]>,
    probes: u32,
}

impl MultiProbe {
    /// One ring-v1 point per node (point index 0), `probes` probes per key.
    ///
    /// # Errors
    /// [`Error::WeightsUnsupported`] for unequal weights; [`Error::InvalidParameter`] for
    /// 0 or more than [`MAX_PROBES`] probes.
    pub fn new(topology: Topology, probes: u32) -> Result<Self> {
        if !topology.is_uniform() {
            return Err(Error::WeightsUnsupported);
        }
        if probes == 0 || probes > MAX_PROBES {
            return Err(Error::InvalidParameter("probes must be between 1 and 1024"));
        }
        let scheme = PointScheme {
            placement: PointPlacement::V1,
            count: NameCount::Fixed(1),
            key_hash: KeyHash::Xxh3,
            lookup: LookupRule::LowerBound,
            ties: TieBreak::FirstNode,
        };
        // Reuse the ring's table builder: one point per node.
        let ring = crate::Ring::with_scheme(topology, &scheme)?;
        let (topology, table) = ring.into_parts();
        let points = (0..table.len()).map(|i| table.point(i)).collect();
        Ok(Self { topology, table, points, probes })
    }

    #[inline]
    fn probe_base(key: &[u8]) -> (u64, u64) {
        (hash::xxh3_64_with_seed(key, 1), hash::xxh3_64_with_seed(key, 2))
    }

    /// The owner of `key`.
    #[must_use]
    pub fn route(&self, key: &[u8]) -> u32 {
        let (h1, h2) = Self::probe_base(key);
        let mut best = (u64::MAX, 0u32);
        let mut p = h1;
        for i in 0..self.probes {
            let at = self.table.position(p, LookupRule::LowerBound);
            let d = self.points.get(at).copied().unwrap_or(0).wrapping_sub(p);
            if i == 0 || d < best.0 {
                best = (d, self.table.owner(at));
            }
            p = p.wrapping_add(h2);
        }
        best.1
    }

    /// `out.len()` distinct nodes ranked by their smallest clockwise distance from any probe
    /// (the owner first), distinct zones first. Allocates one entry per node.
    ///
    /// # Errors
    /// [`Error::ReplicasExceedNodes`] when asked for more replicas than nodes.
    pub fn replicas(&self, key: &[u8], out: &mut [u32]) -> Result<()> {
        let (h1, h2) = Self::probe_base(key);
        let mut ranked: Vec<(u64, u32, u32)> = Vec::with_capacity(self.table.len());
        for (at, &point) in self.points.iter().enumerate() {
            let mut best = (u64::MAX, u32::MAX);
            let mut p = h1;
            for i in 0..self.probes {
                let d = point.wrapping_sub(p);
                if d < best.0 {
                    best = (d, i);
                }
                p = p.wrapping_add(h2);
            }
            ranked.push((best.0, best.1, self.table.owner(at)));
        }
        ranked.sort_unstable();
        replicas::select(&self.topology, ranked.len(), out, || ranked.iter().map(|&(_, _, n)| n))
    }

    /// The topology.
    #[must_use]
    pub fn topology(&self) -> &Topology {
        &self.topology
    }
}
