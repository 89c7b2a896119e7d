//! Peer presets from a spec: the parameters of each preset (the structs are the definition:
//! their serde attributes parse specs, their doc comments and JSON Schema feed the registry and
//! every generated surface; `conformance/PEERS.md` explains each peer), their defaults, and the
//! core preset they configure. The option enums are the core's own (its `serde` feature).

use keyroute::Router;
use keyroute::presets::{
    self, GuavaKey, HashTagRule, LibmemcachedDistribution, LibmemcachedHash, LibmemcachedOptions, MemcachedServer,
    NpmHashringOptions, PymemcacheOptions, RedisClusterOptions, RedisNode, RedisRbOptions, SpymemcachedHash,
    SpymemcachedNodeKey, SpymemcachedOptions, TwemproxyHash, TwemproxyOptions, UhashringOptions,
};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[cfg(feature = "schema")]
use crate::registry::schema_of;
use crate::registry::{Algorithm, Kind, NodeField, NodeForm, build_with};
use crate::spec::Spec;
use crate::{Error, ErrorCode, Result};

use NodeField::{Host, Id, Name, Port, Slots as SlotRanges, Weight, Zone};

/// The nodes as memcached servers (`host` and `port` required).
fn servers(spec: &Spec) -> Result<Vec<MemcachedServer<'_>>> {
    spec.nodes
        .iter()
        .map(|n| {
            let missing = |field: &str| Error::new(ErrorCode::InvalidSpec, format!("node {:?} needs a {field}", n.id));
            let server = MemcachedServer::new(
                &n.id,
                n.host.as_deref().ok_or_else(|| missing("host"))?,
                n.port.ok_or_else(|| missing("port"))?,
            )
            .with_weight(n.weight);
            Ok(match n.name.as_deref() {
                Some(name) => server.with_name(name),
                None => server,
            })
        })
        .collect()
}

/// libmemcached 1.x ketama (libmemcached-awesome 1.1, the same continuum as 1.0.18), bit for
/// bit: the continuum pylibmc, PHP memcached and C clients build with a ketama distribution.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct LibmemcachedParams {
    /// The configured distribution (`MEMCACHED_BEHAVIOR_DISTRIBUTION`, or what
    /// `MEMCACHED_BEHAVIOR_KETAMA` / `KETAMA_WEIGHTED` set).
    distribution: LibmemcachedDistribution,
    /// The key hash in force (`MEMCACHED_BEHAVIOR_HASH`). When absent: `md5` for
    /// `ketama_weighted` (which sets it), `one_at_a_time` (libmemcached's default) otherwise.
    #[serde(default)]
    hash: Option<LibmemcachedHash>,
    /// libmemcached's effective weighted flag. When absent: on for `ketama_weighted`, off when
    /// no server's weight is above 1. Otherwise it depends on the call order (servers added
    /// after the distribution was set, or pushed as a list, turn it on; setting `ketama` or
    /// `consistent` after adding them turns it off), so it must be given.
    #[serde(default)]
    weighted: Option<bool>,
    /// The key hash in force when the continuum was last built (unweighted points only):
    /// libmemcached does not rebuild it when the hash changes, so a hash set after the
    /// servers and the distribution leaves points of the previous one. When absent: `hash`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    point_hash: Option<LibmemcachedHash>,
}

fn libmemcached(spec: &Spec, p: &mut LibmemcachedParams, budget: keyroute::Budget) -> Result<Router> {
    let weighted = match (p.weighted, p.distribution) {
        (Some(w), _) => w,
        (None, LibmemcachedDistribution::KetamaWeighted) => true,
        (None, _) if spec.nodes.iter().all(|n| n.weight <= 1) => false,
        (None, _) => {
            return Err(Error::new(
                ErrorCode::InvalidParameter,
                "libmemcached: with a server weight above 1 the weighted flag depends on the order of calls \
                 (servers added after the distribution was set turn it on, setting the distribution after \
                 adding them turns it off): give params.weighted",
            ));
        }
    };
    p.weighted = Some(weighted);
    let hash_default = match p.distribution {
        LibmemcachedDistribution::KetamaWeighted => LibmemcachedHash::Md5,
        _ => LibmemcachedHash::OneAtATime,
    };
    let hash = *p.hash.get_or_insert(hash_default);
    let point_hash = p.point_hash.unwrap_or(hash);
    let options = LibmemcachedOptions { distribution: p.distribution, hash, weighted, point_hash };
    Ok(presets::libmemcached_within(&servers(spec)?, options, budget)?)
}

/// libmemcached's `MODULA` distribution (pylibmc's default): `hash(key) % servers`, servers in
/// the order added. The peer ignores weights: unequal ones are refused.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct LibmemcachedModulaParams {
    /// The key hash (`MEMCACHED_BEHAVIOR_HASH`, pylibmc's `hash` behaviour).
    #[serde(default)]
    hash: LibmemcachedHash,
}

/// python-memcached 1.x server selection: `((crc32(key) >> 16) & 0x7fff) % buckets`, each
/// server repeated once per unit of weight, rehashed (up to 10 tries) past dead servers.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct PythonMemcachedParams {
    /// The servers the client holds dead (`mark_dead`, a failed connect), as their ids
    /// separated by commas (so an id with a comma cannot be listed): their keys move by the
    /// client's rehash, and keys that find no live server in 10 tries are refused.
    #[serde(default)]
    dead: String,
}

fn python_memcached(p: &mut PythonMemcachedParams, t: keyroute::Topology) -> Result<Router> {
    let dead = p
        .dead
        .split(',')
        .filter(|id| !id.is_empty())
        .map(|id| {
            t.position(id.as_bytes()).ok_or_else(|| {
                Error::new(ErrorCode::InvalidParameter, format!("python-memcached: dead server {id:?} is not a node"))
            })
        })
        .collect::<Result<Vec<u32>>>()?;
    Ok(presets::python_memcached(t, &dead)?)
}

/// gomemcache's `ServerList` (Go, `memcache.New(servers...)`): `crc32.ChecksumIEEE(key) %
/// servers`, node ids the server strings in order, a weight of w meaning the server is listed w
/// times in a row. Keys the client calls malformed (over 250 bytes, or a byte outside `!`..`~`)
/// are refused.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct GomemcacheParams {}

/// groupcache's `consistenthash.Map` (Go; the ring `HTTPPool` picks peers with): `replicas`
/// points per peer named `strconv.Itoa(i) + id`, CRC-32 (IEEE) points and keys, the first
/// point at or above the key's hash, the peer added last winning equal points.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct GroupcacheParams {
    /// Points per peer: `consistenthash.New`'s first argument (`HTTPPoolOptions.Replicas`, whose
    /// 0 means 50).
    #[serde(default = "groupcache_replicas")]
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    replicas: u32,
}

fn groupcache_replicas() -> u32 {
    presets::GROUPCACHE_DEFAULT_REPLICAS
}

/// `Math.floorMod(key.hashCode(), n)` in Java, over nodes in order (keys as Java strings).
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct JavaHashCodeParams {}

/// phpredis 5.3 `RedisArray` (`_target($key)`): node ids are the `hosts` strings in array order;
/// the key's `{tag}` (first `{` to the next `}`, possibly empty) is hashed, and the hash scaled
/// onto the hosts (`((h ^ 0xffffffff) * n) / 0xffffffff`) or, with `consistent`, looked up on a
/// ring of 160 MD5 points per host. Hosts have no weights.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct PhpredisArrayParams {
    /// The `consistent => true` option: the MD5 ring (points of `host-0` … `host-39`).
    #[serde(default)]
    consistent: bool,
    /// The `algorithm` option, a PHP `hash()` algorithm name (`default`: none given).
    #[serde(default)]
    hash: presets::PhpredisHash,
}

/// Dalli 3.0 `Dalli::Ring` (Rails' `:mem_cache_store`): node ids are Dalli's server names
/// (`host:port`, or a UNIX socket's path) with their weights.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct DalliParams {}

/// redis-rb 4.x `Redis::Distributed` and its `Redis::HashRing`: node ids are the clients' ids
/// (`redis://host:port/db`, or the `id` option), equal weights.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct RedisRbDistributedParams {
    /// `HashRing.new(nodes, replicas)`: points per node.
    #[serde(default = "redis_rb_replicas")]
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    replicas: u32,
    /// Hash a key's `{tag}` (the first `{…}` at the start of a line, `Redis::Distributed`'s
    /// default tag rule) instead of the whole key; false for a bare `Redis::HashRing#get_node`.
    #[serde(default = "redis_rb_tag")]
    tag: bool,
}
/// The core's defaults (`RedisRbOptions::default()`).
fn redis_rb_replicas() -> u32 {
    RedisRbOptions::REPLICAS
}
fn redis_rb_tag() -> bool {
    RedisRbOptions::default().tag
}

/// spymemcached 2.12 `KetamaNodeLocator` (what `KetamaConnectionFactory` builds): a server's
/// node key is `host:port` unless the node gives its exact `name` (e.g. `host/1.2.3.4:11211`
/// for a resolved host name).
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct SpymemcachedParams {
    /// `KetamaNodeKeyFormatter.Format`: how a node's key is written.
    #[serde(default)]
    format: SpymemcachedNodeKey,
    /// `DefaultHashAlgorithm`: the key hash.
    #[serde(default)]
    hash: SpymemcachedHash,
    /// Whether the locator was given a weights map (`isWeightedKetama`); weights count only
    /// then.
    #[serde(default)]
    weighted: bool,
}

/// Which uhashring ring.
#[derive(Serialize, Deserialize, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
enum UhashringMode {
    /// `HashRing(nodes)`: the default ring (`MetaRing`), one 128-bit MD5 point per vnode.
    #[default]
    Default,
    /// `HashRing(nodes, hash_fn="ketama")`: the ketama ring, `replicas` 32-bit points per vnode.
    Ketama,
}

/// uhashring 2.x `HashRing`, over node names (the ids) with their weights.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct UhashringParams {
    /// Which ring.
    #[serde(default)]
    mode: UhashringMode,
    /// `vnodes`: names per node at weight 1. When absent: 160 (default mode) or 40 (ketama).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    vnodes: Option<u32>,
    /// `replicas` (ketama mode only): points per name, 1 to 4. When absent: 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = 4)))]
    replicas: Option<u8>,
}

fn uhashring(p: &mut UhashringParams, t: keyroute::Topology) -> Result<Router> {
    let options = match p.mode {
        UhashringMode::Ketama => UhashringOptions::Ketama {
            vnodes: *p.vnodes.get_or_insert(UhashringOptions::KETAMA_VNODES),
            replicas: *p.replicas.get_or_insert(UhashringOptions::KETAMA_REPLICAS),
        },
        UhashringMode::Default => {
            if p.replicas.is_some() {
                return Err(Error::new(ErrorCode::InvalidSpec, "uhashring's default mode has no replicas parameter"));
            }
            UhashringOptions::Meta { vnodes: *p.vnodes.get_or_insert(UhashringOptions::META_VNODES) }
        }
    };
    Ok(presets::uhashring(t, options)?)
}

/// npm `hashring` 3.x (what the `memcached` package uses), over servers as written (the ids)
/// with their weights.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct NpmHashringParams {
    /// `'vnode count'`: names per server at equal weights.
    #[serde(default = "npm_hashring_vnode_count")]
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    vnode_count: u32,
    /// Points per name: 4 (`'ketama'`), or 3 for `compatibility: 'hash_ring'`.
    #[serde(default = "npm_hashring_replicas")]
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 4)))]
    replicas: u8,
    /// `'default port'`: a server `host:port` with this port is named by its host alone.
    #[serde(default)]
    default_port: Option<u32>,
}
/// The core's defaults (`NpmHashringOptions::default()`).
fn npm_hashring_vnode_count() -> u32 {
    NpmHashringOptions::VNODE_COUNT
}
fn npm_hashring_replicas() -> u8 {
    NpmHashringOptions::REPLICAS
}

/// PyPI `hash_ring` 1.3 `HashRing(nodes, weights)`.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct PythonHashRingParams {}

/// nginx `hash $key consistent` (http and stream upstreams): node ids are the `server` tokens
/// as written.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct NginxParams {}

/// twemproxy (nutcracker) 0.5 `distribution: ketama`.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct TwemproxyParams {
    /// `hash:`, the key hash.
    #[serde(default)]
    hash: TwemproxyHash,
    /// `hash_tag:`, two characters (e.g. `"{}"`): only the text between them is hashed.
    #[serde(default)]
    hash_tag: Option<String>,
}

fn twemproxy(spec: &Spec, p: &mut TwemproxyParams, budget: keyroute::Budget) -> Result<Router> {
    let hash_tag =
        match &p.hash_tag {
            None => None,
            Some(t) => Some(<[u8; 2]>::try_from(t.as_bytes()).map_err(|_| {
                Error::new(ErrorCode::InvalidParameter, format!("hash_tag must be two bytes, got {t:?}"))
            })?),
        };
    Ok(presets::twemproxy_within(&servers(spec)?, TwemproxyOptions { hash: p.hash, hash_tag }, budget)?)
}

/// Guava `Hashing.consistentHash` over buckets in order (equal weights, no replicas).
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct GuavaParams {
    /// What `consistentHash` is given for a key.
    #[serde(default)]
    key_hash: GuavaKey,
}

/// Redis Cluster: a key's slot (CRC16 of its `{hash tag}` or the whole key, of 16384) and the
/// master serving it; every node lists its slot ranges.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct RedisClusterParams {
    /// Which bytes of a key are hashed into its slot.
    #[serde(default)]
    tag_rule: HashTagRule,
}

fn redis_cluster(spec: &Spec, p: &RedisClusterParams) -> Result<Router> {
    let mut ranges: Vec<Vec<(u16, u16)>> = Vec::with_capacity(spec.nodes.len());
    for n in &spec.nodes {
        let slots = n.slots.as_deref().ok_or_else(|| {
            Error::new(ErrorCode::InvalidSpec, format!("node {:?} needs its slots ([[first, last], …])", n.id))
        })?;
        // A bound past u16 is past slot 16383 too: the core reports both the same way.
        let clamp = |s: u32| u16::try_from(s).unwrap_or(u16::MAX);
        ranges.push(slots.iter().map(|&[first, last]| (clamp(first), clamp(last))).collect());
    }
    let nodes: Vec<RedisNode<'_>> =
        spec.nodes.iter().zip(&ranges).map(|(n, r)| RedisNode { id: &n.id, slots: r }).collect();
    Ok(presets::redis_cluster(&nodes, RedisClusterOptions { tag_rule: p.tag_rule })?)
}

/// pymemcache 4 `RendezvousHash` (`HashClient`'s default hasher) over node names (`host:port`,
/// as `HashClient` names servers).
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct PymemcacheParams {
    /// The MurmurHash3 seed.
    #[serde(default)]
    seed: u32,
}

const SERVERS: &[NodeField] = &[Id, Host, Port, Weight];

/// The peer presets, in the order docs list them.
pub(crate) static ALGORITHMS: [Algorithm; 18] = [
    Algorithm {
        name: "libmemcached",
        class_name: "Libmemcached",
        kind: Kind::Preset { peer: "libmemcached 1.0.18 / 1.1 (libmemcached-awesome) ketama" },
        nodes: NodeForm::Servers,
        node_fields: SERVERS,
        keywords: &[],
        example: r#"{"algorithm":"libmemcached","params":{"distribution":"ketama_weighted"},"nodes":[
            {"id":"10.0.1.1:11211","host":"10.0.1.1","port":11211},
            {"id":"10.0.1.2:11211","host":"10.0.1.2","port":11211}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<LibmemcachedParams>,
        build: |spec, t| build_with(spec, t, |p, t| libmemcached(spec, p, t.budget())),
    },
    Algorithm {
        name: "spymemcached",
        class_name: "Spymemcached",
        kind: Kind::Preset { peer: "spymemcached 2.12 KetamaNodeLocator" },
        nodes: NodeForm::Servers,
        node_fields: &[Id, Host, Port, Weight, Name],
        keywords: &[],
        example: r#"{"algorithm":"spymemcached","params":{"weighted":true},"nodes":[
            {"id":"10.0.1.1:11211","host":"10.0.1.1","port":11211},
            {"id":"10.0.1.2:11211","host":"10.0.1.2","port":11211}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<SpymemcachedParams>,
        build: |spec, t| {
            build_with(spec, t, |p: &mut SpymemcachedParams, t| {
                let options = SpymemcachedOptions { format: p.format, hash: p.hash, weighted: p.weighted };
                Ok(presets::spymemcached_within(&servers(spec)?, options, t.budget())?)
            })
        },
    },
    Algorithm {
        name: "uhashring",
        class_name: "Uhashring",
        kind: Kind::Preset { peer: "uhashring 2.x HashRing (default and ketama rings)" },
        nodes: NodeForm::Nodes,
        node_fields: &[Id, Weight, Zone],
        // The default ring's 128-bit points are sampled; the ketama ring is analysed exactly.
        keywords: &[],
        example: r#"{"algorithm":"uhashring","nodes":[{"id":"cache-a"},{"id":"cache-b"},{"id":"cache-c"}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<UhashringParams>,
        build: |spec, t| build_with(spec, t, uhashring),
    },
    Algorithm {
        name: "npm-hashring",
        class_name: "NpmHashring",
        kind: Kind::Preset { peer: "npm hashring 3.x" },
        nodes: NodeForm::Nodes,
        node_fields: &[Id, Weight, Zone],
        keywords: &[],
        example: r#"{"algorithm":"npm-hashring","nodes":[{"id":"10.0.1.1:11211"},{"id":"10.0.1.2:11211"},{"id":"10.0.1.3:11211"}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<NpmHashringParams>,
        build: |spec, t| {
            build_with(spec, t, |p: &mut NpmHashringParams, t| {
                let options = NpmHashringOptions {
                    vnode_count: p.vnode_count,
                    replicas: p.replicas,
                    default_port: p.default_port,
                };
                Ok(presets::npm_hashring(t, options)?)
            })
        },
    },
    Algorithm {
        name: "python-hash-ring",
        class_name: "PythonHashRing",
        kind: Kind::Preset { peer: "PyPI hash_ring 1.3" },
        nodes: NodeForm::Nodes,
        node_fields: &[Id, Weight, Zone],
        keywords: &[],
        example: r#"{"algorithm":"python-hash-ring","nodes":[{"id":"10.0.1.1:11211"},{"id":"10.0.1.2:11211"},{"id":"10.0.1.3:11211"}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<PythonHashRingParams>,
        build: |spec, t| build_with(spec, t, |_: &mut PythonHashRingParams, t| Ok(presets::python_hash_ring(t)?)),
    },
    Algorithm {
        name: "nginx",
        class_name: "Nginx",
        kind: Kind::Preset { peer: "nginx hash $key consistent (http and stream)" },
        nodes: NodeForm::Nodes,
        node_fields: &[Id, Weight, Zone],
        keywords: &[],
        example: r#"{"algorithm":"nginx","nodes":[{"id":"10.0.1.1:8080"},{"id":"10.0.1.2:8080"},{"id":"10.0.1.3:8080"}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<NginxParams>,
        build: |spec, t| build_with(spec, t, |_: &mut NginxParams, t| Ok(presets::nginx(t)?)),
    },
    Algorithm {
        name: "twemproxy",
        class_name: "Twemproxy",
        kind: Kind::Preset { peer: "twemproxy (nutcracker) 0.5 distribution: ketama" },
        nodes: NodeForm::Servers,
        node_fields: &[Id, Host, Port, Weight, Name],
        keywords: &[],
        example: r#"{"algorithm":"twemproxy","nodes":[
            {"id":"10.0.1.1:11211","host":"10.0.1.1","port":11211},
            {"id":"10.0.1.2:11211","host":"10.0.1.2","port":11211}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<TwemproxyParams>,
        build: |spec, t| build_with(spec, t, |p, t| twemproxy(spec, p, t.budget())),
    },
    Algorithm {
        name: "guava",
        class_name: "Guava",
        kind: Kind::Preset { peer: "Guava Hashing.consistentHash" },
        nodes: NodeForm::Buckets,
        node_fields: &[Id],
        keywords: &[],
        example: r#"{"algorithm":"guava","nodes":[{"id":"0"},{"id":"1"},{"id":"2"}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<GuavaParams>,
        build: |spec, t| build_with(spec, t, |p: &mut GuavaParams, t| Ok(presets::guava(t, p.key_hash)?)),
    },
    Algorithm {
        name: "redis-cluster",
        class_name: "RedisCluster",
        kind: Kind::Preset { peer: "Redis Cluster key slots (and npm cluster-key-slot)" },
        nodes: NodeForm::SlotRanges,
        node_fields: &[Id, SlotRanges],
        keywords: &[],
        example: r#"{"algorithm":"redis-cluster","nodes":[
            {"id":"redis-a","slots":[[0,5460]]},{"id":"redis-b","slots":[[5461,10922]]},
            {"id":"redis-c","slots":[[10923,16383]]}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<RedisClusterParams>,
        build: |spec, t| build_with(spec, t, |p, _| redis_cluster(spec, p)),
    },
    Algorithm {
        name: "pymemcache-rendezvous",
        class_name: "PymemcacheRendezvous",
        kind: Kind::Preset { peer: "pymemcache 4 RendezvousHash" },
        nodes: NodeForm::Nodes,
        node_fields: &[Id, Zone],
        keywords: &[],
        example: r#"{"algorithm":"pymemcache-rendezvous","nodes":[{"id":"127.0.0.1:11211"},{"id":"127.0.0.1:11212"},{"id":"127.0.0.1:11213"}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<PymemcacheParams>,
        build: |spec, t| {
            build_with(spec, t, |p: &mut PymemcacheParams, t| {
                Ok(presets::pymemcache_rendezvous(t, PymemcacheOptions { seed: p.seed })?)
            })
        },
    },
    Algorithm {
        name: "libmemcached-modula",
        class_name: "LibmemcachedModula",
        kind: Kind::Preset { peer: "libmemcached 1.0.18 / 1.1 MODULA (pylibmc's default distribution)" },
        nodes: NodeForm::Nodes,
        node_fields: &[Id],
        keywords: &[],
        example: r#"{"algorithm":"libmemcached-modula","nodes":[{"id":"10.0.1.1:11211"},{"id":"10.0.1.2:11211"},{"id":"10.0.1.3:11211"}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<LibmemcachedModulaParams>,
        build: |spec, t| {
            build_with(spec, t, |p: &mut LibmemcachedModulaParams, t| Ok(presets::libmemcached_modula(t, p.hash)?))
        },
    },
    Algorithm {
        name: "python-memcached",
        class_name: "PythonMemcached",
        kind: Kind::Preset { peer: "python-memcached 1.x Client server selection" },
        nodes: NodeForm::Nodes,
        node_fields: &[Id, Weight],
        keywords: &[],
        example: r#"{"algorithm":"python-memcached","nodes":[{"id":"10.0.1.1:11211"},{"id":"10.0.1.2:11211","weight":2}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<PythonMemcachedParams>,
        build: |spec, t| build_with(spec, t, python_memcached),
    },
    Algorithm {
        name: "gomemcache",
        class_name: "Gomemcache",
        kind: Kind::Preset { peer: "gomemcache ServerList (Go)" },
        nodes: NodeForm::Nodes,
        node_fields: &[Id, Weight],
        keywords: &[],
        example: r#"{"algorithm":"gomemcache","nodes":[{"id":"10.0.1.1:11211"},{"id":"10.0.1.2:11211"},{"id":"10.0.1.3:11211"}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<GomemcacheParams>,
        build: |spec, t| build_with(spec, t, |_: &mut GomemcacheParams, t| Ok(presets::gomemcache(t)?)),
    },
    Algorithm {
        name: "groupcache",
        class_name: "Groupcache",
        kind: Kind::Preset { peer: "groupcache consistenthash.Map (Go)" },
        nodes: NodeForm::Nodes,
        node_fields: &[Id, Zone],
        keywords: &[],
        example: r#"{"algorithm":"groupcache","nodes":[{"id":"http://10.0.1.1:8000"},{"id":"http://10.0.1.2:8000"},{"id":"http://10.0.1.3:8000"}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<GroupcacheParams>,
        build: |spec, t| build_with(spec, t, |p: &mut GroupcacheParams, t| Ok(presets::groupcache(t, p.replicas)?)),
    },
    Algorithm {
        name: "java-hashcode",
        class_name: "JavaHashCode",
        kind: Kind::Preset { peer: "Java Math.floorMod(key.hashCode(), n)" },
        nodes: NodeForm::Nodes,
        node_fields: &[Id],
        keywords: &[],
        example: r#"{"algorithm":"java-hashcode","nodes":[{"id":"cache-a"},{"id":"cache-b"},{"id":"cache-c"}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<JavaHashCodeParams>,
        build: |spec, t| build_with(spec, t, |_: &mut JavaHashCodeParams, t| Ok(presets::java_hashcode_modulo(t)?)),
    },
    Algorithm {
        name: "phpredis-array",
        class_name: "PhpredisArray",
        kind: Kind::Preset { peer: "phpredis 5.3 RedisArray" },
        nodes: NodeForm::Nodes,
        node_fields: &[Id],
        keywords: &[],
        example: r#"{"algorithm":"phpredis-array","params":{"consistent":true},"nodes":[{"id":"10.0.1.1:6379"},{"id":"10.0.1.2:6379"},{"id":"10.0.1.3:6379"}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<PhpredisArrayParams>,
        build: |spec, t| {
            build_with(spec, t, |p: &mut PhpredisArrayParams, t| {
                Ok(presets::phpredis_array(t, presets::PhpredisOptions { consistent: p.consistent, hash: p.hash })?)
            })
        },
    },
    Algorithm {
        name: "dalli",
        class_name: "Dalli",
        kind: Kind::Preset { peer: "Dalli 3.0 Dalli::Ring (Ruby)" },
        nodes: NodeForm::Nodes,
        node_fields: &[Id, Weight, Zone],
        keywords: &[],
        example: r#"{"algorithm":"dalli","nodes":[{"id":"10.0.1.1:11211"},{"id":"10.0.1.2:11211"},{"id":"10.0.1.3:11211"}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<DalliParams>,
        build: |spec, t| build_with(spec, t, |_: &mut DalliParams, t| Ok(presets::dalli(t)?)),
    },
    Algorithm {
        name: "redis-rb-distributed",
        class_name: "RedisRbDistributed",
        kind: Kind::Preset { peer: "redis-rb 4.x Redis::Distributed (Ruby)" },
        nodes: NodeForm::Nodes,
        node_fields: &[Id, Zone],
        keywords: &[],
        example: r#"{"algorithm":"redis-rb-distributed","nodes":[{"id":"redis://10.0.1.1:6379/0"},{"id":"redis://10.0.1.2:6379/0"}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<RedisRbDistributedParams>,
        build: |spec, t| {
            build_with(spec, t, |p: &mut RedisRbDistributedParams, t| {
                Ok(presets::redis_rb_distributed(t, RedisRbOptions { replicas: p.replicas, tag: p.tag })?)
            })
        },
    },
];

#[cfg(test)]
mod tests {
    use crate::{ErrorCode, Router};

    fn spec(algorithm: &str, params: &str, nodes: &str) -> String {
        format!(r#"{{"algorithm":"{algorithm}","params":{params},"nodes":{nodes}}}"#)
    }

    const W123: &str = r#"[{"id":"a","host":"10.0.0.1","port":11211,"weight":1},
        {"id":"b","host":"10.0.0.2","port":11211,"weight":2},{"id":"c","host":"10.0.0.3","port":11212,"weight":3}]"#;

    /// With a weight above 1, only the call order tells whether libmemcached's continuum is
    /// weighted: the spec must say, except for `ketama_weighted`, which is always weighted.
    #[test]
    fn libmemcached_weighted_flag_is_given_or_refused() {
        for d in ["ketama", "consistent", "ketama_spy"] {
            let e =
                Router::from_json(&spec("libmemcached", &format!(r#"{{"distribution":"{d}"}}"#), W123)).unwrap_err();
            assert_eq!(e.code(), ErrorCode::InvalidParameter, "{d}");
            for w in [true, false] {
                let params = format!(r#"{{"distribution":"{d}","weighted":{w}}}"#);
                assert!(Router::from_json(&spec("libmemcached", &params, W123)).is_ok(), "{d} {w}");
            }
        }
        assert!(Router::from_json(&spec("libmemcached", r#"{"distribution":"ketama_weighted"}"#, W123)).is_ok());
    }

    #[test]
    fn modulo_presets_check_their_params() {
        let nodes = r#"[{"id":"a"},{"id":"b"},{"id":"c"}]"#;
        let e = Router::from_json(&spec("python-memcached", r#"{"dead":"a,x"}"#, nodes)).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidParameter);
        let e = Router::from_json(&spec("python-memcached", r#"{"dead":"a,b,c"}"#, nodes)).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidParameter);
        assert!(Router::from_json(&spec("python-memcached", r#"{"dead":""}"#, nodes)).is_ok());
        let weighted = r#"[{"id":"a"},{"id":"b","weight":2}]"#;
        for algorithm in ["libmemcached-modula", "java-hashcode"] {
            let e = Router::from_json(&spec(algorithm, "{}", weighted)).unwrap_err();
            assert_eq!(e.code(), ErrorCode::WeightsUnsupported, "{algorithm}");
        }
        let e = Router::from_json(&spec("libmemcached-modula", r#"{"hash":"sha1"}"#, nodes)).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidSpec);
    }

    /// uhashring's and npm hashring's defaults are the core's: a spec that leaves them out gets
    /// the core's constants in its canonical form.
    #[test]
    fn peer_defaults_are_the_cores() {
        use keyroute::presets::{NpmHashringOptions, UhashringOptions};
        let params = |algorithm: &str, params: &str| {
            let router = Router::from_json(&spec(algorithm, params, r#"[{"id":"a:1"},{"id":"b:1"}]"#)).unwrap();
            serde_json::from_str::<serde_json::Value>(router.canonical_json()).unwrap()["params"].clone()
        };
        let meta = params("uhashring", "{}");
        assert_eq!(meta["vnodes"], UhashringOptions::META_VNODES);
        let ketama = params("uhashring", r#"{"mode":"ketama"}"#);
        assert_eq!(ketama["vnodes"], UhashringOptions::KETAMA_VNODES);
        assert_eq!(ketama["replicas"], UhashringOptions::KETAMA_REPLICAS);
        let npm = params("npm-hashring", "{}");
        let core = NpmHashringOptions::default();
        assert_eq!(
            (npm["vnode_count"].clone(), npm["replicas"].clone()),
            (core.vnode_count.into(), core.replicas.into())
        );
    }
}
