//! Deliberately simple reference implementations of keyroute's native schemes, written from
//! `conformance/SPEC.md` alone (not from the core's code): sorted vectors, linear scans and
//! naive loops. Only the hash functions are shared with the core (`keyroute::hash`); all
//! placement and lookup logic here is independent, so a disagreement points at one side.

#![allow(dead_code)]

use keyroute::hash::{xxh3_64, xxh3_64_with_seed};

/// One node as the reference sees it: id bytes, weight, optional zone.
#[derive(Debug, Clone)]
pub struct RefNode {
    pub id: Vec<u8>,
    pub weight: u32,
    pub zone: Option<Vec<u8>>,
}

/// `le32(x)`.
pub fn le32(x: u32) -> [u8; 4] {
    x.to_le_bytes()
}

/// `E(id) = le32(len(id)) || id`.
pub fn e(id: &[u8]) -> Vec<u8> {
    let mut v = le32(id.len() as u32).to_vec();
    v.extend_from_slice(id);
    v
}

/// `reduce(x, m) = (x · m) >> 64` in 128-bit arithmetic.
pub fn reduce(x: u64, m: u64) -> u64 {
    ((x as u128 * m as u128) >> 64) as u64
}

/// `H(key)`.
pub fn h(key: &[u8]) -> u64 {
    xxh3_64(key)
}

/// Whether `m` is prime (trial division; only small tables are fuzzed).
pub fn is_prime(m: u64) -> bool {
    if m < 2 {
        return false;
    }
    let mut d = 2u64;
    while d * d <= m {
        if m % d == 0 {
            return false;
        }
        d += 1;
    }
    true
}

// ---------------------------------------------------------------------------------------------
// The replica rule
// ---------------------------------------------------------------------------------------------

/// The replica rule of SPEC.md: `Err(())` is `replicas_exceed_nodes`.
///
/// `candidates` is the algorithm's candidate order (may repeat nodes); `available` the number
/// of nodes that can own keys.
pub fn replica_rule(nodes: &[RefNode], candidates: &[u32], r: usize, available: usize) -> Result<Vec<u32>, ()> {
    if r > available {
        return Err(());
    }
    let mut taken: Vec<u32> = Vec::new();
    if nodes.iter().any(|n| n.zone.is_some()) {
        for &c in candidates {
            if taken.len() == r {
                break;
            }
            if taken.contains(&c) {
                continue;
            }
            let zone = &nodes[c as usize].zone;
            let represented = zone.is_some() && taken.iter().any(|&t| nodes[t as usize].zone == *zone);
            if represented {
                continue;
            }
            taken.push(c);
        }
    }
    for &c in candidates {
        if taken.len() == r {
            break;
        }
        if !taken.contains(&c) {
            taken.push(c);
        }
    }
    if taken.len() < r { Err(()) } else { Ok(taken) }
}

// ---------------------------------------------------------------------------------------------
// ring-v1
// ---------------------------------------------------------------------------------------------

/// ring-v1: every point, sorted by (value, node position).
pub struct RefRing {
    pub points: Vec<(u64, u32)>,
}

impl RefRing {
    pub fn new(nodes: &[RefNode], points_per_weight: u32) -> Self {
        let mut points = Vec::new();
        for (i, n) in nodes.iter().enumerate() {
            let count = n.weight as u64 * points_per_weight as u64;
            for j in 0..count {
                let mut bytes = e(&n.id);
                bytes.extend_from_slice(&le32(j as u32));
                points.push((xxh3_64(&bytes), i as u32));
            }
        }
        points.sort();
        Self { points }
    }

    /// Position of the first point with value >= x, wrapping to 0 (linear scan).
    pub fn position(&self, x: u64) -> usize {
        self.points.iter().position(|&(v, _)| v >= x).unwrap_or(0)
    }

    pub fn route_hash(&self, x: u64) -> u32 {
        self.points[self.position(x)].1
    }

    pub fn candidates(&self, x: u64) -> Vec<u32> {
        let s = self.position(x);
        (0..self.points.len()).map(|i| self.points[(s + i) % self.points.len()].1).collect()
    }

    pub fn available(&self) -> usize {
        let mut owners: Vec<u32> = self.points.iter().map(|p| p.1).collect();
        owners.sort();
        owners.dedup();
        owners.len()
    }
}

// ---------------------------------------------------------------------------------------------
// jump-v1
// ---------------------------------------------------------------------------------------------

/// Lamping & Veach's jump consistent hash, as published (the C++ of the paper).
pub fn jump(key: u64, num_buckets: i32) -> i32 {
    let mut key = key;
    let mut b: i64 = -1;
    let mut j: i64 = 0;
    while j < num_buckets as i64 {
        b = j;
        key = key.wrapping_mul(2862933555777941757).wrapping_add(1);
        j = ((b + 1) as f64 * ((1i64 << 31) as f64 / ((key >> 33) + 1) as f64)) as i64;
    }
    b as i32
}

// ---------------------------------------------------------------------------------------------
// maglev-v1
// ---------------------------------------------------------------------------------------------

/// The Maglev table, filled naively round by round exactly as SPEC.md describes.
pub fn maglev_table(nodes: &[RefNode], m: u64) -> Vec<u32> {
    struct St {
        node: u32,
        w: u64,
        offset: u64,
        skip: u64,
        next: u64,
        target: u64,
    }
    let mut st: Vec<St> = nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.weight > 0)
        .map(|(i, n)| St {
            node: i as u32,
            w: n.weight as u64,
            offset: xxh3_64_with_seed(&e(&n.id), 0) % m,
            skip: (xxh3_64_with_seed(&e(&n.id), 1) % (m - 1)) + 1,
            next: 0,
            target: 0,
        })
        .collect();
    let big_w = st.iter().map(|s| s.w).max().unwrap_or(0);
    let mut t: Vec<Option<u32>> = vec![None; m as usize];
    let mut claimed = 0u64;
    let mut r = 1u64;
    'rounds: loop {
        for s in st.iter_mut() {
            if r * s.w < s.target {
                continue;
            }
            s.target += big_w;
            loop {
                let c = (s.offset + s.next * s.skip) % m;
                s.next += 1;
                if t[c as usize].is_none() {
                    t[c as usize] = Some(s.node);
                    break;
                }
            }
            claimed += 1;
            if claimed == m {
                break 'rounds;
            }
        }
        r += 1;
    }
    t.into_iter().map(|x| x.expect("every entry claimed")).collect()
}

// ---------------------------------------------------------------------------------------------
// slots-v1
// ---------------------------------------------------------------------------------------------

/// Even assignment: largest-remainder quotas, dealt as contiguous ranges in node order.
pub fn slots_even(nodes: &[RefNode], s: u64) -> Vec<u32> {
    let total: u128 = nodes.iter().map(|n| n.weight as u128).sum();
    let mut q: Vec<u64> = nodes.iter().map(|n| (s as u128 * n.weight as u128 / total) as u64).collect();
    let given: u64 = q.iter().sum();
    let mut order: Vec<usize> = (0..nodes.len()).collect();
    // Largest remainder first; equal remainders: earlier node first (stable sort keeps order).
    order.sort_by(|&a, &b| {
        let ra = s as u128 * nodes[a].weight as u128 % total;
        let rb = s as u128 * nodes[b].weight as u128 % total;
        rb.cmp(&ra)
    });
    for &i in order.iter().take((s - given) as usize) {
        q[i] += 1;
    }
    let mut owners = Vec::new();
    for (i, &qi) in q.iter().enumerate() {
        for _ in 0..qi {
            owners.push(i as u32);
        }
    }
    owners
}

/// An explicit table from per-node inclusive ranges; `None` when they do not cover every slot
/// exactly once (or a range is reversed or past the end).
pub fn slots_explicit(ranges: &[Vec<[u32; 2]>], s: u64) -> Option<Vec<u32>> {
    let mut owners: Vec<Option<u32>> = vec![None; s as usize];
    for (i, rs) in ranges.iter().enumerate() {
        for &[first, last] in rs {
            if first > last || last as u64 >= s {
                return None;
            }
            for slot in first..=last {
                if owners[slot as usize].is_some() {
                    return None;
                }
                owners[slot as usize] = Some(i as u32);
            }
        }
    }
    owners.into_iter().collect()
}

/// Candidates for slot-table replicas: owners of slots s, s+1, … wrapping.
pub fn slot_candidates(owners: &[u32], start: u64) -> Vec<u32> {
    (0..owners.len()).map(|i| owners[(start as usize + i) % owners.len()]).collect()
}

/// Distinct owners of a table.
pub fn distinct(owners: &[u32]) -> usize {
    let mut v = owners.to_vec();
    v.sort();
    v.dedup();
    v.len()
}

// ---------------------------------------------------------------------------------------------
// multi-probe-v1
// ---------------------------------------------------------------------------------------------

pub struct RefMultiProbe {
    /// One point per node (its ring-v1 point 0), sorted as ring-v1.
    pub points: Vec<(u64, u32)>,
    pub probes: u32,
}

impl RefMultiProbe {
    pub fn new(nodes: &[RefNode], probes: u32) -> Self {
        let ring = RefRing::new(&nodes.iter().map(|n| RefNode { weight: 1, ..n.clone() }).collect::<Vec<_>>(), 1);
        Self { points: ring.points, probes }
    }

    fn successor(&self, p: u64) -> (u64, u32) {
        *self.points.iter().find(|&&(v, _)| v >= p).unwrap_or(&self.points[0])
    }

    pub fn route(&self, key: &[u8]) -> u32 {
        let h1 = xxh3_64_with_seed(key, 1);
        let h2 = xxh3_64_with_seed(key, 2);
        let mut best: Option<(u64, u32)> = None;
        for t in 0..self.probes as u64 {
            let p = h1.wrapping_add(t.wrapping_mul(h2));
            let (point, node) = self.successor(p);
            let d = point.wrapping_sub(p);
            if best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, node));
            }
        }
        best.map(|b| b.1).unwrap_or(0)
    }

    pub fn candidates(&self, key: &[u8]) -> Vec<u32> {
        let h1 = xxh3_64_with_seed(key, 1);
        let h2 = xxh3_64_with_seed(key, 2);
        // (distance, earliest probe achieving it, node position)
        let mut ranked: Vec<(u64, u64, u32)> = self
            .points
            .iter()
            .map(|&(point, node)| {
                let mut best: Option<(u64, u64)> = None;
                for t in 0..self.probes as u64 {
                    let p = h1.wrapping_add(t.wrapping_mul(h2));
                    let d = point.wrapping_sub(p);
                    if best.is_none_or(|(bd, _)| d < bd) {
                        best = Some((d, t));
                    }
                }
                let (d, t) = best.unwrap_or((u64::MAX, u64::MAX));
                (d, t, node)
            })
            .collect();
        ranked.sort();
        ranked.into_iter().map(|x| x.2).collect()
    }
}

// ---------------------------------------------------------------------------------------------
// rendezvous-v1
// ---------------------------------------------------------------------------------------------

pub fn rendezvous_score(node: &RefNode, key: &[u8]) -> f64 {
    let seed = xxh3_64(&e(&node.id));
    let x = xxh3_64_with_seed(key, seed);
    let u = ((x >> 12) as f64 + 0.5) * f64::EPSILON; // f64::EPSILON is exactly 2^-52
    -(node.weight as f64) / libm::log(u)
}

/// Positive-weight nodes by descending score, equal scores: earlier node first.
pub fn rendezvous_candidates(nodes: &[RefNode], key: &[u8]) -> Vec<u32> {
    let mut scored: Vec<(f64, u32)> = nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.weight > 0)
        .map(|(i, n)| (rendezvous_score(n, key), i as u32))
        .collect();
    // Stable sort by descending score keeps node order among equal scores.
    scored.sort_by(|a, b| b.0.partial_cmp(&a.0).expect("scores are finite"));
    scored.into_iter().map(|x| x.1).collect()
}

pub fn rendezvous_route(nodes: &[RefNode], key: &[u8]) -> u32 {
    let mut best: Option<(f64, u32)> = None;
    for (i, n) in nodes.iter().enumerate() {
        if n.weight == 0 {
            continue;
        }
        let s = rendezvous_score(n, key);
        if best.is_none_or(|(bs, _)| s > bs) {
            best = Some((s, i as u32));
        }
    }
    best.map(|b| b.1).unwrap_or(0)
}

// ---------------------------------------------------------------------------------------------
// transition-v1
// ---------------------------------------------------------------------------------------------

/// `kr-cutov` read as a little-endian u64.
pub const CUTOVER_SEED: u64 = u64::from_le_bytes(*b"kr-cutov");

/// `T = floor(p · 2^64)` (65 bits at p = 1).
pub fn threshold(p: f64) -> u128 {
    (p * 18_446_744_073_709_551_616.0) as u128
}

/// Whether `key` has cut over at progress `p`.
pub fn has_cut_over(key: &[u8], p: f64) -> bool {
    (xxh3_64_with_seed(key, CUTOVER_SEED) as u128) < threshold(p)
}
