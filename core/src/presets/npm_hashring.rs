//! npm `hashring` 3.x (3rd-Eden/node-hashring), with `connection-parse` for server strings.

use alloc::vec::Vec;

use super::{PresetRouter, TextRing, prefixes, reweighted, text_ids};
use crate::ring::{LookupRule, NameCount, NameDigest, PointPlacement, TieBreak};
use crate::{Error, KeyHash, PointScheme, Result, Ring, Router, Topology};

/// `new HashRing(servers, 'md5', options)` options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NpmHashringOptions {
    /// `'vnode count'` (default 40): names per server at equal weights, shared out as
    /// `Math.floor(weight / total · vnodes · servers)` in IEEE double.
    pub vnode_count: u32,
    /// Little-endian MD5 words used per name: 4 by default (`'ketama'`), 3 with
    /// `compatibility: 'hash_ring'`. The peer turns 0 into 1; more than 4 is refused.
    pub replicas: u8,
    /// `'default port'`: a server `host:port` whose port equals it is named by its host alone.
    /// `Some(0)` is no default port, as in JavaScript (`0 || null`).
    pub default_port: Option<u32>,
}

impl NpmHashringOptions {
    /// npm hashring's `'vnode count'` default.
    pub const VNODE_COUNT: u32 = 40;
    /// npm hashring's points per name by default (`'ketama'` compatibility).
    pub const REPLICAS: u8 = 4;
}

impl Default for NpmHashringOptions {
    fn default() -> Self {
        Self { vnode_count: Self::VNODE_COUNT, replicas: Self::REPLICAS, default_port: None }
    }
}

impl NpmHashringOptions {
    /// `{ compatibility: 'hash_ring' }`: 3 points per name (the Python `hash_ring` layout).
    #[must_use]
    pub fn hash_ring_compatibility() -> Self {
        Self { replicas: 3, ..Self::default() }
    }
}

/// npm `hashring` 3.x `HashRing.get`, for servers given as strings (the topology's ids, in
/// order) with their weights.
///
/// Quirks reproduced:
/// - point counts in IEEE double: 7 equal servers get `floor((1/7)·40·7) = 39` names, not 40;
/// - weight 0 counts as 1 (`+value || 1`; the topology's weights change accordingly);
/// - point names are `string-i`, or `host-i` when the default port is set and the string's
///   port equals it, where `host` and `port` come from `string.split(':')` (text before the
///   first `:`, and the JavaScript `Number()` of the text after it);
/// - equal points keep insertion order (stable sort), so the earlier server wins; lookup is
///   libketama's binary search, a lower bound that wraps to the first point.
///
/// Keys and names are JavaScript strings hashed as UTF-8: keys that are not UTF-8 are refused.
/// Per-server `vnodes` (the object form `{weight, vnodes}`) are not modelled.
///
/// # Errors
/// [`Error::InvalidParameter`] for `replicas` above 4, 0 `vnode_count`, or ids that are not
/// UTF-8; as [`Ring::with_scheme`].
pub fn npm_hashring(topology: Topology, options: NpmHashringOptions) -> Result<Router> {
    if options.replicas > 4 {
        return Err(Error::InvalidParameter("npm hashring reads at most 4 words of an MD5 digest"));
    }
    if options.vnode_count == 0 {
        return Err(Error::InvalidParameter("npm hashring vnode count must be at least 1"));
    }
    let topology = reweighted(topology, |w| w.max(1))?;
    let strings = text_ids(&topology, "npm hashring servers are strings: ids must be UTF-8")?;
    let default_port = options.default_port.filter(|&p| p != 0);
    let names: Vec<&str> = strings
        .iter()
        .map(|s| {
            let mut parts = s.split(':');
            let host = parts.next().unwrap_or(s);
            match (default_port, parts.next()) {
                (Some(d), Some(port)) if js_number_is(port, d) => host,
                _ => s,
            }
        })
        .collect();
    let scheme = PointScheme {
        placement: PointPlacement::Named {
            prefixes: prefixes(names.iter().map(|n| n.as_bytes()), b"-"),
            digest: NameDigest::Md5Words(options.replicas.max(1)),
        },
        count: NameCount::DoubleShare { per_node: options.vnode_count },
        key_hash: KeyHash::Md5,
        lookup: LookupRule::LowerBound,
        ties: TieBreak::FirstNode,
    };
    let ring = Ring::with_scheme(topology, &scheme)?;
    Ok(Router::Preset(PresetRouter::TextRing(TextRing::new(
        ring,
        "npm hashring hashes JavaScript strings: the key must be UTF-8",
    ))))
}

/// Whether JavaScript's `Number(text) === n` (`StringToNumber`, for a positive integer `n`).
///
/// Surrounding white space is ignored; then the text must be a decimal literal (optional
/// sign, digits with an optional fraction, optional exponent) or a `0x`/`0o`/`0b` integer.
/// Decimal values are compared after rounding to the nearest double, as JavaScript does.
fn js_number_is(text: &str, n: u32) -> bool {
    let t = text.trim_matches(is_js_space);
    if t.is_empty() {
        return false; // Number("") is 0, and `n` is positive.
    }
    for (prefix, radix) in [("0x", 16), ("0X", 16), ("0o", 8), ("0O", 8), ("0b", 2), ("0B", 2)] {
        if let Some(digits) = t.strip_prefix(prefix) {
            // No sign is allowed after the prefix; a value past u32 cannot equal `n`.
            return digits.chars().all(|c| c.is_digit(radix)) && u32::from_str_radix(digits, radix) == Ok(n);
        }
    }
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (unsigned.get(..at).unwrap_or(""), unsigned.get(at + 1..)),
        None => (unsigned, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits_ok = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let exp_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && digits_ok(e)
    });
    if !(digits_ok(int) && digits_ok(frac) && !(int.is_empty() && frac.is_empty()) && exp_ok) {
        return false; // NaN (this also rejects "Infinity", which is not an integer anyway)
    }
    // The grammar is now a subset of Rust's float syntax, which rounds to nearest exactly.
    t.parse::<f64>().is_ok_and(|v| v == f64::from(n))
}

/// JavaScript `WhiteSpace` and `LineTerminator` code points (what `String.prototype.trim`
/// and `Number()` strip).
fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{d}'
            | ' '
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
            | '\u{feff}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Node;

    fn topology(servers: &[(&str, u32)]) -> Topology {
        Topology::new(servers.iter().map(|&(s, w)| Node::new(s).with_weight(w)).collect::<Vec<_>>()).unwrap()
    }

    fn routes(r: &Router, keys: &[&str]) -> Vec<u32> {
        keys.iter().map(|k| r.route(k.as_bytes()).unwrap()).collect()
    }

    /// upstream test values (PEERS.md#npm-hashring): the upstream fixtures' first five keys.
    #[test]
    fn upstream_fixtures() {
        let weighted = topology(&[("0.0.0.1", 1), ("0.0.0.2", 2), ("0.0.0.3", 3), ("0.0.0.4", 4), ("0.0.0.5", 5)]);
        let keys = ["0", "1", "2", "3", "4"];
        let r = npm_hashring(weighted.clone(), NpmHashringOptions::default()).unwrap();
        assert_eq!(routes(&r, &keys), [3, 4, 3, 2, 4]);
        let r = npm_hashring(weighted, NpmHashringOptions::hash_ring_compatibility()).unwrap();
        assert_eq!(routes(&r, &keys), [3, 4, 3, 2, 4]);
        let ports = topology(&[
            ("0.0.0.1:11211", 1),
            ("0.0.0.2:11211", 1),
            ("0.0.0.3", 1),
            ("0.0.0.4:11213", 1),
            ("0.0.0.5:11212", 1),
        ]);
        let r = npm_hashring(ports, NpmHashringOptions { default_port: Some(11211), ..Default::default() }).unwrap();
        assert_eq!(routes(&r, &keys), [3, 4, 4, 2, 0]);
    }

    #[test]
    fn seven_servers_get_39_names() {
        let t = topology(&[("a", 1), ("b", 1), ("c", 1), ("d", 1), ("e", 1), ("f", 1), ("g", 1)]);
        let Router::Preset(PresetRouter::TextRing(r)) = npm_hashring(t, NpmHashringOptions::default()).unwrap() else {
            panic!("a text ring")
        };
        assert_eq!(r.ring().points(), 7 * 39 * 4);
    }

    #[test]
    fn javascript_number_equality() {
        for yes in ["11211", " 11211\t", "011211", "+11211", "11211.0", "1.1211e4", "0x2bcb", "0o25713", "11211."] {
            assert!(js_number_is(yes, 11211), "{yes}");
        }
        for no in ["", "11212", "11211a", "-11211", "0x", "1e", ".", "Infinity", "11_211", "0x-2bcb", "11211.5"] {
            assert!(!js_number_is(no, 11211), "{no}");
        }
    }
}
