//! The file source's time from publish to applied, over 50 watchers in one process (threads,
//! each with its own live view and its own watch of the file, as 50 instances on one host
//! have): 20 versions published one after another, each waited for until every watcher has
//! applied it. Prints the p50 and p99 of each watcher's delay, and of the delay until the last
//! watcher applied each version (`make bench-views`).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use keyroute_bindings::{Limits, LiveView, Spec, ViewDocument};
use keyroute_fleet::FileSource;
use keyroute_fleet::source::{self, Event, Source, WatchOptions};

const WATCHERS: usize = 50;
const VERSIONS: u64 = 20;

fn spec(nodes: usize) -> Spec {
    let nodes: Vec<String> = (0..nodes).map(|i| format!(r#"{{"id":"cache-{i}"}}"#)).collect();
    Spec::from_json(&format!(r#"{{"algorithm":"ring","nodes":[{}]}}"#, nodes.join(","))).unwrap()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("convergence");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("view.json");
    let publisher = FileSource::new(path.clone());
    let limits = Limits::DEFAULT;
    source::publish(&publisher, &ViewDocument::new(1, spec(10)), 0, &limits).unwrap();
    let (tx, rx) = mpsc::channel::<(usize, u64, Instant)>();
    let watches: Vec<_> = (0..WATCHERS)
        .map(|w| {
            let tx = tx.clone();
            let sink = Box::new(move |e: &Event| {
                if let Event::Applied(v) = e {
                    let _ = tx.send((w, v.version(), Instant::now()));
                }
            });
            FileSource::new(path.clone()).watch(Arc::new(LiveView::default()), WatchOptions::default(), sink).unwrap()
        })
        .collect();
    let wait_all = |version: u64| {
        let mut at = vec![None; WATCHERS];
        while at.iter().any(Option::is_none) {
            let (w, v, t) = rx.recv_timeout(Duration::from_secs(60)).expect("a watcher missed a version");
            if v == version {
                at[w] = Some(t);
            }
        }
        at.into_iter().map(Option::unwrap).collect::<Vec<_>>()
    };
    wait_all(1);
    let (mut each, mut last) = (Vec::new(), Vec::new());
    for version in 2..=VERSIONS + 1 {
        let doc = ViewDocument::new(version, spec(10 + (version as usize % 3)));
        let start = Instant::now();
        source::publish(&publisher, &doc, version - 1, &limits).unwrap();
        let applied: Vec<Duration> =
            wait_all(version).into_iter().map(|t| t.saturating_duration_since(start)).collect();
        last.push(*applied.iter().max().unwrap());
        each.extend(applied);
    }
    drop(watches);
    each.sort();
    last.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("file source, {WATCHERS} watchers (threads), {VERSIONS} versions published one at a time:");
    println!(
        "  publish -> applied, each watcher:   p50 {:7.2} ms   p99 {:7.2} ms   ({} samples)",
        ms(percentile(&each, 0.5)),
        ms(percentile(&each, 0.99)),
        each.len()
    );
    println!(
        "  publish -> applied by all {WATCHERS}:     p50 {:7.2} ms   p99 {:7.2} ms   (goal: at most 1000 ms)",
        ms(percentile(&last, 0.5)),
        ms(percentile(&last, 0.99))
    );
}
