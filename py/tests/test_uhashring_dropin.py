"""keyroute.uhashring.HashRing against the real uhashring (the pinned 2.5), live in one process:
for each configuration (both rings, weights, per-node vnodes, weight_fn, replicas, and after
nodes are added and removed) 100,000 str keys, 100,000 bytes keys and 100,000 int keys must go
to the node uhashring gives them, and the node-level API must answer as uhashring's does."""

from __future__ import annotations

import random
from typing import Any, Callable, Dict, List

import keyroute
import pytest
import uhashring
from keygen import text_keys
from keyroute.uhashring import HashRing

N_KEYS = 100_000


def str_keys(n: int, seed: int) -> List[str]:
    """ASCII, BMP (surrogates excluded) and astral text, 0 to 30 characters."""
    return text_keys(n, seed, max_len=30)


def bytes_keys(n: int, seed: int) -> List[bytes]:
    """Any bytes at all (uhashring hashes their repr, b'...', which is always ASCII)."""
    rng = random.Random(seed)
    return [i.to_bytes(4, "big") + bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 24))) for i in range(n)]


def int_keys(n: int, seed: int) -> List[int]:
    rng = random.Random(seed)
    return [rng.randint(-(2**70), 2**70) if i % 2 else i for i in range(n)]


KEYS: Dict[str, Callable[[int, int], List[Any]]] = {"str": str_keys, "bytes": bytes_keys, "int": int_keys}


def same_routes(ours: HashRing, theirs: uhashring.HashRing, kind: str, n: int = N_KEYS, seed: int = 0) -> int:
    keys = KEYS[kind](n, seed)
    want = [theirs.get_node(k) for k in keys]
    got = [ours.get_node(k) for k in keys]
    wrong = [(k, w, g) for k, w, g in zip(keys, want, got) if w != g]
    assert not wrong, f"{len(wrong)} of {n} {kind} keys differ, e.g. {wrong[:3]}"
    return n


def weighted(n: int) -> Dict[str, int]:
    return {f"cache-{i}.example:11211": 1 + i % 4 for i in range(n)}


def per_node(n: int) -> Dict[str, Dict[str, Any]]:
    """Config dicts with per-node weight and vnodes, and an instance, hostname and port."""
    return {
        f"node{i}": {"weight": 1 + i % 3, "vnodes": (40, 57, 160, 7)[i % 4], "instance": f"client-{i}", "port": 11211 + i}
        for i in range(n)
    }


def both(factory: Callable[[Any], Any]) -> Any:
    """The same construction on keyroute's class and on uhashring's."""
    return factory(HashRing), factory(uhashring.HashRing)


CONFIGS: Dict[str, Callable[[Any], Any]] = {
    "default, 10 names as a list": lambda cls: cls(nodes=[f"cache-{i}" for i in range(10)]),
    "default, weights 1-4": lambda cls: cls(nodes=weighted(10)),
    "default, per-node vnodes and weights": lambda cls: cls(nodes=per_node(7)),
    "default, vnodes=50": lambda cls: cls(nodes=weighted(5), vnodes=50),
    "ketama, weights 1-4": lambda cls: cls(nodes=weighted(10), hash_fn="ketama"),
    "ketama, per-node vnodes and weights": lambda cls: cls(nodes=per_node(7), hash_fn="ketama"),
    "ketama, vnodes=160, replicas=3": lambda cls: cls(nodes=weighted(6), hash_fn="ketama", vnodes=160, replicas=3),
    "ketama, one node": lambda cls: cls(nodes="solo", hash_fn="ketama"),
    "default, weight_fn": lambda cls: cls(nodes=per_node(5), weight_fn=lambda **conf: 1 + conf["port"] % 5),
}


@pytest.mark.parametrize("kind", ["str", "bytes", "int"])
@pytest.mark.parametrize("config", list(CONFIGS))
def test_routes_as_uhashring(config: str, kind: str, figure: Any) -> None:
    ours, theirs = both(CONFIGS[config])
    n = same_routes(ours, theirs, kind)
    if kind == "str" and config == "default, 10 names as a list":
        figure(f"keyroute.uhashring vs uhashring 2.5: {len(CONFIGS)} configurations x {n:,} keys of each of str, bytes, int identical")


def changes(ring: Any) -> None:
    """Adds, re-weights and removes nodes, as a fleet does."""
    ring.add_node("new-1")
    ring.add_node("new-2", {"weight": 3, "vnodes": 20})
    ring["new-3"] = 2
    ring.remove_node("cache-2.example:11211")
    del ring["cache-5.example:11211"]
    ring.add_node("cache-7.example:11211", {"weight": 5})  # a new weight for a present node


@pytest.mark.parametrize("kind", ["str", "bytes", "int"])
@pytest.mark.parametrize("mode", ["default", "ketama"])
def test_routes_as_uhashring_after_changes(mode: str, kind: str) -> None:
    ours, theirs = both(lambda cls: cls(nodes=weighted(8), **({"hash_fn": "ketama"} if mode == "ketama" else {})))
    changes(ours)
    changes(theirs)
    assert list(ours.get_nodes()) == list(theirs.get_nodes())
    same_routes(ours, theirs, kind, seed=1)
    # Back to nothing and up again.
    for name in list(theirs.get_nodes()):
        ours.remove_node(name)
        theirs.remove_node(name)
    assert ours.get_node("k") is None and theirs.get_node("k") is None
    ours.add_node("only", {"weight": 2})
    theirs.add_node("only", {"weight": 2})
    same_routes(ours, theirs, kind, n=1000, seed=2)


@pytest.mark.parametrize("mode", ["default", "ketama"])
def test_node_api_answers_as_uhashring(mode: str) -> None:
    kwargs = {"hash_fn": "ketama"} if mode == "ketama" else {}
    ours, theirs = both(lambda cls: cls(nodes=per_node(6), **kwargs))
    keys: List[Any] = str_keys(5000, 3) + bytes_keys(2000, 4) + int_keys(2000, 5)
    for k in keys:
        assert ours.get(k) == theirs.get(k)
        assert ours[k] == theirs[k] == ours.get_node_instance(k)
        assert ours.get_node_hostname(k) == theirs.get_node_hostname(k)
        assert ours.get_node_port(k) == theirs.get_node_port(k)
        assert ours.get_node_weight(k) == theirs.get_node_weight(k)
    for k in keys[:3000]:
        assert list(ours.range(k)) == list(theirs.range(k))
        assert list(ours.range(k, 2)) == list(theirs.range(k, 2))
        assert list(ours.range(k, size=100)) == list(theirs.range(k, size=100))
        assert list(ours.iterate_nodes(k)) == list(theirs.iterate_nodes(k))
    assert ours.conf == theirs.conf and ours.nodes == theirs.nodes
    assert list(ours.get_nodes()) == list(theirs.get_nodes())
    assert ours.get_instances() == theirs.get_instances()
    assert ours.distribution == theirs.distribution
    assert ours.size == theirs.size


def test_changes_that_move_no_key_keep_the_router() -> None:
    ring = HashRing(nodes={"a": 1, "b": 1})
    router = ring.router
    ring.add_node("a", {"instance": "client-a", "port": 1})
    assert ring.router is router and ring.conf["a"]["instance"] == "client-a"
    assert ring["user:1"] in (None, "client-a")


def test_empty_rings() -> None:
    for ring in (HashRing(), uhashring.HashRing()):
        assert ring.get_node("k") is None and ring.get("k") is None and ring["k"] is None
        assert list(ring.iterate_nodes("k")) == [None] and list(ring.range("k")) == []
        assert ring.size == 0
    ours, theirs = both(lambda cls: cls(nodes={"a": 0, "b": 1}))
    same_routes(ours, theirs, "str", n=2000)
    assert ours.distribution == theirs.distribution


def test_what_keyroute_refuses() -> None:
    with pytest.raises(keyroute.InvalidParameterError):
        HashRing(nodes=["a"], hash_fn=lambda key: 0)
    with pytest.raises(keyroute.InvalidTypeError):
        HashRing(nodes=["a"], weight_fn=3)
    with pytest.raises(ValueError) as e:
        HashRing(nodes=("a", "b"))  # uhashring refuses a tuple too
    assert isinstance(e.value, keyroute.InvalidParameterError)
    with pytest.raises(ValueError):
        HashRing(nodes={"a": "heavy"})
    ring = HashRing(nodes=["a", "b"])
    with pytest.raises(KeyError):
        ring.remove_node("c")
    with pytest.raises(keyroute.InvalidParameterError):
        list(ring.range("k", unique=False))
    with pytest.raises(keyroute.InvalidTypeError):
        ring.add_node("c", {"weight": 1.5})
    assert list(ring.get_nodes()) == ["a", "b"], "a refused change leaves the ring as it was"
    with pytest.raises(keyroute.ZeroTotalWeightError):
        HashRing(nodes={"a": 0}, hash_fn="ketama")
    with pytest.raises(keyroute.InvalidUtf8Error):
        ring.get_node("\ud800")


@pytest.mark.parametrize("mode", ["default", "ketama"])
def test_range_and_iterate_nodes_are_lazy_generators_as_in_uhashring(mode: str) -> None:
    """A generator made before a change and first read after it walks the changed ring, as
    uhashring's does; one read before the change keeps going on the ring it started on."""
    import types

    kwargs = {"hash_fn": "ketama"} if mode == "ketama" else {}
    ours, theirs = both(lambda cls: cls(nodes=["a", "b", "c"], **kwargs))
    keys = str_keys(300, 11)
    pending = [(ring.range(k), ring.range(k, 2), ring.iterate_nodes(k)) for ring in (ours, theirs) for k in keys]
    for g in pending[0]:
        assert isinstance(g, types.GeneratorType)
    for ring in (ours, theirs):
        ring.add_node("d", {"weight": 3})
        ring.remove_node("a")
    half = len(pending) // 2
    for (o_all, o_two, o_names), (t_all, t_two, t_names) in zip(pending[:half], pending[half:]):
        assert list(o_all) == list(t_all)
        assert list(o_two) == list(t_two)
        assert list(o_names) == list(t_names)
    # Made after the change, the same answers; and nothing names the removed node.
    assert all("a" not in list(ours.iterate_nodes(k)) for k in keys)
    # An empty ring's iterate_nodes is lazy too: made empty, read after a node is added.
    empty_ours, empty_theirs = HashRing(**kwargs), uhashring.HashRing(**kwargs)
    gens = [(empty_ours.iterate_nodes("k"), empty_ours.range("k")), (empty_theirs.iterate_nodes("k"), empty_theirs.range("k"))]
    empty_ours.add_node("x")
    empty_theirs.add_node("x")
    assert [list(g) for g in gens[0]] == [list(g) for g in gens[1]] == [["x"], [empty_ours.conf["x"]]]


def test_point_level_helpers_are_refused_with_invalid_parameter() -> None:
    ring = HashRing(nodes=["a", "b"])
    calls = {
        "hashi": lambda: ring.hashi("k"),
        "get_key": lambda: ring.get_key("k"),
        "get_node_pos": lambda: ring.get_node_pos("k"),
        "get_points": lambda: ring.get_points(),
        "get_server": lambda: ring.get_server("k"),
        "print_continuum": lambda: ring.print_continuum(),
        "ring": lambda: ring.ring,
        "continuum": lambda: ring.continuum,
    }
    for name, call in calls.items():
        assert hasattr(uhashring.HashRing(nodes=["a"]), name), f"uhashring 2.5 has {name}"
        with pytest.raises(keyroute.InvalidParameterError, match=f"HashRing.{name} is not supported"):
            call()
    # The refusal comes at the call, not when the generator is first read.
    with pytest.raises(keyroute.InvalidParameterError):
        ring.range("k", unique=False)
    with pytest.raises(keyroute.InvalidParameterError):
        ring.iterate_nodes("k", distinct=False)
