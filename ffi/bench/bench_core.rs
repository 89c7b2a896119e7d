//! The Rust side of `ffi/bench.sh`: the core's `route` and `route_batch` on the same topology
//! (ring-v1, 1000 nodes × 160 points, built from the same spec JSON through keyroute-bindings)
//! and the same 1,000,000 keys as `bench/bench.c`, timed the same way (median and fastest of
//! several full passes, ns per key), so `bench.sh` can print the C ABI's cost as a ratio measured
//! in one run.
//!
//! Run: `cargo run --release -p keyroute-ffi --example bench_core -- [runs] [nodes]` (nodes
//! defaults to 1000; node/bench.js passes 10 and 100 too).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::print_stdout)]

use std::hint::black_box;
use std::time::Instant;

use keyroute_bindings::Router;
use keyroute_bindings::core::Router as CoreRouter;

const KEYS: usize = 1_000_000;
const BATCH: usize = 1024;

/// The spec `bench.c` builds: `cache-0` … `cache-999` (for 1000 nodes), weight 1, ring-v1 with
/// 160 points.
fn spec(nodes: usize) -> String {
    let nodes: Vec<String> = (0..nodes).map(|i| format!("{{\"id\":\"cache-{i}\"}}")).collect();
    format!("{{\"algorithm\":\"ring\",\"params\":{{\"points_per_weight\":160}},\"nodes\":[{}]}}", nodes.join(","))
}

/// "user:NNNNNN" for NNNNNN = 611953·i + 12345 mod 10^6: every key once, in a scrambled order
/// (the core's criterion benchmark uses the same set).
fn keys() -> Vec<[u8; 11]> {
    (0..KEYS as u64)
        .map(|i| {
            let mut v = (i * 611_953 + 12_345) % KEYS as u64;
            let mut k = *b"user:000000";
            for d in k[5..].iter_mut().rev() {
                *d = b'0' + (v % 10) as u8;
                v /= 10;
            }
            k
        })
        .collect()
}

/// (median, fastest) ns per key over `runs` passes of `pass` (each pass routes every key once).
fn measure(runs: usize, mut pass: impl FnMut() -> u64) -> (f64, f64) {
    let mut sink = 0u64;
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            sink = sink.wrapping_add(pass());
            t.elapsed().as_nanos() as f64 / KEYS as f64
        })
        .collect();
    black_box(sink);
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[0])
}

fn main() {
    let runs: usize = std::env::args().nth(1).map_or(7, |r| r.parse().expect("runs is a number"));
    let nodes: usize = std::env::args().nth(2).map_or(1000, |n| n.parse().expect("nodes is a number"));
    let router = Router::from_json(&spec(nodes)).unwrap();
    let core: &CoreRouter = router.core();
    let CoreRouter::Ring(ring) = core else { panic!("a ring spec builds a ring") };
    let keys = keys();
    let slices: Vec<&[u8]> = keys.iter().map(|k| k.as_slice()).collect();
    let mut out = vec![0u32; BATCH];

    // Warm up caches and page in the table once.
    measure(1, || keys.iter().map(|k| u64::from(core.route(k).unwrap())).sum());

    let route = measure(runs, || keys.iter().map(|k| u64::from(core.route(black_box(k)).unwrap())).sum());
    let route_slices = measure(runs, || slices.iter().map(|k| u64::from(core.route(black_box(*k)).unwrap())).sum());
    let ring_route = measure(runs, || keys.iter().map(|k| u64::from(ring.route(black_box(k)))).sum());
    let batch = measure(runs, || {
        let mut s = 0u64;
        for chunk in keys.chunks(BATCH) {
            core.route_batch(chunk, &mut out).unwrap();
            s = s.wrapping_add(u64::from(black_box(&out)[0]));
        }
        s
    });
    let batch_slices = measure(runs, || {
        let mut s = 0u64;
        for chunk in slices.chunks(BATCH) {
            core.route_batch(chunk, &mut out).unwrap();
            s = s.wrapping_add(u64::from(black_box(&out)[0]));
        }
        s
    });
    for (name, (median, min)) in [
        ("route", route),
        ("route_slices", route_slices),
        ("ring_route", ring_route),
        ("route_batch", batch),
        ("route_batch_slices", batch_slices),
    ] {
        println!("rust {name} {median:.2} {min:.2}");
    }
}
