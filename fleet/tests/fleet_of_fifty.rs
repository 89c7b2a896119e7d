//! A fleet of 50 instances watching one real etcd (Debian's etcd-server on free ports of
//! 127.0.0.1): threads across 4 processes (this test binary run again as children), each
//! instance with its own live view, watch stream and census entry. 20 versions are published one
//! after another; each is waited for until all 50 have applied it, and every instance routes a
//! sample of 1,000 keys with the view it applied exactly as the view's own router does. Prints
//! the p50 and p99 of the delay from publish to applied (per instance, and until the last one);
//! nothing asserts a duration. Then the census holds 50 entries, all in sync.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, missing_docs)]

mod common {
    pub mod etcd;
}

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use common::etcd::Etcd;
use keyroute_bindings::view::{now_unix_ms, unix_ms};
use keyroute_bindings::{Limits, LiveView, Spec, ViewDocument, ViewState};
use keyroute_fleet::census::{self, Instance, Member};
use keyroute_fleet::source::{self, Event, Source, WatchOptions};

const PROCESSES: usize = 4;
const INSTANCES: usize = 50;
const VERSIONS: u64 = 20;
const SAMPLE: usize = 1000;
const WAIT: Duration = Duration::from_secs(120);
/// Where a child finds its etcd and instance ids: `URL FIRST COUNT`.
const CHILD: &str = "KEYROUTE_TEST_FLEET_CHILD";

fn spec(nodes: usize) -> Spec {
    let nodes: Vec<String> = (0..nodes).map(|i| format!(r#"{{"id":"cache-{i}"}}"#)).collect();
    Spec::from_json(&format!(r#"{{"algorithm":"ring","nodes":[{}]}}"#, nodes.join(","))).unwrap()
}

/// XXH3-64 of the owners of the sample keys under `view`: what an instance reports, and what
/// the publisher checks it against.
fn routes(view: &ViewState) -> u64 {
    let mut owners = String::new();
    for k in 0..SAMPLE {
        owners.push_str(view.route_id(format!("user:{k}").as_bytes()).unwrap());
        owners.push('\n');
    }
    keyroute_bindings::core::hash::xxh3_64(owners.as_bytes())
}

#[test]
#[ignore = "a child process of fifty_instances_over_etcd_converge (run by it, with its environment)"]
fn child_instances() {
    let args = std::env::var(CHILD).expect("run by fifty_instances_over_etcd_converge");
    let [url, first, count]: [&str; 3] = args.split(' ').collect::<Vec<_>>().try_into().unwrap();
    let (first, count): (usize, usize) = (first.parse().unwrap(), count.parse().unwrap());
    let source: Arc<dyn Source> = Arc::from(source::open(url).unwrap());
    let out = Arc::new(Mutex::new(std::io::stdout()));
    let mut held = Vec::new();
    for i in first..first + count {
        let view = Arc::new(LiveView::default());
        let instance = Instance::new(&format!("app-{i:02}"), "rust").unwrap();
        let member = Arc::new(Member::join(Arc::clone(&source), &instance, Duration::from_secs(10)).unwrap());
        let out = Arc::clone(&out);
        let sink = census::recording(
            member,
            Arc::clone(&view),
            Box::new(move |e| {
                if let Event::Applied(v) = e {
                    let line = format!("fleet-child {i} {} {} {:x}\n", v.version(), unix_ms(v.applied_at()), routes(v));
                    let mut out = out.lock().unwrap();
                    out.write_all(line.as_bytes()).unwrap();
                    out.flush().unwrap();
                }
            }),
        );
        held.push(source.watch(view, WatchOptions::default(), sink).unwrap());
    }
    // Until the parent closes stdin.
    let _ = std::io::stdin().lines().count();
    drop(held);
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

#[test]
fn fifty_instances_over_etcd_converge() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fleet-of-fifty");
    let etcd = Etcd::start(dir);
    let url = etcd.url("/keyroute/fleet");
    let publisher = etcd.source("/keyroute/fleet");
    source::publish(&publisher, &ViewDocument::new(1, spec(10)), 0, &Limits::DEFAULT).unwrap();

    let (tx, rx) = mpsc::channel::<(usize, u64, u64, u64)>();
    let mut children = Vec::new();
    for p in 0..PROCESSES {
        let (first, count) = (p * INSTANCES / PROCESSES, (p + 1) * INSTANCES / PROCESSES - p * INSTANCES / PROCESSES);
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["child_instances", "--exact", "--ignored", "--nocapture", "--test-threads", "1"])
            .env(CHILD, format!("{url} {first} {count}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let line = line.unwrap();
                // (The first line follows libtest's `test child_instances ... ` on its line.)
                let Some((_, rest)) = line.split_once("fleet-child ") else { continue };
                let f: Vec<&str> = rest.split(' ').collect();
                let digest = u64::from_str_radix(f[3], 16).unwrap();
                let _ = tx.send((f[0].parse().unwrap(), f[1].parse().unwrap(), f[2].parse().unwrap(), digest));
            }
        });
        children.push(child);
    }
    // Each version: every instance applied it, with the publisher's routes.
    let wait_all = |version: u64, want: u64| -> Vec<u64> {
        let mut at: HashMap<usize, u64> = HashMap::new();
        let until = Instant::now() + WAIT;
        while at.len() < INSTANCES {
            let left = until.saturating_duration_since(Instant::now());
            let (i, v, applied, digest) = rx.recv_timeout(left).unwrap_or_else(|_| {
                let missing: Vec<usize> = (0..INSTANCES).filter(|i| !at.contains_key(i)).collect();
                panic!("{} of 50 applied version {version}; not {missing:?}", at.len())
            });
            if v == version {
                assert_eq!(digest, want, "instance {i} routes version {version} unlike its router");
                at.insert(i, applied);
            }
        }
        at.into_values().collect()
    };
    let first = source::current(&publisher, &Limits::DEFAULT).unwrap().unwrap();
    wait_all(1, routes(&first));
    let (mut each, mut last) = (Vec::new(), Vec::new());
    for version in 2..=VERSIONS + 1 {
        let nodes = 10 + (version as usize % 4);
        let published_ms = now_unix_ms();
        let view = source::publish(&publisher, &ViewDocument::new(version, spec(nodes)), version - 1, &Limits::DEFAULT)
            .unwrap();
        let applied = wait_all(version, routes(&view));
        let delays: Vec<u64> = applied.iter().map(|a| a.saturating_sub(published_ms)).collect();
        last.push(*delays.iter().max().unwrap());
        each.extend(delays);
    }
    each.sort_unstable();
    last.sort_unstable();
    println!(
        "publish to applied over etcd, {INSTANCES} instances in {PROCESSES} processes, {VERSIONS} versions: \
         per instance p50 {} ms, p99 {} ms; until the last instance p50 {} ms, p99 {} ms",
        percentile(&each, 0.5),
        percentile(&each, 0.99),
        percentile(&last, 0.5),
        percentile(&last, 0.99)
    );
    // The census: fifty entries, every one in sync with the last version.
    let until = Instant::now() + WAIT;
    loop {
        let s = census::status(&publisher, &Limits::DEFAULT, Duration::from_secs(60), SystemTime::now()).unwrap();
        if s.converged() && s.instances.len() == INSTANCES {
            assert_eq!(s.version, Some(VERSIONS + 1));
            break;
        }
        assert!(Instant::now() < until, "the census did not converge: {} entries", s.instances.len());
        std::thread::sleep(Duration::from_millis(50));
    }
    for mut child in children {
        drop(child.stdin.take());
        assert!(child.wait().unwrap().success());
    }
}
