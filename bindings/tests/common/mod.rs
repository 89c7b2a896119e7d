//! Shared by the conformance runner, the hostile-input catalogue, the native vector generator
//! and the CLI's tests: where the corpus lives, on top of the one reading of vector files in
//! `keyroute_bindings::conformance` (which the `keyroute conformance` command uses too).
#![allow(dead_code)]

use std::path::PathBuf;

use keyroute_bindings::conformance::{self, CaseKey};
use serde_json::Value;

/// `conformance/vectors/v1` at the repository root.
pub fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../conformance/vectors/v1")
}

/// Every vector file of the corpus, in name order; fails when the corpus is missing or has
/// fewer than 100 files (not the corpus we expect).
pub fn vector_files() -> Vec<PathBuf> {
    let dir = vectors_dir();
    let paths = conformance::vector_files(&dir).unwrap_or_else(|e| panic!("no corpus at {}: {e}", dir.display()));
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

/// The key bytes of a case (`conformance::case_key`): `None` for no key or a `key_type` case,
/// `Some(Err)` for `key_utf16` text the key text policy refuses. A malformed key fails.
pub fn case_key(case: &Value) -> Option<keyroute_bindings::Result<Vec<u8>>> {
    match conformance::case_key(case) {
        CaseKey::None => None,
        CaseKey::Bytes(bytes) => Some(Ok(bytes)),
        CaseKey::Refused(e) => Some(Err(e)),
        CaseKey::Malformed(why) => panic!("malformed case {case}: {why}"),
    }
}

/// Writes a key the way vector files do: `key` when it is printable ASCII, else `key_hex`.
pub fn key_field(key: &[u8]) -> (&'static str, Value) {
    conformance::key_field(key)
}

pub fn hex_decode(s: &str) -> Vec<u8> {
    conformance::hex_decode(s).expect("hex")
}

/// The spec bytes of a case that carries its own (`conformance::case_spec_bytes`); a
/// malformed one fails.
pub fn case_spec_bytes(case: &Value) -> Option<Vec<u8>> {
    conformance::case_spec_bytes(case).unwrap_or_else(|why| panic!("malformed case {case}: {why}"))
}

/// The limits a case is built under: its `limits` object as JSON text, if it has one.
pub fn case_limits(case: &Value) -> Option<String> {
    conformance::case_limits(case)
}
