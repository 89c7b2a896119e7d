//! [`BoundedLoad`]: consistent hashing with bounded loads (Mirrokni, Thorup and Zadimoghaddam,
//! SODA 2018; HAProxy's `hash-balance-factor`, Envoy's `hash_balance_factor`).
//!
//! A router says where a key belongs; under skew (a few very hot keys, or many keys that happen
//! to share a node) that node takes more than its share. `BoundedLoad` wraps a router that
//! defines a preference order for every key (its replica order: the ring walk for rings, the
//! ranking for rendezvous, …) and keeps a live count of the requests each node is serving. A key
//! goes to the first node in its order whose load is below its capacity,
//!
//! ```text
//! capacity(node) = ⌈ c · (total + 1) · weight(node) / total weight ⌉
//! ```
//!
//! where `total` is the number of requests in flight and `c ≥ 1` the balance factor (1.25 by
//! default). With equal weights that is ⌈c·(total+1)/n⌉, the paper's bound. Capacities add up
//! to at least `c·(total + 1) > total`, so some node in the order always has room.
//!
//! The promise: **a request is placed on a node only while that node's load, the request
//! included, is at most its capacity for the new total**, so no node serves more than `c` times
//! its weighted share of the requests in flight, rounded up, at the moment it takes one. Loads
//! fall as requests finish ([`Lease`] releases its slot when dropped); a node that finished
//! fewer requests than others may then be above the smaller bound until its own requests
//! finish, and is passed over meanwhile. A key is served at home (its router's owner) whenever
//! its owner has room, so keys return home as load falls.
//!
//! Between threads the counts are atomic: a node takes a request only while its count is below
//! its capacity for the total the acquisition read, a moment before placing it; requests that
//! start or finish in that moment make the bound hold for that total rather than the exact one.
//! An acquisition that finds every node full (others filled them meanwhile) reads the total
//! again, a few times, before it fails.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::borrow::Borrow;
use core::sync::atomic::{AtomicU32, Ordering};

use crate::{Error, Result, Router};

/// The default balance factor `c`.
pub const DEFAULT_BALANCE_FACTOR: f64 = 1.25;

/// The largest balance factor (a larger one never diverts a key on any realistic load).
pub const MAX_BALANCE_FACTOR: f64 = 1000.0;

/// `c` is kept as thousandths, so capacities are computed in integers, the same everywhere.
const SCALE: u64 = 1000;

/// Candidates read from the router at first: the owner and a few more, on the stack. A key
/// whose first candidates are all full reads the whole order.
const FIRST_CANDIDATES: usize = 4;

/// Passes over a key's order before an acquisition racing with other threads gives up.
const RETRIES: usize = 8;

/// Where [`BoundedLoad::pick`] would place a key now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pick {
    /// The node, as an index into the router's topology.
    pub node: u32,
    /// Its position in the key's preference order: 0 is the key's home (its owner).
    pub rank: u32,
}

impl Pick {
    /// Whether the key is served by its owner.
    #[must_use]
    pub fn is_home(&self) -> bool {
        self.rank == 0
    }
}

/// A router with bounded loads: see the [module documentation](self).
///
/// `R` is how it holds the router: the [`Router`] itself, a reference, or a shared pointer
/// (`Arc<Router>`, or any type that borrows as one), so wrapping a router copies no table.
#[derive(Debug)]
pub struct BoundedLoad<R = Router> {
    router: R,
    loads: Box<[AtomicU32]>,
    total: AtomicU32,
    /// `c` in thousandths.
    factor: u64,
    /// Nodes with weight, the length of a full preference order.
    eligible: usize,
    /// Each node's weight, packed beside the loads (the topology's nodes are larger).
    weights: Box<[u32]>,
    /// `SCALE` × the total weight: capacity's denominator.
    denominator: u64,
}

impl<R: Borrow<Router>> BoundedLoad<R> {
    /// Wraps `router` with the balance factor `c` (at least 1, at most
    /// [`MAX_BALANCE_FACTOR`], kept to three decimals).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a factor out of range; [`Error::ReplicasUnsupported`] for
    /// a router with no preference order past the owner (jump, modulo, and the presets whose
    /// peer defines none); [`Error::OutOfMemory`] when the load counters cannot be allocated.
    pub fn new(router: R, c: f64) -> Result<Self> {
        if !(1.0..=MAX_BALANCE_FACTOR).contains(&c) {
            return Err(Error::InvalidParameter("the balance factor must be between 1 and 1000"));
        }
        let core: &Router = router.borrow();
        // The one-node order every router that has one can give.
        core.replicas(b"", &mut [0u32; 1])?;
        let topology = core.topology();
        let n = topology.len();
        let mut loads = crate::budget::try_with_capacity(n)?;
        loads.extend((0..n).map(|_| AtomicU32::new(0)));
        let mut weights = crate::budget::try_with_capacity(n)?;
        weights.extend(topology.nodes().iter().map(crate::Node::weight));
        Ok(Self {
            eligible: topology.eligible(),
            weights: weights.into_boxed_slice(),
            denominator: SCALE * topology.total_weight().max(1),
            router,
            loads: loads.into_boxed_slice(),
            total: AtomicU32::new(0),
            // c ≥ 1 is finite and at most 1000, so this is 1000..=1_000_000.
            factor: (c * SCALE as f64 + 0.5) as u64,
        })
    }

    /// The router it wraps.
    #[must_use]
    pub fn router(&self) -> &Router {
        self.router.borrow()
    }

    /// The balance factor `c`, as kept (three decimals).
    #[must_use]
    pub fn factor(&self) -> f64 {
        self.factor as f64 / SCALE as f64
    }

    /// Requests in flight over all nodes.
    #[must_use]
    pub fn total(&self) -> u32 {
        self.total.load(Ordering::Acquire)
    }

    /// Requests in flight on `node` (0 for an index past the last node).
    #[must_use]
    pub fn load(&self, node: u32) -> u32 {
        self.loads.get(node as usize).map_or(0, |l| l.load(Ordering::Acquire))
    }

    /// The most requests `node` may serve when there are `total` in flight, the next one
    /// included: ⌈c · total · weight / total weight⌉ (0 for a node without weight).
    #[must_use]
    pub fn capacity(&self, node: u32, total: u32) -> u32 {
        let weight = self.weights.get(node as usize).copied().unwrap_or(0);
        let numerator = u128::from(self.factor) * u128::from(total) * u128::from(weight);
        u32::try_from(numerator.div_ceil(u128::from(self.denominator))).unwrap_or(u32::MAX)
    }

    /// Whether `node` with `load` requests has room for one more when there are `total` in
    /// flight, the next one included: `load < capacity(node, total)`, without a division
    /// (`load < ⌈a / b⌉` exactly when `load · b < a`).
    #[inline]
    fn has_room(&self, node: u32, load: u32, total: u32) -> bool {
        let weight = self.weights.get(node as usize).copied().unwrap_or(0);
        u128::from(load) * u128::from(self.denominator)
            < u128::from(self.factor * u64::from(total)) * u128::from(weight)
    }

    /// Where `key` would be placed now, without taking a slot.
    ///
    /// # Errors
    /// As [`Router::replicas`] for the key.
    pub fn pick(&self, key: &[u8]) -> Result<Pick> {
        let next = self.total().saturating_add(1);
        self.walk(key, |node| self.has_room(node, self.load(node), next))
    }

    /// Places `key` and takes a slot on its node until the [`Lease`] is dropped.
    ///
    /// # Errors
    /// As [`BoundedLoad::pick`]; [`Error::InvalidParameter`] when `u32::MAX` requests are in
    /// flight, or when other threads kept every node at capacity through several passes.
    pub fn acquire(&self, key: &[u8]) -> Result<Lease<'_, R>> {
        let pick = self.acquire_raw(key)?;
        Ok(Lease { bounded: self, pick })
    }

    /// As [`BoundedLoad::acquire`], for callers that release explicitly (the C ABI): every
    /// successful call must be matched by one [`BoundedLoad::release`] of the node it returns.
    ///
    /// # Errors
    /// As [`BoundedLoad::acquire`].
    pub fn acquire_raw(&self, key: &[u8]) -> Result<Pick> {
        // The total first, so that a concurrent reader never sees more load on the nodes than
        // in the total.
        let before = self
            .total
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| t.checked_add(1))
            .map_err(|_| Error::InvalidParameter("too many requests in flight"))?;
        let mut total = before + 1;
        let mut placed = Err(Error::InvalidParameter("every node is at capacity"));
        // One pass suffices alone. Between threads, others may fill nodes up to capacities of a
        // larger total than this pass read; a pass that finds no room reads the total again.
        for _ in 0..RETRIES {
            placed = self.walk(key, |node| {
                self.loads.get(node as usize).is_some_and(|l| {
                    let room = |x: u32| self.has_room(node, x, total).then_some(x + 1);
                    l.fetch_update(Ordering::AcqRel, Ordering::Acquire, room).is_ok()
                })
            });
            if !matches!(placed, Err(Error::InvalidParameter(_))) {
                break;
            }
            total = self.total();
        }
        if placed.is_err() {
            self.total.fetch_sub(1, Ordering::AcqRel);
        }
        placed
    }

    /// Gives back a slot taken by [`BoundedLoad::acquire_raw`] on `node`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `node` holds no slot (nothing changes).
    pub fn release(&self, node: u32) -> Result<()> {
        let load = self.loads.get(node as usize).ok_or(Error::InvalidParameter("no such node"))?;
        load.fetch_update(Ordering::AcqRel, Ordering::Acquire, |x| x.checked_sub(1))
            .map_err(|_| Error::InvalidParameter("the node holds no slot to release"))?;
        self.total.fetch_sub(1, Ordering::AcqRel);
        Ok(())
    }

    /// The first node of `key`'s preference order that `take` accepts.
    fn walk(&self, key: &[u8], mut take: impl FnMut(u32) -> bool) -> Result<Pick> {
        // The order starts with the owner (every router's replica rule): routing alone serves
        // the common case, a key whose home has room.
        let home = self.router().route(key)?;
        if take(home) {
            return Ok(Pick { node: home, rank: 0 });
        }
        let first = self.eligible.min(FIRST_CANDIDATES);
        let mut head = [0u32; FIRST_CANDIDATES];
        let head = head.get_mut(..first).unwrap_or(&mut []);
        self.router().replicas(key, head)?;
        if let Some(rank) = head.iter().skip(1).position(|&node| take(node)).map(|r| r + 1) {
            return Ok(Pick { node: head.get(rank).copied().unwrap_or(0), rank: rank as u32 });
        }
        let mut order: Vec<u32> = crate::budget::try_vec(self.eligible, 0)?;
        self.router().replicas(key, &mut order)?;
        // The first candidates were full a moment ago; they are asked again, since requests
        // may have finished meanwhile.
        match order.iter().position(|&node| take(node)) {
            Some(rank) => Ok(Pick { node: order.get(rank).copied().unwrap_or(0), rank: rank as u32 }),
            // Capacities add up to more than the total, so only a race with other threads
            // (which filled the last free node after the total was read) ends here.
            None => Err(Error::InvalidParameter("every node is at capacity")),
        }
    }
}

/// A slot on a node, held until dropped.
#[derive(Debug)]
#[must_use = "the slot is released when the lease is dropped"]
pub struct Lease<'a, R: Borrow<Router> = Router> {
    bounded: &'a BoundedLoad<R>,
    pick: Pick,
}

impl<R: Borrow<Router>> Lease<'_, R> {
    /// The node serving the request.
    #[must_use]
    pub fn node(&self) -> u32 {
        self.pick.node
    }

    /// Where the request was placed.
    #[must_use]
    pub fn pick(&self) -> Pick {
        self.pick
    }
}

impl<R: Borrow<Router>> Drop for Lease<'_, R> {
    fn drop(&mut self) {
        // The slot was taken by this lease's acquisition, so the release cannot fail.
        let _ = self.bounded.release(self.pick.node);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Jump, Node, Rendezvous, Ring, Topology};
    use alloc::vec;
    use proptest::prelude::*;

    fn ring(n: usize) -> Router {
        Router::Ring(Ring::new(Topology::uniform("n", n).unwrap(), 40).unwrap())
    }

    #[test]
    fn factors_out_of_range_and_routers_without_an_order_are_refused() {
        for c in [0.0, 0.99, f64::NAN, f64::INFINITY, 1000.5] {
            assert!(matches!(BoundedLoad::new(ring(3), c), Err(Error::InvalidParameter(_))), "{c}");
        }
        let jump = Router::Jump(Jump::new(Topology::uniform("n", 3).unwrap()).unwrap());
        assert_eq!(BoundedLoad::new(jump, 1.25).unwrap_err(), Error::ReplicasUnsupported);
        assert_eq!(BoundedLoad::new(ring(3), 1.2504).unwrap().factor(), 1.25);
    }

    #[test]
    fn an_idle_router_serves_every_key_at_home() {
        let b = BoundedLoad::new(ring(5), DEFAULT_BALANCE_FACTOR).unwrap();
        for i in 0..1000u32 {
            let key = i.to_le_bytes();
            let pick = b.pick(&key).unwrap();
            assert_eq!((pick.node, pick.rank), (b.router().route(&key).unwrap(), 0));
            let lease = b.acquire(&key).unwrap();
            assert!(lease.pick().is_home());
        }
        assert_eq!(b.total(), 0, "every lease was dropped");
    }

    #[test]
    fn one_hot_key_spills_over_and_comes_home_as_load_falls() {
        let b = BoundedLoad::new(ring(4), 1.25).unwrap();
        let home = b.router().route(b"hot").unwrap();
        let leases: Vec<Lease<'_>> = (0..100).map(|_| b.acquire(b"hot").unwrap()).collect();
        // ⌈1.25 · 100 / 4⌉ = 32 at most on any node, and the home is full.
        for node in 0..4 {
            assert!(b.load(node) <= 32, "node {node}: {}", b.load(node));
        }
        assert_eq!(b.load(home), b.capacity(home, 100).min(32));
        assert!(leases.iter().filter(|l| !l.pick().is_home()).count() >= 68);
        drop(leases);
        assert_eq!((b.total(), b.pick(b"hot").unwrap().rank), (0, 0));
    }

    #[test]
    fn explicit_release_matches_acquire_and_refuses_a_second_release() {
        let b = BoundedLoad::new(ring(3), 1.25).unwrap();
        let pick = b.acquire_raw(b"k").unwrap();
        assert_eq!(b.load(pick.node), 1);
        b.release(pick.node).unwrap();
        assert!(matches!(b.release(pick.node), Err(Error::InvalidParameter(_))));
        assert!(matches!(b.release(99), Err(Error::InvalidParameter(_))));
        assert_eq!(b.total(), 0);
    }

    #[test]
    fn weighted_capacities_follow_the_weights() {
        let topology = Topology::new(vec![Node::new("a"), Node::new("b").with_weight(3)]).unwrap();
        let b = BoundedLoad::new(Router::Rendezvous(Rendezvous::new(topology).unwrap()), 1.0).unwrap();
        assert_eq!((b.capacity(0, 8), b.capacity(1, 8)), (2, 6));
        let leases: Vec<Lease<'_>> = (0..8u32).map(|i| b.acquire(&i.to_le_bytes()).unwrap()).collect();
        assert_eq!((b.load(0), b.load(1)), (2, 6));
        drop(leases);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Any sequence of acquisitions and releases: each request is placed on a node whose
        /// load, the request included, is within ⌈c · total · w / W⌉, on the first node of its
        /// order with room, and the counts always add up.
        #[test]
        fn placements_stay_within_capacity(
            nodes in 1usize..12,
            c in prop::sample::select(vec![1.0, 1.1, 1.25, 1.5, 2.0]),
            ops in prop::collection::vec((any::<bool>(), 0u16..200), 1..400),
        ) {
            let b = BoundedLoad::new(ring(nodes), c).unwrap();
            let mut held: Vec<Lease<'_>> = Vec::new();
            for (release, key) in ops {
                if release && !held.is_empty() {
                    drop(held.swap_remove(usize::from(key) % held.len()));
                    continue;
                }
                let key = key.to_le_bytes();
                let lease = b.acquire(&key).unwrap();
                let (node, total) = (lease.node(), b.total());
                prop_assert!(b.load(node) <= b.capacity(node, total));
                let mut order = vec![0u32; nodes];
                b.router().replicas(&key, &mut order).unwrap();
                prop_assert_eq!(order[lease.pick().rank as usize], node);
                for &earlier in &order[..lease.pick().rank as usize] {
                    prop_assert!(b.load(earlier) >= b.capacity(earlier, total), "skipped a node with room");
                }
                held.push(lease);
                let sum: u32 = (0..nodes as u32).map(|n| b.load(n)).sum();
                prop_assert_eq!(sum, b.total());
            }
        }
    }
}
