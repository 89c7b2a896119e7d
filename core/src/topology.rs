//! Nodes and the validated list of them that every algorithm is built from.

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::{Budget, Error, Result};

/// Longest node id accepted, in bytes.
pub const MAX_ID_LEN: usize = 4096;
/// Most nodes a topology may hold. Node indices are `u32`; this keeps tables small and sane.
pub const MAX_NODES: usize = 1 << 20;

/// One node: an opaque id (bytes, usually UTF-8 text), an integer weight and an optional zone.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Node {
    id: Box<[u8]>,
    weight: u32,
    zone: Option<Box<[u8]>>,
}

impl Node {
    /// A node with weight 1 and no zone.
    pub fn new(id: impl AsRef<[u8]>) -> Self {
        Self { id: id.as_ref().into(), weight: 1, zone: None }
    }

    /// Sets the weight (0 is allowed: such a node owns nothing).
    #[must_use]
    pub fn with_weight(mut self, weight: u32) -> Self {
        self.weight = weight;
        self
    }

    /// Sets the zone; replica lists spread over distinct zones first.
    #[must_use]
    pub fn with_zone(mut self, zone: impl AsRef<[u8]>) -> Self {
        self.zone = Some(zone.as_ref().into());
        self
    }

    /// The node's id bytes.
    #[must_use]
    pub fn id(&self) -> &[u8] {
        &self.id
    }

    /// The node's weight.
    #[must_use]
    pub fn weight(&self) -> u32 {
        self.weight
    }

    /// The node's zone, if any.
    #[must_use]
    pub fn zone(&self) -> Option<&[u8]> {
        self.zone.as_deref()
    }
}

/// A validated, ordered list of nodes. Routers answer with indices into this list.
///
/// Invariants: at least one node, at most [`MAX_NODES`], ids unique and 1..=[`MAX_ID_LEN`]
/// bytes long, total weight above zero.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topology {
    nodes: Box<[Node]>,
    total_weight: u64,
    /// Per node: a dense zone number, or `None` for a node without a zone.
    zones: Box<[Option<u32>]>,
    /// Distinct zones and nodes without a zone (every replica lookup asks).
    census: (u32, u32),
    /// Nodes with a positive weight.
    eligible: u32,
    /// What building a router over it may cost (checked by every constructor).
    budget: Budget,
}

impl Topology {
    /// Validates `nodes` into a topology.
    ///
    /// # Errors
    /// [`Error::EmptyTopology`], [`Error::TooManyNodes`], [`Error::InvalidNodeId`],
    /// [`Error::DuplicateNodeId`] or [`Error::ZeroTotalWeight`].
    pub fn new(nodes: impl Into<Vec<Node>>) -> Result<Self> {
        let nodes: Vec<Node> = nodes.into();
        if nodes.is_empty() {
            return Err(Error::EmptyTopology);
        }
        if nodes.len() > MAX_NODES {
            return Err(Error::TooManyNodes);
        }
        for (i, n) in nodes.iter().enumerate() {
            if n.id.is_empty() || n.id.len() > MAX_ID_LEN {
                return Err(Error::InvalidNodeId { index: i as u32 });
            }
        }
        let mut order: Vec<u32> = (0..nodes.len() as u32).collect();
        let id_of = |i: &u32| nodes.get(*i as usize).map(Node::id);
        order.sort_unstable_by(|a, b| id_of(a).cmp(&id_of(b)).then(a.cmp(b)));
        for pair in order.windows(2) {
            if let [a, b] = pair
                && id_of(a) == id_of(b)
            {
                return Err(Error::DuplicateNodeId { index: *a.max(b) });
            }
        }
        let total_weight = nodes.iter().map(|n| u64::from(n.weight)).sum();
        if total_weight == 0 {
            return Err(Error::ZeroTotalWeight);
        }
        let zones = number_zones(&nodes);
        let census =
            (zones.iter().flatten().max().map_or(0, |&z| z + 1), zones.iter().filter(|z| z.is_none()).count() as u32);
        let eligible = nodes.iter().filter(|n| n.weight > 0).count() as u32;
        Ok(Self { nodes: nodes.into(), total_weight, zones, census, eligible, budget: Budget::MAX })
    }

    /// `n` nodes named `prefix0`, `prefix1`, … with weight 1 (handy for tests and demos).
    ///
    /// # Errors
    /// As [`Topology::new`].
    pub fn uniform(prefix: &str, n: usize) -> Result<Self> {
        let mut nodes = Vec::with_capacity(n);
        for i in 0..n {
            nodes.push(Node::new(alloc::format!("{prefix}{i}")));
        }
        Self::new(nodes)
    }

    /// The same topology with another work budget for the routers built over it.
    #[must_use]
    pub fn with_budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// The work budget of routers built over this topology ([`Budget::MAX`] unless set).
    #[must_use]
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// The nodes, in order.
    #[must_use]
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Number of nodes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Always false: a topology has at least one node.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Sum of the weights.
    #[must_use]
    pub fn total_weight(&self) -> u64 {
        self.total_weight
    }

    /// The node at `index`.
    #[must_use]
    pub fn node(&self, index: u32) -> Option<&Node> {
        self.nodes.get(index as usize)
    }

    /// Index of the node with this id.
    #[must_use]
    pub fn position(&self, id: &[u8]) -> Option<u32> {
        self.nodes.iter().position(|n| n.id() == id).map(|i| i as u32)
    }

    /// True when every node has the same weight.
    #[must_use]
    pub fn is_uniform(&self) -> bool {
        let first = self.nodes.first().map(Node::weight);
        self.nodes.iter().all(|n| Some(n.weight) == first)
    }

    /// Number of distinct zones, and of nodes without a zone.
    pub(crate) fn zone_census(&self) -> (u32, u32) {
        self.census
    }

    /// The dense zone number of a node (`None` when it has no zone).
    pub(crate) fn zone_of(&self, index: u32) -> Option<u32> {
        self.zones.get(index as usize).copied().flatten()
    }

    /// Nodes with a positive weight: the ones that can own keys.
    #[must_use]
    pub fn eligible(&self) -> usize {
        self.eligible as usize
    }
}

fn number_zones(nodes: &[Node]) -> Box<[Option<u32>]> {
    // Sort-based so that a topology with one zone per node stays O(n log n).
    let mut zoned: Vec<(&[u8], usize)> =
        nodes.iter().enumerate().filter_map(|(i, n)| n.zone().map(|z| (z, i))).collect();
    zoned.sort_unstable();
    let mut out: Vec<Option<u32>> = alloc::vec![None; nodes.len()];
    let mut number = 0u32;
    let mut prev: Option<&[u8]> = None;
    for (zone, i) in zoned {
        if prev.is_some_and(|p| p != zone) {
            number += 1;
        }
        prev = Some(zone);
        if let Some(slot) = out.get_mut(i) {
            *slot = Some(number);
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_errors() {
        assert_eq!(Topology::new(Vec::new()), Err(Error::EmptyTopology));
        let dup = [Node::new("a"), Node::new("b"), Node::new("a")];
        assert_eq!(Topology::new(dup.to_vec()), Err(Error::DuplicateNodeId { index: 2 }));
        let zero = [Node::new("a").with_weight(0), Node::new("b").with_weight(0)];
        assert_eq!(Topology::new(zero.to_vec()), Err(Error::ZeroTotalWeight));
        assert_eq!(Topology::new([Node::new("")].to_vec()), Err(Error::InvalidNodeId { index: 0 }));
    }

    #[test]
    fn zones_are_numbered_densely() {
        let t = Topology::new(
            [
                Node::new("a").with_zone("x"),
                Node::new("b"),
                Node::new("c").with_zone("y"),
                Node::new("d").with_zone("x"),
            ]
            .to_vec(),
        )
        .unwrap();
        assert_eq!([t.zone_of(0), t.zone_of(1), t.zone_of(2), t.zone_of(3)], [Some(0), None, Some(1), Some(0)]);
    }
}
