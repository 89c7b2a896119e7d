#!/usr/bin/env python3
"""Capture pymemcache RendezvousHash key->node vectors by running the real PyPI `pymemcache`.

Run via capture.sh (installs the pinned version into conformance/peers/.work/).
Writes conformance/vectors/v1/pymemcache-rendezvous-*.json. Deterministic.
"""
import json
import os
import platform
from importlib.metadata import version as dist_version

from pymemcache.client.rendezvous import RendezvousHash

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = os.path.dirname(HERE)
OUT = os.path.join(os.path.dirname(PEERS), "vectors", "v1")
CAPTURED_BY = "conformance/peers/pymemcache/capture.sh"
VERSION = dist_version("pymemcache")
PY = "CPython %s" % platform.python_version()


def load_keys():
    with open(os.path.join(PEERS, "keys.json")) as f:
        doc = json.load(f)
    return [(i, k["tags"], bytes.fromhex(k["hex"])) for i, k in enumerate(doc["keys"])]


def key_fields(b):
    if all(0x20 <= c < 0x7F for c in b):
        return {"key": b.decode("ascii")}
    return {"key_hex": b.hex()}


def compact(v):
    return json.dumps(v, ensure_ascii=True, separators=(", ", ": "))


def fmt(v, ind=0):
    pad = "  " * ind
    if isinstance(v, dict) and v:
        items = [pad + "  " + json.dumps(k) + ": " + fmt(x, ind + 1) for k, x in v.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
        return "[\n" + ",\n".join(pad + "  " + compact(x) for x in v) + "\n" + pad + "]"
    return compact(v)


def write(file_id, description, spec, cases):
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids)), file_id
    doc = {
        "id": file_id,
        "description": description,
        "provenance": {"kind": "peer", "peer": "pymemcache", "version": VERSION, "captured_by": CAPTURED_BY},
        "spec": spec,
        "cases": cases,
    }
    with open(os.path.join(OUT, file_id + ".json"), "w") as f:
        f.write(fmt(doc) + "\n")
    print("%-45s %5d cases" % (file_id + ".json", len(cases)))


def spec_for(ring, names):
    return {
        "algorithm": "pymemcache-rendezvous",
        "params": {"seed": ring.seed},
        "nodes": [{"id": n} for n in names],
    }


def route_keys(ring, keys):
    cases = []
    for i, tag, b in keys:
        # Keys are passed as str (UTF-8-decoded). pymemcache's murmur3_32 then hashes
        # ord(ch) & 0xFF per character of f"{node}-{key}", not the UTF-8 bytes.
        s = b.decode("utf-8")
        node = ring.get_node(s)
        c = {"id": "%s-%03d" % (tag, i)}
        c.update(key_fields(b))
        c["node"] = node
        cases.append(c)
    return cases


def main():
    os.makedirs(OUT, exist_ok=True)
    keys = load_keys()
    nodes = lambda n: ["node-%d" % k for k in range(n)]
    ips = ["10.0.0.%d:11211" % k for k in range(1, 6)]
    configs = [
        ("1", 0, "1 node", nodes(1)),
        ("3", 0, "3 nodes", nodes(3)),
        ("4", 0, "the 3-node topology plus node-3 (scale-out)", nodes(4)),
        ("5", 0, "5 nodes named host:port (pymemcache HashClient style; unweighted)", ips),
        ("60", 0, "60 nodes", nodes(60)),
        ("seed10-3", 10, "3 nodes, seed=10", nodes(3)),
        ("seed10-5", 10, "5 host:port nodes, seed=10", ips),
    ]
    for suffix, seed, tdesc, names in configs:
        ring = RendezvousHash(nodes=list(names), seed=seed)
        write(
            "pymemcache-rendezvous-%s" % suffix,
            "pymemcache %s RendezvousHash(nodes=[...], seed=%d), %s; every key of peers/keys.json passed "
            "as a UTF-8-decoded str to get_node(). Non-ASCII keys: pymemcache's murmur3_32 hashes "
            "ord(ch) & 0xFF per Python character of f'{node}-{key}' (length = character count), so key_hex "
            "must be UTF-8-decoded to code points first. Captured on %s." % (VERSION, seed, tdesc, PY),
            spec_for(ring, names),
            route_keys(ring, keys),
        )

    # Cross-check with upstream test values (PEERS.md#pymemcache-rendezvous).
    mismatches = []
    from pymemcache.client.murmur3 import murmur3_32
    if murmur3_32("6666") != 1361238019 or murmur3_32("6666", 10) != 2981722772:
        mismatches.append("murmur3_32('6666') = %d / seed 10 %d" % (murmur3_32("6666"), murmur3_32("6666", 10)))
    for suffix, names, expect in [
        ("upstream", ["0", "1", "2"], {"ok": "0", "mykey": "1", "wat": "2"}),
        ("upstream-removed", ["0", "2"], {"ok": "0", "mykey": "0", "wat": "2"}),
    ]:
        ring = RendezvousHash(nodes=["0", "1", "2"])
        if suffix == "upstream-removed":
            ring.remove_node("1")
        assert ring.nodes == names
        cases = []
        for k, want in expect.items():
            got = ring.get_node(k)
            cases.append({"id": k, "key": k, "node": got})
            if got != want:
                mismatches.append("%s %r: peer %s, upstream %s" % (suffix, k, got, want))
        write(
            "pymemcache-rendezvous-%s" % suffix,
            "pymemcache %s RendezvousHash, upstream test values (PEERS.md#pymemcache-rendezvous) / upstream test topology %s%s and its "
            "stated keys, captured from the peer. Captured on %s."
            % (VERSION, names, " (after remove_node('1'))" if suffix.endswith("removed") else "", PY),
            spec_for(ring, names),
            cases,
        )
    if mismatches:
        print("MISMATCHES vs upstream test values (PEERS.md):")
        for m in mismatches:
            print("  " + m)
    else:
        print("cross-check: all upstream test values (PEERS.md#pymemcache-rendezvous) vectors matched")


if __name__ == "__main__":
    main()
