"""Ownership, diff and transitions through the Python API, checked against routing itself."""

from __future__ import annotations

import doctest
import importlib
from collections import Counter
from typing import List

import keyroute
import pytest

KEYS = [f"user:{i}" for i in range(20_000)]


def shares_by_routing(router: keyroute.Router, keys: List[str]) -> Counter[str]:
    return Counter(router.route_many(keys))


@pytest.mark.parametrize(
    "router, method",
    [
        (keyroute.Ring({"a": 1, "b": 2, "c": 1}, points=40), "exact"),
        (keyroute.Maglev({"a": 1, "b": 2, "c": 1}, table_size=4099), "exact"),
        (keyroute.Slots(["a", "b", "c"], count=64), "exact"),
        (keyroute.RedisCluster({"n1": [(0, 99)], "n2": [(100, 16383)]}), "slot_share"),
        (keyroute.Jump(["a", "b", "c"]), "expected"),
        (keyroute.Rendezvous({"a": 1, "b": 3}), "expected"),
        (keyroute.MultiProbe(["a", "b", "c"]), "sampled"),
    ],
    ids=lambda x: x.algorithm if isinstance(x, keyroute.Router) else x,
)
def test_ownership_matches_routed_keys(router: keyroute.Router, method: str) -> None:
    own = router.ownership()
    assert own.method == method
    assert list(own.shares) == list(router.nodes)
    assert sum(own.shares.values()) == pytest.approx(1.0)
    assert (own.sample_keys is not None) == (method == "sampled")
    routed = shares_by_routing(router, KEYS)
    for node, share in own.shares.items():
        assert routed[node] / len(KEYS) == pytest.approx(share, abs=0.02), node
    assert own.balance.min_over_mean <= 1 <= own.balance.max_over_mean and own.balance.cv >= 0


@pytest.mark.parametrize(
    "a, b",
    [
        (keyroute.Ring(["a", "b", "c"]), keyroute.Ring(["a", "b", "c", "d"])),
        (keyroute.Ring(["a", "b", "c", "d"]), keyroute.Ring(["a", "c", "d"])),
        (keyroute.Maglev(["a", "b", "c"], table_size=4099), keyroute.Maglev(["a", "b", "c", "d"], table_size=4099)),
        (keyroute.Modulo(["a", "b", "c"]), keyroute.Modulo(["a", "b", "c", "d"])),
        (keyroute.Jump(["a", "b", "c"]), keyroute.Jump(["a", "b", "c", "d"])),
        (keyroute.Ring(["a", "b"]), keyroute.Maglev(["a", "b"])),
    ],
    ids=lambda r: r.algorithm,
)
def test_diff_matches_routed_keys(a: keyroute.Router, b: keyroute.Router) -> None:
    d = keyroute.diff(a, b)
    before, after = a.route_many(KEYS), b.route_many(KEYS)
    moved = sum(x != y for x, y in zip(before, after)) / len(KEYS)
    assert d.moved == pytest.approx(moved, abs=0.02)
    assert sum(f.share for f in d.flows) == pytest.approx(1.0)
    assert sum(f.share for f in d.flows if f.source != f.target) == pytest.approx(d.moved)
    flows = Counter(zip(before, after))
    for f in d.flows:
        assert flows[(f.source, f.target)] / len(KEYS) == pytest.approx(f.share, abs=0.02)
    if d.method == "exact":
        assert d.moved_arcs and all(arc.source != arc.target for arc in d.moved_arcs)
        # A key whose hash falls in a moved arc changes owner as the arc says.
        arc_of = {arc.start: arc for arc in d.moved_arcs}
        for key in KEYS[:2000]:
            h = a.key_hash(key)
            hits = [arc for arc in arc_of.values() if arc.start <= h <= arc.end]
            if hits:
                assert (a.route(key), b.route(key)) == (hits[0].source, hits[0].target)
    assert keyroute.diff(a, a).moved == 0


def test_modulo_loses_most_keys_and_the_ring_a_quarter() -> None:
    three, four = ["a", "b", "c"], ["a", "b", "c", "d"]
    assert keyroute.diff(keyroute.Modulo(three), keyroute.Modulo(four)).moved == pytest.approx(0.75)
    assert keyroute.diff(keyroute.Ring(three), keyroute.Ring(four)).moved == pytest.approx(0.25, abs=0.05)


def test_transition_moves_keys_monotonically() -> None:
    a = keyroute.Ring(["a", "b", "c"], version=1)
    b = keyroute.Ring(["a", "b", "c", "d"], version=2)
    keys = KEYS[:5000]
    assert keyroute.Transition(a, b, 0.0).route_many(keys) == a.route_many(keys), "0 is A exactly"
    assert keyroute.Transition(a, b, 1.0).route_many(keys) == b.route_many(keys), "1 is B exactly"
    moved_before: set = set()
    for p in [0.1, 0.25, 0.5, 0.75, 0.9]:
        t = keyroute.Transition(a, b, p)
        assert t.progress == p and t.source is a and t.target is b
        now = {k for k, x, y in zip(keys, t.route_many(keys), b.route_many(keys)) if x == y and a.route(k) != y}
        assert moved_before <= now, "raising progress only moves more keys"
        moved_before = now
        for k in keys[:500]:
            owner, previous = t.route_with_fallback(k)
            assert owner == t.route(k) and owner in (a.route(k), b.route(k))
            if previous is not None:
                assert (previous, owner) == (a.route(k), b.route(k)) and t.has_cut_over(k)
    half = keyroute.Transition(a, b, 0.5)
    assert half.with_progress(0.0).route_many(keys) == a.route_many(keys)
    assert set(half.nodes) == {"a", "b", "c", "d"} and len(half) == 4
    assert '"progress":0.5' in half.describe_json() and f"{b.fingerprint:016x}" in half.describe_json()
    assert repr(half).startswith("<keyroute.Transition 50% from version 1")


@pytest.mark.parametrize("p", [-0.1, 1.5, float("nan")])
def test_transition_progress_outside_0_1(p: float) -> None:
    a, b = keyroute.Ring(["a"]), keyroute.Ring(["a", "b"])
    with pytest.raises(keyroute.InvalidParameterError):
        keyroute.Transition(a, b, p)
    with pytest.raises(keyroute.InvalidParameterError):
        keyroute.Transition(a, b, 0.5).with_progress(p)


def test_transition_errors() -> None:
    t = keyroute.Transition(keyroute.Ring(["a"]), keyroute.Ring(["a", "b"]), 0.5)
    with pytest.raises(keyroute.InvalidTypeError):
        t.route(1)  # type: ignore[arg-type]
    with pytest.raises(keyroute.InvalidUtf8Error):
        t.route_many(["ok", "\ud800"])
    with pytest.raises(TypeError):
        keyroute.Transition("a", "b", 0.5)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "module",
    ["keyroute", "keyroute._router", "keyroute._analysis", "keyroute._bounded", "keyroute._hotkeys"],
)
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
