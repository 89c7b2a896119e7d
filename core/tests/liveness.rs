//! "No input may loop forever": Maglev's fill must not depend on the *ratio* of weights.
//!
//! Maglev's fill takes turns in rounds: a node of weight `w` claims in a round when
//! `round·w ≥ target`. With one node of weight `u32::MAX` and 39 999 of weight 1, the light
//! nodes claim once (in round 1) and never again, so the heavy node fills the remaining
//! entries one per round. A fill that visits every node every round does 6.4·10⁹ idle checks
//! here (seconds in release, minutes in debug); taking turns from a queue ordered by
//! (round, node) does one step per claim. This test builds that topology and checks the
//! table the turn rule defines; what the build costs is measured by the `build/maglev-skewed`
//! benchmark (`make bench`) beside the equal-weight build, never by a timer in a test.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs, clippy::expect_used, clippy::panic)]

use keyroute::{Maglev, Node, Topology, is_prime};

#[test]
fn maglev_with_one_overwhelming_weight_is_built_as_the_turn_rule_says() {
    const N: usize = 40_000;
    const M: u32 = 200_003;
    assert!(is_prime(M));
    let skewed = Topology::new(
        (0..N)
            .map(|i| Node::new(format!("node-{i}")).with_weight(if i == 0 { u32::MAX } else { 1 }))
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let counts = Maglev::new(skewed, M).unwrap().entry_counts();
    // Round 1: every node claims one entry. Afterwards a light node is due again only in round
    // u32::MAX (its target is max w), which the fill never reaches: the heavy node takes the rest.
    assert_eq!(counts[0], M - (N as u32 - 1));
    assert!(counts[1..].iter().all(|&c| c == 1), "every light node owns exactly one entry");
}
