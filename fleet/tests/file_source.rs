//! The file source against real files and real writers: publishers racing on one expected
//! version, a writer that truncates and rewrites in place, a file deleted and recreated,
//! Kubernetes' `..data` symlink swap, hostile specs, and polling without notifications. Every
//! wait is for an event, with a generous timeout; nothing asserts a duration.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, missing_docs)]

mod common {
    pub mod events;
}

use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Barrier};
use std::time::Duration;

use common::events::{self, applied, wait_for};
use keyroute_bindings::{ErrorCode, Limits, LiveView, Router, Spec, ViewDocument};
use keyroute_fleet::source::{self, Event, Source, WatchOptions};
use keyroute_fleet::{FileSource, Watch};
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("file-source").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn spec(nodes: usize, tag: &str) -> String {
    let nodes: Vec<String> = (0..nodes).map(|i| format!(r#"{{"id":"{tag}-{i}"}}"#)).collect();
    format!(r#"{{"algorithm":"ring","nodes":[{}]}}"#, nodes.join(","))
}

fn document(version: u64, spec: &str) -> String {
    format!(r#"{{"version":{version},"spec":{spec}}}"#)
}

/// A live view watching the file `path`, and the events of its watch.
fn watch(path: &Path, options: WatchOptions) -> (Arc<LiveView>, Watch, Receiver<Event>) {
    events::watch(&FileSource::new(path.to_path_buf()), options)
}

#[test]
fn two_publishers_with_the_same_expected_version_get_one_winner() {
    let dir = scratch("race");
    let path = dir.join("view.json");
    let limits = Limits::DEFAULT;
    for round in 0..20u64 {
        let barrier = Arc::new(Barrier::new(2));
        let results: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..2)
                .map(|who| {
                    let (barrier, path) = (Arc::clone(&barrier), path.clone());
                    s.spawn(move || {
                        let source = FileSource::new(path);
                        let doc = ViewDocument::new(round + 1, Spec::from_json(&spec(3 + who, "n")).unwrap());
                        barrier.wait();
                        source::publish(&source, &doc, round, &limits)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let wins = results.iter().filter(|r| r.is_ok()).count();
        assert_eq!(wins, 1, "round {round}: {results:?}");
        let lost = results.iter().find_map(|r| r.as_ref().err()).unwrap();
        assert_eq!(lost.code(), ErrorCode::VersionConflict, "{lost}");
        assert!(lost.message().contains(&format!("holds version {}", round + 1)), "{lost}");
    }
    let source = FileSource::new(path);
    let history = source.history().unwrap();
    assert_eq!(history.len(), keyroute_fleet::file::HISTORY);
    assert_eq!(history[0].version, 20);
    assert!(history.windows(2).all(|w| w[0].version > w[1].version));
    let now = source::current(&source, &limits).unwrap().unwrap();
    assert_eq!(now.version(), 20);
}

#[test]
fn a_writer_that_truncates_and_rewrites_in_place_never_has_a_torn_view_applied() {
    let dir = scratch("truncate");
    let path = dir.join("cache.json");
    let specs: Vec<String> = (0..4).map(|n| spec(3 + n, &format!("v{n}"))).collect();
    let fingerprints: Vec<u64> = specs.iter().map(|s| Router::from_json(s).unwrap().fingerprint()).collect();
    std::fs::write(&path, document(1, &specs[0])).unwrap();
    let (view, _watch, rx) = watch(&path, WatchOptions::default());
    wait_for(&rx, "applying version 1", applied(1));
    let last = 40u64;
    for version in 2..=last {
        // In place, in three pieces with pauses between them, as a careless editor saves.
        let text = document(version, &specs[(version % 4) as usize]);
        let bytes = text.as_bytes();
        let mut file = std::fs::File::create(&path).unwrap();
        for piece in bytes.chunks(bytes.len() / 3 + 1) {
            std::io::Write::write_all(&mut file, piece).unwrap();
            std::io::Write::flush(&mut file).unwrap();
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    let events = wait_for(&rx, "applying the last version", applied(last));
    for event in &events {
        if let Event::Applied(v) = event {
            assert_eq!(v.fingerprint(), fingerprints[(v.version() % 4) as usize], "version {}", v.version());
            let id = v.route_id(b"user:1").unwrap();
            assert!(id.starts_with(&format!("v{}-", v.version() % 4)), "{id} in version {}", v.version());
        }
    }
    assert_eq!(view.version(), Some(last));
}

#[test]
fn a_deleted_file_keeps_the_last_good_view_until_it_is_recreated() {
    let dir = scratch("delete");
    let path = dir.join("view.json");
    std::fs::write(&path, document(1, &spec(3, "a"))).unwrap();
    let (view, _watch, rx) = watch(&path, WatchOptions::default());
    wait_for(&rx, "applying version 1", applied(1));
    let before = view.route_id(b"user:7").unwrap();
    std::fs::remove_file(&path).unwrap();
    wait_for(&rx, "refusing the missing file", |e| matches!(e, Event::Refused(r) if r.code == ErrorCode::Io));
    assert_eq!((view.version(), view.route_id(b"user:7").unwrap()), (Some(1), before));
    std::fs::write(&path, document(2, &spec(4, "b"))).unwrap();
    wait_for(&rx, "applying version 2", applied(2));
    assert!(view.route_id(b"user:7").unwrap().starts_with("b-"));
    // A broken file is a refusal too, and the next good one applies.
    std::fs::write(&path, "{\"version\": 3, \"spec\": ").unwrap();
    wait_for(&rx, "refusing a broken file", |e| matches!(e, Event::Refused(r) if r.code == ErrorCode::InvalidJson));
    assert_eq!(view.version(), Some(2));
    std::fs::write(&path, document(3, &spec(2, "c"))).unwrap();
    wait_for(&rx, "applying version 3", applied(3));
}

/// Kubernetes mounts a ConfigMap as `NAME -> ..data/NAME`, `..data -> ..TIMESTAMP/`, and
/// updates it by writing a new timestamped folder, pointing `..data_tmp` at it and renaming
/// `..data_tmp` over `..data`, then removing the old folder.
#[test]
fn a_kubernetes_data_symlink_swap_is_followed() {
    let dir = scratch("configmap");
    let write_version = |version: u64, old: Option<&str>| {
        let folder = format!("..2026_12_02_06_00_{version:02}.000000001");
        std::fs::create_dir(dir.join(&folder)).unwrap();
        std::fs::write(dir.join(&folder).join("cache.json"), document(version, &spec(2 + version as usize, "k")))
            .unwrap();
        std::os::unix::fs::symlink(&folder, dir.join("..data_tmp")).unwrap();
        std::fs::rename(dir.join("..data_tmp"), dir.join("..data")).unwrap();
        if let Some(old) = old {
            std::fs::remove_dir_all(dir.join(old)).unwrap();
        }
        folder
    };
    let mut folder = write_version(1, None);
    std::os::unix::fs::symlink("..data/cache.json", dir.join("cache.json")).unwrap();
    let (view, _watch, rx) = watch(&dir.join("cache.json"), WatchOptions::default());
    wait_for(&rx, "applying version 1", applied(1));
    for version in 2..=5 {
        folder = write_version(version, Some(&folder));
        wait_for(&rx, &format!("applying version {version}"), applied(version));
        assert_eq!(view.load().unwrap().router().len(), 2 + version as usize);
    }
}

#[test]
fn polling_alone_follows_changes() {
    let dir = scratch("poll");
    let path = dir.join("view.json");
    std::fs::write(&path, document(1, &spec(3, "p"))).unwrap();
    let options = WatchOptions { poll_interval: Duration::from_millis(50), poll_only: true, ..WatchOptions::default() };
    let (view, watch, rx) = watch(&path, options);
    wait_for(&rx, "applying version 1", applied(1));
    keyroute_fleet::file::write_atomically(&path, document(2, &spec(4, "p")).as_bytes()).unwrap();
    wait_for(&rx, "applying version 2", applied(2));
    watch.stop();
    assert_eq!(view.version(), Some(2));
}

/// The hostile catalogue's specs, each inside a view document: every one the catalogue refuses
/// is refused by a live view with the catalogue's code, and routing continues with the last
/// good view. A few go through a watched file as well.
#[test]
fn hostile_specs_are_refused_and_the_last_good_view_routes() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../conformance/vectors/v1/hostile.json");
    let catalogue: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let cases: Vec<(String, String, u64)> = catalogue["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c.get("code").is_some() && c.as_object().unwrap().len() == 4)
        .filter_map(|c| {
            let text = match (c.get("spec"), c.get("spec_json")) {
                (Some(spec), None) => spec.to_string(),
                (None, Some(Value::String(text))) => text.clone(),
                _ => return None,
            };
            Some((c["id"].as_str().unwrap().to_owned(), text, c["code"].as_u64().unwrap()))
        })
        .collect();
    assert!(cases.len() > 60, "{} cases", cases.len());
    let view = LiveView::default();
    view.publish_bytes(document(1, &spec(3, "good")).as_bytes()).unwrap();
    let good = view.route_id(b"user:1").unwrap();
    for (version, (id, text, code)) in (2u64..).zip(&cases) {
        let e = view.publish_bytes(document(version, text).as_bytes()).unwrap_err();
        assert_eq!(u64::from(e.code().code()), *code, "{id}: {e}");
        assert_eq!(view.last_refusal().unwrap().code, e.code(), "{id}");
        assert_eq!((view.version(), view.route_id(b"user:1").unwrap()), (Some(1), good.clone()), "{id}");
    }
    let dir = scratch("hostile");
    let file = dir.join("view.json");
    std::fs::write(&file, document(1, &spec(3, "good"))).unwrap();
    let (watched, _watch, rx) = watch(&file, WatchOptions::default());
    wait_for(&rx, "applying version 1", applied(1));
    for (version, (id, text, code)) in (2u64..).zip(cases.iter().step_by(cases.len() / 6)) {
        keyroute_fleet::file::write_atomically(&file, document(version, text).as_bytes()).unwrap();
        wait_for(
            &rx,
            &format!("refusing {id}"),
            |e| matches!(e, Event::Refused(r) if u64::from(r.code.code()) == *code),
        );
        assert_eq!(watched.route_id(b"user:1").unwrap(), good, "{id}");
    }
    assert_eq!(watched.version(), Some(1));
}

#[test]
fn a_toml_document_is_read_and_never_written() {
    let dir = scratch("toml");
    let path = dir.join("view.toml");
    std::fs::write(&path, "version = 4\n[spec]\nalgorithm = \"ring\"\nnodes = [{ id = \"a\" }, { id = \"b\" }]\n")
        .unwrap();
    let (view, _watch, rx) = watch(&path, WatchOptions::default());
    wait_for(&rx, "applying version 4", applied(4));
    assert_eq!(view.load().unwrap().router().len(), 2);
    keyroute_fleet::file::write_atomically(&path, b"version = 5\n[spec\n").unwrap();
    wait_for(&rx, "refusing bad TOML", |e| matches!(e, Event::Refused(r) if r.code == ErrorCode::InvalidToml));
    let doc = ViewDocument::new(6, Spec::from_json(&spec(2, "t")).unwrap());
    let e = source::publish(&FileSource::new(path), &doc, 4, &Limits::DEFAULT).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
}

#[test]
fn source_urls() {
    let dir = scratch("urls");
    let url = format!("file://{}", dir.join("v.json").display());
    let source = source::open(&url).unwrap();
    assert_eq!(source.url(), format!("file://{}", std::fs::canonicalize(&dir).unwrap().join("v.json").display()));
    assert!(source.read(&Limits::DEFAULT).unwrap().is_none());
    // A directory stands for its view.json.
    let doc = ViewDocument::new(1, Spec::from_json(&spec(2, "d")).unwrap());
    source::publish(source::open(dir.to_str().unwrap()).unwrap().as_ref(), &doc, 0, &Limits::DEFAULT).unwrap();
    assert!(dir.join("view.json").is_file());
    for bad in ["etcd://127.0.0.1/keyroute/cache", "consul://127.0.0.1:8500/k", "file://relative/path"] {
        assert_eq!(source::open(bad).unwrap_err().code(), ErrorCode::UnknownSource, "{bad}");
    }
    // A view that does not build is never written.
    let dup = ViewDocument::new(2, Spec::from_json(r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"a"}]}"#).unwrap());
    let e = source::publish(source.as_ref(), &dup, 0, &Limits::DEFAULT).unwrap_err();
    assert_eq!(e.code(), ErrorCode::DuplicateNodeId);
}
