//! `hash % n` as the clients people migrate away from compute it: libmemcached's `MODULA`
//! distribution (pylibmc's default), python-memcached's server selection (CRC32 buckets, with
//! its rehash past dead servers), gomemcache's `ServerList` (Go), and Java's
//! `Math.floorMod(key.hashCode(), n)`.

use alloc::vec::Vec;

use super::{LibmemcachedHash, PresetRouter};
use crate::{Error, Result, Router, Topology, hash};

/// Which client's `hash % n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModuloRule {
    /// libmemcached `MEMCACHED_DISTRIBUTION_MODULA`: `hash(key) % servers` with the client's
    /// key hash (`MEMCACHED_BEHAVIOR_HASH`); one server always gets the key.
    Libmemcached(LibmemcachedHash),
    /// python-memcached: `((crc32(key) >> 16) & 0x7fff) % buckets`, a server repeated once per
    /// unit of weight, rehashed past dead servers.
    PythonMemcached,
    /// `Math.floorMod(key.hashCode(), n)` over the key as a Java `String` (UTF-16 code units).
    JavaHashCode,
    /// gomemcache's `ServerList`: `crc32.ChecksumIEEE(key) % servers`, a server listed once per
    /// unit of weight; keys its `Client` refuses as malformed are refused.
    Gomemcache,
}

/// The longest key gomemcache's `Client` sends (`legalKey`); longer ones are malformed.
pub const GOMEMCACHE_MAX_KEY: usize = 250;

/// How many times python-memcached looks for a live server (`Client._SERVER_RETRIES`).
pub const PYTHON_MEMCACHED_RETRIES: u32 = 10;

/// A peer's `hash % n` router.
///
/// Keys the peer cannot take are refused with [`Error::InvalidKey`]: for
/// [`ModuloRule::JavaHashCode`] a key that is not UTF-8 (Java hashes strings); for
/// [`ModuloRule::PythonMemcached`] a key whose every try lands on a dead server (the client
/// finds no server for it); for [`ModuloRule::Gomemcache`] a key the client calls malformed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerModulo {
    topology: Topology,
    rule: ModuloRule,
    /// python-memcached's and gomemcache's bucket list (node indices, each repeated `weight`
    /// times); empty for the other rules, which take `n` from the topology.
    buckets: Vec<u32>,
    /// Per node: marked dead (python-memcached only).
    dead: Vec<bool>,
}

impl PeerModulo {
    /// The owner of `key`.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] as the type describes.
    pub fn route(&self, key: &[u8]) -> Result<u32> {
        let n = self.topology.len() as u32;
        match self.rule {
            ModuloRule::Libmemcached(h) => {
                if n == 1 {
                    // `memcached_generate_hash` skips hashing for a single server.
                    return Ok(0);
                }
                Ok(h.key_hash().hash(key) as u32 % n)
            }
            ModuloRule::JavaHashCode => {
                let text = core::str::from_utf8(key)
                    .map_err(|_| Error::InvalidKey("Java's String.hashCode hashes text: the key is not UTF-8"))?;
                let code = hash::java_hash_units(text.encode_utf16());
                Ok(code.rem_euclid(n as i32) as u32)
            }
            ModuloRule::PythonMemcached => self.python_memcached(key),
            ModuloRule::Gomemcache => {
                if !gomemcache_legal(key) {
                    return Err(Error::InvalidKey(
                        "gomemcache calls the key malformed: over 250 bytes, or a space, control or non-ASCII byte",
                    ));
                }
                // One server gets every key unhashed, which `% 1` also gives.
                let len = self.buckets.len().max(1) as u32;
                Ok(self.buckets.get((hash::crc32(key) % len) as usize).copied().unwrap_or(0))
            }
        }
    }

    /// The node each residue of the key hash goes to, for a rule with a bucket list
    /// (gomemcache's; python-memcached's rehash makes its own); `None` otherwise.
    pub(crate) fn residue_owners(&self) -> Option<&[u32]> {
        matches!(self.rule, ModuloRule::Gomemcache).then_some(&self.buckets[..])
    }

    /// python-memcached's `_get_server`: the bucket of the key's hash; if its server is dead,
    /// the hash becomes `serverHashFunction(str(hash) + str(i))` for try `i`, ten tries in all.
    fn python_memcached(&self, key: &[u8]) -> Result<u32> {
        let len = self.buckets.len() as u32;
        let mut h = python_memcached_hash(key);
        let mut text = [0u8; 16];
        for i in 0..PYTHON_MEMCACHED_RETRIES {
            // The bucket list is never empty (checked when built).
            if let Some(&node) = self.buckets.get((h % len.max(1)) as usize)
                && !self.dead.get(node as usize).copied().unwrap_or(true)
            {
                return Ok(node);
            }
            let used = decimal_pair(&mut text, h, i);
            h = python_memcached_hash(text.get(..used).unwrap_or(&text));
        }
        Err(Error::InvalidKey("python-memcached finds no live server for this key in 10 tries"))
    }

    /// `out.len()` distinct nodes in preference order: none is defined past the owner.
    ///
    /// # Errors
    /// [`Error::ReplicasUnsupported`].
    pub fn replicas(&self, _key: &[u8], _out: &mut [u32]) -> Result<()> {
        Err(Error::ReplicasUnsupported)
    }

    /// The topology.
    #[must_use]
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// Which client's rule.
    #[must_use]
    pub fn rule(&self) -> ModuloRule {
        self.rule
    }

    /// Whether node `index` is marked dead.
    #[must_use]
    pub fn is_dead(&self, index: u32) -> bool {
        self.dead.get(index as usize).copied().unwrap_or(false)
    }
}

/// gomemcache's `legalKey`: at most 250 bytes, each one printable ASCII other than space.
fn gomemcache_legal(key: &[u8]) -> bool {
    key.len() <= GOMEMCACHE_MAX_KEY && key.iter().all(|&b| (b'!'..=b'~').contains(&b))
}

/// python-memcached's `cmemcache_hash`: `((crc32(key) & 0xffffffff) >> 16) & 0x7fff`.
fn python_memcached_hash(key: &[u8]) -> u32 {
    (hash::crc32(key) >> 16) & 0x7fff
}

/// Writes `str(h) + str(i)` in ASCII decimal into `buf`; returns its length (at most 15).
fn decimal_pair(buf: &mut [u8; 16], h: u32, i: u32) -> usize {
    let mut len = 0;
    for v in [h, i] {
        let mut digits = [0u8; 10];
        let mut k = 0;
        let mut x = v;
        loop {
            if let Some(d) = digits.get_mut(k) {
                *d = b'0' + (x % 10) as u8;
            }
            k += 1;
            x /= 10;
            if x == 0 {
                break;
            }
        }
        for d in digits.iter().take(k).rev() {
            if let Some(b) = buf.get_mut(len) {
                *b = *d;
            }
            len += 1;
        }
    }
    len.min(buf.len())
}

/// libmemcached's `MODULA` distribution (pylibmc's default): `hash(key) % servers`, servers in
/// the order added. The peer ignores weights, so unequal weights are refused.
///
/// # Errors
/// [`Error::WeightsUnsupported`] when the weights differ.
pub fn libmemcached_modula(topology: Topology, hash: LibmemcachedHash) -> Result<Router> {
    uniform(topology, ModuloRule::Libmemcached(hash))
}

/// `Math.floorMod(key.hashCode(), n)` over nodes in order. Unequal weights are refused.
///
/// # Errors
/// [`Error::WeightsUnsupported`] when the weights differ.
pub fn java_hashcode_modulo(topology: Topology) -> Result<Router> {
    uniform(topology, ModuloRule::JavaHashCode)
}

fn uniform(topology: Topology, rule: ModuloRule) -> Result<Router> {
    if !topology.is_uniform() {
        return Err(Error::WeightsUnsupported);
    }
    let dead = crate::budget::try_vec(topology.len(), false)?;
    Ok(Router::Preset(PresetRouter::Modulo(PeerModulo { topology, rule, buckets: Vec::new(), dead })))
}

/// python-memcached 1.x `Client(servers)`: each server repeated once per unit of weight in a
/// bucket list (weight 0: no bucket), the key's bucket `cmemcache_hash(key) % buckets`, and
/// past a dead server the client's rehash loop. `dead` lists node indices marked dead.
///
/// # Errors
/// [`Error::TableSizeOutOfRange`] when the buckets (the total weight) pass the topology's
/// budget; [`Error::InvalidParameter`] for a dead index out of range, or when every server
/// with a bucket is dead.
pub fn python_memcached(topology: Topology, dead: &[u32]) -> Result<Router> {
    let buckets = weight_buckets(&topology)?;
    let mut is_dead = crate::budget::try_vec(topology.len(), false)?;
    for &d in dead {
        *is_dead.get_mut(d as usize).ok_or(Error::InvalidParameter("a dead server is not in the topology"))? = true;
    }
    if buckets.iter().all(|&b| is_dead.get(b as usize).copied().unwrap_or(true)) {
        return Err(Error::InvalidParameter("every python-memcached server with a bucket is dead"));
    }
    Ok(Router::Preset(PresetRouter::Modulo(PeerModulo {
        topology,
        rule: ModuloRule::PythonMemcached,
        buckets,
        dead: is_dead,
    })))
}

/// gomemcache's `ServerList` under its `Client`: `SetServers` with each node listed `weight`
/// times in a row (its doc: "a server is given more weight if it's listed multiple times"),
/// and `PickServer`'s `crc32.ChecksumIEEE(key) % len(servers)`.
///
/// Keys the `Client` calls malformed (`ErrMalformedKey`, before any server is picked) are
/// refused: more than 250 bytes, or any byte that is a space, a control byte or past `~`.
/// `PickServer` hashes at most the key's first 256 bytes, which the 250-byte limit makes
/// unreachable through the client.
///
/// # Errors
/// [`Error::TableSizeOutOfRange`] when the server list (the total weight) passes the
/// topology's budget.
pub fn gomemcache(topology: Topology) -> Result<Router> {
    let buckets = weight_buckets(&topology)?;
    let dead = crate::budget::try_vec(topology.len(), false)?;
    Ok(Router::Preset(PresetRouter::Modulo(PeerModulo { topology, rule: ModuloRule::Gomemcache, buckets, dead })))
}

/// Node indices in order, each repeated once per unit of weight (weight 0: not listed).
fn weight_buckets(topology: &Topology) -> Result<Vec<u32>> {
    topology.budget().check_table(topology.total_weight())?;
    let mut buckets = Vec::new();
    buckets.try_reserve_exact(topology.total_weight() as usize).map_err(|_| Error::OutOfMemory)?;
    for (i, node) in topology.nodes().iter().enumerate() {
        for _ in 0..node.weight() {
            buckets.push(i as u32);
        }
    }
    Ok(buckets)
}

#[cfg(test)]
mod tests {
    use alloc::vec;

    use super::*;
    use crate::Node;

    fn nodes(weights: &[u32]) -> Topology {
        Topology::new(
            weights
                .iter()
                .enumerate()
                .map(|(i, &w)| Node::new(alloc::format!("n{i}")).with_weight(w))
                .collect::<Vec<_>>(),
        )
        .unwrap()
    }

    #[test]
    fn decimal_pairs() {
        let mut buf = [0u8; 16];
        let n = decimal_pair(&mut buf, 32767, 9);
        assert_eq!(&buf[..n], b"327679");
        let n = decimal_pair(&mut buf, 0, 0);
        assert_eq!(&buf[..n], b"00");
        // The hash is 15 bits and the try below 10: at most 6 bytes, well inside the buffer.
        let n = decimal_pair(&mut buf, 4_294_967, 12);
        assert_eq!(&buf[..n], b"429496712");
    }

    #[test]
    fn python_memcached_rules() {
        // cmemcache_hash(b"foo") = (crc32 0x8c736521 >> 16) & 0x7fff = 0x0c73 = 3187.
        assert_eq!(python_memcached_hash(b"foo"), 3187);
        let r = python_memcached(nodes(&[1, 1, 1]), &[]).unwrap();
        assert_eq!(r.route(b"foo").unwrap(), 3187 % 3);
        // Weights are repeated buckets: [n0, n1, n1].
        let r = python_memcached(nodes(&[1, 2]), &[]).unwrap();
        assert_eq!(r.route(b"foo").unwrap(), [0, 1, 1][3187 % 3]);
        // The owner dead: the key moves by the rehash, never to the dead node.
        let r = python_memcached(nodes(&[1, 1, 1]), &[1]).unwrap();
        for i in 0..200u32 {
            let k = alloc::format!("key-{i}");
            match r.route(k.as_bytes()) {
                Ok(o) => assert_ne!(o, 1),
                Err(e) => assert!(matches!(e, Error::InvalidKey(_))),
            }
        }
        assert_eq!(
            python_memcached(nodes(&[1, 1]), &[0, 1]).unwrap_err(),
            Error::InvalidParameter("every python-memcached server with a bucket is dead")
        );
        assert!(matches!(python_memcached(nodes(&[1, 1]), &[2]), Err(Error::InvalidParameter(_))));
        // Weight 0: no bucket.
        let r = python_memcached(nodes(&[0, 1]), &[]).unwrap();
        assert!((0..50u32).all(|i| r.route(&i.to_le_bytes()).unwrap() == 1));
    }

    #[test]
    fn gomemcache_rules() {
        // crc32.ChecksumIEEE("foo") = 0x8c736521.
        let r = gomemcache(nodes(&[1, 1, 1])).unwrap();
        assert_eq!(r.route(b"foo").unwrap(), 0x8c73_6521 % 3);
        // A server listed twice in a row: [n0, n1, n1].
        let r = gomemcache(nodes(&[1, 2])).unwrap();
        assert_eq!(r.route(b"foo").unwrap(), [0, 1, 1][0x8c73_6521 % 3]);
        assert_eq!(r.capabilities().weights, crate::Weights::Honoured);
        for bad in [&b"a b"[..], b"\x7f", "\u{e9}".as_bytes(), &[b'k'; 251]] {
            assert!(matches!(r.route(bad), Err(Error::InvalidKey(_))), "{bad:?}");
        }
        assert!(r.route(&[b'k'; 250]).is_ok());
        // The empty key is legal to gomemcache: crc32 0, the first server.
        assert_eq!(r.route(b"").unwrap(), 0);
        // Weight 0: not listed.
        let r = gomemcache(nodes(&[0, 1])).unwrap();
        assert!((0..50u32).all(|i| r.route(alloc::format!("k{i}").as_bytes()).unwrap() == 1));
    }

    #[test]
    fn java_floor_mod() {
        // "foo".hashCode() = 101574; "polygenelubricants".hashCode() = i32::MIN.
        let r = java_hashcode_modulo(nodes(&[1, 1, 1])).unwrap();
        assert_eq!(r.route(b"foo").unwrap(), 101_574 % 3);
        assert_eq!(r.route(b"polygenelubricants").unwrap(), i32::MIN.rem_euclid(3) as u32);
        assert!(matches!(r.route(b"\xff"), Err(Error::InvalidKey(_))));
        assert_eq!(java_hashcode_modulo(nodes(&[1, 2])).unwrap_err(), Error::WeightsUnsupported);
    }

    /// MODULA against libmemcached's unweighted ketama over the same one-at-a-time key hash is
    /// diffed exactly, and the figure agrees with routing keys through both.
    #[test]
    fn modula_to_ketama_is_exact() {
        use crate::analysis::{Method, diff};
        use crate::presets::{LibmemcachedOptions, MemcachedServer, libmemcached};
        let servers = [
            MemcachedServer::new("n0", "10.0.0.1", 11211),
            MemcachedServer::new("n1", "10.0.0.2", 11211),
            MemcachedServer::new("n2", "10.0.0.3", 11211),
        ];
        let ketama = libmemcached(&servers, LibmemcachedOptions::ketama()).unwrap();
        let modula = libmemcached_modula(nodes(&[1, 1, 1]), LibmemcachedHash::OneAtATime).unwrap();
        let exact = diff(&modula, &ketama).unwrap();
        assert_eq!(exact.method, Method::Exact);
        let back = diff(&ketama, &modula).unwrap();
        assert!((back.moved - exact.moved).abs() < 1e-12);
        let keys = 200_000u32;
        let moved = (0..keys)
            .filter(|i| {
                let k = alloc::format!("user:{i}");
                modula.route(k.as_bytes()).unwrap() != ketama.route(k.as_bytes()).unwrap()
            })
            .count();
        let measured = moved as f64 / f64::from(keys);
        assert!((measured - exact.moved).abs() < 0.01, "exact {} measured {measured}", exact.moved);
        // A different key hash on either side: sampled, not exact.
        let md5 = libmemcached_modula(nodes(&[1, 1, 1]), LibmemcachedHash::Md5).unwrap();
        assert!(matches!(diff(&md5, &ketama).unwrap().method, Method::Sampled { .. }));
    }

    /// A Go fleet's move off gomemcache's modulo: diffed exactly against a ring on the same
    /// CRC-32 key hash (groupcache's), weights as repeated servers included, and the figure
    /// agrees with routing keys through both.
    #[test]
    fn gomemcache_to_a_crc32_ring_is_exact() {
        use crate::analysis::{Method, diff};
        let from = gomemcache(nodes(&[1, 2, 1])).unwrap();
        let to = crate::presets::groupcache(nodes(&[1, 1, 1, 1]), 50).unwrap();
        let exact = diff(&from, &to).unwrap();
        assert_eq!(exact.method, Method::Exact);
        let keys = 200_000u32;
        let moved = (0..keys)
            .filter(|i| {
                let k = alloc::format!("user:{i}");
                from.route(k.as_bytes()).unwrap() != to.route(k.as_bytes()).unwrap()
            })
            .count();
        let measured = moved as f64 / f64::from(keys);
        assert!((measured - exact.moved).abs() < 0.01, "exact {} measured {measured}", exact.moved);
    }

    /// gomemcache refuses the binary sample keys: sampling falls back to printable ones, so a
    /// resize from 3 to 4 servers shows the 75% that `crc32 % n` moves (h % 3 = h % 4 only for
    /// h % 12 in 0..3).
    #[test]
    fn gomemcache_resize_is_sampled_with_printable_keys() {
        use crate::analysis::{Method, diff, ownership};
        let d = diff(&gomemcache(nodes(&[1, 1, 1])).unwrap(), &gomemcache(nodes(&[1, 1, 1, 1])).unwrap()).unwrap();
        assert!(matches!(d.method, Method::Sampled { .. }));
        assert!((d.moved - 0.75).abs() < 0.01, "moved {}", d.moved);
        let own = ownership(&gomemcache(nodes(&[1, 2, 1])).unwrap());
        assert_eq!(own.method, Method::Exact);
        assert!((own.shares[1] - 0.5).abs() < 1e-9, "{:?}", own.shares);
    }

    #[test]
    fn libmemcached_modula_rules() {
        let r = libmemcached_modula(nodes(&[1]), LibmemcachedHash::OneAtATime).unwrap();
        assert_eq!(r.route(b"anything").unwrap(), 0);
        let r = libmemcached_modula(nodes(&[1, 1, 1]), LibmemcachedHash::Crc).unwrap();
        assert_eq!(r.route(b"foo").unwrap(), 3187 % 3);
        let mut out = vec![0u32; 1];
        assert_eq!(r.replicas(b"foo", &mut out).unwrap_err(), Error::ReplicasUnsupported);
    }
}
