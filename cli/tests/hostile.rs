//! The CLI's conformance runner for the hostile-input catalogue
//! (`conformance/vectors/v1/hostile.json`), and for the error cases of every other vector file:
//! each case's spec is written to a file (`.toml` for `spec_toml`), the real `keyroute route -t
//! FILE --input hex` reads it, under `--limits` when the case has limits, and routes the case's
//! key, given in hex on stdin (so any bytes, a newline too). A routed case must print
//! `hex<TAB>node` (`hex<TAB>slot<TAB>node` for slot-based algorithms) and exit 0; an error case
//! must exit with its class's status (3 for bad data, 4 for I/O, …) with nothing on stdout and
//! one stderr line naming the error and its code, never a panic. The cases of every vector file
//! that give a key's `slot` are routed file by file, slot and node checked.
//!
//! Cases are read by the conformance runner's own loading contract
//! (`bindings/tests/common/mod.rs`). What a byte stream cannot carry is skipped and counted:
//! `key_type` (a key of another type than bytes) and `key_utf16` with a lone surrogate (no
//! UTF-8 for it). A case's `replicas` are checked with `--replicas N`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, missing_docs)]

#[path = "../../bindings/tests/common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use serde_json::Value;

/// Processes run at once: 2 to 4, by the CPUs there are.
fn threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 4)
}

/// One case, ready to run through the binary.
struct Job {
    /// `file case-id`, for reports.
    label: String,
    spec: Vec<u8>,
    toml: bool,
    limits: Option<String>,
    replicas: Option<u64>,
    key: Vec<u8>,
    want: Want,
}

enum Want {
    /// The node(s), and the slot column when the algorithm places keys in slots.
    Node(Vec<u8>, Option<u64>),
    /// `usage`: the error is in an option's value (`--limits`, `--replicas`): status 2.
    Error { name: String, code: u64, usage: bool },
}

/// The exit status the CLI documents for an error kind raised by data (`keyroute --help`).
fn exit_status(name: &str) -> i32 {
    match name {
        // The replica count is the `--replicas` option: a usage error.
        "invalid_argument" | "replicas_exceed_nodes" => 2,
        "io" => 4,
        "internal" | "out_of_memory" => 5,
        _ => 3,
    }
}

/// The slot `route` prints for a JSON spec of a slot-based algorithm (checked against the
/// case's own `slot` where it has one).
fn predicted_slot(spec: &[u8], toml: bool, limits: Option<&str>, key: &[u8]) -> Option<u64> {
    if toml {
        return None;
    }
    let limits = limits.map_or(Ok(keyroute_bindings::Limits::DEFAULT), keyroute_bindings::Limits::from_json).ok()?;
    let router = keyroute_bindings::Router::from_bytes(spec, &limits).ok()?;
    router.slot(key).map(u64::from)
}

/// A case as a job, or why the CLI cannot express it.
fn job(file: &str, file_spec: Option<&Value>, case: &Value) -> Result<Job, &'static str> {
    let id = case["id"].as_str().expect("a case has an id");
    if case.get("key_type").is_some() {
        return Err("key_type: argv and stdin carry bytes only");
    }
    let (spec, toml) = if let Some(bytes) = common::case_spec_bytes(case) {
        (bytes, false)
    } else if let Some(text) = case.get("spec_toml").and_then(Value::as_str) {
        (text.as_bytes().to_vec(), true)
    } else {
        let spec = file_spec.unwrap_or_else(|| panic!("{file} {id}: no spec in the case or the file"));
        (spec.to_string().into_bytes(), false)
    };
    let key = match common::case_key(case) {
        None => b"k".to_vec(),
        Some(Ok(key)) => key,
        Some(Err(_)) => return Err("key_utf16 that is not well-formed UTF-16: no UTF-8 bytes to pass"),
    };
    let want = match (case.get("error").and_then(Value::as_str), case.get("code").and_then(Value::as_u64)) {
        (Some(name), Some(code)) => {
            // Limits that are not limits, or more replicas than nodes, are wrong option values.
            let bad_limits =
                common::case_limits(case).is_some_and(|l| keyroute_bindings::Limits::from_json(&l).is_err());
            let usage = bad_limits || name == "replicas_exceed_nodes";
            Want::Error { name: name.to_string(), code, usage }
        }
        (Some(name), None) => panic!("{file} {id}: error {name} without a code"),
        (None, _) => {
            let node = case["node"].as_str().unwrap_or_else(|| panic!("{file} {id}: neither node nor error"));
            let limits = common::case_limits(case);
            let slot = predicted_slot(&spec, toml, limits.as_deref(), &key);
            if let Some(want) = case.get("slot") {
                assert_eq!(slot, want.as_u64(), "{file} {id}: the library's slot differs from the case's");
            }
            Want::Node(node.as_bytes().to_vec(), slot)
        }
    };
    // Expected replicas: `route --replicas N` prints them after the key, tab-separated.
    let (replicas, want) = match (case.get("replicas").and_then(Value::as_array), want) {
        (Some(list), Want::Node(_, slot)) => {
            let ids: Vec<&str> = list.iter().filter_map(Value::as_str).collect();
            (Some(ids.len() as u64), Want::Node(ids.join("\t").into_bytes(), slot))
        }
        (_, want) => (case.get("replicas_count").and_then(Value::as_u64), want),
    };
    Ok(Job { label: format!("{file} {id}"), spec, toml, limits: common::case_limits(case), replicas, key, want })
}

/// A file name for a case's spec: its index (unique) and its id, tamed.
fn spec_path(dir: &Path, index: usize, job: &Job) -> PathBuf {
    let id = job.label.split_once(' ').map_or(&job.label[..], |(_, id)| id);
    let tame: String =
        id.chars().take(80).map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect();
    dir.join(format!("{index:04}-{tame}.{}", if job.toml { "toml" } else { "json" }))
}

/// Text for a report: lossy, shortened.
fn shown(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    if s.chars().count() > 200 {
        format!("{}… ({} bytes)", s.chars().take(200).collect::<String>(), bytes.len())
    } else {
        s.into_owned()
    }
}

/// Runs one job through the binary; `Err` says how the result differs from the case.
fn run(dir: &Path, index: usize, job: &Job) -> Result<(), String> {
    let path = spec_path(dir, index, job);
    std::fs::write(&path, &job.spec).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_keyroute"));
    if let Some(limits) = &job.limits {
        cmd.args(["--limits", limits]);
    }
    cmd.arg("route").arg("-t").arg(&path).args(["--input", "hex"]);
    if let Some(n) = job.replicas {
        cmd.args(["--replicas", &n.to_string()]);
    }
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut line = hex(&job.key).into_bytes();
    line.push(b'\n');
    // The binary may exit before reading a key (a spec error): a broken pipe here is fine.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&line);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let _ = std::fs::remove_file(&path);
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("panicked") || err.contains("RUST_BACKTRACE") {
        return Err(format!("panicked: {}", shown(&out.stderr)));
    }
    match &job.want {
        Want::Node(node, slot) => {
            let mut want = hex(&job.key).into_bytes();
            want.push(b'\t');
            if let Some(slot) = slot {
                want.extend_from_slice(format!("{slot}\t").as_bytes());
            }
            want.extend_from_slice(node);
            want.push(b'\n');
            if out.status.code() != Some(0) {
                return Err(format!(
                    "expected node {}, got status {:?}: {}",
                    shown(node),
                    out.status,
                    shown(&out.stderr)
                ));
            }
            if out.stdout != want {
                return Err(format!("stdout {:?}, expected {:?}", shown(&out.stdout), shown(&want)));
            }
            if !out.stderr.is_empty() {
                return Err(format!("routed, but stderr: {}", shown(&out.stderr)));
            }
        }
        Want::Error { name, code, usage } => {
            let want = format!("error {name} (code {code})");
            if out.status.code() != Some(if *usage { 2 } else { exit_status(name) }) {
                return Err(format!(
                    "expected {want}, got status {:?}, stdout {:?}, stderr {:?}",
                    out.status,
                    shown(&out.stdout),
                    shown(&out.stderr)
                ));
            }
            if !out.stdout.is_empty() {
                return Err(format!("expected {want}, but stdout {:?}", shown(&out.stdout)));
            }
            if err.lines().count() != 1 || !err.ends_with('\n') || !err.starts_with("keyroute: error ") {
                return Err(format!("expected one line naming {want}, got {:?}", shown(&out.stderr)));
            }
            if !err.contains(&want) {
                return Err(format!("expected {want}, got {}", err.trim_end()));
            }
        }
    }
    Ok(())
}

/// Bytes as lowercase hex.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Runs jobs on [`threads`] threads; the failures, in job order.
fn run_all(dir: &Path, jobs: &[Job]) -> Vec<String> {
    std::fs::create_dir_all(dir).unwrap();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads() {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    if let Err(why) = run(dir, i, job) {
                        failures.lock().unwrap().push((i, format!("{}: {why}", job.label)));
                    }
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    failures.into_iter().map(|(_, f)| f).collect()
}

/// Reads a vector file: its name, its spec and its cases; `None` when its text lacks `needle`
/// (the corpus holds 80,000 cases: a debug build parses only the files that can matter).
fn read(path: &Path, needle: &str) -> Option<(String, Option<Value>, Vec<Value>)> {
    let text = std::fs::read_to_string(path).unwrap();
    if !text.contains(needle) {
        return None;
    }
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let cases = doc["cases"].as_array().unwrap_or_else(|| panic!("{name}: no cases")).clone();
    Some((name, doc.get("spec").cloned(), cases))
}

/// Builds the jobs of `cases` that pass `filter`, runs them, prints the counts and fails with
/// every mismatch.
fn check(what: &str, scratch: &str, files: &[(String, Option<Value>, Vec<Value>)], filter: fn(&Value) -> bool) {
    let started = Instant::now();
    let mut jobs = Vec::new();
    let mut skipped: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut ids = std::collections::HashSet::new();
    for (name, spec, cases) in files {
        for case in cases.iter().filter(|c| filter(c)) {
            let id = case["id"].as_str().unwrap_or_else(|| panic!("{name}: a case without an id"));
            assert!(ids.insert(format!("{name} {id}")), "{name}: case id {id} is not unique");
            match job(name, spec.as_ref(), case) {
                Ok(job) => jobs.push(job),
                Err(why) => skipped.entry(why).or_default().push(id.to_string()),
            }
        }
    }
    let total = jobs.len() + skipped.values().map(Vec::len).sum::<usize>();
    assert!(!jobs.is_empty(), "{what}: no case to run");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("keyroute-cli-hostile").join(scratch);
    let failures = run_all(&dir, &jobs);
    let passed = jobs.len() - failures.len();
    println!(
        "{what}: {total} cases: {passed} passed, {} failed, {} skipped, in {:.2?} ({} threads)",
        failures.len(),
        total - jobs.len(),
        started.elapsed(),
        threads()
    );
    for (why, ids) in &skipped {
        println!("  skipped {} ({why}): {}", ids.len(), ids.join(", "));
    }
    assert!(failures.is_empty(), "{what}: {} cases failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn hostile_catalogue() {
    let path = common::vectors_dir().join("hostile.json");
    let file = read(&path, "").unwrap();
    assert!(file.2.len() >= 157, "hostile.json has only {} cases", file.2.len());
    check("hostile.json", "hostile", &[file], |_| true);
}

#[test]
fn every_other_file_error_cases() {
    let paths: Vec<PathBuf> = common::vector_files().into_iter().filter(|p| !p.ends_with("hostile.json")).collect();
    let files: Vec<_> = paths.iter().filter_map(|p| read(p, "\"error\"")).collect();
    check("error cases of the other vector files", "errors", &files, |c| c.get("error").is_some());
}

/// The cases of every vector file that record a key's `slot`: each file's keys go through one
/// `route --input hex` process (these files share one spec per file), and every line must be
/// `hex<TAB>slot<TAB>node` as recorded.
#[test]
fn every_slot_case() {
    let paths = common::vector_files();
    let files: Vec<_> = paths.iter().filter_map(|p| read(p, "\"slot\"")).collect();
    assert!(files.len() >= 3, "the corpus has Redis Cluster slot files");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("keyroute-cli-hostile").join("slots");
    std::fs::create_dir_all(&dir).unwrap();
    let mut total = 0;
    for (name, spec, cases) in &files {
        let cases: Vec<&Value> = cases.iter().filter(|c| c.get("slot").is_some()).collect();
        let spec = spec.as_ref().unwrap_or_else(|| panic!("{name}: slot cases without a file spec"));
        let (mut stdin, mut want) = (String::new(), String::new());
        for case in &cases {
            let id = case["id"].as_str().unwrap();
            assert!(case.get("spec").is_none() && case.get("limits").is_none(), "{name} {id}: the file's spec only");
            let key = common::case_key(case).unwrap_or_else(|| panic!("{name} {id}: no key")).unwrap();
            let node = case["node"].as_str().unwrap_or_else(|| panic!("{name} {id}: no node"));
            stdin.push_str(&hex(&key));
            stdin.push('\n');
            want.push_str(&format!("{}\t{}\t{node}\n", hex(&key), case["slot"].as_u64().unwrap()));
        }
        let path = dir.join(name);
        std::fs::write(&path, spec.to_string()).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_keyroute"))
            .args(["route", "--input", "hex", "-t"])
            .arg(&path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || input.write_all(stdin.as_bytes()));
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        assert!(out.status.success(), "{name}: {}", shown(&out.stderr));
        let got = String::from_utf8(out.stdout).unwrap();
        for (g, w) in got.lines().zip(want.lines()) {
            assert_eq!(g, w, "{name}");
        }
        assert_eq!(got.lines().count(), cases.len(), "{name}");
        total += cases.len();
    }
    println!("cases with a slot: {total} in {} files, slot and node as recorded", files.len());
}
