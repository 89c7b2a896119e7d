//! The Rust conformance runner: every vector file of `conformance/vectors/v1`, validated against
//! its JSON Schema, through `keyroute-bindings` (spec JSON in, node ids out). A missing or empty
//! corpus fails; so does any case that does not match.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, missing_docs)]

mod common;

use keyroute_bindings::{ErrorCode, Limits, Router, Spec};
use serde_json::Value;

/// What one case produced, compared with what the file expects; `Ok(false)` for a case this
/// typed surface does not run (`key_type`: a key of a type Rust cannot pass; `spec_toml`: read
/// by the CLI alone).
fn run_case(file_router: Option<&Router>, case: &Value) -> Result<bool, String> {
    if case.get("key_type").is_some() || case.get("spec_toml").is_some() {
        return Ok(false);
    }
    let own;
    let router = if let Some(spec) = common::case_spec_bytes(case) {
        let limits = match common::case_limits(case).map(|text| Limits::from_json(&text)).transpose() {
            Ok(limits) => limits.unwrap_or(Limits::DEFAULT),
            Err(e) => return expect_error(case, e.code()),
        };
        match Router::from_bytes(&spec, &limits) {
            Ok(r) => {
                own = r;
                &own
            }
            Err(e) => return expect_error(case, e.code()),
        }
    } else {
        file_router.ok_or("case has no spec and the file has none")?
    };
    let key = match common::case_key(case).ok_or("case has no key")? {
        Ok(key) => key,
        Err(e) => return expect_error(case, e.code()),
    };
    if let Some(n) = case.get("replicas_count").and_then(Value::as_u64) {
        let mut out = vec![0u32; n as usize];
        return match router.replicas(&key, &mut out) {
            Ok(()) => Err(format!("expected an error, got replicas {out:?}")),
            Err(e) => expect_error(case, e.code()),
        };
    }
    let node = match router.route_id(&key) {
        Ok(node) => node,
        Err(e) => return expect_error(case, e.code()),
    };
    if let Some(want) = case.get("error") {
        return Err(format!("expected error {want}, got node {node}"));
    }
    let want = case["node"].as_str().ok_or("case has no node")?;
    if node != want {
        return Err(format!("node {node}, expected {want}"));
    }
    if let Some(slot) = case.get("slot").and_then(Value::as_u64) {
        let got = router.slot(&key).ok_or("a slot is expected but the router has no slots")?;
        if u64::from(got) != slot {
            return Err(format!("slot {got}, expected {slot}"));
        }
    }
    if let Some(want) = case.get("replicas").and_then(Value::as_array) {
        let mut out = vec![0u32; want.len()];
        router.replicas(&key, &mut out).map_err(|e| format!("replicas: {e}"))?;
        let got: Vec<&str> = out.iter().map(|&i| router.node_id(i).unwrap_or("?")).collect();
        let want: Vec<&str> = want.iter().filter_map(Value::as_str).collect();
        if got != want {
            return Err(format!("replicas {got:?}, expected {want:?}"));
        }
    }
    Ok(true)
}

fn expect_error(case: &Value, got: ErrorCode) -> Result<bool, String> {
    match (case.get("error").and_then(Value::as_str), case.get("code").and_then(Value::as_u64)) {
        (Some(name), Some(code)) if name == got.name() && code == u64::from(got.code()) => Ok(true),
        (Some(name), _) => Err(format!("error {} ({}), expected {name}", got.name(), got.code())),
        (None, _) => Err(format!("unexpected error {} ({})", got.name(), got.code())),
    }
}

#[test]
fn every_vector_file_passes() {
    let dir = common::vectors_dir();
    let read = |name: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join("schema").join(name)).unwrap()).unwrap()
    };
    let (schema, spec_schema) = (read("vector-file.schema.json"), read("spec.schema.json"));
    let registry = jsonschema::Registry::new()
        .add(spec_schema["$id"].as_str().unwrap(), spec_schema.clone())
        .expect("the spec schema's $id is a URI")
        .prepare()
        .expect("the registry prepares");
    let validator = jsonschema::options().with_registry(&registry).build(&schema).expect("the schema compiles");
    let paths = common::vector_files();
    let (mut passed, mut failed, mut skipped, mut peer, mut native) = (0usize, 0usize, 0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    for path in &paths {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap())
            .unwrap_or_else(|e| panic!("{name}: not JSON: {e}"));
        if let Some(err) = validator.iter_errors(&doc).next() {
            panic!("{name}: does not match the schema at {}: {err}", err.instance_path());
        }
        assert_eq!(doc["id"].as_str().map(|id| format!("{id}.json")), Some(name.clone()), "file name = id");
        match doc["provenance"]["kind"].as_str() {
            Some("peer") => peer += 1,
            _ => native += 1,
        }
        let file_router = doc.get("spec").map(|spec| {
            Spec::from_value(spec.clone(), &Limits::DEFAULT)
                .and_then(|s| Router::from_spec(&s))
                .unwrap_or_else(|e| panic!("{name}: the file's spec does not build: {e}"))
        });
        let cases = doc["cases"].as_array().unwrap();
        let mut ids = std::collections::HashSet::new();
        let mut file_failed = 0;
        for case in cases {
            let id = case["id"].as_str().unwrap();
            assert!(ids.insert(id), "{name}: case id {id} is not unique");
            match run_case(file_router.as_ref(), case) {
                Ok(true) => passed += 1,
                Ok(false) => skipped += 1,
                Err(why) => {
                    file_failed += 1;
                    if failures.len() < 40 {
                        failures.push(format!("{name} {id}: {why}"));
                    }
                }
            }
        }
        failed += file_failed;
        println!("{name}: {}/{} cases", cases.len() - file_failed, cases.len());
    }
    println!(
        "{} files ({peer} captured from peers, {native} generated): {passed} passed, {failed} failed, \
         {skipped} not for this surface (key types Rust cannot pass, TOML)",
        paths.len()
    );
    assert!(failures.is_empty(), "{failed} cases failed:\n{}", failures.join("\n"));
    assert!(passed > 0, "no case ran");
}
