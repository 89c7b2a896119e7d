#!/usr/bin/env python3
"""Capture uhashring key->node vectors by running the real PyPI `uhashring` package.

Run via capture.sh (installs the pinned version into conformance/peers/.work/).
Writes conformance/vectors/v1/uhashring-*.json. Deterministic: a re-capture with the same
uhashring version produces byte-identical files.
"""
import json
import os
import platform
from importlib.metadata import version as dist_version

from uhashring import HashRing

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = os.path.dirname(HERE)
OUT = os.path.join(os.path.dirname(PEERS), "vectors", "v1")
CAPTURED_BY = "conformance/peers/uhashring/capture.sh"
VERSION = dist_version("uhashring")
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
        "provenance": {"kind": "peer", "peer": "uhashring", "version": VERSION, "captured_by": CAPTURED_BY},
        "spec": spec,
        "cases": cases,
    }
    path = os.path.join(OUT, file_id + ".json")
    with open(path, "w") as f:
        f.write(fmt(doc) + "\n")
    print("%-40s %5d cases" % (file_id + ".json", len(cases)))


def make_ring(mode, nodes):
    """nodes: list of (name, weight). Builds the ring from a dict {name: weight} in list order."""
    conf = {name: w for name, w in nodes}
    if mode == "ketama":
        return HashRing(nodes=conf, hash_fn="ketama")
    return HashRing(nodes=conf)


def effective_params(mode, ring):
    params = {"mode": mode, "vnodes": ring._default_vnodes}
    if mode == "ketama":
        params["replicas"] = ring.runtime._replicas
    return params


def spec_for(mode, ring, nodes):
    return {
        "algorithm": "uhashring",
        "params": effective_params(mode, ring),
        "nodes": [{"id": name, "weight": w} for name, w in nodes],
    }


def route_keys(ring, keys):
    cases = []
    for i, tag, b in keys:
        # uhashring applies str() and then UTF-8; pass the UTF-8-decoded str so the bytes hashed
        # are exactly b.
        s = b.decode("utf-8")
        assert str(s).encode("utf-8") == b
        node = ring.get_node(s)
        c = {"id": "%s-%03d" % (tag, i)}
        c.update(key_fields(b))
        c["node"] = node
        cases.append(c)
    return cases


def main():
    os.makedirs(OUT, exist_ok=True)
    keys = load_keys()
    cache = lambda n: [("cache-%d" % k, 1) for k in range(1, n + 1)]
    topologies = [
        ("1", "1 node", cache(1)),
        ("3", "3 equal nodes", cache(3)),
        ("4", "the 3-node topology scaled out by one node (cache-4 appended last)", cache(4)),
        ("5w", "5 nodes with integer weights 1..5", [("10.0.0.%d:11211" % k, k) for k in range(1, 6)]),
        ("60", "60 equal nodes", cache(60)),
    ]
    mismatches = []
    for mode in ("ketama", "default"):
        mode_desc = ('HashRing(nodes={name: weight}, hash_fn="ketama")' if mode == "ketama"
                     else "HashRing(nodes={name: weight}) (default MetaRing, md5 128-bit int)")
        for suffix, tdesc, nodes in topologies:
            ring = make_ring(mode, nodes)
            cases = route_keys(ring, keys)
            if suffix == "4":
                # Scale-out check: building 3 nodes then add_node("cache-4") must route identically.
                inc = make_ring(mode, cache(3))
                inc.add_node("cache-4", {"weight": 1})
                inc_cases = route_keys(inc, keys)
                if inc_cases != cases:
                    mismatches.append("%s-4: incremental add_node differs from direct build" % mode)
            write(
                "uhashring-%s-%s" % (mode, suffix),
                "uhashring %s, %s: %s; every key of peers/keys.json passed as a UTF-8-decoded str "
                "to get_node(). Captured on %s." % (VERSION, tdesc, mode_desc, PY),
                spec_for(mode, ring, nodes),
                cases,
            )

    # Cross-check with upstream test values (PEERS.md#uhashring) test vectors (node1..node3, equal weights).
    upstream = {
        "ketama": {"coconut": "node2", "zoro": "node3", "test": "node2", "1800": "node1", "849": "node2"},
        "default": {"coconut": "node2", "zoro": "node2", "test": "node3", "1800": "node2", "849": "node3"},
    }
    hashi_expected = {"ketama": 3446378249, "default": 12707736894140473154801792860916528374}
    nodes = [("node1", 1), ("node2", 1), ("node3", 1)]
    for mode, expect in upstream.items():
        ring = make_ring(mode, nodes)
        cases = []
        for k, want in expect.items():
            got = ring.get_node(k)
            cases.append({"id": k, "key": k, "node": got})
            if got != want:
                mismatches.append("%s upstream %r: peer %s, upstream %s" % (mode, k, got, want))
        if ring.hashi("test") != hashi_expected[mode]:
            mismatches.append("%s hashi('test') = %d, upstream %d" % (mode, ring.hashi("test"), hashi_expected[mode]))
        if mode == "ketama" and len(ring.runtime._keys) != 480:
            mismatches.append("ketama 3-node point count %d != 480" % len(ring.runtime._keys))
        write(
            "uhashring-%s-upstream" % mode,
            "uhashring %s, upstream test values (PEERS.md#uhashring) topology {node1:1, node2:1, node3:1} (%s mode) and its "
            "stated keys, captured from the peer. Captured on %s." % (VERSION, mode, PY),
            spec_for(mode, ring, nodes),
            cases,
        )
    w = make_ring("ketama", [("127.0.0.1:11211", 600), ("127.0.0.1:11212", 400)])
    dist = dict(w.distribution)
    if dist != {"127.0.0.1:11211": 192, "127.0.0.1:11212": 128}:
        mismatches.append("ketama 600/400 point counts %r != 192/128" % dist)

    if mismatches:
        print("MISMATCHES vs upstream test values (PEERS.md) / self-checks:")
        for m in mismatches:
            print("  " + m)
    else:
        print("cross-check: all upstream test values (PEERS.md#uhashring) vectors and self-checks matched")


if __name__ == "__main__":
    main()
