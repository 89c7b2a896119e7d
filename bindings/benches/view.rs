//! A route through a [`LiveView`] against a route on the plain [`Router`] it holds, measured
//! side by side in one run (`make bench-views`, which prints each median and the ratio).
//! Keys cycle through 4,096 distinct 11-byte keys, so the ring's points stay in cache as a
//! busy router's do; the live view holds a plain view and, separately, a rollout at 0.5 (compared with the plain
//! transition). `live-view` goes through a thread's `ViewReader`, `live-view-with` through
//! `LiveView::with` (no per-thread state).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use keyroute_bindings::{LiveView, Router, Transition};

fn spec(nodes: usize) -> String {
    let nodes: Vec<String> = (0..nodes).map(|i| format!(r#"{{"id":"cache-{i}"}}"#)).collect();
    format!(r#"{{"algorithm":"ring","nodes":[{}]}}"#, nodes.join(","))
}

fn keys() -> Vec<[u8; 11]> {
    (0..4096u32)
        .map(|i| {
            let mut k = *b"user:000000";
            let text = format!("{:06}", (i * 611_953 + 12_345) % 1_000_000);
            k[5..].copy_from_slice(text.as_bytes());
            k
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let keys = keys();
    let mut group = c.benchmark_group("view");
    for n in [10usize, 1000] {
        let router = Router::from_json(&spec(n)).unwrap();
        let view = LiveView::default();
        view.publish_bytes(format!(r#"{{"version":1,"spec":{}}}"#, spec(n)).as_bytes()).unwrap();
        let rollout = LiveView::default();
        let doc = format!(r#"{{"version":1,"spec":{},"rollout":{{"to":{},"progress":0.5}}}}"#, spec(n), spec(n + 1));
        rollout.publish_bytes(doc.as_bytes()).unwrap();
        let transition = Transition::from_json(&spec(n), &spec(n + 1), 0.5).unwrap();
        let mut i = 0usize;
        let mut next = move || {
            i = (i + 1) & 4095;
            i
        };
        group.bench_function(BenchmarkId::new("router", n), |b| b.iter(|| router.route(black_box(&keys[next()])).unwrap()));
        let mut reader = view.reader();
        group.bench_function(BenchmarkId::new("live-view", n), |b| {
            b.iter(|| reader.route(black_box(&keys[next()])).unwrap())
        });
        group.bench_function(BenchmarkId::new("live-view-with", n), |b| {
            b.iter(|| view.with(|v| v.route(black_box(&keys[next()]))).unwrap())
        });
        group.bench_function(BenchmarkId::new("transition", n), |b| {
            b.iter(|| transition.route(black_box(&keys[next()])).unwrap())
        });
        let mut rolling = rollout.reader();
        group.bench_function(BenchmarkId::new("live-rollout", n), |b| {
            b.iter(|| rolling.route(black_box(&keys[next()])).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
