//! Redis Cluster key slots, and the npm `cluster-key-slot` package's variant of them.

use alloc::vec::Vec;

use super::PresetRouter;
use crate::{Node, REDIS_SLOTS, Result, Router, SlotFn, Slots, Topology, hash, redis_slot};

/// Which bytes of a key are hashed into its slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum HashTagRule {
    /// Redis Cluster (`keyHashSlot`, redis-server 7): the bytes between the first `{` and the
    /// first `}` after it, when there are some; otherwise the whole key. `foo{}{bar}` hashes
    /// the whole key (slot 8363).
    #[default]
    Redis,
    /// npm `cluster-key-slot` 1.1 (`generate`, used by ioredis): as Redis, except that a `}`
    /// directly after the first `{` is skipped instead of ending the tag, and the tag then
    /// runs to the next `}` and may be empty. So `foo{}{bar}` hashes `{bar` (slot 4015, where
    /// Redis says 8363) and `{}}` hashes nothing (slot 0).
    ClusterKeySlot,
}

impl HashTagRule {
    /// The bytes whose CRC16 gives `key`'s slot.
    #[must_use]
    pub fn tag(self, key: &[u8]) -> &[u8] {
        match self {
            Self::Redis => crate::redis_hash_tag(key),
            Self::ClusterKeySlot => cluster_key_slot_tag(key),
        }
    }

    /// `key`'s slot: `crc16_xmodem(tag) & 16383`.
    #[must_use]
    pub fn slot(self, key: &[u8]) -> u32 {
        match self {
            Self::Redis => redis_slot(key),
            Self::ClusterKeySlot => u32::from(hash::crc16_xmodem(self.tag(key))) & (REDIS_SLOTS - 1),
        }
    }
}

fn cluster_key_slot_tag(key: &[u8]) -> &[u8] {
    let Some(open) = key.iter().position(|&b| b == b'{') else { return key };
    let mut start = open + 1;
    if key.get(start) == Some(&b'}') {
        start += 1;
    }
    let rest = key.get(start..).unwrap_or(&[]);
    match rest.iter().position(|&b| b == b'}') {
        Some(end) => rest.get(..end).unwrap_or(key),
        None => key,
    }
}

/// One cluster master and the slots it serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RedisNode<'a> {
    /// The node id routes report.
    pub id: &'a str,
    /// Inclusive `(first, last)` slot ranges, as `CLUSTER SLOTS` lists them.
    pub slots: &'a [(u16, u16)],
}

/// Redis Cluster options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RedisClusterOptions {
    /// The hash-tag rule: Redis's own, or a client library's variant.
    pub tag_rule: HashTagRule,
}

/// A Redis Cluster slot map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedisCluster {
    slots: Slots,
    tag_rule: HashTagRule,
}

impl RedisCluster {
    /// The master serving `key`'s slot. Keys are raw bytes; every key has a slot.
    #[must_use]
    pub fn route(&self, key: &[u8]) -> u32 {
        self.slots.owner_of_slot(self.tag_rule.slot(key))
    }

    /// The slot of `key` under this map's tag rule.
    #[must_use]
    pub fn slot(&self, key: &[u8]) -> u32 {
        self.tag_rule.slot(key)
    }

    /// The hash-tag rule in force.
    #[must_use]
    pub fn tag_rule(&self) -> HashTagRule {
        self.tag_rule
    }

    /// The slot table.
    #[must_use]
    pub fn slots(&self) -> &Slots {
        &self.slots
    }

    /// The topology (one node per master).
    #[must_use]
    pub fn topology(&self) -> &Topology {
        self.slots.topology()
    }
}

/// Redis Cluster routing: a key's slot (`CRC16/XMODEM(tag) & 16383`) and the master serving it.
///
/// The cluster's replicas are other servers of the owner's shard, which a slot map does not
/// list, so [`Router::replicas`] gives [`crate::Error::ReplicasUnsupported`].
///
/// # Errors
/// [`crate::Error::InvalidParameter`] when a range is reversed or past slot 16383, or when the ranges
/// do not give every slot exactly one master (a cluster with uncovered slots refuses those
/// keys); as [`Topology::new`].
pub fn redis_cluster(nodes: &[RedisNode<'_>], options: RedisClusterOptions) -> Result<Router> {
    let topology = Topology::new(nodes.iter().map(|n| Node::new(n.id)).collect::<Vec<_>>())?;
    let ranges: Vec<Vec<(u32, u32)>> = nodes
        .iter()
        .map(|n| n.slots.iter().map(|&(first, last)| (u32::from(first), u32::from(last))).collect())
        .collect();
    let slots = Slots::from_ranges(topology, SlotFn::Redis, &ranges)?;
    Ok(Router::Preset(PresetRouter::RedisCluster(RedisCluster { slots, tag_rule: options.tag_rule })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    #[test]
    fn tag_rules() {
        let redis = HashTagRule::Redis;
        let npm = HashTagRule::ClusterKeySlot;
        for (key, both) in
            [("somekey", 11058), ("foo{hash_tag}", 2515), ("foo{{bar}}zap", 4015), ("foo{bar}{zap}", 5061), ("", 0)]
        {
            assert_eq!(redis.slot(key.as_bytes()), both, "{key}");
            assert_eq!(npm.slot(key.as_bytes()), both, "{key}");
        }
        assert_eq!(redis.slot(b"foo{}{bar}"), 8363);
        assert_eq!(npm.slot(b"foo{}{bar}"), 4015);
        assert_eq!(npm.tag(b"{}}"), b"");
        assert_eq!(npm.tag(b"a{}"), b"a{}");
        assert_eq!(npm.tag(b"x{}y"), b"x{}y");
        assert_eq!(npm.tag(b"{}{a}"), b"{a");
    }

    #[test]
    fn slot_map_is_checked() {
        let full = [RedisNode { id: "a", slots: &[(0, 8191)] }, RedisNode { id: "b", slots: &[(8192, 16383)] }];
        let r = redis_cluster(&full, RedisClusterOptions::default()).unwrap();
        assert_eq!(r.route(b"foo").unwrap(), 1); // slot 12182
        assert_eq!(r.replicas(b"foo", &mut [0]), Err(Error::ReplicasUnsupported));
        let gap = [RedisNode { id: "a", slots: &[(0, 8190)] }, RedisNode { id: "b", slots: &[(8192, 16383)] }];
        assert!(redis_cluster(&gap, RedisClusterOptions::default()).is_err());
        let overlap = [RedisNode { id: "a", slots: &[(0, 8192)] }, RedisNode { id: "b", slots: &[(8192, 16383)] }];
        assert!(redis_cluster(&overlap, RedisClusterOptions::default()).is_err());
        let past = [RedisNode { id: "a", slots: &[(0, 16384)] }];
        assert!(redis_cluster(&past, RedisClusterOptions::default()).is_err());
    }
}
