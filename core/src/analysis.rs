//! What a topology does with keys, computed from the structure itself where the algorithm
//! allows it: ownership per node, balance, and what a change moves.
//!
//! Rings, Maglev tables and hash-slot tables map the key-hash space to nodes piece by piece
//! ([`Segments`]), so their ownership and the difference between two of them are **exact**:
//! the measure of each piece of the hash space, with no key sampled. Slot tables over Redis's
//! CRC16 are exact per slot. Jump, modulo and rendezvous have closed-form expected shares. What
//! remains (multi-probe, twemproxy's key rewriting, pymemcache, or two routers over different
//! key hashes) is estimated from a deterministic sample of keys, and says so.

use alloc::vec;
use alloc::vec::Vec;

use crate::presets::PresetRouter;
use crate::{KeyHash, Result, Router, Topology};

/// How a figure was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Method {
    /// Measured on the key-hash space itself: exact for uniformly hashed keys.
    Exact,
    /// Exact per slot: each slot counts equally (keys spread evenly over slots).
    SlotShare,
    /// The algorithm's expected figure for uniformly hashed keys, in closed form: ownership
    /// `w / Σw` (jump, modulo, rendezvous), and the diff of two jump, two modulo or two
    /// rendezvous routers (see [`diff`]).
    Expected,
    /// Estimated from this many sample keys (standard error about `sqrt(s(1−s)/keys)`).
    Sampled {
        /// Sample keys routed.
        keys: u32,
    },
}

impl Method {
    /// The method's stable name, as every surface reports it: `exact`, `slot_share`,
    /// `expected` or `sampled`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Exact => "exact",
            Self::SlotShare => "slot_share",
            Self::Expected => "expected",
            Self::Sampled { .. } => "sampled",
        }
    }

    /// How the figure was obtained, in a few words for people.
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            Self::Exact => "exact: measured on the key-hash space, no key sampled",
            Self::SlotShare => "exact per slot: every slot counts equally",
            Self::Expected => "closed form: the algorithm's expected figure for hashed keys",
            Self::Sampled { .. } => "estimated from sample keys",
        }
    }

    /// The number of sample keys, for [`Method::Sampled`].
    #[must_use]
    pub fn sample_keys(self) -> Option<u32> {
        match self {
            Self::Sampled { keys } => Some(keys),
            _ => None,
        }
    }
}

/// Share of keys per node (indices into the router's topology); shares sum to 1.
#[derive(Debug, Clone, PartialEq)]
pub struct Ownership {
    /// Per node.
    pub shares: Vec<f64>,
    /// How the shares were obtained.
    pub method: Method,
}

/// How evenly keys are spread, relative to each node's fair share `w / Σw`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Balance {
    /// Coefficient of variation of `share / fair share` over nodes with weight.
    pub cv: f64,
    /// Largest `share / fair share`.
    pub max_over_mean: f64,
    /// Smallest `share / fair share`.
    pub min_over_mean: f64,
}

impl Ownership {
    /// Balance of these shares over `topology` (the router's), nodes of weight 0 left out.
    #[must_use]
    pub fn balance(&self, topology: &Topology) -> Balance {
        balance(topology, &self.shares)
    }
}

/// Balance of per-node shares of keys (`shares[i]` for node `i` of `topology`, summing to 1,
/// however they were obtained: analysed or counted), nodes of weight 0 left out.
#[must_use]
pub fn balance(topology: &Topology, shares: &[f64]) -> Balance {
    let total = topology.total_weight() as f64;
    let ratios: Vec<f64> = topology
        .nodes()
        .iter()
        .zip(shares)
        .filter(|(n, _)| n.weight() > 0)
        .map(|(n, &s)| s / (f64::from(n.weight()) / total))
        .collect();
    let n = ratios.len().max(1) as f64;
    let mean = ratios.iter().sum::<f64>() / n;
    let var = ratios.iter().map(|r| (r - mean) * (r - mean)).sum::<f64>() / n;
    let max = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = ratios.iter().copied().fold(f64::INFINITY, f64::min);
    let mean = if mean > 0.0 { mean } else { 1.0 };
    Balance { cv: libm::sqrt(var) / mean, max_over_mean: max / mean, min_over_mean: min / mean }
}

/// The least share of keys any router must move when `from` becomes `to`: each node (matched by
/// id) keeps at most the smaller of its fair shares `w / Σw` before and after, so
/// `1 − Σ min(share_from, share_to)`. Adding one node of weight 1 to `n` equal ones gives
/// `1/(n+1)`.
#[must_use]
pub fn ideal_moved(from: &Topology, to: &Topology) -> f64 {
    let (total_from, total_to) = (from.total_weight() as f64, to.total_weight() as f64);
    let kept: f64 = to
        .nodes()
        .iter()
        .filter_map(|n| {
            let before = from.nodes().get(from.position(n.id())? as usize)?;
            Some((f64::from(before.weight()) / total_from).min(f64::from(n.weight()) / total_to))
        })
        .sum();
    (1.0 - kept).max(0.0)
}

/// A share of keys that goes from one node to another.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Flow {
    /// Node index in the `from` router's topology.
    pub from: u32,
    /// Node index in the `to` router's topology.
    pub to: u32,
    /// Share of all keys.
    pub share: f64,
}

/// One moved piece of the key-hash space (rings and tables, exact diffs only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MovedArc {
    /// First hash of the piece.
    pub start: u64,
    /// Last hash of the piece (inclusive).
    pub end: u64,
    /// Owner before (index in `from`).
    pub from: u32,
    /// Owner after (index in `to`).
    pub to: u32,
}

/// What changing from one router to another does.
#[derive(Debug, Clone, PartialEq)]
pub struct Diff {
    /// Share of keys whose owner (by node id) changes.
    pub moved: f64,
    /// Every (from, to) pair with a positive share, stays included, sorted by (from, to).
    pub flows: Vec<Flow>,
    /// The moved pieces of the hash space, in hash order (exact diffs only; else empty).
    pub moved_arcs: Vec<MovedArc>,
    /// How the figures were obtained.
    pub method: Method,
}

/// Sample keys for the estimates: `kr-sample:` followed by a little-endian counter.
pub const SAMPLE_KEYS: u32 = 1 << 18;

/// A piecewise-constant map from a key-hash space of `2^bits` values to node indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segments {
    bits: u32,
    key_hash: KeyHash,
    /// `(first hash, owner)`, strictly increasing starts, the first at 0.
    starts: Vec<(u64, u32)>,
}

impl Segments {
    pub(crate) fn new(bits: u32, key_hash: KeyHash, starts: Vec<(u64, u32)>) -> Self {
        Self { bits, key_hash, starts }
    }

    /// The width of the key-hash space, in bits (32, 64, or 128 for 128-bit rings, whose
    /// starts are then the top 64 bits).
    #[must_use]
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// `(first hash, owner)` of each piece, in hash order; the first starts at 0.
    #[must_use]
    pub fn starts(&self) -> &[(u64, u32)] {
        &self.starts
    }

    /// `(start, length, owner)` for each piece; lengths are exact (`u128`: the last piece of a
    /// 64-bit space may be 2^64 long).
    fn pieces(&self) -> impl Iterator<Item = (u64, u128, u32)> + '_ {
        let end = 1u128 << self.bits;
        self.starts.iter().enumerate().map(move |(i, &(s, o))| {
            let next = self.starts.get(i + 1).map_or(end, |&(n, _)| u128::from(n));
            (s, next - u128::from(s), o)
        })
    }

    fn space(&self) -> f64 {
        libm::ldexp(1.0, self.bits as i32)
    }
}

/// Pieces for a table of `len` entries addressed by `(h · len) >> 64`.
fn table_segments(len: u64, owner: impl Fn(u64) -> u32) -> Segments {
    let mut starts: Vec<(u64, u32)> = Vec::new();
    for e in 0..len {
        // The first hash that lands on entry e: ceil(e · 2^64 / len).
        let start = ((u128::from(e) << 64).div_ceil(u128::from(len))) as u64;
        let o = owner(e);
        if starts.last().is_none_or(|&(_, prev)| prev != o) {
            starts.push((start, o));
        }
    }
    Segments::new(64, KeyHash::Xxh3, starts)
}

/// The router as pieces of its hash space, where it is one.
pub fn segments(router: &Router) -> Option<Segments> {
    match router {
        Router::Ring(r) => r.segments(),
        Router::Maglev(m) => Some(table_segments(u64::from(m.table_size()), |e| m.entry(e as usize))),
        Router::Slots(s) => match s.slot_fn() {
            crate::SlotFn::Hash { count } => Some(table_segments(u64::from(count), |e| s.owner_of_slot(e as u32))),
            _ => None,
        },
        Router::Preset(PresetRouter::TextRing(t)) => t.ring().segments(),
        Router::Preset(PresetRouter::Nginx(n)) => n.ring().segments(),
        _ => None,
    }
}

/// How [`ownership`] computes `router`'s shares, without computing them: what
/// [`Router::capabilities`] reports. Kept beside [`segments`] and [`ownership`], whose choices
/// it names; the tests check that it agrees with them for every algorithm and preset.
#[must_use]
pub fn method(router: &Router) -> Method {
    let ring_exact = |r: &crate::Ring| r.has_segments();
    match router {
        Router::Ring(r) if ring_exact(r) => Method::Exact,
        Router::Preset(PresetRouter::TextRing(t)) if ring_exact(t.ring()) => Method::Exact,
        Router::Preset(PresetRouter::Nginx(n)) if ring_exact(n.ring()) => Method::Exact,
        Router::Maglev(_) => Method::Exact,
        Router::Slots(s) if matches!(s.slot_fn(), crate::SlotFn::Hash { .. }) => Method::Exact,
        Router::Slots(_) | Router::Preset(PresetRouter::RedisCluster(_)) => Method::SlotShare,
        Router::Rendezvous(_) | Router::Jump(_) | Router::Modulo(_) => Method::Expected,
        Router::Preset(PresetRouter::Modulo(m)) if m.residue_owners().is_some() => Method::Exact,
        _ => Method::Sampled { keys: SAMPLE_KEYS },
    }
}

/// Share of keys per node.
#[must_use]
pub fn ownership(router: &Router) -> Ownership {
    let topology = router.topology();
    let n = topology.len();
    if let Some(seg) = segments(router) {
        let mut acc = vec![0u128; n];
        for (_, len, o) in seg.pieces() {
            if let Some(a) = acc.get_mut(o as usize) {
                *a += len;
            }
        }
        let space = seg.space();
        return Ownership { shares: acc.iter().map(|&a| a as f64 / space).collect(), method: Method::Exact };
    }
    if let Router::Preset(PresetRouter::Modulo(m)) = router
        && let Some(owners) = m.residue_owners()
    {
        // Of the 2^32 CRC-32 values, residue r of `owners.len()` takes those that leave it:
        // exact, whatever the server list's length.
        let (space, residues) = (1u64 << 32, owners.len().max(1) as u64);
        let mut shares = vec![0.0; n];
        for (r, &o) in owners.iter().enumerate() {
            let count = space / residues + u64::from(space % residues > r as u64);
            if let Some(s) = shares.get_mut(o as usize) {
                *s += count as f64 / space as f64;
            }
        }
        return Ownership { shares, method: Method::Exact };
    }
    let weight_shares = || {
        let total = topology.total_weight() as f64;
        topology.nodes().iter().map(|node| f64::from(node.weight()) / total).collect::<Vec<_>>()
    };
    match router {
        Router::Slots(s) => slot_shares(s.owners(), n),
        Router::Preset(PresetRouter::RedisCluster(r)) => slot_shares(r.slots().owners(), n),
        Router::Rendezvous(_) => Ownership { shares: weight_shares(), method: Method::Expected },
        Router::Jump(_) | Router::Modulo(_) => Ownership { shares: vec![1.0 / n as f64; n], method: Method::Expected },
        _ => {
            let mut counts = vec![0u32; n];
            let mut key = [0u8; 18];
            for i in 0..SAMPLE_KEYS {
                if let Some([o]) = route_sample(&[router], &mut key, i)
                    && let Some(c) = counts.get_mut(o as usize)
                {
                    *c += 1;
                }
            }
            let total = f64::from(counts.iter().sum::<u32>().max(1));
            Ownership {
                shares: counts.iter().map(|&c| f64::from(c) / total).collect(),
                method: Method::Sampled { keys: SAMPLE_KEYS },
            }
        }
    }
}

fn slot_shares(owners: &[u32], n: usize) -> Ownership {
    let mut counts = vec![0u32; n];
    for &o in owners {
        if let Some(c) = counts.get_mut(o as usize) {
            *c += 1;
        }
    }
    let total = owners.len().max(1) as f64;
    Ownership { shares: counts.iter().map(|&c| f64::from(c) / total).collect(), method: Method::SlotShare }
}

/// Routes sample key `i` through every router: `"kr-sample:" || le32(i)`, or, where a router
/// refuses those bytes (a peer that takes only printable keys, such as gomemcache),
/// `"kr-sample:"` and `i` in 8 lowercase hex digits through all of them. `None` when a router
/// refuses both.
fn route_sample<const R: usize>(routers: &[&Router; R], buf: &mut [u8; 18], i: u32) -> Option<[u32; R]> {
    buf[..10].copy_from_slice(b"kr-sample:");
    buf[10..14].copy_from_slice(&i.to_le_bytes());
    let route_all = |key: &[u8]| {
        let mut out = [0u32; R];
        for (o, r) in out.iter_mut().zip(routers) {
            *o = r.route(key).ok()?;
        }
        Some(out)
    };
    if let Some(owners) = route_all(&buf[..14]) {
        return Some(owners);
    }
    for (k, d) in buf[10..].iter_mut().enumerate() {
        let nibble = ((i >> (28 - 4 * k)) & 0xf) as u8;
        *d = if nibble < 10 { b'0' + nibble } else { b'a' + nibble - 10 };
    }
    route_all(&buf[..])
}

/// For each node of `from`, its index in `to` (by id).
fn id_map(from: &Topology, to: &Topology) -> Vec<Option<u32>> {
    from.nodes().iter().map(|n| to.position(n.id())).collect()
}

/// What changing from `a` to `b` moves.
///
/// Exact when both routers cut the same key-hash space into pieces (any mix of rings, Maglev
/// and hash-slot tables over the same key hash), or one is libmemcached's `MODULA` and the
/// other such a router over the same 32-bit key hash (a libmemcached ketama ring), per slot for two slot tables over the same
/// slot function, in closed form ([`Method::Expected`]) for two jump routers (same key input
/// and arithmetic), two modulo routers, and two rendezvous routers whose common nodes keep
/// their weights; otherwise estimated from [`SAMPLE_KEYS`] keys.
///
/// # Errors
/// None today for valid routers. In sampling, a key either router refuses is tried again in a
/// printable form, and skipped only when that is refused too.
pub fn diff(a: &Router, b: &Router) -> Result<Diff> {
    let map = id_map(a.topology(), b.topology());
    let moved_pair = |from: u32, to: u32| map.get(from as usize).copied().flatten() != Some(to);
    if let (Some(sa), Some(sb)) = (segments(a), segments(b))
        && sa.bits == sb.bits
        && sa.key_hash == sb.key_hash
    {
        return Ok(exact_diff(&sa, &sb, moved_pair));
    }
    if let Some(d) = modulo_segments_diff(a, b, &moved_pair) {
        return Ok(d);
    }
    let slot_tables = match (a, b) {
        (Router::Slots(x), Router::Slots(y)) if x.slot_fn() == y.slot_fn() => Some((x.owners(), y.owners())),
        (Router::Preset(PresetRouter::RedisCluster(x)), Router::Preset(PresetRouter::RedisCluster(y)))
            if x.tag_rule() == y.tag_rule() =>
        {
            Some((x.slots().owners(), y.slots().owners()))
        }
        _ => None,
    };
    if let Some((x, y)) = slot_tables {
        let pairs: Vec<(u32, u32, u128)> = x.iter().zip(y).map(|(&f, &t)| (f, t, 1)).collect();
        return Ok(summarise(pairs, x.len() as f64, Vec::new(), Method::SlotShare, moved_pair));
    }
    if let Some(mut flows) = expected_flows(a, b) {
        flows.sort_unstable_by_key(|f| (f.from, f.to));
        let moved = flows.iter().filter(|f| moved_pair(f.from, f.to)).map(|f| f.share).sum();
        return Ok(Diff { moved, flows, moved_arcs: Vec::new(), method: Method::Expected });
    }
    let mut pairs = Vec::with_capacity(SAMPLE_KEYS as usize);
    let mut key = [0u8; 18];
    for i in 0..SAMPLE_KEYS {
        if let Some([f, t]) = route_sample(&[a, b], &mut key, i) {
            pairs.push((f, t, 1u128));
        }
    }
    let n = pairs.len().max(1) as f64;
    Ok(summarise(pairs, n, Vec::new(), Method::Sampled { keys: SAMPLE_KEYS }, moved_pair))
}

/// A client's `hash % n` (libmemcached `MODULA`) against a router cut into pieces of the same
/// 32-bit key-hash space (a libmemcached ketama ring with the same key hash): exact, by counting
/// the hashes of each residue in every piece. `None` when the two do not share the hash.
fn modulo_segments_diff(a: &Router, b: &Router, moved_pair: &impl Fn(u32, u32) -> bool) -> Option<Diff> {
    let (modulo, seg, flipped) = match (a, b) {
        (Router::Preset(PresetRouter::Modulo(m)), other) => (m, segments(other)?, false),
        (other, Router::Preset(PresetRouter::Modulo(m))) => (m, segments(other)?, true),
        _ => return None,
    };
    // The key hash, and the node of each residue where it is not the residue itself (a server
    // listed once per unit of weight).
    let (key_hash, residue_owners) = match modulo.rule() {
        // CRC's 15-bit values do not cover the 32-bit space the pieces measure.
        crate::presets::ModuloRule::Libmemcached(h) if h != crate::presets::LibmemcachedHash::Crc => {
            (h.key_hash(), None)
        }
        crate::presets::ModuloRule::Gomemcache => (KeyHash::Crc32, modulo.residue_owners()),
        _ => return None,
    };
    if seg.bits != 32 || seg.key_hash != key_hash {
        return None;
    }
    let n = modulo.topology().len();
    let residues = residue_owners.map_or(n, <[u32]>::len);
    let m = seg.starts.iter().map(|&(_, o)| o as usize + 1).max()?;
    if n.checked_mul(m)? > MAX_EXPECTED_FLOWS || residues.checked_mul(seg.starts.len())? > MAX_EXPECTED_FLOWS {
        return None;
    }
    let end = 1u128 << seg.bits;
    let r128 = residues as u128;
    // Hashes below x with residue r.
    let below = |x: u128, r: u128| x / r128 + u128::from(x % r128 > r);
    let mut matrix = vec![0u128; n * m];
    for (k, &(start, owner)) in seg.starts.iter().enumerate() {
        let stop = seg.starts.get(k + 1).map_or(end, |&(next, _)| u128::from(next));
        let start = u128::from(start);
        for r in 0..residues {
            let count = below(stop, r as u128) - below(start, r as u128);
            let from = residue_owners.map_or(Some(r), |o| o.get(r).map(|&node| node as usize));
            if let Some(cell) = from.and_then(|from| matrix.get_mut(from * m + owner as usize)) {
                *cell += count;
            }
        }
    }
    let pairs: Vec<(u32, u32, u128)> = matrix
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c > 0)
        .map(|(i, &c)| {
            let (r, o) = ((i / m) as u32, (i % m) as u32);
            if flipped { (o, r, c) } else { (r, o, c) }
        })
        .collect();
    Some(summarise(pairs, end as f64, Vec::new(), Method::Exact, moved_pair))
}

/// Most (from, to) pairs a closed-form diff lists; past that, the diff is sampled instead.
const MAX_EXPECTED_FLOWS: usize = 1 << 22;

/// The expected from → to shares of two routers of the same closed-form algorithm.
fn expected_flows(a: &Router, b: &Router) -> Option<Vec<Flow>> {
    let flows = match (a, b) {
        (Router::Jump(x), Router::Jump(y)) if x.key() == y.key() && x.variant() == y.variant() => {
            jump_flows(x.topology().len(), y.topology().len())
        }
        (Router::Modulo(x), Router::Modulo(y)) => modulo_flows(x.topology().len(), y.topology().len()),
        (Router::Rendezvous(x), Router::Rendezvous(y)) => rendezvous_flows(x.topology(), y.topology()),
        _ => None,
    }?;
    Some(flows.into_iter().filter(|f| f.share > 0.0).collect())
}

/// Jump from `n` to `m` buckets. Growing, a key keeps its bucket with probability `n/m` and
/// otherwise lands on one of the new buckets, independently of the bucket it left: so
/// `P(i → i) = 1/m` and `P(i → j) = 1/(n·m)` for `i < n ≤ j`. Shrinking is the mirror image.
fn jump_flows(n: usize, m: usize) -> Option<Vec<Flow>> {
    let (small, large) = (n.min(m), n.max(m));
    if small.checked_mul(large - small + 1)? > MAX_EXPECTED_FLOWS {
        return None;
    }
    let (stay, cross) = (1.0 / large as f64, 1.0 / (small as f64 * large as f64));
    let mut flows = Vec::with_capacity(small * (large - small + 1));
    for i in 0..small as u32 {
        flows.push(Flow { from: i, to: i, share: stay });
        for j in small as u32..large as u32 {
            let (from, to) = if n <= m { (i, j) } else { (j, i) };
            flows.push(Flow { from, to, share: cross });
        }
    }
    Some(flows)
}

/// `h mod n` against `h mod m` for a uniform 64-bit `h`: by the Chinese remainder theorem the
/// pair is uniform over the `n·m/g` pairs `(x, y)` with `x ≡ y (mod g)`, `g = gcd(n, m)`.
fn modulo_flows(n: usize, m: usize) -> Option<Vec<Flow>> {
    let g = gcd(n, m);
    if (n / g).checked_mul(m)? > MAX_EXPECTED_FLOWS {
        return None;
    }
    let share = g as f64 / (n as f64 * m as f64);
    let mut flows = Vec::with_capacity(n / g * m);
    for x in 0..n {
        for y in (x % g..m).step_by(g) {
            flows.push(Flow { from: x as u32, to: y as u32, share });
        }
    }
    Some(flows)
}

fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

/// Weighted rendezvous from `a` to `b`, nodes matched by id, common nodes of equal weight.
///
/// A key's scores are an exponential race: node `i` wins with the smallest `E_i / w_i`, `E_i`
/// independent unit exponentials, so over any set of nodes the winner is `i` with probability
/// `w_i / W` and, by memorylessness, the race among the rest is fresh once the winner is known.
/// With `C` the common nodes, `R` those only in `a`, `N` those only in `b`, and `W` the weight
/// of `a` (`W_A`), `b` (`W_B`) or both (`W_U`):
/// `P(c → c) = w_c/W_U`; `P(c → n) = (w_n/W_U)(w_c/W_A)`; `P(r → c) = (w_r/W_U)(w_c/W_B)`;
/// `P(r → n) = (w_r·w_n/W_U)(1/W_A + 1/W_B)`; and never from one common node to another.
fn rendezvous_flows(a: &Topology, b: &Topology) -> Option<Vec<Flow>> {
    let weight = |t: &Topology, i: u32| t.node(i).map_or(0.0, |n| f64::from(n.weight()));
    let in_b = id_map(a, b);
    let mut common: Vec<(u32, u32, f64)> = Vec::new();
    let mut removed: Vec<(u32, f64)> = Vec::new();
    for (i, j) in in_b.iter().enumerate() {
        let (i, w) = (i as u32, weight(a, i as u32));
        match *j {
            Some(j) if weight(b, j) != w => return None,
            Some(j) => common.push((i, j, w)),
            None => removed.push((i, w)),
        }
    }
    let added: Vec<(u32, f64)> = (0..b.len() as u32)
        .filter(|&j| a.position(b.node(j).map_or(&[][..], |n| n.id())).is_none())
        .map(|j| (j, weight(b, j)))
        .collect();
    let pairs = common.len() + (common.len() + removed.len()).checked_mul(added.len())? + removed.len() * common.len();
    if pairs > MAX_EXPECTED_FLOWS {
        return None;
    }
    let (wa, wb) = (a.total_weight() as f64, b.total_weight() as f64);
    let wu = wa + added.iter().map(|&(_, w)| w).sum::<f64>();
    if wa <= 0.0 || wb <= 0.0 {
        return None;
    }
    let mut flows = Vec::with_capacity(pairs);
    for &(i, j, w) in &common {
        flows.push(Flow { from: i, to: j, share: w / wu });
        for &(n, wn) in &added {
            flows.push(Flow { from: i, to: n, share: (wn / wu) * (w / wa) });
        }
    }
    for &(r, wr) in &removed {
        for &(_, j, wc) in &common {
            flows.push(Flow { from: r, to: j, share: (wr / wu) * (wc / wb) });
        }
        for &(n, wn) in &added {
            flows.push(Flow { from: r, to: n, share: (wr * wn / wu) * (1.0 / wa + 1.0 / wb) });
        }
    }
    Some(flows)
}

fn exact_diff(a: &Segments, b: &Segments, moved_pair: impl Fn(u32, u32) -> bool) -> Diff {
    let end = 1u128 << a.bits;
    // Most of the space stays put, and a staying piece's `to` is fixed by its `from`: sum those
    // per node, and keep only the moved pieces for sorting (sorting every piece of two
    // 160,000-point rings would cost more than the whole sweep).
    let nodes = a.starts.iter().map(|&(_, o)| o as usize + 1).max().unwrap_or(0);
    let mut stays: Vec<Option<(u32, u128)>> = vec![None; nodes];
    let mut pairs: Vec<(u32, u32, u128)> = Vec::new();
    let mut arcs: Vec<MovedArc> = Vec::new();
    let (mut i, mut j) = (0usize, 0usize);
    let mut at: u128 = 0;
    let next_start = |s: &Segments, k: usize| s.starts.get(k + 1).map_or(end, |&(n, _)| u128::from(n));
    while at < end {
        let (Some(&(_, fa)), Some(&(_, fb))) = (a.starts.get(i), b.starts.get(j)) else { break };
        let (na, nb) = (next_start(a, i), next_start(b, j));
        let stop = na.min(nb);
        let len = stop - at;
        if !moved_pair(fa, fb)
            && let Some(stay) = stays.get_mut(fa as usize)
        {
            stay.get_or_insert((fb, 0)).1 += len;
        } else {
            match pairs.last_mut() {
                Some(last) if last.0 == fa && last.1 == fb => last.2 += len,
                _ => pairs.push((fa, fb, len)),
            }
            let (start, last) = (at as u64, (stop - 1) as u64);
            match arcs.last_mut() {
                Some(arc) if arc.from == fa && arc.to == fb && u128::from(arc.end) + 1 == at => arc.end = last,
                _ => arcs.push(MovedArc { start, end: last, from: fa, to: fb }),
            }
        }
        at = stop;
        if na == stop {
            i += 1;
        }
        if nb == stop {
            j += 1;
        }
    }
    pairs.extend(stays.iter().enumerate().filter_map(|(f, s)| s.map(|(t, len)| (f as u32, t, len))));
    summarise(pairs, a.space(), arcs, Method::Exact, moved_pair)
}

/// Folds `(from, to, measure)` pieces into sorted flows and the moved share.
fn summarise(
    mut pairs: Vec<(u32, u32, u128)>,
    space: f64,
    moved_arcs: Vec<MovedArc>,
    method: Method,
    moved_pair: impl Fn(u32, u32) -> bool,
) -> Diff {
    pairs.sort_unstable_by_key(|&(f, t, _)| (f, t));
    let mut flows: Vec<Flow> = Vec::new();
    let mut moved: u128 = 0;
    let mut current: Option<(u32, u32, u128)> = None;
    for (f, t, len) in pairs.into_iter().chain(core::iter::once((u32::MAX, u32::MAX, 0))) {
        match current {
            Some((cf, ct, acc)) if cf == f && ct == t => current = Some((cf, ct, acc + len)),
            _ => {
                if let Some((cf, ct, acc)) = current {
                    if moved_pair(cf, ct) {
                        moved += acc;
                    }
                    flows.push(Flow { from: cf, to: ct, share: acc as f64 / space });
                }
                current = Some((f, t, len));
            }
        }
    }
    Diff { moved: moved as f64 / space, flows, moved_arcs, method }
}

/// A key whose owner changes, from a key-level plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move<'k> {
    /// The key.
    pub key: &'k [u8],
    /// Owner before (index in `from`).
    pub from: u32,
    /// Owner after (index in `to`).
    pub to: u32,
}

/// The keys of `keys` that change owner from `a` to `b`, streamed in constant memory (beyond
/// one id map built up front).
pub fn plan<'k, I>(a: &'k Router, b: &'k Router, keys: I) -> impl Iterator<Item = Result<Move<'k>>> + 'k
where
    I: IntoIterator<Item = &'k [u8]> + 'k,
{
    let map = id_map(a.topology(), b.topology());
    keys.into_iter().filter_map(move |key| {
        let from = match a.route(key) {
            Ok(f) => f,
            Err(e) => return Some(Err(e)),
        };
        let to = match b.route(key) {
            Ok(t) => t,
            Err(e) => return Some(Err(e)),
        };
        (map.get(from as usize).copied().flatten() != Some(to)).then_some(Ok(Move { key, from, to }))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Maglev, Node, Ring, SlotFn, Slots};

    fn topo(n: usize) -> Topology {
        Topology::uniform("n", n).unwrap()
    }

    /// Exact figures against routing many keys (within 6 standard errors).
    #[test]
    fn exact_ownership_and_diff_agree_with_sampling() {
        let a: Router = Ring::new(topo(5), 40).unwrap().into();
        let b: Router = Ring::new(topo(6), 40).unwrap().into();
        let own = ownership(&a);
        assert_eq!(own.method, Method::Exact);
        assert!((own.shares.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let d = diff(&a, &b).unwrap();
        assert_eq!(d.method, Method::Exact);
        let keys = 200_000u32;
        let (mut moved, mut on0) = (0u32, 0u32);
        for i in 0..keys {
            let k = i.to_le_bytes();
            let (f, t) = (a.route(&k).unwrap(), b.route(&k).unwrap());
            moved += u32::from(f != t);
            on0 += u32::from(f == 0);
        }
        let se = |p: f64| 6.0 * libm::sqrt(p * (1.0 - p) / f64::from(keys));
        let sampled = f64::from(moved) / f64::from(keys);
        assert!((sampled - d.moved).abs() < se(d.moved), "moved {sampled} vs exact {}", d.moved);
        let s0 = f64::from(on0) / f64::from(keys);
        assert!((s0 - own.shares[0]).abs() < se(own.shares[0]));
        // Adding a node moves keys only onto it, and the arcs cover exactly the moved share.
        assert!(d.flows.iter().all(|f| f.from == f.to || f.to == 5));
        let arc_len: f64 = d.moved_arcs.iter().map(|a| (a.end - a.start) as f64 + 1.0).sum();
        assert!((arc_len / libm::ldexp(1.0, 64) - d.moved).abs() < 1e-9);
    }

    #[test]
    fn small_exact_cases() {
        // Same router: nothing moves.
        let a: Router = Maglev::new(topo(3), 7).unwrap().into();
        let d = diff(&a, &a).unwrap();
        assert_eq!((d.moved, d.method), (0.0, Method::Exact));
        assert!(d.moved_arcs.is_empty());
        // Slots: 4 slots, one changes owner → exactly a quarter moves.
        let t = Topology::new([Node::new("x"), Node::new("y")].to_vec()).unwrap();
        let s1: Router =
            Slots::from_owners(t.clone(), SlotFn::Hash { count: 4 }, [0, 0, 1, 1].to_vec()).unwrap().into();
        let s2: Router = Slots::from_owners(t, SlotFn::Hash { count: 4 }, [0, 1, 1, 1].to_vec()).unwrap().into();
        let d = diff(&s1, &s2).unwrap();
        assert!((d.moved - 0.25).abs() < 1e-15, "{}", d.moved);
        assert_eq!(ownership(&s2).shares, [0.25, 0.75]);
        // A ring against itself with different node order: ids decide, nothing moves.
        let r1: Router =
            Ring::new(Topology::new([Node::new("p"), Node::new("q")].to_vec()).unwrap(), 8).unwrap().into();
        let r2: Router =
            Ring::new(Topology::new([Node::new("q"), Node::new("p")].to_vec()).unwrap(), 8).unwrap().into();
        assert_eq!(diff(&r1, &r2).unwrap().moved, 0.0);
    }

    #[test]
    fn plan_streams_only_moved_keys() {
        let a: Router = Ring::new(topo(3), 160).unwrap().into();
        let b: Router = Ring::new(topo(4), 160).unwrap().into();
        let keys: Vec<[u8; 4]> = (0..10_000u32).map(u32::to_le_bytes).collect();
        let moves: Vec<_> = plan(&a, &b, keys.iter().map(|k| &k[..])).collect::<Result<_>>().unwrap();
        assert!(moves.iter().all(|m| m.to == 3), "3 → 4 nodes: keys move only to the new one");
        let d = diff(&a, &b).unwrap();
        assert!((moves.len() as f64 / 10_000.0 - d.moved).abs() < 0.03);
    }
}
