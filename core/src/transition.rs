//! Gradual membership changes: from topology A to topology B with progress `p` in [0, 1].
//!
//! Each key has a cut-over point `c(key) = xxh3s(key, CUTOVER_SEED)`, a hash independent of
//! where any algorithm places the key. A key has cut over when `c(key) < p · 2^64`: it then
//! goes to its B-owner, otherwise it stays with its A-owner. So:
//!
//! - raising `p` only ever moves more keys from their A-owner to their B-owner (monotone);
//! - `p = 0` is exactly A (a rollback), `p = 1` exactly B;
//! - [`Transition::route_with_fallback`] also returns the previous owner of a key that has
//!   cut over to a different node, for dual reads while the data migrates.
//!
//! Node states are expressed with the two topologies: an UP node is in both, a JOINING node
//! is only in B (it receives keys as `p` rises), a DRAINING node only in A (it takes no new
//! keys and is still read through the fallback), and a DOWN node is in neither: removed at
//! once, its keys go straight to their owners among the remaining nodes of A (and later to
//! their B-owners), and it is never offered as a fallback.

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::{Error, Node, Result, Router, Topology, hash};

/// Seed of the cut-over hash (the ASCII bytes "kr-cutov" read little-endian).
pub const CUTOVER_SEED: u64 = u64::from_le_bytes(*b"kr-cutov");

/// A node's part in a membership change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeState {
    /// Serving before and after the change.
    Up,
    /// Being added: only in the new topology, ramped in by progress.
    Joining,
    /// Being retired gracefully: only in the old topology, read through the fallback.
    Draining,
    /// Gone now: in neither topology, so its keys move at once and nothing falls back to it.
    Down,
}

/// Where a key lives during a transition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Placement {
    /// The node that owns the key now (an index into [`Transition::node_ids`]).
    pub owner: u32,
    /// The node that owned it before, when the key has cut over to a different node: read
    /// there on a miss.
    pub previous: Option<u32>,
}

/// A change from one router to another, part way done.
#[derive(Debug, Clone, PartialEq)]
pub struct Transition {
    from: Router,
    to: Router,
    /// Every node of either side, once: B's nodes in order, then A's nodes not in B.
    ids: Box<[Box<[u8]>]>,
    from_map: Box<[u32]>,
    to_map: Box<[u32]>,
    threshold: u128,
    progress: f64,
}

impl Transition {
    /// A transition from `from` to `to` at `progress` (0 = all keys on A, 1 = all on B).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `progress` is not within [0, 1].
    pub fn new(from: Router, to: Router, progress: f64) -> Result<Self> {
        let threshold = threshold(progress)?;
        let mut ids: Vec<Box<[u8]>> = to.topology().nodes().iter().map(|n| Box::from(n.id())).collect();
        let to_map: Box<[u32]> = (0..ids.len() as u32).collect();
        let mut from_map = Vec::with_capacity(from.topology().len());
        for n in from.topology().nodes() {
            let index = match to.topology().position(n.id()) {
                Some(i) => i,
                None => {
                    ids.push(Box::from(n.id()));
                    (ids.len() - 1) as u32
                }
            };
            from_map.push(index);
        }
        Ok(Self { from, to, ids: ids.into(), from_map: from_map.into(), to_map, threshold, progress })
    }

    /// A transition built from one node list with states: A holds the UP and DRAINING nodes,
    /// B the UP and JOINING ones, each in list order, both built by `build`; DOWN nodes are in
    /// neither.
    ///
    /// # Errors
    /// What `build` returns for either side, or [`Error::InvalidParameter`] for `progress`.
    pub fn from_states<F>(nodes: &[(Node, NodeState)], build: F, progress: f64) -> Result<Self>
    where
        F: Fn(Topology) -> Result<Router>,
    {
        let side = |keep: fn(NodeState) -> bool| {
            Topology::new(nodes.iter().filter(|(_, s)| keep(*s)).map(|(n, _)| n.clone()).collect::<Vec<_>>())
        };
        let from = build(side(|s| matches!(s, NodeState::Up | NodeState::Draining))?)?;
        let to = build(side(|s| matches!(s, NodeState::Up | NodeState::Joining))?)?;
        Self::new(from, to, progress)
    }

    /// The same transition at another progress.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `progress` is not within [0, 1].
    pub fn with_progress(&self, progress: f64) -> Result<Self> {
        let mut t = self.clone();
        t.threshold = threshold(progress)?;
        t.progress = progress;
        Ok(t)
    }

    /// True when `key` has cut over at this progress.
    #[must_use]
    pub fn has_cut_over(&self, key: &[u8]) -> bool {
        u128::from(hash::xxh3_64_with_seed(key, CUTOVER_SEED)) < self.threshold
    }

    /// The owner of `key` now.
    ///
    /// # Errors
    /// A key error from either router.
    pub fn route(&self, key: &[u8]) -> Result<u32> {
        Ok(self.route_with_fallback(key)?.owner)
    }

    /// The owner now, and the previous owner when the key has moved.
    ///
    /// # Errors
    /// A key error from either router.
    pub fn route_with_fallback(&self, key: &[u8]) -> Result<Placement> {
        let a = self.from_map.get(self.from.route(key)? as usize).copied().unwrap_or(0);
        let b = self.to_map.get(self.to.route(key)? as usize).copied().unwrap_or(0);
        Ok(if self.has_cut_over(key) {
            Placement { owner: b, previous: (a != b).then_some(a) }
        } else {
            Placement { owner: a, previous: None }
        })
    }

    /// Ids of every node on either side; [`Placement`] indices point here.
    #[must_use]
    pub fn node_ids(&self) -> &[Box<[u8]>] {
        &self.ids
    }

    /// Progress in [0, 1].
    #[must_use]
    pub fn progress(&self) -> f64 {
        self.progress
    }

    /// The router before the change.
    #[must_use]
    pub fn from(&self) -> &Router {
        &self.from
    }

    /// The router after the change.
    #[must_use]
    pub fn to(&self) -> &Router {
        &self.to
    }
}

/// `p · 2^64` as an exclusive bound on cut-over points (`2^64` at `p = 1`: every key).
fn threshold(progress: f64) -> Result<u128> {
    if !(0.0..=1.0).contains(&progress) {
        return Err(Error::InvalidParameter("progress must be within [0, 1]"));
    }
    // Exact for p = 0 and p = 1; in between, one rounding of p · 2^64.
    Ok((progress * 18_446_744_073_709_551_616.0) as u128)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Ring, Topology};

    fn ring(ids: &[&str]) -> Router {
        Ring::new(Topology::new(ids.iter().map(Node::new).collect::<Vec<_>>()).unwrap(), 160).unwrap().into()
    }

    #[test]
    fn ends_are_exact_and_progress_is_monotone() {
        let a = ring(&["a", "b", "c"]);
        let b = ring(&["a", "b", "c", "d"]);
        let t0 = Transition::new(a.clone(), b.clone(), 0.0).unwrap();
        let t1 = t0.with_progress(1.0).unwrap();
        let mut moved_at = [0usize; 5];
        for i in 0..20_000u32 {
            let key = i.to_le_bytes();
            let id = |t: &Transition| t.node_ids()[t.route(&key).unwrap() as usize].clone();
            let id_of = |r: &Router| Box::<[u8]>::from(r.topology().nodes()[r.route(&key).unwrap() as usize].id());
            assert_eq!(id(&t0), id_of(&a));
            assert_eq!(id(&t1), id_of(&b));
            let mut on_b = false;
            for (step, p) in [0.0, 0.25, 0.5, 0.75, 1.0].into_iter().enumerate() {
                let t = t0.with_progress(p).unwrap();
                let now_b = id(&t) == id_of(&b) && id(&t) != id_of(&a);
                assert!(!on_b || now_b, "a key went back at p = {p}");
                if now_b && !on_b {
                    moved_at[step] += 1;
                }
                on_b |= now_b;
            }
        }
        assert!(moved_at[1] > 0 && moved_at[4] > 0, "{moved_at:?}");
    }

    #[test]
    fn states_drain_join_and_down() {
        let nodes = [
            (Node::new("a"), NodeState::Up),
            (Node::new("b"), NodeState::Draining),
            (Node::new("c"), NodeState::Down),
            (Node::new("d"), NodeState::Joining),
        ];
        let t = Transition::from_states(&nodes, |topo| Ok(Ring::new(topo, 160)?.into()), 0.0).unwrap();
        let id = |i: u32| &*t.node_ids()[i as usize];
        for i in 0..5_000u32 {
            let p = t.route_with_fallback(&i.to_le_bytes()).unwrap();
            assert!(id(p.owner) == b"a" || id(p.owner) == b"b", "at p = 0: the live nodes of A only");
            assert!(p.previous.is_none());
        }
        let done = t.with_progress(1.0).unwrap();
        for i in 0..5_000u32 {
            let p = done.route_with_fallback(&i.to_le_bytes()).unwrap();
            assert!(id(p.owner) == b"a" || id(p.owner) == b"d", "at p = 1 only a and d own keys");
            assert!(p.previous.is_none_or(|q| id(q) == b"a" || id(q) == b"b"), "no fallback to a down node");
        }
        assert!(Transition::new(ring(&["a"]), ring(&["a"]), 1.5).is_err());
        assert!(Transition::new(ring(&["a"]), ring(&["a"]), f64::NAN).is_err());
    }
}
