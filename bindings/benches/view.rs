//! A route through a [`LiveView`] against a route on the plain [`Router`] it holds, in one run
//! (`make bench-views`). The two are timed in alternation, in blocks of 100,000 lookups, 41
//! rounds, the order turned each round, so a machine that other work slows slows both alike;
//! the report gives each one's median ns per lookup and the median of the rounds' ratios.
//!
//! The plain route is on the very router the live view holds (the same memory, so the same
//! cache behaviour), through an opaque reference, as a router held in shared state is used.
//! Keys cycle through 4,096 distinct 11-byte keys. Also timed: `LiveView::with` (no per-thread
//! reader), and a rollout at progress 0.5 against the plain transition.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use std::hint::black_box;
use std::time::Instant;

use keyroute_bindings::{LiveView, Router, Transition};

const BLOCK: u32 = 100_000;
const ROUNDS: usize = 41;

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

/// ns per lookup of `route` over one block of keys.
fn block(keys: &[[u8; 11]], mut route: impl FnMut(&[u8]) -> u32) -> f64 {
    let start = Instant::now();
    let mut sink = 0u32;
    for i in 0..BLOCK {
        sink ^= route(black_box(&keys[(i & 4095) as usize]));
    }
    black_box(sink);
    start.elapsed().as_secs_f64() * 1e9 / f64::from(BLOCK)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

type Route<'a> = Box<dyn FnMut(&[u8]) -> u32 + 'a>;

/// Times `contenders` against `base` in alternation; prints each one's median and the median
/// of its per-round ratio to `base`.
fn compare(title: &str, keys: &[[u8; 11]], base: (&str, Route<'_>), mut contenders: Vec<(&str, Route<'_>)>) {
    let (base_name, mut base) = base;
    let mut base_ns = Vec::new();
    let mut ns: Vec<Vec<f64>> = vec![Vec::new(); contenders.len()];
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); contenders.len()];
    for round in 0..ROUNDS + 1 {
        let mut times = vec![0.0; contenders.len()];
        let first = round % 2 == 0;
        let b = if first { block(keys, &mut base) } else { 0.0 };
        for (i, (_, route)) in contenders.iter_mut().enumerate() {
            times[i] = block(keys, route);
        }
        let b = if first { b } else { block(keys, &mut base) };
        if round == 0 {
            continue; // warm-up
        }
        base_ns.push(b);
        for (i, t) in times.iter().enumerate() {
            ns[i].push(*t);
            ratios[i].push(t / b);
        }
    }
    println!("{title}");
    println!("  {base_name:34} {:8.2} ns", median(&mut base_ns));
    for (i, (name, _)) in contenders.iter().enumerate() {
        println!("  {name:34} {:8.2} ns   {:5.2}x", median(&mut ns[i]), median(&mut ratios[i]));
    }
}

fn main() {
    let keys = keys();
    println!("route through a live view: median ns per lookup, and the median of the per-round ratios");
    println!("to the baseline timed in alternation with it ({ROUNDS} rounds of {BLOCK} lookups; goal 1.1x)");
    for n in [10usize, 1000] {
        let view = LiveView::default();
        view.publish_bytes(format!(r#"{{"version":1,"spec":{}}}"#, spec(n)).as_bytes()).unwrap();
        let held = view.load().unwrap();
        let plain: &Router = held.router();
        let mut reader = view.reader();
        compare(
            &format!("ring, {n} nodes, a plain view:"),
            &keys,
            ("Router::route (the view's router)", Box::new(|k| black_box(plain).route(k).unwrap())),
            vec![
                ("a thread's ViewReader", Box::new(|k| reader.route(k).unwrap())),
                ("LiveView::with", Box::new(|k| view.with(|v| v.route(k)).unwrap())),
            ],
        );
        let rollout = LiveView::default();
        let doc = format!(r#"{{"version":1,"spec":{},"rollout":{{"to":{},"progress":0.5}}}}"#, spec(n), spec(n + 1));
        rollout.publish_bytes(doc.as_bytes()).unwrap();
        let transition = Transition::from_json(&spec(n), &spec(n + 1), 0.5).unwrap();
        let mut rolling = rollout.reader();
        compare(
            &format!("ring, {n} nodes, a rollout at 0.5:"),
            &keys,
            ("Transition::route", Box::new(|k| black_box(&transition).route(k).unwrap())),
            vec![("a thread's ViewReader", Box::new(|k| rolling.route(k).unwrap()))],
        );
    }
}
