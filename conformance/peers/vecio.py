"""Shared helpers for peer captures: key set loading, stable case ids, vector file writing.

Used by the server captures (redis-cluster/, nginx/, twemproxy/), which put this folder on sys.path.
"""
import json
import subprocess


def load_keys(path):
    """keys.json entries as (bytes, case id), in file order. The id is "<tags>-<index>" (index
    into keys.json, 3 digits), the same id every peer capture gives that key."""
    return [(bytes.fromhex(k["hex"]), "%s-%03d" % (k["tags"], i))
            for i, k in enumerate(json.load(open(path))["keys"])]


def extra_id(b):
    """Id for a key added by one capture beyond keys.json: derived from the bytes, so stable."""
    if b and all(0x20 <= c < 0x7F for c in b):
        return "extra-" + b.decode()
    return "extra-h-" + b.hex()


def key_field(b):
    """`key` for plain printable ASCII (and the empty key), `key_hex` for anything else."""
    if all(0x20 <= c < 0x7F for c in b):
        return {"key": b.decode()}
    return {"key_hex": b.hex()}


def case_key(c):
    return bytes.fromhex(c["key_hex"]) if "key_hex" in c else c["key"].encode()


def dpkg_version(pkg):
    return subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg],
                          capture_output=True, text=True).stdout.strip()


def write_vector(path, doc):
    """Top level indented; one spec node and one case per line (diff-friendly)."""
    d = dict(doc)
    cases = d.pop("cases")
    spec = dict(d.pop("spec"))
    nodes = spec.pop("nodes")
    j = lambda o: json.dumps(o, ensure_ascii=False)
    lines = ["{"]
    for k, v in d.items():
        lines.append("  %s: %s," % (j(k), json.dumps(v, indent=2, ensure_ascii=False).replace("\n", "\n  ")))
    lines.append('  "spec": {')
    for k, v in spec.items():
        lines.append("    %s: %s," % (j(k), j(v)))
    lines.append('    "nodes": [')
    lines.append(",\n".join("      " + j(n) for n in nodes))
    lines.append("    ]")
    lines.append("  },")
    lines.append('  "cases": [')
    lines.append(",\n".join("    " + j(c) for c in cases))
    lines.append("  ]")
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    assert json.load(open(path)) == doc, path
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids)), "duplicate case ids in " + path
