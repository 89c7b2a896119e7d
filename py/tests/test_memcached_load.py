"""Hot keys on real memcached servers: a Zipf(1.1) get workload routed by the plain ring, by
read spreading over 3 replicas and by bounded loads, measured by the servers' own ``stats``.
The longer run is ``make bench-memcached`` (memcached_load.py as a script)."""

from __future__ import annotations

from typing import Any

from memcached_load import table, workload


def test_spreading_and_bounded_loads_relieve_the_hottest_server(memcached: Any, figure: Any) -> None:
    servers = memcached.start(4)
    plain, spread, bounded = workload(servers, keys=20_000, requests=20_000, threads=8)
    figure("memcached, Zipf(1.1), 4 servers, 20,000 gets (hottest server's share of gets, from stats):")
    for line in table([plain, spread, bounded]).splitlines():
        figure("  " + line)
    # Every get reached a server, and the servers counted them all.
    for o in (plain, spread, bounded):
        assert sum(o.gets.values()) == 20_000, o
    # The hottest key alone is ~11% of gets, so its owner takes far more than a fair 25%.
    assert plain.hottest_share > 0.32, table([plain])
    assert spread.hottest_share < plain.hottest_share - 0.03, table([plain, spread])
    assert bounded.hottest_share < plain.hottest_share - 0.03, table([plain, bounded])
    # Spreading copies hot keys to more servers: a few more misses, never a collapse.
    assert spread.hit_rate > plain.hit_rate - 0.05, table([plain, spread])
