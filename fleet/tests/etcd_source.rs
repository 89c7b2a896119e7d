//! The etcd source against a real etcd (Debian's etcd-server, started on free ports of
//! 127.0.0.1 and stopped by its pid): publishers racing on one expected version, the history,
//! a watch that applies each publish and refuses a broken value written behind keyroute's back,
//! a watch that survives etcd restarting, and bad URLs. Every wait is for an event, with a
//! generous timeout; nothing asserts a duration. `scripts/fleet-servers.sh` installs etcd.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, missing_docs)]

mod common {
    pub mod etcd;
    pub mod events;
    pub mod raw;
}

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Barrier};
use std::time::Duration;

use common::etcd::{Etcd, free_port};
use common::events::{self, WAIT, applied, wait_for};
use common::raw::RawPut;
use keyroute_bindings::{ErrorCode, Limits, LiveView, Spec, ViewDocument};
use keyroute_fleet::EtcdSource;
use keyroute_fleet::source::{self, Event, Source, WatchOptions};

fn scratch(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("etcd").join(name)
}

fn spec(nodes: usize, tag: &str) -> String {
    let nodes: Vec<String> = (0..nodes).map(|i| format!(r#"{{"id":"{tag}-{i}"}}"#)).collect();
    format!(r#"{{"algorithm":"ring","nodes":[{}]}}"#, nodes.join(","))
}

fn doc(version: u64, nodes: usize) -> ViewDocument {
    ViewDocument::new(version, Spec::from_json(&spec(nodes, &format!("v{version}"))).unwrap())
}

fn watch(source: &EtcdSource, options: WatchOptions) -> (Arc<LiveView>, keyroute_fleet::Watch, Receiver<Event>) {
    events::watch(source, options)
}

/// A watch that only polls once a minute: every change it applies came through etcd's stream.
fn stream_only() -> WatchOptions {
    WatchOptions { poll_interval: Duration::from_secs(60), ..WatchOptions::default() }
}

#[test]
fn publish_read_history_and_the_version_checks() {
    let etcd = Etcd::start(scratch("publish"));
    let limits = Limits::DEFAULT;
    let source = source::open(&etcd.url("/keyroute/cache")).unwrap();
    assert_eq!(source.url(), etcd.url("/keyroute/cache"));
    assert!(source.read(&limits).unwrap().is_none());
    assert!(source::current(source.as_ref(), &limits).unwrap().is_none());
    source::publish(source.as_ref(), &doc(1, 3), 0, &limits).unwrap();
    let now = source::current(source.as_ref(), &limits).unwrap().unwrap();
    assert_eq!((now.version(), now.route_id(b"user:1").unwrap().starts_with("v1-")), (1, true));
    // Expecting another version than the stored one, or publishing a version not newer.
    let e = source::publish(source.as_ref(), &doc(2, 4), 0, &limits).unwrap_err();
    assert_eq!(e.code(), ErrorCode::VersionConflict, "{e}");
    assert!(e.message().contains("holds version 1"), "{e}");
    let e = source::publish(source.as_ref(), &doc(1, 4), 1, &limits).unwrap_err();
    assert_eq!(e.code(), ErrorCode::StaleVersion, "{e}");
    // A view that does not build is never written.
    let dup = ViewDocument::new(2, Spec::from_json(r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"a"}]}"#).unwrap());
    assert_eq!(source::publish(source.as_ref(), &dup, 1, &limits).unwrap_err().code(), ErrorCode::DuplicateNodeId);
    assert_eq!(source::current(source.as_ref(), &limits).unwrap().unwrap().version(), 1);
    // The history keeps the 20 newest, newest first.
    for version in 2..=25 {
        source::publish(source.as_ref(), &doc(version, 3), version - 1, &limits).unwrap();
    }
    let history = source.history().unwrap();
    assert_eq!(history.iter().map(|s| s.version).collect::<Vec<_>>(), (6..=25).rev().collect::<Vec<_>>());
    let oldest = ViewDocument::from_bytes(&history[19].bytes, &limits).unwrap().build(&limits).unwrap();
    assert_eq!(oldest.version(), 6);
    // Another key of the same etcd is another view.
    let other = source::open(&etcd.url("/keyroute/other")).unwrap();
    assert!(other.read(&limits).unwrap().is_none() && other.history().unwrap().is_empty());
}

#[test]
fn two_publishers_with_the_same_expected_version_get_one_winner() {
    let etcd = Etcd::start(scratch("race"));
    let limits = Limits::DEFAULT;
    for round in 0..20u64 {
        let barrier = Arc::new(Barrier::new(2));
        let results: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..2)
                .map(|who| {
                    let (barrier, source) = (Arc::clone(&barrier), etcd.source("/keyroute/race"));
                    s.spawn(move || {
                        let doc = ViewDocument::new(round + 1, Spec::from_json(&spec(3 + who, "n")).unwrap());
                        barrier.wait();
                        source::publish(&source, &doc, round, &limits)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 1, "round {round}: {results:?}");
        let lost = results.iter().find_map(|r| r.as_ref().err()).unwrap();
        assert_eq!(lost.code(), ErrorCode::VersionConflict, "{lost}");
    }
    let source = etcd.source("/keyroute/race");
    assert_eq!(source::current(&source, &limits).unwrap().unwrap().version(), 20);
    assert_eq!(source.history().unwrap().len(), 20);
}

#[test]
fn a_watch_applies_each_publish_and_refuses_a_broken_value_written_behind_its_back() {
    let etcd = Etcd::start(scratch("watch"));
    let limits = Limits::DEFAULT;
    let source = etcd.source("/keyroute/watched");
    source::publish(&source, &doc(1, 3), 0, &limits).unwrap();
    let (view, watch, rx) = watch(&source, stream_only());
    wait_for(&rx, "applying version 1", applied(1));
    for version in 2..=6 {
        source::publish(&source, &doc(version, 3 + version as usize), version - 1, &limits).unwrap();
        wait_for(&rx, &format!("applying version {version}"), applied(version));
    }
    // Written with etcd's own API: a spec that does not build, then one that is not newer.
    etcd.put_raw("/keyroute/watched", r#"{"version":7,"spec":{"algorithm":"ring","nodes":[{"id":"a"},{"id":"a"}]}}"#);
    let events = wait_for(&rx, "refusing the broken value", |e| matches!(e, Event::Refused(_)));
    let Some(Event::Refused(refusal)) = events.last() else { panic!("not a refusal: {events:?}") };
    assert_eq!(refusal.code, ErrorCode::DuplicateNodeId);
    assert_eq!(view.version(), Some(6), "the live view keeps the last good view");
    source::publish(&source, &doc(8, 4), 6, &limits).unwrap_err(); // the broken value has version 7
    source::publish(&source, &doc(8, 4), 7, &limits).unwrap();
    wait_for(&rx, "applying version 8", applied(8));
    // Stopping a watch on a quiet etcd returns: its stream's socket is shut.
    let (done, stopped) = mpsc::channel();
    std::thread::spawn(move || {
        watch.stop();
        let _ = done.send(());
    });
    stopped.recv_timeout(WAIT).expect("the watch stopped");
}

#[test]
fn a_watch_survives_etcd_restarting_and_reads_what_was_published_meanwhile() {
    let mut etcd = Etcd::start(scratch("restart"));
    let limits = Limits::DEFAULT;
    let source = etcd.source("/keyroute/restart");
    source::publish(&source, &doc(1, 3), 0, &limits).unwrap();
    let options = WatchOptions { poll_interval: Duration::from_millis(200), ..WatchOptions::default() };
    let (view, _watch, rx) = watch(&source, options);
    wait_for(&rx, "applying version 1", applied(1));
    etcd.kill();
    let events = wait_for(&rx, "a refusal while etcd is down", |e| matches!(e, Event::Refused(_)));
    let Some(Event::Refused(refusal)) = events.last() else { panic!("not a refusal: {events:?}") };
    assert_eq!(refusal.code, ErrorCode::Io);
    assert!(refusal.message.contains("cannot reach"), "{}", refusal.message);
    assert_eq!(view.version(), Some(1), "an unreachable etcd keeps the view in effect");
    etcd.restart();
    source::publish(&source, &doc(2, 5), 1, &limits).unwrap();
    wait_for(&rx, "applying version 2 after the restart", applied(2));
    // And the stream is back: a publish is applied again.
    source::publish(&source, &doc(3, 6), 2, &limits).unwrap();
    wait_for(&rx, "applying version 3", applied(3));
}

#[test]
fn bad_urls_and_an_unreachable_etcd() {
    for bad in [
        "etcd://127.0.0.1/keyroute/cache",
        "etcd://127.0.0.1:2379",
        "etcd://127.0.0.1:2379/",
        "etcd://:2379/k",
        "etcd://h:0/k",
    ] {
        let e = source::open(bad).unwrap_err();
        assert_eq!(e.code(), ErrorCode::UnknownSource, "{bad}: {e}");
    }
    // Nothing listens on a port just freed.
    let url = format!("etcd://127.0.0.1:{}/keyroute/cache", free_port());
    let e = source::open(&url).unwrap().read(&Limits::DEFAULT).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Io, "{e}");
    assert!(e.message().contains("cannot reach"), "{e}");
}
