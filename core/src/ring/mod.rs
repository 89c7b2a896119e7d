//! Hash ring with weighted virtual points.
//!
//! One ring, many point schemes: which bytes are hashed for point *i* of node *n*, how many
//! points one digest yields, how weights turn into point counts, the lookup rule and the
//! tie-break are all fields of [`PointScheme`]. keyroute's native scheme is
//! [`PointScheme::v1`] ("ring-v1", written down byte for byte in `conformance/SPEC.md`); the
//! peer presets (ketama, nginx, …) are other values of the same struct.

mod table;

use alloc::boxed::Box;
use alloc::vec::Vec;

use table::complement;
pub use table::{LookupRule, TieBreak};
pub(crate) use table::{PointTable, Probe};

use crate::{Error, KeyHash, Result, Topology, hash, replicas};

/// Points per weight unit in ring-v1 when the caller does not choose.
pub const DEFAULT_POINTS_PER_WEIGHT: u32 = 160;

/// Which bytes are hashed for each point, and how a digest becomes points.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PointPlacement {
    /// ring-v1: point *i* of a node is `xxh3_64(le32(len(id)) || id || le32(i))`, one point per
    /// name. The length prefix makes the encoding unambiguous (`"ab"+1` ≠ `"a"+"b1"`).
    V1,
    /// Ketama-style names: name *i* of node *n* is `prefixes[n] || decimal(i)`; each name is
    /// digested by `digest`.
    Named {
        /// Per node, the bytes before the decimal index (e.g. `"10.0.0.1:11212-"`).
        prefixes: Box<[Box<[u8]>]>,
        /// How one name becomes points.
        digest: NameDigest,
    },
    /// groupcache-style names, the index first: name *i* of node *n* is
    /// `decimal(i) || names[n]`; each name is digested by `digest`.
    IndexFirst {
        /// Per node, the bytes after the decimal index (groupcache: the peer's name).
        names: Box<[Box<[u8]>]>,
        /// How one name becomes points.
        digest: NameDigest,
    },
    /// nginx `hash … consistent`: point *j* of a node is
    /// `crc32(base || le32(point j-1))`, point -1 being 0, with `base = host || 0x00 || port`.
    Crc32Chain {
        /// Per node, the `host \0 port` bytes.
        bases: Box<[Box<[u8]>]>,
    },
}

/// How one point name becomes points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NameDigest {
    /// MD5 of the name, cut into `n` (1..=4) little-endian u32 points.
    Md5Words(u8),
    /// One point per name: the given key hash of the name.
    Hash(KeyHash),
    /// One point per name: the first four bytes of the name's SHA-1 as a big-endian u32 (Dalli's
    /// `Integer("0x" + hexdigest[0..7])`).
    Sha1Be32,
}

impl NameDigest {
    fn points_per_name(self) -> u32 {
        match self {
            Self::Md5Words(n) => u32::from(n),
            Self::Hash(_) | Self::Sha1Be32 => 1,
        }
    }
}

/// How many names a node gets (each name yields the digest's points).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NameCount {
    /// `weight × n` names.
    PerWeight(u32),
    /// `n` names for every node with a positive weight, whatever the weight.
    Fixed(u32),
    /// libmemcached / twemproxy / spymemcached weighted ketama, in IEEE binary32:
    /// `floor(f32(f32(w)/f32(total) * per_server / 4 * f32(nodes) + 1e-10))` names (of 4 points).
    KetamaF32 {
        /// Points per server before weighting (160).
        per_server: u32,
    },
    /// Exact integer share: `floor(per_node × nodes × w / total)` (uhashring, Python hash_ring).
    IntegerShare {
        /// Names per node at equal weights.
        per_node: u32,
    },
    /// npm hashring's double share: `floor(w / total * per_node * nodes)`, left to right in f64.
    DoubleShare {
        /// Names per node at equal weights.
        per_node: u32,
    },
}

/// Everything that decides where a ring puts points and how a key finds one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PointScheme {
    /// Bytes hashed per point.
    pub placement: PointPlacement,
    /// Names (digests) per node.
    pub count: NameCount,
    /// Hash of the key; its width (32 or 64 bits) must match the points'.
    pub key_hash: KeyHash,
    /// `>=` or `>`.
    pub lookup: LookupRule,
    /// Which node owns a point value that several nodes produced.
    pub ties: TieBreak,
}

impl PointScheme {
    /// keyroute's native ring-v1 with `points_per_weight` points per unit of weight.
    #[must_use]
    pub fn v1(points_per_weight: u32) -> Self {
        Self {
            placement: PointPlacement::V1,
            count: NameCount::PerWeight(points_per_weight),
            key_hash: KeyHash::Xxh3,
            lookup: LookupRule::LowerBound,
            ties: TieBreak::FirstNode,
        }
    }

    fn point_bits(&self) -> u32 {
        match self.placement {
            PointPlacement::V1 => 64,
            PointPlacement::Named { digest: NameDigest::Hash(h), .. }
            | PointPlacement::IndexFirst { digest: NameDigest::Hash(h), .. } => h.bits(),
            PointPlacement::Named { .. } | PointPlacement::IndexFirst { .. } | PointPlacement::Crc32Chain { .. } => 32,
        }
    }

    /// Names (digests) node `index` gets under this scheme.
    /// An upper bound on the bytes hashed per name of node `index` (the name, its index in
    /// decimal or little-endian, and for nginx's chain every point's 4 bytes of state).
    fn name_bytes(&self, topology: &Topology, index: u32) -> u64 {
        let id_len = topology.node(index).map_or(0, |n| n.id().len()) as u64;
        match &self.placement {
            PointPlacement::V1 => 8 + id_len,
            PointPlacement::Named { prefixes: names, .. } | PointPlacement::IndexFirst { names, .. } => {
                names.get(index as usize).map_or(0, |p| p.len()) as u64 + 20
            }
            PointPlacement::Crc32Chain { bases } => bases.get(index as usize).map_or(0, |b| b.len()) as u64 + 4,
        }
    }

    pub(crate) fn names_for(&self, topology: &Topology, index: u32) -> u64 {
        let Some(node) = topology.node(index) else {
            return 0;
        };
        let w = node.weight();
        if w == 0 {
            return 0;
        }
        let n = topology.len() as u64;
        let total = topology.total_weight();
        match self.count {
            NameCount::PerWeight(k) => u64::from(w) * u64::from(k),
            NameCount::Fixed(k) => u64::from(k),
            NameCount::KetamaF32 { per_server } => {
                let pct = w as f32 / total as f32;
                let v = pct * per_server as f32 / 4.0 * n as f32 + 0.000_000_000_1_f32;
                libm::floorf(v) as u64
            }
            NameCount::IntegerShare { per_node } => {
                (u128::from(per_node) * u128::from(n) * u128::from(w) / u128::from(total)) as u64
            }
            NameCount::DoubleShare { per_node } => {
                libm::floor(f64::from(w) / total as f64 * f64::from(per_node) * n as f64) as u64
            }
        }
    }
}

/// Most points a ring may hold (about 350 MiB of table); more is refused, not attempted.
pub const MAX_POINTS: usize = 1 << 25;

/// A hash ring: keys go to the owner of the first point at or after (or after) their hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ring {
    topology: Topology,
    table: PointTable,
    key_hash: KeyHash,
    lookup: LookupRule,
    /// Nodes that own at least one point.
    reachable: u32,
    /// Points per unit of weight, for a ring built by [`Ring::new`] (native ring-v1).
    points_per_weight: Option<u32>,
    /// Whether the peer this ring reproduces has no weights, so that its preset refuses
    /// unequal ones (what [`Router::capabilities`] reports).
    refuses_weights: bool,
    /// Only for 128-bit point schemes (uhashring's default ring): the table holds each point's
    /// top 64 bits and this holds its low 64 bits, by table position. Empty otherwise.
    ///
    /// Points that share their top 64 bits always share their low 64 bits too (the build
    /// refuses anything else), so the table's order is the exact 128-bit order and a lookup
    /// only consults this array when the key's top 64 bits equal a point's.
    low: Box<[u64]>,
}

impl Ring {
    /// A ring-v1 ring with `points_per_weight` points per unit of weight.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for 0 points, [`Error::TooManyPoints`] past [`MAX_POINTS`].
    pub fn new(topology: Topology, points_per_weight: u32) -> Result<Self> {
        if points_per_weight == 0 {
            return Err(Error::InvalidParameter("points per weight must be at least 1"));
        }
        let ring = Self::with_scheme(topology, &PointScheme::v1(points_per_weight))?;
        Ok(Self { points_per_weight: Some(points_per_weight), ..ring })
    }

    /// Points per unit of weight, for a ring built by [`Ring::new`]; `None` for a ring built
    /// from a peer's [`PointScheme`].
    #[must_use]
    pub fn points_per_weight(&self) -> Option<u32> {
        self.points_per_weight
    }

    /// Marks the ring as a weightless peer's, whose preset refuses unequal weights.
    pub(crate) fn refusing_weights(self) -> Self {
        Self { refuses_weights: true, ..self }
    }

    /// Whether the ring reproduces a peer without weights (its preset refuses unequal ones).
    #[must_use]
    pub fn refuses_weights(&self) -> bool {
        self.refuses_weights
    }

    /// A ring with any point scheme (native or a peer preset's).
    ///
    /// # Errors
    /// [`Error::TooManyPoints`], [`Error::ZeroTotalWeight`] when no node gets a point, or
    /// [`Error::InvalidParameter`] when the scheme does not fit the topology.
    pub fn with_scheme(topology: Topology, scheme: &PointScheme) -> Result<Self> {
        let per_name = scheme.placement_points_per_name();
        let node_count = topology.len() as u32;
        if let PointPlacement::Named { prefixes: p, .. }
        | PointPlacement::IndexFirst { names: p, .. }
        | PointPlacement::Crc32Chain { bases: p } = &scheme.placement
            && p.len() != topology.len()
        {
            return Err(Error::InvalidParameter("one point name per node is required"));
        }
        if let PointPlacement::Named { digest: NameDigest::Md5Words(0 | 5..), .. }
        | PointPlacement::IndexFirst { digest: NameDigest::Md5Words(0 | 5..), .. } = scheme.placement
        {
            return Err(Error::InvalidParameter("an MD5 digest yields 1 to 4 points"));
        }
        if scheme.key_hash.bits() != scheme.point_bits() {
            return Err(Error::InvalidParameter("the key hash and the points differ in width"));
        }
        // The work, counted before anything is allocated or hashed: points, and the bytes of
        // every name hashed to place them.
        let budget = topology.budget();
        let (mut total, mut hashed) = (0u64, 0u64);
        let mut reachable = 0u32;
        for i in 0..node_count {
            let names = scheme.names_for(&topology, i);
            let pts = names.saturating_mul(u64::from(per_name));
            reachable += u32::from(pts > 0);
            total = total.saturating_add(pts);
            hashed = hashed.saturating_add(names.saturating_mul(scheme.name_bytes(&topology, i)));
            if total > MAX_POINTS as u64 {
                return Err(Error::TooManyPoints);
            }
            budget.check_points(total, hashed)?;
        }
        if scheme.point_bits() == 128 {
            if scheme.lookup == LookupRule::Floor {
                return Err(Error::InvalidParameter("a 128-bit ring has no floor lookup"));
            }
            return Self::with_wide_points(topology, scheme, total as usize, reachable);
        }
        let width = scheme.point_bits();
        let generate = |emit: &mut dyn FnMut(&[u64], u32)| {
            let mut name = Vec::new();
            let mut flipped = Vec::new();
            for i in 0..node_count {
                let names = scheme.names_for(&topology, i);
                if scheme.lookup == LookupRule::Floor {
                    // Stored complemented (see `LookupRule::Floor`).
                    let mut emit_flipped = |points: &[u64], owner: u32| {
                        flipped.clear();
                        flipped.extend(points.iter().map(|&p| complement(p, width)));
                        emit(&flipped, owner);
                    };
                    emit_node_points(scheme, &topology, i, names, &mut name, &mut emit_flipped);
                } else {
                    emit_node_points(scheme, &topology, i, names, &mut name, emit);
                }
            }
        };
        let table = PointTable::build(total as usize, scheme.point_bits(), topology.len(), scheme.ties, generate)?;
        Ok(Self {
            topology,
            table,
            key_hash: scheme.key_hash,
            lookup: scheme.lookup,
            reachable,
            points_per_weight: None,
            refuses_weights: false,
            low: Box::default(),
        })
    }

    /// A ring of 128-bit points (one per name, `PointPlacement::Named` with a 128-bit
    /// `NameDigest::Hash`): the table takes the top 64 bits, `low` the rest.
    fn with_wide_points(topology: Topology, scheme: &PointScheme, total: usize, reachable: u32) -> Result<Self> {
        let PointPlacement::Named { prefixes, digest: NameDigest::Hash(h) } = &scheme.placement else {
            return Err(Error::InvalidParameter("128-bit points need named points with a 128-bit hash"));
        };
        let mut points: Vec<(u64, u64, u32)> = crate::budget::try_with_capacity(total)?;
        let mut name = Vec::new();
        for (i, prefix) in (0..topology.len() as u32).zip(prefixes.iter()) {
            for k in 0..scheme.names_for(&topology, i) {
                name.clear();
                name.extend_from_slice(prefix);
                push_decimal(&mut name, k);
                let p = h.hash128(&name);
                points.push(((p >> 64) as u64, p as u64, i));
            }
        }
        let tie = |o: u32| match scheme.ties {
            TieBreak::FirstNode => o,
            TieBreak::LastNode => u32::MAX - o,
        };
        points.sort_unstable_by_key(|&(hi, lo, o)| (hi, lo, tie(o)));
        if points.windows(2).any(|w| matches!(w, [a, b] if a.0 == b.0 && a.1 != b.1)) {
            // Two different points in one 64-bit table slot value: the table could not order
            // them, and keyroute refuses rather than approximate (it takes an MD5 collision in
            // the top 64 bits, about 2^-64 per pair of points).
            return Err(Error::InvalidParameter("two 128-bit ring points share their top 64 bits"));
        }
        let table = PointTable::build(total, 64, topology.len(), scheme.ties, |emit| {
            for &(hi, _, o) in &points {
                emit(&[hi], o);
            }
        })?;
        let mut low = crate::budget::try_vec(total, 0u64)?;
        for (slot, &(_, lo, _)) in low.iter_mut().zip(&points) {
            *slot = lo;
        }
        Ok(Self {
            topology,
            table,
            key_hash: scheme.key_hash,
            lookup: scheme.lookup,
            reachable,
            points_per_weight: None,
            refuses_weights: false,
            low: low.into_boxed_slice(),
        })
    }

    /// Position of the point a 128-bit hash lands on (128-bit rings only).
    #[cold]
    fn wide_position(&self, h: u128) -> usize {
        let (hi, lo) = ((h >> 64) as u64, h as u64);
        let first = self.table.position(hi, LookupRule::LowerBound);
        let after = self.table.position(hi, LookupRule::Strict);
        // `first != after` exactly when points share the key's top 64 bits; they share one low
        // half, at `first`. (If every point does, both are 0 and so is the answer.)
        if first != after {
            let point_low = self.low.get(first).copied().unwrap_or(0);
            let lands = match self.lookup {
                LookupRule::LowerBound => point_low >= lo,
                LookupRule::Strict => point_low > lo,
                // Refused at build (`with_scheme`).
                LookupRule::Floor => false,
            };
            if lands {
                return first;
            }
        }
        after
    }

    /// Position of the point `key` lands on.
    fn key_position(&self, key: &[u8]) -> usize {
        if self.low.is_empty() {
            self.table.position(self.key_hash.hash(key), self.lookup)
        } else {
            self.wide_position(self.key_hash.hash128(key))
        }
    }

    /// The owner of `key`.
    #[inline]
    #[must_use]
    pub fn route(&self, key: &[u8]) -> u32 {
        if !self.low.is_empty() {
            return self.table.owner(self.wide_position(self.key_hash.hash128(key)));
        }
        self.route_hash(self.key_hash.hash(key))
    }

    /// The owner of an already hashed key.
    ///
    /// On a 128-bit ring (uhashring's default scheme) `h` is the hash's top 64 bits and its low
    /// 64 bits are taken as zero; [`Ring::route`] uses the full hash.
    #[inline(always)]
    #[must_use]
    pub fn route_hash(&self, h: u64) -> u32 {
        if !self.low.is_empty() {
            return self.table.owner(self.wide_position(u128::from(h) << 64));
        }
        self.table.owner_of(h, self.lookup)
    }

    /// Routes many keys into `out` (same length), overlapping their memory reads.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`] when `out` is shorter than `keys`.
    pub fn route_batch<K: AsRef<[u8]>>(&self, keys: &[K], out: &mut [u32]) -> Result<()> {
        let out = out.get_mut(..keys.len()).ok_or(Error::BufferTooSmall)?;
        if !self.low.is_empty() {
            for (o, k) in out.iter_mut().zip(keys) {
                *o = self.route(k.as_ref());
            }
        } else {
            self.route_lanes(keys, out, |k| self.key_hash.hash(k.as_ref()));
        }
        Ok(())
    }

    /// [`Ring::route_hash`] for many hashes into `out` (same length), overlapping their memory
    /// reads as [`Ring::route_batch`] does.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`] when `out` is shorter than `hashes`.
    pub fn route_hash_batch(&self, hashes: &[u64], out: &mut [u32]) -> Result<()> {
        let out = out.get_mut(..hashes.len()).ok_or(Error::BufferTooSmall)?;
        if self.low.is_empty() {
            self.route_lanes(hashes, out, |&h| h);
        } else {
            for (o, &h) in out.iter_mut().zip(hashes) {
                *o = self.route_hash(h);
            }
        }
        Ok(())
    }

    /// Routes inputs eight at a time through a three-stage pipeline: while one group's slots
    /// are compared, the next group's index entries are read (and its slots prefetched), and
    /// the group after that is hashed (and its index entries prefetched). Every read a stage
    /// makes was requested a group earlier, so the cache misses of many keys overlap instead
    /// of each lookup waiting on its own two.
    #[inline(always)]
    fn route_lanes<T>(&self, inputs: &[T], out: &mut [u32], hash: impl Fn(&T) -> u64) {
        const LANES: usize = 8;
        let groups = inputs.len() / LANES;
        let mut hashes = [0u64; LANES];
        let mut probes = [Probe::default(); LANES];
        for g in 0..groups + 2 {
            // Stage 3, group g - 2: compare the slots.
            if let Some(o) = g.checked_sub(2).and_then(|d| out.get_mut(d * LANES..(d + 1) * LANES)) {
                for (oi, &p) in o.iter_mut().zip(&probes) {
                    *oi = self.table.owner_at(p);
                }
            }
            // Stage 2, group g - 1: read the index entries.
            if (1..=groups).contains(&g) {
                for (p, &h) in probes.iter_mut().zip(&hashes) {
                    *p = self.table.probe(h);
                    self.table.prefetch_window(p);
                }
            }
            // Stage 1, group g: hash the inputs.
            if let Some(k) = inputs.get(g * LANES..(g + 1) * LANES) {
                for (h, ki) in hashes.iter_mut().zip(k) {
                    *h = self.lookup.adjust(hash(ki), self.table.width());
                    self.table.prefetch_probe(*h);
                }
            }
        }
        let done = groups * LANES;
        for (k, o) in inputs.iter().zip(out.iter_mut()).skip(done) {
            *o = self.table.owner_of(hash(k), self.lookup);
        }
    }

    /// Writes `out.len()` distinct nodes for `key` in preference order: clockwise from the
    /// key's point, distinct zones first when nodes carry zones.
    ///
    /// # Errors
    /// [`Error::ReplicasExceedNodes`] when fewer nodes own points than replicas are asked for.
    pub fn replicas(&self, key: &[u8], out: &mut [u32]) -> Result<()> {
        self.replicas_from(self.key_position(key), out)
    }

    /// [`Ring::replicas`] for an already hashed key (on a 128-bit ring, `h` as in
    /// [`Ring::route_hash`]).
    ///
    /// # Errors
    /// As [`Ring::replicas`].
    pub fn replicas_hash(&self, h: u64, out: &mut [u32]) -> Result<()> {
        let start = if self.low.is_empty() {
            self.table.position(h, self.lookup)
        } else {
            self.wide_position(u128::from(h) << 64)
        };
        self.replicas_from(start, out)
    }

    fn replicas_from(&self, start: usize, out: &mut [u32]) -> Result<()> {
        let len = self.table.len();
        replicas::select(&self.topology, self.reachable as usize, out, || {
            (0..len).map(move |i| self.table.owner((start + i) % len))
        })
    }

    /// The topology the ring was built from.
    #[must_use]
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// Number of points on the ring.
    #[must_use]
    pub fn points(&self) -> usize {
        self.table.len()
    }

    /// Bytes of heap held by the point table (points, owners, index).
    #[must_use]
    pub fn table_bytes(&self) -> usize {
        self.table.heap_bytes()
    }

    /// The key hash this ring uses.
    #[must_use]
    pub fn key_hash(&self) -> KeyHash {
        self.key_hash
    }

    /// The ring as pieces of its key-hash space (`None` for 128-bit rings, whose space is not
    /// one `u64`). See [`crate::analysis`].
    /// Whether [`Ring::segments`] answers: every ring but a 128-bit one.
    pub(crate) fn has_segments(&self) -> bool {
        self.low.is_empty() && self.table.len() > 0
    }

    pub(crate) fn segments(&self) -> Option<crate::analysis::Segments> {
        if !self.low.is_empty() {
            return None;
        }
        let bits = self.table.width();
        let mut points: Vec<(u64, u32)> = Vec::with_capacity(self.table.len());
        self.table.for_each_point(|p, owner| points.push((p, owner)));
        if self.lookup == LookupRule::Floor {
            // Back to the points' own values, ascending.
            points.reverse();
            for p in &mut points {
                p.0 = complement(p.0, bits);
            }
        }
        let (&(_, first), &(last, _)) = (points.first()?, points.last()?);
        let in_space = |s: u64| bits >= 64 || s < (1u64 << bits);
        let mut starts: Vec<(u64, u32)> = Vec::with_capacity(points.len() + 1);
        let mut push = |start: u64, owner: u32| match starts.last_mut() {
            // A later piece starting at the same place replaces an empty one.
            Some(prev) if prev.0 == start => prev.1 = owner,
            _ => starts.push((start, owner)),
        };
        push(0, first);
        match self.lookup {
            // Lower bound: (p_i, p_i+1] belongs to point i+1's owner; past the last point, to
            // the first point's.
            LookupRule::LowerBound => {
                for pair in points.windows(2) {
                    if let [(p, _), (_, next)] = *pair
                        && let Some(s) = p.checked_add(1).filter(|&s| in_space(s))
                    {
                        push(s, next);
                    }
                }
                if let Some(s) = last.checked_add(1).filter(|&s| in_space(s)) {
                    push(s, first);
                }
            }
            // Strict: [p_i, p_i+1) belongs to point i+1's owner; from the last point on, to
            // the first point's.
            LookupRule::Strict => {
                for pair in points.windows(2) {
                    if let [(p, _), (_, next)] = *pair {
                        push(p, next);
                    }
                }
                push(last, first);
            }
            // Floor: [p_i, p_i+1) belongs to point i's owner; below the first point, to the
            // last point's.
            LookupRule::Floor => {
                let last_owner = points.last().map_or(first, |&(_, o)| o);
                push(0, last_owner);
                for &(p, owner) in &points {
                    push(p, owner);
                }
            }
        }
        Some(crate::analysis::Segments::new(bits, self.key_hash, starts))
    }

    pub(crate) fn into_parts(self) -> (Topology, PointTable) {
        (self.topology, self.table)
    }

    /// Point value and owner at position `i` in ring order (for analysis and tests). On a
    /// 128-bit ring the value is the point's top 64 bits; on a [`LookupRule::Floor`] ring ring
    /// order is descending.
    #[must_use]
    pub fn point_at(&self, i: usize) -> Option<(u64, u32)> {
        let point = |i| match self.lookup {
            LookupRule::Floor => complement(self.table.point(i), self.table.width()),
            _ => self.table.point(i),
        };
        (i < self.table.len()).then(|| (point(i), self.table.owner(i)))
    }
}

impl PointScheme {
    fn placement_points_per_name(&self) -> u32 {
        match &self.placement {
            PointPlacement::V1 | PointPlacement::Crc32Chain { .. } => 1,
            PointPlacement::Named { digest, .. } | PointPlacement::IndexFirst { digest, .. } => {
                digest.points_per_name()
            }
        }
    }
}

fn emit_node_points(
    scheme: &PointScheme,
    topology: &Topology,
    i: u32,
    names: u64,
    buf: &mut Vec<u8>,
    emit: &mut dyn FnMut(&[u64], u32),
) {
    let Some(node) = topology.node(i) else { return };
    match &scheme.placement {
        PointPlacement::V1 => {
            // Names `E(id) || le32(k)` are written LANES at a time, then hashed: hashing bytes
            // stored a moment before makes every load wait for its store (a store-forwarding
            // stall per point, most of the build's time); written in a batch, they have long
            // left the store buffer when they are read.
            const LANES: usize = 64;
            let stride = 4 + node.id().len() + 4;
            buf.clear();
            buf.extend_from_slice(&(node.id().len() as u32).to_le_bytes());
            buf.extend_from_slice(node.id());
            buf.extend_from_slice(&[0; 4]);
            while buf.len() < LANES * stride {
                buf.extend_from_within(..buf.len().min(LANES * stride - buf.len()));
            }
            let mut hashes = [0u64; LANES];
            let mut k = 0u64;
            while k < names {
                let lanes = (names - k).min(LANES as u64) as usize;
                for (lane, name) in buf.chunks_exact_mut(stride).take(lanes).enumerate() {
                    if let Some(tail) = name.last_chunk_mut::<4>() {
                        *tail = ((k + lane as u64) as u32).to_le_bytes();
                    }
                }
                for (h, name) in hashes.iter_mut().zip(buf.chunks_exact(stride)).take(lanes) {
                    *h = hash::xxh3_64(name);
                }
                emit(hashes.get(..lanes).unwrap_or(&[]), i);
                k += lanes as u64;
            }
        }
        PointPlacement::Named { prefixes, digest } => {
            let prefix = prefixes.get(i as usize).map_or(&[][..], |p| &p[..]);
            for k in 0..names {
                buf.clear();
                buf.extend_from_slice(prefix);
                push_decimal(buf, k);
                digest_name(*digest, buf, i, emit);
            }
        }
        PointPlacement::IndexFirst { names: suffixes, digest } => {
            let suffix = suffixes.get(i as usize).map_or(&[][..], |p| &p[..]);
            for k in 0..names {
                buf.clear();
                push_decimal(buf, k);
                buf.extend_from_slice(suffix);
                digest_name(*digest, buf, i, emit);
            }
        }
        PointPlacement::Crc32Chain { bases } => {
            let base = bases.get(i as usize).map_or(&[][..], |b| &b[..]);
            let digest = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);
            let mut prev: u32 = 0;
            for _ in 0..names {
                let mut d = digest.digest();
                d.update(base);
                d.update(&prev.to_le_bytes());
                prev = d.finalize();
                emit(&[u64::from(prev)], i);
            }
        }
    }
}

/// Emits the points `digest` makes of one point name of node `i`.
fn digest_name(digest: NameDigest, name: &[u8], i: u32, emit: &mut dyn FnMut(&[u64], u32)) {
    match digest {
        NameDigest::Md5Words(n) => {
            let d = hash::md5(name);
            let mut words = [0u64; 4];
            for (word, w) in words.iter_mut().zip(d.chunks_exact(4)) {
                if let [a, b, c, e] = *w {
                    *word = u64::from(u32::from_le_bytes([a, b, c, e]));
                }
            }
            emit(words.get(..usize::from(n)).unwrap_or(&[]), i);
        }
        NameDigest::Hash(h) => emit(&[h.hash(name)], i),
        NameDigest::Sha1Be32 => {
            let d = hash::sha1(name);
            emit(&[u64::from(u32::from_be_bytes([d[0], d[1], d[2], d[3]]))], i);
        }
    }
}

/// Appends the decimal text of `v`.
fn push_decimal(buf: &mut Vec<u8>, v: u64) {
    let mut digits = [0u8; 20];
    let mut n = v;
    let mut at = digits.len();
    loop {
        at -= 1;
        if let Some(d) = digits.get_mut(at) {
            *d = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 || at == 0 {
            break;
        }
    }
    buf.extend_from_slice(digits.get(at..).unwrap_or(&[]));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Node;

    #[test]
    fn decimal_names() {
        let mut b = Vec::new();
        for v in [0u64, 7, 10, 159, u64::MAX] {
            b.clear();
            push_decimal(&mut b, v);
            assert_eq!(b, alloc::format!("{v}").into_bytes());
        }
    }

    #[test]
    fn ketama_f32_gives_156_points_at_25_servers() {
        let t = Topology::uniform("s", 25).unwrap();
        let scheme = PointScheme {
            placement: PointPlacement::Named {
                prefixes: (0..25).map(|i| alloc::format!("s{i}-").into_bytes().into_boxed_slice()).collect(),
                digest: NameDigest::Md5Words(4),
            },
            count: NameCount::KetamaF32 { per_server: 160 },
            key_hash: KeyHash::Md5,
            lookup: LookupRule::LowerBound,
            ties: TieBreak::FirstNode,
        };
        let ring = Ring::with_scheme(t, &scheme).unwrap();
        assert_eq!(ring.points(), 25 * 156);
    }

    #[test]
    fn v1_points_hash_exactly_the_specified_bytes() {
        // SPEC.md: point j of node "ab" is xxh3_64(le32(2) || "ab" || le32(j)). Spelled out
        // byte by byte, so any change to the encoding (dropping the length prefix, another
        // index width or byte order) fails here, not only in the vector files.
        let t = Topology::new([Node::new("ab"), Node::new("a")].to_vec()).unwrap();
        let ring = Ring::new(t, 4).unwrap();
        let points: Vec<(u64, u32)> = (0..ring.points()).filter_map(|i| ring.point_at(i)).collect();
        for j in 0u8..4 {
            let ab = hash::xxh3_64(&[2, 0, 0, 0, b'a', b'b', j, 0, 0, 0]);
            let a = hash::xxh3_64(&[1, 0, 0, 0, b'a', j, 0, 0, 0]);
            assert!(points.contains(&(ab, 0)), "point {j} of \"ab\"");
            assert!(points.contains(&(a, 1)), "point {j} of \"a\"");
        }
        assert_eq!(points.len(), 8);
    }

    /// The batch path (which prefetches ahead, the core's one `unsafe`) gives what the per-key
    /// path gives, over more keys than one batch stage holds. Small enough for `make miri`.
    #[test]
    fn batches_prefetch_and_agree_with_single_routes() {
        let ring = Ring::new(Topology::uniform("n", 5).unwrap(), 8).unwrap();
        let keys: Vec<Vec<u8>> = (0..40u32).map(|i| alloc::format!("key-{i}").into_bytes()).collect();
        let mut out = alloc::vec![u32::MAX; keys.len()];
        ring.route_batch(&keys, &mut out).unwrap();
        for (k, &got) in keys.iter().zip(&out) {
            assert_eq!(got, ring.route(k));
        }
        let hashes: Vec<u64> = (0..40u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
        ring.route_hash_batch(&hashes, &mut out).unwrap();
        for (&h, &got) in hashes.iter().zip(&out) {
            assert_eq!(got, ring.route_hash(h));
        }
    }
}
