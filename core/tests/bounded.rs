//! `BoundedLoad` under skew and under threads.
//!
//! `cargo test -p keyroute --test bounded -- --nocapture` prints the figures.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use std::collections::VecDeque;

use keyroute::{BoundedLoad, Lease, Ring, Router, Topology};

fn ring(n: usize) -> Router {
    Router::Ring(Ring::new(Topology::uniform("cache-", n).unwrap(), 160).unwrap())
}

/// A xorshift64* stream.
fn stream(mut s: u64) -> impl FnMut() -> u64 {
    move || {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        s.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// `count` draws of key ranks from a Zipf(`s`) law over `keys` keys (inverse CDF).
fn zipf(keys: usize, s: f64, count: usize, seed: u64) -> Vec<usize> {
    let mut cdf: Vec<f64> = (1..=keys).map(|k| (k as f64).powf(-s)).collect();
    let mut sum = 0.0;
    for p in &mut cdf {
        sum += *p;
        *p = sum;
    }
    let mut next = stream(seed);
    (0..count)
        .map(|_| {
            let u = (next() >> 11) as f64 / (1u64 << 53) as f64 * sum;
            cdf.partition_point(|&c| c < u).min(keys - 1)
        })
        .collect()
}

/// A window of `in_flight` requests over a Zipf(1.1) trace: each new request finishes the
/// oldest. Plain routing puts the hottest keys' load on their owners; bounded loads cap every
/// node at ⌈c · in_flight / n⌉ and move the overflow to the next nodes of the ring walk.
#[test]
fn a_skewed_trace_is_capped_at_c_times_the_average() {
    const NODES: usize = 10;
    const IN_FLIGHT: usize = 1000;
    let trace = zipf(100_000, 1.1, 200_000, 7);
    let keys: Vec<Vec<u8>> = trace.iter().map(|k| format!("key:{k}").into_bytes()).collect();
    let router = ring(NODES);

    // Plain routing: the in-flight count per node over the same window.
    let mut plain = [0u32; NODES];
    let mut plain_max = 0u32;
    let mut window: VecDeque<u32> = VecDeque::new();
    for key in &keys {
        if window.len() == IN_FLIGHT {
            plain[window.pop_front().unwrap() as usize] -= 1;
        }
        let node = router.route(key).unwrap();
        plain[node as usize] += 1;
        window.push_back(node);
        plain_max = plain_max.max(plain[node as usize]);
    }

    for c in [1.1, 1.25, 1.5] {
        let bounded = BoundedLoad::new(ring(NODES), c).unwrap();
        let cap = (c * IN_FLIGHT as f64 / NODES as f64).ceil() as u32;
        let mut held: VecDeque<Lease<'_>> = VecDeque::new();
        let (mut max, mut away) = (0u32, 0usize);
        for key in &keys {
            if held.len() == IN_FLIGHT {
                drop(held.pop_front());
            }
            let lease = bounded.acquire(key).unwrap();
            max = max.max(bounded.load(lease.node()));
            away += usize::from(!lease.pick().is_home());
            held.push_back(lease);
        }
        println!(
            "zipf(1.1), {NODES} nodes, {IN_FLIGHT} in flight: busiest node {plain_max} plain, {max} with c = {c} \
             (bound {cap}, mean {}); {:.1}% of requests served away from home",
            IN_FLIGHT / NODES,
            100.0 * away as f64 / keys.len() as f64
        );
        assert!(max <= cap, "c = {c}: {max} > {cap}");
        assert!(plain_max > cap, "the trace is not skewed enough to test anything ({plain_max})");
        assert!(away > 0 && away < keys.len() / 2);
    }
}

/// Four threads acquire and release at once, hot keys among them: every acquisition finds a
/// node, and every slot is given back.
#[test]
fn threads_acquire_and_release_at_once() {
    const THREADS: u32 = 4;
    const MOST_IN_FLIGHT: u32 = THREADS * 65; // 64 held and one being placed, per thread
    let bounded = BoundedLoad::new(ring(8), 1.25).unwrap();
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let bounded = &bounded;
            s.spawn(move || {
                let mut next = stream(u64::from(t) + 1);
                let mut held: Vec<Lease<'_>> = Vec::new();
                for _ in 0..50_000 {
                    let r = next();
                    if r.is_multiple_of(3) && !held.is_empty() {
                        drop(held.swap_remove((r >> 8) as usize % held.len()));
                        continue;
                    }
                    // A few hot keys, so nodes reach their capacity.
                    let key = format!("k{}", (r >> 16) % if r.is_multiple_of(2) { 4 } else { 10_000 });
                    let lease = bounded.acquire(key.as_bytes()).unwrap();
                    // Every placement is within the capacity for the most there can be in
                    // flight (the sequential bound is the property test's, in src/bounded.rs).
                    assert!(bounded.load(lease.node()) <= bounded.capacity(lease.node(), MOST_IN_FLIGHT));
                    if held.len() < 64 {
                        held.push(lease);
                    }
                }
            });
        }
    });
    assert_eq!(bounded.total(), 0);
    assert!((0..8).all(|n| bounded.load(n) == 0));
}
