"""Thread safety: many threads route (one key at a time and in batches, which release the GIL)
while another thread swaps the topology under them through a SharedRouter."""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

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


def _rss() -> Optional[int]:
    """This process's resident set in bytes (Linux), or None."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


#: Keys the stress readers route (a batch is all of them).
STRESS_KEYS = [f"user:{i}" for i in range(64)]
#: RSS growth allowed after warm-up, over the whole run.
RSS_BOUND = 8 * 2**20


class Views:
    """Routers a writer stores (topology ``t`` of ``len(self)``), with every answer precomputed,
    so a reader can tell which topologies an answer could have come from."""

    def __init__(self, routers: Sequence[keyroute.Router]) -> None:
        self.routers = list(routers)
        self.route: List[Any] = [[r.route(k) for k in STRESS_KEYS] for r in routers]
        self.index: List[Any] = [[r.route_index(k) for k in STRESS_KEYS] for r in routers]
        self.replicas: List[Any] = [[r.replicas(k, 2) for k in STRESS_KEYS] for r in routers]
        self.batch: List[Any] = [r.route_many(STRESS_KEYS) for r in routers]
        # Each topology's batch answer is its own: a batch names the one router that routed it.
        assert len({tuple(b) for b in self.batch}) == len(routers)

    def __len__(self) -> int:
        return len(self.routers)


def stress(
    shared: keyroute.SharedRouter,
    views: Views,
    swaps: int,
    store: Callable[[int], None],
    version_of: Callable[[int], int],
    monotone: bool,
    readers: int = 4,
) -> Dict[str, Any]:
    """``readers`` threads route through ``shared`` (route, route_index, replicas, route_many and
    load, in turn) while this thread calls ``store(s)`` for s = 1..swaps, which stores a router
    of topology ``s % len(views)`` and version ``version_of(s)`` (step 0 is the router
    ``shared`` starts with).

    Each reader notes the last step announced before and after each call; the router the call
    used was current at some step in [before, after + 1] (a store is announced after it is
    made, so step after + 1 may be in place unannounced). Whatever the call answered must be
    the answer of one of those steps' topologies, a loaded router's version one of theirs, and,
    when versions are stored increasing, the versions one reader loads never decrease.
    Returns the figures of the run."""
    step = [0]
    n = len(views)
    done = threading.Event()
    errors: List[BaseException] = []
    counts = [[0, 0] for _ in range(readers)]  # per reader: checked calls, calls spanning a swap

    def window(before: int, after: int) -> range:
        return range(before, min(after + 1, swaps) + 1)

    def reader(r: int) -> None:
        try:
            i = r
            last_version = -1
            while not done.is_set():
                k = i % len(STRESS_KEYS)
                op = i % 5
                before = step[0]
                if op == 0:
                    got: Any = shared.route(STRESS_KEYS[k])
                elif op == 1:
                    got = shared.route_index(STRESS_KEYS[k])
                elif op == 2:
                    got = shared.replicas(STRESS_KEYS[k], 2)
                elif op == 3:
                    got = shared.route_many(STRESS_KEYS)
                else:
                    got = shared.load().version
                after = step[0]
                steps = window(before, after)
                if op == 4:
                    assert got in {version_of(s) for s in steps}, (got, before, after)
                    assert not monotone or got >= last_version, (got, last_version)
                    last_version = got
                else:
                    answers = [views.route, views.index, views.replicas, views.batch][op]
                    want = [answers[s % n] if op == 3 else answers[s % n][k] for s in steps]
                    assert got in want, (op, k, got, before, after)
                counts[r][0] += 1
                counts[r][1] += after != before
                i += 1
        except BaseException as e:  # reported by the main thread
            errors.append(e)
            done.set()

    threads = [threading.Thread(target=reader, args=(r,)) for r in range(readers)]
    for t in threads:
        t.start()
    rss_warm: Optional[int] = None
    start = time.perf_counter()
    try:
        for s in range(1, swaps + 1):
            store(s)
            step[0] = s
            if s == swaps // 10:
                rss_warm = _rss()
            if errors:
                break
    finally:
        seconds = time.perf_counter() - start
        rss_end = _rss()
        done.set()
        for t in threads:
            t.join()
    assert not errors, errors[0]
    reads = sum(c[0] for c in counts)
    assert all(c[0] > 0 for c in counts), f"a reader never ran: {counts}"
    growth = None if rss_warm is None or rss_end is None else rss_end - rss_warm
    if growth is not None:
        assert growth < RSS_BOUND, f"RSS grew by {growth} bytes after warm-up"
    return {
        "swaps": swaps,
        "reads": reads,
        "spanning": sum(c[1] for c in counts),
        "seconds": seconds,
        "rss_growth": growth,
    }


def _figures(name: str, f: Dict[str, Any]) -> str:
    growth = "n/a" if f["rss_growth"] is None else f"{f['rss_growth'] / 2**20:+.2f} MiB"
    return (
        f"{name}: {f['swaps']} swaps, {f['reads']} checked reads by 4 threads ({f['spanning']} "
        f"spanning a swap) in {f['seconds']:.1f} s, RSS after warm-up {growth}"
    )


def test_swap_stress_100k_swaps_among_prebuilt_views(figure: Any) -> None:
    """100,000 swaps among four prebuilt routers (versions 1-4, four algorithms: a router's
    answers mixed with another's would show) while four threads route."""
    routers: List[keyroute.Router] = [
        keyroute.Ring([f"cache-{i}" for i in range(3)], version=1),
        keyroute.Maglev([f"cache-{i}" for i in range(4)], table_size=257, version=2),
        keyroute.Rendezvous([f"cache-{i}" for i in range(5)], version=3),
        keyroute.MultiProbe([f"cache-{i}" for i in range(6)], version=4),
    ]
    views = Views(routers)
    shared = keyroute.SharedRouter(routers[0])

    def store(s: int) -> None:
        old = shared.store(routers[s % 4])
        assert old.version == routers[(s - 1) % 4].version  # only this thread stores

    f = stress(shared, views, 100_000, store, lambda s: routers[s % 4].version, monotone=False)
    figure(_figures("swap stress (prebuilt views)", f))


def test_swap_stress_fresh_routers_with_increasing_versions(figure: Any) -> None:
    """Every swap stores a router built just then, with version = step: each reader's loaded
    versions never decrease, every answer is one of a current view, and the routers replaced
    are freed (the resident set stays flat)."""
    texts = [
        json.dumps({"algorithm": "ring", "nodes": [{"id": f"cache-{i}"} for i in range(n)], "params": {"points_per_weight": 40}})
        for n in (3, 4, 5, 6)
    ]
    views = Views([keyroute.Router(t) for t in texts])
    shared = keyroute.SharedRouter(views.routers[0])

    def store(s: int) -> None:
        shared.store(keyroute.Router(texts[s % 4][:-1] + f', "version": {s}}}'))

    # Fewer swaps than the prebuilt test: each builds a router while holding the GIL the four
    # readers wait on, so a swap costs a switch interval (5 ms), not the build's few µs.
    f = stress(shared, views, 2_000, store, lambda s: s, monotone=True)
    figure(_figures("swap stress (a new router every swap, versions increasing)", f))
