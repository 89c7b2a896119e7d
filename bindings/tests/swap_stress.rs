//! `SharedRouter` under stress: 100,000 swaps while 4 threads route through it.
//!
//! Every answer must come from a topology that was current at some moment of the call that gave
//! it: each reader notes the writer's step before and after it loads, and the view it got must
//! be one stored in that window (or the one current when the window opened). Every route must
//! equal that view's precomputed answer (no torn read), and after the run every view's reference
//! count is back to one (nothing leaked, nothing freed twice). The swap itself is `arc-swap`'s,
//! which is model-checked upstream; this checks how keyroute uses it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, missing_docs)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use keyroute_bindings::{Router, SharedRouter};

const SWAPS: u64 = 100_000;
const READERS: usize = 4;
const KEYS: usize = 64;

#[test]
fn answers_belong_to_a_current_view_through_100k_swaps() {
    // Four views, versions 1..=4, each with its answers for the keys.
    let views: Vec<Arc<Router>> = (1..=4u64)
        .map(|v| {
            let nodes: Vec<String> = (0..(2 + v)).map(|i| format!(r#"{{"id":"n{i}"}}"#)).collect();
            let spec = format!(r#"{{"algorithm":"ring","version":{v},"nodes":[{}]}}"#, nodes.join(","));
            Arc::new(Router::from_json(&spec).unwrap())
        })
        .collect();
    let keys: Vec<String> = (0..KEYS).map(|i| format!("user:{i}")).collect();
    let answers: Vec<Vec<u32>> =
        views.iter().map(|r| keys.iter().map(|k| r.route(k.as_bytes()).unwrap()).collect()).collect();
    // The view stored at writer step s (step 0 is the initial one).
    let view_at = |step: u64| (step % 4) as usize;

    let shared = SharedRouter::from_arc(Arc::clone(&views[0]));
    let step = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    let started = Instant::now();
    let reads = std::thread::scope(|s| {
        let readers: Vec<_> = (0..READERS)
            .map(|r| {
                let (shared, step, done, keys, answers) = (&shared, &step, &done, &keys, &answers);
                s.spawn(move || {
                    let mut reads = 0u64;
                    let mut i = r;
                    while !done.load(Ordering::Acquire) {
                        let before = step.load(Ordering::SeqCst);
                        let router = shared.load();
                        let after = step.load(Ordering::SeqCst);
                        let got = (router.version() - 1) as usize;
                        assert!(
                            (before..=after + 1).any(|s| view_at(s) == got),
                            "view {got} was not current between steps {before} and {}",
                            after + 1
                        );
                        let k = i % KEYS;
                        assert_eq!(router.route(keys[k].as_bytes()).unwrap(), answers[got][k], "torn read");
                        i += 1;
                        reads += 1;
                    }
                    reads
                })
            })
            .collect();
        for n in 1..=SWAPS {
            // Publish the view, then say so. A reader that saw step `a` after its load loaded
            // before step a + 1 was published, so before view a + 2 was stored.
            shared.store_arc(Arc::clone(&views[view_at(n)]));
            step.store(n, Ordering::SeqCst);
        }
        done.store(true, Ordering::Release);
        readers.into_iter().map(|h| h.join().unwrap()).sum::<u64>()
    });
    println!("{SWAPS} swaps, {reads} checked reads by {READERS} threads in {:?}", started.elapsed());
    assert!(reads >= READERS as u64, "the readers did not run");
    drop(shared);
    for (i, v) in views.iter().enumerate() {
        assert_eq!(Arc::strong_count(v), 1, "view {i}: a reference leaked or was lost");
    }
}
