//! Server addresses as memcached-family clients write them (`"host:port"`), turned into the
//! node fields the presets read, so no surface splits addresses on its own.

use keyroute::presets::MEMCACHED_DEFAULT_PORT;

use crate::{Error, ErrorCode, NodeSpec, Result};

impl NodeSpec {
    /// A node for the server `address`: `host:port`, `host` (port 11211, memcached's default),
    /// or `[v6-address]:port` / `[v6-address]`. The id is `address` exactly as given; `host`
    /// is the text before the port (without brackets), never resolved; `weight` as given.
    ///
    /// # Errors
    /// `invalid_spec` for an empty host, a port that is not a number in 0..=65535, or an
    /// IPv6 address without brackets (its colons would be ambiguous).
    pub fn from_server(address: &str, weight: u32) -> Result<Self> {
        let bad = |why: &str| Error::new(ErrorCode::InvalidSpec, format!("server address {address:?}: {why}"));
        let (host, port) = if let Some(rest) = address.strip_prefix('[') {
            let (host, after) = rest.split_once(']').ok_or_else(|| bad("no closing ']'"))?;
            match after {
                "" => (host, None),
                _ => (host, Some(after.strip_prefix(':').ok_or_else(|| bad("expected ':' after ']'"))?)),
            }
        } else {
            match address.split_once(':') {
                Some((_, rest)) if rest.contains(':') => return Err(bad("write an IPv6 address as [address]:port")),
                Some((host, port)) => (host, Some(port)),
                None => (address, None),
            }
        };
        if host.is_empty() {
            return Err(bad("empty host"));
        }
        let port = match port {
            None => MEMCACHED_DEFAULT_PORT,
            Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
                p.parse().map_err(|_| bad("port above 65535"))?
            }
            Some(_) => return Err(bad("the port is not a number")),
        };
        Ok(Self { weight, host: Some(host.to_owned()), port: Some(port), ..Self::new(address) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(address: &str) -> (String, u16) {
        let n = NodeSpec::from_server(address, 3).unwrap();
        assert_eq!((n.id.as_str(), n.weight), (address, 3));
        (n.host.unwrap(), n.port.unwrap())
    }

    #[test]
    fn addresses_split_into_host_and_port() {
        assert_eq!(parts("10.0.0.1:11212"), ("10.0.0.1".into(), 11212));
        assert_eq!(parts("cache-a"), ("cache-a".into(), 11211));
        assert_eq!(parts("[::1]:27500"), ("::1".into(), 27500));
        assert_eq!(parts("[fe80::1]"), ("fe80::1".into(), 11211));
        assert_eq!(parts("h:0"), ("h".into(), 0));
    }

    #[test]
    fn bad_addresses_are_invalid_specs() {
        for bad in ["", ":11211", "h:", "h:x", "h:-1", "h:+1", "h:65536", "::1", "[::1", "[::1]x", "[]:1"] {
            let err = NodeSpec::from_server(bad, 1).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidSpec, "{bad:?}");
        }
    }
}
