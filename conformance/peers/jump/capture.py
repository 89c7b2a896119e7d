#!/usr/bin/env python3
"""Capture Jump Consistent Hash vectors by running the real PyPI `jump-consistent-hash` (module `jump`).

Keys are u64 values (passed as the int to jump.hash(key, buckets)); each case gives the key as
key_hex = the 8-byte big-endian encoding. peers/keys.json is NOT used here. Deterministic.
"""
import json
import os
import platform
import random
from importlib.metadata import version as dist_version

import jump

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = os.path.dirname(HERE)
OUT = os.path.join(os.path.dirname(PEERS), "vectors", "v1")
CAPTURED_BY = "conformance/peers/jump/capture.sh"
VERSION = dist_version("jump-consistent-hash")
PY = "CPython %s" % platform.python_version()
IMPL = "C extension jump._jump" if jump.c_hash is not None else "pure-Python fallback jump.py_hash"


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
        "provenance": {"kind": "peer", "peer": "jump-consistent-hash", "version": VERSION,
                       "captured_by": CAPTURED_BY},
        "spec": spec,
        "cases": cases,
    }
    with open(os.path.join(OUT, file_id + ".json"), "w") as f:
        f.write(fmt(doc) + "\n")
    print("%-32s %5d cases" % (file_id + ".json", len(cases)))


def u64_keys():
    """200 distinct u64 keys, deterministic: 0..19, edge values, then seeded random."""
    keys = list(range(20))
    for k in [2**64 - 1, 2**63, 2**63 - 1, 2**63 + 1, 2**32, 2**32 - 1, 2**31, 2**31 - 1,
              2**53, 2**53 + 1, 0x5555555555555555, 0xAAAAAAAAAAAAAAAA, 0x0123456789ABCDEF,
              0xFEDCBA9876543210, 0xDEADBEEFCAFEBABE, 10863919174838991, 2016238256797177309,
              1673758223894951030]:
        keys.append(k)
    rng = random.Random(1406_2294)  # arXiv id of the Jump paper; fixed
    while len(keys) < 200:
        k = rng.getrandbits(64)
        if k not in keys:
            keys.append(k)
    assert len(set(keys)) == 200
    return keys


def case(k, b):
    return {"id": "u64-%016x" % k, "key_hex": k.to_bytes(8, "big").hex(), "node": "bucket-%d" % b}


def spec_for(buckets):
    return {"algorithm": "jump", "params": {"key_hash": "u64be"},
            "nodes": [{"id": "bucket-%d" % i} for i in range(buckets)]}


def main():
    os.makedirs(OUT, exist_ok=True)
    keys = u64_keys()
    for buckets in (1, 3, 4, 5, 60, 1000):
        cases = []
        for k in keys:
            b = jump.hash(k, buckets)
            assert 0 <= b < buckets
            # The package ships a C extension and a pure-Python fallback; they must agree.
            assert jump.py_hash(k, buckets) == b, (k, buckets)
            cases.append(case(k, b))
        write("jump-u64be-%d" % buckets,
              "jump-consistent-hash %s (%s): jump.hash(key, %d) for 200 deterministic u64 keys "
              "(0..19, edge values, seeded random); key_hex is the key as 8 big-endian bytes, node "
              "'bucket-i' is bucket i. Captured on %s." % (VERSION, IMPL, buckets, PY),
              spec_for(buckets), cases)

    # Cross-check with upstream test values (PEERS.md#guava, PEERS.md#jump) (Guava golden values).
    mismatches = []
    golden100 = [0, 55, 62, 8, 45, 59, 86, 97, 82, 59, 73, 37, 17, 56, 86, 21, 90, 37, 38, 83]
    got100 = [jump.hash(i, 100) for i in range(20)]
    if got100 != golden100:
        mismatches.append("jump(i,100) i<20 = %r" % got100)
    golden11 = {10863919174838991: 6, 2016238256797177309: 3, 1673758223894951030: 5}
    golden100001 = {2: 80343, 2201: 22152, 2202: 15018}
    for table, n in ((golden11, 11), (golden100001, 100001)):
        for k, want in table.items():
            if jump.hash(k, n) != want:
                mismatches.append("jump(%d,%d) = %d, upstream %d" % (k, n, jump.hash(k, n), want))
    write("jump-u64be-upstream-100",
          "jump-consistent-hash %s: upstream test values (PEERS.md#guava, PEERS.md#jump) golden keys 0..19 with 100 buckets "
          "(Guava consistentHash golden values), captured from the peer. Captured on %s." % (VERSION, PY),
          spec_for(100), [case(i, jump.hash(i, 100)) for i in range(20)])
    write("jump-u64be-upstream-11",
          "jump-consistent-hash %s: upstream test values (PEERS.md#guava) golden keys with 11 buckets, captured from "
          "the peer. Captured on %s." % (VERSION, PY),
          spec_for(11), [case(k, jump.hash(k, 11)) for k in golden11])
    if mismatches:
        print("MISMATCHES vs upstream test values (PEERS.md):")
        for m in mismatches:
            print("  " + m)
    else:
        print("cross-check: all upstream test values (PEERS.md#guava)/10 jump golden values matched "
              "(incl. the 100001-bucket ones, not written to a file)")


if __name__ == "__main__":
    main()
