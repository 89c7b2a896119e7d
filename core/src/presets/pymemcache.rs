//! pymemcache 4 `pymemcache.client.rendezvous.RendezvousHash`.

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::{PresetRouter, text_ids};
use crate::{Error, Result, Router, Topology, hash, replicas};

/// `RendezvousHash(nodes, seed=…)` options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PymemcacheOptions {
    /// The murmur3 seed (pymemcache's default 0).
    pub seed: u32,
}

/// pymemcache's rendezvous hash over node names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PymemcacheRendezvous {
    topology: Topology,
    seed: u32,
    /// Per node, the low byte of each character of `"{node}-"`: the start of every string the
    /// node scores.
    prefixes: Box<[Box<[u8]>]>,
}

impl PymemcacheRendezvous {
    /// The score of node `i` for a key (`murmur3_32(f"{node}-{key}", seed)`).
    fn score(&self, i: usize, key: &str) -> u32 {
        let prefix = self.prefixes.get(i).map_or(&[][..], |p| &p[..]);
        // Python `ord(ch) & 0xFF` per character: the low byte of the code point.
        hash::murmur3_x86_32_stream(prefix.iter().copied().chain(key.chars().map(|c| c as u32 as u8)), self.seed)
    }

    /// The node name of node `i` (checked to be UTF-8 when the router was built).
    fn name(&self, i: usize) -> &[u8] {
        self.topology.nodes().get(i).map_or(&[][..], crate::Node::id)
    }

    fn text(key: &[u8]) -> Result<&str> {
        core::str::from_utf8(key)
            .map_err(|_| Error::InvalidKey("pymemcache hashes Python strings: the key must be UTF-8"))
    }

    /// The winner for `key`: highest score; equal scores go to the larger node name.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] when `key` is not UTF-8.
    pub fn route(&self, key: &[u8]) -> Result<u32> {
        let key = Self::text(key)?;
        let mut best: Option<(u32, usize)> = None;
        for i in 0..self.prefixes.len() {
            let s = self.score(i, key);
            let better = match best {
                None => true,
                Some((bs, bi)) => s > bs || (s == bs && self.name(i) > self.name(bi)),
            };
            if better {
                best = Some((s, i));
            }
        }
        Ok(best.map_or(0, |(_, i)| i as u32))
    }

    /// Nodes by descending score, equal scores larger name first: the owner, then the node
    /// that owns the key once the owner is removed (pymemcache's `remove_node` leaves the other
    /// scores unchanged), and so on; distinct zones first when nodes carry zones.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] when `key` is not UTF-8; [`Error::ReplicasExceedNodes`].
    pub fn replicas(&self, key: &[u8], out: &mut [u32]) -> Result<()> {
        let key = Self::text(key)?;
        let mut ranked: Vec<(u32, usize)> = (0..self.prefixes.len()).map(|i| (self.score(i, key), i)).collect();
        ranked.sort_unstable_by(|a, b| b.0.cmp(&a.0).then_with(|| self.name(b.1).cmp(self.name(a.1))));
        replicas::select(&self.topology, ranked.len(), out, || ranked.iter().map(|&(_, i)| i as u32))
    }

    /// The topology.
    #[must_use]
    pub fn topology(&self) -> &Topology {
        &self.topology
    }
}

/// pymemcache 4 `RendezvousHash.get_node` over nodes named by the topology's ids (what
/// `HashClient` calls them: `"host:port"`, e.g. `10.0.0.1:11211` for the spec `"10.0.0.1"`).
///
/// Quirks reproduced:
/// - the score is pymemcache's pure-Python MurmurHash3_x86_32 of `f"{node}-{key}"`, which
///   reads `ord(ch) & 0xFF` per **character** (not UTF-8 bytes) with the length in
///   characters, so characters above U+00FF count only by their low byte;
/// - highest score wins; equal scores go to the lexicographically larger node name.
///
/// Nodes and keys are Python strings: ids and keys must be UTF-8 (a `bytes` key would be
/// formatted as `b'…'` by pymemcache; pass that text if that is what a client does).
///
/// # Errors
/// [`Error::WeightsUnsupported`] when the weights differ (pymemcache has none);
/// [`Error::InvalidParameter`] for ids that are not UTF-8.
pub fn pymemcache_rendezvous(topology: Topology, options: PymemcacheOptions) -> Result<Router> {
    if !topology.is_uniform() {
        return Err(Error::WeightsUnsupported);
    }
    let names = text_ids(&topology, "pymemcache node names are Python strings: ids must be UTF-8")?;
    let prefixes = names.iter().map(|n| n.chars().chain(['-']).map(|c| c as u32 as u8).collect()).collect();
    Ok(Router::Preset(PresetRouter::Pymemcache(PymemcacheRendezvous { topology, seed: options.seed, prefixes })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Node;

    fn nodes(names: &[&str]) -> Topology {
        Topology::new(names.iter().map(|&n| Node::new(n)).collect::<Vec<_>>()).unwrap()
    }

    /// pymemcache's own test: nodes "0", "1", "2", then "1" removed.
    #[test]
    fn upstream_vectors() {
        let r = pymemcache_rendezvous(nodes(&["0", "1", "2"]), PymemcacheOptions::default()).unwrap();
        for (key, want) in [("ok", 0), ("mykey", 1), ("wat", 2)] {
            assert_eq!(r.route(key.as_bytes()).unwrap(), want, "{key}");
        }
        let mut out = [0u32; 2];
        r.replicas(b"mykey", &mut out).unwrap();
        let removed = pymemcache_rendezvous(nodes(&["0", "2"]), PymemcacheOptions::default()).unwrap();
        // Without node "1", "mykey" goes to "0": the second replica above.
        assert_eq!(removed.route(b"mykey").unwrap(), 0);
        assert_eq!(out, [1, 0]);
    }

    #[test]
    fn characters_count_by_their_low_byte() {
        let r = pymemcache_rendezvous(nodes(&["a"]), PymemcacheOptions { seed: 7 }).unwrap();
        let Router::Preset(PresetRouter::Pymemcache(p)) = &r else { panic!("pymemcache") };
        // U+0141 and U+0041 share their low byte, so they score alike.
        assert_eq!(p.score(0, "\u{141}"), p.score(0, "A"));
        assert_eq!(p.score(0, "x"), hash::murmur3_x86_32(b"a-x", 7));
        assert!(matches!(r.route(b"\xff"), Err(Error::InvalidKey(_))));
    }
}
