//! Small arbitrary topologies rendered as spec JSON, shared by the differential and transition
//! targets.

#![allow(dead_code)]

use arbitrary::Arbitrary;
use serde_json::{Map, Value, json};

use super::reference::RefNode;

/// Node ids: a small alphabet, so ids repeat (duplicate_node_id) and two topologies share
/// nodes; with the empty id and one of 4097 bytes (invalid_node_id), JSON escapes and non-ASCII.
pub fn id_of(sel: u8) -> String {
    const IDS: [&str; 30] = [
        "a",
        "b",
        "c",
        "d",
        "e",
        "f",
        "g",
        "h",
        "cache-0",
        "cache-1",
        "cache-2",
        "cache-3",
        "10.0.0.1:11211",
        "10.0.0.2:11211",
        "é",
        "日本",
        "\u{1F600}",
        "a\"b",
        "back\\slash",
        "x y",
        "0",
        "1",
        "2",
        "ab",
        "ba",
        "\u{0}",
        "\u{FFFD}",
        "",
        "LONG",
        "MAX",
    ];
    match IDS[sel as usize % IDS.len()] {
        "LONG" => "x".repeat(4097),
        "MAX" => "y".repeat(4096),
        s => s.to_string(),
    }
}

/// Zones: a few, the empty zone included (it is a zone).
pub fn zone_of(sel: u8) -> String {
    ["z0", "z1", "z2", "", "zé"][sel as usize % 5].to_string()
}

#[derive(Arbitrary, Debug, Clone)]
pub struct NodeIn {
    pub id: u8,
    /// `None`: no `weight` field (weight 1). Otherwise `weight % 6`.
    pub weight: Option<u8>,
    pub zone: Option<u8>,
}

impl NodeIn {
    pub fn weight(&self) -> u32 {
        self.weight.map_or(1, |w| u32::from(w % 6))
    }

    pub fn reference(&self) -> RefNode {
        RefNode {
            id: id_of(self.id).into_bytes(),
            weight: self.weight(),
            zone: self.zone.map(|z| zone_of(z).into_bytes()),
        }
    }

    pub fn json(&self, zones: bool) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("id".into(), Value::String(id_of(self.id)));
        if let Some(w) = self.weight {
            m.insert("weight".into(), json!(u32::from(w % 6)));
        }
        if zones && let Some(z) = self.zone {
            m.insert("zone".into(), Value::String(zone_of(z)));
        }
        m
    }
}

/// A spec document.
pub fn spec_json(algorithm: &str, params: Map<String, Value>, nodes: Vec<Value>, version: Option<u64>) -> String {
    let mut doc = Map::new();
    doc.insert("algorithm".into(), Value::String(algorithm.into()));
    if !params.is_empty() {
        doc.insert("params".into(), Value::Object(params));
    }
    doc.insert("nodes".into(), Value::Array(nodes));
    if let Some(v) = version {
        doc.insert("version".into(), json!(v));
    }
    Value::Object(doc).to_string()
}

/// The topology errors of SPEC.md's common definitions that apply to these nodes.
pub fn topology_errors(nodes: &[RefNode]) -> Vec<&'static str> {
    let mut errs = Vec::new();
    if nodes.is_empty() {
        errs.push("empty_topology");
    }
    if nodes.iter().any(|n| n.id.is_empty() || n.id.len() > 4096) {
        errs.push("invalid_node_id");
    }
    for (i, a) in nodes.iter().enumerate() {
        if nodes[..i].iter().any(|b| b.id == a.id) {
            errs.push("duplicate_node_id");
            break;
        }
    }
    if !nodes.is_empty() && nodes.iter().map(|n| u64::from(n.weight)).sum::<u64>() == 0 {
        errs.push("zero_total_weight");
    }
    errs
}

/// All weights equal.
pub fn uniform(nodes: &[RefNode]) -> bool {
    nodes.windows(2).all(|w| w[0].weight == w[1].weight)
}
