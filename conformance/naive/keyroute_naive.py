"""Naive, independent re-implementation of keyroute's native schemes.

Written only from conformance/SPEC.md (not from the Rust sources), to cross-check the spec and
the Rust vector generator. Clarity over speed: sorted lists, linear scans, no caching beyond
building each topology's table/points once.

Public entry point: ``Router(spec)`` where ``spec`` is the ``spec`` object of a vector file
(``{"algorithm", "params", "nodes"}``), then ``router.node(key_bytes)`` -> node position and
``router.replicas(key_bytes, r)`` -> list of node positions.
"""

import math
import os
import struct
from bisect import bisect_left

import xxhash

MASK64 = (1 << 64) - 1


class SpecError(Exception):
    """A topology or request that the spec says must be refused (error name in args[0])."""


# ---------------------------------------------------------------- common definitions

def le32(x):
    return struct.pack("<I", x)


def E(node_id):
    """Length-prefixed node id: le32(len(id)) || id."""
    return le32(len(node_id)) + node_id


def xxh3(b):
    return xxhash.xxh3_64_intdigest(b, seed=0)


def xxh3s(b, s):
    return xxhash.xxh3_64_intdigest(b, seed=s)


def H(key):
    return xxh3(key)


def reduce(x, m):
    return (x * m) >> 64  # Python ints are unbounded: this is the exact 128-bit product


# fdlibm's __ieee754_log (e_log.c), ported line by line. Python floats are IEEE-754 binary64
# with round-to-nearest and no fused multiply-add, so each C operation rounds the same way.
# Checked bit-for-bit against Java StrictMath.log (OpenJDK 17) on 310k inputs (see README).

def _from_words(hi, lo):
    return struct.unpack("<d", struct.pack("<II", lo, hi))[0]


def _words(x):
    lo, hi = struct.unpack("<II", struct.pack("<d", x))
    return (hi - (1 << 32) if hi & 0x80000000 else hi), lo  # hi as a signed 32-bit int


_ln2_hi = _from_words(0x3FE62E42, 0xFEE00000)
_ln2_lo = _from_words(0x3DEA39EF, 0x35793C76)
_two54 = _from_words(0x43500000, 0x00000000)
_Lg1 = _from_words(0x3FE55555, 0x55555593)
_Lg2 = _from_words(0x3FD99999, 0x9997FA04)
_Lg3 = _from_words(0x3FD24924, 0x94229359)
_Lg4 = _from_words(0x3FCC71C5, 0x1D8E78AF)
_Lg5 = _from_words(0x3FC74664, 0x96CB03DE)
_Lg6 = _from_words(0x3FC39A09, 0xD078C69F)
_Lg7 = _from_words(0x3FC2F112, 0xDF3E5244)


def fdlibm_log(x):
    hx, lx = _words(x)
    k = 0
    if hx < 0x00100000:  # x < 2**-1022
        if ((hx & 0x7FFFFFFF) | lx) == 0:
            return -math.inf  # log(+-0) = -inf
        if hx < 0:
            return math.nan  # log(-#) = NaN
        k -= 54
        x *= _two54  # subnormal number, scale up x
        hx, lx = _words(x)
    if hx >= 0x7FF00000:
        return x + x
    k += (hx >> 20) - 1023
    hx &= 0x000FFFFF
    i = (hx + 0x95F64) & 0x100000
    x = _from_words(hx | (i ^ 0x3FF00000), lx)  # normalize x or x/2
    k += i >> 20
    f = x - 1.0
    if (0x000FFFFF & (2 + hx)) < 3:  # |f| < 2**-20
        if f == 0.0:
            if k == 0:
                return 0.0
            dk = float(k)
            return dk * _ln2_hi + dk * _ln2_lo
        R = f * f * (0.5 - 0.33333333333333333 * f)
        if k == 0:
            return f - R
        dk = float(k)
        return dk * _ln2_hi - ((R - dk * _ln2_lo) - f)
    s = f / (2.0 + f)
    dk = float(k)
    z = s * s
    i = hx - 0x6147A
    w = z * z
    j = 0x6B851 - hx
    t1 = w * (_Lg2 + w * (_Lg4 + w * _Lg6))
    t2 = z * (_Lg1 + w * (_Lg3 + w * (_Lg5 + w * _Lg7)))
    i |= j
    R = t2 + t1
    if i > 0:
        hfsq = 0.5 * f * f
        if k == 0:
            return f - (hfsq - s * (hfsq + R))
        return dk * _ln2_hi - ((hfsq - (s * (hfsq + R) + dk * _ln2_lo)) - f)
    if k == 0:
        return f - s * (f - R)
    return dk * _ln2_hi - ((s * (f - R) - dk * _ln2_lo) - f)


# The ln used by rendezvous-v1: fdlibm's, as SPEC.md says. KEYROUTE_NAIVE_LN=libm selects
# math.log (the platform libm, glibc here) instead, to see whether the vectors can tell them apart.
ln = math.log if os.environ.get("KEYROUTE_NAIVE_LN") == "libm" else fdlibm_log


# ---------------------------------------------------------------- the replica rule

def replica_rule(candidates, r, zones):
    """candidates: node positions in the algorithm's preference order (may repeat).
    zones: per node, bytes or None. Returns r node positions."""
    owners = []  # distinct candidates = the nodes that can own keys
    for c in candidates:
        if c not in owners:
            owners.append(c)
    if r > len(owners):
        raise SpecError("replicas_exceed_nodes")
    first, second = [], []
    if any(z is not None for z in zones):
        seen_zones = []
        for c in candidates:
            if len(first) == r:
                break
            if c in first:
                continue
            z = zones[c]
            if z is not None and z in seen_zones:
                continue
            first.append(c)
            if z is not None:
                seen_zones.append(z)
    for c in candidates:
        if len(first) + len(second) == r:
            break
        if c in first or c in second:
            continue
        second.append(c)
    return first + second


def distinct(seq, limit):
    """First occurrences of seq, stopping after `limit` distinct items.

    Feeding the replica rule the de-duplicated candidate order is equivalent to feeding it the
    full order: a repeated candidate is skipped by both passes (it is already taken, or its zone
    was already represented when it was first seen). This only keeps Maglev/slots fast."""
    out = []
    for x in seq:
        if x not in out:
            out.append(x)
            if len(out) == limit:
                break
    return out


# ---------------------------------------------------------------- ring-v1

class Ring:
    def __init__(self, ids, weights, params):
        P = params.get("points_per_weight", 160)
        if P < 1:
            raise SpecError("invalid_params")
        if sum(w * P for w in weights) > 2 ** 25:
            raise SpecError("too_many_points")
        points = []
        for i, (nid, w) in enumerate(zip(ids, weights)):
            for j in range(w * P):
                points.append((xxh3(E(nid) + le32(j)), i))
        points.sort()  # by value, then node position (ties: earlier node first)
        self.values = [v for v, _ in points]
        self.owners = [i for _, i in points]
        self.n_owners = len(set(self.owners))

    def _start(self, key):
        s = bisect_left(self.values, H(key))  # first point with value >= H(key)
        return 0 if s == len(self.values) else s  # none: wrap to the first point

    def node(self, key):
        return self.owners[self._start(key)]

    def candidates(self, key):
        s = self._start(key)
        walk = (self.owners[(s + t) % len(self.owners)] for t in range(len(self.owners)))
        return distinct(walk, self.n_owners)


# ---------------------------------------------------------------- jump-v1

def jump(key64, n):
    b, j, k = -1, 0, key64
    while j < n:
        b = j
        k = (k * 2862933555777941757 + 1) & MASK64
        j = math.trunc(float(b + 1) * (float(1 << 31) / float((k >> 33) + 1)))
    return b


class Jump:
    def __init__(self, ids, weights, params):
        if len(set(weights)) != 1:
            raise SpecError("weights_unsupported")
        self.n = len(ids)
        self.key_hash = params.get("key_hash", "xxh3")

    def node(self, key):
        if self.key_hash == "u64be":  # VECTORS.md: the key is exactly 8 bytes, big-endian u64
            if len(key) != 8:
                raise SpecError("invalid_key")
            k = int.from_bytes(key, "big")
        else:
            k = H(key)
        return jump(k, self.n)

    def candidates(self, key):
        raise SpecError("replicas_unsupported")


# ---------------------------------------------------------------- rendezvous-v1

class Rendezvous:
    def __init__(self, ids, weights, params):
        self.weights = weights
        self.seeds = [xxh3(E(nid)) for nid in ids]

    def scores(self, key):
        out = []
        for seed, w in zip(self.seeds, self.weights):
            x = xxh3s(key, seed)
            u = ((x >> 12) + 0.5) * 2.0 ** -52
            out.append(-float(w) / ln(u))  # module-level ln, looked up per call
        return out

    def candidates(self, key):
        sc = self.scores(key)
        order = [i for i in range(len(sc)) if self.weights[i] > 0]
        order.sort(key=lambda i: (-sc[i], i))  # descending score, equal: earlier node
        return order

    def node(self, key):
        return self.candidates(key)[0]


# ---------------------------------------------------------------- maglev-v1

class Maglev:
    def __init__(self, ids, weights, params):
        M = params.get("table_size", 65537)
        live = [i for i in range(len(ids)) if weights[i] > 0]
        if not (len(live) <= M <= 2 ** 26 - 5) or M < 2 or any(M % d == 0 for d in range(2, math.isqrt(M) + 1)):
            raise SpecError("invalid_params")
        offset = {i: xxh3s(E(ids[i]), 0) % M for i in live}
        skip = {i: xxh3s(E(ids[i]), 1) % (M - 1) + 1 for i in live}
        nxt = {i: 0 for i in live}
        target = {i: 0 for i in live}
        W = max(weights)
        T = [None] * M
        filled = 0
        r = 0
        while filled < M:
            r += 1
            for i in live:
                if filled == M:
                    break
                if r * weights[i] < target[i]:
                    continue
                target[i] += W
                while True:
                    c = (offset[i] + nxt[i] * skip[i]) % M
                    nxt[i] += 1
                    if T[c] is None:
                        break
                T[c] = i
                filled += 1
        self.T = T
        self.M = M
        self.n_owners = len(set(T))

    def node(self, key):
        return self.T[reduce(H(key), self.M)]

    def candidates(self, key):
        s = reduce(H(key), self.M)
        walk = (self.T[(s + t) % self.M] for t in range(self.M))
        return distinct(walk, self.n_owners)


# ---------------------------------------------------------------- slots-v1

def crc16_xmodem(data):
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def redis_tag(key):
    o = key.find(b"{")
    if o >= 0:
        c = key.find(b"}", o + 1)
        if c > o + 1:
            return key[o + 1:c]
    return key


def redis_slot(key):
    return crc16_xmodem(redis_tag(key)) & 16383


def even_assignment(S, weights):
    total = sum(weights)
    q = [S * w // total for w in weights]
    left = S - sum(q)
    by_rem = sorted(range(len(weights)), key=lambda i: (-((S * weights[i]) % total), i))
    for i in by_rem[:left]:
        q[i] += 1
    owner = []
    for i, qi in enumerate(q):  # contiguous ranges in node order
        owner += [i] * qi
    return owner


class Slots:
    def __init__(self, ids, weights, params, node_slots):
        fn = params.get("function", params.get("slot_function", "hash"))
        if fn == "redis":
            self.S, self.slot = 16384, redis_slot
        else:
            self.S = params.get("count", 1024)
            if not 1 <= self.S <= 2 ** 24:
                raise SpecError("invalid_params")
            self.slot = lambda key: reduce(H(key), self.S)
        if any(s is not None for s in node_slots):  # explicit table: inclusive [first, last]
            owner = [None] * self.S
            for i, ranges in enumerate(node_slots):
                for first, last in ranges or []:
                    for s in range(first, last + 1):
                        if owner[s] is not None:
                            raise SpecError("invalid_slots")
                        owner[s] = i
            self.owner = owner
        else:
            self.owner = even_assignment(self.S, weights)
        self.n_owners = len(set(o for o in self.owner if o is not None))

    def node(self, key):
        o = self.owner[self.slot(key)]
        if o is None:
            raise SpecError("unowned_slot")
        return o

    def candidates(self, key):
        s = self.slot(key)
        walk = (self.owner[(s + t) % self.S] for t in range(self.S))
        return distinct((o for o in walk if o is not None), self.n_owners)


# ---------------------------------------------------------------- multi-probe-v1

class MultiProbe:
    def __init__(self, ids, weights, params):
        if len(set(weights)) != 1:
            raise SpecError("weights_unsupported")
        self.k = params.get("probes", 21)
        if not 1 <= self.k <= 1024:
            raise SpecError("invalid_params")
        self.point_of = [xxh3(E(nid) + le32(0)) for nid in ids]
        self.points = sorted((v, i) for i, v in enumerate(self.point_of))

    def probes(self, key):
        h1, h2 = xxh3s(key, 1), xxh3s(key, 2)
        return [(h1 + t * h2) & MASK64 for t in range(self.k)]

    def node(self, key):
        best = None  # (distance, probe t, node)
        for t, p in enumerate(self.probes(key)):
            succ = next(((v, i) for v, i in self.points if v >= p), self.points[0])
            d = (succ[0] - p) & MASK64
            if best is None or d < best[0]:  # strict: equal distance keeps the earliest probe
                best = (d, t, succ[1])
        return best[2]

    def candidates(self, key):
        ps = self.probes(key)
        rank = []
        for i, v in enumerate(self.point_of):
            ds = [(v - p) & MASK64 for p in ps]
            d = min(ds)
            rank.append((d, ds.index(d), i))  # min distance, earliest probe, node position
        rank.sort()
        return [i for _, _, i in rank]


# ---------------------------------------------------------------- modulo

class Modulo:
    def __init__(self, ids, weights, params):
        if len(set(weights)) != 1:
            raise SpecError("weights_unsupported")
        self.n = len(ids)

    def node(self, key):
        return H(key) % self.n

    def candidates(self, key):
        raise SpecError("replicas_unsupported")


# ---------------------------------------------------------------- router

ALGORITHMS = {
    "ring": Ring, "ring-v1": Ring,
    "jump": Jump, "jump-v1": Jump,
    "rendezvous": Rendezvous, "rendezvous-v1": Rendezvous,
    "maglev": Maglev, "maglev-v1": Maglev,
    "slots": Slots, "slots-v1": Slots,
    "multi-probe": MultiProbe, "multi-probe-v1": MultiProbe,
    "modulo": Modulo,
}


class Router:
    def __init__(self, spec):
        nodes = spec["nodes"]
        if not nodes:
            raise SpecError("empty_topology")
        self.ids = [n["id"].encode("utf-8") for n in nodes]
        weights = [n.get("weight", 1) for n in nodes]  # assumption: absent weight means 1
        if sum(weights) == 0:
            raise SpecError("zero_total_weight")
        self.zones = [n["zone"].encode("utf-8") if n.get("zone") is not None else None for n in nodes]
        algo = spec["algorithm"]
        params = spec.get("params") or {}
        cls = ALGORITHMS[algo]
        if cls is Slots:
            self.impl = Slots(self.ids, weights, params, [n.get("slots") for n in nodes])
        else:
            self.impl = cls(self.ids, weights, params)

    def node(self, key):
        return self.impl.node(key)

    def replicas(self, key, r):
        return replica_rule(self.impl.candidates(key), r, self.zones)
