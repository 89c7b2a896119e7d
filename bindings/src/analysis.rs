//! Ownership, balance and diffs, keyed by node id: the core's analysis
//! ([`keyroute::analysis`]) as every surface reports it, computed in one place.
//!
//! Rings, Maglev tables and hash-slot tables are measured exactly on the key-hash space; jump,
//! modulo and rendezvous in closed form; the rest from sample keys. [`Method`] says which, by
//! one name every surface shares ([`Method::name`]).

pub use keyroute::analysis::{Balance, Method};

use crate::{Result, Router};

/// The share of keys one node owns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeShare<'r> {
    /// The node's id.
    pub id: &'r str,
    /// Its share of all keys.
    pub share: f64,
}

/// Who owns what share of the keys, and how evenly.
#[derive(Debug, Clone, PartialEq)]
pub struct Ownership<'r> {
    /// Per node, in the router's node order; shares sum to 1.
    pub shares: Vec<NodeShare<'r>>,
    /// How even the shares are, relative to each node's weight.
    pub balance: Balance,
    /// How the shares were obtained.
    pub method: Method,
}

/// A share of all keys that goes from one node (in A) to another (in B).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Flow<'r> {
    /// The node in A.
    pub from: &'r str,
    /// The node in B.
    pub to: &'r str,
    /// `from`'s position in A.
    pub from_index: u32,
    /// `to`'s position in B.
    pub to_index: u32,
    /// Share of all keys.
    pub share: f64,
}

/// A moved piece of the key-hash space (exact diffs only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MovedArc<'r> {
    /// First hash of the piece.
    pub start: u64,
    /// Last hash of the piece (inclusive).
    pub end: u64,
    /// Its owner in A.
    pub from: &'r str,
    /// Its owner in B.
    pub to: &'r str,
    /// `from`'s position in A.
    pub from_index: u32,
    /// `to`'s position in B.
    pub to_index: u32,
}

/// What changing from router A to router B does.
#[derive(Debug, Clone, PartialEq)]
pub struct Diff<'r> {
    /// Share of keys whose owner (by id) changes.
    pub moved: f64,
    /// The least any router could move for this change of nodes and weights
    /// ([`keyroute::analysis::ideal_moved`]).
    pub ideal_moved: f64,
    /// Every (from, to) pair with a positive share, staying keys included, sorted by position.
    pub flows: Vec<Flow<'r>>,
    /// The moved pieces of the hash space, in hash order (exact diffs only; else empty).
    pub moved_arcs: Vec<MovedArc<'r>>,
    /// How the figures were obtained.
    pub method: Method,
}

/// The key-hash space as pieces, each owned by one node: `starts[i]` is the first hash of
/// piece `i` and `owners[i]` its owner (a node position). Where the router is such a map
/// (rings, Maglev, hash slots); `None` otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pieces {
    /// The space has `2^bits` hashes (for a 128-bit ring, starts are the top 64 bits).
    pub bits: u32,
    /// First hash of each piece, increasing, the first 0.
    pub starts: Vec<u64>,
    /// Owner of each piece.
    pub owners: Vec<u32>,
}

/// The pieces of `router`'s key-hash space, where it has them.
#[must_use]
pub fn pieces(router: &Router) -> Option<Pieces> {
    let s = keyroute::analysis::segments(router.core())?;
    Some(Pieces {
        bits: s.bits(),
        starts: s.starts().iter().map(|&(start, _)| start).collect(),
        owners: s.starts().iter().map(|&(_, owner)| owner).collect(),
    })
}

/// The share of keys each node of `router` owns, and their balance.
#[must_use]
pub fn ownership(router: &Router) -> Ownership<'_> {
    let core = router.core();
    let own = keyroute::analysis::ownership(core);
    let balance = own.balance(core.topology());
    let shares = (0u32..)
        .zip(&own.shares)
        .map(|(i, &share)| NodeShare { id: router.node_id(i).unwrap_or_default(), share })
        .collect();
    Ownership { shares, balance, method: own.method }
}

/// What changing from `a` to `b` moves; nodes are matched by id.
///
/// # Errors
/// `invalid_key` when sample keys are needed and one of the routers refuses them.
pub fn diff<'r>(a: &'r Router, b: &'r Router) -> Result<Diff<'r>> {
    let d = keyroute::analysis::diff(a.core(), b.core())?;
    let (ida, idb) = (|i: u32| a.node_id(i).unwrap_or_default(), |i: u32| b.node_id(i).unwrap_or_default());
    Ok(Diff {
        moved: d.moved,
        ideal_moved: keyroute::analysis::ideal_moved(a.core().topology(), b.core().topology()),
        flows: d
            .flows
            .iter()
            .map(|f| Flow { from: ida(f.from), to: idb(f.to), from_index: f.from, to_index: f.to, share: f.share })
            .collect(),
        moved_arcs: d
            .moved_arcs
            .iter()
            .map(|m| MovedArc {
                start: m.start,
                end: m.end,
                from: ida(m.from),
                to: idb(m.to),
                from_index: m.from,
                to_index: m.to,
            })
            .collect(),
        method: d.method,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adding_a_node_to_a_ring_moves_about_its_share_onto_it() {
        let a = Router::from_json(r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#).unwrap();
        let b =
            Router::from_json(r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"}]}"#).unwrap();
        let d = diff(&a, &b).unwrap();
        assert_eq!(d.method.name(), "exact");
        assert!((d.ideal_moved - 0.25).abs() < 1e-12);
        assert!((d.moved - 0.25).abs() < 0.05, "{}", d.moved);
        let onto_d: f64 = d.flows.iter().filter(|f| f.from != f.to).map(|f| f.share).sum();
        assert!((onto_d - d.moved).abs() < 1e-12);
        assert!(d.flows.iter().filter(|f| f.from != f.to).all(|f| f.to == "d"));
        assert!(d.moved_arcs.iter().all(|m| m.to == "d" && m.start <= m.end));
        let own = ownership(&b);
        assert_eq!(own.shares.iter().map(|s| s.id).collect::<Vec<_>>(), ["a", "b", "c", "d"]);
        assert!((own.shares.iter().map(|s| s.share).sum::<f64>() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn the_ideal_counts_weights() {
        let a = Router::from_json(r#"{"algorithm":"rendezvous","nodes":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#).unwrap();
        let b = Router::from_json(
            r#"{"algorithm":"rendezvous","nodes":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d","weight":2}]}"#,
        )
        .unwrap();
        let d = diff(&a, &b).unwrap();
        assert!((d.ideal_moved - 0.4).abs() < 1e-12);
        assert_eq!(d.method.name(), "expected");
    }
}
