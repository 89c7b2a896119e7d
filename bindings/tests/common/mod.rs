//! Shared by the conformance runner and the native vector generator: where the corpus lives
//! and how a case's key is read.
#![allow(dead_code)]

use std::path::PathBuf;

use serde_json::Value;

/// `conformance/vectors/v1` at the repository root.
pub fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../conformance/vectors/v1")
}

/// Every vector file of the corpus, in name order; fails when the corpus is missing or has
/// fewer than 100 files (not the corpus we expect).
pub fn vector_files() -> Vec<PathBuf> {
    let dir = vectors_dir();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("no corpus at {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 100, "the corpus has only {} files", paths.len());
    paths
}

/// The shared key set (`conformance/peers/keys.json`): (tag, bytes) in order.
pub fn shared_keys() -> Vec<(String, Vec<u8>)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../conformance/peers/keys.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).expect("keys.json is JSON");
    doc["keys"]
        .as_array()
        .expect("keys.json has a keys array")
        .iter()
        .map(|k| (k["tags"].as_str().unwrap_or("key").to_string(), hex_decode(k["hex"].as_str().unwrap_or(""))))
        .collect()
}

/// The key bytes of a case: `key` (UTF-8 text), `key_hex`, `key_repeat` (text too long to
/// store: see [`repeat`]) or `key_utf16` (UTF-16 text, read by the bindings' key text policy,
/// which refuses a lone surrogate). `None` for no key, or a `key_type` case (a key of a type
/// a typed language cannot pass: the dynamic surfaces run those).
pub fn case_key(case: &Value) -> Option<keyroute_bindings::Result<Vec<u8>>> {
    if let Some(k) = case.get("key").and_then(Value::as_str) {
        return Some(Ok(k.as_bytes().to_vec()));
    }
    if let Some(units) = case.get("key_utf16").and_then(Value::as_array) {
        let units: Vec<u16> = units.iter().filter_map(Value::as_u64).map(|u| u as u16).collect();
        return Some(keyroute_bindings::keys::utf16_key(&units));
    }
    if let Some(r) = case.get("key_repeat") {
        return Some(Ok(repeat(r)));
    }
    case.get("key_hex").and_then(Value::as_str).map(|h| Ok(hex_decode(h)))
}

/// Writes a key the way vector files do: `key` when it is printable ASCII, else `key_hex`.
pub fn key_field(key: &[u8]) -> (&'static str, Value) {
    if key.iter().all(|&b| (0x20..0x7f).contains(&b)) {
        ("key", Value::String(String::from_utf8_lossy(key).into_owned()))
    } else {
        ("key_hex", Value::String(key.iter().map(|b| format!("{b:02x}")).collect()))
    }
}

pub fn hex_decode(s: &str) -> Vec<u8> {
    (0..s.len() / 2).map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex key")).collect()
}

/// The spec bytes of a case that carries its own: `spec` (a JSON value, written as compact
/// JSON), `spec_json` (raw text), `spec_hex` (raw bytes) or `spec_repeat` (`head` + `unit`
/// repeated `times` times + `tail`, for documents too large to store). `None` when the case
/// uses its file's spec, or gives only `spec_toml` (read by the CLI alone).
pub fn case_spec_bytes(case: &Value) -> Option<Vec<u8>> {
    if let Some(spec) = case.get("spec") {
        return Some(spec.to_string().into_bytes());
    }
    if let Some(text) = case.get("spec_json").and_then(Value::as_str) {
        return Some(text.as_bytes().to_vec());
    }
    if let Some(hex) = case.get("spec_hex").and_then(Value::as_str) {
        return Some(hex_decode(hex));
    }
    case.get("spec_repeat").map(repeat)
}

/// `head` + `unit` × `times` + `tail` (absent parts are empty): text, or hex when `hex` is
/// true.
pub fn repeat(r: &Value) -> Vec<u8> {
    let hex = r.get("hex").and_then(Value::as_bool).unwrap_or(false);
    let part = |name: &str| {
        let s = r.get(name).and_then(Value::as_str).unwrap_or("");
        if hex { hex_decode(s) } else { s.as_bytes().to_vec() }
    };
    let times = r.get("times").and_then(Value::as_u64).unwrap_or(0) as usize;
    [part("head"), part("unit").repeat(times), part("tail")].concat()
}

/// The limits a case is built under: its `limits` object as JSON text, if it has one.
pub fn case_limits(case: &Value) -> Option<String> {
    case.get("limits").map(Value::to_string)
}
