"""keyroute.HotKeys: the hottest keys found in fixed memory, estimates never below the truth,
decay, typed errors, threads."""

from __future__ import annotations

from collections import Counter

import keyroute
import pytest
from conftest import run_threads
from keyroute import _native


def test_the_hottest_keys_lead_and_estimates_bound_the_truth() -> None:
    hot = keyroute.HotKeys(width=4096, capacity=256)
    exact: Counter[str] = Counter()
    for i in range(50_000):
        key = f"hot-{i % 5}" if i % 2 == 0 else f"user:{i}"
        exact[key] += 1
        assert hot.observe(key) >= exact[key]
    assert hot.total == 50_000
    assert {k for k, _ in hot.top(5)} == {f"hot-{j}".encode() for j in range(5)}
    assert all(hot.heat(k) >= c for k, c in exact.items() if c > 1)
    assert hot.is_hot("hot-0", count=5000) and hot.is_hot(b"hot-0", share=0.1)
    assert not hot.is_hot("user:1", share=0.01)
    assert 0 < hot.memory_bytes < 200_000


def test_decay_halves_every_count() -> None:
    hot = keyroute.HotKeys()
    for _ in range(1000):
        hot.observe("k")
    hot.decay()
    assert (hot.heat("k"), hot.total, hot.top(1)) == (500, 500, [(b"k", 500)])


def test_bad_arguments_are_typed_errors() -> None:
    with pytest.raises(keyroute.InvalidParameterError):
        keyroute.HotKeys(capacity=0)
    with pytest.raises(keyroute.InvalidParameterError):
        keyroute.HotKeys(shards=0)
    with pytest.raises(keyroute.InvalidParameterError):
        keyroute.HotKeys(width=1 << 30)
    hot = keyroute.HotKeys()
    with pytest.raises(keyroute.InvalidParameterError):
        hot.is_hot("k")
    with pytest.raises(keyroute.InvalidParameterError):
        hot.is_hot("k", count=1, share=0.5)
    with pytest.raises(keyroute.InvalidTypeError):
        hot.observe(42)  # type: ignore[arg-type]


def test_threads_observe_at_once() -> None:
    hot = keyroute.HotKeys()
    def worker(t: int) -> None:
        for i in range(20_000):
            hot.observe("hot" if i % 4 == 0 else f"{t}:{i}")

    run_threads(worker)
    assert hot.total == 80_000 and hot.top(1) == [(b"hot", 20_000)]


def test_reads_spread_over_replicas_and_split_keys() -> None:
    ring = keyroute.Ring([f"cache-{i}" for i in range(10)])
    first3 = ring.replicas("hot", 3)
    assert ring.spread("hot", 1) == ring.route("hot")
    assert {ring.spread("hot", 3, client=f"web-{i}") for i in range(50)} == set(first3)
    assert {ring.spread("hot", 3) for _ in range(200)} == set(first3)  # random: every copy
    assert all(ring.spread("hot", 3, client="web-1") == ring.spread("hot", 3, client=b"web-1") for _ in range(5))
    with pytest.raises(keyroute.InvalidParameterError):
        ring.spread("hot", 0)
    with pytest.raises(keyroute.ReplicasExceedNodesError):
        ring.spread("hot", 11)
    with pytest.raises(keyroute.ReplicasUnsupportedError):
        keyroute.Jump(3).spread("hot", 2)
    assert keyroute.split_keys("hot", 3) == [b"hot#1", b"hot#2", b"hot#3"]
    assert keyroute.split_key(b"hot", 3, client="web-1") in keyroute.split_keys("hot", 3)
    with pytest.raises(keyroute.InvalidParameterError):
        keyroute.split_keys("hot", 0)


def test_the_client_selector_is_the_cores_on_every_surface() -> None:
    # XXH3-64 of the client id's bytes (the core's `spread::client_selector`): the empty id's
    # value is XXH3's published one, so a C or JS reader with the same id reads the same copy.
    empty = 0x2D06800538D394C2
    ring = keyroute.Ring([f"cache-{i}" for i in range(10)])
    assert ring.spread("hot", 3, client="") == ring.replicas("hot", 3)[empty % 3]
    assert keyroute.split_key("hot", 7, client=b"") == b"hot#" + str(empty % 7 + 1).encode()
    assert keyroute.split_keys("é", 1) == ["é#1".encode()]
    with pytest.raises(keyroute.InvalidParameterError):
        keyroute.split_key("hot", 0, client="web-1")


@pytest.mark.parametrize("shards", [1, 8, _native.HOT_KEYS_MAX_SHARDS])
def test_limits_bound_the_whole_detector(shards: int) -> None:
    # The core's limits hold for the detector as a whole (as in C), not for each shard's part.
    with pytest.raises(keyroute.InvalidParameterError):
        keyroute.HotKeys(width=_native.HOT_KEYS_MAX_WIDTH + 1, shards=shards)
    with pytest.raises(keyroute.InvalidParameterError):
        keyroute.HotKeys(capacity=_native.HOT_KEYS_MAX_CAPACITY + 1, shards=shards)
    assert keyroute.HotKeys(width=_native.HOT_KEYS_MAX_WIDTH, capacity=1024, shards=shards).total == 0


@pytest.mark.parametrize("name", ["width", "capacity", "shards"])
def test_sizes_out_of_range_or_of_the_wrong_type_are_typed(name: str) -> None:
    for bad in (-1, 1 << 64):
        with pytest.raises(keyroute.InvalidParameterError):
            keyroute.HotKeys(**{name: bad})
    for wrong in (1.5, "8", None):
        with pytest.raises(keyroute.InvalidTypeError):
            keyroute.HotKeys(**{name: wrong})  # type: ignore[arg-type]
    hot = keyroute.HotKeys()
    with pytest.raises(keyroute.InvalidParameterError):
        hot.top(-1)
    with pytest.raises(keyroute.InvalidTypeError):
        hot.top(1.5)  # type: ignore[arg-type]


def test_defaults_are_the_bindings_constants() -> None:
    assert (
        _native.HOT_KEYS_DEFAULT_WIDTH,
        _native.HOT_KEYS_DEFAULT_CAPACITY,
        _native.HOT_KEYS_DEFAULT_SHARDS,
    ) == (16_384, 1024, 8)
    assert keyroute.DEFAULT_BALANCE_FACTOR == _native.DEFAULT_BALANCE_FACTOR == 1.25
