"""keyroute.pymemcache.RendezvousHash against the real pymemcache (the pinned 4.0.0), live in one
process: 100,000 str keys and 100,000 bytes keys (pymemcache scores a bytes key as the text
``b'k'``) go to the node pymemcache's own RendezvousHash gives them, with seeds, after nodes are
added and removed, and inside HashClient against real memcached servers."""

from __future__ import annotations

from typing import Any, List

import keyroute
import pytest
from keyroute.pymemcache import RendezvousHash
from pymemcache.client.base import Client
from pymemcache.client.hash import HashClient
from pymemcache.client.rendezvous import RendezvousHash as PeerRendezvousHash
from test_uhashring_dropin import bytes_keys, int_keys, str_keys

N_KEYS = 100_000
NODES = [f"10.0.0.{i}:11211" for i in range(1, 6)]


def same_routes(ours: RendezvousHash, theirs: PeerRendezvousHash, keys: List[Any]) -> int:
    want = [theirs.get_node(k) for k in keys]
    got = [ours.get_node(k) for k in keys]
    wrong = [(k, w, g) for k, w, g in zip(keys, want, got) if w != g]
    assert not wrong, f"{len(wrong)} of {len(keys)} keys differ, e.g. {wrong[:3]}"
    return len(keys)


@pytest.mark.parametrize("kind", ["str", "bytes"])
def test_routes_as_pymemcache(kind: str, figure: Any) -> None:
    keys: List[Any] = str_keys(N_KEYS, 10) if kind == "str" else bytes_keys(N_KEYS, 11)
    n = same_routes(RendezvousHash(list(NODES)), PeerRendezvousHash(list(NODES)), keys)
    figure(f"keyroute.pymemcache.RendezvousHash vs pymemcache 4.0.0: {n:,} {kind} keys identical (5 nodes)")


@pytest.mark.parametrize("kind", ["str", "bytes", "int"])
def test_routes_as_pymemcache_with_a_seed_and_changes(kind: str) -> None:
    keys: List[Any] = {"str": str_keys, "bytes": bytes_keys, "int": int_keys}[kind](20_000, 12)
    ours, theirs = RendezvousHash(list(NODES), seed=10), PeerRendezvousHash(list(NODES), seed=10)
    same_routes(ours, theirs, keys)
    for ring in (ours, theirs):
        ring.add_node("10.0.0.9:11211")
        ring.add_node("10.0.0.1:11211")  # present: no change
        ring.remove_node("10.0.0.3:11211")
    assert ours.nodes == theirs.nodes
    same_routes(ours, theirs, keys)
    for ring in (ours, theirs):
        with pytest.raises(ValueError):
            ring.remove_node("10.0.0.3:11211")


def test_the_bytes_key_is_not_its_text() -> None:
    """pymemcache scores b"k" as "b'k'": the drop-in does too, where the Hasher routes bytes as
    they are (so that "k" and b"k" share a node); both are what their users expect."""
    ring = RendezvousHash(list(NODES))
    peer = PeerRendezvousHash(list(NODES))
    keys = [f"user:{i}" for i in range(2000)]
    assert [ring.get_node(k.encode()) for k in keys] == [peer.get_node(k.encode()) for k in keys]
    assert [ring.get_node(k.encode()) for k in keys] == [ring.get_node(repr(k.encode())) for k in keys]
    assert [ring.get_node(k.encode()) for k in keys] != [ring.get_node(k) for k in keys]


def test_edges() -> None:
    assert RendezvousHash().get_node("k") is None and PeerRendezvousHash().get_node("k") is None
    with pytest.raises(keyroute.InvalidParameterError):
        RendezvousHash(list(NODES), hash_function=lambda key, seed: 0)  # type: ignore[arg-type]
    ring = RendezvousHash(["a"])
    assert ring.get_node("") == PeerRendezvousHash(["a"]).get_node("") == "a"
    with pytest.raises(keyroute.InvalidUtf8Error):
        ring.get_node("\ud800")


def test_in_hash_client_with_bytes_keys(memcached: Any) -> None:
    """Written through HashClient with keyroute's RendezvousHash, read back through HashClient
    with pymemcache's own (its default): every bytes key is where pymemcache looks for it."""
    servers = memcached.start(3)
    for server in servers:
        Client(server).flush_all(noreply=False)
    ours = HashClient(servers, hasher=RendezvousHash, default_noreply=False)
    theirs = HashClient(servers, default_noreply=False)
    keys = [f"k{i}".encode() for i in range(2000)]
    assert not ours.set_many({k: k for k in keys})
    assert theirs.get_many(keys) == {k: k for k in keys}
    ours.close()
    theirs.close()
