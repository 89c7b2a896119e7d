//! phpredis 5.3 `RedisArray`: its default `hash % n`-style placement and its `consistent` ring,
//! with each key hash its `algorithm` option can name.

use super::PresetRouter;
use crate::ring::{LookupRule, NameCount, NameDigest, PointPlacement, TieBreak};
use crate::{Error, KeyHash, PointScheme, Result, Ring, Router, Topology, hash};

/// The key hash `RedisArray` applies to a key's tag: its `algorithm` option (a name of PHP's
/// `hash` extension), or none.
///
/// Without the option (or with a name `hash` does not know) the hash is phpredis's own CRC-32
/// loop, which never applies the final inversion: `!crc32(tag)`. With a name, the first
/// `min(8, digest size)` digest bytes are read as a little-endian integer (on 64-bit PHP),
/// then reduced `% 0xffffffff`. PHP writes the 32- and 64-bit digests big-endian, so for those
/// the number routed on is the byte-swapped hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "lowercase"))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum PhpredisHash {
    /// No `algorithm` option: `crc32(tag) ^ 0xffffffff`.
    #[default]
    Default,
    /// `md5`: the first 8 digest bytes, little-endian, `% 0xffffffff`.
    Md5,
    /// `crc32b` (the IEEE CRC-32 of `crc32()`): byte-swapped, `% 0xffffffff`.
    Crc32b,
    /// `fnv132` (FNV-1 32): byte-swapped, `% 0xffffffff`.
    Fnv132,
    /// `fnv1a32` (FNV-1a 32): byte-swapped, `% 0xffffffff`.
    Fnv1a32,
    /// `fnv164` (FNV-1 64): byte-swapped, `% 0xffffffff`.
    Fnv164,
    /// `fnv1a64` (FNV-1a 64): byte-swapped, `% 0xffffffff`.
    Fnv1a64,
    /// `joaat` (Jenkins one-at-a-time over unsigned bytes): byte-swapped, `% 0xffffffff`.
    Joaat,
    /// `murmur3a` (MurmurHash3 x86_32, seed 0): byte-swapped, `% 0xffffffff`.
    Murmur3a,
    /// `xxh64` (XXH64, seed 0): byte-swapped, `% 0xffffffff`.
    Xxh64,
    /// `xxh3` (XXH3-64, seed 0): byte-swapped, `% 0xffffffff`.
    Xxh3,
}

/// Largest value phpredis's reductions work in.
const SPACE: u64 = 0xffff_ffff;

impl PhpredisHash {
    /// The number `RedisArray` places `tag` by (always at most `0xffffffff`).
    #[must_use]
    pub fn hash(self, tag: &[u8]) -> u64 {
        let short = |h: u32| u64::from(h.swap_bytes()) % SPACE;
        let long = |h: u64| h.swap_bytes() % SPACE;
        match self {
            Self::Default => u64::from(!hash::crc32(tag)),
            Self::Md5 => {
                let d = hash::md5(tag);
                let mut first = [0u8; 8];
                first.copy_from_slice(d.get(..8).unwrap_or(&[0; 8]));
                u64::from_le_bytes(first) % SPACE
            }
            Self::Crc32b => short(hash::crc32(tag)),
            Self::Fnv132 => short(hash::fnv1_32(tag)),
            Self::Fnv1a32 => short(hash::fnv1a_32(tag)),
            Self::Fnv164 => long(hash::fnv1_64(tag)),
            Self::Fnv1a64 => long(hash::fnv1a_64(tag)),
            Self::Joaat => short(hash::one_at_a_time(tag)),
            Self::Murmur3a => short(hash::murmur3_x86_32(tag, 0)),
            Self::Xxh64 => long(hash::xxh64(tag, 0)),
            Self::Xxh3 => long(hash::xxh3_64(tag)),
        }
    }
}

/// `RedisArray`'s options that decide placement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PhpredisOptions {
    /// The `consistent => true` option: a ring of 160 MD5 points per host instead of the
    /// default scaling of the hash onto the host list.
    pub consistent: bool,
    /// The `algorithm` option.
    pub hash: PhpredisHash,
}

/// The longest host string the consistent ring names correctly: phpredis formats `host-j` into
/// a 64-byte buffer (`HOST_NAME_MAX`) and hashes as many bytes as the full name has, so a
/// longer host reads past the buffer.
pub const PHPREDIS_MAX_HOST: usize = 60;

/// A phpredis `RedisArray` router. Node ids are the `hosts` strings, in array order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhpredisArray {
    topology: Topology,
    hash: PhpredisHash,
    /// The `consistent` ring, or none for the default placement.
    ring: Option<Ring>,
}

impl PhpredisArray {
    /// The owner of `key`.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] for a key the default placement scales to one past the last host
    /// (its hash is 0 with an `algorithm`, or its CRC-32 is `0xffffffff` without): phpredis
    /// then reads past its host array.
    pub fn route(&self, key: &[u8]) -> Result<u32> {
        let h = self.hash.hash(phpredis_tag(key));
        match &self.ring {
            Some(ring) => Ok(ring.route_hash(h)),
            None => {
                let n = self.topology.len() as u64;
                let pos = ((h ^ SPACE) * n) / SPACE;
                if pos >= n {
                    return Err(Error::InvalidKey("phpredis places this key past its last host"));
                }
                Ok(pos as u32)
            }
        }
    }

    /// Distinct hosts clockwise from the key's point on the consistent ring.
    ///
    /// # Errors
    /// [`Error::ReplicasUnsupported`] for the default placement (it has no order past the
    /// owner); [`Error::ReplicasExceedNodes`].
    pub fn replicas(&self, key: &[u8], out: &mut [u32]) -> Result<()> {
        match &self.ring {
            Some(ring) => ring.replicas_hash(self.hash.hash(phpredis_tag(key)), out),
            None => Err(Error::ReplicasUnsupported),
        }
    }

    /// Whether this is the `consistent` ring.
    #[must_use]
    pub fn is_consistent(&self) -> bool {
        self.ring.is_some()
    }

    /// The topology.
    #[must_use]
    pub fn topology(&self) -> &Topology {
        &self.topology
    }
}

/// The bytes `RedisArray` hashes: between the first `{` and the first `}` after it (possibly
/// nothing), else the whole key. phpredis searches with `strchr`, so a NUL byte ends the search.
#[must_use]
pub fn phpredis_tag(key: &[u8]) -> &[u8] {
    let text = key.split(|&b| b == 0).next().unwrap_or(key);
    let Some(open) = text.iter().position(|&b| b == b'{') else { return key };
    let rest = text.get(open + 1..).unwrap_or(&[]);
    match rest.iter().position(|&b| b == b'}') {
        Some(end) => rest.get(..end).unwrap_or(key),
        None => key,
    }
}

/// phpredis 5.3 `new RedisArray($hosts, $options)` placement (`_target($key)`), with no
/// `function` (extractor), `distributor` or `previous` option.
///
/// Default placement: `pos = ((h ^ 0xffffffff) × n) / 0xffffffff` in 64-bit unsigned
/// arithmetic, `h` the [`PhpredisHash`] of the key's tag. Consistent: 40 names `host-j`
/// (`j` = 0..39) per host, each MD5 digest cut into 4 little-endian u32 points; the first point
/// `>= h`, wrapping to the first; equal points go to the host listed first (glibc's `qsort` is
/// a stable merge sort at these sizes).
///
/// Hosts have no weights, so unequal weights are refused.
///
/// # Errors
/// [`Error::WeightsUnsupported`] when the weights differ; for the ring,
/// [`Error::InvalidParameter`] for a host id longer than [`PHPREDIS_MAX_HOST`] bytes or holding a
/// NUL byte, and the errors of [`Ring::with_scheme`].
pub fn phpredis_array(topology: Topology, options: PhpredisOptions) -> Result<Router> {
    if !topology.is_uniform() {
        return Err(Error::WeightsUnsupported);
    }
    let ring = if options.consistent {
        let mut prefixes = alloc::vec::Vec::new();
        for node in topology.nodes() {
            let id = node.id();
            if id.len() > PHPREDIS_MAX_HOST || id.contains(&0) {
                return Err(Error::InvalidParameter(
                    "a phpredis consistent host must be at most 60 bytes, without a NUL byte",
                ));
            }
            prefixes.push([id, b"-"].concat().into_boxed_slice());
        }
        let scheme = PointScheme {
            placement: PointPlacement::Named { prefixes: prefixes.into_boxed_slice(), digest: NameDigest::Md5Words(4) },
            count: NameCount::Fixed(40),
            // Keys are hashed by the preset (`route_hash`); this only gives the points' width.
            key_hash: KeyHash::Crc32,
            lookup: LookupRule::LowerBound,
            ties: TieBreak::FirstNode,
        };
        Some(Ring::with_scheme(topology.clone(), &scheme)?)
    } else {
        None
    };
    Ok(Router::Preset(PresetRouter::Phpredis(PhpredisArray { topology, hash: options.hash, ring })))
}

#[cfg(test)]
mod tests {
    use alloc::vec;
    use alloc::vec::Vec;

    use super::*;
    use crate::Node;

    fn hosts() -> Topology {
        Topology::new(vec![Node::new("127.0.0.1:1"), Node::new("127.0.0.1:2"), Node::new("127.0.0.1:3")]).unwrap()
    }

    /// Live `_target` answers of php-redis 5.3.7 for these hosts (PEERS.md#phpredis-array).
    #[test]
    fn live_targets() {
        let keys = ["a", "b", "foo", "{x}y", "user:1"];
        let modulo = phpredis_array(hosts(), PhpredisOptions::default()).unwrap();
        let ring = phpredis_array(hosts(), PhpredisOptions { consistent: true, ..Default::default() }).unwrap();
        let got: Vec<(u32, u32)> =
            keys.iter().map(|k| (modulo.route(k.as_bytes()).unwrap(), ring.route(k.as_bytes()).unwrap())).collect();
        assert_eq!(got, [(2, 0), (1, 2), (1, 2), (1, 2), (1, 0)]);
    }

    #[test]
    fn tags() {
        assert_eq!(phpredis_tag(b"a{b}c"), b"b");
        assert_eq!(phpredis_tag(b"{}x"), b"");
        assert_eq!(phpredis_tag(b"}{b"), b"}{b");
        assert_eq!(phpredis_tag(b"x\0{b}"), b"x\0{b}");
        assert_eq!(phpredis_tag(b"{b\0}"), b"{b\0}");
    }

    #[test]
    fn refusals() {
        let w = Topology::new(vec![Node::new("a"), Node::new("b").with_weight(2)]).unwrap();
        assert_eq!(phpredis_array(w, PhpredisOptions::default()).unwrap_err(), Error::WeightsUnsupported);
        let long = Topology::new(vec![Node::new("h".repeat(61).as_str())]).unwrap();
        let ring = PhpredisOptions { consistent: true, ..Default::default() };
        assert!(matches!(phpredis_array(long.clone(), ring), Err(Error::InvalidParameter(_))));
        assert!(phpredis_array(long, PhpredisOptions::default()).is_ok());
        let r = phpredis_array(hosts(), PhpredisOptions::default()).unwrap();
        // crc32("\xff\xff\xff\xff") == 0xffffffff: scaled to one past the last host (live
        // `_target` answers an empty string).
        assert!(matches!(r.route(&[0xff; 4]), Err(Error::InvalidKey(_))));
    }
}
