#!/usr/bin/env python3
"""Writes vector files from JSON documents a capture printed, one per line.

Usage: write_docs.py < docs.jsonl. Each document is a vector file (`id`, `description`,
`provenance`, `spec`) whose cases carry the key as `hex`; this turns it into `key` or `key_hex`
(vecio.key_field) and writes conformance/vectors/v1/<id>.json in the corpus layout. A case
carries `node`, or `error` and `code` for a key the peer refuses. Used by the Ruby captures
(dalli/, redis-rb-distributed/) and the Go ones (gomemcache/, groupcache/), whose JSON
libraries cannot write that layout.
"""
import json
import os
import sys

PEERS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, PEERS)
import vecio  # noqa: E402

OUT = os.path.join(os.path.dirname(PEERS), "vectors", "v1")


def main():
    for line in sys.stdin:
        doc = json.loads(line)
        cases = []
        for c in doc["cases"]:
            case = {"id": c["id"]}
            case.update(vecio.key_field(bytes.fromhex(c["hex"])))
            if "error" in c:
                case["error"], case["code"] = c["error"], c["code"]
            else:
                case["node"] = c["node"]
            cases.append(case)
        doc["cases"] = cases
        vecio.write_vector(os.path.join(OUT, doc["id"] + ".json"), doc)
        print("%-40s %5d cases" % (doc["id"] + ".json", len(cases)))


if __name__ == "__main__":
    main()
