"""keyroute's Python binding against uhashring 2.5, side by side in one run.

    py/bench.sh                 # installs what it needs, then runs this
    python py/bench.py --quick  # fewer keys and runs (a smoke test, not figures)

Both routers place 160 points per node (keyroute's native ring-v1; uhashring's default ring).
Per-call figures time a plain `for k in keys: route(k)` loop, so both include the same loop
overhead (shown as "loop + len(k)"). Every figure is the median of several runs; CPU time.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import threading
import time
from typing import Any, Callable, Dict, List

import keyroute

try:
    from uhashring import HashRing
except ImportError as e:  # pragma: no cover
    raise SystemExit("uhashring is needed: pip install './py[test]'") from e


def make_keys(n: int, seed: int = 7) -> List[str]:
    """Distinct 11-byte keys like "user:123456", in random order, made (and so laid out in
    memory) in list order, as keys a program has just built are."""
    numbers = list(range(n))
    random.Random(seed).shuffle(numbers)
    return [f"user:{i:06d}" for i in numbers]


def cpu_ns(fn: Callable[[], Any]) -> int:
    gc.collect()
    gc.disable()
    try:
        start = time.process_time_ns()
        fn()
        return time.process_time_ns() - start
    finally:
        gc.enable()


def per_call(route: Callable[[str], Any], keys: List[str], runs: int) -> float:
    """Median ns per call of `route` over `keys`."""

    def loop() -> None:
        for k in keys:
            route(k)

    return statistics.median(cpu_ns(loop) / len(keys) for _ in range(runs))


def per_key_batch(route_many: Callable[[Any], Any], keys: Any, runs: int) -> float:
    return statistics.median(cpu_ns(lambda: route_many(keys)) / len(keys) for _ in range(runs))


def wall_ns(fn: Callable[[], Any]) -> int:
    start = time.perf_counter_ns()
    fn()
    return time.perf_counter_ns() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smoke run: fewer keys and runs")
    parser.add_argument("--runs", type=int, default=None, help="runs per figure (median taken)")
    args = parser.parse_args()
    runs = args.runs or (2 if args.quick else 7)
    n_batch = 100_000 if args.quick else 1_000_000
    n_fast, n_slow = (20_000, 2_000) if args.quick else (300_000, 30_000)
    keys = make_keys(n_batch)

    print(f"keyroute {keyroute.__version__} vs uhashring 2.5; 160 points per node; median of {runs} runs (CPU time)")
    loop = per_call(len, keys[:n_fast], runs)
    print(f"loop + len(k) (Python's cheapest call): {loop:.1f} ns")
    print()
    header = f"{'N':>5} | {'uhashring get_node':>18} | {'keyroute route':>14} | {'ratio':>6} | " \
             f"{'route_many /key':>15} | {'ratio':>6} | {'numpy hashes /key':>17}"
    print(header)
    print("-" * len(header))
    results: Dict[int, Dict[str, float]] = {}
    for n in (10, 100, 1000):
        nodes = [f"cache-{i:04d}.example:11211" for i in range(n)]
        ring = keyroute.Ring(nodes, points=160)
        peer = HashRing(nodes=list(nodes))
        sample = keys[:1000]
        assert len(set(peer.get_node(k) for k in sample)) > 1 and len(set(ring.route_many(sample))) > 1
        peer_ns = per_call(peer.get_node, keys[:n_slow], runs)
        route_ns = per_call(ring.route, keys[:n_fast], runs)
        many_ns = per_key_batch(ring.route_many, keys, runs)
        numpy_ns = float("nan")
        try:
            import numpy as np

            hashes = np.array([ring.key_hash(k) for k in keys[:n_fast]], dtype=np.uint64)
            hashes = np.resize(hashes, n_batch)
            numpy_ns = per_key_batch(ring.route_many, hashes, runs)
        except ImportError:  # pragma: no cover
            pass
        results[n] = {"peer": peer_ns, "route": route_ns, "many": many_ns, "numpy": numpy_ns}
        print(
            f"{n:>5} | {peer_ns:>15.0f} ns | {route_ns:>11.1f} ns | {peer_ns / route_ns:>5.1f}x | "
            f"{many_ns:>12.1f} ns | {peer_ns / many_ns:>5.0f}x | {numpy_ns:>14.1f} ns"
        )

    # Batches release the GIL: two threads routing at once against the same work in one thread.
    ring = keyroute.Ring([f"cache-{i:04d}" for i in range(1000)], points=160)
    half = [keys[: n_batch // 2], keys[n_batch // 2 :]]
    one = statistics.median(wall_ns(lambda: [ring.route_many(h) for h in half]) for _ in range(runs))

    def two() -> None:
        threads = [threading.Thread(target=ring.route_many, args=(h,)) for h in half]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    both = statistics.median(wall_ns(two) for _ in range(runs))
    print()
    print(f"route_many in 2 threads at once: {both / 1e6:.1f} ms vs {one / 1e6:.1f} ms in 1 thread "
          f"for {n_batch:,} keys (wall time, {one / both:.2f}x; routing runs without the GIL, "
          f"so two threads overlap when a second core is idle)")

    # A route through a live view (the view in effect, loaded lock-free per call) against the
    # same ring as a plain router, alternating so both see the same machine.
    nodes = [f"cache-{i:04d}" for i in range(1000)]
    plain = keyroute.Ring(nodes, points=160)
    view = keyroute.LiveView()
    view.publish(json.dumps({"version": 1, "spec": {"algorithm": "ring", "params": {"points_per_weight": 160},
                                                    "nodes": [{"id": n} for n in nodes]}}))
    assert all(view.route(k) == plain.route(k) for k in keys[:1000])
    pairs = [(per_call(plain.route, keys[:n_fast], 1), per_call(view.route, keys[:n_fast], 1)) for _ in range(runs)]
    plain_ns = statistics.median(p for p, _ in pairs)
    view_ns = statistics.median(v for _, v in pairs)
    print()
    print(f"LiveView.route: {view_ns:.1f} ns vs Router.route {plain_ns:.1f} ns at N=1000 "
          f"({view_ns / plain_ns:.2f}x; goal <= 1.1x: {'met' if view_ns / plain_ns <= 1.1 else 'NOT met'})")

    r = results[1000]
    print()
    print("Goals at N=1000:")
    print(f"  route(str) >= 15x uhashring get_node: {r['peer'] / r['route']:.1f}x "
          f"({'met' if r['peer'] / r['route'] >= 15 else 'NOT met'})")
    print(f"  route_many <= 25 ns/key: {r['many']:.1f} ns ({'met' if r['many'] <= 25 else 'NOT met'}; "
          f"{r['peer'] / r['many']:.0f}x uhashring)")


if __name__ == "__main__":
    main()
