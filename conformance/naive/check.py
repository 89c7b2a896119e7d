"""Route every case of every native vector file with keyroute_naive and compare.

Usage: python check.py [VECTOR_DIR]   (default: ../vectors/v1 next to this file)
Prints "file: agreeing/total" per file, a per-algorithm summary, and finally
"N passed, M failed". Exits 1 if any case disagrees or no native file was found.
"""

import glob
import json
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keyroute_naive as kn  # noqa: E402


def key_bytes(case):
    if "key_hex" in case:
        return bytes.fromhex(case["key_hex"])
    return case["key"].encode("utf-8")


def check_case(router, case):
    """Returns None if the case agrees, else a description of the disagreement."""
    key = key_bytes(case)
    ids = [i.decode("utf-8") for i in router.ids]
    if "error" in case:
        try:
            router.node(key)
        except kn.SpecError:
            return None
        return "expected error %s, got a node" % case["error"]
    try:
        got = ids[router.node(key)]
        if case.get("node") is not None and got != case["node"]:
            return "node: expected %s, got %s" % (case["node"], got)
        if case.get("replicas"):
            reps = [ids[i] for i in router.replicas(key, len(case["replicas"]))]
            if reps != case["replicas"]:
                return "replicas: expected %s, got %s" % (case["replicas"], reps)
    except kn.SpecError as e:
        return "refused: %s" % e
    return None


def ln_report(files):
    """Informational: on the rendezvous vectors, how often do fdlibm's log and the platform's
    math.log give different scores, and does that ever change a candidate order?"""
    scores = differ = orders = 0
    saved = kn.ln
    try:
        for path in files:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            if doc["spec"]["algorithm"] not in ("rendezvous", "rendezvous-v1"):
                continue
            impl = kn.Router(doc["spec"]).impl
            for case in doc["cases"]:
                key = key_bytes(case)
                kn.ln = kn.fdlibm_log
                a, oa = impl.scores(key), impl.candidates(key)
                kn.ln = math.log
                b, ob = impl.scores(key), impl.candidates(key)
                scores += len(a)
                differ += sum(x != y for x, y in zip(a, b))
                orders += oa != ob
    finally:
        kn.ln = saved
    if scores:
        print("rendezvous ln (info): fdlibm vs math.log scores differ in %d of %d; "
              "candidate orders differ in %d cases" % (differ, scores, orders))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    vdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "vectors", "v1")
    files = sorted(f for f in glob.glob(os.path.join(vdir, "native-*.json"))
                   if os.path.basename(f) != "native-errors.json")
    if not files:
        print("no native-*.json vector files found in %s" % vdir)
        print("0 passed, 0 failed")
        return 1
    passed = failed = 0
    per_algo = defaultdict(lambda: [0, 0])
    for path in files:
        name = os.path.basename(path)
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        algo = doc["spec"]["algorithm"]
        cases = doc["cases"]
        bad = []
        try:
            router = kn.Router(doc["spec"])
        except kn.SpecError as e:
            router = None
            bad = [(c["id"], "topology refused: %s" % e) for c in cases]
        if router is not None:
            for case in cases:
                why = check_case(router, case)
                if why is not None:
                    bad.append((case["id"], why))
        ok = len(cases) - len(bad)
        print("%s: %d/%d" % (name, ok, len(cases)))
        for cid, why in bad[:20]:
            print("    %s: %s" % (cid, why))
        if len(bad) > 20:
            print("    ... %d more" % (len(bad) - 20))
        passed += ok
        failed += len(bad)
        per_algo[algo][0] += ok
        per_algo[algo][1] += len(cases)
    print()
    ln_report(files)
    print("rendezvous ln used for the check: %s" % kn.ln.__name__)
    for algo in sorted(per_algo):
        print("  %-12s %d/%d" % (algo, per_algo[algo][0], per_algo[algo][1]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
