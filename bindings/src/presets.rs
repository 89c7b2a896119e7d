//! Peer presets from a spec: the `params` of each preset (see `conformance/VECTORS.md`), their
//! defaults, and the core preset they configure.

use keyroute::presets::{
    self, GuavaKey, HashTagRule, LibmemcachedDistribution, LibmemcachedHash, LibmemcachedOptions, MemcachedServer,
    NpmHashringOptions, PymemcacheOptions, RedisClusterOptions, RedisNode, SpymemcachedHash, SpymemcachedNodeKey,
    SpymemcachedOptions, TwemproxyHash, TwemproxyOptions, UhashringOptions,
};
use keyroute::{Router, Topology};
use serde::{Deserialize, Serialize};

use crate::native::Built;
use crate::spec::{Spec, params, to_value};
use crate::{Error, ErrorCode, Result};

/// Builds a peer preset, or `None` when `spec.algorithm` names none.
pub(crate) fn build(spec: &Spec, topology: Topology) -> Option<Result<Built>> {
    Some(match spec.algorithm.as_str() {
        "libmemcached" => libmemcached(spec),
        "spymemcached" => spymemcached(spec),
        "uhashring" => uhashring(spec, topology),
        "npm-hashring" => npm_hashring(spec, topology),
        "python-hash-ring" => {
            params::<NoParams>(&spec.params).and_then(|p| Ok((presets::python_hash_ring(topology)?, to_value(&p))))
        }
        "nginx" => params::<NoParams>(&spec.params).and_then(|p| Ok((presets::nginx(topology)?, to_value(&p)))),
        "twemproxy" => twemproxy(spec),
        "guava" => guava(spec, topology),
        "redis-cluster" => redis_cluster(spec),
        "pymemcache-rendezvous" => params::<PymemcacheParams>(&spec.params).and_then(|p| {
            Ok((presets::pymemcache_rendezvous(topology, PymemcacheOptions { seed: p.seed })?, to_value(&p)))
        }),
        _ => return None,
    })
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct NoParams {}

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

#[derive(Serialize, Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum LmDistribution {
    Ketama,
    KetamaWeighted,
    KetamaSpy,
}

#[derive(Serialize, Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum LmHash {
    OneAtATime,
    Md5,
    Crc,
    #[serde(rename = "fnv1_64")]
    Fnv1_64,
    #[serde(rename = "fnv1a_64")]
    Fnv1a64,
    #[serde(rename = "fnv1_32")]
    Fnv1_32,
    #[serde(rename = "fnv1a_32")]
    Fnv1a32,
    Hsieh,
    Murmur,
    Jenkins,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LibmemcachedParams {
    distribution: LmDistribution,
    /// The key hash in force (libmemcached's default is one_at_a_time; KETAMA_WEIGHTED sets MD5).
    #[serde(default)]
    hash: Option<LmHash>,
    /// The effective weighted flag (libmemcached turns it on when any weight exceeds 1).
    #[serde(default)]
    weighted: Option<bool>,
}

fn libmemcached(spec: &Spec) -> Result<Built> {
    let mut p: LibmemcachedParams = params(&spec.params)?;
    let weighted_default =
        matches!(p.distribution, LmDistribution::KetamaWeighted) || spec.nodes.iter().any(|n| n.weight > 1);
    let weighted = *p.weighted.get_or_insert(weighted_default);
    let hash_default =
        if matches!(p.distribution, LmDistribution::KetamaWeighted) { LmHash::Md5 } else { LmHash::OneAtATime };
    let hash = *p.hash.get_or_insert(hash_default);
    let options = LibmemcachedOptions {
        distribution: match p.distribution {
            LmDistribution::Ketama => LibmemcachedDistribution::Ketama,
            LmDistribution::KetamaWeighted => LibmemcachedDistribution::KetamaWeighted,
            LmDistribution::KetamaSpy => LibmemcachedDistribution::KetamaSpy,
        },
        hash: match hash {
            LmHash::OneAtATime => LibmemcachedHash::OneAtATime,
            LmHash::Md5 => LibmemcachedHash::Md5,
            LmHash::Crc => LibmemcachedHash::Crc,
            LmHash::Fnv1_64 => LibmemcachedHash::Fnv1_64,
            LmHash::Fnv1a64 => LibmemcachedHash::Fnv1a64,
            LmHash::Fnv1_32 => LibmemcachedHash::Fnv1_32,
            LmHash::Fnv1a32 => LibmemcachedHash::Fnv1a32,
            LmHash::Hsieh => LibmemcachedHash::Hsieh,
            LmHash::Murmur => LibmemcachedHash::Murmur,
            LmHash::Jenkins => LibmemcachedHash::Jenkins,
        },
        weighted,
    };
    Ok((presets::libmemcached(&servers(spec)?, options)?, to_value(&p)))
}

#[derive(Serialize, Deserialize, Clone, Copy, Default)]
#[serde(rename_all = "snake_case")]
enum SpyFormat {
    #[default]
    Spymemcached,
    Libmemcached,
}

#[derive(Serialize, Deserialize, Clone, Copy, Default)]
#[serde(rename_all = "snake_case")]
enum SpyHash {
    #[default]
    Ketama,
    Native,
    Crc,
    #[serde(rename = "fnv1_64")]
    Fnv1_64,
    #[serde(rename = "fnv1a_64")]
    Fnv1a64,
    #[serde(rename = "fnv1_32")]
    Fnv1_32,
    #[serde(rename = "fnv1a_32")]
    Fnv1a32,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SpymemcachedParams {
    #[serde(default)]
    format: SpyFormat,
    #[serde(default)]
    hash: SpyHash,
    /// True when the locator was given a weights map.
    #[serde(default)]
    weighted: bool,
}

fn spymemcached(spec: &Spec) -> Result<Built> {
    let p: SpymemcachedParams = params(&spec.params)?;
    let options = SpymemcachedOptions {
        format: match p.format {
            SpyFormat::Spymemcached => SpymemcachedNodeKey::Spymemcached,
            SpyFormat::Libmemcached => SpymemcachedNodeKey::Libmemcached,
        },
        hash: match p.hash {
            SpyHash::Ketama => SpymemcachedHash::Ketama,
            SpyHash::Native => SpymemcachedHash::Native,
            SpyHash::Crc => SpymemcachedHash::Crc,
            SpyHash::Fnv1_64 => SpymemcachedHash::Fnv1_64,
            SpyHash::Fnv1a64 => SpymemcachedHash::Fnv1a64,
            SpyHash::Fnv1_32 => SpymemcachedHash::Fnv1_32,
            SpyHash::Fnv1a32 => SpymemcachedHash::Fnv1a32,
        },
        weighted: p.weighted,
    };
    Ok((presets::spymemcached(&servers(spec)?, options)?, to_value(&p)))
}

#[derive(Serialize, Deserialize, Clone, Copy, Default, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum UhashringMode {
    #[default]
    Default,
    Ketama,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct UhashringParams {
    #[serde(default)]
    mode: UhashringMode,
    #[serde(default)]
    vnodes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    replicas: Option<u8>,
}

fn uhashring(spec: &Spec, topology: Topology) -> Result<Built> {
    let mut p: UhashringParams = params(&spec.params)?;
    let options = match p.mode {
        UhashringMode::Ketama => {
            UhashringOptions::Ketama { vnodes: *p.vnodes.get_or_insert(40), replicas: *p.replicas.get_or_insert(4) }
        }
        UhashringMode::Default => {
            if p.replicas.is_some() {
                return Err(Error::new(ErrorCode::InvalidSpec, "uhashring's default mode has no replicas parameter"));
            }
            UhashringOptions::Meta { vnodes: *p.vnodes.get_or_insert(160) }
        }
    };
    Ok((presets::uhashring(topology, options)?, to_value(&p)))
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct NpmHashringParams {
    #[serde(default = "forty")]
    vnode_count: u32,
    #[serde(default = "four")]
    replicas: u8,
    #[serde(default)]
    default_port: Option<u32>,
}
fn forty() -> u32 {
    40
}
fn four() -> u8 {
    4
}

fn npm_hashring(spec: &Spec, topology: Topology) -> Result<Built> {
    let p: NpmHashringParams = params(&spec.params)?;
    let options = NpmHashringOptions { vnode_count: p.vnode_count, replicas: p.replicas, default_port: p.default_port };
    Ok((presets::npm_hashring(topology, options)?, to_value(&p)))
}

#[derive(Serialize, Deserialize, Clone, Copy, Default)]
#[serde(rename_all = "snake_case")]
enum TwHash {
    OneAtATime,
    Md5,
    Crc16,
    Crc32,
    Crc32a,
    #[serde(rename = "fnv1_64")]
    Fnv1_64,
    #[default]
    #[serde(rename = "fnv1a_64")]
    Fnv1a64,
    #[serde(rename = "fnv1_32")]
    Fnv1_32,
    #[serde(rename = "fnv1a_32")]
    Fnv1a32,
    Hsieh,
    Murmur,
    Jenkins,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TwemproxyParams {
    #[serde(default)]
    hash: TwHash,
    #[serde(default)]
    hash_tag: Option<String>,
}

fn twemproxy(spec: &Spec) -> Result<Built> {
    let p: TwemproxyParams = params(&spec.params)?;
    let hash_tag =
        match &p.hash_tag {
            None => None,
            Some(t) => Some(<[u8; 2]>::try_from(t.as_bytes()).map_err(|_| {
                Error::new(ErrorCode::InvalidParameter, format!("hash_tag must be two bytes, got {t:?}"))
            })?),
        };
    let hash = match p.hash {
        TwHash::OneAtATime => TwemproxyHash::OneAtATime,
        TwHash::Md5 => TwemproxyHash::Md5,
        TwHash::Crc16 => TwemproxyHash::Crc16,
        TwHash::Crc32 => TwemproxyHash::Crc32,
        TwHash::Crc32a => TwemproxyHash::Crc32a,
        TwHash::Fnv1_64 => TwemproxyHash::Fnv1_64,
        TwHash::Fnv1a64 => TwemproxyHash::Fnv1a64,
        TwHash::Fnv1_32 => TwemproxyHash::Fnv1_32,
        TwHash::Fnv1a32 => TwemproxyHash::Fnv1a32,
        TwHash::Hsieh => TwemproxyHash::Hsieh,
        TwHash::Murmur => TwemproxyHash::Murmur,
        TwHash::Jenkins => TwemproxyHash::Jenkins,
    };
    Ok((presets::twemproxy(&servers(spec)?, TwemproxyOptions { hash, hash_tag })?, to_value(&p)))
}

#[derive(Serialize, Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum GuavaKeyParam {
    U64be,
    #[serde(rename = "murmur3_128")]
    Murmur3_128,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct GuavaParams {
    key_hash: GuavaKeyParam,
}

fn guava(spec: &Spec, topology: Topology) -> Result<Built> {
    let p: GuavaParams = params(&spec.params)?;
    let key = match p.key_hash {
        GuavaKeyParam::U64be => GuavaKey::U64Be,
        GuavaKeyParam::Murmur3_128 => GuavaKey::Murmur3_128,
    };
    Ok((presets::guava(topology, key)?, to_value(&p)))
}

#[derive(Serialize, Deserialize, Clone, Copy, Default)]
#[serde(rename_all = "kebab-case")]
enum TagRule {
    #[default]
    Redis,
    ClusterKeySlot,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RedisParams {
    #[serde(default)]
    tag_rule: TagRule,
}

fn redis_cluster(spec: &Spec) -> Result<Built> {
    let p: RedisParams = params(&spec.params)?;
    let mut ranges: Vec<Vec<(u16, u16)>> = Vec::with_capacity(spec.nodes.len());
    for n in &spec.nodes {
        let slots = n.slots.as_deref().ok_or_else(|| {
            Error::new(ErrorCode::InvalidSpec, format!("node {:?} needs its slots ([[first, last], …])", n.id))
        })?;
        let mut r = Vec::with_capacity(slots.len());
        for &[first, last] in slots {
            let (Ok(first), Ok(last)) = (u16::try_from(first), u16::try_from(last)) else {
                return Err(Error::new(ErrorCode::InvalidSpec, format!("node {:?}: slot past 16383", n.id)));
            };
            r.push((first, last));
        }
        ranges.push(r);
    }
    let nodes: Vec<RedisNode<'_>> =
        spec.nodes.iter().zip(&ranges).map(|(n, r)| RedisNode { id: &n.id, slots: r }).collect();
    let tag_rule = match p.tag_rule {
        TagRule::Redis => HashTagRule::Redis,
        TagRule::ClusterKeySlot => HashTagRule::ClusterKeySlot,
    };
    Ok((presets::redis_cluster(&nodes, RedisClusterOptions { tag_rule })?, to_value(&p)))
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PymemcacheParams {
    #[serde(default)]
    seed: u32,
}

/// The Redis Cluster slot of a key under a preset router, if it is one.
pub(crate) fn slot(router: &Router, key: &[u8]) -> Option<u32> {
    match router {
        Router::Preset(presets::PresetRouter::RedisCluster(r)) => Some(r.slot(key)),
        _ => None,
    }
}
