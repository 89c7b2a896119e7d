//! The sorted point table behind every ring: struct-of-arrays, with a small index over the
//! top bits of the point space so a lookup reads one index entry and one short run of points
//! instead of walking a ~17-step binary search.

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;

use crate::{Error, Result};

/// Which node wins when several points have the same value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TieBreak {
    /// The node that comes first in the topology (libmemcached, nginx, npm hashring, ring-v1).
    #[default]
    FirstNode,
    /// The node that comes last (peers that store points in a map, last writer wins).
    LastNode,
}

/// Which point a hash lands on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum LookupRule {
    /// The first point `>=` the hash, wrapping to the first point (ketama, ring-v1).
    #[default]
    LowerBound,
    /// The first point `>` the hash, wrapping (Python `bisect_right` rings).
    Strict,
}

/// Node indices per point, as narrow as the topology allows.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Owners {
    U16(Box<[u16]>),
    U32(Box<[u32]>),
}

impl Owners {
    #[inline]
    fn get(&self, i: usize) -> u32 {
        match self {
            Self::U16(o) => o.get(i).map_or(0, |&v| u32::from(v)),
            Self::U32(o) => o.get(i).copied().unwrap_or(0),
        }
    }

    fn len_bytes(&self) -> usize {
        match self {
            Self::U16(o) => o.len() * 2,
            Self::U32(o) => o.len() * 4,
        }
    }
}

/// Points sorted by (value, tie-break), with their owners and a top-bits index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PointTable {
    points: Box<[u64]>,
    owners: Owners,
    /// `index[b]` = first position whose point has top bits `>= b`; `2^bits + 1` entries.
    index: Box<[u32]>,
    /// Right shift that turns a value of the point space into its bucket number.
    shift: u32,
}

/// Average points per index bucket: small enough that the run after the index read is one
/// cache line, large enough that the index costs under one byte per point.
const POINTS_PER_BUCKET: usize = 4;

impl PointTable {
    /// Builds the table from a generator that emits `(point, owner)` pairs.
    ///
    /// `generate` is called twice and must emit the same `count` pairs both times: the first
    /// pass counts points per bucket, the second scatters them into place (a counting sort on
    /// the top bits), so no temporary array of all points is ever held.
    pub(crate) fn build<G>(
        count: usize,
        width: u32,
        nodes: usize,
        ties: TieBreak,
        generate: G,
    ) -> Result<Self>
    where
        G: Fn(&mut dyn FnMut(u64, u32)),
    {
        if count == 0 {
            return Err(Error::ZeroTotalWeight);
        }
        if count > crate::MAX_POINTS {
            return Err(Error::TooManyPoints);
        }
        let bits = bucket_bits(count).min(width);
        let shift = width - bits;
        let buckets = 1usize << bits;
        let bucket = |p: u64| p.checked_shr(shift).unwrap_or(0) as usize;

        let mut index = vec![0u32; buckets + 1];
        let mut seen = 0usize;
        generate(&mut |p, _| {
            if let Some(c) = index.get_mut(bucket(p) + 1) {
                *c += 1;
            }
            seen += 1;
        });
        if seen != count {
            return Err(Error::InvalidParameter("point generator is inconsistent"));
        }
        for b in 1..index.len() {
            let prev = index.get(b - 1).copied().unwrap_or(0);
            if let Some(c) = index.get_mut(b) {
                *c += prev;
            }
        }

        let mut cursor: Vec<u32> = index
            .get(..buckets)
            .map(<[u32]>::to_vec)
            .unwrap_or_default();
        let mut points = vec![0u64; count];
        let mut owners = vec![0u32; count];
        generate(&mut |p, owner| {
            if let Some(c) = cursor.get_mut(bucket(p)) {
                let at = *c as usize;
                if let (Some(slot), Some(o)) = (points.get_mut(at), owners.get_mut(at)) {
                    *slot = p;
                    *o = owner;
                }
                *c += 1;
            }
        });
        drop(cursor);

        for b in 0..buckets {
            let (lo, hi) = (
                index.get(b).copied().unwrap_or(0) as usize,
                index.get(b + 1).copied().unwrap_or(0) as usize,
            );
            if let (Some(p), Some(o)) = (points.get_mut(lo..hi), owners.get_mut(lo..hi)) {
                sort_run(p, o, ties);
            }
        }

        let owners = if nodes <= usize::from(u16::MAX) + 1 {
            Owners::U16(owners.iter().map(|&o| o as u16).collect())
        } else {
            Owners::U32(owners.into())
        };
        Ok(Self {
            points: points.into(),
            owners,
            index: index.into(),
            shift,
        })
    }

    /// Number of points.
    pub(crate) fn len(&self) -> usize {
        self.points.len()
    }

    /// Position of the point a hash lands on.
    #[inline]
    pub(crate) fn position(&self, h: u64, rule: LookupRule) -> usize {
        let b = h.checked_shr(self.shift).unwrap_or(0) as usize;
        let lo = self.index.get(b).copied().unwrap_or(0) as usize;
        let hi = self.index.get(b + 1).copied().unwrap_or(0) as usize;
        let run = self.points.get(lo..hi).unwrap_or(&[]);
        let within = match rule {
            LookupRule::LowerBound => run.partition_point(|&p| p < h),
            LookupRule::Strict => run.partition_point(|&p| p <= h),
        };
        let at = lo + within;
        if at >= self.points.len() { 0 } else { at }
    }

    /// Start of the run a hash falls in (batch lookups touch it early).
    #[inline]
    pub(crate) fn run_start(&self, h: u64) -> usize {
        let b = h.checked_shr(self.shift).unwrap_or(0) as usize;
        self.index.get(b).copied().unwrap_or(0) as usize
    }

    /// Owner of the point at `i`.
    #[inline]
    pub(crate) fn owner(&self, i: usize) -> u32 {
        self.owners.get(i)
    }

    /// Value of the point at `i` (0 when out of range).
    #[inline]
    pub(crate) fn point(&self, i: usize) -> u64 {
        self.points.get(i).copied().unwrap_or(0)
    }

    /// Bytes held by the table (points, owners and index).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.points.len() * 8 + self.owners.len_bytes() + self.index.len() * 4
    }
}

/// `log2` of the bucket count: about [`POINTS_PER_BUCKET`] points per bucket.
fn bucket_bits(count: usize) -> u32 {
    let target = (count / POINTS_PER_BUCKET).max(1);
    usize::BITS - 1 - target.leading_zeros()
}

/// Sorts one bucket's run by (point, owner) with the owner order the tie rule asks for.
fn sort_run(points: &mut [u64], owners: &mut [u32], ties: TieBreak) {
    let key = |p: u64, o: u32| match ties {
        TieBreak::FirstNode => (p, o),
        TieBreak::LastNode => (p, u32::MAX - o),
    };
    if points.len() <= 16 {
        // Insertion sort: runs average a handful of points.
        for i in 1..points.len() {
            let (Some(&p), Some(&o)) = (points.get(i), owners.get(i)) else {
                return;
            };
            let mut j = i;
            while j > 0 {
                let (Some(&pp), Some(&po)) = (points.get(j - 1), owners.get(j - 1)) else {
                    return;
                };
                if key(pp, po) <= key(p, o) {
                    break;
                }
                points.swap(j, j - 1);
                owners.swap(j, j - 1);
                j -= 1;
            }
        }
    } else {
        let mut pairs: Vec<(u64, u32)> =
            points.iter().copied().zip(owners.iter().copied()).collect();
        pairs.sort_unstable_by_key(|&(p, o)| key(p, o));
        for ((p, o), (sp, so)) in pairs
            .into_iter()
            .zip(points.iter_mut().zip(owners.iter_mut()))
        {
            *sp = p;
            *so = o;
        }
    }
}
