//! Peer presets: routers that reproduce existing routers bit for bit, quirks included.
//!
//! Each preset is a configuration of keyroute's own algorithms (the [`Ring`]'s
//! point scheme, [`Jump`](crate::Jump), [`Slots`](crate::Slots), a rendezvous score), built from
//! what the peer's configuration holds (servers with host, port, weight, name) and checked
//! against vectors captured from the real peer (`conformance/vectors/v1/`). Nodes keep the ids
//! the caller gives; routes answer indices into the topology, as every router does.
//!
//! | constructor | reproduces | router |
//! |---|---|---|
//! | [`libmemcached`] | libmemcached 1.1 (libmemcached-awesome) ketama, all three modes | [`Router::Ring`] |
//! | [`spymemcached`] | spymemcached 2.12 `KetamaNodeLocator` | [`PresetRouter::TextRing`] |
//! | [`uhashring`] | uhashring 2.x, ketama and default (MetaRing) rings | [`PresetRouter::TextRing`] |
//! | [`npm_hashring`] | npm `hashring` 3.x | [`PresetRouter::TextRing`] |
//! | [`python_hash_ring`] | PyPI `hash_ring` 1.3 | [`Router::Ring`] |
//! | [`nginx`] | nginx `hash $key consistent` (http and stream) | [`PresetRouter::Nginx`] |
//! | [`twemproxy`] | twemproxy (nutcracker) 0.5 `distribution: ketama` | [`PresetRouter::Twemproxy`] |
//! | [`dalli`] | Dalli 3.0 `Dalli::Ring` | [`Router::Ring`] |
//! | [`redis_rb_distributed`] | redis-rb 4.x `Redis::Distributed` / `Redis::HashRing` | [`PresetRouter::RedisRb`] |
//! | [`guava`] | Guava `Hashing.consistentHash` | [`Router::Jump`] |
//! | [`jump`] | the paper's jump hash on a given 64-bit key (PyPI `jump-consistent-hash`) | [`Router::Jump`] |
//! | [`redis_cluster`] | Redis Cluster key slots (and npm `cluster-key-slot`'s variant) | [`PresetRouter::RedisCluster`] |
//! | [`pymemcache_rendezvous`] | pymemcache 4 `RendezvousHash` | [`PresetRouter::Pymemcache`] |
//! | [`libmemcached_modula`] | libmemcached `MODULA` (pylibmc's default distribution) | [`PresetRouter::Modulo`] |
//! | [`python_memcached`] | python-memcached 1.x server selection, dead servers included | [`PresetRouter::Modulo`] |
//! | [`gomemcache`] | gomemcache `ServerList` (Go): `crc32(key) % servers` | [`PresetRouter::Modulo`] |
//! | [`groupcache`] | groupcache `consistenthash.Map` (Go), as `HTTPPool` uses it | [`Router::Ring`] |
//! | [`java_hashcode_modulo`] | `Math.floorMod(key.hashCode(), n)` in Java | [`PresetRouter::Modulo`] |
//! | [`phpredis_array`] | phpredis 5.3 `RedisArray`, default and `consistent`, each `algorithm` | [`PresetRouter::Phpredis`] |
//!
//! A preset whose core algorithm alone is the peer returns that algorithm's router; one that
//! must check or rewrite keys first (text-only peers, hash tags, nginx's empty key) returns a
//! [`PresetRouter`] inside [`Router::Preset`]. Keys a peer cannot take give
//! [`Error::InvalidKey`], never a guess.
//!
//! Replicas: ring presets answer with the clockwise walk of the peer's own points (distinct
//! nodes, zones first); the peers themselves define no such list, except nginx, whose retries
//! walk the same points. Presets whose peer has no order past the owner (jump, Guava, Redis
//! Cluster, the modulo presets) answer [`Error::ReplicasUnsupported`].

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::{BatchError, Error, Node, Result, Ring, Router, Topology};

mod dalli;
mod groupcache;
mod guava;
mod jump;
mod libmemcached;
mod modulo;
mod nginx;
mod npm_hashring;
mod phpredis;
mod pymemcache;
mod python_hash_ring;
mod redis;
mod redis_rb;
mod spymemcached;
mod twemproxy;
mod uhashring;

pub use dalli::{DALLI_POINTS_PER_SERVER, dalli};
pub use groupcache::{GROUPCACHE_DEFAULT_REPLICAS, groupcache};
pub use guava::{GuavaKey, guava};
pub use jump::jump;
pub use libmemcached::{
    LibmemcachedDistribution, LibmemcachedHash, LibmemcachedOptions, libmemcached, libmemcached_within,
};
pub use modulo::{
    GOMEMCACHE_MAX_KEY, ModuloRule, PYTHON_MEMCACHED_RETRIES, PeerModulo, gomemcache, java_hashcode_modulo,
    libmemcached_modula, python_memcached,
};
pub use nginx::{Nginx, nginx};
pub use npm_hashring::{NpmHashringOptions, npm_hashring};
pub use phpredis::{PHPREDIS_MAX_HOST, PhpredisArray, PhpredisHash, PhpredisOptions, phpredis_array, phpredis_tag};
pub use pymemcache::{PymemcacheOptions, PymemcacheRendezvous, pymemcache_rendezvous};
pub use python_hash_ring::python_hash_ring;
pub use redis::{HashTagRule, RedisCluster, RedisClusterOptions, RedisNode, redis_cluster};
pub use redis_rb::{RedisRbOptions, RedisRbRing, redis_rb_distributed, redis_rb_tag};
pub use spymemcached::{SpymemcachedHash, SpymemcachedNodeKey, SpymemcachedOptions, spymemcached, spymemcached_within};
pub use twemproxy::{Twemproxy, TwemproxyHash, TwemproxyOptions, twemproxy, twemproxy_within};
pub use uhashring::{UhashringOptions, uhashring};

/// The memcached default port, which several peers leave out of point names.
pub const MEMCACHED_DEFAULT_PORT: u16 = 11211;

/// A server as the memcached-family peers configure one (libmemcached, spymemcached,
/// twemproxy). Each preset documents which fields it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemcachedServer<'a> {
    /// The node id routes report (keyroute's, not the peer's).
    pub id: &'a str,
    /// Host name or address text, exactly as the peer's configuration has it (never resolved).
    pub host: &'a str,
    /// TCP port.
    pub port: u16,
    /// Weight.
    pub weight: u32,
    /// The peer's own name for the server, where it has one (twemproxy's `name`, spymemcached's
    /// node-key string).
    pub name: Option<&'a str>,
}

impl<'a> MemcachedServer<'a> {
    /// A server with weight 1 and no name.
    #[must_use]
    pub fn new(id: &'a str, host: &'a str, port: u16) -> Self {
        Self { id, host, port, weight: 1, name: None }
    }

    /// Sets the weight.
    #[must_use]
    pub fn with_weight(mut self, weight: u32) -> Self {
        self.weight = weight;
        self
    }

    /// Sets the peer's name for the server.
    #[must_use]
    pub fn with_name(mut self, name: &'a str) -> Self {
        self.name = Some(name);
        self
    }
}

/// A preset that needs more than a core algorithm: its keys are checked or rewritten before
/// the core routes them.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PresetRouter {
    /// A ring whose peer hashes text (spymemcached, uhashring, npm hashring).
    TextRing(TextRing),
    /// nginx `hash … consistent`.
    Nginx(Nginx),
    /// twemproxy ketama.
    Twemproxy(Twemproxy),
    /// pymemcache's rendezvous hash.
    Pymemcache(PymemcacheRendezvous),
    /// Redis Cluster slots.
    RedisCluster(RedisCluster),
    /// A client's `hash % n` (libmemcached `MODULA`, python-memcached, Java).
    Modulo(PeerModulo),
    /// phpredis `RedisArray`.
    Phpredis(PhpredisArray),
    /// redis-rb's `Redis::Distributed` ring with its `{tag}` rule.
    RedisRb(RedisRbRing),
}

impl PresetRouter {
    /// The owner of `key`.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] for a key the peer cannot take (see each preset).
    pub fn route(&self, key: &[u8]) -> Result<u32> {
        match self {
            Self::TextRing(r) => r.route(key),
            Self::Nginx(r) => r.route(key),
            Self::Twemproxy(r) => Ok(r.route(key)),
            Self::Pymemcache(r) => r.route(key),
            Self::RedisCluster(r) => Ok(r.route(key)),
            Self::Modulo(r) => r.route(key),
            Self::Phpredis(r) => r.route(key),
            Self::RedisRb(r) => Ok(r.route(key)),
        }
    }

    /// Routes every key of `keys` into `out[..keys.len()]`.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`], or the first refused key's error with its position.
    pub fn route_batch<K: AsRef<[u8]>>(&self, keys: &[K], out: &mut [u32]) -> Result<(), BatchError> {
        if let Self::TextRing(r) = self {
            return r.route_batch(keys, out);
        }
        if let Self::RedisRb(r) = self {
            return r.route_batch(keys, out);
        }
        crate::router::route_each(keys, out, |k| self.route(k))
    }

    /// `out.len()` distinct nodes for `key` in preference order.
    ///
    /// # Errors
    /// [`Error::ReplicasUnsupported`] for Redis Cluster and the modulo presets;
    /// [`Error::ReplicasExceedNodes`];
    /// [`Error::InvalidKey`] as [`PresetRouter::route`].
    pub fn replicas(&self, key: &[u8], out: &mut [u32]) -> Result<()> {
        match self {
            Self::TextRing(r) => r.replicas(key, out),
            Self::Nginx(r) => r.replicas(key, out),
            Self::Twemproxy(r) => r.replicas(key, out),
            Self::Pymemcache(r) => r.replicas(key, out),
            Self::RedisCluster(_) => Err(Error::ReplicasUnsupported),
            Self::Modulo(r) => r.replicas(key, out),
            Self::Phpredis(r) => r.replicas(key, out),
            Self::RedisRb(r) => r.replicas(key, out),
        }
    }

    /// Whether [`PresetRouter::replicas`] answers (the peer defines an order past the owner).
    pub(crate) fn defines_replicas(&self) -> bool {
        match self {
            Self::RedisCluster(_) | Self::Modulo(_) => false,
            Self::Phpredis(r) => r.is_consistent(),
            _ => true,
        }
    }

    /// The topology.
    #[must_use]
    pub fn topology(&self) -> &Topology {
        match self {
            Self::TextRing(r) => r.ring().topology(),
            Self::Nginx(r) => r.ring().topology(),
            Self::Twemproxy(r) => r.ring().topology(),
            Self::Pymemcache(r) => r.topology(),
            Self::RedisCluster(r) => r.topology(),
            Self::Modulo(r) => r.topology(),
            Self::Phpredis(r) => r.topology(),
            Self::RedisRb(r) => r.ring().topology(),
        }
    }
}

impl From<PresetRouter> for Router {
    fn from(r: PresetRouter) -> Self {
        Self::Preset(r)
    }
}

/// A ring whose peer hashes text keys: keys must be UTF-8, or the route is refused.
///
/// The peers behind it (Java, Python, JavaScript) only ever hash strings, so bytes that are not
/// UTF-8 have no counterpart there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextRing {
    ring: Ring,
    /// The [`Error::InvalidKey`] text for a key that is not UTF-8.
    refusal: &'static str,
}

impl TextRing {
    fn new(ring: Ring, refusal: &'static str) -> Self {
        Self { ring, refusal }
    }

    /// The owner of `key`.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] when `key` is not UTF-8.
    pub fn route(&self, key: &[u8]) -> Result<u32> {
        self.check(key)?;
        Ok(self.ring.route(key))
    }

    /// Routes many keys; the buffer, then every key, is checked first (the order every router's
    /// batch checks in), so nothing is written for a batch that holds a refused key.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`], or [`Error::InvalidKey`] with the key's position.
    pub fn route_batch<K: AsRef<[u8]>>(&self, keys: &[K], out: &mut [u32]) -> Result<(), BatchError> {
        if out.len() < keys.len() {
            return Err(Error::BufferTooSmall.into());
        }
        for (i, k) in keys.iter().enumerate() {
            self.check(k.as_ref()).map_err(|e| BatchError::at(i, e))?;
        }
        Ok(self.ring.route_batch(keys, out)?)
    }

    /// Distinct nodes clockwise from the key's point on the peer's ring.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] when `key` is not UTF-8; [`Error::ReplicasExceedNodes`].
    pub fn replicas(&self, key: &[u8], out: &mut [u32]) -> Result<()> {
        self.check(key)?;
        self.ring.replicas(key, out)
    }

    /// The ring itself (its [`Ring::route`] hashes any bytes, unchecked).
    #[must_use]
    pub fn ring(&self) -> &Ring {
        &self.ring
    }

    fn check(&self, key: &[u8]) -> Result<()> {
        core::str::from_utf8(key).map(drop).map_err(|_| Error::InvalidKey(self.refusal))
    }
}

/// The ids of a topology as text, for peers that format node names as strings.
fn text_ids<'t>(topology: &'t Topology, refusal: &'static str) -> Result<Vec<&'t str>> {
    topology
        .nodes()
        .iter()
        .map(|n| core::str::from_utf8(n.id()).map_err(|_| Error::InvalidParameter(refusal)))
        .collect()
}

/// Point-name prefixes `name || suffix`, one per node.
fn prefixes<'n>(names: impl IntoIterator<Item = &'n [u8]>, suffix: &[u8]) -> Box<[Box<[u8]>]> {
    names.into_iter().map(|n| [n, suffix].concat().into_boxed_slice()).collect()
}

/// A topology of memcached servers with per-server weights chosen by the preset, and the
/// work budget its router gets.
fn server_topology(
    servers: &[MemcachedServer<'_>],
    budget: crate::Budget,
    weight: impl Fn(&MemcachedServer<'_>) -> u32,
) -> Result<Topology> {
    Ok(Topology::new(servers.iter().map(|s| Node::new(s.id).with_weight(weight(s))).collect::<Vec<_>>())?
        .with_budget(budget))
}

/// The same topology with every weight passed through `f` (ids and zones kept).
fn reweighted(topology: Topology, f: impl Fn(u32) -> u32) -> Result<Topology> {
    if topology.nodes().iter().all(|n| f(n.weight()) == n.weight()) {
        return Ok(topology);
    }
    let nodes: Vec<Node> = topology
        .nodes()
        .iter()
        .map(|n| {
            let node = Node::new(n.id()).with_weight(f(n.weight()));
            match n.zone() {
                Some(z) => node.with_zone(z),
                None => node,
            }
        })
        .collect();
    Ok(Topology::new(nodes)?.with_budget(topology.budget()))
}

/// `host:port` as text bytes.
fn host_port(host: &str, port: u16) -> Vec<u8> {
    alloc::format!("{host}:{port}").into_bytes()
}

#[cfg(test)]
mod tests {
    use alloc::vec;

    use super::*;
    use crate::Error;

    /// One router per preset family, over small topologies.
    fn all_presets() -> Vec<Router> {
        let servers = [
            MemcachedServer::new("a", "10.0.0.1", 11211),
            MemcachedServer::new("b", "10.0.0.2", 11212).with_weight(2),
            MemcachedServer::new("c", "cache-c", 11213).with_name("gamma"),
        ];
        let t = || Topology::new(vec![Node::new("n1"), Node::new("n2"), Node::new("n3")]).unwrap();
        let slots = [RedisNode { id: "r1", slots: &[(0, 9999)] }, RedisNode { id: "r2", slots: &[(10_000, 16_383)] }];
        vec![
            libmemcached(&servers, LibmemcachedOptions::ketama()).unwrap(),
            spymemcached(&servers, SpymemcachedOptions { hash: SpymemcachedHash::Native, ..Default::default() })
                .unwrap(),
            uhashring(t(), UhashringOptions::meta()).unwrap(),
            uhashring(t(), UhashringOptions::ketama()).unwrap(),
            npm_hashring(t(), NpmHashringOptions::default()).unwrap(),
            python_hash_ring(t()).unwrap(),
            nginx(t()).unwrap(),
            twemproxy(&servers, TwemproxyOptions { hash: TwemproxyHash::Hsieh, hash_tag: Some(*b"{}") }).unwrap(),
            guava(t(), GuavaKey::Murmur3_128).unwrap(),
            redis_cluster(&slots, RedisClusterOptions { tag_rule: HashTagRule::ClusterKeySlot }).unwrap(),
            pymemcache_rendezvous(t(), PymemcacheOptions::default()).unwrap(),
            libmemcached_modula(t(), LibmemcachedHash::OneAtATime).unwrap(),
            python_memcached(t(), &[1]).unwrap(),
            java_hashcode_modulo(t()).unwrap(),
            phpredis_array(t(), PhpredisOptions::default()).unwrap(),
            phpredis_array(t(), PhpredisOptions { consistent: true, hash: PhpredisHash::Md5 }).unwrap(),
            dalli(t()).unwrap(),
            redis_rb_distributed(t(), RedisRbOptions::default()).unwrap(),
            gomemcache(t()).unwrap(),
            groupcache(t(), GROUPCACHE_DEFAULT_REPLICAS).unwrap(),
        ]
    }

    /// Every preset answers every key with a node or a typed error, and its batch, replica
    /// and single-key answers agree.
    #[test]
    fn any_bytes_route_or_are_refused() {
        let keys: Vec<Vec<u8>> = vec![
            b"".to_vec(),
            b"foo".to_vec(),
            b"{user}.x".to_vec(),
            "\u{e9}t\u{e9} \u{1F600}".as_bytes().to_vec(),
            b"\xff\xfe\x80".to_vec(),
            (0..=255u8).collect(),
            vec![b'k'; 300],
        ];
        let keys: Vec<Vec<u8>> =
            keys.into_iter().chain((0..20).map(|i| alloc::format!("key-{i}").into_bytes())).collect();
        for router in all_presets() {
            let n = router.topology().len() as u32;
            for key in &keys {
                match router.route(key) {
                    Ok(owner) => {
                        assert!(owner < n);
                        let mut out = [u32::MAX; 1];
                        match router.replicas(key, &mut out) {
                            Ok(()) => assert_eq!(out[0], owner),
                            Err(e) => assert_eq!(e, Error::ReplicasUnsupported),
                        }
                    }
                    Err(e) => assert!(matches!(e, Error::InvalidKey(_)), "{e:?}"),
                }
            }
            let good: Vec<&[u8]> = keys.iter().map(Vec::as_slice).filter(|k| router.route(k).is_ok()).collect();
            let mut out = vec![0u32; good.len()];
            router.route_batch(&good, &mut out).unwrap();
            for (k, &o) in good.iter().zip(&out) {
                assert_eq!(router.route(k).unwrap(), o);
            }
        }
    }
}
