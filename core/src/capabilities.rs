//! What a built router can do, asked of the router itself: [`Router::capabilities`], and the
//! calls that only some algorithms define — routing by a precomputed key hash
//! ([`Router::route_hash`]), a key's slot ([`Router::slot`]) and a minimal-move rebalance
//! ([`Router::rebalance`]).
//!
//! This is the one place that decides, per algorithm, what each call means. Every layer above
//! (the spec registry, the language surfaces, the `keyroute` command) forwards to it and never
//! matches on router variants or algorithm names itself.

use crate::analysis::{self, Method};
use crate::presets::{ModuloRule, PresetRouter};
use crate::{Error, Jump, KeyHash, Result, Router, Topology};

/// What a router does with node weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Weights {
    /// Keys spread in proportion to the weights.
    Honoured,
    /// Unequal weights are refused when the router is built ([`Error::WeightsUnsupported`]).
    Refused,
    /// Weights play no part (an explicit slot table); any value is accepted.
    Ignored,
}

impl Weights {
    /// The stable name every surface reports: `honoured`, `refused` or `ignored`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Honoured => "honoured",
            Self::Refused => "refused",
            Self::Ignored => "ignored",
        }
    }
}

/// What one built router supports ([`Router::capabilities`]). Cheap to ask: nothing is
/// allocated or routed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Capabilities {
    /// What it does with weights.
    pub weights: Weights,
    /// Whether it defines a replica order ([`Router::replicas`], [`Router::spread`]).
    pub replicas: bool,
    /// Whether it routes on one 64-bit key hash ([`Router::route_hash`], [`Router::key_hasher`]).
    pub route_hash: bool,
    /// The slot count of a router built on a slot table ([`Router::slot`]).
    pub slots: Option<u32>,
    /// How [`analysis::ownership`] computes its shares (a diff between two routers of this kind
    /// is at best this exact).
    pub analysis: Method,
    /// Points per unit of weight, for a native ring built by [`crate::Ring::new`]: the one
    /// parameter that trades memory for balance.
    pub points_per_weight: Option<u32>,
    /// Whether [`Router::rebalance`] moves the fewest keys to a new topology (slot tables).
    pub rebalance: bool,
}

impl Router {
    /// What this router supports.
    #[must_use]
    pub fn capabilities(&self) -> Capabilities {
        Capabilities {
            weights: self.weights(),
            replicas: self.defines_replicas(),
            route_hash: self.hashed().is_some(),
            slots: self.slot_count(),
            analysis: analysis::method(self),
            points_per_weight: match self {
                Self::Ring(r) => r.points_per_weight(),
                _ => None,
            },
            rebalance: matches!(self, Self::Slots(_)),
        }
    }

    fn weights(&self) -> Weights {
        match self {
            Self::Ring(r) if r.refuses_weights() => Weights::Refused,
            Self::Ring(_) | Self::Rendezvous(_) | Self::Maglev(_) => Weights::Honoured,
            Self::Slots(s) if s.by_weight() => Weights::Honoured,
            Self::Slots(_) => Weights::Ignored,
            Self::Jump(_) | Self::MultiProbe(_) | Self::Modulo(_) => Weights::Refused,
            Self::Preset(p) => match p {
                PresetRouter::TextRing(_) | PresetRouter::Nginx(_) | PresetRouter::Twemproxy(_) => Weights::Honoured,
                PresetRouter::Pymemcache(_) | PresetRouter::RedisRb(_) => Weights::Refused,
                PresetRouter::RedisCluster(_) => Weights::Ignored,
                PresetRouter::Modulo(m) if matches!(m.rule(), ModuloRule::PythonMemcached | ModuloRule::Gomemcache) => {
                    Weights::Honoured
                }
                PresetRouter::Modulo(_) | PresetRouter::Phpredis(_) => Weights::Refused,
            },
        }
    }

    fn defines_replicas(&self) -> bool {
        match self {
            Self::Jump(_) | Self::Modulo(_) => false,
            Self::Preset(p) => p.defines_replicas(),
            _ => true,
        }
    }

    fn slot_count(&self) -> Option<u32> {
        match self {
            Self::Slots(s) => Some(s.slot_fn().count()),
            Self::Preset(PresetRouter::RedisCluster(r)) => Some(r.slots().slot_fn().count()),
            _ => None,
        }
    }

    /// The core router that routes on one 64-bit input, if this one does.
    fn hashed(&self) -> Option<Hashed<'_>> {
        match self {
            // A 128-bit ring (uhashring's default) compares more than 64 bits of the key hash.
            Self::Ring(r) if r.key_hash().bits() <= 64 => Some(Hashed::Ring(r)),
            Self::Jump(r) => Some(Hashed::Jump(r)),
            Self::Maglev(r) => Some(Hashed::Fn(KeyHash::Xxh3, RouteFn::Maglev(r))),
            Self::Modulo(r) => Some(Hashed::Fn(KeyHash::Xxh3, RouteFn::Modulo(r))),
            _ => None,
        }
    }

    /// [`Router::key_hash`] resolved once, for hashing many keys without dispatching on the
    /// algorithm for each.
    ///
    /// # Errors
    /// [`Error::RouteHashUnsupported`] for algorithms that do not route on one 64-bit hash
    /// (rendezvous, multi-probe, slots, and presets that check or rewrite keys first).
    pub fn key_hasher(&self) -> Result<KeyHasher<'_>> {
        Ok(KeyHasher(match self.hashed().ok_or(Error::RouteHashUnsupported)? {
            Hashed::Ring(r) => HasherKind::Hash(r.key_hash()),
            Hashed::Jump(r) => HasherKind::Jump(r),
            // conformance/SPEC.md: maglev-v1 and modulo route on H(key) = xxh3(key).
            Hashed::Fn(h, _) => HasherKind::Hash(h),
        }))
    }

    /// The 64-bit number this router routes `key` on: XXH3-64 for the native ring, jump,
    /// Maglev and modulo; the peer's key hash for ring presets (32-bit values); the key itself
    /// as a big-endian integer for jump over `u64be` keys. For every key,
    /// `route(key) == route_hash(key_hash(key))`.
    ///
    /// # Errors
    /// [`Error::RouteHashUnsupported`] as [`Router::key_hasher`]; [`Error::InvalidKey`] for a
    /// key the algorithm cannot take.
    pub fn key_hash(&self, key: &[u8]) -> Result<u64> {
        self.key_hasher()?.hash(key)
    }

    /// The owner of any key whose [`Router::key_hash`] is `hash` (a node index).
    ///
    /// # Errors
    /// [`Error::RouteHashUnsupported`] as [`Router::key_hasher`].
    pub fn route_hash(&self, hash: u64) -> Result<u32> {
        Ok(match self.hashed().ok_or(Error::RouteHashUnsupported)? {
            Hashed::Ring(r) => r.route_hash(hash),
            Hashed::Jump(r) => r.route_hash(hash),
            Hashed::Fn(_, f) => f.route(hash),
        })
    }

    /// Routes every hash of `hashes` into `out[..hashes.len()]`, allocating nothing. The
    /// dispatch on the algorithm happens once per batch.
    ///
    /// # Errors
    /// [`Error::RouteHashUnsupported`] as [`Router::key_hasher`]; [`Error::BufferTooSmall`] when
    /// `out` is shorter than `hashes` (nothing is written then).
    pub fn route_hash_batch(&self, hashes: &[u64], out: &mut [u32]) -> Result<()> {
        let hashed = self.hashed().ok_or(Error::RouteHashUnsupported)?;
        let out = out.get_mut(..hashes.len()).ok_or(Error::BufferTooSmall)?;
        match hashed {
            Hashed::Ring(r) => return r.route_hash_batch(hashes, out),
            Hashed::Jump(r) => fill(hashes, out, |h| r.route_hash(h)),
            Hashed::Fn(_, RouteFn::Maglev(r)) => fill(hashes, out, |h| r.route_hash(h)),
            Hashed::Fn(_, RouteFn::Modulo(r)) => fill(hashes, out, |h| r.route_hash(h)),
        }
        Ok(())
    }

    /// The slot `key` falls in, for routers built on a slot table (native slots, Redis Cluster).
    #[must_use]
    pub fn slot(&self, key: &[u8]) -> Option<u32> {
        match self {
            Self::Slots(s) => Some(s.slot_fn().slot(key)),
            Self::Preset(PresetRouter::RedisCluster(r)) => Some(r.slot(key)),
            _ => None,
        }
    }

    /// The router for `to` that moves the fewest keys from this one, where the algorithm can
    /// choose ([`Capabilities::rebalance`]: slot tables keep every slot they can, see
    /// [`crate::Slots::rebalance`]); `None` for algorithms whose placement follows from the
    /// topology alone (build those from `to` directly).
    ///
    /// # Errors
    /// As [`crate::Slots::rebalance`].
    pub fn rebalance(&self, to: Topology) -> Option<Result<Router>> {
        match self {
            Self::Slots(s) => Some(s.rebalance(to).map(Router::Slots)),
            _ => None,
        }
    }
}

/// The core routers that route on one 64-bit input.
enum Hashed<'a> {
    Ring(&'a crate::Ring),
    Jump(&'a Jump),
    /// Routers that route on a fixed key hash.
    Fn(KeyHash, RouteFn<'a>),
}

#[derive(Clone, Copy)]
enum RouteFn<'a> {
    Maglev(&'a crate::Maglev),
    Modulo(&'a crate::Modulo),
}

impl RouteFn<'_> {
    #[inline]
    fn route(self, hash: u64) -> u32 {
        match self {
            Self::Maglev(r) => r.route_hash(hash),
            Self::Modulo(r) => r.route_hash(hash),
        }
    }
}

/// A router's key hash ([`Router::key_hasher`]): `hash(key) == router.key_hash(key)`.
#[derive(Debug, Clone, Copy)]
pub struct KeyHasher<'a>(HasherKind<'a>);

#[derive(Debug, Clone, Copy)]
enum HasherKind<'a> {
    Hash(KeyHash),
    Jump(&'a Jump),
}

impl KeyHasher<'_> {
    /// The 64-bit number the router routes `key` on.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] for a key the algorithm cannot take (a `u64be` jump key that is not
    /// 8 bytes).
    #[inline]
    pub fn hash(&self, key: &[u8]) -> Result<u64> {
        match self.0 {
            HasherKind::Hash(h) => Ok(h.hash(key)),
            HasherKind::Jump(r) => r.key_input(key),
        }
    }
}

#[inline]
fn fill(hashes: &[u64], out: &mut [u32], route: impl Fn(u64) -> u32) {
    for (o, &h) in out.iter_mut().zip(hashes) {
        *o = route(h);
    }
}

#[cfg(test)]
mod tests {
    use alloc::format;
    use alloc::vec::Vec;

    use super::*;
    use crate::{Maglev, Modulo, MultiProbe, Node, Rendezvous, Ring, SlotFn, Slots};

    fn topology() -> Topology {
        Topology::uniform("n", 5).unwrap()
    }

    fn routers() -> Vec<(&'static str, Router)> {
        alloc::vec![
            ("ring", Ring::new(topology(), 40).unwrap().into()),
            ("ring7", Ring::new(topology(), 7).unwrap().into()),
            ("jump", Jump::new(topology()).unwrap().into()),
            ("maglev", Maglev::new(topology(), 251).unwrap().into()),
            ("modulo", Modulo::new(topology()).unwrap().into()),
            ("rendezvous", Rendezvous::new(topology()).unwrap().into()),
            ("multi-probe", MultiProbe::new(topology(), 21).unwrap().into()),
            ("slots", Slots::new(topology(), SlotFn::Hash { count: 64 }).unwrap().into()),
        ]
    }

    #[test]
    fn routing_the_key_hash_routes_the_key_wherever_it_is_claimed() {
        for (name, r) in routers() {
            let caps = r.capabilities();
            let keys: Vec<Vec<u8>> = (0..1000u32).map(|i| format!("key-{i}").into_bytes()).collect();
            if !caps.route_hash {
                assert_eq!(r.route_hash(1), Err(Error::RouteHashUnsupported), "{name}");
                assert_eq!(r.key_hash(b"k").unwrap_err(), Error::RouteHashUnsupported, "{name}");
                assert_eq!(r.route_hash_batch(&[1], &mut [0]), Err(Error::RouteHashUnsupported), "{name}");
                continue;
            }
            let hashes: Vec<u64> = keys.iter().map(|k| r.key_hash(k).unwrap()).collect();
            let mut batch = alloc::vec![0u32; hashes.len()];
            r.route_hash_batch(&hashes, &mut batch).unwrap();
            for ((k, &h), &b) in keys.iter().zip(&hashes).zip(&batch) {
                let want = r.route(k).unwrap();
                assert_eq!((r.route_hash(h).unwrap(), b), (want, want), "{name}");
            }
            assert_eq!(r.route_hash_batch(&[1, 2], &mut [0]), Err(Error::BufferTooSmall), "{name}");
        }
    }

    #[test]
    fn every_claim_matches_what_the_router_does() {
        for (name, r) in routers() {
            let caps = r.capabilities();
            let mut two = [0u32; 2];
            assert_eq!(r.replicas(b"k", &mut two).is_ok(), caps.replicas, "{name}");
            assert_eq!(caps.analysis, analysis::ownership(&r).method, "{name}");
            assert_eq!(caps.slots.is_some(), r.slot(b"k").is_some(), "{name}");
            assert_eq!(caps.rebalance, r.rebalance(topology()).is_some(), "{name}");
            if let Some(count) = caps.slots {
                assert!(r.slot(b"k").is_some_and(|s| s < count), "{name}");
            }
        }
        assert_eq!(routers()[1].1.capabilities().points_per_weight, Some(7));
        assert_eq!(routers()[2].1.capabilities().points_per_weight, None);
    }

    #[test]
    fn an_explicit_slot_table_ignores_weights_and_a_rebalanced_one_honours_them() {
        let weighted = Topology::new(alloc::vec![Node::new("a").with_weight(3), Node::new("b")]).unwrap();
        let explicit =
            Slots::from_owners(weighted.clone(), SlotFn::Hash { count: 4 }, alloc::vec![0, 1, 1, 1]).unwrap();
        let explicit = Router::from(explicit);
        assert_eq!(explicit.capabilities().weights, Weights::Ignored);
        let rebalanced = explicit.rebalance(weighted).unwrap().unwrap();
        assert_eq!(rebalanced.capabilities().weights, Weights::Honoured);
        assert_eq!(Router::from(Jump::new(topology()).unwrap()).capabilities().weights, Weights::Refused);
    }

    #[test]
    fn jump_over_u64be_keys_routes_the_integer() {
        let r = Router::from(Jump::with(topology(), crate::JumpKey::U64Be, crate::JumpVariant::Paper).unwrap());
        for x in [0u64, 1, 42, u64::MAX, 0x0123_4567_89ab_cdef] {
            assert_eq!(r.key_hash(&x.to_be_bytes()).unwrap(), x);
            assert_eq!(r.route_hash(x).unwrap(), r.route(&x.to_be_bytes()).unwrap());
        }
        assert!(matches!(r.key_hash(b"short"), Err(Error::InvalidKey(_))));
    }
}
