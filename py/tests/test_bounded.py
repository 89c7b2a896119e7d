"""keyroute.BoundedLoad: placements within capacity, leases released exactly once (explicitly,
by ``with``, or by the garbage collector), hot keys spilling over and coming home, threads."""

from __future__ import annotations

import gc
import math

import keyroute
import pytest
from conftest import run_threads


def ring(n: int) -> keyroute.Router:
    return keyroute.Ring([f"cache-{i}" for i in range(n)])


def test_an_idle_router_serves_every_key_at_home() -> None:
    r = ring(5)
    bounded = keyroute.BoundedLoad(r)
    assert bounded.c == keyroute.DEFAULT_BALANCE_FACTOR == 1.25 and bounded.router is r
    for i in range(1000):
        key = f"user:{i}"
        assert bounded.pick(key) == (r.route(key), 0)
        with bounded.acquire(key.encode()) as lease:
            assert lease.is_home and lease.node == r.route(key) and lease.held
            assert bounded.load(lease.node) == 1 and bounded.total == 1
        assert not lease.held
    assert bounded.total == 0


def test_a_hot_key_spills_over_within_capacity_and_comes_home() -> None:
    bounded = keyroute.BoundedLoad(ring(4), c=1.25)
    home = bounded.router.route("hot")
    leases = [bounded.acquire("hot") for _ in range(100)]
    bound = math.ceil(1.25 * 100 / 4)
    assert all(bounded.load(n) <= bound for n in bounded.router.nodes)
    assert bounded.load(home) == bound
    assert sum(not lease.is_home for lease in leases) == 100 - bound
    assert bounded.capacity(home) == math.ceil(1.25 * 101 / 4)
    for lease in leases:
        assert lease.release() is True and lease.release() is False
    assert bounded.total == 0 and bounded.pick("hot") == (home, 0)


def test_a_forgotten_lease_is_released_when_collected() -> None:
    bounded = keyroute.BoundedLoad(ring(3))
    lease = bounded.acquire("k")
    assert bounded.total == 1 and "held" in repr(lease)
    del lease
    gc.collect()
    assert bounded.total == 0


def test_weights_set_the_capacities() -> None:
    bounded = keyroute.BoundedLoad(keyroute.Rendezvous({"a": 1, "b": 3}), c=1.0)
    leases = [bounded.acquire(str(i)) for i in range(8)]
    assert (bounded.load("a"), bounded.load("b")) == (2, 6)
    del leases


def test_bad_arguments_are_typed_errors() -> None:
    with pytest.raises(keyroute.InvalidParameterError):
        keyroute.BoundedLoad(ring(3), c=0.5)
    with pytest.raises(keyroute.InvalidParameterError):
        keyroute.BoundedLoad(ring(3), c=float("nan"))
    with pytest.raises(keyroute.ReplicasUnsupportedError):
        keyroute.BoundedLoad(keyroute.Jump(3))
    bounded = keyroute.BoundedLoad(ring(3))
    with pytest.raises(keyroute.NodeOutOfRangeError):
        bounded.load("nope")
    with pytest.raises(LookupError):
        bounded.capacity("nope")
    with pytest.raises(keyroute.InvalidTypeError):
        bounded.acquire(42)  # type: ignore[arg-type]
    assert bounded.total == 0


def test_threads_acquire_and_release_at_once() -> None:
    bounded = keyroute.BoundedLoad(ring(8))
    def worker(t: int) -> None:
        held = []
        for i in range(20_000):
            key = f"k{(i * 7 + t) % (4 if i % 2 else 10_000)}"
            held.append(bounded.acquire(key))
            if len(held) > 32:
                held.pop(0).release()
        for lease in held:
            lease.release()

    run_threads(worker)
    assert bounded.total == 0 and all(bounded.load(n) == 0 for n in bounded.router.nodes)
