//! Which keys sit where a placement would not put them: the servers' own listings checked key
//! by key against a spec (or a transition), and the ranking of candidate specs by how many
//! keys each places where they really are ("which ring are the writers using?").

use keyroute_bindings::{Error, ErrorCode, Result, Router, Transition};

use crate::addr::NodeAddr;
use crate::cache::{Backend, Listed};

/// Something that names each key's owner: a router, or a transition at some progress.
pub trait Placement: Sync {
    /// The id of `key`'s owner.
    ///
    /// # Errors
    /// `invalid_key` for a key the placement cannot route.
    fn owner(&self, key: &[u8]) -> Result<&str>;

    /// The ids of every node a key can be placed on.
    fn node_ids(&self) -> Vec<&str>;
}

impl Placement for Router {
    fn owner(&self, key: &[u8]) -> Result<&str> {
        self.route_id(key)
    }

    fn node_ids(&self) -> Vec<&str> {
        (0..u32::try_from(self.len()).unwrap_or(u32::MAX)).filter_map(|i| self.node_id(i)).collect()
    }
}

impl Placement for Transition {
    fn owner(&self, key: &[u8]) -> Result<&str> {
        self.route_id(key)
    }

    fn node_ids(&self) -> Vec<&str> {
        (0..u32::try_from(self.len()).unwrap_or(u32::MAX)).filter_map(|i| self.node_id(i)).collect()
    }
}

/// What each node holds, as listed.
#[derive(Debug, Clone, Default)]
pub struct Inventory {
    /// Per node: its address and its keys.
    pub nodes: Vec<(NodeAddr, Vec<Listed>)>,
}

impl Inventory {
    /// Lists every node at `addrs`, one thread per node.
    ///
    /// # Errors
    /// The first node's error (`io`, naming it).
    pub fn list(backend: Backend, addrs: &[NodeAddr], sizes: bool) -> Result<Self> {
        let lists: Vec<Result<Vec<Listed>>> = std::thread::scope(|scope| {
            let handles: Vec<_> = addrs.iter().map(|a| scope.spawn(move || backend.connect(a)?.list(sizes))).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(Error::new(ErrorCode::Internal, "a listing thread panicked"))))
                .collect()
        });
        let nodes = addrs.iter().cloned().zip(lists).map(|(a, l)| l.map(|l| (a, l))).collect::<Result<_>>()?;
        Ok(Self { nodes })
    }

    /// Keys on every node.
    #[must_use]
    pub fn keys(&self) -> u64 {
        self.nodes.iter().map(|(_, l)| l.len() as u64).sum()
    }
}

/// A key on a node its placement would not put it on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Misplaced {
    /// The key.
    pub key: Vec<u8>,
    /// Its owner by the placement; `None` when the placement cannot route it.
    pub owner: Option<String>,
}

/// One node's audit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeAudit {
    /// The node.
    pub addr: NodeAddr,
    /// Keys it holds.
    pub keys: u64,
    /// Bytes the server counts for them (memcached item sizes; 0 when not asked for).
    pub bytes: u64,
    /// Keys the placement routes to another node (or cannot route).
    pub misplaced: u64,
    /// The first misplaced keys, at most the number asked for.
    pub samples: Vec<Misplaced>,
}

/// A fleet's audit against one placement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Audit {
    /// Per node, in the order listed.
    pub nodes: Vec<NodeAudit>,
}

impl Audit {
    /// The audit as JSON (`keyroute audit --json`): keys, misplaced, and per node its id,
    /// address, keys, misplaced and samples (keys as [`key_text`] writes them).
    #[must_use]
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "keys": self.keys(),
            "misplaced": self.misplaced(),
            "nodes": self.nodes.iter().map(|n| serde_json::json!({
                "id": n.addr.id,
                "address": n.addr.socket_text(),
                "keys": n.keys,
                "misplaced": n.misplaced,
                "samples": n.samples.iter().map(|s| serde_json::json!({"key": key_text(&s.key), "owner": s.owner})).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
    }

    /// Keys on every node.
    #[must_use]
    pub fn keys(&self) -> u64 {
        self.nodes.iter().map(|n| n.keys).sum()
    }

    /// Misplaced keys on every node.
    #[must_use]
    pub fn misplaced(&self) -> u64 {
        self.nodes.iter().map(|n| n.misplaced).sum()
    }
}

/// Checks every listed key against `placement`, keeping up to `samples` misplaced keys per node.
#[must_use]
pub fn audit(inventory: &Inventory, placement: &dyn Placement, samples: usize) -> Audit {
    let nodes = inventory
        .nodes
        .iter()
        .map(|(addr, listed)| {
            let mut node = NodeAudit { addr: addr.clone(), keys: 0, bytes: 0, misplaced: 0, samples: Vec::new() };
            for l in listed {
                node.keys += 1;
                node.bytes += l.size;
                let owner = placement.owner(&l.key).ok();
                if owner != Some(addr.id.as_str()) {
                    node.misplaced += 1;
                    if node.samples.len() < samples {
                        node.samples.push(Misplaced { key: l.key.clone(), owner: owner.map(str::to_owned) });
                    }
                }
            }
            node
        })
        .collect();
    Audit { nodes }
}

/// How well a candidate placement explains where the keys are.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// The candidate's name (a preset or algorithm name, or a file name).
    pub name: String,
    /// Keys it places on the node that holds them.
    pub placed: u64,
    /// `placed` over all keys (0 when there are none).
    pub share: f64,
}

/// Ranks `candidates` by the share of keys each places where they are, best first (ties keep
/// the given order).
#[must_use]
pub fn rank(inventory: &Inventory, candidates: &[(String, Router)]) -> Vec<Ranked> {
    let total = inventory.keys();
    let mut ranked: Vec<Ranked> = candidates
        .iter()
        .map(|(name, router)| {
            let a = audit(inventory, router, 0);
            let placed = a.keys() - a.misplaced();
            let share = if total == 0 { 0.0 } else { placed as f64 / total as f64 };
            Ranked { name: name.clone(), placed, share }
        })
        .collect();
    ranked.sort_by_key(|r| std::cmp::Reverse(r.placed));
    ranked
}

/// A key as text: printable ASCII as it is, every other byte (and `%`) as `%XX`, the escape
/// memcached's metadump uses.
#[must_use]
pub fn key_text(key: &[u8]) -> String {
    let mut out = String::with_capacity(key.len());
    for &b in key {
        if b.is_ascii_graphic() && b != b'%' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inventory(nodes: &[(&str, &[&str])]) -> Inventory {
        Inventory {
            nodes: nodes
                .iter()
                .map(|(id, keys)| {
                    let addr = NodeAddr { id: (*id).to_owned(), host: "h".into(), port: 1 };
                    (addr, keys.iter().map(|k| Listed { key: k.as_bytes().to_vec(), size: 10 }).collect())
                })
                .collect(),
        }
    }

    #[test]
    fn misplaced_keys_are_counted_and_sampled() {
        let router = Router::from_json(r#"{"algorithm": "ring", "nodes": [{"id": "a"}, {"id": "b"}]}"#).unwrap();
        let keys: Vec<String> = (0..200).map(|i| format!("k{i}")).collect();
        let on_a: Vec<&str> = keys.iter().map(String::as_str).collect();
        let inv = inventory(&[("a", &on_a), ("b", &[])]);
        let a = audit(&inv, &router, 3);
        let expected = keys.iter().filter(|k| router.route_id(k.as_bytes()).unwrap() != "a").count() as u64;
        assert!(expected > 50 && expected < 150, "{expected}");
        assert_eq!((a.keys(), a.misplaced(), a.nodes[0].bytes), (200, expected, 2000));
        assert_eq!(a.nodes[0].samples.len(), 3);
        assert_eq!(a.nodes[0].samples[0].owner.as_deref(), Some("b"));
    }

    #[test]
    fn the_ring_the_writers_use_ranks_first() {
        let ring =
            Router::from_json(r#"{"algorithm": "ring", "nodes": [{"id": "a"}, {"id": "b"}, {"id": "c"}]}"#).unwrap();
        let modulo =
            Router::from_json(r#"{"algorithm": "modulo", "nodes": [{"id": "a"}, {"id": "b"}, {"id": "c"}]}"#).unwrap();
        let keys: Vec<String> = (0..300).map(|i| format!("user:{i}")).collect();
        let mut by_node: Vec<(&str, Vec<&str>)> = vec![("a", vec![]), ("b", vec![]), ("c", vec![])];
        for k in &keys {
            let owner = modulo.route_id(k.as_bytes()).unwrap();
            by_node.iter_mut().find(|(id, _)| *id == owner).unwrap().1.push(k);
        }
        let nodes: Vec<(&str, &[&str])> = by_node.iter().map(|(id, k)| (*id, k.as_slice())).collect();
        let ranked = rank(&inventory(&nodes), &[("ring".into(), ring), ("modulo".into(), modulo)]);
        assert_eq!((ranked[0].name.as_str(), ranked[0].placed, ranked[0].share), ("modulo", 300, 1.0));
        assert!(ranked[1].share < 0.6);
    }

    #[test]
    fn keys_print_as_metadump_escapes_them() {
        assert_eq!(key_text(b"user:1"), "user:1");
        assert_eq!(key_text(b"a b%\x00\xff"), "a%20b%25%00%FF");
    }
}
