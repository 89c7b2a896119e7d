#!/usr/bin/env python3
"""Writes conformance/vectors/v1/phpredis-array-*.json from the JSON lines capture.php printed.

Usage: write.py <routes.jsonl> <version label>. Keys are keys.json's, then the extra keys
capture.sh appends (their ids come from their bytes). A null target (a key phpredis places one
past its last host, see capture.php) is written as the preset's invalid_key refusal.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = os.path.dirname(HERE)
sys.path.insert(0, PEERS)
import vecio  # noqa: E402

OUT = os.path.join(os.path.dirname(PEERS), "vectors", "v1")
INVALID_KEY = 16


def extra_keys(path):
    keys = [bytes.fromhex(line.strip()) for line in open(path)]
    return [(k, vecio.extra_id(k)) for k in keys]


def main():
    routes_path, extra_path, version = sys.argv[1], sys.argv[2], sys.argv[3]
    keys = vecio.load_keys(os.path.join(PEERS, "keys.json")) + extra_keys(extra_path)
    for line in open(routes_path):
        run = json.loads(line)
        hosts, targets = run["hosts"], run["targets"]
        assert len(targets) == len(keys), run["file"]
        cases = []
        for (b, cid), target in zip(keys, targets):
            case = {"id": cid}
            case.update(vecio.key_field(b))
            if target is not None:
                assert target in hosts, (run["file"], cid)
                case["node"] = target
            else:
                case.update({"error": "invalid_key", "code": INVALID_KEY})
            cases.append(case)
        mode = "consistent => true" if run["consistent"] else "the default placement"
        algo = "no algorithm option" if run["hash"] == "default" else "algorithm => %r" % run["hash"]
        doc = {
            "id": run["file"],
            "description": "RedisArray::_target() of phpredis %s, %d hosts, %s, %s; keys of peers/keys.json "
            "and tag, NUL and overflow keys. A key phpredis places one past its last host (it then reads "
            "out of bounds) is refused." % (version, len(hosts), mode, algo),
            "provenance": {"kind": "peer", "peer": "phpredis", "version": version,
                           "captured_by": "conformance/peers/phpredis-array/capture.sh"},
            "spec": {"algorithm": "phpredis-array", "params": {"consistent": run["consistent"], "hash": run["hash"]},
                     "nodes": [{"id": h} for h in hosts]},
            "cases": cases,
        }
        vecio.write_vector(os.path.join(OUT, run["file"] + ".json"), doc)
        refused = sum(1 for c in cases if "error" in c)
        print("%-44s %4d cases, %d refused" % (run["file"] + ".json", len(cases), refused))


if __name__ == "__main__":
    main()
