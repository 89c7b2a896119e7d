//! Exact analysis at scale: `diff` of two rings of 1000 nodes × 160 points (one node replaced),
//! the figure the transitions issue sets at ≤ 20 ms, and of two 10-node rings so an
//! accidental super-linear cost shows. `ownership` of the 1000-node ring rides along.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use keyroute::analysis::{diff, ownership};
use keyroute::{Node, Ring, Router, Topology};

const POINTS: u32 = 160;

/// `n` nodes, and the same `n` with the middle one replaced by a new node.
fn pair(n: usize) -> (Router, Router) {
    let ids: Vec<String> = (0..n).map(|i| format!("cache-{i}")).collect();
    let a = Topology::new(ids.iter().map(Node::new).collect::<Vec<_>>()).unwrap();
    let mut replaced = ids.clone();
    replaced[n / 2] = "cache-new".into();
    let b = Topology::new(replaced.iter().map(Node::new).collect::<Vec<_>>()).unwrap();
    (Ring::new(a, POINTS).unwrap().into(), Ring::new(b, POINTS).unwrap().into())
}

fn analysis(c: &mut Criterion) {
    let mut group = c.benchmark_group("analysis");
    group.sample_size(30);
    for n in [10usize, 1000] {
        let (a, b) = pair(n);
        group.bench_with_input(BenchmarkId::new("diff_ring_160", n), &n, |bench, _| {
            bench.iter(|| black_box(diff(black_box(&a), black_box(&b)).unwrap()));
        });
        group.bench_with_input(BenchmarkId::new("ownership_ring_160", n), &n, |bench, _| {
            bench.iter(|| black_box(ownership(black_box(&a))));
        });
    }
    group.finish();
}

criterion_group!(benches, analysis);
criterion_main!(benches);
