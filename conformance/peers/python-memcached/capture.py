#!/usr/bin/env python3
"""Capture python-memcached server selection by running the real PyPI `python-memcached`.

Run via capture.sh (installs the pinned version into conformance/peers/.work/). Writes
conformance/vectors/v1/python-memcached-*.json. Deterministic.

Each key goes through the client's own `Client._get_server(key)`, the function every command
uses to pick its server. The client picks by position in its bucket list only (never by address),
so each configured server is a listening socket on 127.0.0.1 in the order of the spec's nodes;
a dead server is one the client has marked dead itself (`_Host.mark_dead`, what a failed connect
does), with a dead_retry long enough to outlast the capture. A key for which the client finds no
live server in its 10 tries is recorded as refused (`invalid_key`).
"""
import os
import platform
import socket
import sys
from importlib.metadata import version as dist_version

import memcache

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = os.path.dirname(HERE)
sys.path.insert(0, PEERS)
import vecio  # noqa: E402

OUT = os.path.join(os.path.dirname(PEERS), "vectors", "v1")
CAPTURED_BY = "conformance/peers/python-memcached/capture.sh"
VERSION = dist_version("python-memcached")
PY = "CPython %s" % platform.python_version()
INVALID_KEY = 16


def listeners(n):
    socks = []
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind(("127.0.0.1", 0))
        s.listen(64)
        socks.append(s)
    return socks


def capture(file_id, description, weights, dead, keys):
    ids = ["10.0.%d.%d:11211" % (i // 250, i % 250 + 1) for i in range(len(weights))]
    socks = listeners(len(weights))
    try:
        addrs = ["127.0.0.1:%d" % s.getsockname()[1] for s in socks]
        client = memcache.Client([(a, w) for a, w in zip(addrs, weights)], dead_retry=3600, socket_timeout=5)
        assert len(client.buckets) == sum(weights), file_id
        for i in dead:
            client.servers[i].mark_dead("marked dead by the capture")
        by_addr = {"127.0.0.1:%d" % s.getsockname()[1]: node_id for s, node_id in zip(socks, ids)}
        cases = []
        for b, cid in keys:
            server, _ = client._get_server(b)
            case = {"id": cid}
            case.update(vecio.key_field(b))
            if server is None:
                case.update({"error": "invalid_key", "code": INVALID_KEY})
            else:
                case["node"] = by_addr["%s:%d" % (server.ip, server.port)]
            cases.append(case)
        client.disconnect_all()
    finally:
        for s in socks:
            s.close()
    nodes = []
    for node_id, w in zip(ids, weights):
        node = {"id": node_id}
        if w != 1:
            node["weight"] = w
        nodes.append(node)
    spec = {"algorithm": "python-memcached", "params": {"dead": ",".join(ids[i] for i in dead)}, "nodes": nodes}
    doc = {
        "id": file_id,
        "description": "python-memcached %s Client(servers), %s; each key's server from Client._get_server "
        "(the servers were local listeners in this order). Captured on %s." % (VERSION, description, PY),
        "provenance": {"kind": "peer", "peer": "python-memcached", "version": VERSION, "captured_by": CAPTURED_BY},
        "spec": spec,
        "cases": cases,
    }
    vecio.write_vector(os.path.join(OUT, file_id + ".json"), doc)
    refused = sum(1 for c in cases if "error" in c)
    print("%-40s %4d cases, %d without a live server" % (file_id + ".json", len(cases), refused))


def main():
    keys = vecio.load_keys(os.path.join(PEERS, "keys.json"))
    # Upstream's hash of a known key, as a guard that the module is the one described.
    if memcache.cmemcache_hash(b"foo") != 3187:
        sys.exit("unexpected cmemcache_hash(b'foo'): %d" % memcache.cmemcache_hash(b"foo"))
    configs = [
        ("python-memcached-1", "1 server", [1], []),
        ("python-memcached-3", "3 servers, weight 1", [1, 1, 1], []),
        ("python-memcached-4", "the 3 servers plus a fourth (scale-out)", [1, 1, 1, 1], []),
        ("python-memcached-60", "60 servers, weight 1", [1] * 60, []),
        ("python-memcached-5w", "5 servers with weights 1,2,3,5,8 (buckets repeated per unit of weight)",
         [1, 2, 3, 5, 8], []),
        ("python-memcached-dead-3", "3 servers, the second marked dead (its keys rehashed)", [1, 1, 1], [1]),
        ("python-memcached-dead-5w", "weights 1,2,3,5,8 with the servers of weight 8 and 2 marked dead",
         [1, 2, 3, 5, 8], [4, 1]),
        ("python-memcached-dead-4of5", "5 servers, four marked dead: some keys find no live server in 10 tries",
         [1, 1, 1, 1, 1], [0, 1, 2, 4]),
    ]
    for file_id, description, weights, dead in configs:
        capture(file_id, description, weights, dead, keys)


if __name__ == "__main__":
    main()
