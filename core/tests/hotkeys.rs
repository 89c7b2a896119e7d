//! `HotKeys` against exact counts: Zipf traces over 1,000,000 distinct keys.
//!
//! `cargo test -p keyroute --release --test hotkeys -- --nocapture` prints the figures.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use std::collections::{HashMap, HashSet};

use keyroute::HotKeys;

const KEYS: usize = 1_000_000;
const OBSERVATIONS: usize = 2_000_000;

/// Key ranks drawn from a Zipf(`s`) law over `KEYS` keys (inverse CDF), from a xorshift stream.
fn zipf(s: f64, seed: u64) -> Vec<u32> {
    let mut cdf: Vec<f64> = (1..=KEYS).map(|k| (k as f64).powf(-s)).collect();
    let mut sum = 0.0;
    for p in &mut cdf {
        sum += *p;
        *p = sum;
    }
    let mut x = seed;
    (0..OBSERVATIONS)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            let u = (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64 * sum;
            // Ranks are scrambled into key ids, so hot keys are not small numbers.
            (cdf.partition_point(|&c| c < u).min(KEYS - 1) as u32).wrapping_mul(2_654_435_761)
        })
        .collect()
}

/// Recall of the exact top-100 in the detector's top-100, for Zipf 0.9 to 1.2, in a detector of
/// 16,384 counters a row and 1,024 candidates, against the memory of an exact per-key map.
#[test]
fn the_top_100_is_found_in_a_small_fraction_of_a_per_key_map() {
    for s in [0.9, 1.0, 1.1, 1.2] {
        let trace = zipf(s, 0x5eed);
        let mut hot = HotKeys::new(16_384, 1024).unwrap();
        let mut exact: HashMap<[u8; 4], u64> = HashMap::new();
        for &k in &trace {
            let key = k.to_le_bytes();
            hot.observe(&key).unwrap();
            *exact.entry(key).or_insert(0) += 1;
        }
        let mut by_count: Vec<([u8; 4], u64)> = exact.iter().map(|(k, &c)| (*k, c)).collect();
        by_count.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        // Keys tied with the 100th count may stand in for each other.
        let hundredth = by_count[99].1;
        let truth: HashSet<[u8; 4]> = by_count.iter().take_while(|(_, c)| *c >= hundredth).map(|(k, _)| *k).collect();
        let found = hot.top(100);
        let hits = found.iter().filter(|(k, _)| truth.contains(*k)).count();
        for (k, estimate) in &found {
            let key: [u8; 4] = (*k).try_into().unwrap();
            assert!(u64::from(*estimate) >= exact[&key], "an estimate below the true count");
        }
        // An exact map of these keys: its table (a key, a count and a control byte per slot)
        // and nothing else (the keys are 4 bytes inline; text keys would cost more).
        let map_bytes = exact.capacity() * (std::mem::size_of::<([u8; 4], u64)>() + 1);
        let share = hot.memory_bytes() as f64 / map_bytes as f64;
        println!(
            "zipf({s}), {KEYS} keys, {OBSERVATIONS} observations, {} distinct: top-100 recall {hits}%, \
             detector {} KB = {:.2}% of an exact map's {} KB",
            exact.len(),
            hot.memory_bytes() / 1024,
            100.0 * share,
            map_bytes / 1024
        );
        assert!(hits >= 95, "zipf({s}): recall {hits}%");
        assert!(share <= 0.05, "zipf({s}): {:.1}% of the map", 100.0 * share);
    }
}
