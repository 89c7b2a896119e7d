//! The census on a file source and on a real etcd (Debian's etcd-server, started on free ports
//! of 127.0.0.1 and stopped by its pid): instances register, follow publishes, refuse a hostile
//! view (and the census says so), survive etcd frozen with SIGSTOP for longer than their
//! timeouts, and leave. Every wait is for an event or a status, with a generous timeout;
//! nothing asserts a duration.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, missing_docs)]

mod common {
    pub mod etcd;
    pub mod events;
    pub mod raw;
}

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant, SystemTime};

use common::etcd::Etcd;
use common::events::{WAIT, applied, wait_for};
use common::raw::RawPut;
use keyroute_bindings::{Limits, LiveView, Spec, ViewDocument};
use keyroute_fleet::census::{self, Instance, Member, Standing, Status};
use keyroute_fleet::source::{self, Event, Source, WatchOptions};
use keyroute_fleet::{FileSource, Watch};

const TTL: Duration = Duration::from_secs(2);

fn spec(nodes: usize) -> Spec {
    let nodes: Vec<String> = (0..nodes).map(|i| format!(r#"{{"id":"cache-{i}"}}"#)).collect();
    Spec::from_json(&format!(r#"{{"algorithm":"ring","nodes":[{}]}}"#, nodes.join(","))).unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("census").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// One instance: a live view watching the source, registered in its census.
struct Node {
    view: Arc<LiveView>,
    member: Arc<Member>,
    events: Receiver<Event>,
    _watch: Watch,
}

fn node(source: &Arc<dyn Source>, id: &str) -> Node {
    let view = Arc::new(LiveView::default());
    let member = Arc::new(Member::join(Arc::clone(source), &Instance::new(id, "rust").unwrap(), TTL).unwrap());
    assert!(member.registered(), "{id} did not register");
    let (tx, rx) = mpsc::channel();
    let sink = census::recording(
        Arc::clone(&member),
        Arc::clone(&view),
        Box::new(move |e| {
            let _ = tx.send(e.clone());
        }),
    );
    let options = WatchOptions { poll_interval: Duration::from_millis(200), ..WatchOptions::default() };
    let watch = source.watch(Arc::clone(&view), options, sink).unwrap();
    Node { view, member, events: rx, _watch: watch }
}

fn status(source: &dyn Source, deadline: Duration) -> Status {
    census::status(source, &Limits::DEFAULT, deadline, SystemTime::now()).unwrap()
}

/// Reads the census until `done` accepts it.
fn status_until(source: &dyn Source, what: &str, done: impl Fn(&Status) -> bool) -> Status {
    let until = Instant::now() + WAIT;
    loop {
        let s = status(source, Duration::from_secs(60));
        if done(&s) {
            return s;
        }
        assert!(Instant::now() < until, "the census did not show {what} within {WAIT:?}: {s:#?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn ids(s: &Status, standing: Standing) -> Vec<&str> {
    s.instances.iter().filter(|i| i.standing == standing).map(|i| i.entry.instance.as_str()).collect()
}

/// Publishes `nodes` nodes as the version after `expect`, and waits until every node applied it.
fn publish_and_wait(source: &dyn Source, nodes: &[&Node], expect: u64, count: usize) -> u64 {
    let view = source::publish(source, &ViewDocument::new(expect + 1, spec(count)), expect, &Limits::DEFAULT).unwrap();
    for n in nodes {
        wait_for(&n.events, "applying the publish", applied(expect + 1));
    }
    view.fingerprint()
}

/// The census's life on `source`: three instances register and follow two publishes; one that
/// stops recording is behind, then stale once the deadline passes; leaving removes an entry.
fn follows_publishes(source: &Arc<dyn Source>) {
    let publisher = source.as_ref();
    assert_eq!(status(publisher, WAIT).instances.len(), 0);
    assert!(!status(publisher, WAIT).converged(), "an empty census is not a converged one");
    source::publish(publisher, &ViewDocument::new(1, spec(3)), 0, &Limits::DEFAULT).unwrap();
    let nodes: Vec<Node> = ["web-1", "web-2", "web-3"].iter().map(|id| node(source, id)).collect();
    for n in &nodes {
        wait_for(&n.events, "applying version 1", applied(1));
    }
    let s = status_until(publisher, "three in sync", Status::converged);
    assert_eq!(ids(&s, Standing::Sync), ["web-1", "web-2", "web-3"]);
    let e = &s.instances[0].entry;
    assert_eq!((e.view_version, e.surface.as_str(), e.pid), (Some(1), "rust", std::process::id()));
    assert_eq!(e.fingerprint, s.fingerprint);
    assert!(s.published_unix_ms.is_some());

    let all: Vec<&Node> = nodes.iter().collect();
    let fingerprint = publish_and_wait(publisher, &all, 1, 4);
    let s = status_until(publisher, "version 2 everywhere", Status::converged);
    assert_eq!(s.fingerprint.as_deref(), Some(keyroute_bindings::view::fingerprint_text(fingerprint).as_str()));

    // An instance whose entry still says version 2 (as one that stopped, or cannot reach the
    // source, would leave it) is behind, then stale when the deadline has passed.
    let frozen = Instance::new("web-4", "rust").unwrap();
    let lagging = Member::join(Arc::clone(source), &frozen, TTL).unwrap();
    lagging.record(&nodes[0].view);
    let (done, rest) = (nodes[0].member.entry().unwrap(), [&nodes[0], &nodes[1], &nodes[2]]);
    assert_eq!(done.view_version, Some(2));
    publish_and_wait(publisher, &rest, 2, 5);
    let s = status_until(publisher, "web-4 behind", |s| ids(s, Standing::Behind) == ["web-4"]);
    assert!(!s.converged() && !s.failed(), "behind within the deadline is worth waiting for");
    let s = status(publisher, Duration::ZERO);
    assert_eq!((ids(&s, Standing::Stale), s.failed()), (vec!["web-4"], true));
    assert!(s.instances.iter().find(|i| i.entry.instance == "web-4").unwrap().behind_ms.is_some());
    lagging.leave();
    let s = status_until(publisher, "web-4 gone", |s| s.instances.len() == 3);
    assert!(s.converged());
    drop(nodes);
    status_until(publisher, "every instance gone", |s| s.instances.is_empty());
}

#[test]
fn a_file_census_follows_publishes() {
    let dir = scratch("file");
    let source: Arc<dyn Source> = Arc::new(FileSource::new(dir.join("view.json")));
    follows_publishes(&source);
    // Entries live beside the document, and leaving removed them.
    let entries = std::fs::read_dir(dir.join(".view.json.census")).unwrap().count();
    assert_eq!(entries, 0);
}

#[test]
fn a_file_census_entry_expires_when_its_instance_stops_beating() {
    let dir = scratch("file-expiry");
    let source = FileSource::new(dir.join("view.json"));
    let entry = serde_json::json!({
        "instance": "gone-1", "surface": "rust", "keyroute_version": "0", "host": "h", "pid": 1,
        "started_unix_ms": 0, "ttl_ms": 2000, "view_version": null, "fingerprint": null, "progress": null,
        "applied_unix_ms": null, "refusal": null, "refusals": 0
    });
    source.census_put("gone-1", entry.to_string().as_bytes(), None, TTL).unwrap();
    assert_eq!(source.census_entries().unwrap().len(), 1);
    // Its heartbeat (the file's modification time) three seconds old: expired.
    let file = std::fs::File::options().write(true).open(dir.join(".view.json.census/gone-1.json")).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(3)).unwrap();
    assert_eq!(source.census_entries().unwrap().len(), 0);
    assert!(!census::status(&source, &Limits::DEFAULT, WAIT, SystemTime::now()).unwrap().converged());
}

#[test]
fn an_etcd_census_follows_publishes() {
    let etcd = Etcd::start(scratch("etcd"));
    let source: Arc<dyn Source> = Arc::new(etcd.source("/keyroute/census"));
    follows_publishes(&source);
}

#[test]
fn a_hostile_view_is_refused_by_every_instance_and_etcd_frozen_is_survived() {
    let etcd = Etcd::start(scratch("etcd-faults"));
    let source: Arc<dyn Source> = Arc::new(etcd.source("/keyroute/faults"));
    let publisher = source.as_ref();
    source::publish(publisher, &ViewDocument::new(1, spec(3)), 0, &Limits::DEFAULT).unwrap();
    let nodes: Vec<Node> = (1..=4).map(|i| node(&source, &format!("app-{i}"))).collect();
    for n in &nodes {
        wait_for(&n.events, "applying version 1", applied(1));
    }
    status_until(publisher, "four in sync", Status::converged);
    let before: Vec<String> = nodes.iter().map(|n| n.view.route_id(b"user:42").unwrap()).collect();

    // A view that does not build, written behind keyroute's back: every instance refuses it
    // and keeps routing with version 1; the census shows each refusal and the status says why.
    etcd.put_raw("/keyroute/faults", r#"{"version":2,"spec":{"algorithm":"ring","nodes":[{"id":"a"},{"id":"a"}]}}"#);
    for n in &nodes {
        wait_for(&n.events, "refusing version 2", |e| matches!(e, Event::Refused(r) if r.version == Some(2)));
    }
    let s = status_until(publisher, "four refusals", |s| s.count(Standing::Refused) == 4);
    assert!(s.failed() && !s.converged());
    let problem = s.problem.as_ref().unwrap();
    assert_eq!((s.version, problem.error.as_str()), (Some(2), "duplicate_node_id"));
    assert_eq!(s.instances[0].entry.refusal.as_ref().unwrap().error, "duplicate_node_id");

    // etcd frozen for longer than a request's timeout (10 s) and the entries' time to live:
    // every instance still routes with version 1.
    etcd.freeze();
    std::thread::sleep(Duration::from_secs(12));
    let during: Vec<String> = nodes.iter().map(|n| n.view.route_id(b"user:42").unwrap()).collect();
    assert_eq!(during, before);
    etcd.thaw();

    // Back: a good view is applied by all, and every entry is in the census again (written
    // again under a new lease where the old one expired).
    let all: Vec<&Node> = nodes.iter().collect();
    publish_and_wait(publisher, &all, 2, 5);
    let s = status_until(publisher, "four in sync at version 3", |s| s.converged() && s.instances.len() == 4);
    assert_eq!(s.version, Some(3));
}
