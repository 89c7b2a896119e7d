"""The Python conformance runner: every vector file of conformance/vectors/v1 through the public
Python API, comparing node ids, replicas, slots and error codes (each error as its class,
``keyroute.BY_CODE[code]``). A missing or empty corpus fails.

How a case's fields reach Python (the loading contract is bindings/tests/common/mod.rs):

- ``spec``: the dict (the mapping path), and again as its JSON text, which must agree;
  ``spec_json``: the text; ``spec_hex``: the bytes decoded as UTF-8 with ``surrogateescape``
  (Python's nearest form of a document that is not UTF-8: each bad byte becomes a lone
  surrogate, which has no UTF-8 form, so the native layer refuses it with invalid_utf8, the
  code those cases expect); ``spec_repeat``: ``head + unit * times + tail``, text or hex as
  ``spec_hex``; ``spec_toml``: not for this surface (only the CLI reads TOML).
- ``limits``: the ``limits=`` mapping, as given (malformed ones are cases too).
- ``key``: a str; ``key_hex``: bytes; ``key_utf16``: a str that may hold lone surrogates;
  ``key_repeat``: a str (text) or bytes (hex); ``key_type``: a value of that JSON type
  (``42``, ``1.5``, ``None``, ``[]``, ``{}``, ``True``), which every key call refuses.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import keyroute
import pytest
from conftest import VECTORS

#: As the Rust runner: fewer files than this means the corpus is not the one we expect.
MIN_FILES = 100

#: The Python value of each ``key_type``.
KEY_TYPES: Dict[str, Any] = {"int": 42, "float": 1.5, "null": None, "list": [], "object": {}, "bool": True}

#: Case fields that give the case its own spec.
SPEC_FIELDS = ("spec", "spec_json", "spec_hex", "spec_repeat", "spec_toml")

#: Cases per outcome over the whole corpus, for the summary line.
_COUNTS: Dict[str, int] = {"passed": 0, "failed": 0, "skipped": 0}
_SKIPPED: Dict[str, List[str]] = {}
def vector_files() -> List[Path]:
    return sorted(VECTORS.glob("*.json")) if VECTORS.is_dir() else []


def test_corpus_is_present() -> None:
    files = vector_files()
    assert VECTORS.is_dir(), f"no vector corpus at {VECTORS}"
    assert len(files) >= MIN_FILES, f"the corpus at {VECTORS} has only {len(files)} files"


def not_utf8_text(data: bytes) -> str:
    """Bytes as the str Python reads them as (UTF-8, a bad byte as a lone surrogate)."""
    return data.decode("utf-8", "surrogateescape")


def repeat(r: Dict[str, Any]) -> bytes:
    """``head + unit * times + tail`` (absent parts are empty), each text or, with ``hex``, hex."""
    def part(name: str) -> bytes:
        text: str = r.get(name, "")
        return bytes.fromhex(text) if r.get("hex") else text.encode("utf-8")

    return part("head") + part("unit") * int(r.get("times", 0)) + part("tail")


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
    if "key_repeat" in case:
        r = case["key_repeat"]
        data = repeat(r)
        return data if r.get("hex") else data.decode("utf-8")
    if "key_type" in case:
        return KEY_TYPES[case["key_type"]]
    return None


def case_specs(case: Dict[str, Any]) -> List[Tuple[str, Any]]:
    """The forms of the case's own spec to build, each with a name for messages (none: the
    case routes with its file's router)."""
    if "spec" in case:
        return [("dict", case["spec"]), ("JSON text", json.dumps(case["spec"]))]
    if "spec_json" in case:
        return [("text", case["spec_json"])]
    if "spec_hex" in case:
        return [("hex text", not_utf8_text(bytes.fromhex(case["spec_hex"])))]
    if "spec_repeat" in case:
        return [("repeated text", not_utf8_text(repeat(case["spec_repeat"])))]
    return []


def not_for_python(case: Dict[str, Any]) -> Optional[str]:
    """Why this surface does not run the case, or None."""
    if "spec_toml" in case:
        return "spec_toml: only the CLI reads TOML"
    return None


def check_error(case: Dict[str, Any], exc: keyroute.Error) -> Optional[str]:
    if "error" not in case:
        return f"unexpected error {exc.name} ({exc.code}): {exc}"
    if (exc.name, exc.code) != (case["error"], case["code"]):
        return f"error {exc.name} ({exc.code}), expected {case['error']} ({case['code']})"
    if type(exc) is not keyroute.BY_CODE[case["code"]]:
        return f"error class {type(exc).__name__} for code {case['code']}"
    return None


def expect_refused(case: Dict[str, Any], call: Callable[[], Any], what: str) -> Optional[str]:
    """``call`` must raise the case's error."""
    try:
        got = call()
    except keyroute.Error as e:
        why = check_error(case, e)
        return None if why is None else f"{what}: {why}"
    return f"{what}: expected error {case['error']}, got {got!r}"


def run_with(router: keyroute.Router, case: Dict[str, Any]) -> Optional[str]:
    key = case_key(case)
    if key is None and "key_type" not in case:
        return "the spec built, but an error was expected" if "error" in case else "case has no key"
    if "replicas_count" in case:
        return expect_refused(case, lambda: router.replicas(key, case["replicas_count"]), "replicas")
    if "error" in case:
        # Every call that takes this key refuses it alike, one key or a batch.
        why = expect_refused(case, lambda: router.route(key), "route")
        if why is None and "key_type" in case:
            for name, call in [
                ("route_index", lambda: router.route_index(key)),
                ("key_hash", lambda: router.key_hash(key)),
                ("slot", lambda: router.slot(key)),
                ("route_many", lambda: router.route_many(["k", key])),
            ]:
                why = why or expect_refused(case, call, name)
        return why
    try:
        node = router.route(key)
    except keyroute.Error as e:
        return check_error(case, e)
    if node != case["node"]:
        return f"node {node}, expected {case['node']}"
    if "slot" in case and router.slot(key) != case["slot"]:
        return f"slot {router.slot(key)}, expected {case['slot']}"
    if "replicas" in case:
        got = router.replicas(key, len(case["replicas"]))
        if got != case["replicas"]:
            return f"replicas {got}, expected {case['replicas']}"
    return None


def run_case(file_router: Optional[keyroute.Router], case: Dict[str, Any]) -> Optional[str]:
    specs = case_specs(case)
    if not specs:
        if file_router is None:
            return "case has no spec and the file has none"
        return run_with(file_router, case)
    limits = case.get("limits")
    for form, spec in specs:
        try:
            router = keyroute.Router(spec, limits=limits)
        except keyroute.Error as e:
            why = check_error(case, e)
        else:
            why = run_with(router, case)
        if why is not None:
            return why if len(specs) == 1 else f"spec as {form}: {why}"
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
        skip = not_for_python(case)
        if skip is not None:
            _COUNTS["skipped"] += 1
            _SKIPPED.setdefault(skip, []).append(f"{path.stem}/{case['id']}")
            continue
        why = run_case(file_router, case)
        if why is None:
            _COUNTS["passed"] += 1
        else:
            _COUNTS["failed"] += 1
            failures.append(f"{case['id']}: {why}")
    assert not failures, f"{len(failures)} of {len(doc['cases'])} cases failed:\n" + "\n".join(failures[:20])

    # The batch path agrees with the expected owners too.
    if file_router is not None:
        routed = [c for c in doc["cases"] if "node" in c and not any(f in c for f in SPEC_FIELDS)]
        if routed:
            got = file_router.route_many([case_key(c) for c in routed])
            assert got == [c["node"] for c in routed], "route_many differs from the vectors"


def test_conformance_counts(figure: Any) -> None:
    """Runs last in this module (pytest keeps file order): the totals over every file, and why
    the cases this surface does not run are not for it."""
    total = sum(_COUNTS.values())
    if total == 0:
        pytest.skip("no vector file ran (run the whole module for the totals)")
    figure(
        f"conformance: {len(vector_files())} files, {total} cases: {_COUNTS['passed']} passed, "
        f"{_COUNTS['failed']} failed, {_COUNTS['skipped']} not for Python"
    )
    for reason, cases in _SKIPPED.items():
        figure(f"  not for Python ({reason}): {', '.join(cases)}")
    assert _COUNTS["failed"] == 0
