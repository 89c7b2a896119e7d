//! A conformance adapter (`conformance/PROTOCOL.md`) over keyroute itself, with one fault
//! chosen by its argument, for the tests of `keyroute conformance --exec`: each routing fault
//! is a real mistake a port of a router makes, and must draw its diagnosis hint; each protocol
//! fault must stop the run cleanly.
//!
//! Usage: `fault_adapter MODE`, where MODE is `good`, a routing fault (`latin1`, `nul`,
//! `empty`, `long`, `no-hashtag`, `ignore-weights`, `permute`, `next`, `stale`, `rename`) or a protocol fault (`refuse`,
//! `old-protocol`, `no-hello`, `garbage`, `crash`, `hang`, `short`, `dirty-exit`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, missing_docs)]

use std::collections::HashMap;
use std::io::{BufRead, Write};

use keyroute_bindings::conformance::hex_decode;
use keyroute_bindings::{Limits, Router, Spec};
use serde_json::{Value, json};

fn build(spec: &Value, mode: &str) -> keyroute_bindings::Result<Router> {
    let mut spec = spec.clone();
    if mode == "no-hashtag" {
        // Hash tags ignored (twemproxy's `hash_tag` dropped), or Redis's rule swapped for the other.
        let redis = spec["algorithm"] == "redis-cluster";
        if let Some(params) = spec.get_mut("params").and_then(Value::as_object_mut) {
            params.remove("hash_tag");
            if redis {
                let other = if params.get("tag_rule").and_then(Value::as_str) == Some("cluster_key_slot") {
                    "redis"
                } else {
                    "cluster_key_slot"
                };
                params.insert("tag_rule".into(), other.into());
            }
        }
    }
    if let Some(nodes) = spec.get_mut("nodes").and_then(Value::as_array_mut) {
        for node in nodes {
            let Some(node) = node.as_object_mut() else { continue };
            if mode == "ignore-weights" {
                node.remove("weight");
            }
            if mode == "rename"
                && let Some(id) = node.get("id").and_then(Value::as_str)
            {
                let renamed = format!("{id}#x");
                node.insert("id".into(), renamed.into());
            }
        }
    }
    Router::from_spec(&Spec::from_value(spec, &Limits::DEFAULT)?)
}

/// The key bytes this adapter hashes.
fn key_bytes(entry: &Value, mode: &str) -> Vec<u8> {
    let bytes = hex_decode(entry["hex"].as_str().unwrap()).unwrap();
    match (mode, entry.get("utf8").and_then(Value::as_str)) {
        // The classic mistake: the text's characters written as Latin-1 bytes.
        ("latin1", Some(text)) => text.chars().map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')).collect(),
        ("nul", _) => bytes.iter().copied().take_while(|&b| b != 0).collect(),
        // The empty key replaced by a space; keys cut at memcached's 250-byte limit.
        ("empty", _) if bytes.is_empty() => b" ".to_vec(),
        ("long", _) => bytes.into_iter().take(250).collect(),
        _ => bytes,
    }
}

fn answer(router: &Router, entry: &Value, mode: &str) -> Value {
    let key = key_bytes(entry, mode);
    let index = match router.route(&key) {
        Ok(i) => i,
        Err(e) => return json!({"error": e.code().name(), "code": e.code().code()}),
    };
    let n = u32::try_from(router.len()).unwrap();
    let index = match mode {
        "permute" => (index + 1) % n,
        "next" if n >= 2 => {
            let mut order = [0u32; 2];
            router.replicas(&key, &mut order).map_or(index, |()| order[1])
        }
        _ => index,
    };
    let id = router.node_id(index).unwrap();
    let mut out = json!({"node": id.strip_suffix("#x").unwrap_or(id)});
    if let Some(r) = entry.get("replicas").and_then(Value::as_u64) {
        let mut order = vec![0u32; r as usize];
        if router.replicas(&key, &mut order).is_ok() {
            out["replicas"] = order.iter().map(|&i| router.node_id(i).unwrap().trim_end_matches("#x")).collect();
        }
    }
    if entry.get("slot").is_some() {
        out["slot"] = router.slot(&key).map_or(Value::Null, Value::from);
    }
    out
}

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "good".into());
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut say = |v: &dyn std::fmt::Display| {
        writeln!(out, "{v}").unwrap();
        out.flush().unwrap();
    };
    let mut router: Option<Router> = None;
    let mut first_by_algorithm: HashMap<String, Router> = HashMap::new();
    let mut current_algorithm = String::new();
    eprintln!("fault_adapter: mode {mode}");
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        let message: Value = serde_json::from_str(&line).unwrap();
        match message["type"].as_str().unwrap() {
            "hello" => match mode.as_str() {
                "refuse" => {
                    say(&json!({"type": "refuse", "reason": "this adapter refuses every session"}));
                    return;
                }
                "old-protocol" => {
                    say(&json!({"type": "hello", "protocol": 99, "adapter": "fault_adapter", "algorithms": []}))
                }
                "no-hello" => say(&json!({"type": "ready"})),
                _ => {
                    let algorithms: Vec<&str> = keyroute_bindings::registry::algorithms().map(|a| a.name).collect();
                    say(&json!({"type": "hello", "protocol": 1, "adapter": format!("fault_adapter ({mode})"),
                               "algorithms": algorithms, "supports": ["replicas", "slot"]}));
                }
            },
            "spec" => {
                let spec = &message["spec"];
                current_algorithm = spec["algorithm"].as_str().unwrap_or("").to_string();
                match build(spec, &mode) {
                    Ok(r) => {
                        if mode == "stale" && !first_by_algorithm.contains_key(&current_algorithm) {
                            first_by_algorithm.insert(current_algorithm.clone(), build(spec, &mode).unwrap());
                        }
                        router = Some(r);
                        say(&json!({"type": "ready"}));
                    }
                    Err(e) => say(&json!({"type": "error", "error": e.code().name(), "code": e.code().code()})),
                }
            }
            "route" => {
                match mode.as_str() {
                    "garbage" => {
                        say(&"this is not JSON");
                        continue;
                    }
                    "crash" => std::process::exit(3),
                    "hang" => loop {
                        std::thread::sleep(std::time::Duration::from_secs(3600));
                    },
                    _ => {}
                }
                let r = if mode == "stale" { first_by_algorithm.get(&current_algorithm) } else { router.as_ref() };
                let r = r.unwrap();
                let mut results: Vec<Value> =
                    message["keys"].as_array().unwrap().iter().map(|k| answer(r, k, &mode)).collect();
                if mode == "short" {
                    results.pop();
                }
                say(&json!({"type": "routed", "results": results}));
            }
            "bye" => std::process::exit(i32::from(mode == "dirty-exit")),
            other => {
                eprintln!("fault_adapter: unknown message {other}");
                std::process::exit(4);
            }
        }
    }
}
