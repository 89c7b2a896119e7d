"""Thread safety: many threads route (one key at a time and in batches, which release the GIL)
while another thread swaps the topology under them through a SharedRouter."""

from __future__ import annotations

import sys
import threading
import time
from typing import List

import keyroute
import numpy as np

KEYS = [f"session:{i}" for i in range(5000)]


def test_readers_see_whole_routers_while_a_writer_swaps() -> None:
    views = [keyroute.Ring([f"cache-{i}" for i in range(n)], version=n) for n in (3, 4, 5)]
    answers = [r.route_many(KEYS) for r in views]
    hashes = np.array([views[0].key_hash(k) for k in KEYS], dtype=np.uint64)
    hash_answers = [r.route_many(hashes) for r in views]
    shared = keyroute.SharedRouter(views[0])
    stop = threading.Event()
    errors: List[BaseException] = []
    counts = {"single": 0, "batch": 0}

    def single() -> None:
        try:
            while not stop.is_set():
                for i in range(0, len(KEYS), 97):
                    node = shared.route(KEYS[i])
                    assert any(node == a[i] for a in answers), node
                    counts["single"] += 1
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    def batch() -> None:
        try:
            while not stop.is_set():
                got = shared.route_many(KEYS)
                # One batch is routed by one router throughout: it equals one view exactly.
                assert any(got == a for a in answers)
                idx = shared.route_many(hashes)
                assert any((idx == a).all() for a in hash_answers)
                counts["batch"] += 1
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=single) for _ in range(4)] + [threading.Thread(target=batch) for _ in range(4)]
    for t in threads:
        t.start()
    try:
        for swap in range(300):
            old = shared.store(views[(swap + 1) % 3])
            assert old in views
            while counts["batch"] < swap // 10 and not errors:  # let the readers keep up
                threading.Event().wait(0.001)
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert not errors, errors[0]
    assert counts["single"] > 0 and counts["batch"] > 0


def test_one_router_shared_by_many_threads() -> None:
    ring = keyroute.Maglev([f"n{i}" for i in range(50)], table_size=4099)
    want = ring.route_many(KEYS)
    results: List[List[str]] = []
    lock = threading.Lock()

    def work() -> None:
        for _ in range(20):
            got = ring.route_many(KEYS)
            single = [ring.route(k) for k in KEYS[:500]]
            with lock:
                results.append(got)
                results.append(single + want[500:])

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 8 * 20 * 2
    assert all(r == want for r in results)


def test_routing_a_list_another_thread_mutates() -> None:
    """Keys are copied before the GIL is released, so mutating the list cannot corrupt a batch."""
    ring = keyroute.Ring(["a", "b", "c"])
    keys: List[object] = list(KEYS)
    stop = threading.Event()

    def mutate() -> None:
        i = 0
        while not stop.is_set():
            keys[i % len(keys)] = f"other:{i}"
            i += 1

    t = threading.Thread(target=mutate)
    t.start()
    try:
        for _ in range(50):
            got = ring.route_many(keys)  # type: ignore[arg-type]
            assert len(got) == len(KEYS) and set(got) <= {"a", "b", "c"}
    finally:
        stop.set()
        t.join()


def test_batches_release_the_gil() -> None:
    """Another Python thread runs while route_many routes: with a huge switch interval the
    interpreter never takes the GIL from the caller, so the other thread can only advance when
    the batch gives the GIL up (no timing is asserted, only that it advanced)."""
    ring = keyroute.Ring([f"n{i}" for i in range(100)])
    keys = [f"k{i}" for i in range(200_000)]
    hashes = np.arange(200_000, dtype=np.uint64)
    counter = [0]
    stop = threading.Event()

    def other() -> None:
        while not stop.is_set():
            counter[0] += 1
            time.sleep(0)  # gives the GIL back at once after each step

    old = sys.getswitchinterval()
    sys.setswitchinterval(100.0)
    t = threading.Thread(target=other)
    t.start()
    try:
        for batch in (keys, hashes):
            advanced = False
            for _ in range(50):
                before = counter[0]
                ring.route_many(batch)
                if counter[0] != before:
                    advanced = True
                    break
            assert advanced, f"no other thread ran during route_many({type(batch).__name__})"
    finally:
        stop.set()
        sys.setswitchinterval(old)
        t.join()
