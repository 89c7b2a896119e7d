"""A Zipf(1.1) get workload on real memcached servers, routed three ways: the plain ring, hot
keys spread over 3 replicas, and bounded loads (c = 1.25). The figure is the hottest server's
share of gets, read from each server's own ``stats`` (``cmd_get``), with its hit rate
(``get_hits``); nothing is counted on the client side.

The test suite runs a short version (``test_memcached_load.py``); ``make bench-memcached`` runs
this file as a script for the longer figures::

    build/py-venv/bin/python py/tests/memcached_load.py --requests 400000 --threads 16

Model: ``threads`` clients share one request list (Zipf ranks drawn with a seeded generator
over ``keys`` keys), each with its own connection per server. A get that misses is a
read-through fill: the client sets the key on the server it read from. With spreading, a
detector (``keyroute.HotKeys``) marks a key hot once it makes 0.1% of recent gets; a hot get
goes to one of the key's first 3 replicas at random (``Router.spread``). With bounded loads,
each get holds a lease on its server while it runs (``BoundedLoad.acquire``).
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import random
import sys
import threading
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import keyroute
from pymemcache.client.base import Client

#: A key is hot once it makes this share of the detector's recent gets.
HOT_SHARE = 0.001
#: Replicas a hot key's gets are spread over.
SPREAD = 3
#: The balance factor of the bounded-load run.
BALANCE = 1.25


@dataclass
class Outcome:
    """What the servers' own counters said about one run."""

    label: str
    gets: Dict[str, int]
    hits: Dict[str, int]

    @property
    def hottest_share(self) -> float:
        return max(self.gets.values()) / max(1, sum(self.gets.values()))

    @property
    def hit_rate(self) -> float:
        return sum(self.hits.values()) / max(1, sum(self.gets.values()))


def zipf_ranks(keys: int, requests: int, s: float, seed: int) -> List[int]:
    """``requests`` ranks in 1..keys, rank r drawn with probability ∝ r^-s (inverse CDF)."""
    cumulative = list(itertools.accumulate(r**-s for r in range(1, keys + 1)))
    total = cumulative[-1]
    rng = random.Random(seed)
    return [min(keys, bisect.bisect_left(cumulative, rng.random() * total) + 1) for _ in range(requests)]


def _stats(server: Tuple[str, int]) -> Dict[bytes, int]:
    client = Client(server)
    try:
        raw = client.stats()
    finally:
        client.close()
    return {k: int(v) for k, v in raw.items() if isinstance(v, int) or str(v).isdigit()}


def _reset(servers: Sequence[Tuple[str, int]]) -> None:
    for server in servers:
        client = Client(server, default_noreply=False)
        try:
            client.flush_all(noreply=False)
            client.raw_command(b"stats reset", b"RESET")
        finally:
            client.close()


def run(
    servers: Sequence[Tuple[str, int]],
    label: str,
    ranks: Sequence[int],
    threads: int,
    spread: bool = False,
    bounded: bool = False,
) -> Outcome:
    """Replays ``ranks`` as gets of ``key:{rank}`` through ``threads`` clients, routed by a
    ring over ``servers``; returns the servers' counters for this run."""
    names = [f"{host}:{port}" for host, port in servers]
    address = dict(zip(names, servers))
    ring = keyroute.Ring(names)
    detector = keyroute.HotKeys() if spread else None
    balancer = keyroute.BoundedLoad(ring, c=BALANCE) if bounded else None
    _reset(servers)
    next_request = itertools.count()
    lock = threading.Lock()

    def place(key: str) -> Tuple[str, Optional[Callable[[], bool]]]:
        """The server for one get, and the release of its lease (bounded loads)."""
        if balancer is not None:
            lease = balancer.acquire(key)
            return lease.node, lease.release
        if detector is not None:
            detector.observe(key)
            if detector.is_hot(key, share=HOT_SHARE):
                return ring.spread(key, SPREAD), None
        return ring.route(key), None

    def worker(_: int) -> None:
        clients = {name: Client(address[name], default_noreply=False) for name in names}
        try:
            while True:
                with lock:
                    i = next(next_request)
                if i >= len(ranks):
                    return
                key = f"key:{ranks[i]}"
                node, release = place(key)
                try:
                    if clients[node].get(key) is None:
                        clients[node].set(key, b"v" * 32)
                finally:
                    if release is not None:
                        release()
        finally:
            for c in clients.values():
                c.close()

    errors: List[BaseException] = []

    def guarded(t: int) -> None:
        try:
            worker(t)
        except BaseException as e:  # re-raised by the caller below
            errors.append(e)

    pool = [threading.Thread(target=guarded, args=(t,)) for t in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    if errors:
        raise errors[0]
    stats = {name: _stats(address[name]) for name in names}
    return Outcome(
        label,
        gets={n: s.get(b"cmd_get", 0) for n, s in stats.items()},
        hits={n: s.get(b"get_hits", 0) for n, s in stats.items()},
    )


def workload(servers: Sequence[Tuple[str, int]], keys: int, requests: int, threads: int, seed: int = 1) -> List[Outcome]:
    """The three runs over the same requests."""
    ranks = zipf_ranks(keys, requests, 1.1, seed)
    return [
        run(servers, "plain ring", ranks, threads),
        run(servers, f"hot-spread {SPREAD}", ranks, threads, spread=True),
        run(servers, f"bounded {BALANCE}", ranks, threads, bounded=True),
    ]


def table(outcomes: Sequence[Outcome]) -> str:
    lines = [f"{'':<16} {'hottest server':>15} {'hit rate':>9}   gets per server (from stats)"]
    for o in outcomes:
        per = " ".join(f"{g:,}" for g in o.gets.values())
        lines.append(f"{o.label:<16} {o.hottest_share:>15.1%} {o.hit_rate:>9.1%}   {per}")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=400_000)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
    from conftest import Memcached  # the test suite's server manager: 127.0.0.1, stopped at exit

    servers = Memcached()
    try:
        addresses = servers.start(4)
        outcomes = workload(addresses, args.keys, args.requests, args.threads, args.seed)
    finally:
        servers.stop_all()
    print(
        f"4 memcached servers on 127.0.0.1, Zipf(1.1) gets over {args.keys:,} keys, "
        f"{args.requests:,} requests, {args.threads} client threads (fair share 25.0%)"
    )
    print(table(outcomes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
