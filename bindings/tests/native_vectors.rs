//! keyroute's generator for the native vector files (`conformance/vectors/v1/native-*.json`).
//!
//! As a test it regenerates every file in memory and fails when a committed file differs (or
//! is missing, or a stale `native-*` file lingers). `make vectors` runs it with
//! `KEYROUTE_BLESS=1`, which writes the files instead. The routes come from
//! `keyroute-bindings` itself; `conformance/naive/` re-implements the schemes independently
//! from `SPEC.md` and must agree with these files.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, missing_docs)]

mod common;

use std::collections::BTreeMap;

use keyroute_bindings::{ErrorCode, Router};
use serde_json::{Value, json};

/// Node lists used across algorithms: (label, nodes).
fn topologies(weighted: bool) -> Vec<(String, Value)> {
    let ids = |n: usize| (0..n).map(|i| json!({ "id": format!("cache-{i}") })).collect::<Vec<_>>();
    let mut out = vec![
        ("1".to_string(), Value::Array(ids(1))),
        ("3".to_string(), Value::Array(ids(3))),
        ("4".to_string(), Value::Array(ids(4))),
        ("50".to_string(), Value::Array(ids(50))),
    ];
    if weighted {
        let nodes = (1..=5).map(|w| json!({ "id": format!("10.0.0.{w}:11211"), "weight": w })).collect();
        out.push(("5w".to_string(), Value::Array(nodes)));
    }
    out
}

/// Six nodes in three zones (for zone-spread replicas).
fn zoned() -> Value {
    json!([
        { "id": "a1", "zone": "zone-a" }, { "id": "a2", "zone": "zone-a" },
        { "id": "b1", "zone": "zone-b" }, { "id": "b2", "zone": "zone-b" },
        { "id": "c1", "zone": "zone-c" }, { "id": "c2", "zone": "zone-c" }
    ])
}

fn provenance() -> Value {
    json!({
        "kind": "generator",
        "generator": "keyroute-bindings tests/native_vectors.rs",
        "version": concat!("keyroute ", env!("CARGO_PKG_VERSION")),
    })
}

/// One file: the spec routed over the shared key set (with replicas when asked).
fn routed_file(id: &str, description: &str, spec: Value, replicas: usize) -> (String, Value) {
    let router = Router::from_json(&spec.to_string()).unwrap_or_else(|e| panic!("{id}: {e}"));
    let mut cases = Vec::new();
    for (i, (tag, key)) in common::shared_keys().into_iter().enumerate() {
        let mut case = serde_json::Map::new();
        case.insert("id".into(), json!(format!("{tag}-{i:03}")));
        let (field, value) = common::key_field(&key);
        case.insert(field.into(), value);
        match router.route_id(&key) {
            Ok(node) => {
                case.insert("node".into(), json!(node));
            }
            Err(e) => {
                case.insert("error".into(), json!(e.code().name()));
                case.insert("code".into(), json!(e.code().code()));
            }
        }
        if replicas > 0 && router.len() >= replicas {
            let mut out = vec![0u32; replicas];
            router.replicas(&key, &mut out).unwrap_or_else(|e| panic!("{id}: {e}"));
            let ids: Vec<&str> = out.iter().map(|&n| router.node_id(n).unwrap()).collect();
            case.insert("replicas".into(), json!(ids));
        }
        cases.push(Value::Object(case));
    }
    let doc = json!({
        "id": id,
        "description": description,
        "provenance": provenance(),
        "spec": spec,
        "cases": cases,
    });
    (format!("{id}.json"), doc)
}

/// Specs that must be refused, each with its error.
fn error_file() -> (String, Value) {
    let node = |id: &str| json!({ "id": id });
    let specs: Vec<(&str, Value, ErrorCode)> = vec![
        ("empty-topology", json!({ "algorithm": "ring", "nodes": [] }), ErrorCode::EmptyTopology),
        (
            "duplicate-id",
            json!({ "algorithm": "ring", "nodes": [node("a"), node("b"), node("a")] }),
            ErrorCode::DuplicateNodeId,
        ),
        ("empty-id", json!({ "algorithm": "ring", "nodes": [node("")] }), ErrorCode::InvalidNodeId),
        (
            "zero-total-weight",
            json!({ "algorithm": "rendezvous", "nodes": [{ "id": "a", "weight": 0 }] }),
            ErrorCode::ZeroTotalWeight,
        ),
        (
            "huge-weight",
            json!({ "algorithm": "ring", "nodes": [{ "id": "a", "weight": 4_294_967_295u32 }] }),
            ErrorCode::TooManyPoints,
        ),
        (
            "negative-weight",
            json!({ "algorithm": "ring", "nodes": [{ "id": "a", "weight": -1 }] }),
            ErrorCode::InvalidSpec,
        ),
        (
            "fractional-weight",
            json!({ "algorithm": "ring", "nodes": [{ "id": "a", "weight": 1.5 }] }),
            ErrorCode::InvalidSpec,
        ),
        (
            "weight-too-large",
            json!({ "algorithm": "ring", "nodes": [{ "id": "a", "weight": 4_294_967_296u64 }] }),
            ErrorCode::InvalidSpec,
        ),
        (
            "zero-points",
            json!({ "algorithm": "ring", "params": { "points_per_weight": 0 }, "nodes": [node("a")] }),
            ErrorCode::InvalidParameter,
        ),
        ("unknown-algorithm", json!({ "algorithm": "consistent", "nodes": [node("a")] }), ErrorCode::UnknownAlgorithm),
        ("unknown-field", json!({ "algorithm": "ring", "nodes": [node("a")], "weights": [1] }), ErrorCode::InvalidSpec),
        (
            "unknown-param",
            json!({ "algorithm": "ring", "params": { "vnodes": 40 }, "nodes": [node("a")] }),
            ErrorCode::InvalidSpec,
        ),
        ("missing-nodes", json!({ "algorithm": "ring" }), ErrorCode::InvalidSpec),
        (
            "jump-weighted",
            json!({ "algorithm": "jump", "nodes": [node("a"), { "id": "b", "weight": 2 }] }),
            ErrorCode::WeightsUnsupported,
        ),
        (
            "modulo-weighted",
            json!({ "algorithm": "modulo", "nodes": [node("a"), { "id": "b", "weight": 2 }] }),
            ErrorCode::WeightsUnsupported,
        ),
        (
            "multi-probe-weighted",
            json!({ "algorithm": "multi-probe", "nodes": [node("a"), { "id": "b", "weight": 3 }] }),
            ErrorCode::WeightsUnsupported,
        ),
        (
            "multi-probe-zero-probes",
            json!({ "algorithm": "multi-probe", "params": { "probes": 0 }, "nodes": [node("a")] }),
            ErrorCode::InvalidParameter,
        ),
        (
            "maglev-not-prime",
            json!({ "algorithm": "maglev", "params": { "table_size": 65536 }, "nodes": [node("a")] }),
            ErrorCode::TableSizeNotPrime,
        ),
        (
            "maglev-too-small",
            json!({ "algorithm": "maglev", "params": { "table_size": 2 }, "nodes": [node("a"), node("b"), node("c")] }),
            ErrorCode::TableSizeOutOfRange,
        ),
        (
            "slots-zero",
            json!({ "algorithm": "slots", "params": { "count": 0 }, "nodes": [node("a")] }),
            ErrorCode::TableSizeOutOfRange,
        ),
        (
            "slots-gap",
            json!({ "algorithm": "slots", "params": { "count": 4 }, "nodes": [{ "id": "a", "slots": [[0, 1]] }, { "id": "b", "slots": [[3, 3]] }] }),
            ErrorCode::InvalidParameter,
        ),
        (
            "slots-overlap",
            json!({ "algorithm": "slots", "params": { "count": 4 }, "nodes": [{ "id": "a", "slots": [[0, 2]] }, { "id": "b", "slots": [[2, 3]] }] }),
            ErrorCode::InvalidParameter,
        ),
        (
            "slots-reversed",
            json!({ "algorithm": "slots", "params": { "count": 4 }, "nodes": [{ "id": "a", "slots": [[3, 0]] }] }),
            ErrorCode::InvalidParameter,
        ),
        (
            "slots-some-nodes-without-ranges",
            json!({ "algorithm": "slots", "params": { "count": 4 }, "nodes": [{ "id": "a", "slots": [[0, 3]] }, node("b")] }),
            ErrorCode::InvalidParameter,
        ),
        // Limits are checked before anything is allocated: these small specs ask for huge tables.
        (
            "slots-count-4e9-explicit",
            json!({ "algorithm": "slots", "params": { "count": 4_000_000_000u32 }, "nodes": [{ "id": "a", "slots": [[0, 1]] }] }),
            ErrorCode::TableSizeOutOfRange,
        ),
        (
            "slots-count-over-limit",
            json!({ "algorithm": "slots", "params": { "count": keyroute_bindings::core::MAX_SLOTS + 1 }, "nodes": [node("a")] }),
            ErrorCode::TableSizeOutOfRange,
        ),
        (
            "maglev-table-over-limit",
            json!({ "algorithm": "maglev", "params": { "table_size": keyroute_bindings::core::MAX_TABLE_SIZE + 2 }, "nodes": [node("a")] }),
            ErrorCode::TableSizeOutOfRange,
        ),
        (
            "ring-points-over-limit",
            json!({ "algorithm": "ring", "params": { "points_per_weight": keyroute_bindings::core::MAX_POINTS + 1 }, "nodes": [node("a")] }),
            ErrorCode::TooManyPoints,
        ),
        (
            "redis-slot-past-16383",
            json!({ "algorithm": "redis-cluster", "nodes": [{ "id": "a", "slots": [[0, 16384]] }] }),
            ErrorCode::InvalidParameter,
        ),
        (
            "redis-slot-past-u32",
            json!({ "algorithm": "redis-cluster", "nodes": [{ "id": "a", "slots": [[0, 4_294_967_295u32]] }] }),
            ErrorCode::InvalidParameter,
        ),
        (
            "redis-slot-gap",
            json!({ "algorithm": "redis-cluster", "nodes": [{ "id": "a", "slots": [[0, 8000]] }, { "id": "b", "slots": [[8002, 16383]] }] }),
            ErrorCode::InvalidParameter,
        ),
        (
            "version-too-large",
            json!({ "algorithm": "ring", "nodes": [node("a")], "version": 9_007_199_254_740_992u64 }),
            ErrorCode::InvalidSpec,
        ),
    ];
    let mut cases: Vec<Value> = specs
        .into_iter()
        .map(|(id, spec, code)| {
            let got = Router::from_json(&spec.to_string()).map(|_| ()).map_err(|e| e.code());
            assert_eq!(got, Err(code), "error case {id}");
            json!({ "id": id, "spec": spec, "error": code.name(), "code": code.code() })
        })
        .collect();
    for (id, text) in [("truncated-json", "{\"algorithm\":\"ring\",\"nodes\":["), ("not-an-object", "[1,2,3]")] {
        let code = Router::from_json(text).unwrap_err().code();
        cases.push(json!({ "id": id, "spec_json": text, "error": code.name(), "code": code.code() }));
    }
    // Request errors on a valid router.
    let three = json!({ "algorithm": "ring", "nodes": [node("a"), node("b"), node("c")] });
    cases.push(json!({ "id": "replicas-exceed-nodes", "spec": three, "key": "k", "replicas_count": 4,
        "error": ErrorCode::ReplicasExceedNodes.name(), "code": ErrorCode::ReplicasExceedNodes.code() }));
    let jump = json!({ "algorithm": "jump", "nodes": [node("a"), node("b")] });
    cases.push(json!({ "id": "jump-replicas", "spec": jump, "key": "k", "replicas_count": 2,
        "error": ErrorCode::ReplicasUnsupported.name(), "code": ErrorCode::ReplicasUnsupported.code() }));
    let u64be = json!({ "algorithm": "jump", "params": { "key_hash": "u64be" }, "nodes": [node("a"), node("b")] });
    cases.push(json!({ "id": "jump-u64be-short-key", "spec": u64be, "key": "1234567",
        "error": ErrorCode::InvalidKey.name(), "code": ErrorCode::InvalidKey.code() }));
    // The key text policy: UTF-16 text is routed as its UTF-8, and a lone surrogate is refused,
    // never replaced by U+FFFD (which would route like another key).
    for (id, units) in
        [("utf16-lone-high-surrogate", vec![0xD800u16]), ("utf16-lone-low-surrogate", vec![0x61, 0xDC00])]
    {
        cases.push(json!({ "id": id, "spec": three, "key_utf16": units,
            "error": ErrorCode::InvalidUtf8.name(), "code": ErrorCode::InvalidUtf8.code() }));
    }
    let ring = Router::from_json(&three.to_string()).unwrap();
    for (id, text) in
        [("utf16-surrogate-pair", "\u{1F600}"), ("utf16-bmp", "caf\u{e9}"), ("utf16-replacement-char", "\u{FFFD}")]
    {
        let units: Vec<u16> = text.encode_utf16().collect();
        cases.push(
            json!({ "id": id, "spec": three, "key_utf16": units, "node": ring.route_id(text.as_bytes()).unwrap() }),
        );
    }
    let doc = json!({
        "id": "native-errors",
        "description": "Specs and requests keyroute must refuse, with the error each gets.",
        "provenance": provenance(),
        "cases": cases,
    });
    ("native-errors.json".into(), doc)
}

fn generate() -> BTreeMap<String, Value> {
    let mut files = BTreeMap::new();
    let mut add = |(name, doc): (String, Value)| {
        files.insert(name, doc);
    };
    let algos: [(&str, Value, bool, usize, &str); 7] = [
        ("ring", json!({ "points_per_weight": 160 }), true, 3, "ring-v1, 160 points per unit of weight"),
        ("jump", json!({}), false, 0, "jump-v1 over xxh3 of the key"),
        ("rendezvous", json!({}), true, 3, "rendezvous-v1 (weighted HRW)"),
        ("maglev", json!({ "table_size": 65537 }), true, 3, "maglev-v1, M = 65537"),
        ("slots", json!({ "count": 1024 }), true, 3, "slots-v1, 1024 hash slots assigned evenly"),
        ("multi-probe", json!({ "probes": 21 }), false, 3, "multi-probe-v1, 21 probes"),
        ("modulo", json!({}), false, 0, "modulo baseline"),
    ];
    for (algo, params, weighted, replicas, what) in algos {
        for (label, nodes) in topologies(weighted) {
            let spec = json!({ "algorithm": algo, "params": params, "nodes": nodes });
            let id = format!("native-{algo}-{label}");
            add(routed_file(&id, &format!("{what}; {label} nodes"), spec, replicas));
        }
        if replicas > 0 {
            let spec = json!({ "algorithm": algo, "params": params, "nodes": zoned() });
            let id = format!("native-{algo}-zones");
            add(routed_file(&id, &format!("{what}; 6 nodes in 3 zones, zone-spread replicas"), spec, 3));
        }
    }
    let spec = json!({ "algorithm": "ring", "params": { "points_per_weight": 10 }, "nodes": topologies(false)[2].1 });
    add(routed_file("native-ring-10points-4", "ring-v1 with 10 points per unit of weight; 4 nodes", spec, 2));
    let spec = json!({ "algorithm": "maglev", "params": { "table_size": 7 }, "nodes": topologies(false)[1].1 });
    add(routed_file("native-maglev-m7-3", "maglev-v1 with a 7-entry table; 3 nodes", spec, 3));
    let spec = json!({ "algorithm": "slots", "params": { "count": 16 }, "nodes": [
        { "id": "a", "slots": [[0, 3], [12, 15]] }, { "id": "b", "slots": [[4, 9]] }, { "id": "c", "slots": [[10, 11]] }
    ] });
    add(routed_file("native-slots-explicit-16", "slots-v1 with 16 slots given explicitly per node", spec, 2));
    // Weighted Maglev on a small table: every entry is hit by some key, so the turn rule's
    // details (`<` vs `<=`, W = max w) show in the routes.
    let spec = json!({ "algorithm": "maglev", "params": { "table_size": 13 }, "nodes": [
        { "id": "w1", "weight": 1 }, { "id": "w2", "weight": 2 }, { "id": "w3", "weight": 3 }, { "id": "w7", "weight": 7 }
    ] });
    add(routed_file("native-maglev-m13-weighted", "maglev-v1, 13-entry table, weights 1, 2, 3, 7", spec, 3));
    // More replicas than zones, and nodes without a zone: the replica rule's second pass runs,
    // and zoneless nodes count as new zones in the first.
    let mixed = json!([
        { "id": "a1", "zone": "zone-a" }, { "id": "a2", "zone": "zone-a" }, { "id": "a3", "zone": "zone-a" },
        { "id": "b1", "zone": "zone-b" }, { "id": "b2", "zone": "zone-b" },
        { "id": "solo-1" }, { "id": "solo-2" }
    ]);
    for algo in ["ring", "rendezvous", "maglev", "slots", "multi-probe"] {
        let spec = json!({ "algorithm": algo, "nodes": mixed });
        let id = format!("native-{algo}-zones-mixed");
        add(routed_file(&id, &format!("{algo}: 2 zones plus 2 zoneless nodes, 6 replicas of 7 nodes"), spec, 6));
    }
    let spec = json!({ "algorithm": "jump", "params": { "key_hash": "u64be" }, "nodes": topologies(false)[2].1 });
    add(u64_file("native-jump-u64be-4", "jump-v1 on a given big-endian u64 key; 4 buckets", spec));
    add(error_file());
    files
}

/// Jump on raw 8-byte keys: keys are u64 values, big-endian.
fn u64_file(id: &str, description: &str, spec: Value) -> (String, Value) {
    let router = Router::from_json(&spec.to_string()).unwrap();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut values: Vec<u64> = (0..20).chain([u64::MAX, 1 << 63, (1 << 63) - 1]).collect();
    values.extend((0..100).map(|_| {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        state
    }));
    let cases: Vec<Value> = values
        .iter()
        .map(|v| {
            let key = v.to_be_bytes();
            let (field, value) = common::key_field(&key);
            json!({ "id": format!("u64-{v:016x}"), field: value, "node": router.route_id(&key).unwrap() })
        })
        .collect();
    let doc = json!({ "id": id, "description": description, "provenance": provenance(), "spec": spec, "cases": cases });
    (format!("{id}.json"), doc)
}

#[test]
fn native_vectors_are_current() {
    let dir = common::vectors_dir();
    let bless = std::env::var_os("KEYROUTE_BLESS").is_some();
    let files = generate();
    let mut stale = Vec::new();
    for (name, doc) in &files {
        let text = serde_json::to_string_pretty(doc).unwrap() + "\n";
        let path = dir.join(name);
        if bless {
            std::fs::write(&path, text).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(name.clone());
        }
    }
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.starts_with("native-") && name.ends_with(".json") && !files.contains_key(&name) {
            if bless {
                std::fs::remove_file(dir.join(&name)).unwrap();
            } else {
                stale.push(format!("{name} (no longer generated)"));
            }
        }
    }
    assert!(stale.is_empty(), "stale native vectors (run `make vectors` and review the diff): {stale:?}");
    println!("{} native vector files {}", files.len(), if bless { "written" } else { "current" });
}
