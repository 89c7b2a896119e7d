"""keyroute.pymemcache.Hasher in pymemcache's HashClient, against real memcached servers started
by the test on 127.0.0.1: write 10,000 keys through 3 servers, add a 4th, read them back.
keyroute's ring keeps about 3/4 of the cache; `hash mod n` loses about 3/4."""

from __future__ import annotations

from typing import Any, Callable, List, Tuple

import keyroute
import pytest
from keyroute.pymemcache import Hasher
from pymemcache.client.base import Client
from pymemcache.client.hash import HashClient
from pymemcache.client.rendezvous import RendezvousHash

N_KEYS = 10_000


def hit_rate_after_adding_a_server(servers: List[Tuple[str, int]], hasher: Callable[[], Any]) -> Tuple[float, float]:
    """(hit rate before, hit rate after) adding servers[3] to a client of servers[:3]."""
    for host, port in servers:
        Client((host, port)).flush_all(noreply=False)
    client = HashClient(servers[:3], hasher=hasher, default_noreply=False)
    keys = [f"user:{i}" for i in range(N_KEYS)]
    failed = client.set_many({k: b"v" for k in keys})
    assert not failed, f"{len(failed)} writes failed"
    before = len(client.get_many(keys)) / N_KEYS
    client.add_server(*servers[3])
    after = len(client.get_many(keys)) / N_KEYS
    client.close()
    return before, after


def test_ring_keeps_the_cache_when_a_server_joins(memcached: Any, figure: Any) -> None:
    servers = memcached.start(4)
    ring_before, ring = hit_rate_after_adding_a_server(servers, Hasher)
    mod_before, modulo = hit_rate_after_adding_a_server(servers, Hasher.factory("modulo"))
    pm_before, pymemcache = hit_rate_after_adding_a_server(servers, RendezvousHash)
    assert ring_before == mod_before == pm_before == 1.0, "every key is there before the change"
    figure(
        f"memcached hit rate after 3 -> 4 servers ({N_KEYS:,} keys): keyroute ring {ring:.1%}, "
        f"modulo {modulo:.1%} (pymemcache's own RendezvousHash {pymemcache:.1%})"
    )
    assert ring >= 0.70, f"the ring kept only {ring:.1%}"
    assert modulo < 0.40, f"modulo kept {modulo:.1%}: it should lose most keys"


def test_keyroute_rendezvous_places_keys_where_pymemcache_does(memcached: Any) -> None:
    servers = memcached.start(3)
    names = [f"{host}:{port}" for host, port in servers]
    ours = HashClient(servers, hasher=Hasher.factory("pymemcache-rendezvous"), default_noreply=False)
    theirs = HashClient(servers, default_noreply=False)
    keys = [f"k{i}" for i in range(2000)]
    assert not ours.set_many({k: k.encode() for k in keys})
    # Each key is where pymemcache's default hasher looks for it.
    assert theirs.get_many(keys) == {k: k.encode() for k in keys}
    direct = {n: Client(s) for n, s in zip(names, servers)}
    for k in keys[:200]:
        assert direct[RendezvousHash(names).get_node(k)].get(k) == k.encode()
    ours.close()
    theirs.close()


def test_hasher_protocol() -> None:
    hasher = Hasher()
    assert hasher.get_node("k") is None and hasher.router is None
    for node in ["a:1", "b:1", "c:1", "a:1"]:
        hasher.add_node(node)
    assert hasher.nodes == ["a:1", "b:1", "c:1"]
    ring = keyroute.Ring(["a:1", "b:1", "c:1"])
    assert hasher.router == ring
    keys = [f"k{i}" for i in range(1000)]
    assert [hasher.get_node(k) for k in keys] == ring.route_many(keys)
    assert [hasher.get_node(k.encode()) for k in keys] == ring.route_many(keys), "str and bytes agree"
    hasher.remove_node("b:1")
    assert hasher.nodes == ["a:1", "c:1"] and hasher.router == keyroute.Ring(["a:1", "c:1"])
    with pytest.raises(ValueError):
        hasher.remove_node("b:1")
    hasher.remove_node("a:1")
    hasher.remove_node("c:1")
    assert hasher.get_node("k") is None


def test_hasher_options() -> None:
    weighted = Hasher.factory("ring", {"points_per_weight": 40}, {"big:1": 3})()
    weighted.add_node("big:1")
    weighted.add_node("small:1")
    assert weighted.router == keyroute.Ring({"big:1": 3, "small:1": 1}, points=40)
    bad = Hasher("no-such-algorithm")
    with pytest.raises(keyroute.UnknownAlgorithmError):
        bad.add_node("a:1")
    assert bad.nodes == [] and bad.get_node("k") is None, "a failed change leaves the hasher as it was"


#: The presets built from servers, with parameters, and the constructor that must agree.
SERVER_PRESETS = [
    ("spymemcached", {}, lambda s: keyroute.Spymemcached(s)),
    ("spymemcached", {"hash": "fnv1a_32", "format": "libmemcached"}, lambda s: keyroute.Spymemcached(s, hash="fnv1a_32", format="libmemcached")),
    ("libmemcached", {"distribution": "ketama"}, lambda s: keyroute.Libmemcached(s, distribution="ketama")),
    ("libmemcached", {"distribution": "ketama_weighted"}, lambda s: keyroute.Libmemcached(s, distribution="ketama_weighted")),
    ("twemproxy", {}, lambda s: keyroute.Twemproxy(s)),
]


@pytest.mark.parametrize(("algorithm", "params", "constructor"), SERVER_PRESETS)
def test_hasher_takes_hashclient_server_names(algorithm: str, params: Any, constructor: Any) -> None:
    # HashClient's names for ("127.0.0.1", 21211) and friends, IPv6 bracketed and as HashClient
    # writes it ("::1:11213"), a host name.
    names = ["127.0.0.1:21211", "10.0.0.2:11211", "[::1]:11212", "::1:11213", "cache-e.example:11214"]
    hasher = Hasher.factory(algorithm, params)()
    for n in names:
        hasher.add_node(n)
    assert hasher.nodes == names
    same = constructor(["127.0.0.1:21211", "10.0.0.2:11211", "[::1]:11212", "[::1]:11213", "cache-e.example:11214"])
    keys = [f"user:{i}" for i in range(3000)]
    bracketed = {"::1:11213": "[::1]:11213"}
    assert [bracketed.get(n, n) for n in map(hasher.get_node, keys)] == same.route_many(keys)
    assert hasher.router is not None and hasher.router.fingerprint != 0
    hasher.remove_node("10.0.0.2:11211")
    assert "10.0.0.2:11211" not in {hasher.get_node(k) for k in keys}


@pytest.mark.parametrize("name", ["a:b:c", "host:", ":11211", "h:99999", "[::1", "[::1]11211", "h:port"])
def test_hasher_refuses_names_that_are_no_address(name: str) -> None:
    hasher = Hasher.factory("spymemcached")()
    hasher.add_node("127.0.0.1:21211")
    with pytest.raises(keyroute.InvalidSpecError):
        hasher.add_node(name)
    assert hasher.nodes == ["127.0.0.1:21211"], "a refused name leaves the hasher as it was"
    # A ring takes any name: its nodes have ids only.
    ring = Hasher()
    ring.add_node(name)
    assert ring.get_node("k") == name
