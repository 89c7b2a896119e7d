"""Typed use of the public API: mypy --strict must accept this file and infer these types."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import keyroute
import numpy as np
import numpy.typing as npt
from keyroute.pymemcache import Hasher
from typing_extensions import assert_type

ring = keyroute.Ring({"cache-a": 1, "cache-b": 2}, points=160)
assert_type(ring, keyroute.Ring)
assert_type(ring.route("user:42"), str)
assert_type(ring.route(b"user:42"), str)
assert_type(ring.route_index(bytearray(b"k")), int)
assert_type(ring.replicas("k", 2), List[str])
assert_type(ring.route_many(["a", b"b"]), List[str])
assert_type(ring.route_many(np.zeros(3, dtype=np.uint64)), npt.NDArray[np.uint32])
assert_type(ring.route_hash(ring.key_hash("k")), str)
assert_type(ring.slot("k"), Optional[int])
assert_type(ring.nodes, Tuple[str, ...])
assert_type(ring.fingerprint, int)
assert_type(ring.version, int)
assert_type(ring.canonical_json, str)
assert_type(ring.spec, Dict[str, Any])

spec: keyroute.Spec = {"algorithm": "maglev", "nodes": [{"id": "a", "zone": "z1"}], "params": {"table_size": 7}}
assert_type(keyroute.Router(spec), keyroute.Router)
assert_type(keyroute.Router.from_json("{}"), keyroute.Router)
assert_type(keyroute.Jump(10, key_hash="u64be"), keyroute.Jump)
assert_type(keyroute.Libmemcached({"10.0.0.1:11211": 2}, distribution="ketama_spy"), keyroute.Libmemcached)
assert_type(keyroute.Uhashring(["a", "b"], mode="ketama"), keyroute.Uhashring)
assert_type(keyroute.RedisCluster({"n1": [(0, 16383)]}), keyroute.RedisCluster)

shared = keyroute.SharedRouter(ring)
assert_type(shared.load(), keyroute.Router)
assert_type(shared.store(keyroute.Maglev(["a"])), keyroute.Router)
assert_type(shared.route("k"), str)
assert_type(shared.route_many(["k"]), List[str])

try:
    ring.route("k")
except keyroute.Error as e:
    assert_type(e.code, int)
    assert_type(e.name, str)
except keyroute.InvalidUtf8Error:
    pass

hasher = Hasher.factory("ring")()
assert_type(hasher.get_node("k"), Optional[str])

own = ring.ownership()
assert_type(own, keyroute.Ownership)
assert_type(own.shares, Dict[str, float])
assert_type(own.balance.cv, float)
d = keyroute.diff(ring, keyroute.Ring(["cache-a", "cache-b", "cache-c"]))
assert_type(d.moved, float)
assert_type(d.flows[0].source, str)
assert_type(d.moved_arcs, Tuple[keyroute.MovedArc, ...])
t = keyroute.Transition(ring, keyroute.Ring(["cache-a"]), 0.5)
assert_type(t.route("k"), str)
assert_type(t.route_with_fallback("k"), Tuple[str, Optional[str]])
assert_type(t.with_progress(1.0), keyroute.Transition)
assert_type(t.source, keyroute.Router)
assert_type(t.route_many(["k"]), List[str])

limits: keyroute.Limits = {"max_nodes": 100_000}
assert_type(keyroute.Jump(100_000, limits=limits), keyroute.Jump)
assert_type(keyroute.Maglev(["a"], table_size=13, limits={"max_table_entries": 13}), keyroute.Maglev)
assert_type(keyroute.Router('{"algorithm": "jump", "nodes": [{"id": "a"}]}', limits=keyroute.LIMITS_CEILING), keyroute.Router)
assert_type(keyroute.Router.from_json(ring.canonical_json, limits={"max_spec_bytes": 1024}), keyroute.Router)
assert_type(keyroute.LIMITS["max_nodes"], int)

# the drop-ins and the conformance runner
uh = keyroute.uhashring.HashRing(nodes={"a": 1, "b": {"weight": 2, "instance": "client-b"}}, hash_fn="ketama")
assert_type(uh.get_node("k"), Any)
assert_type(uh.get(b"k"), Optional[Dict[str, Any]])
assert_type(list(uh.range(42, 2)), List[Dict[str, Any]])
assert_type(uh.router, Optional[keyroute.Router])
rv = keyroute.pymemcache.RendezvousHash(["a:1", "b:1"], seed=10)
assert_type(rv.get_node(b"k"), Any)
assert_type(rv.nodes, List[Any])
report = keyroute.conformance.run(keyroute.conformance.vector_files()[:1])
assert_type(report.ok, bool)
assert_type(report.files[0].cases[0].outcome, str)
assert_type(keyroute.conformance.main(["--list"]), int)
