#!/usr/bin/env python3
"""Writes conformance/vectors/v1/java-hashcode-*.json from the routes Capture.java printed.

Usage: write.py <routes.tsv> <version label>. Keys are keys.json's, then the extra keys
capture.sh appends (their ids come from their text).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = os.path.dirname(HERE)
sys.path.insert(0, PEERS)
import vecio  # noqa: E402

OUT = os.path.join(os.path.dirname(PEERS), "vectors", "v1")
EXTRA = [b"\xff\xfe", b"polygenelubricants", b"GydZG_", b"DESIGNING WORKHOUSES"]
INVALID_KEY = 16


def main():
    routes_path, version = sys.argv[1], sys.argv[2]
    keys = vecio.load_keys(os.path.join(PEERS, "keys.json")) + [(k, vecio.extra_id(k)) for k in EXTRA]
    routes = {}
    for line in open(routes_path):
        n, i, r = line.rstrip("\n").split("\t")
        routes.setdefault(int(n), {})[int(i)] = r
    for n, by_key in sorted(routes.items()):
        ids = ["node-%d" % i for i in range(n)]
        cases = []
        for i, (b, cid) in enumerate(keys):
            case = {"id": cid}
            case.update(vecio.key_field(b))
            r = by_key[i]
            if r == "not-utf8":
                case.update({"error": "invalid_key", "code": INVALID_KEY})
            else:
                case["node"] = ids[int(r)]
            cases.append(case)
        file_id = "java-hashcode-%d" % n
        doc = {
            "id": file_id,
            "description": "Math.floorMod(key.hashCode(), %d) over a java.lang.String, nodes in order; keys of "
            "peers/keys.json decoded as UTF-8 (bytes that are not UTF-8 have no String and are refused), and "
            "three keys whose hashCode is Integer.MIN_VALUE." % n,
            "provenance": {"kind": "peer", "peer": "java", "version": version,
                           "captured_by": "conformance/peers/java-hashcode/capture.sh"},
            "spec": {"algorithm": "java-hashcode", "nodes": [{"id": x} for x in ids]},
            "cases": cases,
        }
        vecio.write_vector(os.path.join(OUT, file_id + ".json"), doc)
        refused = sum(1 for c in cases if "error" in c)
        print("%-28s %4d cases, %d not UTF-8" % (file_id + ".json", len(cases), refused))


if __name__ == "__main__":
    main()
