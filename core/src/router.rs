//! [`Router`]: any algorithm behind one type, for callers that pick the algorithm at run time
//! (the spec layer, every language binding, the CLI).

use alloc::vec::Vec;

use crate::presets::PresetRouter;
use crate::{BatchError, Error, Jump, Maglev, Modulo, MultiProbe, Rendezvous, Result, Ring, Slots, Topology};

/// Any keyroute router.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Router {
    /// Hash ring (native ring-v1 or a peer's point scheme).
    Ring(Ring),
    /// Jump consistent hash.
    Jump(Jump),
    /// Weighted rendezvous.
    Rendezvous(Rendezvous),
    /// Maglev table.
    Maglev(Maglev),
    /// Fixed slots.
    Slots(Slots),
    /// Multi-probe.
    MultiProbe(MultiProbe),
    /// `hash mod n` baseline.
    Modulo(Modulo),
    /// A peer preset that checks or rewrites keys before its core algorithm routes them
    /// (see [`crate::presets`]).
    Preset(PresetRouter),
}

impl Router {
    /// The owner of `key`, as an index into [`Router::topology`]'s nodes.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] from a jump router over raw `u64be` keys given a key that is not
    /// 8 bytes, or from a peer preset given a key its peer cannot take.
    #[inline]
    pub fn route(&self, key: &[u8]) -> Result<u32> {
        Ok(match self {
            Self::Ring(r) => r.route(key),
            Self::Jump(r) => return r.route(key),
            Self::Rendezvous(r) => r.route(key),
            Self::Maglev(r) => r.route(key),
            Self::Slots(r) => r.route(key),
            Self::MultiProbe(r) => r.route(key),
            Self::Modulo(r) => r.route(key),
            Self::Preset(r) => return r.route(key),
        })
    }

    /// Routes every key of `keys` into `out[..keys.len()]`; allocates nothing.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`], or the first refused key's error with its position (earlier
    /// outputs are written).
    pub fn route_batch<K: AsRef<[u8]>>(&self, keys: &[K], out: &mut [u32]) -> Result<(), BatchError> {
        match self {
            Self::Ring(r) => return Ok(r.route_batch(keys, out)?),
            Self::Preset(r) => return r.route_batch(keys, out),
            _ => {}
        }
        route_each(keys, out, |k| self.route(k))
    }

    /// [`Router::route_batch`] for keys given as byte slices, the form every surface's packed
    /// batch has.
    ///
    /// Not generic, and never inlined, so its code is made here, at this crate's optimisation
    /// level: the WebAssembly build optimises the core for speed and everything else for size,
    /// and a generic batch would be made (and sized) in the calling crate instead.
    ///
    /// # Errors
    /// As [`Router::route_batch`].
    #[inline(never)]
    pub fn route_slices(&self, keys: &[&[u8]], out: &mut [u32]) -> Result<(), BatchError> {
        self.route_batch(keys, out)
    }

    /// Fills `out` with `out.len()` distinct nodes for `key` in preference order, spread over
    /// distinct zones first when nodes carry zones.
    ///
    /// # Errors
    /// [`Error::ReplicasUnsupported`] for jump, modulo and the presets whose peer defines no
    /// order past the owner; [`Error::ReplicasExceedNodes`] when there are not enough nodes;
    /// [`Error::InvalidKey`] as [`Router::route`].
    pub fn replicas(&self, key: &[u8], out: &mut [u32]) -> Result<()> {
        match self {
            Self::Ring(r) => r.replicas(key, out),
            Self::Rendezvous(r) => r.replicas(key, out),
            Self::Maglev(r) => r.replicas(key, out),
            Self::Slots(r) => r.replicas(key, out),
            Self::MultiProbe(r) => r.replicas(key, out),
            Self::Preset(r) => r.replicas(key, out),
            Self::Jump(_) | Self::Modulo(_) => Err(Error::ReplicasUnsupported),
        }
    }

    /// Read spreading for a hot key: one of the key's first `r` replicas (its preference
    /// order, owner first), the `selector mod r`-th. A client that passes a hash of its own id
    /// reads the same copy every time; a random selector spreads each read. Writes must go to
    /// every one of the `r` replicas (or invalidate them all), or reads return stale values:
    /// spread only keys whose copies the cache keeps in step.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `r` = 0, and as [`Router::replicas`] (`r` above the
    /// nodes, routers without a replica order); [`Error::OutOfMemory`] for more than 16 replicas
    /// that cannot be allocated. An `r` above the topology's node count is refused before any
    /// buffer is sized from it: the work and memory of a refusal are those of one more replica
    /// than there are nodes, whatever `r` is.
    pub fn spread(&self, key: &[u8], r: usize, selector: u64) -> Result<u32> {
        if r == 0 {
            return Err(Error::InvalidParameter("spread over at least one replica"));
        }
        let nodes = self.topology().len();
        if r > nodes {
            return Err(self.too_many_replicas(key, r, nodes));
        }
        let pick = (selector % r as u64) as usize;
        let mut small = [0u32; 16];
        let mut large: Vec<u32>;
        let order = if let Some(order) = small.get_mut(..r) {
            order
        } else {
            large = crate::budget::try_vec(r, 0u32)?;
            large.as_mut_slice()
        };
        self.replicas(key, order)?;
        order.get(pick).copied().ok_or(Error::InvalidParameter("spread over at least one replica"))
    }

    /// The error [`Router::replicas`] gives for `r` replicas, `r` above the `nodes` of the
    /// topology, found by asking for one more replica than there are nodes (the algorithm's own
    /// check: no replica order, a key it cannot take, too few nodes that can hold one) with the
    /// count reported as asked.
    fn too_many_replicas(&self, key: &[u8], r: usize, nodes: usize) -> Error {
        let requested = u32::try_from(r).unwrap_or(u32::MAX);
        let mut probe = match crate::budget::try_vec(nodes.saturating_add(1), 0u32) {
            Ok(probe) => probe,
            Err(e) => return e,
        };
        match self.replicas(key, &mut probe) {
            Err(Error::ReplicasExceedNodes { available, .. }) => Error::ReplicasExceedNodes { requested, available },
            Err(e) => e,
            // More distinct nodes than the topology has cannot be listed.
            Ok(()) => Error::ReplicasExceedNodes { requested, available: u32::try_from(nodes).unwrap_or(u32::MAX) },
        }
    }

    /// The topology the router was built from.
    #[must_use]
    pub fn topology(&self) -> &Topology {
        match self {
            Self::Ring(r) => r.topology(),
            Self::Jump(r) => r.topology(),
            Self::Rendezvous(r) => r.topology(),
            Self::Maglev(r) => r.topology(),
            Self::Slots(r) => r.topology(),
            Self::MultiProbe(r) => r.topology(),
            Self::Modulo(r) => r.topology(),
            Self::Preset(r) => r.topology(),
        }
    }
}

/// Routes key by key into `out[..keys.len()]`, stopping at the first refused key.
pub(crate) fn route_each<K: AsRef<[u8]>>(
    keys: &[K],
    out: &mut [u32],
    route: impl Fn(&[u8]) -> Result<u32>,
) -> Result<(), BatchError> {
    let out = out.get_mut(..keys.len()).ok_or(Error::BufferTooSmall)?;
    for (i, (o, k)) in out.iter_mut().zip(keys).enumerate() {
        *o = route(k.as_ref()).map_err(|e| BatchError::at(i, e))?;
    }
    Ok(())
}

macro_rules! from_algorithm {
    ($($t:ident),*) => {$(
        impl From<$t> for Router {
            fn from(r: $t) -> Self {
                Self::$t(r)
            }
        }
    )*};
}
from_algorithm!(Ring, Jump, Rendezvous, Maglev, Slots, MultiProbe, Modulo);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Jump, Ring};

    #[test]
    fn spreading_picks_among_the_first_replicas_by_selector() {
        let router = Router::Ring(Ring::new(Topology::uniform("n", 20).unwrap(), 40).unwrap());
        let mut order = [0u32; 3];
        router.replicas(b"hot", &mut order).unwrap();
        for selector in 0..30u64 {
            assert_eq!(router.spread(b"hot", 3, selector).unwrap(), order[(selector % 3) as usize]);
        }
        assert_eq!(router.spread(b"hot", 1, 12345).unwrap(), router.route(b"hot").unwrap());
        let mut all = alloc::vec![0u32; 20];
        router.replicas(b"hot", &mut all).unwrap();
        assert_eq!(router.spread(b"hot", 20, 19).unwrap(), all[19], "more than the stack buffer");
        assert!(matches!(router.spread(b"hot", 0, 0), Err(Error::InvalidParameter(_))));
        assert!(matches!(router.spread(b"hot", 21, 0), Err(Error::ReplicasExceedNodes { .. })));
        let jump = Router::Jump(Jump::new(Topology::uniform("n", 3).unwrap()).unwrap());
        assert_eq!(jump.spread(b"hot", 2, 0), Err(Error::ReplicasUnsupported));
    }

    #[test]
    fn spreading_over_more_replicas_than_nodes_is_refused_without_sizing_a_buffer_from_r() {
        // r of usize::MAX, 2^31 or 10^9 used to allocate r entries (or fail to) before the check.
        let ring = Router::Ring(Ring::new(Topology::uniform("n", 4).unwrap(), 40).unwrap());
        let jump = Router::Jump(Jump::new(Topology::uniform("n", 4).unwrap()).unwrap());
        let weighted = alloc::vec![
            crate::Node::new("a"),
            crate::Node::new("b").with_weight(0),
            crate::Node::new("c").with_weight(1),
        ];
        let rendezvous = Router::Rendezvous(crate::Rendezvous::new(Topology::new(weighted).unwrap()).unwrap());
        for r in [5, 1 << 20, 1 << 31, 1_000_000_000, usize::MAX] {
            let requested = u32::try_from(r).unwrap_or(u32::MAX);
            assert_eq!(ring.spread(b"hot", r, 7), Err(Error::ReplicasExceedNodes { requested, available: 4 }), "{r}");
            assert_eq!(jump.spread(b"hot", r, 7), Err(Error::ReplicasUnsupported), "{r}");
            // The available count is the algorithm's own: nodes of weight 0 hold no replica.
            assert_eq!(
                rendezvous.spread(b"hot", r, 7),
                Err(Error::ReplicasExceedNodes { requested, available: 2 }),
                "{r}"
            );
        }
        assert!(matches!(
            rendezvous.spread(b"hot", 3, 0),
            Err(Error::ReplicasExceedNodes { requested: 3, available: 2 })
        ));
        assert!(rendezvous.spread(b"hot", 2, 0).is_ok());
    }
}
