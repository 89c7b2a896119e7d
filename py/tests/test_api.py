"""Unit tests of the public API: constructors, routing calls, properties, value semantics."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any, Dict, List

import keyroute
import numpy as np
import pytest
from conftest import VECTORS

KEYS = [f"user:{i}" for i in range(2000)] + ["", "été", "日本語", "🦀", "a b\x00c"]


def spec(algorithm: str, nodes: List[Dict[str, Any]], **params: Any) -> Dict[str, Any]:
    return {"algorithm": algorithm, "params": params, "nodes": nodes}


def test_ring_from_keywords_equals_ring_from_spec() -> None:
    ring = keyroute.Ring({"cache-a": 1, "cache-b": 2}, points=160, version=7)
    same = keyroute.Router(
        {
            "algorithm": "ring",
            "params": {"points_per_weight": 160},
            "nodes": [{"id": "cache-a"}, {"id": "cache-b", "weight": 2}],
            "version": 7,
        }
    )
    assert isinstance(ring, keyroute.Ring) and isinstance(ring, keyroute.Router)
    assert ring == same and hash(ring) == hash(same)
    assert ring.fingerprint == same.fingerprint
    assert ring.canonical_json == same.canonical_json
    assert ring.version == 7 and ring.nodes == ("cache-a", "cache-b") and len(ring) == 2
    assert ring.algorithm == "ring"
    assert ring.spec["params"] == {"points_per_weight": 160}
    assert [ring.route(k) for k in KEYS] == [same.route(k) for k in KEYS]


def test_json_text_and_dict_build_the_same_router() -> None:
    doc = spec("maglev", [{"id": "a"}, {"id": "b"}, {"id": "c"}], table_size=251)
    a = keyroute.Router(doc)
    b = keyroute.Router.from_json(json.dumps(doc))
    c = keyroute.Router.from_spec(doc)
    assert a == b == c
    assert type(b) is keyroute.Router
    assert keyroute.Maglev(["a", "b", "c"], table_size=251) == a


def test_default_parameters_come_from_the_bindings() -> None:
    assert keyroute.Ring(["a"]).spec["params"] == {"points_per_weight": 160}
    assert keyroute.Maglev(["a"]).spec["params"] == {"table_size": 65537}
    assert keyroute.Jump(3).spec["params"] == {"key_hash": "xxh3"}
    assert keyroute.Jump(3).nodes == ("0", "1", "2")


@pytest.mark.parametrize(
    "router",
    [
        keyroute.Ring({"a": 1, "b": 2, "c": 1}, points=40),
        keyroute.Maglev(["a", "b", "c"], table_size=251),
        keyroute.Rendezvous({"a": 1, "b": 3, "c": 1}),
        keyroute.Slots(["a", "b", "c"], count=64),
        keyroute.MultiProbe(["a", "b", "c"], probes=5),
        keyroute.Jump(["a", "b", "c"]),
        keyroute.Modulo(["a", "b", "c"]),
    ],
    ids=lambda r: r.algorithm,
)
def test_every_call_agrees_with_route(router: keyroute.Router) -> None:
    owners = [router.route(k) for k in KEYS]
    assert set(owners) == set(router.nodes), "every node owns some keys"
    # str keys route as their UTF-8 bytes; bytearray as bytes.
    assert owners == [router.route(k.encode()) for k in KEYS]
    assert owners == [router.route(bytearray(k.encode())) for k in KEYS]
    assert owners == [router.nodes[router.route_index(k)] for k in KEYS]
    assert router.route_many(KEYS) == owners
    assert router.route_many(tuple(KEYS)) == owners
    assert router.route_many(k.encode() for k in KEYS) == owners
    assert router.route_many([]) == []
    if router.algorithm in ("jump", "modulo"):
        with pytest.raises(keyroute.ReplicasUnsupportedError):
            router.replicas("k", 2)
    else:
        for k in KEYS[:200]:
            reps = router.replicas(k, 3)
            assert reps[0] == router.route(k) and sorted(reps) == ["a", "b", "c"]
        assert router.replicas("k", 0) == []


def test_slot_only_for_slot_tables() -> None:
    slots = keyroute.Slots(["a", "b"], count=16)
    assert all(0 <= slots.slot(k) < 16 for k in KEYS)  # type: ignore[operator]
    assert keyroute.Ring(["a"]).slot("k") is None
    cluster = keyroute.RedisCluster({"n1": [(0, 8191)], "n2": [(8192, 16383)]})
    assert cluster.slot("foo") == 12182 and cluster.route("foo") == "n2"
    assert cluster.slot("{user1000}.following") == cluster.slot("{user1000}.followers")


@pytest.mark.parametrize(
    "router",
    [
        keyroute.Ring(["a", "b", "c"], points=50),
        keyroute.Maglev(["a", "b", "c"], table_size=251),
        keyroute.Jump(["a", "b", "c"]),
        keyroute.Modulo(["a", "b", "c"]),
        keyroute.Libmemcached(["10.0.0.1:11211", "10.0.0.2:11211"], distribution="ketama_weighted"),
    ],
    ids=lambda r: r.algorithm,
)
def test_route_by_hash_matches_route(router: keyroute.Router) -> None:
    hashes = [router.key_hash(k) for k in KEYS]
    owners = [router.route(k) for k in KEYS]
    assert [router.route_hash(h) for h in hashes] == owners
    arr = np.array(hashes, dtype=np.uint64)
    idx = router.route_many(arr)
    assert idx.dtype == np.uint32 and idx.shape == arr.shape
    assert [router.nodes[i] for i in idx] == owners
    # Any shape, any byte order, non-contiguous views.
    assert (router.route_many(arr.reshape(-1, 5)) == idx.reshape(-1, 5)).all()
    assert (router.route_many(arr.astype(">u8")) == idx).all()
    assert (router.route_many(arr[::2]) == idx[::2]).all()
    assert router.route_many(np.array([], dtype=np.uint64)).shape == (0,)


def test_jump_over_integers_routes_the_integer() -> None:
    jump = keyroute.Jump(1000, key_hash="u64be")
    for x in [0, 1, 2**63, 2**64 - 1, 123456789]:
        assert jump.route_hash(x) == jump.route(x.to_bytes(8, "big"))
        assert jump.key_hash(x.to_bytes(8, "big")) == x


@pytest.mark.parametrize(
    "router",
    [keyroute.Rendezvous(["a", "b"]), keyroute.MultiProbe(["a", "b"]), keyroute.Slots(["a", "b"])],
    ids=lambda r: r.algorithm,
)
def test_route_by_hash_is_refused_where_undefined(router: keyroute.Router) -> None:
    with pytest.raises(keyroute.RouteHashUnsupportedError) as e:
        router.route_hash(1)
    assert e.value.code == 21 and isinstance(e.value, ValueError)
    with pytest.raises(keyroute.RouteHashUnsupportedError):
        router.route_many(np.array([1, 2], dtype=np.uint64))
    with pytest.raises(keyroute.RouteHashUnsupportedError):
        router.key_hash("k")


def test_routers_are_immutable_values() -> None:
    ring = keyroute.Ring(["a", "b"])
    with pytest.raises(AttributeError):
        ring.nodes = ("x",)  # type: ignore[misc]
    with pytest.raises(AttributeError):
        ring.extra = 1  # type: ignore[attr-defined]
    assert copy.copy(ring) is ring and copy.deepcopy(ring) is ring
    back = pickle.loads(pickle.dumps(ring))
    assert back == ring and back.route("k") == ring.route("k") and type(back) is keyroute.Ring
    assert ring != keyroute.Ring(["a", "b", "c"]) and ring != "ring"
    assert len({ring, keyroute.Ring(["a", "b"]), keyroute.Ring(["b", "a"])}) == 2
    assert repr(ring).startswith("<keyroute.Ring ring, 2 nodes, version 0, fingerprint ")


def test_node_forms_zones_and_weights() -> None:
    nodes = [{"id": "a", "zone": "z1"}, {"id": "b", "zone": "z1"}, {"id": "c", "zone": "z2", "weight": 2}]
    ring = keyroute.Ring(nodes)
    for k in KEYS[:300]:
        first, second = ring.replicas(k, 2)
        zones = {n["id"]: n["zone"] for n in nodes}
        assert zones[first] != zones[second], "replicas spread over zones first"
    mixed = keyroute.Ring(["a", {"id": "b", "weight": 3}])
    assert mixed.spec["nodes"] == [{"id": "a", "weight": 1}, {"id": "b", "weight": 3}]


def test_libmemcached_from_servers_matches_the_captured_spec() -> None:
    doc = json.loads((VECTORS / "libmemcached-ketama-weighted-8.json").read_text())
    servers = {n["id"]: n["weight"] for n in doc["spec"]["nodes"]}
    lm = keyroute.Libmemcached(servers, distribution="ketama_weighted")
    assert lm == keyroute.Router(doc["spec"])
    for case in doc["cases"]:
        if "key" in case:
            assert lm.route(case["key"]) == case["node"]


@pytest.mark.parametrize(
    "file, build",
    [
        ("libmemcached-ketama-3.json", lambda s: keyroute.Libmemcached(
            [n["id"] for n in s["nodes"]], distribution="ketama", hash="one_at_a_time", weighted=False)),
        ("libmemcached-ketama-spy-3.json", lambda s: keyroute.Libmemcached(
            [n["id"] for n in s["nodes"]], **s["params"])),
        ("uhashring-ketama-3.json", lambda s: keyroute.Uhashring(
            {n["id"]: n["weight"] for n in s["nodes"]}, mode="ketama")),
        ("uhashring-default-5w.json", lambda s: keyroute.Uhashring({n["id"]: n["weight"] for n in s["nodes"]})),
        ("pymemcache-rendezvous-seed10-3.json", lambda s: keyroute.PymemcacheRendezvous(
            [n["id"] for n in s["nodes"]], seed=10)),
        ("jump-u64be-60.json", lambda s: keyroute.Jump([n["id"] for n in s["nodes"]], key_hash="u64be")),
        ("guava-consistenthash-murmur3-5.json", lambda s: keyroute.Guava([n["id"] for n in s["nodes"]])),
        ("guava-consistenthash-u64be-11.json", lambda s: keyroute.Guava(
            [n["id"] for n in s["nodes"]], key_hash="u64be")),
        ("npm-hashring-default-5w.json", lambda s: keyroute.NpmHashring({n["id"]: n["weight"] for n in s["nodes"]})),
        ("python-hash-ring-5w.json", lambda s: keyroute.PythonHashRing({n["id"]: n["weight"] for n in s["nodes"]})),
        ("nginx-5-weighted.json", lambda s: keyroute.Nginx({n["id"]: n["weight"] for n in s["nodes"]})),
        ("twemproxy-md5-3.json", lambda s: keyroute.Twemproxy([n["id"] for n in s["nodes"]], hash="md5")),
        ("spymemcached-ketama-3.json", lambda s: keyroute.Spymemcached([n["id"] for n in s["nodes"]])),
        ("redis-cluster-4-split.json", lambda s: keyroute.RedisCluster(
            {n["id"]: [tuple(r) for r in n["slots"]] for n in s["nodes"]})),
    ],
)
def test_preset_constructors_route_like_their_vectors(file: str, build: Any) -> None:
    doc = json.loads((VECTORS / file).read_text())
    router = build(doc["spec"])
    keys = [bytes.fromhex(c["key_hex"]) if "key_hex" in c else c["key"] for c in doc["cases"] if "node" in c]
    want = [c["node"] for c in doc["cases"] if "node" in c]
    assert router.route_many(keys) == want
    if "name" not in doc["spec"]["nodes"][0]:  # the capture names spymemcached's node keys
        assert router == keyroute.Router(doc["spec"]), "the same canonical spec"


@pytest.mark.parametrize(
    "built, spec",
    [
        # The constructors leave every default to the spec layer, so they cannot drift from it.
        (
            lambda servers: keyroute.Libmemcached(servers, distribution="ketama"),
            {"algorithm": "libmemcached", "params": {"distribution": "ketama"}},
        ),
        (
            lambda servers: keyroute.Libmemcached(servers, distribution="ketama_weighted"),
            {"algorithm": "libmemcached", "params": {"distribution": "ketama_weighted"}},
        ),
        (lambda servers: keyroute.Guava(len(servers)), {"algorithm": "guava"}),
        (lambda servers: keyroute.Twemproxy(servers), {"algorithm": "twemproxy"}),
    ],
)
def test_constructor_defaults_are_the_spec_defaults(built: Any, spec: Dict[str, Any]) -> None:
    servers = ["10.0.0.1:11211", "10.0.0.2:11211", "10.0.0.3:11211"]
    router = built(servers)
    assert router == keyroute.Router({**spec, "nodes": router.spec["nodes"]})
    if spec.get("params", {}).get("distribution") == "ketama":
        # libmemcached's BEHAVIOR_KETAMA keeps its default hash and leaves weighting off.
        assert router.spec["params"] == {"distribution": "ketama", "hash": "one_at_a_time", "weighted": False}
    if spec["algorithm"] == "guava":
        assert router.spec["params"] == {"key_hash": "murmur3_128"}


def test_server_addresses_are_split_by_the_bindings() -> None:
    lm = keyroute.Libmemcached(["10.0.0.1", "10.0.0.2:11212", "[::1]:27500"], distribution="ketama")
    assert [(n["id"], n["host"], n["port"]) for n in lm.spec["nodes"]] == [
        ("10.0.0.1", "10.0.0.1", 11211),
        ("10.0.0.2:11212", "10.0.0.2", 11212),
        ("[::1]:27500", "::1", 27500),
    ]
    with pytest.raises(keyroute.InvalidSpecError):
        keyroute.Libmemcached(["10.0.0.1:port"], distribution="ketama")


def test_shared_router_routes_like_the_current_router() -> None:
    a = keyroute.Ring(["a", "b"], version=1)
    b = keyroute.Ring(["a", "b", "c"], version=2)
    shared = keyroute.SharedRouter(a)
    assert shared.load() == a and shared.route_many(KEYS) == a.route_many(KEYS)
    assert shared.store(b) == a
    assert shared.load() == b and shared.load().version == 2
    assert [shared.route(k) for k in KEYS] == b.route_many(KEYS)
    assert [shared.route_index(k) for k in KEYS] == [b.route_index(k) for k in KEYS]
    assert shared.replicas("k", 3) == b.replicas("k", 3)
    arr = np.array([b.key_hash(k) for k in KEYS], dtype=np.uint64)
    assert (shared.route_many(arr) == b.route_many(arr)).all()
    assert repr(shared).startswith("<keyroute.SharedRouter of <keyroute.Router ring, 3 nodes")


def test_error_classes_are_exported() -> None:
    for cls in keyroute.BY_CODE.values():
        assert getattr(keyroute, cls.__name__) is cls
        assert cls.__module__ == "keyroute"
    assert set(keyroute.__all__) <= set(dir(keyroute))
