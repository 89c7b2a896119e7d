"""Regression tests for what an attacker found (the hostile-input issue): small inputs that
asked for huge work or memory, lying lengths, and the mapping path disagreeing with JSON text.

The calls that once allocated without bound (or could again, should a fix regress) run in a
child process (hostile_child.py) under an address space limit, so a regression fails one test
instead of aborting or swapping the whole run. The child measures each call: its time, the
Python allocations it made (tracemalloc) and how far the process's resident set rose (VmHWM
after the peak was reset; Linux), and reports them as JSON. Memory is asserted; time is only
reported (in the "keyroute figures" summary).
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import subprocess
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any, Callable, Dict, List, Type

import keyroute
import pytest
from hostile_child import BATCH_TARGETS, BIG_BAD_KEY_BYTES, BIG_KEY_CALLS, HUGE_WORK, LIARS, batch_target

#: What a refusal may cost, Python and native allocations each (bindings/tests/hostile.rs holds
#: every refusal to 10 MB as well).
REFUSAL_BYTES = 10 * 2**20

MIB = 2**20

CHILD = Path(__file__).resolve().parent / "hostile_child.py"


def run_children(cases: List[str]) -> List[Dict[str, Any]]:
    """Runs ``cases`` in one child process; their reports (a crash or abort fails the test)."""
    proc = subprocess.run(
        [sys.executable, str(CHILD), *cases],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, RUST_BACKTRACE="1"),
    )
    done = len(proc.stdout.splitlines())
    assert proc.returncode == 0, (
        f"the child died ({proc.returncode}) on {cases[min(done, len(cases) - 1)]}:\n{proc.stderr[-3000:]}"
    )
    reports = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(reports) == len(cases)
    return reports


def run_child(case: str) -> Dict[str, Any]:
    return run_children([case])[0]


def describe(report: Dict[str, Any]) -> str:
    rss = "n/a" if report["rss_peak"] is None else f"{report['rss_peak'] / MIB:.2f} MiB"
    return f"{report['seconds'] * 1000:.2f} ms, Python peak {report['py_peak'] / MIB:.2f} MiB, RSS rise {rss}"


def assert_small(report: Dict[str, Any], bound: int = REFUSAL_BYTES) -> None:
    assert report["py_peak"] < bound, f"Python allocated {report['py_peak']} bytes"
    if report["rss_peak"] is not None:
        assert report["rss_peak"] < bound, f"the resident set rose by {report['rss_peak']} bytes"


def assert_refused(report: Dict[str, Any], cls: Type[keyroute.Error]) -> None:
    assert "error" in report, f"no error: {report.get('result')!r}"
    assert report["error"] == cls.__name__, report
    assert report["code"] == cls.code, report
    assert "PanicException" not in report["error_mro"]


def test_route_many_over_a_trillion_range_fails_at_once(figure: Any) -> None:
    """``route_many(range(10**12))``: a range is not a list, so it is read lazily and fails at
    key 0 (an int), instead of reserving room for 10**12 results first."""
    for target, report in zip(BATCH_TARGETS, run_children([f"range:{t}" for t in BATCH_TARGETS])):
        assert_refused(report, keyroute.InvalidTypeError)
        assert report["message"].startswith("key 0: "), report["message"]
        assert_small(report, 2 * MIB)
        figure(f"hostile: route_many(range(10**12)) on {target}: InvalidTypeError in {describe(report)}")


@pytest.mark.parametrize("target", BATCH_TARGETS)
def test_a_lying_length_is_not_believed(target: str, figure: Any) -> None:
    """A batch whose ``__len__`` claims 2**59 items (or 2**62, or raises) is routed by the items
    it really has: no PanicException (capacity overflow), no huge reservation, no IndexError
    from a list or tuple subclass read past its end."""
    liars = sorted(LIARS)
    reports = run_children([f"liar:{target}/{liar}" for liar in liars])
    want = batch_target(target).route_many(["k1", "k2", "k3"])
    for liar, report in zip(liars, reports):
        assert "error" not in report, (liar, report)
        assert report["result"] == want, liar
        assert_small(report, 2 * MIB)
    worst = max(reports, key=lambda r: r["seconds"])
    figure(f"hostile: route_many of {len(liars)} lying lengths on {target}: routed the real items, slowest {describe(worst)}")


@pytest.mark.parametrize("name", sorted(HUGE_WORK))
def test_small_specs_asking_for_huge_work_are_refused(name: str, figure: Any) -> None:
    spec, cls = HUGE_WORK[name]
    assert len(json.dumps(spec)) < 1024
    # The mapping and its JSON text are refused alike.
    for form in (spec, json.dumps(spec)):
        with pytest.raises(cls) as info:
            keyroute.Router(form)
        assert info.value.code == cls.code
    report = run_child(f"spec:{name}")
    assert_refused(report, cls)
    assert_small(report)
    figure(f"hostile: {name} ({len(json.dumps(spec))} bytes): {cls.__name__} in {describe(report)}")


def test_jump_over_the_node_limit_builds_no_buckets(figure: Any) -> None:
    """``Jump(2**20 + 1)`` once built a million dicts before the native layer refused them."""
    for n, report in zip((2**20 + 1, 2**40), run_children(["jump:1048577", f"jump:{2**40}"])):
        assert_refused(report, keyroute.TooManyNodesError)
        assert_small(report, 1 * MIB)
        figure(f"hostile: Jump({n}): TooManyNodesError in {describe(report)}")
    # At the default limit and just past it.
    assert len(keyroute.Jump(keyroute.LIMITS["max_nodes"])) == keyroute.LIMITS["max_nodes"]
    with pytest.raises(keyroute.TooManyNodesError):
        keyroute.Jump(keyroute.LIMITS["max_nodes"] + 1)


def test_raised_node_limit(figure: Any) -> None:
    start = time.perf_counter()
    jump = keyroute.Jump(100_000, limits={"max_nodes": 100_000})
    seconds = time.perf_counter() - start
    assert len(jump) == 100_000 and jump.nodes[-1] == "99999"
    assert jump.route("k") in jump.nodes
    with pytest.raises(keyroute.TooManyNodesError):
        keyroute.Jump(100_001, limits={"max_nodes": 100_000})
    # A limit above the ceiling, or malformed, is refused as a parameter.
    ceiling = keyroute.LIMITS_CEILING["max_nodes"]
    for bad in ({"max_nodes": ceiling + 1}, {"max_nodes": -1}, {"max_node": 5}, {"max_nodes": "5"}):
        with pytest.raises(keyroute.InvalidParameterError):
            keyroute.Ring(["a"], limits=bad)  # type: ignore[arg-type]
    figure(f"hostile: Jump(100000, limits={{'max_nodes': 100000}}) built in {seconds * 1000:.0f} ms")


def _code(build: Callable[[], Any]) -> int:
    with pytest.raises(keyroute.Error) as info:
        build()
    return info.value.code


@pytest.mark.parametrize(
    "make",
    [
        lambda v: {"algorithm": "ring", "nodes": [{"id": "a", "weight": v}]},
        lambda v: {"algorithm": "ring", "nodes": [{"id": "a"}], "params": {"points_per_weight": v}},
        lambda v: {"algorithm": "maglev", "nodes": [{"id": "a"}], "params": {"table_size": v}},
        lambda v: {"algorithm": "ring", "nodes": [{"id": "a"}], "version": v},
    ],
    ids=["weight", "points", "table_size", "version"],
)
def test_numbers_json_cannot_hold_give_the_code_of_the_text(make: Callable[[Any], Dict[str, Any]]) -> None:
    """A mapping holding inf (1e400 is inf in Python) is refused as its JSON text (1e400) is:
    invalid_spec; -inf as -1e400; NaN, which JSON text cannot write at all, alike."""
    text_code = _code(lambda: keyroute.Router(json.dumps(make(0)).replace(": 0", ": 1e400")))
    assert text_code == keyroute.InvalidSpecError.code
    for value in (float("inf"), 1e400, float("-inf"), float("nan")):
        assert _code(partial(keyroute.Router, make(value))) == text_code, value
    neg = json.dumps(make(0)).replace(": 0", ": -1e400")
    assert _code(lambda: keyroute.Router(neg)) == text_code


@pytest.mark.parametrize(
    "make",
    [
        lambda s: {"algorithm": "ring", "nodes": [{"id": s}]},
        lambda s: {"algorithm": s, "nodes": [{"id": "a"}]},
        lambda s: {"algorithm": "ring", "nodes": [{"id": "a", "zone": s}]},
        lambda s: {"algorithm": "twemproxy", "nodes": [{"id": "a", "host": "h", "port": 1}], "params": {"hash_tag": s}},
        lambda s: {"algorithm": "ring", "nodes": [{"id": "a"}], s: 1},
        lambda s: {"algorithm": "ring", "nodes": [{"id": "a"}], "params": {s: 1}},
    ],
    ids=["id", "algorithm", "zone", "param-value", "field-name", "param-name"],
)
def test_lone_surrogates_give_the_code_of_the_escaped_text(make: Callable[[str], Dict[str, Any]]) -> None:
    """A mapping holding a lone surrogate is refused as the JSON text with it escaped
    (``"\\ud800"``) is: invalid_utf8, wherever it stands."""
    for s in ("\ud800", "a\udfff", "\udc00\ud800"):
        escaped = json.dumps(make(s))  # ensure_ascii: the surrogate as a \\u escape
        assert "\\ud" in escaped
        text_code = _code(partial(keyroute.Router, escaped))
        assert text_code == keyroute.InvalidUtf8Error.code
        assert _code(partial(keyroute.Router, make(s))) == text_code
        # The str itself (the surrogate unescaped) too.
        raw = json.dumps(make(s), ensure_ascii=False)
        assert _code(partial(keyroute.Router, raw)) == text_code


PICKLED = [
    lambda: keyroute.Ring({"a": 1, "b": 2}),
    lambda: keyroute.Ring(["a", "b", "c"], points=40, version=7),
    lambda: keyroute.Maglev(["a", "b", "c"], table_size=4099),
    lambda: keyroute.Uhashring(["a", "b"]),
    lambda: keyroute.Libmemcached(["10.0.0.1:11211", "10.0.0.2:11211"], distribution="ketama"),
    lambda: keyroute.Router({"algorithm": "rendezvous", "nodes": [{"id": "a"}, {"id": "b"}]}),
    # Built under raised limits: the pickle is rebuilt without them being given again.
    lambda: keyroute.Jump(20_000, limits={"max_nodes": 20_000}),
    lambda: keyroute.Ring({"a": 1}, points=2_200_000, limits={"max_points": 2_200_000}),
    lambda: keyroute.Maglev(["a"], table_size=1_048_583, limits={"max_table_entries": 1_048_583}),
]


@pytest.mark.parametrize("build", PICKLED)
def test_pickle_gives_back_the_same_class_and_router(build: Callable[[], keyroute.Router]) -> None:
    router = build()
    for protocol in (0, 2, pickle.HIGHEST_PROTOCOL):
        back = pickle.loads(pickle.dumps(router, protocol))
        assert type(back) is type(router)
        assert back == router and back.canonical_json == router.canonical_json
        assert back.fingerprint == router.fingerprint and back.version == router.version
        keys = [f"k{i}" for i in range(200)]
        assert back.route_many(keys) == router.route_many(keys)
    assert copy.copy(router) is router and copy.deepcopy(router) is router


def test_a_huge_key_no_text_preset_takes_is_refused_at_once(figure: Any) -> None:
    """A 100 MB key that is not UTF-8, given to a text-only preset: refused with InvalidKeyError
    and a short message (the issue found 3 s spent hex-encoding the key into it)."""
    for how, report in zip(BIG_KEY_CALLS, run_children([f"bigkey:{how}" for how in BIG_KEY_CALLS])):
        assert_refused(report, keyroute.InvalidKeyError)
        assert len(report["message"]) < 200, report["message"]
        # route_many copies its keys before routing them (the GIL is released meanwhile): the
        # key once; the other calls read it in place.
        assert_small(report, int(1.2 * BIG_BAD_KEY_BYTES) if how == "route_many" else REFUSAL_BYTES)
        figure(f"hostile: a 100 MB non-UTF-8 key to Uhashring {how}: InvalidKeyError in {describe(report)}")


#: (build, address space left for it): every build needs far more. Under the default limits
#: none of these is allowed; the tests raise the limits to the ceiling so the allocation is
#: really attempted.
OOM_CASES = [
    ("ring-33554432-points", 160 * MIB),  # fails at the first table
    ("ring-33554432-points", 400 * MIB),  # fails at a later one
    ("nginx-weight-209715", 100 * MIB),
    ("uhashring-8388608-vnodes", 60 * MIB),
    ("maglev-67108859", 160 * MIB),  # the table of 67108859 u32 entries (256 MiB)
    ("slots-16777216", 30 * MIB),
    ("maglev-4194301", 5 * 4194301),  # room for the u32 entries (4 bytes each), not also the u16 copy
]


@pytest.mark.parametrize("build, headroom", OOM_CASES)
def test_out_of_memory_is_an_error_not_an_abort(build: str, headroom: int, figure: Any) -> None:
    """In a child limited to ``headroom`` more bytes of address space (RLIMIT_AS), a router whose
    tables cannot be allocated raises keyroute.OutOfMemoryError (also a MemoryError); the child
    lives on and builds and routes a small router."""
    proc = subprocess.run(
        [sys.executable, str(CHILD), "--oom", build, str(headroom)],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, RUST_BACKTRACE="0"),  # a backtrace under the limit takes minutes
    )
    assert proc.returncode == 0, f"the child died ({proc.returncode}):\n{proc.stderr[-3000:]}"
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report.get("error") == "OutOfMemoryError", report
    assert report["code"] == keyroute.OutOfMemoryError.code == 25
    assert "MemoryError" in report["error_mro"] and "Error" in report["error_mro"]
    ring = keyroute.Ring(["a", "b", "c"])
    assert report["after"] == [ring.route("k"), ring.route_many(["k", "user:1"]), ring.replicas("k", 3)]
    figure(
        f"oom: {build} with {headroom / MIB:.0f} MiB of address space: OutOfMemoryError after "
        f"{report['seconds']:.2f} s, then a small router built and routed"
    )
