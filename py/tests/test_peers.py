"""Live cross-checks against the peers installed from PyPI (pinned in pyproject's `test` extra):
keyroute's presets must give the node the peer gives, for every one of 100,000 random keys."""

from __future__ import annotations

from typing import Any, Callable, Dict, List

import jump
import keyroute
import numpy as np
import pytest
from keygen import text_keys
from pymemcache.client.rendezvous import RendezvousHash
from uhashring import HashRing

N_KEYS = 100_000


def random_keys(n: int, seed: int) -> List[str]:
    """ASCII, BMP (surrogates excluded) and astral text, 0 to 40 characters."""
    return text_keys(n, seed, max_len=40)


def compare(peer: Callable[[str], Any], router: keyroute.Router, keys: List[str]) -> int:
    want = [peer(k) for k in keys]
    got = router.route_many(keys)
    mismatches = [(k, w, g) for k, w, g in zip(keys, want, got) if w != g]
    assert not mismatches, f"{len(mismatches)} of {len(keys)} keys differ, e.g. {mismatches[:3]}"
    # The one-key path too, on a slice.
    assert [router.route(k) for k in keys[:10_000]] == want[:10_000]
    return len(keys)


WEIGHTS: Dict[str, int] = {f"cache-{i}.example:11211": 1 + i % 4 for i in range(10)}


@pytest.mark.parametrize("mode", ["ketama", "default"])
def test_uhashring(mode: str, figure: Any) -> None:
    keys = random_keys(N_KEYS, seed=1 if mode == "ketama" else 2)
    if mode == "ketama":
        peer = HashRing(nodes=dict(WEIGHTS), hash_fn="ketama")
    else:
        peer = HashRing(nodes=dict(WEIGHTS))
    n = compare(peer.get_node, keyroute.Uhashring(WEIGHTS, mode=mode), keys)
    equal = {name: 1 for name in WEIGHTS}
    peer_equal = HashRing(nodes=dict(equal), hash_fn="ketama") if mode == "ketama" else HashRing(nodes=dict(equal))
    n += compare(peer_equal.get_node, keyroute.Uhashring(equal, mode=mode), keys[:20_000])
    figure(f"uhashring 2.5 {mode} mode: {n:,} keys identical (10 nodes weighted 1-4, then equal)")


def test_pymemcache_rendezvous(figure: Any) -> None:
    nodes = [f"10.0.0.{i}:11211" for i in range(1, 6)]
    keys = random_keys(N_KEYS, seed=3)
    n = compare(RendezvousHash(nodes=list(nodes)).get_node, keyroute.PymemcacheRendezvous(nodes), keys)
    seeded = RendezvousHash(nodes=list(nodes), seed=10)
    n += compare(seeded.get_node, keyroute.PymemcacheRendezvous(nodes, seed=10), keys[:10_000])
    figure(f"pymemcache 4.0.0 RendezvousHash: {n:,} keys identical (5 nodes; seed 0, then seed 10)")


@pytest.mark.parametrize("buckets", [1, 3, 10, 1000, 65536])
def test_jump_consistent_hash(buckets: int, figure: Any) -> None:
    rng = np.random.default_rng(buckets)
    hashes = rng.integers(0, 2**64, size=N_KEYS, dtype=np.uint64)
    hashes[:4] = [0, 1, 2**63, 2**64 - 1]
    want = np.array([jump.hash(int(h), buckets) for h in hashes], dtype=np.uint32)
    router = keyroute.Jump(buckets, key_hash="u64be", limits={"max_nodes": max(buckets, 16384)})
    got = router.route_many(hashes)  # numpy path: the integers as key hashes
    assert (got == want).all(), f"{int((got != want).sum())} of {N_KEYS} differ"
    keys = [int(h).to_bytes(8, "big") for h in hashes[:10_000]]
    assert router.route_many(keys) == [str(b) for b in want[:10_000]]  # 8-byte big-endian keys
    assert [router.route_hash(int(h)) for h in hashes[:10_000]] == [str(b) for b in want[:10_000]]
    figure(f"jump-consistent-hash 3.6.0, {buckets} buckets: {N_KEYS:,} u64 keys identical")
