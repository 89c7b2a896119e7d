#!/usr/bin/env python3
"""Flattens conformance vector files into lines the Java conformance runner reads without a JSON
library (the JDK has none): `python3 ffi/java/vectors.py FILE.json... > vectors.tsv`.

Every text field is hex (UTF-8), so ids and specs may hold any character. One line per file,
then one per case, tab-separated:

    file  <file id>  <spec hex, or ->
    case  <case id>  <own spec hex, or ->  <limits JSON hex, or ->  <key>  <replicas_count, or ->
          <expected>  <replicas, or ->  <slot, or ->

<key> is `-` (none), `t:<hex>` (text: the case's `key`), `b:<hex>` (bytes: `key_hex` or
`key_repeat`) or `u:<unit,unit,...>` (UTF-16 code units). <expected> is `n:<hex id>` or
`e:<name>:<code>`; <replicas> is hex ids joined by commas. A case's own spec is `spec` (as
JSON), `spec_json`, `spec_hex` or `spec_repeat` (as bytes). Cases no Java caller can express
(`key_type`: keys of a wrong type; `spec_toml`: the CLI's TOML) are written as `skip` lines
with their case id, so the runner can count them.
"""

import json
import sys


def repeat(r):
    """head + unit x times + tail (absent parts empty): text, or hex when r["hex"]."""
    conv = bytes.fromhex if r.get("hex") else (lambda s: s.encode("utf-8"))
    return conv(r.get("head", "")) + conv(r.get("unit", "")) * r.get("times", 0) + conv(r.get("tail", ""))


def spec_text(spec):
    return json.dumps(spec, ensure_ascii=False, separators=(",", ":"))


def main(paths):
    out = sys.stdout
    for path in paths:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        spec = doc.get("spec")
        out.write("file\t%s\t%s\n" % (doc["id"], spec_text(spec).encode("utf-8").hex() if spec is not None else "-"))
        for c in doc["cases"]:
            if "key_type" in c or "spec_toml" in c:
                out.write("skip\t%s\n" % c["id"])
                continue
            own = None
            if "spec" in c:
                own = spec_text(c["spec"]).encode("utf-8")
            elif "spec_json" in c:
                own = c["spec_json"].encode("utf-8")
            elif "spec_hex" in c:
                own = bytes.fromhex(c["spec_hex"])
            elif "spec_repeat" in c:
                own = repeat(c["spec_repeat"])
            limits = json.dumps(c["limits"], separators=(",", ":")).encode("utf-8") if "limits" in c else None
            if "key" in c:
                key = "t:" + c["key"].encode("utf-8").hex()
            elif "key_hex" in c:
                key = "b:" + c["key_hex"]
            elif "key_repeat" in c:
                key = "b:" + repeat(c["key_repeat"]).hex()
            elif "key_utf16" in c:
                key = "u:" + ",".join(str(u) for u in c["key_utf16"])
            else:
                key = "-"
            if "error" in c:
                expected = "e:%s:%d" % (c["error"], c["code"])
            else:
                expected = "n:" + c["node"].encode("utf-8").hex()
            replicas = ",".join(r.encode("utf-8").hex() for r in c["replicas"]) if "replicas" in c else "-"
            fields = [
                "case",
                c["id"],
                own.hex() if own is not None else "-",
                limits.hex() if limits is not None else "-",
                key,
                str(c["replicas_count"]) if "replicas_count" in c else "-",
                expected,
                replicas or "-",
                str(c["slot"]) if "slot" in c else "-",
            ]
            out.write("\t".join(fields) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
