"""The child side of test_hostile.py: runs hostile calls, each measured, in a process of its
own under an address space limit (``python hostile_child.py CASE...``), and prints one JSON
report a line. Imports only keyroute (not pytest), so a child starts quickly."""

from __future__ import annotations

import gc
import json
import sys
import time
import tracemalloc
from typing import Any, Callable, Dict, List, Optional, cast

import keyroute

#: The address space a child may take beyond what it has after importing keyroute: room for the
#: 100 MB key and its copy, far too little for any of the allocations the issue found.
CHILD_HEADROOM = 768 * 2**20


def _status_bytes(field: str) -> Optional[int]:
    """A ``kB`` field of /proc/self/status in bytes, or None where there is none."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _reset_peak_rss() -> bool:
    """Resets VmHWM to the current RSS (Linux ≥ 4.0); False where that is not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def measure(call: Callable[[], Any]) -> Dict[str, Any]:
    """Runs ``call`` once: what it returned or raised, its time, and the memory it took."""
    gc.collect()
    can_reset = _reset_peak_rss()
    rss_before = _status_bytes("VmRSS")
    tracemalloc.start()
    start = time.perf_counter()
    error: Optional[BaseException] = None
    result: Any = None
    try:
        result = call()
    except BaseException as e:  # reported to the parent, which decides
        error = e
    seconds = time.perf_counter() - start
    _, py_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    hwm = _status_bytes("VmHWM")
    rss_peak = hwm - rss_before if can_reset and hwm is not None and rss_before is not None else None
    report: Dict[str, Any] = {"seconds": seconds, "py_peak": py_peak, "rss_peak": rss_peak}
    if error is None:
        report["result"] = result if isinstance(result, (list, str, int, type(None))) else repr(result)
    else:
        report["error"] = type(error).__name__
        report["error_mro"] = [c.__name__ for c in type(error).__mro__]
        report["code"] = getattr(error, "code", None)
        report["message"] = str(error)[:500]
    return report


def lying(kind: str, length: int, items: List[str]) -> Any:
    """A batch of ``items`` whose ``__len__`` claims ``length`` (or raises, for a length
    ``len()`` refuses): a list or tuple subclass, an old-style sequence (``__getitem__`` until
    IndexError) or an iterable."""
    if kind in ("list", "tuple"):
        base: type = list if kind == "list" else tuple

        class Liar(base):  # type: ignore[misc]
            def __len__(self) -> int:
                return length

        return Liar(items)

    class Sequence:
        def __len__(self) -> int:
            return length

        def __getitem__(self, i: int) -> str:
            return items[i]

    class Iterable:
        def __len__(self) -> int:
            return length

        def __iter__(self) -> Any:
            return iter(items)

    return Sequence() if kind == "sequence" else Iterable()


#: name: (kind, what __len__ claims).
LIARS = {
    f"{kind}-len-{name}": (kind, length)
    for kind in ("list", "tuple", "sequence", "iterable")
    for name, length in [("2**59", 2**59), ("2**62", 2**62), ("2**63-1", 2**63 - 1), ("2**64", 2**64), ("-1", -1)]
}

#: Routers a batch can go through: hashed in place (ring), copied (rendezvous), shared, in
#: transition.
BATCH_TARGETS = ["ring", "rendezvous", "shared", "transition"]


def batch_target(name: str) -> Any:
    ring = keyroute.Ring({"a": 1, "b": 2})
    if name == "ring":
        return ring
    if name == "rendezvous":
        return keyroute.Rendezvous({"a": 1, "b": 2})
    if name == "shared":
        return keyroute.SharedRouter(ring)
    return keyroute.Transition(ring, keyroute.Ring({"a": 1, "b": 2, "c": 1}), 0.5)


#: Specs under 1 KB that asked for huge work: (spec, the code that refuses it).
HUGE_WORK: Dict[str, Any] = {
    "uhashring-33554432-vnodes": (
        {"algorithm": "uhashring", "nodes": [{"id": "a"}], "params": {"vnodes": 33554432}},
        keyroute.TooManyPointsError,
    ),
    "maglev-67108859": (
        {"algorithm": "maglev", "nodes": [{"id": "a"}], "params": {"table_size": 67108859}},
        keyroute.TableSizeOutOfRangeError,
    ),
    "ring-33554432-points": (
        {"algorithm": "ring", "nodes": [{"id": "a"}], "params": {"points_per_weight": 33554432}},
        keyroute.TooManyPointsError,
    ),
    "nginx-weight-209715": (
        {"algorithm": "nginx", "nodes": [{"id": "a", "weight": 209715}]},
        keyroute.TooManyPointsError,
    ),
    "uhashring-940-byte-id": (
        {"algorithm": "uhashring", "params": {"vnodes": 100_000}, "nodes": [{"id": "x" * 940}]},
        keyroute.TooManyPointsError,
    ),
    "npm-hashring-4e9-vnodes": (
        {"algorithm": "npm-hashring", "nodes": [{"id": "a"}], "params": {"vnode_count": 4_000_000_000}},
        keyroute.TooManyPointsError,
    ),
    "slots-67108859": (
        {"algorithm": "slots", "nodes": [{"id": "a"}], "params": {"count": 67108859}},
        keyroute.TableSizeOutOfRangeError,
    ),
}

#: A key no text-only preset can take, 100 MB of it.
BIG_BAD_KEY_BYTES = 100 * 10**6


#: The calls a huge bad key is given to.
BIG_KEY_CALLS = ["route", "replicas", "route_many", "shared", "transition"]
_BIG_KEY: List[bytes] = []


def _big_key_call(how: str) -> Callable[[], Any]:
    router = keyroute.Uhashring(["a", "b", "c"])
    if not _BIG_KEY:
        _BIG_KEY.append(b"\xff" * BIG_BAD_KEY_BYTES)  # made once, before any measurement
    key = _BIG_KEY[0]
    calls: Dict[str, Callable[[], Any]] = {
        "route": lambda: router.route(key),
        "replicas": lambda: router.replicas(key, 2),
        "route_many": lambda: router.route_many([b"ok", key]),
        "shared": lambda: keyroute.SharedRouter(router).route(key),
        "transition": lambda: keyroute.Transition(router, keyroute.Uhashring(["a", "b"]), 0.5).route(key),
    }
    return calls[how]


def child_call(case: str) -> Callable[[], Any]:
    """The call the child measures for ``case`` (everything it needs is built beforehand)."""
    kind, _, rest = case.partition(":")
    if kind == "range":
        target = batch_target(rest)
        return lambda: target.route_many(range(10**12))
    if kind == "liar":
        target_name, liar = rest.split("/")
        target = batch_target(target_name)
        kind, length = LIARS[liar]
        keys = lying(kind, length, ["k1", "k2", "k3"])
        return lambda: target.route_many(keys)
    if kind == "spec":
        spec = HUGE_WORK[rest][0]
        return lambda: keyroute.Router(spec)
    if kind == "jump":
        return lambda: keyroute.Jump(int(rest))
    if kind == "bigkey":
        return _big_key_call(rest)
    raise ValueError(f"unknown case {case}")


def child_main(cases: List[str]) -> None:
    """Measures each case, one JSON report a line, under an address space limit."""
    calls = [child_call(case) for case in cases]
    size = _status_bytes("VmSize")
    if size is not None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (size + CHILD_HEADROOM, size + CHILD_HEADROOM))
    for call in calls:
        print(json.dumps(measure(call)), flush=True)


#: The ceiling limits, typed as the constructors take them (their ``limits`` parameter is typed
#: ``Optional[Limits]``, which a ``Dict[str, int]`` such as ``keyroute.LIMITS_CEILING`` is not).
CEILING = cast(keyroute.Limits, keyroute.LIMITS_CEILING)

#: Routers whose tables take far more memory than the out-of-memory tests leave: each under the
#: ceiling limits, so that the allocation is really attempted.
OOM_BUILDS: Dict[str, Callable[[], Any]] = {
    "ring-33554432-points": lambda: keyroute.Ring({"a": 1}, points=33554432, limits=CEILING),
    "nginx-weight-209715": lambda: keyroute.Nginx({"a": 209715}, limits=CEILING),
    "uhashring-8388608-vnodes": lambda: keyroute.Uhashring(["a"], vnodes=8388608, limits=CEILING),
    "maglev-67108859": lambda: keyroute.Maglev(["a", "b", "c"], table_size=67108859, limits=CEILING),
    "maglev-4194301": lambda: keyroute.Maglev(["a", "b", "c"], table_size=4194301, limits=CEILING),
    "slots-16777216": lambda: keyroute.Router(
        {"algorithm": "slots", "nodes": [{"id": "a"}], "params": {"count": 16777216}}, limits=CEILING
    ),
}


def oom_main(build: str, headroom: int) -> None:
    """Builds ``build`` with only ``headroom`` bytes of address space beyond what the process
    has now; reports how it failed, then builds and routes a small router."""
    import resource

    size = _status_bytes("VmSize")
    assert size is not None, "no /proc/self/status"
    resource.setrlimit(resource.RLIMIT_AS, (size + headroom, size + headroom))
    report: Dict[str, Any] = {}
    start = time.perf_counter()
    try:
        OOM_BUILDS[build]()
        report["built"] = True
    except BaseException as e:  # reported to the parent, which decides
        report.update(error=type(e).__name__, error_mro=[c.__name__ for c in type(e).__mro__])
        report.update(code=getattr(e, "code", None), message=str(e)[:300])
    report["seconds"] = time.perf_counter() - start
    ring = keyroute.Ring(["a", "b", "c"])
    report["after"] = [ring.route("k"), ring.route_many(["k", "user:1"]), ring.replicas("k", 3)]
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "--oom":
        oom_main(sys.argv[2], int(sys.argv[3]))
    else:
        child_main(sys.argv[1:])
