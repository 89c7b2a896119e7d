//! Fixed slots: key → slot → node.
//!
//! The key space is cut into a fixed number of slots and a table says which node owns each
//! slot. Membership changes move whole slots, and [`Slots::rebalance`] moves the fewest that
//! reach the new even share. Two slot functions:
//!
//! - [`SlotFn::Redis`]: Redis Cluster's `crc16_xmodem(tag or key) & 16383`, where the tag is
//!   the bytes between the first `{` and the first `}` after it, when that span is non-empty;
//! - [`SlotFn::Hash`]: `(xxh3_64(key) · S) >> 64` over `S` slots.

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;

use crate::{Error, Result, Topology, hash, replicas};

/// Redis Cluster's slot count.
pub const REDIS_SLOTS: u32 = 16_384;
/// Most slots a table may have.
pub const MAX_SLOTS: u32 = 1 << 24;

/// How a key becomes a slot number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SlotFn {
    /// Redis Cluster: CRC16/XMODEM of the hash tag (or whole key), masked to 14 bits.
    Redis,
    /// XXH3 of the key reduced to `count` slots by multiply-shift.
    Hash {
        /// Number of slots.
        count: u32,
    },
}

impl SlotFn {
    /// Number of slots this function produces.
    #[must_use]
    pub fn count(self) -> u32 {
        match self {
            Self::Redis => REDIS_SLOTS,
            Self::Hash { count } => count,
        }
    }

    /// The slot of `key`.
    #[inline]
    #[must_use]
    pub fn slot(self, key: &[u8]) -> u32 {
        match self {
            Self::Redis => redis_slot(key),
            Self::Hash { count } => ((u128::from(hash::xxh3_64(key)) * u128::from(count)) >> 64) as u32,
        }
    }
}

/// Redis Cluster's key slot, with its hash-tag rule.
#[must_use]
pub fn redis_slot(key: &[u8]) -> u32 {
    u32::from(hash::crc16_xmodem(redis_hash_tag(key))) & (REDIS_SLOTS - 1)
}

/// The bytes Redis hashes for `key`: the non-empty span between the first `{` and the next
/// `}`, or the whole key.
#[must_use]
pub fn redis_hash_tag(key: &[u8]) -> &[u8] {
    let Some(open) = key.iter().position(|&b| b == b'{') else {
        return key;
    };
    let rest = key.get(open + 1..).unwrap_or(&[]);
    match rest.iter().position(|&b| b == b'}') {
        Some(close) if close > 0 => rest.get(..close).unwrap_or(key),
        _ => key,
    }
}

/// A slot table over a topology.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slots {
    topology: Topology,
    slot_fn: SlotFn,
    owners: Box<[u32]>,
    reachable: u32,
    /// The table was drawn from the weights ([`Slots::new`], [`Slots::rebalance`]), not given.
    by_weight: bool,
}

impl Slots {
    /// Slots assigned evenly by weight: node *i* gets its largest-remainder share of the slots,
    /// as one contiguous range, in node order.
    ///
    /// # Errors
    /// [`Error::TableSizeOutOfRange`] for 0 or more than [`MAX_SLOTS`] slots.
    pub fn new(topology: Topology, slot_fn: SlotFn) -> Result<Self> {
        let count = checked_count(slot_fn)?;
        topology.budget().check_table(u64::from(count))?;
        let quotas = quotas(&topology, count);
        let mut owners = crate::budget::try_with_capacity(count as usize)?;
        for (i, &q) in quotas.iter().enumerate() {
            owners.extend(core::iter::repeat_n(i as u32, q as usize));
        }
        Ok(Self { by_weight: true, ..Self::from_owners(topology, slot_fn, owners)? })
    }

    /// A slot table given explicitly: `owners[s]` is the node index owning slot `s`
    /// (Redis Cluster's `CLUSTER SLOTS`, or a table saved from an earlier rebalance).
    ///
    /// # Errors
    /// [`Error::TableSizeOutOfRange`] when the table length differs from the slot count;
    /// [`Error::InvalidParameter`] when an owner is not a node of the topology.
    pub fn from_owners(topology: Topology, slot_fn: SlotFn, owners: Vec<u32>) -> Result<Self> {
        let count = checked_count(slot_fn)?;
        if owners.len() != count as usize {
            return Err(Error::TableSizeOutOfRange);
        }
        let mut has = vec![false; topology.len()];
        for &o in &owners {
            *has.get_mut(o as usize).ok_or(Error::InvalidParameter("a slot owner is not a node"))? = true;
        }
        let reachable = has.iter().filter(|&&h| h).count() as u32;
        Ok(Self { topology, slot_fn, owners: owners.into(), reachable, by_weight: false })
    }

    /// A slot table given as inclusive `[first, last]` ranges per node (`ranges[i]` for node
    /// `i`), as Redis Cluster's `CLUSTER SLOTS` lists them: together the ranges must give every
    /// slot exactly one owner. The slot count is checked before anything is allocated.
    ///
    /// # Errors
    /// [`Error::TableSizeOutOfRange`] for 0 or more than [`MAX_SLOTS`] slots;
    /// [`Error::InvalidParameter`] when `ranges` does not have one entry per node, a range is
    /// reversed or past the last slot, or a slot has no owner or two.
    pub fn from_ranges<R: AsRef<[(u32, u32)]>>(topology: Topology, slot_fn: SlotFn, ranges: &[R]) -> Result<Self> {
        let count = checked_count(slot_fn)?;
        topology.budget().check_table(u64::from(count))?;
        if ranges.len() != topology.len() {
            return Err(Error::InvalidParameter("slot ranges must be given for every node"));
        }
        const FREE: u32 = u32::MAX;
        let mut owners = crate::budget::try_vec(count as usize, FREE)?;
        for (i, node_ranges) in (0u32..).zip(ranges) {
            for &(first, last) in node_ranges.as_ref() {
                let range = owners
                    .get_mut(first as usize..=last as usize)
                    .filter(|_| first <= last)
                    .ok_or(Error::InvalidParameter("a slot range is reversed or past the last slot"))?;
                for owner in range {
                    if *owner != FREE {
                        return Err(Error::InvalidParameter("a slot is given to two nodes"));
                    }
                    *owner = i;
                }
            }
        }
        if owners.contains(&FREE) {
            return Err(Error::InvalidParameter("a slot has no owner"));
        }
        Self::from_owners(topology, slot_fn, owners)
    }

    /// The table for `to`, moving as few slots as possible from this one.
    ///
    /// Nodes are matched by id. Each node of `to` gets a target of the floor or the ceiling of
    /// its exact share `S·w/Σw`, chosen to keep the slots it already holds where possible
    /// (see `conformance/SPEC.md`, slots-v1): so adding a node takes slots only from others and gives them
    /// only to it, removing one gives its slots only to the rest, and no surviving node swaps
    /// slots with another. A surviving node keeps its lowest-numbered slots up to its target;
    /// slots of departed nodes and surplus slots go, in slot order, to nodes below target, in
    /// node order. The number of moved slots is the minimum any table with those targets needs.
    ///
    /// # Errors
    /// As [`Slots::from_owners`].
    pub fn rebalance(&self, to: Topology) -> Result<Self> {
        let count = self.owners.len() as u32;
        let map: Vec<Option<u32>> = self.topology.nodes().iter().map(|n| to.position(n.id())).collect();
        let mut held = vec![0u32; to.len()];
        for &old in self.owners.iter() {
            if let Some(Some(new)) = map.get(old as usize)
                && let Some(h) = held.get_mut(*new as usize)
            {
                *h += 1;
            }
        }
        let quota = rebalance_targets(&to, count, &held);
        let mut kept = vec![0u32; to.len()];
        let mut owners: Vec<u32> = vec![u32::MAX; count as usize];
        for (slot, &old) in owners.iter_mut().zip(self.owners.iter()) {
            if let Some(Some(new)) = map.get(old as usize)
                && let (Some(k), Some(&q)) = (kept.get_mut(*new as usize), quota.get(*new as usize))
                && *k < q
            {
                *k += 1;
                *slot = *new;
            }
        }
        let mut receiver = 0usize;
        for slot in owners.iter_mut().filter(|s| **s == u32::MAX) {
            while kept.get(receiver).zip(quota.get(receiver)).is_some_and(|(k, q)| k >= q) {
                receiver += 1;
            }
            let Some(k) = kept.get_mut(receiver) else {
                break;
            };
            *k += 1;
            *slot = receiver as u32;
        }
        Ok(Self { by_weight: true, ..Self::from_owners(to, self.slot_fn, owners)? })
    }

    /// Whether the table was drawn from the weights ([`Slots::new`], [`Slots::rebalance`]);
    /// false for a table given explicitly, whose owners ignore the weights.
    #[must_use]
    pub fn by_weight(&self) -> bool {
        self.by_weight
    }

    /// The owner of `key`.
    #[inline]
    #[must_use]
    pub fn route(&self, key: &[u8]) -> u32 {
        self.owner_of_slot(self.slot_fn.slot(key))
    }

    /// The owner of slot `s` (node 0 when out of range).
    #[inline]
    #[must_use]
    pub fn owner_of_slot(&self, s: u32) -> u32 {
        self.owners.get(s as usize).copied().unwrap_or(0)
    }

    /// `out.len()` distinct nodes: the slot's owner, then the owners of the following slots
    /// (wrapping), distinct zones first.
    ///
    /// # Errors
    /// [`Error::ReplicasExceedNodes`] when fewer nodes own slots.
    pub fn replicas(&self, key: &[u8], out: &mut [u32]) -> Result<()> {
        let start = self.slot_fn.slot(key) as usize;
        let len = self.owners.len();
        replicas::select(&self.topology, self.reachable as usize, out, || {
            (0..len).map(move |i| self.owner_of_slot(((start + i) % len) as u32))
        })
    }

    /// The slot function.
    #[must_use]
    pub fn slot_fn(&self) -> SlotFn {
        self.slot_fn
    }

    /// The owner of every slot.
    #[must_use]
    pub fn owners(&self) -> &[u32] {
        &self.owners
    }

    /// The topology.
    #[must_use]
    pub fn topology(&self) -> &Topology {
        &self.topology
    }
}

fn checked_count(slot_fn: SlotFn) -> Result<u32> {
    let count = slot_fn.count();
    if count == 0 || count > MAX_SLOTS {
        return Err(Error::TableSizeOutOfRange);
    }
    Ok(count)
}

/// Largest-remainder shares of `count` slots by weight; ties go to the earlier node.
fn quotas(topology: &Topology, count: u32) -> Vec<u32> {
    let total = u128::from(topology.total_weight());
    let mut shares: Vec<u32> = Vec::with_capacity(topology.len());
    let mut remainders: Vec<(u128, u32)> = Vec::with_capacity(topology.len());
    for (i, n) in topology.nodes().iter().enumerate() {
        let exact = u128::from(count) * u128::from(n.weight());
        shares.push((exact / total) as u32);
        remainders.push((exact % total, i as u32));
    }
    let given: u32 = shares.iter().sum();
    remainders.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for &(_, i) in remainders.iter().take(count.saturating_sub(given) as usize) {
        if let Some(s) = shares.get_mut(i as usize) {
            *s += 1;
        }
    }
    shares
}

/// Per node of `topology`, a slot target that is the floor or the ceiling of its exact share
/// and sums to `count`, staying as close as possible to `held` (slots each node holds now).
///
/// Start from `held` clamped into [floor, ceiling]. If the targets then sum above `count`,
/// lower nodes at their ceiling, first those that would gain slots (that only shrinks their
/// gain), then those that would give some up; below `count`, raise nodes at their floor,
/// first those that would lose slots. Within a group, smaller (for lowering) or larger (for
/// raising) fractional remainders go first, then node order. Every adjustment that costs no
/// extra move is made before any that does.
fn rebalance_targets(topology: &Topology, count: u32, held: &[u32]) -> Vec<u32> {
    let total = u128::from(topology.total_weight());
    let mut floor = Vec::with_capacity(topology.len());
    let mut target = Vec::with_capacity(topology.len());
    let mut rem = Vec::with_capacity(topology.len());
    for (i, n) in topology.nodes().iter().enumerate() {
        let exact = u128::from(count) * u128::from(n.weight());
        let (f, r) = ((exact / total) as u32, exact % total);
        let c = f + u32::from(r > 0);
        floor.push(f);
        rem.push(r);
        target.push(held.get(i).copied().unwrap_or(0).clamp(f, c));
    }
    let sum: u64 = target.iter().map(|&t| u64::from(t)).sum();
    let held_of = |i: usize| held.get(i).copied().unwrap_or(0);
    let mut order: Vec<usize> = (0..target.len()).collect();
    if sum > u64::from(count) {
        // Candidates: at the ceiling, above the floor.
        order.retain(|&i| target.get(i) > floor.get(i));
        order.sort_by_key(|&i| (held_of(i) >= target.get(i).copied().unwrap_or(0), rem.get(i).copied(), i));
        for &i in order.iter().take((sum - u64::from(count)) as usize) {
            if let Some(t) = target.get_mut(i) {
                *t -= 1;
            }
        }
    } else if sum < u64::from(count) {
        // Candidates: at the floor, with a fractional share.
        order.retain(|&i| target.get(i) == floor.get(i) && rem.get(i).is_some_and(|&r| r > 0));
        order.sort_by_key(|&i| {
            (held_of(i) <= target.get(i).copied().unwrap_or(0), core::cmp::Reverse(rem.get(i).copied()), i)
        });
        for &i in order.iter().take((u64::from(count) - sum) as usize) {
            if let Some(t) = target.get_mut(i) {
                *t += 1;
            }
        }
    }
    target
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redis_keyslot_vectors() {
        // redis.io CLUSTER KEYSLOT examples and CRC-derived values.
        assert_eq!(redis_slot(b"somekey"), 11058);
        assert_eq!(redis_slot(b"foo{hash_tag}"), 2515);
        assert_eq!(redis_slot(b"bar{hash_tag}"), 2515);
        assert_eq!(redis_slot(b"{user1}.following"), 8106);
        assert_eq!(redis_slot(b"foo"), 12182);
        assert_eq!(redis_slot(b"123456789"), 12739);
        assert_eq!(redis_slot(b"{user1000}.following"), redis_slot(b"{user1000}.followers"));
        assert_eq!(redis_slot(b"foo{}{bar}"), 8363);
        assert_eq!(redis_slot(b"foo{{bar}}zap"), 4015);
        assert_eq!(redis_slot(b"foo{bar}{zap}"), 5061);
        assert_eq!(redis_hash_tag(b"foo{}{bar}"), b"foo{}{bar}");
        assert_eq!(redis_hash_tag(b"foo{{bar}}zap"), b"{bar");
        assert_eq!(redis_hash_tag(b"foo{bar}{zap}"), b"bar");
        assert_eq!(redis_slot(b""), 0);
    }

    #[test]
    fn quotas_sum_to_count() {
        let t = Topology::new(
            [
                crate::Node::new("a").with_weight(1),
                crate::Node::new("b").with_weight(1),
                crate::Node::new("c").with_weight(1),
            ]
            .to_vec(),
        )
        .unwrap();
        assert_eq!(quotas(&t, 1024), [342, 341, 341]);
    }
}
