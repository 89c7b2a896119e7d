//! Lookup and build benchmarks, side by side with the `hashring` crate and the floor
//! F = one-shot `xxh3_64` of the key alone.
//!
//! `make bench` runs this and then `scripts/bench_report.py`, which prints every median as a
//! ratio to F measured in the same run. Bytes per point are measured with a counting global
//! allocator (what the structure really holds, not what its layout suggests).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::hash::{Hash, Hasher};
use std::hint::black_box;
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use keyroute::{
    BoundedLoad, HotKeys, Jump, Maglev, Modulo, MultiProbe, Rendezvous, Ring, Router, SlotFn, Slots, Topology, hash,
};

/// Counts live heap bytes and the peak, so build memory is measured, not estimated.
struct Counting;
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed to `System` unchanged; this only counts bytes or calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(l.size() as isize, Ordering::Relaxed) + l.size() as isize;
        PEAK.fetch_max(live.max(0) as usize, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as isize, Ordering::Relaxed);
        // SAFETY: `p` was allocated by `System` with this layout.
        unsafe { System.dealloc(p, l) }
    }
    /// Forwarded, so a resize counts as the system allocator does it (glibc shrinks a block in
    /// place or remaps it) rather than as a new block beside the old one.
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
        let delta = new_size as isize - l.size() as isize;
        let live = LIVE.fetch_add(delta, Ordering::Relaxed) + delta;
        PEAK.fetch_max(live.max(0) as usize, Ordering::Relaxed);
        // SAFETY: `p` was allocated by `System` with layout `l`; forwarded unchanged.
        unsafe { System.realloc(p, l, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const SIZES: [usize; 4] = [10, 100, 1000, 10_000];
const POINTS: u32 = 160;
const KEY_COUNT: usize = 1_000_000;

/// 1,000,000 distinct 11-byte keys ("user:NNNNNN") in a scrambled order: `i ↦ 611953·i + 12345
/// mod 10^6` is a bijection because 611953 is coprime to 10^6.
fn keys() -> Vec<[u8; 11]> {
    (0..KEY_COUNT as u64)
        .map(|i| {
            let mut v = (i * 611_953 + 12_345) % KEY_COUNT as u64;
            let mut k = *b"user:000000";
            for d in k[5..].iter_mut().rev() {
                *d = b'0' + (v % 10) as u8;
                v /= 10;
            }
            k
        })
        .collect()
}

/// A virtual node for the `hashring` crate: 160 per node, placed through `Hash` (SipHash).
#[derive(Clone, Copy, PartialEq, Eq)]
struct VNode {
    node: u32,
    vnode: u32,
}
impl Hash for VNode {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.node.hash(state);
        self.vnode.hash(state);
    }
}

fn hashring_peer(n: usize) -> hashring::HashRing<VNode> {
    let mut r = hashring::HashRing::new();
    r.batch_add((0..n as u32).flat_map(|node| (0..POINTS).map(move |vnode| VNode { node, vnode })).collect());
    r
}

fn topology(n: usize) -> Topology {
    Topology::uniform("cache-", n).unwrap()
}

/// Runs `f` over the key set, one key per iteration, so consecutive lookups are independent.
macro_rules! bench_keys {
    ($group:expr, $name:expr, $n:expr, $keys:expr, |$k:ident| $body:expr) => {{
        let keys = $keys;
        let mut i = 0usize;
        $group.bench_with_input(BenchmarkId::new($name, $n), &$n, |b, _| {
            b.iter(|| {
                i = if i + 1 == KEY_COUNT { 0 } else { i + 1 };
                let $k: &[u8] = &keys[i];
                black_box($body)
            })
        });
    }};
}

fn lookups(c: &mut Criterion) {
    let keys = keys();
    let mut g = c.benchmark_group("route");
    g.throughput(Throughput::Elements(1));
    for n in SIZES {
        bench_keys!(g, "floor-xxh3", n, &keys, |k| hash::xxh3_64(black_box(k)));
        if n == SIZES[0] {
            // The hot-key detector's observe (no node count involved: measured once).
            let mut hot = HotKeys::new(16_384, 1024).unwrap();
            bench_keys!(g, "hotkeys-observe", n, &keys, |k| hot.observe(k).unwrap());
        }
        let ring = Ring::new(topology(n), POINTS).unwrap();
        bench_keys!(g, "ring-v1", n, &keys, |k| ring.route(k));
        // Bounded loads over the same ring, idle: a slot taken and given back per key.
        let bounded = BoundedLoad::new(Router::Ring(ring.clone()), keyroute::DEFAULT_BALANCE_FACTOR).unwrap();
        bench_keys!(g, "bounded-ring-pick", n, &keys, |k| bounded.pick(k).unwrap().node);
        bench_keys!(g, "bounded-ring", n, &keys, |k| bounded.acquire(k).map(|lease| lease.node()).unwrap());
        let peer = hashring_peer(n);
        bench_keys!(g, "hashring-0.3", n, &keys, |k| peer.get(&k).map(|v| v.node));
        let jump = Jump::new(topology(n)).unwrap();
        bench_keys!(g, "jump", n, &keys, |k| jump.route(k).unwrap());
        let maglev = Maglev::new(topology(n), keyroute::DEFAULT_TABLE_SIZE).unwrap();
        bench_keys!(g, "maglev", n, &keys, |k| maglev.route(k));
        let slots = Slots::new(topology(n), SlotFn::Hash { count: 16_384 }).unwrap();
        bench_keys!(g, "slots", n, &keys, |k| slots.route(k));
        let mp = MultiProbe::new(topology(n), keyroute::DEFAULT_PROBES).unwrap();
        bench_keys!(g, "multi-probe", n, &keys, |k| mp.route(k));
        let modulo = Modulo::new(topology(n)).unwrap();
        bench_keys!(g, "modulo", n, &keys, |k| modulo.route(k));
        if n <= 1000 {
            // O(n) per lookup: at 10,000 nodes one lookup is tens of microseconds.
            let hrw = Rendezvous::new(topology(n)).unwrap();
            bench_keys!(g, "rendezvous", n, &keys, |k| hrw.route(k));
        }
    }
    g.finish();

    let mut g = c.benchmark_group("batch");
    const BATCH: usize = 1024;
    g.throughput(Throughput::Elements(BATCH as u64));
    for n in [10usize, 1000, 10_000] {
        let ring = Ring::new(topology(n), POINTS).unwrap();
        let mut out = vec![0u32; BATCH];
        let mut start = 0usize;
        g.bench_with_input(BenchmarkId::new("ring-v1", n), &n, |b, _| {
            b.iter(|| {
                start = if start + 2 * BATCH > KEY_COUNT { 0 } else { start + BATCH };
                ring.route_batch(&keys[start..start + BATCH], &mut out).unwrap();
                black_box(&out);
            })
        });
        g.bench_with_input(BenchmarkId::new("floor-xxh3", n), &n, |b, _| {
            b.iter(|| {
                start = if start + 2 * BATCH > KEY_COUNT { 0 } else { start + BATCH };
                for (o, k) in out.iter_mut().zip(&keys[start..start + BATCH]) {
                    *o = hash::xxh3_64(k) as u32;
                }
                black_box(&out);
            })
        });
    }
    g.finish();
}

fn builds(c: &mut Criterion) {
    let mut g = c.benchmark_group("build");
    g.sample_size(10);
    for n in [1000usize, 10_000] {
        let t = topology(n);
        g.bench_with_input(BenchmarkId::new("ring-v1", n), &n, |b, _| b.iter(|| Ring::new(t.clone(), POINTS).unwrap()));
        g.bench_with_input(BenchmarkId::new("hashring-0.3", n), &n, |b, _| b.iter(|| hashring_peer(n)));
        g.bench_with_input(BenchmarkId::new("maglev", n), &n, |b, _| {
            b.iter(|| Maglev::new(t.clone(), keyroute::DEFAULT_TABLE_SIZE).unwrap())
        });
        // One node of weight u32::MAX among n − 1 of weight 1: should cost about what the
        // equal-weight build does (a fill that visits every node every round took seconds).
        let skewed = Topology::new(
            (0..n)
                .map(|i| keyroute::Node::new(format!("cache-{i}")).with_weight(if i == 0 { u32::MAX } else { 1 }))
                .collect::<Vec<_>>(),
        )
        .unwrap();
        g.bench_with_input(BenchmarkId::new("maglev-skewed", n), &n, |b, _| {
            b.iter(|| Maglev::new(skewed.clone(), keyroute::DEFAULT_TABLE_SIZE).unwrap())
        });
    }
    g.finish();
}

/// Heap bytes held by what `build` returns, and the peak while building, per point.
fn measure_bytes<T>(points: usize, build: impl FnOnce() -> T) -> (f64, f64) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before.max(0) as usize, Ordering::Relaxed);
    let built = build();
    let held = LIVE.load(Ordering::Relaxed) - before;
    let peak = PEAK.load(Ordering::Relaxed) as isize - before;
    drop(black_box(built));
    (held as f64 / points as f64, peak as f64 / points as f64)
}

fn memory(_: &mut Criterion) {
    for n in [1000usize, 10_000] {
        let points = n * POINTS as usize;
        let t = topology(n);
        let (held, peak) = measure_bytes(points, || Ring::new(t.clone(), POINTS).unwrap());
        let topo_bytes = measure_bytes(points, || t.clone()).0;
        println!(
            "memory ring-v1 N={n}: {:.2} B/point held (table only: {:.2}), {:.2} B/point peak while building",
            held,
            held - topo_bytes,
            peak
        );
        let (held, peak) = measure_bytes(points, || hashring_peer(n));
        println!("memory hashring-0.3 N={n}: {held:.2} B/point held, {peak:.2} B/point peak while building");
    }
}

criterion_group!(benches, memory, lookups, builds);
criterion_main!(benches);
