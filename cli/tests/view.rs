//! `keyroute view` driven as operators drive it: publishing with a compare-and-swap (two
//! processes racing on one expected version), show, history, rollback, a rollout's steps, a
//! watching instance and a mirror daemon, on a file and on a real etcd. Waits are for output
//! lines, with generous timeouts.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, missing_docs, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

#[path = "../../fleet/tests/common/etcd.rs"]
mod etcd;

const THREE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/topologies/3-nodes.json");
const FOUR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/topologies/4-nodes.json");
const FIVE_TOML: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/topologies/5-nodes.toml");
const WAIT: Duration = Duration::from_secs(60);

fn keyroute(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_keyroute")).args(args).stdin(Stdio::null()).output().unwrap()
}

fn ok(args: &[&str]) -> String {
    let out = keyroute(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(ok(args).trim()).unwrap()
}

/// Runs a command that must fail with exit `status` and one stderr line naming `code`.
fn fails(args: &[&str], status: i32, code: &str) -> String {
    let out = keyroute(args);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(status), "{args:?}: {stderr}");
    assert!(stderr.starts_with(&format!("keyroute: error {code} ")), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("keyroute-view-tests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn publish_show_history_rollback_and_a_rollout() {
    let dir = scratch("ops");
    let url = format!("file://{}", dir.join("cache.json").display());
    operate(&url);
    // A plain path names the same file.
    assert_eq!(json(&["view", "show", s(&dir.join("cache.json")), "--json"]), json(&["view", "show", &url, "--json"]));
}

#[test]
fn the_same_operations_on_etcd() {
    let etcd = etcd::Etcd::start(scratch("etcd-ops"));
    operate(&etcd.url("/keyroute/cache"));
    // Each key is its own view, and a key that holds none says so.
    fails(&["view", "show", &etcd.url("/keyroute/none")], 3, "no_view");
}

/// Publish, a conflict, a rollout (start, advance, abort; start, finish), history and a
/// rollback, on the source `src`.
fn operate(src: &str) {
    let first = json(&["view", "publish", src, THREE, "--expect-version", "0", "--json"]);
    assert_eq!(first["version"], 1);
    assert_eq!(first["fingerprint"].as_str().unwrap().len(), 16);
    // The fingerprint of a plain view is its spec's, as every surface computes it.
    assert_eq!(first["fingerprint"], first["spec"]["fingerprint"]);
    let stale = fails(&["view", "publish", src, FOUR, "--expect-version", "0"], 3, "version_conflict");
    assert!(stale.contains("holds version 1, not the expected 0"), "{stale}");
    let second = json(&["view", "publish", src, FIVE_TOML, "--expect-version", "1", "--json"]);
    assert_eq!(second["version"], 2);
    assert_eq!(json(&["view", "show", src, "--json"])["spec"]["nodes"].as_array().unwrap().len(), 5);

    // A rollout: start, advance, abort; start again, finish.
    let start = json(&["view", "rollout", src, "--to", FOUR, "--progress", "0.05", "--json"]);
    assert_eq!((start["version"].as_u64(), start["rollout"]["progress"].as_f64()), (Some(3), Some(0.05)));
    let other = fails(&["view", "rollout", src, "--to", THREE, "--progress", "0.5"], 2, "invalid_argument");
    assert!(other.contains("finish or abort it first"), "{other}");
    let advanced = json(&["view", "rollout", src, "--progress", "0.5", "--json"]);
    assert_eq!((advanced["version"].as_u64(), advanced["rollout"]["progress"].as_f64()), (Some(4), Some(0.5)));
    let aborted = json(&["view", "rollout", src, "--abort", "--json"]);
    assert_eq!((aborted["version"].as_u64(), &aborted["rollout"]), (Some(5), &Value::Null));
    assert_eq!(aborted["fingerprint"], second["fingerprint"]);
    json(&["view", "rollout", src, "--to", FOUR, "--progress", "0.25", "--json"]);
    let finished = json(&["view", "rollout", src, "--finish", "--json"]);
    assert_eq!(finished["version"], 7);
    assert_eq!(finished["spec"]["nodes"].as_array().unwrap().len(), 4);
    fails(&["view", "rollout", src, "--finish"], 2, "invalid_argument");

    // History, newest first; a rollback republishes version 1's view as version 8.
    let history: Vec<Value> =
        ok(&["view", "history", src, "--json"]).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let versions: Vec<u64> = history.iter().map(|h| h["version"].as_u64().unwrap()).collect();
    assert_eq!(versions, [7, 6, 5, 4, 3, 2, 1]);
    let back = json(&["view", "rollback", src, "--to", "1", "--json"]);
    assert_eq!((back["version"].as_u64(), &back["fingerprint"]), (Some(8), &first["fingerprint"]));
    fails(&["view", "rollback", src, "--to", "99"], 2, "invalid_argument");
    fails(&["view", "rollback", src, "--to", "1", "--expect-version", "7"], 3, "version_conflict");
    let shown = ok(&["view", "show", src]);
    assert!(shown.contains("version      8\n") && shown.contains(first["fingerprint"].as_str().unwrap()), "{shown}");
}

#[test]
fn bad_sources_and_documents() {
    let dir = scratch("bad");
    fails(&["view", "show", "etcd://127.0.0.1/keyroute/cache"], 2, "unknown_source");
    fails(&["view", "show", "consul://127.0.0.1:8500/keyroute"], 2, "unknown_source");
    fails(&["view", "show", s(&dir.join("none.json"))], 3, "no_view");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"version":1,"spec":{"algorithm":"ring","nodes":[{"id":"a"},{"id":"a"}]}}"#).unwrap();
    fails(&["view", "show", s(&bad)], 3, "duplicate_node_id");
    std::fs::write(&bad, r#"{"version":1,"spec":{"algorithm":"ring","nodes":[{"id":"a"}]},"extra":true}"#).unwrap();
    fails(&["view", "show", s(&bad)], 3, "invalid_view");
    // A spec that does not build is never published.
    let dup = dir.join("dup.json");
    std::fs::write(&dup, r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"a"}]}"#).unwrap();
    fails(&["view", "publish", s(&dir.join("v.json")), s(&dup), "--expect-version", "0"], 3, "duplicate_node_id");
    assert!(!dir.join("v.json").exists());
}

#[test]
fn two_publishing_processes_racing_on_one_version_get_one_winner() {
    let dir = scratch("race");
    let source = dir.join("view.json");
    for round in 0..5u64 {
        let expect = round.to_string();
        let spawn = |spec: &str| {
            Command::new(env!("CARGO_BIN_EXE_keyroute"))
                .args(["view", "publish", s(&source), spec, "--expect-version", &expect])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (a, b) = (spawn(THREE), spawn(FOUR));
        let outs = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
        let won = outs.iter().filter(|o| o.status.success()).count();
        assert_eq!(won, 1, "round {round}: {outs:?}");
        let lost = outs.iter().find(|o| !o.status.success()).unwrap();
        assert_eq!(lost.status.code(), Some(3));
        assert!(String::from_utf8_lossy(&lost.stderr).contains("error version_conflict (code 29)"), "{lost:?}");
    }
    assert_eq!(json(&["view", "show", s(&source), "--json"])["version"], 5);
}

/// Starts `keyroute args…` and sends each stdout line to the returned channel.
fn lines(args: &[&str]) -> (Child, mpsc::Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_keyroute"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

fn next(rx: &mpsc::Receiver<String>, what: &str) -> String {
    rx.recv_timeout(WAIT).unwrap_or_else(|_| panic!("no line {what} within {WAIT:?}"))
}

#[test]
fn an_instance_watches_and_a_daemon_mirrors() {
    let dir = scratch("watch");
    let source = dir.join("view.json");
    let mirror = dir.join("mirror");
    ok(&["view", "publish", s(&source), THREE, "--expect-version", "0"]);
    let (mut watcher, watched) = lines(&["view", "watch", s(&source), "--json", "--until-version", "3"]);
    let (mut syncer, synced) = lines(&["view", "sync", s(&source), "--to-dir", s(&mirror), "--until-version", "3"]);
    let first: Value = serde_json::from_str(&next(&watched, "applying version 1")).unwrap();
    assert_eq!((first["event"].as_str(), first["version"].as_u64()), (Some("applied"), Some(1)));
    assert!(next(&synced, "mirroring version 1").starts_with("mirrored version 1 "));
    // A hand-written document that does not build: refused by both, which keep version 1.
    // (Written beside and renamed into place, so that no reader sees it half written.)
    std::fs::write(dir.join("next"), r#"{"version":2,"spec":{"algorithm":"ring","nodes":[]}}"#).unwrap();
    std::fs::rename(dir.join("next"), &source).unwrap();
    let refused: Value = serde_json::from_str(&next(&watched, "refusing version 2")).unwrap();
    assert_eq!((refused["event"].as_str(), refused["error"].as_str()), (Some("refused"), Some("empty_topology")));
    assert!(next(&synced, "refusing version 2").starts_with("refused version 2: error empty_topology (code 4)"));
    let mirrored = json(&["view", "show", s(&mirror), "--json"]);
    assert_eq!(mirrored["version"], 1);
    ok(&["view", "publish", s(&source), FOUR, "--expect-version", "2", "--version", "3"]);
    let applied: Value = serde_json::from_str(&next(&watched, "applying version 3")).unwrap();
    assert_eq!((applied["event"].as_str(), applied["version"].as_u64()), (Some("applied"), Some(3)));
    assert!(next(&synced, "mirroring version 3").starts_with("mirrored version 3 "));
    assert!(watcher.wait().unwrap().success());
    assert!(syncer.wait().unwrap().success());
    // The mirror holds what the source holds, and routes the same.
    let (a, b) = (json(&["view", "show", s(&source), "--json"]), json(&["view", "show", s(&mirror), "--json"]));
    assert_eq!((&a["version"], &a["fingerprint"]), (&b["version"], &b["fingerprint"]));
    assert_eq!(a["fingerprint"], applied["fingerprint"]);
}

/// Sends `signal` (`-STOP`, `-CONT`, `-KILL`) to a child.
fn signal(child: &Child, signal: &str) {
    assert!(Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap().success());
}

/// `fleet status` as JSON, and its exit status.
fn fleet_status(args: &[&str]) -> (Value, Option<i32>) {
    let out = keyroute(&[&["fleet", "status", "--json"], args].concat());
    (serde_json::from_str(std::str::from_utf8(&out.stdout).unwrap()).unwrap(), out.status.code())
}

fn standings(status: &Value) -> Vec<(String, String)> {
    let each = status["instances"].as_array().unwrap().iter();
    each.map(|i| (i["instance"].as_str().unwrap().to_owned(), i["standing"].as_str().unwrap().to_owned())).collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
}

#[test]
fn the_census_of_watching_instances_gates_a_rollout() {
    let etcd = etcd::Etcd::start(scratch("etcd-census"));
    let src = etcd.url("/keyroute/census");
    ok(&["view", "publish", &src, THREE, "--expect-version", "0"]);
    // Nobody registered: not a fleet in sync.
    let none = keyroute(&["fleet", "status", &src]);
    assert_eq!(none.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&none.stderr).contains("no instance is registered"));
    // Three instances (over etcd they register by default); web-3's entry outlives a pause.
    let watchers: Vec<_> = [("web-1", "2"), ("web-2", "2"), ("web-3", "60")]
        .iter()
        .map(|(id, ttl)| {
            lines(&["view", "watch", &src, "--json", "--poll-ms", "100", "--instance", id, "--census-ttl", ttl])
        })
        .collect();
    for (_, rx) in &watchers {
        assert!(next(rx, "applying version 1").contains(r#""event":"applied""#));
    }
    let (status, code) = fleet_status(&[&src, "--wait", "60"]);
    assert_eq!(code, Some(0), "{status:#}");
    assert_eq!(standings(&status), pairs(&[("web-1", "sync"), ("web-2", "sync"), ("web-3", "sync")]));
    assert_eq!(status["fingerprint"], json(&["view", "show", &src, "--json"])["fingerprint"]);
    // A rollout step while web-3 is paused: behind, then stale past the deadline (exit 1).
    signal(&watchers[2].0, "-STOP");
    ok(&["view", "rollout", &src, "--to", FOUR, "--progress", "0.25"]);
    for (_, rx) in &watchers[..2] {
        assert!(next(rx, "applying version 2").contains(r#""version":2"#));
    }
    let (status, code) = fleet_status(&[&src, "--deadline", "0.2", "--wait", "60"]);
    assert_eq!(code, Some(1), "{status:#}");
    assert_eq!(standings(&status), pairs(&[("web-1", "sync"), ("web-2", "sync"), ("web-3", "stale")]));
    assert_eq!(status["instances"][2]["view_version"], 1);
    // Resumed, it catches up, and the gate opens.
    signal(&watchers[2].0, "-CONT");
    assert!(next(&watchers[2].1, "applying version 2").contains(r#""version":2"#));
    let (status, code) = fleet_status(&[&src, "--wait", "60"]);
    assert_eq!(code, Some(0), "{status:#}");
    assert_eq!(status["instances"][2]["progress"], 0.25);
    // An instance killed without leaving disappears when its entry's lease expires.
    signal(&watchers[0].0, "-KILL");
    let until = std::time::Instant::now() + WAIT;
    while standings(&fleet_status(&[&src]).0).len() != 2 {
        assert!(std::time::Instant::now() < until, "web-1's entry did not expire");
        std::thread::sleep(Duration::from_millis(100));
    }
    let text = ok(&["fleet", "status", &src]);
    assert!(text.contains("2 instances: 2 sync, 0 behind, 0 stale, 0 refused, 0 diverged"), "{text}");
    for (mut child, _) in watchers {
        let _ = child.kill();
        let _ = child.wait();
    }
}
