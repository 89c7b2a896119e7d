//! The Rust side of `ffi/java/bench.sh`: the per-key cost in Rust of what `kr_route` and
//! `kr_route_batch` call (`keyroute_bindings::Router::route` and `route_batch`, the core's routing
//! behind the spec layer), on the topologies the Java benchmark routes (each spec read from a JSON file the Java side wrote), over the same
//! keys `"user:NNNNNN"` (1,000,000, or `KEYS`), as `&[u8]` slices (what JNA hands the library), timed as the
//! Java side times itself: median and fastest of several full passes, in CPU ns per key.
//!
//! Run: `cargo run --release -p keyroute-ffi --example java_bench_core -- RUNS NAME=SPEC.json...`
//! Prints `rust <name>-route <median> <min>` and `rust <name>-batch <median> <min>` per spec.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::print_stdout)]

use std::hint::black_box;

use keyroute_bindings::Router;

/// The number of keys: `KEYS` from the environment (bench.sh passes it), else 1,000,000.
fn key_count() -> usize {
    std::env::var("KEYS").ok().and_then(|k| k.parse().ok()).unwrap_or(1_000_000)
}
const BATCH: usize = 1024;

/// "user:NNNNNN" for NNNNNN = 611953·i + 12345 mod 10^6, i < `n` (the keys of ffi/bench, and of
/// Bench.java).
fn keys(n: usize) -> Vec<Vec<u8>> {
    (0..n as u64).map(|i| format!("user:{:06}", (i * 611_953 + 12_345) % 1_000_000).into_bytes()).collect()
}

/// This thread's CPU time in ns (`CLOCK_THREAD_CPUTIME_ID`): on a machine shared with other
/// work, wall time counts the time other processes ran; the Java side reads the same clock.
fn cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant Linux defines.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &raw mut ts) };
    assert_eq!(rc, 0, "clock_gettime");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// (median, fastest) CPU ns per key over `runs` passes of `pass` (each routes every key once).
fn measure(runs: usize, keys: usize, mut pass: impl FnMut() -> u64) -> (f64, f64) {
    let mut sink = 0u64;
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = cpu_ns();
            sink = sink.wrapping_add(pass());
            (cpu_ns() - t) as f64 / keys as f64
        })
        .collect();
    black_box(sink);
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[0])
}

fn main() {
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().map_or(7, |r| r.parse().expect("runs is a number"));
    let n = key_count();
    let keys = keys(n);
    let slices: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let mut out = vec![0u32; BATCH];
    for arg in args {
        let (name, path) = arg.split_once('=').expect("NAME=SPEC.json");
        let router = Router::from_json(&std::fs::read_to_string(path).expect("spec file")).unwrap();
        measure(1, n, || slices.iter().map(|k| u64::from(router.route(k).unwrap())).sum());
        let (med, min) =
            measure(runs, n, || slices.iter().map(|k| u64::from(router.route(black_box(*k)).unwrap())).sum());
        println!("rust {name}-route {med:.2} {min:.2}");
        let (med, min) = measure(runs, n, || {
            let mut s = 0u64;
            for chunk in slices.chunks(BATCH) {
                router.route_batch(chunk, &mut out).unwrap();
                s = s.wrapping_add(u64::from(black_box(&out)[0]));
            }
            s
        });
        println!("rust {name}-batch {med:.2} {min:.2}");
    }
}
