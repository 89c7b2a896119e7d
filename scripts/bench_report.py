#!/usr/bin/env python3
"""Prints criterion's medians from one `make bench` run as ratios to the floor F.

F is one-shot xxh3_64 of the key alone, measured in the same run at the same N (so a busy
machine slows F and the routers alike). Usage: bench_report.py CRITERION_DIR [BENCH_STDOUT]
"""
import json
import os
import sys


def median_ns(root, group, name, param):
    path = os.path.join(root, group, name, str(param), "new", "estimates.json")
    try:
        with open(path) as f:
            return json.load(f)["median"]["point_estimate"]
    except FileNotFoundError:
        return None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"
    sizes = [10, 100, 1000, 10000]
    algos = ["ring-v1", "bounded-ring-pick", "bounded-ring", "hashring-0.3", "jump", "maglev", "slots", "multi-probe", "modulo", "rendezvous"]
    floors = {n: median_ns(root, "route", "floor-xxh3", n) for n in sizes}
    print("route(): median ns per lookup, and ×F (F = xxh3_64 of the key, same run, same N)")
    print(f"{'':14}" + "".join(f"{'N=' + str(n):>22}" for n in sizes))
    print(f"{'F (floor)':14}" + "".join(f"{(f'{floors[n]:.2f} ns') if floors[n] else '-':>22}" for n in sizes))
    for a in algos:
        cells = []
        for n in sizes:
            t, f = median_ns(root, "route", a, n), floors[n]
            cells.append(f"{t:8.2f} ns {t / f:6.1f}×F" if t and f else "-")
        print(f"{a:14}" + "".join(f"{c:>22}" for c in cells))
    ring, peer = median_ns(root, "route", "ring-v1", 1000), median_ns(root, "route", "hashring-0.3", 1000)
    if ring and peer:
        print(f"\nring-v1 vs hashring 0.3 at N=1000 × 160: {peer / ring:.1f}× faster")

    print("\nbatch (1024 keys into a caller's buffer): median ns per key, ×F of the same run")
    for n in [10, 1000, 10000]:
        t, fb, f = median_ns(root, "batch", "ring-v1", n), median_ns(root, "batch", "floor-xxh3", n), floors.get(n)
        if t:
            per_key = t / 1024
            extra = f", {per_key / (fb / 1024):.1f}× the batch floor" if fb else ""
            print(f"  ring-v1 N={n:<6} {per_key:6.2f} ns/key = {per_key / f:4.1f}×F{extra}" if f else f"  N={n} {per_key:.2f}")

    print("\nbuild: median ms")
    for n in [1000, 10000]:
        row = []
        for a in ["ring-v1", "hashring-0.3", "maglev", "maglev-skewed"]:
            t = median_ns(root, "build", a, n)
            row.append(f"{a} {t / 1e6:8.2f} ms" if t else f"{a} -")
        print(f"  N={n:<6} " + "   ".join(row))

    if len(sys.argv) > 2:
        print("\nmemory (counting allocator):")
        with open(sys.argv[2]) as f:
            for line in f:
                if line.startswith("memory "):
                    print("  " + line[len("memory "):].rstrip())


if __name__ == "__main__":
    main()
