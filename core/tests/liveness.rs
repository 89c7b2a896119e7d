//! "No input may loop forever": building a router must cost about the same for any weights.
//!
//! This is not a speed test (speed is measured with criterion): it compares the same build
//! with two weightings in the same process and only fails when one is slower by a factor no
//! constant-factor difference explains — the signature of a build whose work depends on the
//! *ratio* of weights rather than on the table size. Such a build, at the documented limits
//! (2^20 nodes, a 2^26-entry Maglev table), runs for days: indistinguishable from a hang.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs)]

use std::sync::mpsc;
use std::time::{Duration, Instant};

use keyroute::{Maglev, Node, Topology, is_prime};

/// Maglev's fill takes turns in rounds: a node of weight `w` claims in a round when
/// `round·w ≥ target`. With one node of weight `u32::MAX` and 39 999 of weight 1, the light
/// nodes claim once (in round 1) and then never again, so the heavy node fills the remaining
/// 160 004 entries one per round — and every round still visits all 40 000 nodes: 6.4·10⁹
/// idle checks for 2·10⁵ claims (seconds in a release build; the equal-weight build takes
/// milliseconds). The uniform build of the same size is the yardstick; the skewed one must
/// finish within 20× its time, at least 1 s (a fill that skips idle rounds is within 2×).
#[test]
fn maglev_build_time_does_not_depend_on_weight_ratios() {
    const N: usize = 40_000;
    const M: u32 = 200_003;
    assert!(is_prime(M));
    let uniform = Topology::uniform("node-", N).unwrap();
    let skewed = Topology::new(
        (0..N)
            .map(|i| Node::new(format!("node-{i}")).with_weight(if i == 0 { u32::MAX } else { 1 }))
            .collect::<Vec<_>>(),
    )
    .unwrap();

    let start = Instant::now();
    let table = Maglev::new(uniform, M).unwrap();
    let yardstick = start.elapsed();
    assert_eq!(table.entry_counts().iter().sum::<u32>(), M);

    // Build on a thread so that a runaway build fails the test instead of hanging it (the
    // thread is abandoned; the test process ends when the test does).
    let limit = (yardstick * 20).max(Duration::from_secs(1));
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let start = Instant::now();
        let built = Maglev::new(skewed, M).map(|m| m.entry_counts()[0]);
        let _ = tx.send((built, start.elapsed()));
    });
    match rx.recv_timeout(limit) {
        Ok((built, took)) => {
            // The heavy node owns all but the 19 999 entries the light nodes took in round 1.
            assert_eq!(built, Ok(M - (N as u32 - 1)));
            assert!(took <= limit, "{took:?}");
        }
        Err(_) => panic!(
            "Maglev::new with weights [u32::MAX, 1, 1, …] ({N} nodes, M = {M}) did not finish \
             within {limit:?}, 20× the {yardstick:?} of the same build with equal weights"
        ),
    }
}
