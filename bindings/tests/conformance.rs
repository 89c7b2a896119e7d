//! The Rust conformance runner: every vector file of `conformance/vectors/v1`, validated against
//! its JSON Schema, through `keyroute-bindings` (spec JSON in, node ids out), each case checked
//! by `keyroute_bindings::conformance::check_case`. A missing or empty
//! corpus fails; so does any case that does not match.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, missing_docs)]

mod common;

use keyroute_bindings::conformance::{Outcome, check_case};
use keyroute_bindings::{Limits, Router, Spec};
use serde_json::Value;

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
            // TOML (`spec_toml`) is the CLI's: its conformance command runs those cases.
            match check_case(file_router.as_ref(), case, None) {
                Outcome::Pass => passed += 1,
                Outcome::Skip(_) => skipped += 1,
                Outcome::Fail(m) => {
                    let why = m.message;
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
