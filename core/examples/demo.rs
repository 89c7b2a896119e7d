//! The scale-out comparison: what adding one node does to a cache, per algorithm.
//!
//! For 3 → 4 and 10 → 11 nodes, routes 1,000,000 keys through the old and the new topology
//! and prints, measured (nothing here is typed in): the share of keys whose node changed
//! (each one a cache miss after the change) against the ideal `1/(n+1)`, and how evenly the
//! new topology spreads the keys (max/mean and coefficient of variation of keys per node).
//!
//! Run with `make demo` (a release build: about a second or two of routing).

use std::process::ExitCode;

use keyroute::{Error, Jump, Maglev, Modulo, Rendezvous, Ring, Router, SlotFn, Slots, Topology};

const KEYS: u32 = 1_000_000;

/// One algorithm's before/after pair of routers.
type Pair = (Router, Router);

fn pairs(from: &Topology, to: &Topology) -> Result<Vec<(String, Pair)>, Error> {
    let mut out: Vec<(String, Pair)> =
        vec![("modulo (hash % n)".into(), (Modulo::new(from.clone())?.into(), Modulo::new(to.clone())?.into()))];
    for points in [10, 150, 500] {
        out.push((
            format!("ring-v1, {points} points/node"),
            (Ring::new(from.clone(), points)?.into(), Ring::new(to.clone(), points)?.into()),
        ));
    }
    out.push(("jump".into(), (Jump::new(from.clone())?.into(), Jump::new(to.clone())?.into())));
    out.push(("rendezvous (HRW)".into(), (Rendezvous::new(from.clone())?.into(), Rendezvous::new(to.clone())?.into())));
    let m = keyroute::DEFAULT_TABLE_SIZE;
    out.push(("maglev, M = 65537".into(), (Maglev::new(from.clone(), m)?.into(), Maglev::new(to.clone(), m)?.into())));
    let slots = Slots::new(from.clone(), SlotFn::Hash { count: 1024 })?;
    let rebalanced = slots.rebalance(to.clone())?;
    out.push(("slots, 1024, fewest moved".into(), (slots.into(), rebalanced.into())));
    Ok(out)
}

/// Moved share and the new topology's (max/mean, CV) over the key set.
fn measure(from: &Router, to: &Router, nodes: usize) -> Result<(f64, f64, f64), Error> {
    let mut moved = 0u32;
    let mut counts = vec![0u64; nodes];
    let mut key = String::new();
    for i in 0..KEYS {
        key.clear();
        key.push_str("key:");
        key.push_str(&i.to_string());
        let before = from.route(key.as_bytes())?;
        let after = to.route(key.as_bytes())?;
        // Old and new topologies list the surviving nodes first, in the same order.
        moved += u32::from(before != after);
        if let Some(c) = counts.get_mut(after as usize) {
            *c += 1;
        }
    }
    let mean = f64::from(KEYS) / nodes as f64;
    let max = counts.iter().copied().max().unwrap_or(0) as f64;
    let var = counts.iter().map(|&c| (c as f64 - mean).powi(2)).sum::<f64>() / nodes as f64;
    Ok((f64::from(moved) / f64::from(KEYS), max / mean, var.sqrt() / mean))
}

fn run() -> Result<(), Error> {
    println!("keyroute demo: add one node, route {KEYS} keys before and after\n");
    for (from_n, to_n) in [(3usize, 4usize), (10, 11)] {
        let from = Topology::uniform("cache-", from_n)?;
        let to = Topology::uniform("cache-", to_n)?;
        let ideal = 1.0 / to_n as f64;
        println!("{from_n} -> {to_n} nodes (ideal: {:.1}% of keys move, all onto the new node)", ideal * 100.0);
        println!("  {:<28} {:>8} {:>12} {:>8}", "algorithm", "moved", "max/mean", "CV");
        for (name, (a, b)) in pairs(&from, &to)? {
            let (moved, max_mean, cv) = measure(&a, &b, to_n)?;
            println!("  {name:<28} {:>7.1}% {max_mean:>12.3} {:>7.1}%", moved * 100.0, cv * 100.0);
        }
        println!();
    }
    println!("moved: share of keys whose node changed (a cache miss each). max/mean and CV: keys per");
    println!("node after the change; 1.000 and 0% would be perfectly even.");
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("demo failed: {e}");
            ExitCode::FAILURE
        }
    }
}
