#!/usr/bin/env python2.7
# -*- coding: utf-8 -*-
"""Capture Python `hash_ring` 1.3.1 key->node vectors by running the real PyPI package.

hash_ring 1.3.1 is Python-2-only (see README-python-npm.md), so this script runs under
CPython 2.7 (capture.sh finds the interpreter and installs the package into
conformance/peers/.work/hash_ring-py27). Keys are passed as Python 2 `str` (byte strings), so
md5 sees exactly the key's bytes. Writes conformance/vectors/v1/python-hash-ring-*.json.
"""
from __future__ import print_function

import binascii
import json
import os
import platform
import sys
from collections import OrderedDict

import hash_ring
import pkg_resources
from hash_ring import HashRing

assert sys.version_info[:2] == (2, 7), "hash_ring 1.3.1 needs CPython 2.7"

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = os.path.dirname(HERE)
OUT = os.path.join(os.path.dirname(PEERS), "vectors", "v1")
CAPTURED_BY = "conformance/peers/hash_ring/capture.sh"
VERSION = pkg_resources.get_distribution("hash_ring").version
PY = "CPython %s" % platform.python_version()


def load_keys():
    with open(os.path.join(PEERS, "keys.json")) as f:
        doc = json.load(f)
    return [(i, str(k["tags"]), binascii.unhexlify(k["hex"])) for i, k in enumerate(doc["keys"])]


def key_fields(b):
    if all(0x20 <= ord(c) < 0x7F for c in b):
        return [("key", b)]
    return [("key_hex", binascii.hexlify(b).decode("ascii"))]


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
    doc = OrderedDict([
        ("id", file_id),
        ("description", description),
        ("provenance", OrderedDict([("kind", "peer"), ("peer", "hash_ring"), ("version", VERSION),
                                    ("captured_by", CAPTURED_BY)])),
        ("spec", spec),
        ("cases", cases),
    ])
    with open(os.path.join(OUT, file_id + ".json"), "w") as f:
        f.write(fmt(doc) + "\n")
    print("%-40s %5d cases" % (file_id + ".json", len(cases)))


def spec_for(nodes):
    return OrderedDict([
        ("algorithm", "python-hash-ring"),
        ("params", {}),
        ("nodes", [OrderedDict([("id", n), ("weight", w)]) for n, w in nodes]),
    ])


def make_ring(nodes):
    names = [n for n, _ in nodes]
    weights = dict(nodes) if any(w != 1 for _, w in nodes) else None
    return HashRing(names, weights)


def case(cid, b, node):
    return OrderedDict([("id", cid)] + key_fields(b) + [("node", node)])


def main():
    if not os.path.isdir(OUT):
        os.makedirs(OUT)
    keys = load_keys()
    cache = lambda n: [("cache-%d" % k, 1) for k in range(1, n + 1)]
    topologies = [
        ("1", "1 node", cache(1)),
        ("3", "3 equal nodes", cache(3)),
        ("4", "the 3-node topology scaled out by one node (cache-4 appended last)", cache(4)),
        ("5w", "5 nodes with weights 1..5", [("10.0.0.%d:11211" % k, k) for k in range(1, 6)]),
        ("60", "60 equal nodes", cache(60)),
    ]
    for suffix, tdesc, nodes in topologies:
        ring = make_ring(nodes)
        cases = [case("%s-%03d" % (tag, i), b, ring.get_node(b)) for i, tag, b in keys]
        write("python-hash-ring-%s" % suffix,
              "Python hash_ring %s, %s: HashRing(nodes, weights).get_node(key) with every key of "
              "peers/keys.json passed as a Python 2 byte string (md5 of the exact bytes). Run on %s "
              "because the package does not import on Python 3." % (VERSION, tdesc, PY),
              spec_for(nodes), cases)

    # Cross-check with upstream fixtures (PEERS.md#npm-hashring, PEERS.md#python-hash-ring) (hash_ring.txt fixture, weights 1..5).
    nodes = [("0.0.0.%d" % k, k) for k in range(1, 6)]
    ring = make_ring(nodes)
    expect = OrderedDict([("0", "0.0.0.4"), ("1", "0.0.0.5"), ("2", "0.0.0.4"), ("3", "0.0.0.3"), ("4", "0.0.0.5")])
    mismatches = []
    cases = []
    for k, want in expect.items():
        got = ring.get_node(k)
        cases.append(case(k, k, got))
        if got != want:
            mismatches.append("%r: peer %s, upstream %s" % (k, got, want))
    write("python-hash-ring-upstream",
          "Python hash_ring %s: upstream test values (PEERS.md#python-hash-ring) topology {0.0.0.1:1 .. 0.0.0.5:5} (the "
          "node-hashring tests/fixtures/hash_ring.txt setup) and its stated keys, captured from the peer "
          "on %s." % (VERSION, PY),
          spec_for(nodes), cases)
    if mismatches:
        print("MISMATCHES vs upstream test values (PEERS.md):")
        for m in mismatches:
            print("  " + m)
    else:
        print("cross-check: all upstream test values (PEERS.md#python-hash-ring) vectors matched")
    print("hash_ring loaded from %s" % hash_ring.__file__)


if __name__ == "__main__":
    main()
