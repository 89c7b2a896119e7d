"""The Python conformance runner: every vector file of conformance/vectors/v1 through the public
Python API (specs as dicts or JSON text, `key` cases as str, `key_hex` cases as bytes), comparing
node ids, replicas, slots and error codes. A missing or empty corpus fails."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional

import keyroute
import pytest
from conftest import VECTORS

#: As the Rust runner: fewer files than this means the corpus is not the one we expect.
MIN_FILES = 100


def vector_files() -> List[Path]:
    return sorted(VECTORS.glob("*.json")) if VECTORS.is_dir() else []


def test_corpus_is_present() -> None:
    files = vector_files()
    assert VECTORS.is_dir(), f"no vector corpus at {VECTORS}"
    assert len(files) >= MIN_FILES, f"the corpus at {VECTORS} has only {len(files)} files"


def case_key(case: Dict[str, Any]) -> Any:
    if "key" in case:
        return case["key"]  # text: routed as its UTF-8 bytes
    if "key_hex" in case:
        return bytes.fromhex(case["key_hex"])
    if "key_utf16" in case:
        # A str as JavaScript or Java would hold it: surrogate pairs combine into one character,
        # a lone surrogate stays one (and has no UTF-8 form, so routing it must fail).
        units = case["key_utf16"]
        return b"".join(u.to_bytes(2, "little") for u in units).decode("utf-16-le", "surrogatepass")
    return None


def check_error(case: Dict[str, Any], exc: keyroute.Error) -> Optional[str]:
    if "error" not in case:
        return f"unexpected error {exc.name} ({exc.code}): {exc}"
    if (exc.name, exc.code) != (case["error"], case["code"]):
        return f"error {exc.name} ({exc.code}), expected {case['error']} ({case['code']})"
    if type(exc) is not keyroute.BY_CODE[case["code"]]:
        return f"error class {type(exc).__name__} for code {case['code']}"
    return None


def run_case(file_router: Optional[keyroute.Router], case: Dict[str, Any]) -> Optional[str]:
    router = file_router
    spec = case.get("spec", case.get("spec_json"))
    if spec is not None:
        try:
            router = keyroute.Router(spec)
        except keyroute.Error as e:
            return check_error(case, e)
    if router is None:
        return "case has no spec and the file has none"
    key = case_key(case)
    if key is None:
        return "the spec built, but an error was expected" if "error" in case else "case has no key"
    try:
        if "replicas_count" in case:
            got = router.replicas(key, case["replicas_count"])
            return f"expected an error, got replicas {got}"
        node = router.route(key)
    except keyroute.Error as e:
        return check_error(case, e)
    if "error" in case:
        return f"expected error {case['error']}, got node {node}"
    if node != case["node"]:
        return f"node {node}, expected {case['node']}"
    if "slot" in case and router.slot(key) != case["slot"]:
        return f"slot {router.slot(key)}, expected {case['slot']}"
    if "replicas" in case:
        got = router.replicas(key, len(case["replicas"]))
        if got != case["replicas"]:
            return f"replicas {got}, expected {case['replicas']}"
    return None


@pytest.mark.parametrize("path", vector_files(), ids=lambda p: p.name)
def test_vector_file(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["id"] + ".json" == path.name, "file name = id"
    file_router = None
    if "spec" in doc:
        # Build from the dict and from its JSON text: the two must be the same router.
        file_router = keyroute.Router(doc["spec"])
        assert keyroute.Router(json.dumps(doc["spec"])) == file_router
    failures = []
    ids = set()
    for case in doc["cases"]:
        assert case["id"] not in ids, f"case id {case['id']} repeats"
        ids.add(case["id"])
        why = run_case(file_router, case)
        if why is not None:
            failures.append(f"{case['id']}: {why}")
    assert not failures, f"{len(failures)} of {len(doc['cases'])} cases failed:\n" + "\n".join(failures[:20])

    # The batch path agrees with the expected owners too.
    if file_router is not None:
        routed = [c for c in doc["cases"] if "node" in c and "spec" not in c and "spec_json" not in c]
        if routed:
            got = file_router.route_many([case_key(c) for c in routed])
            assert got == [c["node"] for c in routed], "route_many differs from the vectors"
