//! nginx `hash $key consistent` (`ngx_http_upstream_hash_module`; the stream module is the
//! same code).

use alloc::boxed::Box;

use super::PresetRouter;
use crate::ring::{LookupRule, NameCount, PointPlacement, TieBreak};
use crate::{Error, KeyHash, PointScheme, Result, Ring, Router, Topology};

/// nginx's consistent-hash upstream: ring and key rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nginx {
    ring: Ring,
}

impl Nginx {
    /// The upstream peer for `key` (the evaluated hash key's bytes).
    ///
    /// # Errors
    /// [`Error::InvalidKey`] for the empty key, which nginx sends to round-robin instead of the
    /// ring: the answer depends on live request history that keyroute does not model.
    pub fn route(&self, key: &[u8]) -> Result<u32> {
        Self::check(key)?;
        Ok(self.ring.route(key))
    }

    /// Distinct peers in the order nginx's retries walk the points (next point on failure),
    /// zones first when nodes carry zones.
    ///
    /// # Errors
    /// As [`Nginx::route`]; [`Error::ReplicasExceedNodes`].
    pub fn replicas(&self, key: &[u8], out: &mut [u32]) -> Result<()> {
        Self::check(key)?;
        self.ring.replicas(key, out)
    }

    /// The ring of points.
    #[must_use]
    pub fn ring(&self) -> &Ring {
        &self.ring
    }

    fn check(key: &[u8]) -> Result<()> {
        if key.is_empty() {
            return Err(Error::InvalidKey("nginx routes an empty hash key round-robin, not by the ring"));
        }
        Ok(())
    }
}

/// nginx `upstream { hash $key consistent; server …; }`, for servers whose ids are the
/// `server` tokens exactly as written in the configuration (`10.0.0.1:80`, `backend`,
/// `unix:/tmp/sock`), with their `weight=`.
///
/// Quirks reproduced:
/// - each server's points chain CRC32s over `host \0 port` followed by the previous point
///   (little-endian, 0 before the first): `160 × weight` points;
/// - `host` and `port` come from the token's text, never from resolution: `unix:` (any case)
///   drops the prefix and has no port; otherwise the digits after the last `:` are the port
///   (`[::1]:80` → `[::1]`, `80`); a token without one hashes an **empty** port, not 80;
/// - equal points are kept once, for the earliest server (glibc's stable `qsort`);
/// - the key hash is CRC32; lower-bound lookup, wrapping to the first point.
///
/// Not modelled: `down`, `max_fails` and `max_conns` (nginx skips such peers and tries the next
/// point), and several peers from one name that resolves to several addresses (they share
/// one token, hence one set of points, and nginx balances among them round-robin).
///
/// # Errors
/// As [`Ring::with_scheme`].
pub fn nginx(topology: Topology) -> Result<Router> {
    let bases: Box<[Box<[u8]>]> = topology
        .nodes()
        .iter()
        .map(|n| {
            let (host, port) = split_server(n.id());
            [host, b"\0", port].concat().into_boxed_slice()
        })
        .collect();
    let scheme = PointScheme {
        placement: PointPlacement::Crc32Chain { bases },
        count: NameCount::PerWeight(160),
        key_hash: KeyHash::Crc32,
        lookup: LookupRule::LowerBound,
        ties: TieBreak::FirstNode,
    };
    Ok(Router::Preset(PresetRouter::Nginx(Nginx { ring: Ring::with_scheme(topology, &scheme)? })))
}

/// nginx's split of a `server` token into the host and port text it hashes.
fn split_server(server: &[u8]) -> (&[u8], &[u8]) {
    if let Some(prefix) = server.get(..5)
        && prefix.eq_ignore_ascii_case(b"unix:")
    {
        return (server.get(5..).unwrap_or(&[]), &[]);
    }
    let digits = server.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    let colon = server.len() - digits;
    match colon.checked_sub(1).and_then(|at| server.get(at).map(|&b| (at, b))) {
        Some((at, b':')) => (server.get(..at).unwrap_or(&[]), server.get(colon..).unwrap_or(&[])),
        _ => (server, &[]),
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use super::*;
    use crate::Node;

    #[test]
    fn host_port_split() {
        let cases: [(&[u8], &[u8], &[u8]); 8] = [
            (b"127.0.0.1:80", b"127.0.0.1", b"80"),
            (b"backend", b"backend", b""),
            (b"[::1]:80", b"[::1]", b"80"),
            (b"UNIX:/tmp/s:1", b"/tmp/s:1", b""),
            (b"host:", b"host", b""),
            (b"host:8x", b"host:8x", b""),
            (b"80", b"80", b""),
            (b":80", b"", b"80"),
        ];
        for (server, host, port) in cases {
            assert_eq!(split_server(server), (host, port), "{}", alloc::string::String::from_utf8_lossy(server));
        }
    }

    fn routes(t: &[(&str, u32)], keys: &[&str]) -> Vec<u32> {
        let t = Topology::new(t.iter().map(|&(s, w)| Node::new(s).with_weight(w)).collect::<Vec<_>>()).unwrap();
        let r = nginx(t).unwrap();
        keys.iter().map(|k| r.route(k.as_bytes()).unwrap()).collect()
    }

    /// upstream test values (PEERS.md#nginx) (run against nginx HEAD).
    #[test]
    fn spec_vectors() {
        let keys = ["a", "b", "foo", "user42"];
        assert_eq!(
            routes(&[("127.0.0.1:18081", 1), ("127.0.0.1:18082", 1), ("127.0.0.1:18083", 1)], &keys),
            [1, 2, 0, 2]
        );
        assert_eq!(
            routes(&[("127.0.0.1:18081", 2), ("127.0.0.2:18082", 1), ("127.0.0.1:18083", 3)], &keys),
            [2, 2, 1, 2]
        );
        assert_eq!(routes(&[("127.0.0.1", 1), ("127.0.0.1:18082", 1)], &keys), [1, 0, 0, 1]);
    }

    #[test]
    fn empty_key_is_refused() {
        let r = nginx(Topology::uniform("127.0.0.1:", 2).unwrap()).unwrap();
        assert!(matches!(r.route(b""), Err(Error::InvalidKey(_))));
    }
}
